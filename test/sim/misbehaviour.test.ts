/**
 * Each misbehaviour option, seen on the wire and at the host: the fault is
 * there (a NAK and a resend, a duplicate frame, crossed ENQs, small frames, a
 * silence past the host's receive timer, a result nobody ordered), and the
 * host, built from the package's own link and lab code, comes through it
 * with every result delivered once.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ACK, ENQ, NAK } from '../../lib/protocols/astm/control';
import { parseFrame } from '../../lib/protocols/astm/link';
import { AnalyzerSimulator, MemoryTransport, type FrameEvent } from '../../lib/sim';
import { labOrder } from './support/test-host';
import { sleep, waitUntil } from '../support/wait';
import { rig } from './support/setup';

const DIALECTS = ['generic-lis2a2', 'roche-cobas-e411', 'mindray-cl'] as const;

function framesOut(frames: FrameEvent[]): FrameEvent[] {
  return frames.filter((f) => f.direction === 'out' && f.text.startsWith('<STX>'));
}

function count(bytes: Buffer, byte: number): number {
  let n = 0;
  for (const b of bytes) if (b === byte) n++;
  return n;
}

for (const dialect of DIALECTS) {
  describe(`misbehaviour as ${dialect}`, () => {
    it('corruptChecksum N: the host NAKs the frame, the simulator sends it again, the message arrives once', async (t) => {
      const r = await rig(t, dialect, { orders: [labOrder('S1', ['GLU'])], sim: { misbehaviour: { corruptChecksum: 1 } } });
      const answer = await r.sim.scan('S1');
      assert.ok(answer.order, r.trace());
      const [bad, good] = framesOut(r.frames);
      assert.ok(bad && good, r.trace());
      const badFrame = parseFrame(bad.bytes);
      assert.equal(badFrame.ok, false, 'the first transmission fails its checksum');
      assert.match(badFrame.ok ? '' : badFrame.reason, /checksum/);
      const goodFrame = parseFrame(good.bytes);
      assert.ok(goodFrame.ok, 'the repeat is intact');
      assert.equal(bad.bytes.subarray(0, -4).toString('latin1'), good.bytes.subarray(0, -4).toString('latin1'), 'same frame, same number, other checksum');
      assert.equal(count(r.host.written(), NAK), 1, 'exactly one NAK from the host');
      assert.ok(r.host.warnings.some((w) => /frame rejected: checksum/.test(w)), r.host.warnings.join('\n'));
      assert.equal(r.host.queries.length, 1, 'the query was delivered once');
      assert.deepEqual(r.notes, ['corruptChecksum: frame 1 sent with a wrong checksum']);
    });

    it('corruptChecksum fraction: noisy line, every sample still gets through exactly once', async (t) => {
      const orders = ['N1', 'N2', 'N3', 'N4'].map((s) => labOrder(s, ['GLU', 'CREA', 'K']));
      const r = await rig(t, dialect, { orders, sim: { seed: 3, misbehaviour: { corruptChecksum: 0.25, splitRecords: 'record' } } });
      const summary = await r.sim.runSamples(['N1', 'N2', 'N3', 'N4']);
      assert.ok(summary.ok, JSON.stringify(summary.samples, null, 1));
      await waitUntil(() => r.host.results.length === 12, 3000, () => `twelve results\n${r.trace()}`);
      assert.ok(count(r.host.written(), NAK) >= 2, `several NAKs (${count(r.host.written(), NAK)})`);
      for (const s of ['N1', 'N2', 'N3', 'N4']) {
        assert.deepEqual(
          r.host.results.filter((x) => x.SampleNumber === s).map((x) => x.instrumentCode),
          ['GLU', 'CREA', 'K'],
          `${s}: each result once`,
        );
      }
    });

    it('dropAck: the simulator sends the same frame twice; the host ACKs the duplicate and delivers once', async (t) => {
      const r = await rig(t, dialect, { orders: [labOrder('S1', ['GLU'])], sim: { misbehaviour: { dropAck: 1 } } });
      const answer = await r.sim.scan('S1');
      assert.ok(answer.order, r.trace());
      const [first, second] = framesOut(r.frames);
      assert.ok(first && second, r.trace());
      assert.ok(first.bytes.equals(second.bytes), 'a byte-identical repeat: same frame number, same text');
      assert.ok(r.host.warnings.some((w) => /received again \(our ACK was lost\?\): ACKed, not delivered twice/.test(w)), r.host.warnings.join('\n'));
      assert.equal(r.host.messages.length, 1, 'the query was delivered once');
      // ENQ, the frame, its repeat: three ACKs; plus the host's own ENQ for the answer.
      assert.equal(count(r.host.written(), ACK), 3);
      assert.ok(r.notes.some((n) => n.startsWith('dropAck:')), r.notes.join('\n'));
    });

    it('contend: the ENQs cross, the host yields, takes the query, then sends its download', async (t) => {
      const r = await rig(t, dialect, { orders: [labOrder('C1', ['GLU']), labOrder('C2', ['CREA'])], sim: { misbehaviour: { contend: 1 }, intervalMs: 1000 } });
      const summary = await r.sim.runSamples(['C1', 'C2']);
      assert.ok(summary.ok, JSON.stringify(summary.samples, null, 1));
      assert.ok(r.host.states.includes('contention'), 'the host link saw ENQ/ENQ contention');
      const crossed = r.frames.findIndex((f, i) => f.direction === 'in' && f.text === '<ENQ>' && r.frames[i + 1]?.direction === 'out' && r.frames[i + 1]?.text === '<ENQ>');
      assert.ok(crossed >= 0, r.trace());
      // The instrument keeps priority: after its pause, its next ENQ is ACKed and the query goes first.
      const after = r.frames.slice(crossed + 2, crossed + 5).map((f) => `${f.direction} ${f.text.slice(0, 11)}`);
      assert.deepEqual(after, ['out <ENQ>', 'in <ACK>', 'out <STX>1H|\\^&'], r.trace());
      assert.equal(r.host.queries.map((q) => q.sampleNumber).join(), 'C1,C2');
      await waitUntil(() => r.host.results.length === 2, 2000, () => `both results\n${r.trace()}`);
      assert.ok(r.notes.some((n) => n.startsWith('contend:')));
    });

    it('splitRecords n: frames carry at most n characters of text, the host joins them', async (t) => {
      const r = await rig(t, dialect, { orders: [labOrder('F1', ['GLU', 'WBC'])], sim: { misbehaviour: { splitRecords: 17 } } });
      const summary = await r.sim.runSamples(['F1']);
      assert.ok(summary.ok, JSON.stringify(summary.samples));
      const frames = framesOut(r.frames);
      assert.ok(frames.length > 8, `many frames (${frames.length})`);
      for (const f of frames) {
        const parsed = parseFrame(f.bytes);
        assert.ok(parsed.ok && parsed.text.length <= 17, f.text);
      }
      await waitUntil(() => r.host.results.length === 2, 2000, () => `two results\n${r.trace()}`);
    });

    it("splitRecords 'record': one record per frame, ETB between records, ETX at the end", async (t) => {
      const r = await rig(t, dialect, { orders: [labOrder('F2', ['GLU', 'WBC'])], sim: { misbehaviour: { splitRecords: 'record' } } });
      const summary = await r.sim.runSamples(['F2']);
      assert.ok(summary.ok, JSON.stringify(summary.samples));
      const results = framesOut(r.frames).slice(-6); // H P O R R L
      assert.deepEqual(
        results.map((f) => f.text.slice(6, 7)),
        ['H', 'P', 'O', 'R', 'R', 'L'],
      );
      for (const f of results) assert.equal(f.text.split('<CR>').length, 3, `one record (plus the frame's CR LF): ${f.text}`);
      assert.deepEqual(
        results.map((f) => (f.text.includes('<ETX>') ? 'ETX' : 'ETB')),
        ['ETB', 'ETB', 'ETB', 'ETB', 'ETB', 'ETX'],
      );
      await waitUntil(() => r.host.results.length === 2, 2000, () => `two results\n${r.trace()}`);
    });

    it('pauseMs: silence mid-message past the host receive timer; the host discards the part, the whole message comes again', async (t) => {
      const r = await rig(t, dialect, {
        orders: [labOrder('P1', ['GLU', 'CREA'])],
        host: { link: { receiveTimeoutMs: 150 } },
        sim: { misbehaviour: { pauseMs: 250 }, link: { replyTimeoutMs: 100, retryDelayMs: 30 } },
      });
      const summary = await r.sim.runSamples(['P1']);
      assert.ok(summary.ok, JSON.stringify(summary.samples));
      assert.ok(r.host.discarded.some((d) => /receive time-out/.test(d)), r.host.discarded.join('\n'));
      await waitUntil(() => r.host.results.length === 2, 2000, () => `two results\n${r.trace()}`);
      await sleep(50);
      assert.deepEqual(
        r.host.results.map((x) => x.instrumentCode),
        ['GLU', 'CREA'],
        'delivered once, whole',
      );
      const out = framesOut(r.frames);
      const gap = out.findIndex((f, i) => i > 0 && f.at.getTime() - out[i - 1]!.at.getTime() >= 240);
      assert.ok(gap > 0, 'a silence of the pause between two frames of one message');
      const late = parseFrame(out[gap]!.bytes);
      assert.ok(late.ok && late.fn === 2, 'before frame 2');
      // The late frame met a neutral host: no reply, so the simulator timed out (EOT) and repeated the message.
      assert.ok(count(r.host.written(), ENQ) >= 1);
    });

    it('unorderedResult: a result for a test nobody ordered reaches the host as such', async (t) => {
      const r = await rig(t, dialect, { orders: [labOrder('U1', ['GLU'])], sim: { misbehaviour: { unorderedResult: 'CRP' } } });
      const { order } = await r.sim.scan('U1');
      assert.ok(order);
      const sent = await r.sim.sendResults('U1', order.tests, { order });
      assert.deepEqual(
        sent.results.map((x) => [x.code, x.unordered === true]),
        [
          ['GLU', false],
          ['CRP', true],
        ],
      );
      await waitUntil(() => r.host.results.length === 2, 2000, () => `two results\n${r.trace()}`);
      assert.deepEqual(
        r.host.results.map((x) => [x.SampleNumber, x.instrumentCode]),
        [
          ['U1', 'GLU'],
          ['U1', 'CRP'],
        ],
      );
    });
  });
}

describe('misbehaviour options', () => {
  it('contend through the API: two scans at once, the second query meets the first download', async (t) => {
    const r = await rig(t, 'generic-lis2a2', { orders: [labOrder('K1', ['GLU']), labOrder('K2', ['K'])], sim: { misbehaviour: { contend: 1 } } });
    const [a, b] = await Promise.all([r.sim.scan('K1'), r.sim.scan('K2')]);
    assert.deepEqual([a.order?.tests, b.order?.tests], [['GLU'], ['K']]);
    assert.ok(r.host.states.includes('contention'), r.trace());
    assert.deepEqual(r.notes, ["contend: our ENQ goes out as the host's ENQ arrives"]);
  });

  it("unorderedResult true picks a table analyte that was not ordered", async (t) => {
    const r = await rig(t, 'generic-lis2a2', { orders: [labOrder('U2', ['GLU', 'CREA'])], sim: { misbehaviour: { unorderedResult: true } } });
    const summary = await r.sim.runSamples(['U2']);
    const extra = summary.samples[0]?.results?.filter((x) => x.unordered === true) ?? [];
    assert.equal(extra.length, 1);
    assert.ok(!['GLU', 'CREA'].includes(extra[0]!.code));
  });

  it('are checked when the simulator is made', () => {
    const bad = [
      [{ corruptChecksum: 0 }, /corruptChecksum must be a frame number >= 1 or a fraction/],
      [{ corruptChecksum: 1.5 }, /corruptChecksum/],
      [{ dropAck: -1 }, /dropAck must be a whole number/],
      [{ splitRecords: 0 }, /splitRecords must be a whole number/],
      [{ pauseMs: -5 }, /pauseMs must be a number of ms/],
    ] as const;
    const [line] = MemoryTransport.pair();
    for (const [misbehaviour, error] of bad) {
      assert.throws(() => new AnalyzerSimulator({ dialect: 'generic-lis2a2', transport: line, misbehaviour }), error);
    }
  });
});
