// Fuzzing the HL7 receive path, as astm-fuzz.test.ts does for ASTM: mutated
// MLLP transfers built from the HL7 captures go into Hl7Link (frames without
// end, storms of VT and FS, garbage between frames, bit flips, nested and
// broken escapes, oversized frames), and garbage into the codec and the lab
// reading. Seeded, so every failure repeats.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Hl7Error, Hl7Link, RecentControlIds, frameMllp, parseHl7Bytes } from '../../lib/protocols/hl7';
import { hl7LabEventsOf } from '../../lib/protocols/hl7/lab';
import { HL7_PROFILES } from '../../lib/protocols/hl7/dialects';
import type { LinkAction } from '../../lib/link/actions';
import { allHl7Messages } from '../support/hl7-fixtures';
import { prng, splitReads } from '../support/seeded';

const SEED = 0x4177f022;
const LINK_ITERATIONS = 1500;
const CODEC_ITERATIONS = 3000;
const MAX_FRAME = 16 * 1024;
const VT = 0x0b;
const FS = 0x1c;
const CR = 0x0d;
const CONTROLS = [VT, FS, CR, 0x0a, 0x00, 0x1b, 0x7f, 0xff, 0x5c, 0x7c, 0x5e, 0x7e, 0x26] as const;

/** The analyzers' messages of the captures, each a frame's content. */
function goodMessages(): Buffer[] {
  return allHl7Messages()
    .filter((m) => m.from === 'analyzer' && m.bytes.length <= MAX_FRAME && !m.bytes.includes(VT) && !m.bytes.includes(FS))
    .map((m) => Buffer.from(m.bytes));
}

type Mutation = 'bitflip' | 'truncate' | 'missingFs' | 'oversize' | 'controls' | 'neverEnds' | 'storm' | 'garbageBetween' | 'escapes' | 'garbage';
const MUTATIONS: readonly Mutation[] = ['bitflip', 'truncate', 'missingFs', 'oversize', 'controls', 'neverEnds', 'storm', 'garbageBetween', 'escapes', 'garbage'];

function mutate(kind: Mutation, good: Buffer, r: ReturnType<typeof prng>): Buffer[] {
  const wire = frameMllp(good);
  switch (kind) {
    case 'bitflip': {
      const b = Buffer.from(wire);
      for (let n = 1 + r.int(8); n > 0; n--) {
        const i = r.int(b.length);
        b[i] = b[i]! ^ (1 << r.int(8));
      }
      return [b];
    }
    case 'truncate':
      return [wire.subarray(0, r.int(wire.length))];
    case 'missingFs':
      return [Buffer.concat([Buffer.from([VT]), good])];
    case 'oversize': {
      const head = good.subarray(0, good.indexOf(CR) + 1);
      return [Buffer.concat([Buffer.from([VT]), head, Buffer.alloc(MAX_FRAME + r.int(3 * MAX_FRAME), 0x41 + r.int(26)), Buffer.from([FS, CR])])];
    }
    case 'controls': {
      const b = [...wire];
      for (let n = 1 + r.int(6); n > 0; n--) b.splice(r.int(b.length + 1), 0, r.pick(CONTROLS));
      return [Buffer.from(b)];
    }
    case 'neverEnds': {
      // VT and text for ever (five times the frame limit) in reads of up to 4 KiB.
      const reads = [Buffer.from([VT, 0x4d, 0x53, 0x48, 0x7c])];
      for (let sent = 0; sent < 5 * MAX_FRAME; ) {
        const n = 1 + r.int(4096);
        reads.push(Buffer.alloc(n, 0x20 + r.int(90)));
        sent += n;
      }
      return reads;
    }
    case 'storm': {
      const b = Buffer.alloc(1 + r.int(3000));
      for (let i = 0; i < b.length; i++) b[i] = r.pick([VT, FS, CR, 0x4d, 0x53, 0x48]);
      return [b];
    }
    case 'garbageBetween': {
      const g = Buffer.alloc(r.int(500));
      for (let i = 0; i < g.length; i++) g[i] = r.int(256);
      return [Buffer.concat([g, wire, g, wire])];
    }
    case 'escapes': {
      // Escapes nested, unclosed and of every kind in the OBX fields.
      const text = good.toString('latin1');
      const pieces = ['\\', '\\\\', '\\S\\', '\\X', '\\X0D\\', '\\XZZ\\', '\\E\\S\\E\\', '\\Z' + 'z'.repeat(r.int(200)), '\\.br\\', '\\H\\\\N\\', '\\\\\\\\'];
      const out = text.replace(/OBX\|[^\r\n]*/g, (seg) => seg.replace(/\|/g, () => `|${r.pick(pieces)}${r.pick(pieces)}`));
      return [frameMllp(Buffer.from(out, 'latin1'))];
    }
    case 'garbage': {
      const b = Buffer.alloc(1 + r.int(2000));
      for (let i = 0; i < b.length; i++) b[i] = r.int(256);
      return [b];
    }
  }
}

