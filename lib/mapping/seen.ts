/**
 * "Seen, not mapped": the codes (and a coded test's texts) an analyzer sent that its test map does not hold, read
 * from the results held for them, so the map's dialog can offer each for mapping with one click.
 */
export interface SeenHold {
  node: string;
  kind: string;
  code: string;
  state: string;
  at: number;
  samples: readonly string[];
  results: ReadonlyArray<{ result: unknown }>;
}

export interface Seen {
  kind: 'unmapped' | 'unvalued';
  /** The instrument code as held (`CODE` or `CODE/SUB`). */
  code: string;
  /** For a coded test: the result text with no LIS value. */
  text?: string;
  results: number;
  samples: number;
  since: number;
}

/** Per code (and text), the open holds of the given test-mappers, oldest first. Linear in the holds. */
export function seenNotMapped(holds: Iterable<SeenHold>, nodes: ReadonlySet<string>): Seen[] {
  const byKey = new Map<string, Seen & { sampleSet: Set<string> }>();
  for (const h of holds) {
    if (h.state !== 'open' || !nodes.has(h.node) || (h.kind !== 'unmapped' && h.kind !== 'unvalued')) continue;
    for (const r of h.results) {
      const text = h.kind === 'unvalued' ? resultText(r.result) : undefined;
      const key = JSON.stringify([h.kind, h.code, text ?? null]);
      let seen = byKey.get(key);
      if (!seen) byKey.set(key, (seen = { kind: h.kind, code: h.code, ...(text !== undefined ? { text } : {}), results: 0, samples: 0, since: h.at, sampleSet: new Set() }));
      seen.results++;
      seen.since = Math.min(seen.since, h.at);
      const sample = (r.result as { SampleNumber?: unknown } | null)?.SampleNumber;
      if (typeof sample === 'string') seen.sampleSet.add(sample);
    }
  }
  return [...byKey.values()]
    .map(({ sampleSet, ...s }) => ({ ...s, samples: sampleSet.size }))
    .sort((a, b) => a.since - b.since);
}

function resultText(result: unknown): string {
  const value = (result as { Result?: unknown } | null)?.Result;
  return typeof value === 'string' ? value.trim() : '';
}
