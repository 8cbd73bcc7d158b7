/**
 * Node-RED killed (SIGKILL) while a file-exporting instrument's files are
 * being read: the installed package in its own Node-RED, folder-link ->
 * file-message -> test-mapper -> lis-send-results to a loopback LIS that
 * answers after small random delays, and the simulator writing 20 QuantStudio
 * exports into the folder (at once, in parts with pauses, via a temporary
 * name, two of them again under another name). Four kills while files still come: two
 * aimed at the moment a file's bytes are appended to the journal (stored, not
 * yet delivered), each followed by one at a seeded random moment. Node-RED is started again on the same
 * userDir after each. Then an operator settles what the journal holds for
 * them (an uncertain batch whose results the LIS has is discarded, any other
 * held batch resent), as the Lab sidebar would.
 *
 * Nothing lost: every result of every file at the LIS, and every file in
 * done/. No unmarked duplicate: the LIS got each result once; each file's
 * bytes are stored once as a file of their own, and each copy only as a
 * repeat (`repeatOf`) of whichever of the two was taken first. CRASH_SEED=<n> repeats a run.
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
import { expectedResults, exportFile, FILE_TOKEN, fileFlow, resultsAtLis } from './file-flow';
import { sleep, waitUntil } from '../support/wait';

const SEED = Number(process.env.CRASH_SEED ?? 20261127);
const FILES = 20;
const COPIES = [3, 11];

let installation: Installation | undefined;
before(() => {
  installation = installPackage();
});
after(() => installation?.remove());

interface Rx {
  id: string;
  repeatOf?: string;
  source: { name: string; hash: string };
}
interface Tx {
  key: string;
  states: string[];
  items: string[];
}
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
  const names = Array.from({ length: FILES }, (_, i) => `run${String(i + 1).padStart(2, '0')}.txt`);
  const copyNames = COPIES.map((n) => `run${String(n).padStart(2, '0')} copy.txt`);
  const operator = { discarded: 0, resent: 0 };

  before(async () => {
    const rng = prng(SEED);
    work = mkdtempSync(join(tmpdir(), 'file-crash-'));
    folder = join(work, 'export');
    mkdirSync(folder);
    stub = await new LisStub().start();
    stub.handle('/results', () => ({ delayMs: rng.next() < 0.3 ? 20 + rng.int(150) : rng.int(5), body: { status: 'success' } }));
    stub.reply('/caught', { body: { status: 'ok' } });
    red = await NodeRedProcess.prepare({ userDir: installation!.userDir, flows: fileFlow({ folder, lisUrl: (p) => stub.url(p), pollMs: 100, settleMs: 800 }), env: { LIS_TOKEN: FILE_TOKEN } });
    await red.start();

    // The instrument: files one after the other, whatever happens to Node-RED.
    const sim = new FileExporter(folder);
    const writing = (async () => {
      for (let i = 0; i < FILES; i++) {
        const bytes = exportFile(i + 1);
        const way = rng.int(3);
        const written = way === 0 ? await sim.write(names[i]!, bytes) : way === 1 ? await sim.halfWritten(names[i]!, bytes, 3, 150) : await sim.write(names[i]!, bytes, { viaTemp: true, parts: 2, pauseMs: 200 });
        const copy = COPIES.indexOf(i + 1);
        if (copy >= 0) await sim.duplicate(written, copyNames[copy]!);
        await sleep(300 + rng.int(500));
      }
    })();

    // Kills aimed at a file's rx line reaching the journal, each followed by one at a random moment, all while files still come.
    const journalSize = () => (existsSync(red.journalFile) ? statSync(red.journalFile).size : 0);
    const rxLines = () => (existsSync(red.journalFile) ? readFileSync(red.journalFile, 'utf8').split('\n').filter((l) => l.includes('"e":"rx"')).length : 0);
    for (let k = 0; k < 4; k++) {
      if (k % 2 === 1) await sleep(500 + rng.int(1500));
      else {
        // Not always the next file: one to three files on, so the kill finds files taken and waiting before it.
        const before = rxLines() + rng.int(3);
        let size = journalSize();
        const rxWritten = () => {
          const now = journalSize();
          if (now === size) return false;
          size = now;
          return rxLines() > before;
        };
        // Watch the file closely: kill the moment a new rx line is there (the file stored, its results not yet at the LIS).
        // No such line within 20 s: the kill comes anyway.
        const aimed = await waitUntil(rxWritten, 20_000, `rx line ${before + 1}`, 2).then(() => true, () => false);
        if (aimed) {
          red.killNow();
          aimedHits.push(`kill ${k + 1} after rx line ${before + 1}`);
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
    await waitUntil(() => list('done').length >= FILES + COPIES.length, 60_000, () => `done/: ${list('done').join(', ')}\n${red.tail(60)}`, 200);
    console.log(`file crash run (seed ${SEED}): ${kills} kills (${aimedHits.join('; ')}), ${resultsAtLis(stub.requests).length} results at the LIS of ${expected.length}, operator discarded ${operator.discarded} and resent ${operator.resent} held batches, ${red.lives} starts`);
  });

  after(async () => {
    await red?.stop();
    await stub?.stop();
    rmSync(work, { recursive: true, force: true });
  });

  it('Node-RED was really killed 4 times, two of them right after a file was stored', () => {
    assert.equal(kills, 4);
    assert.equal(aimedHits.length, 2, red.tail(40));
  });

  it('loses no file: every result of every file reached the LIS, and every file is in done/', () => {
    const got = new Set(resultsAtLis(stub.requests));
    const missing = expected.filter((x) => !got.has(x));
    assert.deepEqual(missing, []);
    assert.deepEqual(list('done'), [...names, ...copyNames].sort());
    // The lock the folder-link holds while it runs stays (docs/nodes.md): nothing else.
    assert.deepEqual(readdirSync(folder).sort(), [LOCK_NAME, 'done']);
  });

  it('no unmarked duplicate: the LIS got each result once', () => {
    const got = resultsAtLis(stub.requests);
    const seen = new Map<string, number>();
    for (const x of got) seen.set(x, (seen.get(x) ?? 0) + 1);
    assert.deepEqual([...seen].filter(([, n]) => n > 1), []);
    assert.equal(got.length, expected.length);
  });

  it('each file\'s bytes are stored once as a file of their own; a copy only as a repeat of the first of the two taken', () => {
    const { rx } = readJournal(red.journalFile);
    const originals = rx.filter((r) => r.repeatOf === undefined);
    const byHash = new Map<string, Rx[]>();
    for (const r of originals) byHash.set(r.source.hash, [...(byHash.get(r.source.hash) ?? []), r]);
    assert.deepEqual([...byHash.values()].filter((rs) => rs.length > 1).map((rs) => rs.map((r) => r.source.name)), []);
    assert.equal(originals.length, FILES);
    const repeats = rx.filter((r) => r.repeatOf !== undefined);
    assert.equal(repeats.length, COPIES.length, JSON.stringify(rx.map((r) => ({ id: r.id.slice(0, 8), name: r.source.name, hash: r.source.hash.slice(0, 8), repeatOf: r.repeatOf?.slice(0, 8) }))) + red.tail(200));
    // Which of a file and its copy is taken first depends on when each looked complete: either may be the original.
    assert.deepEqual([...originals, ...repeats].map((r) => r.source.name).sort(), [...names, ...copyNames].sort(), 'each name stored once');
    for (const r of repeats) assert.equal(originals.find((o) => o.id === r.repeatOf)?.source.hash, r.source.hash, `${r.source.name} repeats a file of the same bytes`);
  });

  it('leaves no file stuck: nothing waits for an operator at the end', async () => {
    const held = await red.held();
    assert.deepEqual(held.batches, []);
    assert.deepEqual(held.stuck, []);
  });
});