/** The deframer's buffers, through its private fields (named so a rename fails loudly). */
function buffered(link: Hl7Link): { frame: number; held: number } {
  const d = (link as unknown as { deframer?: { size?: number; held?: Buffer } }).deframer;
  assert.equal(typeof d?.size, 'number', 'Hl7Link.deframer.size is gone: update the fuzz test');
  assert.ok(Buffer.isBuffer(d?.held), 'Hl7Link.deframer.held is gone: update the fuzz test');
  return { frame: d!.size!, held: d!.held!.length };
}

const ackCodes = (actions: LinkAction[]) =>
  actions.flatMap((a) => (a.type === 'write' ? [/\rMSA\|([A-Z]{2})/.exec(a.bytes.toString('latin1'))?.[1] ?? '?'] : []));

describe('HL7 fuzz', () => {
  it(`Hl7Link survives ${LINK_ITERATIONS} mutated transfers (seed ${SEED.toString(16)}), its buffers bounded, and takes the next good message intact`, { timeout: 60_000 }, () => {
    const goods = goodMessages();
    assert.ok(goods.length >= 10, `only ${goods.length} good capture messages`);
    const r = prng(SEED);
    // Resends are recognised within no time here: the good messages come again and again, each to be taken.
    const link = new Hl7Link({ maxFrameBytes: MAX_FRAME, holdAck: false, clock: () => new Date(2024, 0, 1), recent: new RecentControlIds(0) });
    const counts: Record<string, number> = {};
    let now = 1_000_000;
    let maxBuffered = 0;
    for (let iter = 0; iter < LINK_ITERATIONS; iter++) {
      const kind = MUTATIONS[iter % MUTATIONS.length]!;
      counts[kind] = (counts[kind] ?? 0) + 1;
      const good = r.pick(goods);
      const where = `iteration ${iter} (${kind})`;
      let fed = 0;
      for (const read of splitReads(mutate(kind, r.pick(goods), r), r)) {
        fed += read.length;
        let actions: LinkAction[];
        try {
          actions = link.receive(read, (now += r.int(50)));
        } catch (err) {
          assert.fail(`${where}: receive threw ${(err as Error).stack}`);
        }
        for (const a of actions) {
          if (a.type === 'message' || a.type === 'discarded') assert.ok(a.bytes.length <= fed, `${where}: ${a.type} of ${a.bytes.length} bytes from ${fed} fed`);
          // Whatever came, what we write is an ACK frame, never an echo of garbage.
          if (a.type === 'write') assert.ok(a.bytes[0] === VT && a.bytes.subarray(1, 4).toString('latin1') === 'MSH', `${where}: wrote something that is not a message`);
        }
        const b = buffered(link);
        maxBuffered = Math.max(maxBuffered, b.frame);
        assert.ok(b.frame <= MAX_FRAME, `${where}: frame buffer holds ${b.frame} bytes, limit ${MAX_FRAME}`);
        assert.ok(b.held <= 2, `${where}: ${b.held} bytes held outside a frame`);
      }
      // A new connection after the mess (as a TCP peer would reconnect): buffers emptied.
      link.disconnect(++now, 'closed');
      assert.deepEqual(buffered(link), { frame: 0, held: 0 }, `${where}: buffers not emptied`);
      assert.equal(link.state, 'idle', `${where}: not idle after the connection closed`);

      // The next good message arrives intact, and is acknowledged (unless a query, answered by the host's response).
      const out = splitReads([frameMllp(good)], r).flatMap((read) => link.receive(read, ++now));
      const delivered = out.flatMap((a) => (a.type === 'message' ? [a.bytes] : []));
      const isAck = /^MSH\|[^|]*(?:\|[^|]*){6}\|ACK/.test(good.toString('latin1'));
      assert.equal(delivered.length, isAck ? 0 : 1, `${where}: good message delivered ${delivered.length} times`);
      if (!isAck) assert.ok(delivered[0]!.equals(good), `${where}: good message altered`);
      assert.ok(!ackCodes(out).some((c) => c === 'AR' || c === 'AE' || c === 'CR' || c === 'CE'), `${where}: good message refused`);
      link.disconnect(++now, 'closed');
    }
    assert.ok(maxBuffered > 0, 'the frame buffer was exercised');
    assert.equal(Object.values(counts).reduce((s, n) => s + n, 0), LINK_ITERATIONS);
  });

  it(`parseHl7Bytes and every dialect's lab reading throw only Hl7Error on ${CODEC_ITERATIONS} garbage messages (seed ${(SEED + 1).toString(16)})`, { timeout: 60_000 }, () => {
    const r = prng(SEED + 1);
    const texts = goodMessages().map((b) => b.toString('latin1'));
    const ALPHABET = 'MSHOBXPIDSPMNTE|^~\\&#0123456789.-+ :/\r\n\t\u0000\u00ffabcXYZ';
    const garbage = (): Buffer => {
      switch (r.int(4)) {
        case 0: {
          const b = Buffer.alloc(r.int(400));
          for (let i = 0; i < b.length; i++) b[i] = r.int(256);
          return Buffer.concat([Buffer.from('MSH|^~\\&|', 'latin1'), b]);
        }
        case 1: {
          let s = 'MSH';
          for (let n = r.int(400); n > 0; n--) s += r.pick([...ALPHABET]);
          return Buffer.from(s, 'latin1');
        }
        case 2: {
          const s = [...r.pick(texts)];
          for (let n = 1 + r.int(10); n > 0; n--) {
            const i = r.int(s.length + 1);
            const op = r.int(3);
            if (op === 0) s[i] = r.pick([...ALPHABET]);
            else if (op === 1) s.splice(i, 1 + r.int(20));
            else s.splice(i, 0, r.pick([...ALPHABET]));
          }
          return Buffer.from(s.join(''), 'latin1');
        }
        default: {
          const enc = r.next() < 0.8 ? '^~\\&' : r.pick(['', '^', '^~', '^~&', '^~\\\\', '^~\\&#', 'ab', '^~\\&&']);
          let s = `MSH|${enc}|A||H||20240101||${r.pick(['ORU^R01', 'OUL^R22', 'QBP^Q11', 'QRY^Q02', 'ACK', ''])}|${r.pick(['1', ''])}|P|2.5.1||||||${r.pick(['', 'UNICODE UTF-8', 'ASCII', '8859/1'])}`;
          for (let n = r.int(12); n > 0; n--) {
            s += '\r' + r.pick(['PID', 'OBR', 'OBX', 'SPM', 'NTE', 'QPD', 'QRD', 'ORC', 'ZZZ', 'ob', '']);
            for (let k = r.int(30); k > 0; k--) s += '|' + r.pick(['', '1', 'NM', 'ED', 'CE', 'S_OTHER', 'a^b', 'x~y', 'p&q', '\\S\\', '\\', '""', '\u00e9', 'x'.repeat(300)]);
          }
          return Buffer.from(s, r.next() < 0.5 ? 'latin1' : 'utf8');
        }
      }
    };
    const bad: string[] = [];
    let parsed = 0;
    let read = 0;
    for (let iter = 0; iter < CODEC_ITERATIONS; iter++) {
      const bytes = garbage();
      try {
        const message = parseHl7Bytes(bytes);
        parsed++;
        for (const p of HL7_PROFILES) hl7LabEventsOf(message, p, 'Europe/Berlin');
        read++;
      } catch (err) {
        if (!(err instanceof Hl7Error)) bad.push(`${iter}: ${(err as Error).constructor?.name}: ${(err as Error).message} for ${JSON.stringify(bytes.toString('latin1')).slice(0, 300)}\n${(err as Error).stack?.split('\n').slice(1, 3).join('\n')}`);
      }
    }
    assert.deepEqual(bad.slice(0, 5), [], `${bad.length} foreign errors`);
    assert.ok(parsed > 0 && read > 0, `parsed ${parsed}, read ${read}: the garbage reached the lab reading`);
  });
});
