/**
 * Which way a message goes through the test-mapper. The two shapes cannot be
 * confused: an order is an object with a Tests array; results are an array of
 * items each carrying an instrumentCode (or { results: [...] } of them).
 */
export type Direction = 'toInstrument' | 'toLis';

export function detectDirection(payload: unknown): Direction | undefined {
  if (Array.isArray(payload)) return isResultList(payload) ? 'toLis' : undefined;
  if (typeof payload !== 'object' || payload === null) return undefined;
  const p = payload as Record<string, unknown>;
  if (Array.isArray(p.results)) return isResultList(p.results) ? 'toLis' : undefined;
  if (Array.isArray(p.Tests)) return 'toInstrument';
  return undefined;
}

function isResultList(items: unknown[]): boolean {
  return items.length > 0 && items.every((i) => typeof i === 'object' && i !== null && 'instrumentCode' in i);
}

/** The LIS test IDs of an order going to the instrument, or undefined when the payload has none to map. */
export function orderTestsOf(payload: unknown): string[] | undefined {
  const tests = typeof payload === 'object' && payload !== null ? (payload as Record<string, unknown>).Tests : undefined;
  return Array.isArray(tests) && tests.every((x) => typeof x === 'string') ? (tests as string[]) : undefined;
}

/** The instrument results going to the LIS: the payload itself, or its `results`. */
export function resultItemsOf(payload: unknown): unknown[] | undefined {
  if (Array.isArray(payload)) return payload;
  const results = typeof payload === 'object' && payload !== null ? (payload as { results?: unknown }).results : undefined;
  return Array.isArray(results) ? results : undefined;
}
