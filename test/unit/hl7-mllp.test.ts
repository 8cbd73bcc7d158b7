/**
 * The MLLP deframer (lib/protocols/hl7/mllp.ts): every fixture's wire bytes give back
 * its messages however the reads are cut, the session logs replayed read by
 * read, and everything outside a frame is reported, never dropped silently.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { MllpDeframer, type MllpEvent, frameMllp, readable } from '../../lib/protocols/hl7';
import { loadAllHl7Fixtures, loadHl7Fixture } from '../support/hl7-fixtures';
import { Seeded } from '../support/seeded';

/**
 * Feeds the chunks, then ends the stream; returns every event. A discarded
 * event's bytes are checked against its count and excerpt here, and left out
 * of what is returned (an oversized frame's are its first bytes only).
 */
function feed(chunks: Buffer[], options?: { maxFrameBytes?: number }): MllpEvent[] {
  const d = new MllpDeframer(options);
  return [...chunks.flatMap((c) => d.push(c)), ...d.end()].map((e) => {
    if (e.kind !== 'discarded') return e;
    const { bytes, ...rest } = e;
    assert.equal(readable(bytes), e.excerpt, 'the excerpt is of the bytes');
    if (e.reason !== 'oversize') assert.equal(bytes.length, e.count, 'every byte discarded is handed over');
    return rest as MllpEvent;
  });
}

function frames(events: MllpEvent[]): string[] {
  return events.flatMap((e) => (e.kind === 'frame' ? [e.message.toString('latin1')] : []));
}

function others(events: MllpEvent[]): MllpEvent[] {
  return events.filter((e) => e.kind !== 'frame');
}

/** Cuts bytes at the given offsets. */
function cut(bytes: Buffer, at: number[]): Buffer[] {
  const points = [0, ...[...new Set(at)].sort((a, b) => a - b), bytes.length];
  return points.slice(1).map((end, i) => bytes.subarray(points[i], end));
}

/** The wire of a fixture that shows MLLP, as one side's stream (a session: the analyzer's reads). */
const framed = loadAllHl7Fixtures()
  .filter((f) => f.framing !== 'none')
  .map((f) => {
    const reads = f.reads?.filter((r) => r.from === 'analyzer');
    return { f, stream: reads ? Buffer.concat(reads.map((r) => r.bytes)) : f.wire, expected: f.messages.filter((m) => m.from === 'analyzer' || !f.reads).map((m) => m.bytes.toString('latin1')) };
  });

