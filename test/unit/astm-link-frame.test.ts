// The pure framing helpers: checksum, building and parsing frames, the stream reader.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { CR, ENQ, EOT, ETB, ETX, LF, STX } from '../../lib/protocols/astm/control';
import { FrameReader, buildFrame, buildFrames, checksum, checksumValue, parseFrame, splitRecords, type ReadEvent } from '../../lib/protocols/astm/link';

const latin1 = (s: string): Buffer => Buffer.from(s, 'latin1');

describe('link layer: checksum (§6.3.3)', () => {
  it('is the 8-bit sum from FN through ETB/ETX, two upper-case hex digits', () => {
    // §6.3.3.3's example: 122 is sent as "7A"
    assert.equal(checksum(Buffer.from([122])), '7A');
    assert.equal(checksum(Buffer.from([0x100 - 1, 2])), '01', 'modulo 256');
    assert.equal(checksumValue(latin1('1L|1|N\r\x03')), [...latin1('1L|1|N\r\x03')].reduce((s, x) => s + x, 0) % 256);
  });

  it('an intermediate frame sums its ETB, not an ETX: the cobas e 411 frame 1 checksum is 94', () => {
    const text = 'H|\\^&|||cobas-e411^1|||||host|RSUPL^BATCH|P|1\rP|1\rO|1|000002327|159^0^1^^S1^SC|^^^8^1\\^^^7^1\\^^^6^1\\^^^5^1\\^^^4^1\\^^^3^1\\^^^1^1|R||20190110155445||||N||||1|||||||20190110163045|||F\rR|1|^^^8/1/not|1.95|uIU/ml||N||F||pathof|||E1\rR|2|^^^7/1/no';
    assert.equal(text.length, 240);
    assert.equal(checksum(Buffer.concat([latin1('1' + text), Buffer.from([ETB])])), '94');
    assert.notEqual(checksum(Buffer.concat([latin1('1' + text), Buffer.from([ETX])])), '94');
  });

  it('sums raw bytes: 0xFC counts 252 however the text is decoded', () => {
    assert.equal(checksumValue(Buffer.from([0x31, 0xfc, ETX])), (0x31 + 0xfc + ETX) % 256);
  });
});

describe('link layer: building frames', () => {
  it('buildFrame lays out STX FN text ETB|ETX C1 C2 CR LF', () => {
    const f = buildFrame(3, latin1('L|1|N\r'), 'ETX');
    assert.deepEqual([...f.subarray(0, 2)], [STX, 0x33]);
    assert.equal(f[f.length - 5], ETX);
    assert.equal(f.subarray(f.length - 4, f.length - 2).toString('latin1'), checksum(latin1('3L|1|N\r\x03')));
    assert.deepEqual([...f.subarray(f.length - 2)], [CR, LF]);
    assert.equal(buildFrame(9, latin1('x'), 'ETB')[1], 0x31, 'frame numbers are modulo 8');
    assert.equal(buildFrame(1, latin1('x'), 'ETX', false).length, 6, 'no checksum: STX FN x ETX CR LF');
  });

  it('buildFrames cuts at frameTextMax, ETB on all but the last, numbers wrap 7 -> 0', () => {
    const frames = buildFrames(latin1('a'.repeat(25) + '\r'), { frameTextMax: 3, firstFrameNumber: 6 });
    assert.equal(frames.length, 9);
    assert.deepEqual(frames.map((f) => String.fromCharCode(f[1]!)).join(''), '670123456');
    assert.deepEqual(frames.map((f) => f[f.length - 5]), [ETB, ETB, ETB, ETB, ETB, ETB, ETB, ETB, ETX]);
    assert.deepEqual(Buffer.concat(frames.map((f) => {
      const p = parseFrame(f);
      assert.ok(p.ok);
      return p.text;
    })), latin1('a'.repeat(25) + '\r'));
  });

  it('splitRecords keeps each CR with its record', () => {
    assert.deepEqual(splitRecords(latin1('H|\\^&\rP|1\rL|1')).map((r) => r.toString('latin1')), ['H|\\^&\r', 'P|1\r', 'L|1']);
  });
});

describe('link layer: parsing frames', () => {
  it('parseFrame returns number, text and end; reports the reason for a bad frame', () => {
    const good = buildFrame(2, latin1('R|1|^^^GLU|5.5\r'), 'ETB');
    const p = parseFrame(Buffer.concat([Buffer.from([0x06, 0x06]), good]));
    assert.ok(p.ok);
    assert.equal(p.fn, 2);
    assert.equal(p.end, 'ETB');
    assert.deepEqual(p.text, latin1('R|1|^^^GLU|5.5\r'));

    const bad = Buffer.from(good);
    bad[4] = bad[4]! ^ 1;
    const q = parseFrame(bad);
    assert.equal(q.ok, false);
    assert.match(q.ok ? '' : q.reason, /checksum .* received, .* computed/);
    assert.equal(parseFrame(good.subarray(0, 10)).ok, false);
    assert.equal(parseFrame(latin1('no frame')).ok, false);
  });

  it('the reader tolerates frame ends without CR LF, with LF only, and lower-case checksums', () => {
    const body = '1L|1|N\r';
    const cs = checksum(latin1(body + '\x03'));
    for (const tail of ['', '\n', '\r', '\r\n']) {
      for (const digits of [cs, cs.toLowerCase()]) {
        const p = parseFrame(latin1(`\x02${body}\x03${digits}${tail}`));
        assert.ok(p.ok, `tail ${JSON.stringify(tail)}, digits ${digits}`);
      }
    }
  });

  it('the reader reports EOT and ENQ between frames, EOT and STX inside one', () => {
    const reader = new FrameReader({ checksums: true, maxFrame: 64_000 });
    const events: ReadEvent[] = [];
    const input = Buffer.concat([
      Buffer.from([ENQ]),
      latin1('\x021H|'), // cut short by a new STX
      buildFrame(1, latin1('L|1\r'), 'ETX'),
      latin1('\x022P|'), // cut short by EOT
      Buffer.from([EOT]),
    ]);
    for (let i = 0; i < input.length; ) {
      const { next, event } = reader.feed(input, i);
      i = next;
      if (event) events.push(event);
    }
    assert.deepEqual(events.map((e) => e.kind), ['enq', 'restart', 'frame', 'eot']);
    assert.deepEqual(events[3], { kind: 'eot', inFrame: true });
    assert.equal(reader.inFrame, false);
  });
});
