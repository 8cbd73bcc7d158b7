// Fuzzing the ASTM receive path: mutated frames built from the shared fixtures
// go into AstmLink (computer role, explicit clock), and random garbage into the
// record codec and the lab-event mapping. Seeded, so every failure repeats.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ENQ, EOT, ETB, ETX, STX, ACK, NAK, CR, LF } from '../../lib/protocols/astm/control';
import { AstmLink, buildFrames, checksum } from '../../lib/protocols/astm/link';
import { findRestricted } from '../../lib/protocols/astm/link/frame';
import { decodeMessage } from '../../lib/protocols/astm/records';
import { toLabEvents } from '../../lib/protocols/astm/lab';
import { GENERIC_LIS2A2 } from '../../lib/protocols/astm/dialects';
import type { LinkAction } from '../../lib/protocols/astm/link';
import { fixtureMessages, loadAllFixtures } from '../support/fixtures';
import { prng, splitReads } from '../support/seeded';


const SEED = 0x1ab5eed;
const LINK_ITERATIONS = 2000;
const CODEC_ITERATIONS = 3000;
const MAX_FRAME = 4096;
const RECEIVE_TIMEOUT = 30_000;
const CONTROLS = [STX, ETX, ETB, EOT, ENQ, ACK, NAK, CR, LF, 0x00, 0x1b, 0x7f, 0xff] as const;

/** Good messages from the fixtures: records ending in CR, nothing the framing forbids. */
function goodMessages(): Buffer[] {
  const out: Buffer[] = [];
  for (const f of loadAllFixtures()) {
    let messages: string[];
    try {
      messages = fixtureMessages(f);
    } catch {
      continue; // a fixture whose frames do not check out is not a "good" message
    }
    for (const m of messages) {
      const bytes = Buffer.from(m, 'latin1');
      if (bytes.length > 0 && bytes[bytes.length - 1] === CR && findRestricted(bytes) < 0) out.push(bytes);
    }
  }
  return out;
}

const session = (frames: Buffer[]) => Buffer.concat([Buffer.from([ENQ]), ...frames, Buffer.from([EOT])]);

type Mutation = 'bitflip' | 'truncate' | 'missingEtx' | 'oversize' | 'controls' | 'neverEnds' | 'badChecksum' | 'garbage';
const MUTATIONS: readonly Mutation[] = ['bitflip', 'truncate', 'missingEtx', 'oversize', 'controls', 'neverEnds', 'badChecksum', 'garbage'];

/** A mutated transfer as a list of reads (a frame that never ends is many reads). */
function mutate(kind: Mutation, good: Buffer, r: ReturnType<typeof prng>): Buffer[] {
  const frames = buildFrames(good, { frameTextMax: 1 + r.int(240) });
  const wire = session(frames);
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
    case 'missingEtx': {
      const f = frames.map((x) => Buffer.from(x));
      const k = r.int(f.length);
      const at = f[k]!.findIndex((c, i) => i > 0 && (c === ETX || c === ETB));
      if (at > 0) f[k] = Buffer.concat([f[k]!.subarray(0, at), f[k]!.subarray(at + 1)]);
      return [session(f)];
    }
    case 'oversize': {
      // One frame well beyond maxReceiveFrame, with a correct checksum, then the rest.
      const text = Buffer.alloc(MAX_FRAME + r.int(3 * MAX_FRAME), 0x41 + r.int(26));
      const body = Buffer.concat([Buffer.from('1'), text, Buffer.from([ETX])]);
      const big = Buffer.concat([Buffer.from([STX]), body, Buffer.from(checksum(body) + '\r\n', 'latin1')]);
      return [Buffer.concat([Buffer.from([ENQ]), big, ...frames, Buffer.from([EOT])])];
    }
    case 'controls': {
      const b = [...wire];
      for (let n = 1 + r.int(6); n > 0; n--) b.splice(r.int(b.length + 1), 0, r.pick(CONTROLS));
      return [Buffer.from(b)];
    }
    case 'neverEnds': {
      // STX and text for ever (well, five times the frame limit), in reads of up to 1 KiB.
      const reads = [Buffer.from([ENQ, STX, 0x31])];
      for (let sent = 0; sent < 5 * MAX_FRAME; ) {
        const n = 1 + r.int(1024);
        reads.push(Buffer.alloc(n, 0x20 + r.int(90)));
        sent += n;
      }
      return reads;
    }
    case 'badChecksum': {
      const f = frames.map((x) => Buffer.from(x));
      const k = r.int(f.length);
      const c = f[k]!.length - 4; // C1 of `... ETX C1 C2 CR LF`
      f[k]![c] = r.pick([0x30, 0x47, 0x7a, 0x00, 0xff]);
      return [session(f)];
    }
    case 'garbage': {
      const b = Buffer.alloc(1 + r.int(2000));
      for (let i = 0; i < b.length; i++) b[i] = r.int(256);
      return [Buffer.concat([Buffer.from([ENQ]), b])];
    }
  }
}

