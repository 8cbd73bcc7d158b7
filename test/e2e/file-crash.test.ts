/**
 * Node-RED killed (SIGKILL) while a file-exporting instrument's files are
 * being read: the installed package in its own Node-RED, folder-link ->
 * file-message -> test-mapper -> lis-send-results to a loopback LIS that
 * answers after small random delays, and the simulator writing 20 QuantStudio
 * exports into the folder (at once, in parts with pauses, via a temporary
 * name, two of them again under another name). Two of them are taken
 * half-written: the instrument pauses longer than the settle time after whole
 * rows and writes on once the first part was taken, while its results are on
 * their way. Five are exported again under their name once taken and handed on:
 * two with the same values (other bytes), three with one value changed. Four
 * kills while files still come: one aimed at the moment a file's bytes are
 * appended to the journal (stored, not yet delivered), one at the moment a
 * correction is held, each followed by one at a seeded random moment. Node-RED
 * is started again on the same userDir after each. Then an operator settles
 * what the journal holds for them (an uncertain batch whose results the LIS
 * has is discarded, any other held batch resent), as the Lab sidebar would.
 *
 * Nothing lost: every result of every file at the LIS, each changed value held
 * as a correction, and every file in done/. No unmarked duplicate: the LIS got
 * each result once, none of a later version; each changed value is held once;
 * each file's bytes are stored once as a file of their own, and each copy only
 * as a repeat (`repeatOf`) of whichever of the two was taken first.
 * CRASH_SEED=<n> repeats a run.
 */
import { LOCK_NAME } from '../../lib/protocols/file/folder';
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LisStub } from '../support/lis-stub';
import { NodeRedProcess } from '../support/node-red-process';
import { prng } from '../support/seeded';
import { FileExporter } from '../../lib/sim';
import { installPackage, type Installation } from './harness';
import { type ChangedValue, expectedResults, exportFile, FILE_TOKEN, fileFlow, reExport, resultsAtLis } from './file-flow';
import { sleep, waitUntil } from '../support/wait';

const SEED = Number(process.env.CRASH_SEED ?? 20261127);
const FILES = 20;
const COPIES = [3, 11];
/** Taken half-written, then grown. */
const GROWN = [6, 15];
/** Exported again under their name once their values were handed on: the same values, or one changed. */
const SAME_AGAIN = [5, 13];
const CHANGED_AGAIN = [2, 9, 17];

let installation: Installation | undefined;
before(() => {
  installation = installPackage();
});
after(() => installation?.remove());

interface Rx {
  id: string;
  repeatOf?: string;
  source: { name: string; hash: string; size: number };
}
interface Tx {
  key: string;
  states: string[];
  items: string[];
}
interface HeldCorrection {
  sample: string;
  old: string;
  new: string;
  oldFile: string;
  file: string;
}
/** A correction as the test compares it: sample, old and new value. */
const shown = (c: ChangedValue) => `${c.sample} ${c.old} -> ${c.new}`;

function readJournal(file: string): { rx: Rx[]; tx: Map<string, Tx>; stuck: Set<string> } {
  const rx: Rx[] = [];
  const tx = new Map<string, Tx>();
  const stuck = new Set<string>();
  if (!existsSync(file)) return { rx, tx, stuck };
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (line.trim() === '') continue;
    let e: Record<string, unknown>;
    try {
      e = JSON.parse(line) as Record<string, unknown>;
    } catch {
      continue; // a torn last line: the journal skips it too
    }
    if (e.e === 'rx') rx.push(e as unknown as Rx);
    if (e.e === 'rxu' && typeof e.stuck === 'string') stuck.add(String(e.id));
    if (e.e === 'tx') {
      const body = (e.body ?? []) as Array<{ SampleNumber: string; TestCode: string; Result: string }>;
      tx.set(String(e.key), { key: String(e.key), states: ['sending'], items: body.map((x) => `${x.SampleNumber}|${x.TestCode}|${x.Result}`) });
    }
    if (e.e === 'txu') tx.get(String(e.key))?.states.push(String(e.state));
  }
  return { rx, tx, stuck };
}

