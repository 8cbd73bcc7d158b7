/**
 * The generic-lis2a2-serial example against an analyzer on a bad line: the
 * simulator's misbehaviour options put each LIS1-A fault on the wire between
 * its (correct) link and the pty, and the installed flow must come through
 * with no result lost, none duplicated and none filed under the wrong sample.
 *
 * One Node-RED run per fault (a fresh flow and link each time, so a fault's
 * effects cannot leak into the next case and a failure names its cause), each
 * with several samples and a NOORDER one, and the same checks as the examples
 * plus proof that the fault really happened on the wire.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ETB, ETX, NAK } from '../../lib/protocols/astm/control';
import { parseFrame } from '../../lib/protocols/astm/link';
import type { Misbehaviour } from '../../lib/sim';
import { checkDownloads, checkLine, checkNodeRedLog, checkNoOrderSamples, checkOrderRequests, checkProcessed, checkRequestHeaders, checkResults } from './checks';
import { E2eRun, installPackage, loadExample, withDiagnostics, type Installation, type SimRecord } from './harness';

const EXAMPLE = 'generic-lis2a2-serial';

let installation: Installation | undefined;

before(() => {
  installation = installPackage();
});

after(() => {
  installation?.remove();
});

const outFrames = (r: SimRecord) => r.frames.filter((f) => f.direction === 'out' && f.text.startsWith('<STX>'));
const inControls = (r: SimRecord, byte: number) => r.frames.filter((f) => f.direction === 'in' && f.bytes.length === 1 && f.bytes[0] === byte).length;

/** Each frame the simulator sent twice in a row, unchanged: a retransmission. */
function repeatedFrames(r: SimRecord): Buffer[] {
  const frames = outFrames(r);
  return frames.filter((f, i) => i > 0 && f.bytes.equals(frames[i - 1]!.bytes)).map((f) => f.bytes);
}

interface Case {
  name: string;
  /** The example flow; default generic-lis2a2-serial. */
  example?: string;
  prefix: string;
  misbehaviour: Misbehaviour;
  /** Sample numbers; default three with orders and a NOORDER one. */
  samples?: string[];
  intervalMs?: number;
  /** Values and the fraction of corrupted frames follow the seed; default 7. */
  seed?: number;
  /** What the fault must have done on the wire, and how the host answered it. */
  fault: string;
  faultCheck: (r: SimRecord) => void;
}