describe('MLLP deframer', () => {
  it('finds every fixture message that shows MLLP, VT missing or not, in one read', () => {
    assert.equal(framed.length, 18);
    for (const { f, stream, expected } of framed) {
      const events = feed([stream]);
      assert.deepEqual(frames(events), expected, f.name);
      assert.deepEqual(others(events), [], f.name);
      const first = events[0];
      assert.equal(first?.kind === 'frame' && first.missingStart === true, f.framing === 'mllp-no-start', f.name);
    }
  });

  it('gives the same frames when every small fixture is cut in two at every byte', () => {
    for (const { f, stream, expected } of framed.filter((x) => x.stream.length <= 1100)) {
      for (let at = 1; at < stream.length; at++) assert.deepEqual(frames(feed(cut(stream, [at]))), expected, `${f.name} cut at ${at}`);
    }
  });

  it('gives the same frames for every fixture cut at seeded random places, one byte at a time too', () => {
    const rng = new Seeded(1417);
    for (const { f, stream, expected } of framed) {
      for (let run = 0; run < 20; run++) {
        const points = Array.from({ length: rng.int(1, 40) }, () => rng.int(1, stream.length - 1));
        const events = feed(cut(stream, points));
        assert.deepEqual(frames(events), expected, `${f.name} run ${run}: ${points.join(',')}`);
        assert.deepEqual(others(events), [], f.name);
      }
      assert.deepEqual(frames(feed([...stream].map((b) => Buffer.of(b)))), expected, `${f.name} byte by byte`);
    }
  });

  it('replays the session logs read by read: each side\'s messages, as the log shows them', () => {
    for (const name of ['roche-cobaspure-oul-r22-session.log.txt', 'roche-cobaspro-esu-inu-session.log.txt', 'roche-cobaspro-oul-r22-hba1c-session.log.txt']) {
      const f = loadHl7Fixture(name);
      for (const side of ['analyzer', 'host'] as const) {
        const d = new MllpDeframer();
        const got = (f.reads ?? []).filter((r) => r.from === side).flatMap((r) => frames(d.push(r.bytes)));
        assert.deepEqual(got, f.messages.filter((m) => m.from === side).map((m) => m.bytes.toString('latin1')), `${name} ${side}`);
      }
    }
  });

  it('reports bytes outside a frame with their count and a readable excerpt, and still finds the frames', () => {
    const msg = Buffer.from('MSH|^~\\&|A\rPID|1\r', 'latin1');
    const events = feed([Buffer.from('\r\n', 'latin1'), frameMllp(msg), Buffer.from('junk\x06\x05', 'latin1'), frameMllp(msg), Buffer.from('\n', 'latin1')]);
    assert.deepEqual(events, [
      { kind: 'discarded', reason: 'outside-frame', count: 2, excerpt: '<CR><LF>' },
      { kind: 'frame', message: msg },
      { kind: 'discarded', reason: 'outside-frame', count: 6, excerpt: 'junk<0x06><0x05>' },
      { kind: 'frame', message: msg },
      { kind: 'discarded', reason: 'outside-frame', count: 1, excerpt: '<LF>' },
    ]);
  });

  it('starts a frame at MSH without its VT, after junk too, even when `MSH` is cut between reads', () => {
    const events = feed([Buffer.from('xyM', 'latin1'), Buffer.from('S', 'latin1'), Buffer.from('H|^~\\&|A\r\x1c\r', 'latin1')]);
    assert.deepEqual(events, [
      { kind: 'discarded', reason: 'outside-frame', count: 2, excerpt: 'xy' },
      { kind: 'frame', message: Buffer.from('MSH|^~\\&|A\r', 'latin1'), missingStart: true },
    ]);
    assert.deepEqual(feed([Buffer.from('M', 'latin1')]), [{ kind: 'discarded', reason: 'outside-frame', count: 1, excerpt: 'M' }]);
  });

  it('ends a frame at FS without its CR, at the end of the stream or before the next frame', () => {
    const a = Buffer.from('MSH|^~\\&|A\r', 'latin1');
    assert.deepEqual(frames(feed([Buffer.concat([Buffer.of(0x0b), a, Buffer.of(0x1c)])])), [a.toString('latin1')]);
    const events = feed([Buffer.concat([Buffer.of(0x0b), a, Buffer.of(0x1c, 0x0b), a, Buffer.of(0x1c), Buffer.from('x')])]);
    assert.deepEqual(frames(events), [a.toString('latin1'), a.toString('latin1')]);
    assert.deepEqual(others(events), [{ kind: 'discarded', reason: 'outside-frame', count: 1, excerpt: 'x' }]);
  });

  it('reports a frame cut short by a new VT, and a frame still open at the end of the stream', () => {
    const events = feed([Buffer.from('\x0bMSH|^~\\&|lost', 'latin1'), Buffer.from('\x0bMSH|^~\\&|B\r\x1c\r\x0bMSH|^~\\&|C', 'latin1')]);
    assert.deepEqual(events, [
      { kind: 'discarded', reason: 'cut-by-new-frame', count: 13, excerpt: 'MSH|^~\\&|lost' },
      { kind: 'frame', message: Buffer.from('MSH|^~\\&|B\r', 'latin1') },
      { kind: 'discarded', reason: 'end-of-stream', count: 10, excerpt: 'MSH|^~\\&|C' },
    ]);
  });

  it('bounds a frame: an oversize event when the limit is passed, the frame\'s bytes discarded up to its FS, the next frame read', () => {
    const big = Buffer.from(`MSH|^~\\&|${'x'.repeat(90)}`, 'latin1');
    const small = Buffer.from('MSH|^~\\&|A', 'latin1');
    const events = feed([...cut(frameMllp(big), [30, 60]), frameMllp(small)], { maxFrameBytes: 50 });
    assert.deepEqual(events, [
      { kind: 'oversize', limit: 50 },
      { kind: 'discarded', reason: 'oversize', count: 99, excerpt: `MSH|^~\\&|${'x'.repeat(31)}…` },
      { kind: 'frame', message: small },
    ]);
    assert.deepEqual(frames(feed([frameMllp(Buffer.alloc(50, 0x41))], { maxFrameBytes: 50 })).length, 1, 'exactly the limit is accepted');
    assert.throws(() => new MllpDeframer({ maxFrameBytes: 0 }), /maxFrameBytes must be a whole number of bytes above 0, got 0/);
  });

  it('frames a message for output as VT message FS CR', () => {
    assert.deepEqual([...frameMllp(Buffer.from('MSH|A', 'latin1'))], [0x0b, 0x4d, 0x53, 0x48, 0x7c, 0x41, 0x1c, 0x0d]);
  });
});
