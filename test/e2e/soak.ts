/**
 * The crash runs of crash.test.ts, longer or more of them, on a freshly
 * installed package.
 *
 *   npm run build && node dist/test/e2e/soak.js [--mode M] [--seeds N] [--seed S] [--results N] [--kills K]
 *
 * --mode random (default) or after-rx-write: `--kills` (10) kills spread over
 * `--results` (3000) results. --mode repeat-store, replay-after-ack,
 * replay-twice or after-tx-sending: that mode's aimed kills (crash-harness.ts
 * AIMED_MODES) over `--results` (200) results; --mode aimed runs all four.
 * Each mode runs once per seed: S, S+1, ... (`--seeds`, default 3; `--runs`
 * is the same).
 *
 * Prints one counts line per run, for each lost, stuck or unexplained
 * duplicate result what the simulator, the LIS and the journal saw, for each
 * aimed kill that missed its window why, and at the end a table: mode, seed,
 * sent, ACKed, delivered, held, lost, duplicates not marked uncertain, stuck,
 * windows hit. Exit status 1 when any run lost an acknowledged result, left
 * one stuck, delivered one twice without an uncertain batch to explain it, or
 * delivered one the analyzer never sent; 2 when a run could not be carried
 * out or an aimed kill missed its window (the run did not test what it says).
 */
import { parseArgs } from 'node:util';
import { AIMED_MODES, KILL_MODES, crashRun, isAimed, type KillMode } from './crash-harness';
import { installPackage } from './harness';

const MODE_CHOICES = [...KILL_MODES, 'aimed'] as const;

interface Row {
  mode: KillMode;
  seed: number;
  cells: Record<string, string>;
  /** 0 clean, 1 findings, 2 not carried out (error or a missed window). */
  status: 0 | 1 | 2;
}

// async: a bad option then ends as a rejected promise, reported below with exit status 2.
async function main(): Promise<number> {
  const { values } = parseArgs({
    options: {
      mode: { type: 'string', default: 'random' },
      results: { type: 'string' },
      kills: { type: 'string', default: '10' },
      seed: { type: 'string' },
      seeds: { type: 'string' },
      runs: { type: 'string' },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  if (values.help) {
    console.log(`usage: node dist/test/e2e/soak.js [--mode ${MODE_CHOICES.join('|')} (random)] [--seeds N (3)] [--seed S (random)] [--results N (3000; aimed modes 200)] [--kills K (10; not for aimed modes)]`);
    return 0;
  }
  const whole = (name: string, v: string | undefined, min: number) => {
    const n = Number(v);
    if (!Number.isInteger(n) || n < min) throw new Error(`--${name} must be a whole number >= ${min}, got ${v}`);
    return n;
  };
  const mode = values.mode!;
  if (!(MODE_CHOICES as readonly string[]).includes(mode)) throw new Error(`--mode must be one of ${MODE_CHOICES.join(', ')}, got ${mode}`);
  const modes: KillMode[] = mode === 'aimed' ? [...AIMED_MODES] : [mode as KillMode];
  const aimedOnly = modes.every(isAimed);
  // Aimed kills are few and early: a long upload after them adds time, not coverage.
  const results = whole('results', values.results ?? (aimedOnly ? '200' : '3000'), 1);
  const kills = whole('kills', values.kills, 0);
  if (values.seeds !== undefined && values.runs !== undefined && values.seeds !== values.runs) throw new Error('--runs is another name for --seeds: give one');
  const seeds = whole('seeds', values.seeds ?? values.runs ?? '3', 1);
  const firstSeed = values.seed === undefined ? Math.floor(Math.random() * 1e9) : whole('seed', values.seed, 0);
  return soak(modes, results, kills, seeds, firstSeed);
}

async function soak(modes: KillMode[], results: number, kills: number, seeds: number, firstSeed: number): Promise<number> {
  const started = Date.now();
  const installation = installPackage();
  const rows: Row[] = [];
  try {
    for (const mode of modes) {
      for (let i = 0; i < seeds; i++) {
        const seed = firstSeed + i;
        console.log(`soak run: mode ${mode}, seed ${seed}, ${results} results${isAimed(mode) ? '' : `, ${kills} kills`}`);
        try {
          const report = await crashRun({
            results,
            kills,
            seed,
            killMode: mode,
            installation,
            timeoutMs: 120_000 + results * 100 + kills * 5_000,
            progress: (line) => console.log(`  ${line}`),
          });
          console.log(report.line);
          const c = report.counts;
          const t = report.tally;
          const findings = t.lostKeys.length > 0 || t.unexplainedDuplicates.length > 0 || t.foreignKeys.length > 0 || c.stuck > 0;
          const missed = report.missed() !== '';
          if (findings || missed) console.log(report.problems());
          rows.push({
            mode,
            seed,
            cells: {
              sent: String(c.sent),
              ACKed: String(c.acked),
              delivered: String(c.delivered),
              held: String(c.held),
              lost: String(c.lost),
              'dup not uncertain': String(t.unexplainedDuplicates.length),
              stuck: String(c.stuck),
              windows: isAimed(mode) ? `${report.windows.hit}/${report.windows.aimed}` : '-',
              s: (report.elapsedMs / 1000).toFixed(1),
            },
            status: missed ? 2 : findings ? 1 : 0,
          });
        } catch (err) {
          // One run that could not be carried out does not hide what the others show.
          console.log(`  run failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
          rows.push({ mode, seed, cells: { sent: 'error' }, status: 2 });
        }
      }
    }
  } finally {
    installation.remove();
  }
  printTable(rows);
  const bad = rows.filter((r) => r.status === 1).length;
  const broken = rows.filter((r) => r.status === 2).length;
  console.log(`soak: ${rows.length} run(s), ${bad} with lost, stuck or unexplained results, ${broken} not carried out or with a missed window, ${((Date.now() - started) / 1000).toFixed(1)} s`);
  return broken > 0 ? 2 : bad > 0 ? 1 : 0;
}

function printTable(rows: Row[]): void {
  const columns = ['mode', 'seed', 'sent', 'ACKed', 'delivered', 'held', 'lost', 'dup not uncertain', 'stuck', 'windows', 's'];
  const cell = (r: Row, col: string) => (col === 'mode' ? r.mode : col === 'seed' ? String(r.seed) : (r.cells[col] ?? ''));
  const width = columns.map((col) => Math.max(col.length, ...rows.map((r) => cell(r, col).length)));
  const line = (cells: string[]) => cells.map((x, i) => (i < 2 ? x.padEnd(width[i]!) : x.padStart(width[i]!))).join('  ');
  console.log('');
  console.log(line(columns));
  console.log(line(width.map((w) => '-'.repeat(w))));
  for (const r of rows) console.log(line(columns.map((col) => cell(r, col))));
  console.log('');
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(err instanceof Error ? (err.stack ?? err.message) : err);
    process.exit(2);
  },
);