const CASES: Case[] = [
  {
    name: 'corrupted checksums (a quarter of all frame transmissions)',
    prefix: 'CK',
    // With seed 1 the seeded stream corrupts transmissions 7, 8 and 14: one frame
    // twice in a row (two NAKs before it gets through) and another one later.
    misbehaviour: { corruptChecksum: 0.25 },
    seed: 1,
    fault: 'several frames went out with a wrong checksum, each was NAKed by Node-RED and sent again',
    faultCheck: (r) => {
      const corrupted = r.misbehaviour.filter((n) => n.startsWith('corruptChecksum')).length;
      assert.ok(corrupted >= 2, `only ${corrupted} corrupted frame(s): ${r.misbehaviour.join('; ')}`);
      assert.equal(inControls(r, NAK), corrupted, 'one NAK from Node-RED per corrupted frame, none for a good one');
      for (const f of outFrames(r)) {
        const parsed = parseFrame(f.bytes);
        if (!parsed.ok) assert.match(parsed.reason, /checksum/, `a frame went out bad for another reason: ${f.text}`);
      }
    },
  },
  {
    name: 'a lost ACK on a query (its only frame, ETX)',
    prefix: 'DQ',
    // Frame 1 is the first sample's query: a one-frame message, so the repeat is of an end frame.
    misbehaviour: { dropAck: 1 },
    fault: 'the ACK of the query frame reached the analyzer garbled, the frame went out again and Node-RED ACKed the duplicate',
    faultCheck: (r) => {
      assert.equal(r.misbehaviour.filter((n) => n.startsWith('dropAck')).length, 1, r.misbehaviour.join('; '));
      const repeated = repeatedFrames(r);
      assert.equal(repeated.length, 1, 'exactly one frame sent twice');
      const frame = parseFrame(repeated[0]!);
      assert.ok(frame.ok && frame.end === 'ETX' && /\rQ\|1\|/.test(frame.text.toString('latin1')), `the repeated frame is the query's end frame: ${repeated[0]!.toString('latin1')}`);
      assert.equal(inControls(r, NAK), 0, 'Node-RED NAKed nothing');
    },
  },
  {
    name: 'a lost ACK in a result message (its end frame, ETX)',
    prefix: 'DR',
    // Frames 1 (query of the first sample) then 2-4 (its six results: three
    // frames of up to 240 characters): frame 4 ends the first result message.
    misbehaviour: { dropAck: 4 },
    intervalMs: 1500,
    fault: 'the ACK of the last frame of a result message reached the analyzer garbled, the frame went out again and Node-RED ACKed the duplicate',
    faultCheck: (r) => {
      assert.equal(r.misbehaviour.filter((n) => n.startsWith('dropAck')).length, 1, r.misbehaviour.join('; '));
      const repeated = repeatedFrames(r);
      assert.equal(repeated.length, 1, 'exactly one frame sent twice');
      const frame = parseFrame(repeated[0]!);
      const text = frame.ok ? frame.text.toString('latin1') : '';
      assert.ok(frame.ok && frame.end === 'ETX', `the repeated frame is an end frame: ${repeated[0]!.toString('latin1')}`);
      assert.ok(r.acked.some((m) => m.kind === 'results' && m.text.endsWith(text)), `the repeated frame ends a result message: ${JSON.stringify(text)}`);
      assert.equal(inControls(r, NAK), 0, 'Node-RED NAKed nothing');
    },
  },
  {
    name: 'ENQ contention (two samples in flight)',
    prefix: 'CT',
    // Contention needs a second scan waiting while Node-RED sends a download: four samples with orders.
    samples: ['CT1001', 'CT1002', 'CT1003', 'CT1004'],
    misbehaviour: { contend: 2 },
    fault: 'twice the analyzer\'s ENQ crossed Node-RED\'s ENQ for a download; Node-RED yielded, took the query, then sent its download',
    faultCheck: (r) => {
      assert.equal(r.misbehaviour.filter((n) => n.startsWith('contend')).length, 2, r.misbehaviour.join('; '));
    },
  },
  {
    name: 'records split into small frames (16 characters)',
    prefix: 'SP',
    misbehaviour: { splitRecords: 16 },
    fault: 'every message went out in frames of at most 16 characters and Node-RED joined them',
    faultCheck: (r) => {
      const frames = outFrames(r);
      for (const f of frames) {
        const parsed = parseFrame(f.bytes);
        assert.ok(parsed.ok, `a bad frame: ${f.text}`);
        assert.ok(parsed.text.length <= 16, `a frame of ${parsed.text.length} characters: ${f.text}`);
      }
      const messages = r.acked.length;
      assert.ok(frames.length >= 5 * messages, `${frames.length} frames for ${messages} messages: the messages were not split`);
      assert.ok(frames.some((f) => f.bytes.includes(ETB)) && frames.some((f) => f.bytes.includes(ETX)));
    },
  },
  {
    name: 'all four at once on the TCP example (mindray-cl2000i-tcp)',
    example: 'mindray-cl2000i-tcp',
    prefix: 'ALL',
    // 0.15 with seed 7: never more than four corruptions in a row, so no frame runs out of its six transmissions.
    misbehaviour: { corruptChecksum: 0.15, dropAck: 3, contend: 1, splitRecords: 16 },
    samples: ['ALL1001', 'ALL1002', 'NOORDER-ALL', 'ALL1003', 'ALL1004'],
    fault: 'corrupted frames were NAKed and repeated, a duplicate frame ACKed, ENQs crossed, and small frames joined, over Node-RED\'s tcp in',
    faultCheck: (r) => {
      for (const kind of ['corruptChecksum', 'dropAck', 'contend']) assert.ok(r.misbehaviour.some((n) => n.startsWith(kind)), `no ${kind}: ${r.misbehaviour.join('; ')}`);
      assert.equal(inControls(r, NAK), r.misbehaviour.filter((n) => n.startsWith('corruptChecksum')).length, 'one NAK per corrupted frame');
      for (const f of outFrames(r)) {
        const parsed = parseFrame(f.bytes);
        if (parsed.ok) assert.ok(parsed.text.length <= 16, `a frame of ${parsed.text.length} characters: ${f.text}`);
      }
    },
  },
];

describe('example flows on a bad line', () => {
  for (const c of CASES) {
    describe(`${c.example ?? EXAMPLE}: ${c.name}`, () => {
      let run: E2eRun | undefined;
      const check = (fn: (r: E2eRun) => void) => () => withDiagnostics(run, () => fn(run!));
      const samples = c.samples ?? [`${c.prefix}1001`, `${c.prefix}1002`, `NOORDER-${c.prefix}`, `${c.prefix}1003`];

      before(async () => {
        assert.ok(installation, 'the package was not installed');
        run = new E2eRun({
          example: loadExample(c.example ?? EXAMPLE),
          installation,
          samples,
          seed: c.seed ?? 7,
          misbehaviour: c.misbehaviour,
          ...(c.intervalMs === undefined ? {} : { intervalMs: c.intervalMs }),
        });
        await withDiagnostics(run, async () => {
          await run!.start();
          await run!.run();
        });
      });

      after(async () => {
        await run?.stop();
      });

      it(`the fault happened: ${c.fault}`, check((r) => c.faultCheck(r.simRecord!)));
      it('no result lost, none duplicated, none for the wrong sample: every acknowledged result is at the LIS once, mapped, with its value', check(checkResults));
      it('asks the LIS once per scanned sample, X-Expected-Sample equal to the SampleNumber', check(checkOrderRequests));
      it('downloads each sample\'s mapped tests and patient once, as the answer to its query', check(checkDownloads));
      it('reports each sample processed once, after its results', check(checkProcessed));
      if (samples.some((x) => x.startsWith('NOORDER'))) it('answers the NOORDER sample "no information" and sends nothing of it', check(checkNoOrderSamples));
      it('every message of the analyzer was delivered', check(checkLine));
      it('sends the token and fresh request IDs and timestamps on every LIS request', check(checkRequestHeaders));
      it('logs no error in Node-RED', check(checkNodeRedLog));
    });
  }
});
