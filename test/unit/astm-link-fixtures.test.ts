// Replays real analyzer captures (test/fixtures/astm, provenance in
// test/fixtures/SOURCES.md) through the receiving side of the link, in pieces
// of every size.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ACK, ENQ, EOT, NAK } from '../../lib/protocols/astm/control';
import { AstmLink, type AstmLinkOptions, type LinkAction } from '../../lib/protocols/astm/link';
import { fixtureDir } from '../support/fixtures';

const DIR = fixtureDir();
const load = (name: string): Buffer => readFileSync(join(DIR, name)); // bytes as stored: latin1, never decoded

/** Wraps a capture that lacks them in ENQ … EOT, as the analyzer put them on the wire. */
function session(bytes: Buffer): Buffer {
  const parts = [bytes];
  if (!bytes.includes(ENQ)) parts.unshift(Buffer.from([ENQ]));
  const lastStx = bytes.lastIndexOf(0x02);
  if (bytes.indexOf(EOT, lastStx) < 0) parts.push(Buffer.from([EOT]));
  return Buffer.concat(parts);
}

/**
 * The frame texts of a capture, found independently of the code under test:
 * STX, one digit (or none), text, ETB/ETX.
 */
function frameTexts(bytes: Buffer, withNumber = true): Buffer[] {
  const s = bytes.toString('latin1');
  const re = withNumber ? /\x02[0-9]([^\x02\x03\x04\x17]*)[\x03\x17]/g : /\x02([^\x02\x03\x04\x17]*)[\x03\x17]/g;
  return [...s.matchAll(re)].map((m) => Buffer.from(m[1] ?? '', 'latin1'));
}

interface Run {
  messages: Buffer[];
  writes: number[];
  actions: LinkAction[];
}

/** Feeds `bytes` in pieces of `size` (0 = all at once), one millisecond apart. */
function replay(bytes: Buffer, size: number, options: Partial<AstmLinkOptions> = {}): Run {
  const link = new AstmLink(options);
  const actions: LinkAction[] = [];
  const step = size === 0 ? bytes.length : size;
  let now = 1_000;
  for (let i = 0; i < bytes.length; i += step) actions.push(...link.receive(bytes.subarray(i, i + step), now++));
  const messages = actions.flatMap((a) => (a.type === 'message' ? [a.bytes] : []));
  const writes = actions.flatMap((a) => (a.type === 'write' ? [...a.bytes] : []));
  assert.equal(link.state, 'idle', 'the line is neutral after EOT');
  return { messages, writes, actions };
}

interface Case {
  file: string;
  messages: number;
  repair?: (b: Buffer) => Buffer;
  options?: Partial<AstmLinkOptions>;
  /** Frames in the capture carry no frame number. */
  noNumbers?: boolean;
}

const lfToCr = (b: Buffer): Buffer => Buffer.from(b.toString('latin1').replace(/\n/g, '\r'), 'latin1');

// Every framed capture. Those marked ok* in test/fixtures/SOURCES.md are
// replayed after undoing their documented log artefact (their raw form is
// tested below).
const CASES: Case[] = [
  { file: 'abbott-afinion2-result.txt', messages: 1 },
  { file: 'abbott-m2000-result-framed.txt', messages: 1 },
  { file: 'cepheid-genexpert-result.txt', messages: 1 },
  { file: 'horiba-pentra-xlr-result.txt', messages: 1 },
  { file: 'horiba-yumizen-h500-qc-result.txt', messages: 1 },
  { file: 'roche-c111-result.txt', messages: 1 },
  { file: 'roche-c311-result.txt', messages: 1 },
  { file: 'roche-e411-result-multiframe.txt', messages: 1 },
  { file: 'roche-e411-result.txt', messages: 1 },
  { file: 'siemens-dca-vantage-result.txt', messages: 1 },
  { file: 'stago-sta-satellite-max-result.txt', messages: 1 },
  { file: 'sysmex-xn550-result.txt', messages: 1 },
  { file: 'sysmex-xp100-result.txt', messages: 1 },
  // the log added an LF after every CR
  { file: 'sysmex-xn550-result-framed-session.txt', messages: 1, repair: (b) => Buffer.from(b.toString('latin1').replace(/\r\n/g, '\r'), 'latin1') },
  // the log turned CR into LF
  { file: 'erba-em200-result-session.txt', messages: 2, repair: lfToCr },
  { file: 'erba-em200-query.txt', messages: 1, repair: lfToCr },
  { file: 'erba-em200-query-multitube.txt', messages: 1, repair: lfToCr },
  { file: 'roche-e411-query.txt', messages: 1, repair: lfToCr },
  { file: 'roche-e411-query-unknown-sample.txt', messages: 1, repair: lfToCr },
  // simplified framing: no frame number, no checksum, no CR LF
  { file: 'snibe-maglumi-x3-result-session.txt', messages: 3, options: { checksums: false }, noNumbers: true },
  { file: 'snibe-maglumi-x3-result-session-hostid-notlis.txt', messages: 3, options: { checksums: false }, noNumbers: true },
];

