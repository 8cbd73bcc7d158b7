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

/** One failed test, as the end of a run reports it. */
export interface TapFailure {
  /** The names from the outermost suite down to the failed test. */
  path: string[];
  failureType: string;
  /** The error's message, at most a few lines of it. */
  error: string[];
  /** Where it failed: the first stack frame outside Node's own code, else the test's location. */
  at: string;
}

/** Failures a test of its own caused; a suite failing because a subtest did, or a test cancelled with its parent, is not one. */
const CONSEQUENCES = new Set(['subtestsFailed', 'cancelledByParent']);
const MAX_ERROR_LINES = 6;

/** The failed tests in a TAP stream, each with its path, message and place: what a reader needs when only the end of a log survives. */
export function tapFailures(tap: string): TapFailure[] {
  const lines = tap.split('\n');
  const names: string[] = [];
  const out: TapFailure[] = [];
  for (let i = 0; i < lines.length; i++) {
    const text = lines[i]!;
    const subtest = /^( *)# Subtest: (.*)$/.exec(text);
    if (subtest) {
      names.length = subtest[1]!.length / 4;
      names.push(subtest[2]!);
      continue;
    }
    const notOk = /^( *)not ok \d+ - (.*)$/.exec(text);
    if (!notOk) continue;
    const depth = notOk[1]!.length / 4;
    const block = yamlBlock(lines, i + 1, notOk[1]!.length + 2);
    i = block.end;
    const failureType = block.scalar.get('failureType') ?? '';
    if (CONSEQUENCES.has(failureType)) continue;
    const path = [...names.slice(0, depth), notOk[2]!];
    const error = (block.text.get('error') ?? [block.scalar.get('error') ?? '']).filter((l) => l.trim() !== '');
    const stack = block.text.get('stack') ?? [];
    const frame = stack.find((l) => !/node:|node_modules/.test(l));
    out.push({
      path,
      failureType,
      error: error.length > MAX_ERROR_LINES ? [...error.slice(0, MAX_ERROR_LINES), '…'] : error,
      at: frame?.trim() ?? block.scalar.get('location') ?? '',
    });
  }
  return out;
}

interface YamlBlock {
  end: number;
  scalar: Map<string, string>;
  text: Map<string, string[]>;
}

/** node:test's diagnostic block ("---" to "..."), read for its one-line values and its `|-` texts. */
function yamlBlock(lines: string[], from: number, indent: number): YamlBlock {
  const pad = ' '.repeat(indent);
  const block: YamlBlock = { end: from - 1, scalar: new Map(), text: new Map() };
  if (lines[from] !== `${pad}---`) return block;
  let key: string | undefined;
  for (let j = from + 1; j < lines.length; j++) {
    const l = lines[j]!;
    if (l === `${pad}...`) {
      block.end = j;
      return block;
    }
    const entry = new RegExp(`^${pad}([A-Za-z_]+): ?(.*)$`).exec(l);
    if (entry) {
      key = undefined;
      if (entry[2] === '|-' || entry[2] === '|') {
        key = entry[1]!;
        block.text.set(key, []);
      } else block.scalar.set(entry[1]!, unquote(entry[2]!));
    } else if (key && l.startsWith(`${pad}  `)) block.text.get(key)!.push(l.slice(indent + 2));
    else if (key && l.trim() === '') block.text.get(key)!.push('');
  }
  block.end = lines.length - 1;
  return block;
}

function unquote(v: string): string {
  return /^'.*'$/.test(v) ? v.slice(1, -1).replace(/''/g, "'") : v;
}

/** The lines around the end-of-run failure list (.ci/run looks for them). */
/** The line a shared process writes when a handle a file left open would have held it after its last file (test/runner/in-one-process.ts). */
export const LEFT_OPEN = '# left open after the last file:';

export const FAILURES_START = '# ---- what failed ----';
export const FAILURES_END = '# ---- end of what failed ----';
