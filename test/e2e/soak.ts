/**
 * The crash run of crash.test.ts, longer: by default 3000 results and 10
 * SIGKILLs of Node-RED, on a freshly installed package.
 *
 *   npm run build && node dist/test/e2e/soak.js [--results N] [--kills K] [--seed S] [--runs R]
 *
 * Prints one counts line per run, and for each lost result or unexplained
 * duplicate what the simulator, the LIS and the journal saw. Exit status 1
 * when any run lost an acknowledged result, delivered one twice without an
 * uncertain batch to explain it, or delivered one the analyzer never sent;
 * 2 when a run could not be carried out.
 */
import { parseArgs } from 'node:util';
import { crashRun } from './crash-harness';
import { installPackage } from './harness';

function main(): Promise<number> {
  const { values } = parseArgs({
    options: {
      results: { type: 'string', default: '3000' },
      kills: { type: 'string', default: '10' },
      seed: { type: 'string' },
      runs: { type: 'string', default: '1' },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  if (values.help) {
    console.log('usage: node dist/test/e2e/soak.js [--results N (3000)] [--kills K (10)] [--seed S (random)] [--runs R (1)]');
    return Promise.resolve(0);
  }
  const whole = (name: string, v: string | undefined, min: number) => {
    const n = Number(v);
    if (!Number.isInteger(n) || n < min) throw new Error(`--${name} must be a whole number >= ${min}, got ${v}`);
    return n;
  };
  const results = whole('results', values.results, 1);
  const kills = whole('kills', values.kills, 0);
  const runs = whole('runs', values.runs, 1);
  const firstSeed = values.seed === undefined ? Math.floor(Math.random() * 1e9) : whole('seed', values.seed, 0);
  return soak(results, kills, runs, firstSeed);
}

async function soak(results: number, kills: number, runs: number, firstSeed: number): Promise<number> {
  const started = Date.now();
  const installation = installPackage();
  let bad = 0;
  try {
    for (let i = 0; i < runs; i++) {
      const seed = firstSeed + i;
      console.log(`soak run ${i + 1}/${runs}: ${results} results, ${kills} kills, seed ${seed}`);
      const report = await crashRun({
        results,
        kills,
        seed,
        installation,
        timeoutMs: 120_000 + results * 100 + kills * 5_000,
        progress: (line) => console.log(`  ${line}`),
      });
      console.log(report.line);
      const t = report.tally;
      if (t.lostKeys.length > 0 || t.unexplainedDuplicates.length > 0 || t.foreignKeys.length > 0) {
        bad++;
        console.log(report.problems());
      }
    }
  } finally {
    installation.remove();
  }
  console.log(`soak: ${runs} run(s), ${bad} with lost or unexplained results, ${((Date.now() - started) / 1000).toFixed(1)} s`);
  return bad > 0 ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(err instanceof Error ? (err.stack ?? err.message) : err);
    process.exit(2);
  },
);
