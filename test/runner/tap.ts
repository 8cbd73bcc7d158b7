/** What the runner reads from a child's TAP output (node:test's tap reporter). */

export interface TapCounts {
  tests: number;
  pass: number;
  fail: number;
  cancelled: number;
  skipped: number;
  todo: number;
}

export const NO_COUNTS: TapCounts = { tests: 0, pass: 0, fail: 0, cancelled: 0, skipped: 0, todo: 0 };

/** The closing counts ("# pass 12"), or undefined when the output has none (the process died first). */
export function tapCounts(tap: string): TapCounts | undefined {
  const counts = { ...NO_COUNTS };
  let seen = false;
  for (const m of tap.matchAll(/^# (tests|pass|fail|cancelled|skipped|todo) (\d+)$/gm)) {
    counts[m[1] as keyof TapCounts] = Number(m[2]);
    seen = true;
  }
  return seen ? counts : undefined;
}

export function addCounts(a: TapCounts, b: TapCounts): TapCounts {
  return { tests: a.tests + b.tests, pass: a.pass + b.pass, fail: a.fail + b.fail, cancelled: a.cancelled + b.cancelled, skipped: a.skipped + b.skipped, todo: a.todo + b.todo };
}

/** The durations (ms) of the top-level subtests, by name: in a shared process, one per file. */
export function topLevelDurations(tap: string): Map<string, number> {
  const out = new Map<string, number>();
  const lines = tap.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const m = /^(?:not )?ok \d+ - (.*)$/.exec(lines[i]!);
    if (!m) continue;
    for (let j = i + 1; j < Math.min(lines.length, i + 6); j++) {
      const d = /^ {2}duration_ms: ([\d.]+)$/.exec(lines[j]!);
      if (d) {
        out.set(m[1]!, Number(d[1]));
        break;
      }
    }
  }
  return out;
}