describe('link layer: real captures replayed', () => {
  for (const c of CASES) {
    it(`${c.file}: same messages whole, byte by byte and in odd pieces`, () => {
      const raw = load(c.file);
      const bytes = session(c.repair ? c.repair(raw) : raw);
      const texts = frameTexts(bytes, !c.noNumbers);
      const whole = replay(bytes, 0, c.options);

      assert.equal(whole.messages.length, c.messages, 'messages delivered');
      for (const m of whole.messages) {
        assert.equal(m[0], 0x48, 'a message starts with its H record');
        assert.match(m.toString('latin1'), /(^|[\r\n])L\|[^\r\n]*[\r\n]*$/, 'and ends with its L record');
      }
      // Nothing lost, nothing added, nothing doubled: the messages are the frame texts, in order.
      assert.deepEqual(Buffer.concat(whole.messages), Buffer.concat(texts));
      // One ACK for the ENQ and one per frame; no NAK.
      assert.equal(whole.writes.filter((b) => b === ACK).length, texts.length + bytes.toString('latin1').split('\x05').length - 1);
      assert.equal(whole.writes.filter((b) => b === NAK).length, 0);
      assert.equal(whole.actions.filter((a) => a.type === 'discarded').length, 0);

      for (const size of [1, 2, 3, 7, 64, 241, 4096]) {
        const run = replay(bytes, size, c.options);
        assert.deepEqual(run.messages, whole.messages, `pieces of ${size}`);
        assert.deepEqual(run.writes, whole.writes, `replies with pieces of ${size}`);
      }
    });
  }

  it('the captures with log artefacts, as stored, are NAKed and never delivered', () => {
    for (const file of ['sysmex-xn550-result-framed-session.txt', 'erba-em200-result-session.txt', 'roche-e411-query.txt']) {
      const run = replay(session(load(file)), 1);
      assert.equal(run.messages.length, 0, file);
      assert.ok(run.writes.includes(NAK), file);
    }
  });

  it('with checksums off, checksummed captures still give the same messages', () => {
    for (const file of ['roche-e411-result-multiframe.txt', 'horiba-pentra-xlr-result.txt', 'roche-c111-result.txt']) {
      const bytes = session(load(file));
      assert.deepEqual(replay(bytes, 1, { checksums: false }).messages, replay(bytes, 0).messages, file);
    }
  });

  it('the Yumizen H500 irregular frame numbers get a NAK when strictFrameNumbers is on', () => {
    const run = replay(session(load('horiba-yumizen-h500-qc-result.txt')), 0, { strictFrameNumbers: true });
    // ENQ and frames 1-5 are fine; the sixth frame, numbered 1 again, is refused.
    assert.deepEqual(run.writes.slice(0, 7), [ACK, ACK, ACK, ACK, ACK, ACK, NAK]);
  });

  it('the Sysmex session that reuses FN 2 for another record loses neither record', () => {
    const bytes = session(Buffer.from(load('sysmex-xn550-result-framed-session.txt').toString('latin1').replace(/\r\n/g, '\r'), 'latin1'));
    const [message] = replay(bytes, 0).messages;
    assert.ok(message);
    const text = message.toString('latin1');
    assert.ok(text.includes('R|29|^^^^SCAT_WDF|'));
    assert.ok(text.includes('R|29|^^^^HGB_WDF|'));
  });
});