/** The link's own buffers, read through its private fields (named here so a rename fails loudly). */
function buffered(link: AstmLink): { frame: number; message: number } {
  const inner = link as unknown as { reader?: { parts?: Buffer[] }; receiver?: { assembler?: { pendingLength?: number } } };
  const parts = inner.reader?.parts;
  const pending = inner.receiver?.assembler?.pendingLength;
  assert.ok(Array.isArray(parts), 'AstmLink.reader.parts is gone: update the fuzz test');
  assert.equal(typeof pending, 'number', 'AstmLink.receiver.assembler.pendingLength is gone: update the fuzz test');
  return { frame: parts.reduce((s, p) => s + p.length, 0), message: pending! };
}

describe('ASTM fuzz', () => {
  it(`AstmLink (computer role) survives ${LINK_ITERATIONS} mutated transfers (seed ${SEED.toString(16)}) and delivers the next good message intact`, { timeout: 20_000 }, () => {
    const goods = goodMessages();
    assert.ok(goods.length >= 10, `only ${goods.length} good fixture messages`);
    const r = prng(SEED);
    const link = new AstmLink({ role: 'computer', maxReceiveFrame: MAX_FRAME, receiveTimeoutMs: RECEIVE_TIMEOUT });
    const heapBefore = process.memoryUsage().heapUsed;
    const counts: Record<string, number> = {};
    let now = 1_000_000;
    let maxFrameBuffered = 0;

    for (let iter = 0; iter < LINK_ITERATIONS; iter++) {
      const kind = MUTATIONS[iter % MUTATIONS.length]!;
      counts[kind] = (counts[kind] ?? 0) + 1;
      const good = r.pick(goods);
      const reads = splitReads(mutate(kind, r.pick(goods), r), r);
      const where = `iteration ${iter} (${kind})`;
      let fed = 0;
      for (const read of reads) {
        fed += read.length;
        let actions: LinkAction[];
        try {
          actions = link.receive(read, (now += r.int(50)));
        } catch (err) {
          assert.fail(`${where}: receive threw ${(err as Error).stack}`);
        }
        for (const a of actions) {
          if (a.type === 'message' || a.type === 'discarded') assert.ok(a.bytes.length <= fed, `${where}: ${a.type} of ${a.bytes.length} bytes from ${fed} fed`);
        }
        const b = buffered(link);
        maxFrameBuffered = Math.max(maxFrameBuffered, b.frame);
        assert.ok(b.frame <= MAX_FRAME, `${where}: frame buffer holds ${b.frame} bytes, limit ${MAX_FRAME}`);
        assert.ok(b.message <= fed, `${where}: message buffer holds ${b.message} bytes of ${fed} fed`);
      }
      // No hang: the receive timer ends any transfer, and an EOT leaves the line neutral.
      if (link.state === 'receiving') assert.ok((link.nextDeadline() ?? Infinity) <= now + RECEIVE_TIMEOUT, `${where}: no receive deadline`);
      now += RECEIVE_TIMEOUT + 1;
      link.tick(now);
      link.receive(Buffer.from([EOT]), ++now);
      assert.equal(link.state, 'idle', `${where}: line not neutral after time-out and EOT`);
      assert.deepEqual(buffered(link), { frame: 0, message: 0 }, `${where}: buffers not emptied`);

      // The next good message arrives intact.
      const frames = buildFrames(good, { frameTextMax: 1 + r.int(240) });
      const delivered = splitReads([session(frames)], r)
        .flatMap((read) => link.receive(read, ++now))
        .flatMap((a) => (a.type === 'message' ? [a.bytes] : []));
      assert.equal(delivered.length, 1, `${where}: good message delivered ${delivered.length} times`);
      assert.ok(delivered[0]!.equals(good), `${where}: good message altered`);
      assert.equal(link.state, 'idle', `${where}: not neutral after the good message`);
    }
    const grown = process.memoryUsage().heapUsed - heapBefore;
    assert.ok(grown < 64 * 1024 * 1024, `heap grew by ${grown} bytes`);
    assert.ok(maxFrameBuffered > 0, 'the frame buffer was exercised');
    assert.equal(Object.values(counts).reduce((s, n) => s + n, 0), LINK_ITERATIONS);
  });

  it(`decodeMessage and toLabEvents (generic profile) throw only their own Error subclasses on ${CODEC_ITERATIONS} garbage texts (seed ${(SEED + 1).toString(16)})`, { timeout: 20_000 }, () => {
    const r = prng(SEED + 1);
    const texts = loadAllFixtures().flatMap((f) => {
      try {
        return fixtureMessages(f);
      } catch {
        return [];
      }
    });
    const ALPHABET = 'HPORCLQM|\\^&~!@#$%0123456789.-+ :/\r\n\t\u0000\u00ffabcXYZ';
    const FIELD = ['', '1', '2', '^^^GLU', '20250314092653', '2025', '-1', '99999999999999999999', 'F', 'N', '\\', '^', '~', '&', '|', 'E 1394-97', 'ÿ', '\u0000', 'x'.repeat(300)];
    const garbage = (): string => {
      switch (r.int(4)) {
        case 0: {
          // Random latin1 bytes, decoded as the link would hand them on.
          const b = Buffer.alloc(r.int(400));
          for (let i = 0; i < b.length; i++) b[i] = r.int(256);
          return b.toString('latin1');
        }
        case 1: {
          let s = '';
          for (let n = r.int(400); n > 0; n--) s += r.pick([...ALPHABET]);
          return s;
        }
        case 2: {
          // A fixture message with characters replaced, removed or inserted.
          const s = [...r.pick(texts)];
          for (let n = 1 + r.int(10); n > 0; n--) {
            const i = r.int(s.length + 1);
            const op = r.int(3);
            if (op === 0) s[i] = r.pick([...ALPHABET]);
            else if (op === 1) s.splice(i, 1 + r.int(20));
            else s.splice(i, 0, r.pick([...ALPHABET]));
          }
          return s.join('');
        }
        default: {
          // Plausible records with random fields.
          const delims = r.next() < 0.8 ? '|\\^&' : r.pick(['', '|', '||||', '|\\^', 'ab', '|\\^&&']);
          let s = r.next() < 0.9 ? `H${delims}` : '';
          for (let n = r.int(12); n > 0; n--) {
            s += '\r' + r.pick(['P', 'O', 'R', 'C', 'Q', 'M', 'L', 'H', 'Z', '', '1']);
            for (let k = r.int(30); k > 0; k--) s += '|' + r.pick(FIELD);
          }
          return r.next() < 0.7 ? s + '\r' : s;
        }
      }
    };
    const FOREIGN = new Set<unknown>([TypeError, RangeError, ReferenceError, SyntaxError, EvalError, URIError, Error]);
    const bad: string[] = [];
    let decoded = 0;
    let mapped = 0;
    for (let iter = 0; iter < CODEC_ITERATIONS; iter++) {
      const text = garbage();
      for (const [what, fn] of [
        ['decodeMessage', () => decodeMessage(text)],
        ['toLabEvents', () => toLabEvents(decodeMessage(text), GENERIC_LIS2A2, { timeZone: 'Europe/Berlin' })],
      ] as const) {
        try {
          fn();
          if (what === 'decodeMessage') decoded++;
          else mapped++;
        } catch (err) {
          if (!(err instanceof Error)) bad.push(`${iter} ${what}: threw a non-Error ${String(err)} for ${JSON.stringify(text)}`);
          else if (FOREIGN.has(err.constructor)) bad.push(`${iter} ${what}: ${err.constructor.name}: ${err.message} for ${JSON.stringify(text).slice(0, 300)}\n${err.stack?.split('\n').slice(1, 3).join('\n')}`);
          if (what === 'decodeMessage') break; // nothing to map
        }
      }
    }
    assert.deepEqual(bad.slice(0, 5), [], `${bad.length} foreign errors`);
    assert.ok(decoded > 0 && mapped > 0, `decoded ${decoded}, mapped ${mapped}: the garbage reached the mapping`);
  });
});