describe('crash run, file-exporting instrument: SIGKILL while files are being read', () => {
  let work: string;
  let folder: string;
  let stub: LisStub;
  let red: NodeRedProcess;
  let kills = 0;
  const aimedHits: string[] = [];
  const list = (dir: string) => (existsSync(join(folder, dir)) ? readdirSync(join(folder, dir)).sort() : []);
  const expected = Array.from({ length: FILES }, (_, i) => expectedResults(i + 1)).flat();
  const nameOf = (n: number) => `run${String(n).padStart(2, '0')}`;
  const names = Array.from({ length: FILES }, (_, i) => `${nameOf(i + 1)}.txt`);
  const copyNames = COPIES.map((n) => `${nameOf(n)} copy.txt`);
  /** Where folder-link moves a version exported again under a name already in done/ (when it is there yet). */
  const againNames = [...SAME_AGAIN, ...CHANGED_AGAIN].map((n) => `${nameOf(n)}.2.txt`);
  const changes: ChangedValue[] = [];
  const operator = { discarded: 0, resent: 0 };
  /** Every correction GET /lis-bridge/held lists, each with the file of its old and of its new value. */
  const corrections = async (): Promise<HeldCorrection[]> => {
    const res = await fetch(`${red.url}/lis-bridge/held`);
    const body = (await res.json()) as { holds: Array<{ kind: string; corrections?: HeldCorrection[] }> };
    return body.holds.filter((h) => h.kind === 'correction').flatMap((h) => h.corrections ?? []);
  };

  before(async () => {
    const rng = prng(SEED);
    work = mkdtempSync(join(tmpdir(), 'file-crash-'));
    folder = join(work, 'export');
    mkdirSync(folder);
    stub = await new LisStub().start();
    stub.reply('/caught', { body: { status: 'ok' } });
    red = await NodeRedProcess.prepare({ userDir: installation!.userDir, flows: fileFlow({ folder, lisUrl: (p) => stub.url(p), pollMs: 100, settleMs: 800 }), env: { LIS_TOKEN: FILE_TOKEN } });
    await red.start();

    // The LIS holds its answer for a growing file's results until the instrument wrote the rest: with "move" a
    // file must grow before it is moved to done/ for folder-link to see it grow (after, it grows in done/).
    const growing = new Map<string, Promise<void>>();
    stub.handle('/results', (req) => {
      const samples = ((req.json as { results?: Array<{ SampleNumber: string }> }).results ?? []).map((x) => x.SampleNumber);
      const wait = samples.map((x) => growing.get(x)).find((p) => p !== undefined);
      const delayMs = rng.next() < 0.3 ? 20 + rng.int(150) : rng.int(5);
      if (!wait) return { delayMs, body: { status: 'success' } };
      return {
        write: (res) =>
          void wait.then(() => {
            if (res.destroyed) return;
            res.writeHead(200, { 'Content-Type': 'application/json' });
            res.end(JSON.stringify({ status: 'success' }));
          }),
      };
    });
    const journalText = () => (existsSync(red.journalFile) ? readFileSync(red.journalFile, 'utf8') : '');
    const lineOf = (kind: string, name: string) => journalText().split('\n').some((l) => l.includes(`"e":"${kind}"`) && l.includes(JSON.stringify(name)));

    // The instrument: files one after the other, whatever happens to Node-RED.
    const sim = new FileExporter(folder);
    const again: Array<Promise<unknown>> = [];
    const againRng = prng(SEED + 1);
    const exportAgain = async (n: number, changed: boolean) => {
      // Drawn before any wait: the seed decides them whatever order the re-exports come in.
      const pause = 200 + againRng.int(800);
      const { bytes, change } = reExport(n, changed ? againRng.int(18) : undefined);
      // Once the first version was taken and its values handed on, a technologist exports the run again: moved to
      // done/ by then, or not yet (its results still on their way, or in a batch a kill left for the operator).
      await waitUntil(() => lineOf('val', `${nameOf(n)}.txt`), 60_000, `${nameOf(n)}.txt handed on before it is exported again`, 50);
      await sleep(pause);
      if (change) changes.push(change);
      await sim.write(`${nameOf(n)}.txt`, bytes, { viaTemp: true });
    };
    const writing = (async () => {
      for (let i = 0; i < FILES; i++) {
        const n = i + 1;
        const bytes = exportFile(n);
        let written;
        if (GROWN.includes(n)) {
          let whole!: () => void;
          const done = new Promise<void>((resolve) => (whole = resolve));
          for (const r of expectedResults(n)) growing.set(r.split('|')[0]!, done);
          try {
            // Whole rows, then a pause until folder-link took them (longer than the settle time), then the rest.
            written = await sim.write(names[i]!, bytes, { parts: 2, atLines: true, resume: () => waitUntil(() => lineOf('rx', names[i]!), 60_000, `${names[i]} taken half-written`, 20) });
          } finally {
            whole();
          }
        } else {
          const way = rng.int(3);
          written = way === 0 ? await sim.write(names[i]!, bytes) : way === 1 ? await sim.halfWritten(names[i]!, bytes, 3, 150) : await sim.write(names[i]!, bytes, { viaTemp: true, parts: 2, pauseMs: 200 });
        }
        const copy = COPIES.indexOf(n);
        if (copy >= 0) await sim.duplicate(written, copyNames[copy]!);
        if (SAME_AGAIN.includes(n) || CHANGED_AGAIN.includes(n)) again.push(exportAgain(n, CHANGED_AGAIN.includes(n)));
        await sleep(300 + rng.int(500));
      }
      await Promise.all(again);
    })();

    // Kills aimed at a file's rx line, then at a correction's hold line, reaching the journal, each followed by one
    // at a random moment, all while files still come.
    const journalSize = () => (existsSync(red.journalFile) ? statSync(red.journalFile).size : 0);
    const linesOf = (kind: string) => journalText().split('\n').filter((l) => l.includes(`"e":"${kind}"`)).length;
    for (let k = 0; k < 4; k++) {
      if (k % 2 === 1) await sleep(500 + rng.int(1500));
      else {
        const kind = k === 0 ? 'rx' : 'hold';
        // Not always the next file: one to three files on, so the kill finds files taken and waiting before it.
        const before = linesOf(kind) + (kind === 'rx' ? rng.int(3) : 0);
        let size = journalSize();
        const written = () => {
          const now = journalSize();
          if (now === size) return false;
          size = now;
          return linesOf(kind) > before;
        };
        // Watch the file closely: kill the moment a new line is there (the file stored, its results not yet at the
        // LIS; the correction held, its file not yet moved). None within 30 s: the kill comes anyway.
        const aimed = await waitUntil(written, 30_000, `${kind} line ${before + 1}`, 2).then(() => true, () => false);
        if (aimed) {
          red.killNow();
          aimedHits.push(`kill ${k + 1} after ${kind} line ${before + 1}`);
        }
      }
      await red.kill();
      kills++;
      await sleep(200 + rng.int(600));
      await red.start();
    }
    await writing;

    // Everything written; wait until each file is in done/ or waits on a held batch.
    let left: string[] = [];
    let held = 0;
    const settled = async () => {
      held = (await red.held()).batches.length;
      left = readdirSync(folder).filter((n) => n !== 'done' && n !== 'error' && n !== LOCK_NAME);
      return left.length === 0 || (held > 0 && left.length <= held);
    };
    await waitUntil(settled, 60_000, () => `the files to be taken: left ${left.join(', ')}; held ${held}\n${red.tail(60)}`, 300);
    await sleep(1500);
    // The operator: an uncertain batch the LIS got is discarded; any other held batch resent.
    const journal = readJournal(red.journalFile);
    const atLis = new Set(resultsAtLis(stub.requests));
    if (process.env.FILE_CRASH_DEBUG) console.log(JSON.stringify((await red.held()).batches, null, 1));
    for (const b of (await red.held()).batches) {
      const items = journal.tx.get(b.key)?.items ?? [];
      const action = b.state === 'uncertain' && items.length > 0 && items.every((x) => atLis.has(x)) ? 'discard' : 'resend';
      const res = await fetch(`${red.url}/lis-bridge/held/${encodeURIComponent(b.key)}/${action}`, { method: 'POST' });
      assert.ok(res.ok, `${action} ${b.key}: ${res.status} ${await res.text()}`);
      if (action === 'discard') operator.discarded++;
      else operator.resent++;
    }
    // A version exported again while the first waited in a held batch is taken once the operator settled that batch.
    const emptied = async () => readdirSync(folder).every((n) => n === 'done' || n === LOCK_NAME) && (await red.held()).batches.length === 0;
    await waitUntil(emptied, 60_000, () => `the folder emptied: ${readdirSync(folder).join(', ')}; done/: ${list('done').join(', ')}\n${red.tail(60)}`, 200);
    console.log(`file crash run (seed ${SEED}): ${kills} kills (${aimedHits.join('; ')}), ${resultsAtLis(stub.requests).length} results at the LIS of ${expected.length}, ${(await corrections()).length} corrections held of ${changes.length}, operator discarded ${operator.discarded} and resent ${operator.resent} held batches, ${red.lives} starts`);
  });

  after(async () => {
    await red?.stop();
    await stub?.stop();
    rmSync(work, { recursive: true, force: true });
  });

  it('Node-RED was really killed 4 times, once right after a file was stored and once right after a correction was held', () => {
    assert.equal(kills, 4);
    assert.deepEqual(aimedHits.map((h) => h.split(' ')[3]), ['rx', 'hold'], red.tail(40));
  });

  it('loses no file: every result of every file reached the LIS, each changed value is held, and every file is in done/', async () => {
    const got = new Set(resultsAtLis(stub.requests));
    const missing = expected.filter((x) => !got.has(x));
    assert.deepEqual(missing, []);
    assert.equal(changes.length, CHANGED_AGAIN.length);
    const held = await corrections();
    assert.deepEqual(held.map(shown).sort(), changes.map(shown).sort());
    for (const c of held) assert.equal(c.oldFile, c.file, `${shown(c)}: the old value from the earlier version of the same name`);
    // A version exported again once the first was moved is beside it (`run02.2.txt`); one exported before replaced it.
    assert.deepEqual(list('done').filter((n) => !againNames.includes(n)), [...names, ...copyNames].sort());
    // The lock the folder-link holds while it runs stays (docs/nodes.md): nothing else.
    assert.deepEqual(readdirSync(folder).sort(), [LOCK_NAME, 'done']);
  });

  it('no unmarked duplicate: the LIS got each result once, and no value of a later version; each changed value is held once', async () => {
    const got = resultsAtLis(stub.requests);
    const seen = new Map<string, number>();
    for (const x of got) seen.set(x, (seen.get(x) ?? 0) + 1);
    assert.deepEqual([...seen].filter(([, n]) => n > 1), []);
    assert.equal(got.length, expected.length);
    const changed = new Set(changes.map((c) => `${c.sample}|UTR3|${c.new}`));
    assert.deepEqual(got.filter((x) => changed.has(x)), [], 'no changed value went to the LIS before a person sent it');
    // One hold per changed file, each with its one value: none twice across the kills.
    const holds = (await red.held()).holds.filter((h) => h.kind === 'correction');
    assert.equal(holds.length, CHANGED_AGAIN.length, JSON.stringify(holds));
    assert.deepEqual(holds.map((h) => h.results), CHANGED_AGAIN.map(() => 1));
  });

  it('grown files were taken half-written and again whole; files exported again were read as their own versions', () => {
    const { rx } = readJournal(red.journalFile);
    for (const n of GROWN) {
      const sizes = rx.filter((r) => r.source.name === `${nameOf(n)}.txt`).map((r) => r.source.size);
      const whole = exportFile(n).length;
      assert.ok(sizes.length === 2 && sizes[0]! < whole && sizes[1] === whole, `${nameOf(n)}.txt stored as a part and then whole: ${JSON.stringify(sizes)} of ${whole} bytes`);
    }
    for (const n of [...SAME_AGAIN, ...CHANGED_AGAIN]) assert.equal(rx.filter((r) => r.source.name === `${nameOf(n)}.txt` && r.repeatOf === undefined).length, 2, `${nameOf(n)}.txt stored twice, its two versions`);
  });

  it('each file\'s bytes are stored once as a file of their own; a copy only as a repeat of the first of the two taken', () => {
    const { rx } = readJournal(red.journalFile);
    const originals = rx.filter((r) => r.repeatOf === undefined);
    const byHash = new Map<string, Rx[]>();
    for (const r of originals) byHash.set(r.source.hash, [...(byHash.get(r.source.hash) ?? []), r]);
    assert.deepEqual([...byHash.values()].filter((rs) => rs.length > 1).map((rs) => rs.map((r) => r.source.name)), []);
    const versions = [...GROWN, ...SAME_AGAIN, ...CHANGED_AGAIN].map((n) => `${nameOf(n)}.txt`);
    assert.equal(originals.length, FILES + versions.length);
    const repeats = rx.filter((r) => r.repeatOf !== undefined);
    assert.equal(repeats.length, COPIES.length, JSON.stringify(rx.map((r) => ({ id: r.id.slice(0, 8), name: r.source.name, hash: r.source.hash.slice(0, 8), repeatOf: r.repeatOf?.slice(0, 8) }))) + red.tail(200));
    // Which of a file and its copy is taken first depends on when each looked complete: either may be the original.
    assert.deepEqual([...originals, ...repeats].map((r) => r.source.name).sort(), [...names, ...copyNames, ...versions].sort(), 'each version stored once');
    for (const r of repeats) assert.equal(originals.find((o) => o.id === r.repeatOf)?.source.hash, r.source.hash, `${r.source.name} repeats a file of the same bytes`);
  });

  it('leaves no file stuck: nothing waits for an operator at the end but the corrections', async () => {
    const held = await red.held();
    assert.deepEqual(held.batches, []);
    assert.deepEqual(held.stuck, []);
    assert.deepEqual(held.holds.filter((h) => h.kind !== 'correction'), []);
  });
});
