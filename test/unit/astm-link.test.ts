// The link layer driven tick by tick: every call carries an explicit `now`.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ACK, CR, ENQ, EOT, ETB, ETX, LF, NAK, STX } from '../../lib/protocols/astm/control';
import { AstmLink, parseFrame, type AstmLinkOptions, type LinkAction } from '../../lib/protocols/astm/link';
import { fixtureDir } from '../support/fixtures';

// ---------- helpers ----------

const b = (...bytes: number[]): Buffer => Buffer.from(bytes);
const latin1 = (s: string): Buffer => Buffer.from(s, 'latin1');
const writes = (actions: LinkAction[]): Buffer => Buffer.concat(actions.flatMap((a) => (a.type === 'write' ? [a.bytes] : [])));
const messages = (actions: LinkAction[]): Buffer[] => actions.flatMap((a) => (a.type === 'message' ? [a.bytes] : []));
const ofType = <T extends LinkAction['type']>(actions: LinkAction[], type: T): Extract<LinkAction, { type: T }>[] =>
  actions.filter((a): a is Extract<LinkAction, { type: T }> => a.type === type);

/** An independent checksum: the sum of FN … ETB/ETX, as two upper-case hex digits. */
function sum(fnAndText: string, end: number): string {
  let s = end;
  for (const ch of latin1(fnAndText)) s += ch;
  return (s % 256).toString(16).toUpperCase().padStart(2, '0');
}

/** A frame written out by hand, for the instrument's side. */
function frame(fn: number, text: string, end: number = ETX): Buffer {
  const body = `${fn}${text}`;
  return Buffer.concat([b(STX), latin1(body), b(end), latin1(sum(body, end)), b(CR, LF)]);
}

const fixture = (name: string): Buffer => readFileSync(join(fixtureDir(), name));

/** Splits a capture into its pieces: each ENQ, frame (STX … LF) and EOT. */
function tokens(capture: Buffer): Buffer[] {
  const out: Buffer[] = [];
  let i = 0;
  while (i < capture.length) {
    const c = capture[i]!;
    if (c === ENQ || c === EOT) {
      out.push(b(c));
      i++;
    } else if (c === STX) {
      let j = i + 1;
      while (capture[j] !== ETX && capture[j] !== ETB) j++;
      j += 3; // end character and checksum
      while (capture[j] === CR || capture[j] === LF) j++;
      out.push(capture.subarray(i, j));
      i = j;
    } else i++;
  }
  return out;
}

const MSG = 'H|\\^&|||LIS\rP|1\rO|1|S1||^^^GLU\rR|1|^^^GLU|5.5|mmol/L\rL|1|N\r';

/**
 * Two links back to back: every write of one is read by the other at the same
 * instant; when nothing is in flight, time jumps to the earliest deadline.
 */
class Wire {
  now = 0;
  readonly log: { side: 'a' | 'b'; action: LinkAction }[] = [];
  readonly bytes: { side: 'a' | 'b'; bytes: Buffer }[] = [];
  autoConfirm = true;

  /** What the line does to each write: the default delivers it intact; null loses it. */
  constructor(readonly a: AstmLink, readonly b: AstmLink, readonly line: (bytes: Buffer) => Buffer | null = (x) => x) {}

  feed(side: 'a' | 'b', actions: LinkAction[]): void {
    const queue: { side: 'a' | 'b'; action: LinkAction }[] = actions.map((action) => ({ side, action }));
    while (queue.length > 0) {
      const item = queue.shift()!;
      this.log.push(item);
      if (item.action.type === 'message' && item.action.held && this.autoConfirm) {
        // as the node does once the message is on disk
        const peerLink = this[item.side];
        queue.push(...peerLink.confirmStored(item.action.id, this.now).map((action) => ({ side: item.side, action })));
      }
      if (item.action.type !== 'write') continue;
      this.bytes.push({ side: item.side, bytes: item.action.bytes });
      const peer: 'a' | 'b' = item.side === 'a' ? 'b' : 'a';
      const arrived = this.line(item.action.bytes);
      if (!arrived) continue;
      const replies = this[peer].receive(arrived, this.now);
      queue.push(...replies.map((action) => ({ side: peer, action })));
    }
  }

  /** Runs timers until both links are idle with nothing queued, or `limit` ms pass. */
  settle(limit = 600_000): void {
    const end = this.now + limit;
    for (;;) {
      const deadlines = [this.a.nextDeadline(), this.b.nextDeadline()].filter((d): d is number => d !== null);
      if (deadlines.length === 0 || this.now >= end) return;
      this.now = Math.max(this.now, Math.min(...deadlines));
      this.feed('a', this.a.tick(this.now));
      this.feed('b', this.b.tick(this.now));
    }
  }

  actions(side: 'a' | 'b'): LinkAction[] {
    return this.log.filter((x) => x.side === side).map((x) => x.action);
  }
}

/** A computer-side link that has just acknowledged the instrument's ENQ at `now`. */
function receiving(options: Partial<AstmLinkOptions> = {}, now = 0): AstmLink {
  const link = new AstmLink(options);
  assert.deepEqual(writes(link.receive(b(ENQ), now)), b(ACK));
  assert.equal(link.state, 'receiving');
  return link;
}

/** A link that has sent `text` as one frame and waits for its reply. */
function waitingOnFrame(text: string, options: Partial<AstmLinkOptions> = {}): { link: AstmLink; first: Buffer } {
  const link = new AstmLink(options);
  assert.deepEqual(writes(link.send(latin1(text), 'm1', 0)), b(ENQ));
  const first = writes(link.receive(b(ACK), 100));
  assert.equal(link.state, 'waitingAck');
  return { link, first };
}

// ---------- receiving ----------

describe('link layer: receiving', () => {
  it('answers ENQ with ACK and ignores everything else on a neutral line (§6.2.5)', () => {
    const link = new AstmLink();
    assert.deepEqual(link.receive(latin1('hello\r\n'), 0).filter((a) => a.type === 'write'), []);
    assert.deepEqual(writes(link.receive(frame(1, 'H|\\^&\rL|1\r'), 1)), b(), 'a frame without ENQ is ignored');
    assert.equal(link.state, 'idle');
    assert.deepEqual(writes(link.receive(b(ACK, NAK, EOT, ENQ), 2)), b(ACK));
  });

  it('joins the ETB frames of the cobas e 411 message, which cuts a record in mid-field', () => {
    const pieces = tokens(fixture('roche-e411-result-multiframe.txt'));
    assert.deepEqual(pieces.map((p) => p.length), [1, 247, 247, 49, 1]);
    const link = new AstmLink();
    const replies: Buffer[] = [];
    const got: Buffer[] = [];
    pieces.forEach((piece, i) => {
      const actions = link.receive(piece, i * 100);
      replies.push(writes(actions));
      got.push(...messages(actions));
      if (i < 3) assert.equal(got.length, 0, 'nothing delivered before the end frame');
    });
    assert.deepEqual(replies, [b(ACK), b(ACK), b(ACK), b(ACK), b()]);
    assert.equal(got.length, 1);
    const text = got[0]!.toString('latin1');
    assert.ok(text.includes('R|2|^^^7/1/not|9.61|ug/dl'), 'the record cut after "no" is whole again');
    assert.ok(text.includes('R|7|^^^1/1/not|141.3'), 'and so is the one cut after "1/1"');
    assert.ok(text.startsWith('H|\\^&|||cobas-e411^1'));
    assert.ok(text.endsWith('L|1|N\r'));
    assert.equal(link.state, 'idle');
  });

  it('joins a record split in mid-record across ETB frames, and several records in one frame', () => {
    const link = receiving();
    const parts = ['H|\\^&|||LIS\rP|1\rO|1|S1||^^', '^GLU\rR|1|^^^GL', 'U|5.5|mmol/L\rL|1|N\r'];
    const a1 = link.receive(frame(1, parts[0]!, ETB), 10);
    const a2 = link.receive(frame(2, parts[1]!, ETB), 20);
    const a3 = link.receive(frame(3, parts[2]!, ETX), 30);
    assert.deepEqual([writes(a1), writes(a2), writes(a3)], [b(ACK), b(ACK), b(ACK)]);
    assert.deepEqual(messages([...a1, ...a2]), []);
    assert.deepEqual(messages(a3), [latin1(MSG)]);
    const m = ofType(a3, 'message')[0]!;
    assert.equal(m.end, 'terminator');
    assert.equal(m.held, false);
    assert.equal(m.id, 'rx-1');
  });

  it('NAKs a frame with a bad checksum, then takes the retransmission once', () => {
    const link = receiving();
    const good = frame(1, MSG);
    const bad = Buffer.from(good);
    bad[bad.length - 3] = bad[bad.length - 3] === 0x30 ? 0x31 : 0x30; // change C2
    const a1 = link.receive(bad, 10);
    assert.deepEqual(writes(a1), b(NAK));
    assert.deepEqual(messages(a1), []);
    assert.match(ofType(a1, 'warning')[0]!.text, /checksum/);
    const a2 = link.receive(good, 20);
    assert.deepEqual(writes(a2), b(ACK));
    assert.deepEqual(messages(a2), [latin1(MSG)]);
    assert.deepEqual(messages(link.receive(b(EOT), 30)), []);
  });

  it('NAKs a garbled frame: text changed in transit, or checksum characters missing', () => {
    const link = receiving();
    const garbled = frame(1, MSG);
    garbled[5] = 0x7e;
    assert.deepEqual(writes(link.receive(garbled, 10)), b(NAK));
    const noChecksum = Buffer.concat([b(STX), latin1('1' + MSG), b(ETX, CR, LF)]);
    assert.deepEqual(writes(link.receive(noChecksum, 20)), b(NAK));
    assert.deepEqual(writes(link.receive(frame(1, MSG), 30)), b(ACK), 'the intact retransmission is accepted');
  });

  it('accepts lower-case checksum digits', () => {
    const link = receiving();
    const f = frame(1, 'H|\\^&\rL|1|N\r');
    assert.match(sum('1H|\\^&\rL|1|N\r', ETX), /[A-F]/, 'a checksum with a letter in it');
    const lower = latin1(f.toString('latin1').replace(/([0-9A-F]{2})\r\n$/, (m) => m.toLowerCase()));
    const actions = link.receive(lower, 10);
    assert.deepEqual(writes(actions), b(ACK));
    assert.equal(messages(actions).length, 1);
  });

  it('a repeated frame (our ACK was lost) is ACKed again but delivered once', () => {
    const link = receiving();
    const parts = ['H|\\^&|||LIS\rP|1\rO|1|S1||^^^GLU\r', 'R|1|^^^GLU|5.5|mmol/L\rL|1|N\r'];
    const actions = [
      ...link.receive(frame(1, parts[0]!, ETB), 10),
      ...link.receive(frame(1, parts[0]!, ETB), 20), // the sender never saw our ACK
      ...link.receive(frame(2, parts[1]!), 30),
      ...link.receive(frame(2, parts[1]!), 40), // the same for the end frame
      ...link.receive(b(EOT), 50),
    ];
    assert.deepEqual(writes(actions), b(ACK, ACK, ACK, ACK));
    assert.deepEqual(messages(actions), [latin1(MSG)]);
    assert.equal(ofType(actions, 'warning').filter((w) => /again/.test(w.text)).length, 2);
  });

  it('frame numbers wrap from 7 to 0 (§6.3.2.1), even with strictFrameNumbers', () => {
    const link = receiving({ strictFrameNumbers: true });
    const records = ['H|\\^&\r', 'P|1\r', 'O|1|S1\r', 'R|1|^^^A|1\r', 'R|2|^^^B|2\r', 'R|3|^^^C|3\r', 'R|4|^^^D|4\r', 'R|5|^^^E|5\r', 'R|6|^^^F|6\r', 'L|1|N\r'];
    const fns = records.map((_, i) => (i + 1) % 8);
    assert.deepEqual(fns, [1, 2, 3, 4, 5, 6, 7, 0, 1, 2]);
    const actions = records.flatMap((r, i) => link.receive(frame(fns[i]!, r, i === records.length - 1 ? ETX : ETB), i));
    assert.deepEqual(writes(actions), Buffer.alloc(records.length, ACK));
    assert.deepEqual(messages(actions), [latin1(records.join(''))]);
  });

  it('strictFrameNumbers NAKs a frame number out of sequence; the default accepts it with one warning', () => {
    const strict = receiving({ strictFrameNumbers: true });
    assert.deepEqual(writes(strict.receive(frame(1, 'H|\\^&\r', ETB), 1)), b(ACK));
    assert.deepEqual(writes(strict.receive(frame(4, 'P|1\r', ETB), 2)), b(NAK));
    assert.deepEqual(writes(strict.receive(frame(2, 'P|1\r', ETB), 3)), b(ACK));

    const lenient = receiving();
    const actions = [
      ...lenient.receive(frame(1, 'H|\\^&\r', ETB), 1),
      ...lenient.receive(frame(4, 'P|1\r', ETB), 2),
      ...lenient.receive(frame(1, 'O|1|S1\r', ETB), 3),
      ...lenient.receive(frame(1, 'L|1|N\r'), 4),
    ];
    assert.deepEqual(writes(actions), b(ACK, ACK, ACK, ACK));
    assert.deepEqual(messages(actions), [latin1('H|\\^&\rP|1\rO|1|S1\rL|1|N\r')]);
    assert.equal(ofType(actions, 'warning').filter((w) => /frame number/.test(w.text)).length, 1);
  });

  it('after our NAK only a repeat of that frame is taken, even with lenient frame numbers', () => {
    const link = receiving();
    const parts = [MSG.slice(0, 20), MSG.slice(20, 40), MSG.slice(40)];
    const bad = frame(2, parts[1]!, ETB);
    bad[4] = 0x7e; // garbled in transit
    const actions = [
      ...link.receive(frame(1, parts[0]!, ETB), 10),
      ...link.receive(bad, 20), // NAK
      ...link.receive(frame(3, parts[2]!), 30), // the sender took our NAK for an ACK and moved on
      ...link.receive(frame(2, parts[1]!, ETB), 40), // it repeats frame 2 after all
      ...link.receive(frame(3, parts[2]!), 50),
    ];
    assert.deepEqual(writes(actions), b(ACK, NAK, NAK, ACK, ACK));
    assert.deepEqual(messages(actions), [latin1(MSG)], 'no hole in the message');
  });

  it('a NAKed frame with an irregular number (Yumizen style) is taken when repeated with the same number', () => {
    const link = receiving();
    const bad = frame(1, 'M|1|histogram\r', ETB);
    bad[6] = 0x7e;
    const actions = [
      ...link.receive(frame(1, 'H|\\^&\r', ETB), 10),
      ...link.receive(frame(2, 'P|1\r', ETB), 20),
      ...link.receive(bad, 30), // frame number 1 where 3 was due, and garbled
      ...link.receive(frame(1, 'M|1|histogram\r', ETB), 40),
      ...link.receive(frame(4, 'L|1|N\r'), 50),
    ];
    assert.deepEqual(writes(actions), b(ACK, ACK, NAK, ACK, ACK));
    assert.deepEqual(messages(actions), [latin1('H|\\^&\rP|1\rM|1|histogram\rL|1|N\r')]);
  });

  it('skips stray bytes before STX and between frames (§6.5.1.1)', () => {
    const link = receiving();
    const junk = b(ACK, ACK, 0xff, CR, LF, 0x00, 0x41);
    const actions = link.receive(Buffer.concat([junk, frame(1, MSG.slice(0, 20), ETB), junk, frame(2, MSG.slice(20)), junk, b(EOT)]), 10);
    assert.deepEqual(writes(actions), b(ACK, ACK));
    assert.deepEqual(messages(actions), [latin1(MSG)]);
  });

  it('accepts a 26,645-character frame and NAKs one larger than maxReceiveFrame', () => {
    const text = 'H|\\^&\rM|1|' + 'A'.repeat(26_645 - 'H|\\^&\rM|1|'.length - 'L|1|N\r'.length - 1) + '\rL|1|N\r';
    assert.equal(text.length, 26_645);
    const link = receiving();
    const big = frame(1, text);
    let actions: LinkAction[] = [];
    for (let i = 0; i < big.length; i += 1000) actions = actions.concat(link.receive(big.subarray(i, i + 1000), 10 + i));
    assert.deepEqual(writes(actions), b(ACK));
    assert.deepEqual(messages(actions), [latin1(text)]);

    const small = receiving({ maxReceiveFrame: 1000 });
    const over = small.receive(frame(1, 'H|' + 'x'.repeat(1000) + '\rL|1\r'), 10);
    assert.deepEqual(writes(over), b(NAK));
    assert.match(ofType(over, 'warning')[0]!.text, /exceeds/);
  });

  it('NAKs the frame that makes a message larger than maxMessageBytes, and names the setting when the sender gives up', () => {
    const link = receiving({ maxMessageBytes: 1024 });
    const record = (n: number) => `R|${n}|^^^GLU|${'5'.repeat(300)}\r`;
    let fn = 1;
    const acks: Buffer[] = [];
    acks.push(writes(link.receive(frame(fn++ % 8, 'H|\\^&\rP|1\rO|1|S1||^^^GLU\r', ETB), 10)));
    for (let n = 1; n <= 3; n++) acks.push(writes(link.receive(frame(fn++ % 8, record(n), ETB), 10 + n)));
    assert.deepEqual(Buffer.concat(acks), b(ACK, ACK, ACK, ACK), 'under the limit every frame is taken');
    const overFn = fn % 8;
    const over = link.receive(frame(overFn, record(4), ETB), 20);
    assert.deepEqual(writes(over), b(NAK));
    assert.match(ofType(over, 'warning')[0]!.text, /larger than 1024 bytes \(Largest message\)/);
    // The sender repeats the frame (still too large), then aborts the transfer.
    assert.deepEqual(writes(link.receive(frame(overFn, record(4), ETB), 21)), b(NAK));
    const end = link.receive(b(EOT), 22);
    assert.deepEqual(messages(end), [], 'nothing of the refused message is delivered');
    const discarded = ofType(end, 'discarded');
    assert.equal(discarded.length, 1);
    assert.match(discarded[0]!.reason, /larger than 1024 bytes, refused with NAK: raise Largest message \(bytes\)/);
    // The next transfer starts clean and a message within the limit goes through.
    assert.deepEqual(writes(link.receive(b(ENQ), 30)), b(ACK));
    const next = link.receive(frame(1, MSG), 31);
    assert.deepEqual(writes(next), b(ACK));
    assert.deepEqual(messages(next), [latin1(MSG)]);
  });

  it('keeps latin-1 bytes as they are: Müller with ü = 0xFC, checksum over the raw byte', () => {
    const text = 'H|\\^&\rP|1||||M\xfcller^J\xf6rg\rL|1|N\r';
    const f = frame(1, text);
    // by hand: the checksum sums 0xFC and 0xF6 as the bytes they are
    const expected = [...latin1('1' + text)].reduce((s, x) => s + x, ETX) % 256;
    assert.equal(f.subarray(f.length - 4, f.length - 2).toString('latin1'), expected.toString(16).toUpperCase().padStart(2, '0'));
    const link = receiving();
    const actions = link.receive(f, 10);
    assert.deepEqual(writes(actions), b(ACK));
    const [m] = messages(actions);
    assert.ok(m);
    assert.equal(m.indexOf(0xfc), text.indexOf('\xfc'));
    assert.deepEqual(m, latin1(text));
  });

  it('delivers every message of one transfer once, two messages in one end frame included', () => {
    const second = MSG.replace('S1', 'S2');
    const third = MSG.replace('S1', 'S3');
    const link = receiving();
    const actions = [
      ...link.receive(frame(1, MSG), 10),
      ...link.receive(frame(2, second + third), 20), // against §6.3.1.1, still told apart
      ...link.receive(b(EOT), 30),
    ];
    assert.deepEqual(messages(actions), [latin1(MSG), latin1(second), latin1(third)]);
    assert.deepEqual(ofType(actions, 'message').map((m) => m.id), ['rx-1', 'rx-2', 'rx-3']);
  });

  it('one record per end frame (Pentra XLR style) is one message, complete at the L record', () => {
    const records = MSG.split('\r').filter(Boolean).map((r) => r + '\r');
    const link = receiving();
    const actions = records.flatMap((r, i) => link.receive(frame(i + 1, r), i));
    assert.deepEqual(writes(actions), Buffer.alloc(records.length, ACK));
    assert.deepEqual(messages(actions), [latin1(MSG)]);
  });

  it('EOT right after an intermediate (ETB) frame: the partial message is discarded', () => {
    const link = receiving();
    link.receive(frame(1, MSG.slice(0, 30), ETB), 10);
    const actions = link.receive(b(EOT), 20);
    assert.deepEqual(messages(actions), []);
    const [d] = ofType(actions, 'discarded');
    assert.ok(d);
    assert.deepEqual(d.bytes, latin1(MSG.slice(0, 30)));
    assert.match(d.reason, /intermediate/);
    assert.equal(ofType(actions, 'warning').length, 1);
    assert.equal(link.state, 'idle');
  });

  it('a message without L record is delivered at a clean EOT, or when the next H record begins', () => {
    const noL = 'H|\\^&\rP|1\rO|1|S1\rR|1|^^^A|1\r';
    const link = receiving();
    const actions = [
      ...link.receive(frame(1, 'H|\\^&\r'), 10),
      ...link.receive(frame(2, 'P|1\rO|1|S1\rR|1|^^^A|1\r'), 20),
      ...link.receive(frame(3, 'H|\\^&\r'), 30), // the next message starts
      ...link.receive(frame(4, 'P|2\r'), 40),
    ];
    assert.deepEqual(messages(actions), [latin1(noL)]);
    assert.equal(ofType(actions, 'message')[0]!.end, 'nextHeader');
    const end = link.receive(b(EOT), 50);
    assert.deepEqual(messages(end), [latin1('H|\\^&\rP|2\r')]);
    assert.equal(ofType(end, 'message')[0]!.end, 'eot');
  });

  it('a message without L record is discarded when the EOT follows a NAK, comes late, or terminatorRequired is on', () => {
    const noL = 'H|\\^&\rP|1\r';
    const afterNak = receiving();
    afterNak.receive(frame(1, noL), 10);
    afterNak.receive(Buffer.from(frame(2, 'O|1\r').map((x, i) => (i === 3 ? 0x5a : x))), 20); // garbled -> NAK
    const a1 = afterNak.receive(b(EOT), 30); // the sender gave up
    assert.deepEqual(messages(a1), []);
    assert.match(ofType(a1, 'discarded')[0]!.reason, /rejected frame/);

    const late = receiving();
    late.receive(frame(1, noL), 10);
    const a2 = late.receive(b(EOT), 10 + 15_000); // only after the sender's 15 s reply time-out
    assert.deepEqual(messages(a2), []);
    assert.match(ofType(a2, 'discarded')[0]!.reason, /time-out/);

    const strict = receiving({ terminatorRequired: true });
    strict.receive(frame(1, noL), 10);
    const a3 = strict.receive(b(EOT), 20);
    assert.deepEqual(messages(a3), []);
    assert.deepEqual(ofType(a3, 'discarded')[0]!.bytes, latin1(noL));
  });

  it('receiver time-out mid-message: discarded, warning, nothing delivered, and the next transfer works', () => {
    const link = receiving({}, 0);
    link.receive(frame(1, MSG.slice(0, 25), ETB), 1_000);
    assert.equal(link.nextDeadline(), 31_000, '30 s from our last reply');
    assert.deepEqual(link.tick(30_999).filter((a) => a.type !== 'state'), []);
    const out = link.tick(31_000);
    assert.deepEqual(messages(out), []);
    assert.deepEqual(writes(out), b(), 'the receiver writes nothing on its time-out');
    assert.deepEqual(ofType(out, 'discarded')[0]!.bytes, latin1(MSG.slice(0, 25)));
    assert.ok(ofType(out, 'warning').length >= 1);
    assert.equal(link.state, 'idle');
    assert.equal(link.nextDeadline(), null);

    // the late end frame of the broken transfer is ignored: the line is neutral
    assert.deepEqual(link.receive(frame(2, MSG.slice(25)), 32_000), []);
    // the instrument repeats the whole message in a new transfer
    const again = [
      ...link.receive(b(ENQ), 40_000),
      ...link.receive(frame(1, MSG.slice(0, 25), ETB), 40_100),
      ...link.receive(frame(2, MSG.slice(25)), 40_200),
      ...link.receive(b(EOT), 40_300),
    ];
    assert.deepEqual(writes(again), b(ACK, ACK, ACK));
    assert.deepEqual(messages(again), [latin1(MSG)]);
  });

  it('a long frame still arriving keeps the receive timer from firing', () => {
    const link = receiving({}, 0);
    const text = 'H|\\^&\rM|1|' + 'x'.repeat(3000) + '\rL|1|N\r';
    const big = frame(1, text);
    // 25 s between reads, 70 s in all (a 64,000-character frame takes 67 s at 9600 baud)
    link.receive(big.subarray(0, 1000), 25_000);
    assert.equal(link.nextDeadline(), 55_000);
    link.receive(big.subarray(1000, 2000), 50_000);
    assert.deepEqual(link.tick(60_000).filter((a) => a.type === 'discarded'), []);
    const end = link.receive(big.subarray(2000), 70_000);
    assert.deepEqual(writes(end), b(ACK));
    assert.deepEqual(messages(end), [latin1(text)]);
  });

  it('junk between frames does not keep the receive timer alive', () => {
    const link = receiving({}, 0);
    link.receive(latin1('\r\n??'), 20_000);
    assert.equal(link.nextDeadline(), 30_000);
  });

  it('an ENQ inside a transfer is ignored: the message in progress goes on', () => {
    const link = receiving();
    link.receive(frame(1, MSG.slice(0, 10), ETB), 10);
    const actions = link.receive(b(ENQ), 20);
    assert.deepEqual(writes(actions), b());
    assert.equal(ofType(actions, 'warning').length, 1);
    const rest = link.receive(frame(2, MSG.slice(10)), 30);
    assert.deepEqual(messages(rest), [latin1(MSG)]);
  });

  it('text that does not begin with an H record is reported, never delivered', () => {
    const link = receiving();
    const actions = link.receive(frame(1, 'R|1|^^^GLU|5.5\rL|1|N\r'), 10);
    assert.deepEqual(writes(actions), b(ACK));
    assert.deepEqual(messages(actions), []);
    assert.match(ofType(actions, 'discarded')[0]!.reason, /H record/);
  });

  it('an EOT inside a frame aborts it and the partial message', () => {
    const link = receiving();
    link.receive(frame(1, MSG.slice(0, 10), ETB), 10);
    const half = frame(2, MSG.slice(10));
    const actions = link.receive(Buffer.concat([half.subarray(0, 12), b(EOT)]), 20);
    assert.deepEqual(writes(actions), b());
    assert.equal(ofType(actions, 'discarded').length, 1);
    assert.equal(link.state, 'idle');
  });
});

// ---------- holdFinalAck ----------

describe('link layer: holdFinalAck', () => {
  it('withholds the ACK of the frame that completes a message until confirmStored', () => {
    const link = receiving({ holdFinalAck: true });
    const a1 = link.receive(frame(1, MSG.slice(0, 30), ETB), 10);
    assert.deepEqual(writes(a1), b(ACK), 'intermediate frames are ACKed at once');
    const a2 = link.receive(frame(2, MSG.slice(30)), 20);
    assert.deepEqual(writes(a2), b(), 'no ACK yet');
    const [m] = ofType(a2, 'message');
    assert.ok(m);
    assert.equal(m.held, true);
    assert.deepEqual(m.bytes, latin1(MSG));
    assert.deepEqual(link.awaitingConfirmation, [m.id]);

    const wrong = link.confirmStored('rx-99', 30);
    assert.deepEqual(writes(wrong), b());
    assert.equal(ofType(wrong, 'warning').length, 1);

    const ok = link.confirmStored(m.id, 40);
    assert.deepEqual(writes(ok), b(ACK));
    assert.deepEqual(link.awaitingConfirmation, []);
    assert.deepEqual(writes(link.confirmStored(m.id, 50)), b(), 'a second confirmation writes nothing');
    assert.deepEqual(link.receive(b(EOT), 60).filter((a) => a.type === 'message' || a.type === 'write'), []);
  });

  it('the receive timer still runs while holding; a late confirmation writes nothing', () => {
    const link = receiving({ holdFinalAck: true }, 0);
    const [m] = ofType(link.receive(frame(1, MSG), 1_000), 'message');
    assert.ok(m);
    assert.equal(link.nextDeadline(), 31_000);
    const out = link.tick(31_000);
    assert.equal(link.state, 'idle');
    assert.ok(ofType(out, 'warning').some((w) => w.text.includes(m.id)));
    assert.deepEqual(ofType(out, 'discarded'), [], 'the message was delivered already; nothing partial remains');
    assert.deepEqual(writes(link.confirmStored(m.id, 32_000)), b());
  });

  it('a retransmission of the held frame does not deliver it again; one ACK answers it', () => {
    const link = receiving({ holdFinalAck: true });
    const first = link.receive(frame(1, MSG), 10);
    const copy = link.receive(frame(1, MSG), 15_010);
    assert.equal(messages(first).length, 1);
    assert.deepEqual(copy.filter((a) => a.type === 'message' || a.type === 'write'), []);
    assert.deepEqual(writes(link.confirmStored('rx-1', 15_020)), b(ACK));
  });

  it('rejectStored NAKs the frame, so the retransmission is delivered again under a new id', () => {
    const link = receiving({ holdFinalAck: true });
    link.receive(frame(1, MSG.slice(0, 30), ETB), 10);
    link.receive(frame(2, MSG.slice(30)), 20);
    assert.deepEqual(writes(link.rejectStored('rx-1', 30)), b(NAK));
    const again = link.receive(frame(2, MSG.slice(30)), 40);
    assert.deepEqual(ofType(again, 'message').map((m) => [m.id, m.bytes.toString('latin1')]), [['rx-2', MSG]]);
    assert.deepEqual(writes(link.confirmStored('rx-2', 50)), b(ACK));
  });

  it('ACKs at once a message storedBeforeAck exempts, and holds a frame while any message it completed waits', () => {
    const query = 'H|\\^&\rQ|1|^S1||ALL\rL|1|N\r';
    const storedBeforeAck = (bytes: Uint8Array) => !Buffer.from(bytes).toString('latin1').includes('\rQ|');
    const link = receiving({ holdFinalAck: true, storedBeforeAck });
    const q = link.receive(frame(1, query), 10);
    assert.deepEqual(writes(q), b(ACK));
    assert.deepEqual(ofType(q, 'message').map((m) => [m.bytes.toString('latin1'), m.held]), [[query, false]]);
    assert.deepEqual(link.awaitingConfirmation, []);
    const r = link.receive(frame(2, MSG), 20);
    assert.deepEqual(writes(r), b());
    assert.deepEqual(ofType(r, 'message').map((m) => m.held), [true]);
    assert.deepEqual(writes(link.confirmStored('rx-2', 30)), b(ACK));

    // One frame completing a query and a result message: held for the result message alone.
    const both = receiving({ holdFinalAck: true, storedBeforeAck, terminatorRequired: true });
    const out = both.receive(frame(1, query + MSG), 10);
    assert.deepEqual(writes(out), b());
    assert.deepEqual(ofType(out, 'message').map((m) => [m.id, m.held]), [['rx-1', false], ['rx-2', true]]);
    assert.deepEqual(both.awaitingConfirmation, ['rx-2']);
    assert.deepEqual(writes(both.confirmStored('rx-2', 20)), b(ACK));
  });

  it('EOT before confirmation: warned, nothing ACKed later', () => {
    const link = receiving({ holdFinalAck: true });
    link.receive(frame(1, MSG), 10);
    const out = link.receive(b(EOT), 20);
    assert.ok(ofType(out, 'warning').some((w) => /never ACKed/.test(w.text)));
    assert.deepEqual(writes(link.confirmStored('rx-1', 30)), b());
  });
});

// ---------- sending ----------

describe('link layer: sending', () => {
  it('ENQ, frames, EOT: each frame waits for its ACK; sent after the last', () => {
    const link = new AstmLink({ frameTextMax: 30 });
    const a0 = link.send(latin1(MSG), 'm1', 0);
    assert.deepEqual(writes(a0), b(ENQ));
    assert.equal(link.state, 'establishing');
    assert.equal(link.nextDeadline(), 15_000);
    const frames: Buffer[] = [];
    let reply = link.receive(b(ACK), 10);
    let now = 10;
    while (ofType(reply, 'sent').length === 0) {
      const w = writes(reply);
      assert.equal(w[0], STX);
      frames.push(w);
      assert.equal(link.state, 'waitingAck');
      now += 10;
      reply = link.receive(b(ACK), now);
    }
    assert.deepEqual(writes(reply), b(EOT));
    assert.deepEqual(ofType(reply, 'sent'), [{ type: 'sent', id: 'm1' }]);
    assert.equal(link.state, 'idle');
    assert.equal(frames.length, Math.ceil(MSG.length / 30));
    const parsed = frames.map((f) => parseFrame(f));
    assert.ok(parsed.every((p) => p.ok));
    assert.deepEqual(parsed.map((p) => (p.ok ? p.fn : -1)), frames.map((_, i) => (i + 1) % 8));
    assert.deepEqual(Buffer.concat(parsed.map((p) => (p.ok ? p.text : b()))), latin1(MSG));
  });

  it('splits a 1000-character message into 240-character frames that a second link rejoins byte for byte', () => {
    let text = 'H|\\^&|||LIS\r';
    for (let i = 1; text.length < 1000 - 'L|1|N\r'.length; i++) text += `R|${i}|^^^T${i}|${i}.5|u|||N||F\r`;
    text = text.slice(0, 1000 - 'L|1|N\r'.length - 1) + '\rL|1|N\r';
    assert.equal(text.length, 1000);
    const wire = new Wire(new AstmLink(), new AstmLink());
    wire.feed('a', wire.a.send(latin1(text), 'big', 0));
    const frames = wire.bytes.filter((x) => x.side === 'a' && x.bytes[0] === STX).map((x) => x.bytes);
    assert.deepEqual(frames.map((f) => f.length - 7), [240, 240, 240, 240, 40]);
    assert.deepEqual(frames.map((f) => f[f.length - 5]), [ETB, ETB, ETB, ETB, ETX]);
    assert.deepEqual(messages(wire.actions('b')), [latin1(text)]);
    assert.deepEqual(ofType(wire.actions('a'), 'sent').map((s) => s.id), ['big']);
    assert.equal(wire.a.state, 'idle');
    assert.equal(wire.b.state, 'idle');
  });

  it('latin-1 both ways: our checksums count 0xFC as 252, and the peer gets the bytes unchanged', () => {
    const text = 'H|\\^&\rP|1||||M\xfcller^J\xf6rg\rL|1|N\r';
    const wire = new Wire(new AstmLink(), new AstmLink());
    wire.feed('a', wire.a.send(latin1(text), 'p', 0));
    const [f] = wire.bytes.filter((x) => x.side === 'a' && x.bytes[0] === STX).map((x) => x.bytes);
    assert.ok(f);
    assert.deepEqual(f, frame(1, text), 'the same bytes as the hand-made frame');
    assert.deepEqual(messages(wire.actions('b')), [latin1(text)]);
  });

  it('a frame NAKed six times: abort with EOT; with maxSendAttempts 1 the message fails', () => {
    const { link, first } = waitingOnFrame(MSG, { maxSendAttempts: 1 });
    const sent = [first];
    let out: LinkAction[] = [];
    for (let i = 1; i <= 6; i++) {
      out = link.receive(b(NAK), 100 + i);
      if (i < 6) sent.push(writes(out));
    }
    assert.equal(sent.length, 6, 'one transmission and five retransmissions (§6.5.1.2)');
    assert.ok(sent.every((s) => s.equals(first)), 'the same frame, same number');
    assert.deepEqual(writes(out), b(EOT));
    assert.equal(ofType(out, 'sendFailed').length, 1);
    assert.match(ofType(out, 'sendFailed')[0]!.reason, /not accepted after 6 transmissions/);
    assert.equal(link.state, 'idle');
    assert.equal(link.queueLength, 0);
  });

  it('by default the whole message is repeated after an abort, then given up after maxSendAttempts', () => {
    const { link } = waitingOnFrame(MSG, { maxSendAttempts: 2 });
    let out: LinkAction[] = [];
    for (let i = 1; i <= 6; i++) out = link.receive(b(NAK), 200 + i);
    assert.deepEqual(writes(out), b(EOT));
    assert.deepEqual(ofType(out, 'sendFailed'), []);
    assert.ok(ofType(out, 'warning').some((w) => /sent again/.test(w.text)));
    assert.equal(link.state, 'busyWait');
    assert.equal(link.nextDeadline(), 206 + 10_000);
    assert.deepEqual(writes(link.tick(10_205)), b());
    assert.deepEqual(writes(link.tick(10_206)), b(ENQ));
    const f1 = parseFrame(writes(link.receive(b(ACK), 10_300)));
    assert.ok(f1.ok);
    assert.equal(f1.fn, 1, 'a new transfer starts at frame 1');
    for (let i = 1; i <= 6; i++) out = link.receive(b(NAK), 10_400 + i);
    assert.deepEqual(ofType(out, 'sendFailed').map((f) => f.id), ['m1']);
  });

  it('any reply other than ACK or EOT is a NAK condition; bytes read with the ACK cannot answer the next frame', () => {
    const { link, first } = waitingOnFrame(MSG.repeat(2), { frameTextMax: 40 });
    assert.deepEqual(writes(link.receive(latin1('?'), 200)), first, 'junk -> retransmission');
    const next = link.receive(Buffer.concat([b(ACK), latin1('\r\n')]), 300);
    const w = writes(next);
    assert.equal(w[0], STX);
    assert.equal(w[1], 0x32, 'frame 2 sent once; the CR LF read with the ACK are not its reply');
    assert.equal(link.state, 'waitingAck');
  });

  it('ENQ answered with NAK: busy, next ENQ after 10 s (§6.2.6)', () => {
    const link = new AstmLink();
    link.send(latin1(MSG), 'm1', 0);
    const out = link.receive(b(NAK), 500);
    assert.deepEqual(writes(out), b());
    assert.equal(link.state, 'busyWait');
    assert.equal(link.nextDeadline(), 10_500);
    assert.deepEqual(writes(link.tick(10_499)), b());
    assert.deepEqual(writes(link.tick(10_500)), b(ENQ));
    assert.equal(link.state, 'establishing');
    // the instrument may still send while we wait: a busy wait is a neutral line
    const l2 = new AstmLink();
    l2.send(latin1(MSG), 'm1', 0);
    l2.receive(b(NAK), 500);
    assert.deepEqual(writes(l2.receive(b(ENQ), 600)), b(ACK));
  });

  it('no reply to our ENQ: EOT, line neutral, ENQ again after retryDelayMs', () => {
    const link = new AstmLink({ maxSendAttempts: 2 });
    link.send(latin1(MSG), 'm1', 0);
    assert.deepEqual(link.tick(14_999).filter((a) => a.type === 'write'), []);
    const out = link.tick(15_000);
    assert.deepEqual(writes(out), b(EOT));
    assert.ok(ofType(out, 'warning').some((w) => /no reply to ENQ/.test(w.text)));
    assert.equal(link.state, 'busyWait');
    assert.equal(link.nextDeadline(), 25_000);
    assert.deepEqual(writes(link.tick(25_000)), b(ENQ));
    const last = link.tick(40_000);
    assert.deepEqual(writes(last), b(EOT));
    assert.deepEqual(ofType(last, 'sendFailed').map((f) => f.id), ['m1']);
    assert.equal(link.state, 'idle');
  });

  it('no reply to a frame: abort with EOT (§6.5.2.3), then the whole message again from ENQ', () => {
    const { link } = waitingOnFrame(MSG, { frameTextMax: 30 });
    link.receive(b(ACK), 200); // frame 2 out
    assert.equal(link.nextDeadline(), 15_200);
    const out = link.tick(15_200);
    assert.deepEqual(writes(out), b(EOT));
    assert.equal(link.queueLength, 1, 'remembered to be repeated');
    assert.deepEqual(writes(link.tick(25_200)), b(ENQ));
    const f = parseFrame(writes(link.receive(b(ACK), 25_300)));
    assert.ok(f.ok);
    assert.equal(f.fn, 1);
    assert.deepEqual(f.text, latin1(MSG.slice(0, 30)));
  });

  it('receiver interrupt (EOT for ACK) in mid-message: we terminate, hold 15 s, and repeat the whole message', () => {
    const { link } = waitingOnFrame(MSG, { frameTextMax: 20 });
    link.receive(b(ACK), 200); // frame 2 of 3 out
    const out = link.receive(b(EOT), 300);
    assert.deepEqual(writes(out), b(EOT), 'the termination phase first (§6.3.5.3)');
    assert.deepEqual(ofType(out, 'sent'), []);
    assert.deepEqual(ofType(out, 'sendFailed'), []);
    assert.equal(link.state, 'busyWait');
    assert.equal(link.nextDeadline(), 15_300);
    assert.deepEqual(writes(link.tick(15_299)), b());
    assert.deepEqual(writes(link.tick(15_300)), b(ENQ));
    assert.equal(parseFrame(writes(link.receive(b(ACK), 15_400))).ok, true);
  });

  it('receiver interrupt: the hold ends early once the instrument has sent its message', () => {
    const { link } = waitingOnFrame(MSG, { frameTextMax: 30 });
    link.receive(b(EOT), 200);
    assert.equal(link.state, 'busyWait');
    const got = [
      ...link.receive(b(ENQ), 1_000),
      ...link.receive(frame(1, MSG.replace('S1', 'X9')), 1_100),
    ];
    assert.deepEqual(writes(got), b(ACK, ACK));
    assert.equal(messages(got).length, 1);
    assert.deepEqual(writes(link.receive(b(EOT), 1_200)), b(ENQ), 'our message goes out at once');
  });

  it('receiver interrupt on the last frame: the message is sent; we still terminate and hold', () => {
    const { link } = waitingOnFrame(MSG);
    link.send(latin1(MSG.replace('S1', 'S2')), 'm2', 150);
    const out = link.receive(b(EOT), 200);
    assert.deepEqual(writes(out), b(EOT));
    assert.deepEqual(ofType(out, 'sent').map((s) => s.id), ['m1']);
    assert.equal(link.queueLength, 1);
    assert.equal(link.nextDeadline(), 15_200);
    assert.deepEqual(writes(link.tick(15_200)), b(ENQ));
  });

  it('refuses to send what §6.6 forbids, an empty message, or one without its final CR', () => {
    const link = new AstmLink();
    const lf = link.send(latin1('H|\\^&\nL|1\r'), 'lf', 0);
    assert.match(ofType(lf, 'sendFailed')[0]!.reason, /0x0A/);
    assert.deepEqual(ofType(link.send(b(), 'empty', 0), 'sendFailed').map((f) => f.id), ['empty']);
    assert.match(ofType(link.send(latin1('H|\\^&\rL|1'), 'nocr', 0), 'sendFailed')[0]!.reason, /CR/);
    assert.equal(link.queueLength, 0);
    assert.equal(link.state, 'idle');
  });

  it('queues messages and sends one per transfer, in order', () => {
    const wire = new Wire(new AstmLink(), new AstmLink());
    const msgs = [MSG, MSG.replace('S1', 'S2'), MSG.replace('S1', 'S3')];
    const actions = msgs.flatMap((m, i) => wire.a.send(latin1(m), `m${i}`, 0));
    assert.deepEqual(writes(actions), b(ENQ), 'one ENQ; the others wait');
    wire.feed('a', actions);
    wire.settle();
    assert.deepEqual(ofType(wire.actions('a'), 'sent').map((s) => s.id), ['m0', 'm1', 'm2']);
    assert.deepEqual(messages(wire.actions('b')).map((m) => m.toString('latin1')), msgs);
    assert.equal(wire.bytes.filter((x) => x.side === 'a' && x.bytes[0] === ENQ).length, 3);
  });

  it('framePerRecord: each record starts a frame; ETB after all but the last (or ETX with recordFrameEnd)', () => {
    const wire = new Wire(new AstmLink({ framePerRecord: true, frameTextMax: 20 }), new AstmLink());
    wire.feed('a', wire.a.send(latin1(MSG), 'r', 0));
    const frames = wire.bytes.filter((x) => x.side === 'a' && x.bytes[0] === STX).map((x) => parseFrame(x.bytes));
    const texts = frames.map((f) => (f.ok ? f.text.toString('latin1') : '?'));
    // the cut leaves 'L\r' at the start of a frame: a piece of a record, not an L record
    assert.deepEqual(texts, ['H|\\^&|||LIS\r', 'P|1\r', 'O|1|S1||^^^GLU\r', 'R|1|^^^GLU|5.5|mmol/', 'L\r', 'L|1|N\r']);
    assert.deepEqual(frames.map((f) => (f.ok ? f.end : '?')), ['ETB', 'ETB', 'ETB', 'ETB', 'ETB', 'ETX']);
    assert.deepEqual(messages(wire.actions('b')), [latin1(MSG)]);

    const etx = new Wire(new AstmLink({ framePerRecord: true, recordFrameEnd: 'ETX' }), new AstmLink());
    etx.feed('a', etx.a.send(latin1(MSG), 'r', 0));
    const ends = etx.bytes.filter((x) => x.side === 'a' && x.bytes[0] === STX).map((x) => parseFrame(x.bytes)).map((f) => (f.ok ? f.end : '?'));
    assert.deepEqual(ends, ['ETX', 'ETX', 'ETX', 'ETX', 'ETX']);
    assert.deepEqual(messages(etx.actions('b')), [latin1(MSG)], 'our receiver still waits for the L record');
  });

  it('checksums off: frames carry no C1 C2, and a peer with checksums off reads them', () => {
    const wire = new Wire(new AstmLink({ checksums: false }), new AstmLink({ checksums: false }));
    wire.feed('a', wire.a.send(latin1(MSG), 'n', 0));
    const [f] = wire.bytes.filter((x) => x.side === 'a' && x.bytes[0] === STX).map((x) => x.bytes);
    assert.deepEqual(f, Buffer.concat([b(STX), latin1('1' + MSG), b(ETX, CR, LF)]));
    assert.deepEqual(messages(wire.actions('b')), [latin1(MSG)]);
  });
});

// ---------- contention ----------

describe('link layer: contention (§6.2.7.1)', () => {
  it('both ENQ: we yield, ACK the instrument\'s next ENQ, take its message, then send ours', () => {
    const link = new AstmLink();
    assert.deepEqual(writes(link.send(latin1(MSG), 'ours', 0)), b(ENQ));
    const collision = link.receive(b(ENQ), 10);
    assert.deepEqual(writes(collision), b(), 'the colliding ENQ is never answered');
    assert.equal(link.state, 'contention');
    assert.equal(link.nextDeadline(), 20_010);
    // the instrument waits at least 1 s, then ENQ again
    assert.deepEqual(writes(link.receive(b(ENQ), 1_010)), b(ACK));
    assert.equal(link.state, 'receiving');
    const theirs = MSG.replace('S1', 'INSTR');
    const got = link.receive(frame(1, theirs), 1_100);
    assert.deepEqual(messages(got), [latin1(theirs)]);
    const end = link.receive(b(EOT), 1_200);
    assert.deepEqual(writes(end), b(ENQ), 'our message goes out after theirs');
    assert.equal(link.state, 'establishing');
  });

  it('no ENQ from the instrument within 20 s: the line is neutral and our message goes out', () => {
    const link = new AstmLink();
    link.send(latin1(MSG), 'ours', 0);
    link.receive(b(ENQ), 10);
    assert.deepEqual(link.receive(latin1('junk'), 5_000).filter((a) => a.type === 'write'), [], 'all but ENQ ignored');
    assert.deepEqual(writes(link.tick(20_009)), b());
    const out = link.tick(20_010);
    assert.ok(ofType(out, 'warning').some((w) => /contention/.test(w.text)));
    assert.deepEqual(writes(out), b(ENQ));
    assert.equal(ofType(out, 'sendFailed').length, 0);
    const f = writes(link.receive(b(ACK), 20_100));
    assert.equal(f[0], STX);
  });

  it('an ENQ echoed back on the line (contention nobody follows up) ends in sendFailed, not a loop', () => {
    const link = new AstmLink({ maxSendAttempts: 3 });
    let now = 0;
    let out = link.send(latin1(MSG), 'echoed', now);
    const failed: string[] = [];
    for (let i = 0; i < 10 && failed.length === 0; i++) {
      link.receive(writes(out), now); // the line echoes our ENQ
      assert.equal(link.state, 'contention');
      now = link.nextDeadline()!;
      out = link.tick(now);
      failed.push(...ofType(out, 'sendFailed').map((f) => f.id));
    }
    assert.deepEqual(failed, ['echoed']);
    assert.equal(now, 60_000, 'three contentions of 20 s');
  });

  it('computer and instrument links collide: the instrument goes first, then the computer', () => {
    const computer = new AstmLink();
    const instrument = new AstmLink({ role: 'instrument', messageIdPrefix: 'inst' });
    const wire = new Wire(computer, instrument);
    const c = computer.send(latin1(MSG.replace('S1', 'ORDER')), 'order', 0);
    const i = instrument.send(latin1(MSG.replace('S1', 'RESULT')), 'result', 0);
    // both ENQs cross on the wire
    wire.log.push(...c.map((action) => ({ side: 'a' as const, action })), ...i.map((action) => ({ side: 'b' as const, action })));
    const cr = computer.receive(writes(i), 0);
    const ir = instrument.receive(writes(c), 0);
    assert.equal(computer.state, 'contention');
    assert.equal(instrument.state, 'contention');
    wire.feed('a', cr);
    wire.feed('b', ir);
    wire.settle();
    const computerGot = messages(wire.actions('a')).map((m) => m.toString('latin1'));
    const instrumentGot = messages(wire.actions('b')).map((m) => m.toString('latin1'));
    assert.deepEqual(computerGot, [MSG.replace('S1', 'RESULT')]);
    assert.deepEqual(instrumentGot, [MSG.replace('S1', 'ORDER')]);
    const order = wire.log.flatMap((x) => (x.action.type === 'sent' ? [x.action.id] : []));
    assert.deepEqual(order, ['result', 'order'], 'the instrument has priority');
  });
});

// ---------- robustness ----------

describe('link layer: robustness', () => {
  it('never throws on random bytes in any state, and stays in a known state', () => {
    let seed = 12345;
    const rand = (n: number): number => {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      return seed % n;
    };
    const interesting = [STX, ETX, ETB, EOT, ENQ, ACK, NAK, CR, LF, 0x31, 0x41, 0xfc];
    for (let round = 0; round < 200; round++) {
      const link = new AstmLink({ holdFinalAck: round % 2 === 0, strictFrameNumbers: round % 3 === 0, frameTextMax: 1 + rand(50) });
      let now = 0;
      if (round % 4 === 0) link.send(latin1(MSG), `m${round}`, now);
      for (let step = 0; step < 60; step++) {
        now += rand(20_000);
        const len = 1 + rand(40);
        const bytes = Buffer.alloc(len);
        for (let k = 0; k < len; k++) bytes[k] = rand(3) === 0 ? rand(256) : interesting[rand(interesting.length)]!;
        const actions = [...link.receive(bytes, now), ...link.tick(now)];
        for (const a of ofType(actions, 'message')) if (a.held) link.confirmStored(a.id, now);
        assert.ok(['idle', 'busyWait', 'establishing', 'waitingAck', 'contention', 'receiving'].includes(link.state));
        const d = link.nextDeadline();
        assert.ok(d === null || Number.isFinite(d));
      }
    }
  });

  it('over a line that loses and corrupts bytes, every message is sent whole or reported failed, and only whole messages arrive', () => {
    for (let seed = 1; seed <= 40; seed++) {
      let state = seed;
      const rand = (): number => {
        state = (state * 1103515245 + 12345) & 0x7fffffff;
        return state / 0x80000000;
      };
      // Each write: 5 % lost, 10 % one bit flipped somewhere.
      const line = (bytes: Buffer): Buffer | null => {
        const r = rand();
        if (r < 0.05) return null;
        if (r < 0.15) {
          const copy = Buffer.from(bytes);
          const at = Math.floor(rand() * copy.length);
          copy[at] = copy[at]! ^ (1 << Math.floor(rand() * 8));
          return copy;
        }
        return bytes;
      };
      const wire = new Wire(new AstmLink({ frameTextMax: 16, maxSendAttempts: 20 }), new AstmLink({ holdFinalAck: seed % 2 === 0 }), line);
      const sent = [0, 1, 2, 3].map((i) => MSG.replace('S1', `S${seed}-${i}`) + (i === 2 ? 'C|1|I|M\xfcller\r' : ''));
      // put the C record inside the message, before L
      sent[2] = sent[2]!.replace('L|1|N\rC|1|I|M\xfcller\r', 'C|1|I|M\xfcller\rL|1|N\r');
      sent.forEach((m, i) => wire.feed('a', wire.a.send(latin1(m), `m${i}`, 0)));
      wire.settle(3_600_000);
      assert.equal(wire.a.queueLength, 0);
      const outcome = new Map<string, string>();
      for (const a of wire.actions('a')) {
        if (a.type === 'sent' || a.type === 'sendFailed') {
          assert.ok(!outcome.has(a.id), `seed ${seed}: one outcome per message`);
          outcome.set(a.id, a.type);
        }
      }
      assert.equal(outcome.size, 4, `seed ${seed}: every message has an outcome`);
      const delivered = messages(wire.actions('b')).map((m) => m.toString('latin1'));
      // We send one message per transfer: two deliveries in one transfer would be a doubled result.
      let inTransfer = 0;
      for (const a of wire.actions('b')) {
        if (a.type === 'state' && a.detail === 'ENQ acknowledged') inTransfer = 0;
        if (a.type === 'message') assert.ok(++inTransfer <= 1, `seed ${seed}: delivered twice within one transfer`);
      }
      for (const d of delivered) assert.ok(sent.includes(d), `seed ${seed}: only whole, intact messages arrive`);
      sent.forEach((m, i) => {
        if (outcome.get(`m${i}`) === 'sent') assert.ok(delivered.includes(m), `seed ${seed}: m${i} reported sent was delivered`);
      });
    }
  });

  it('rejects nonsensical options', () => {
    assert.throws(() => new AstmLink({ frameTextMax: 0 }), RangeError);
    assert.throws(() => new AstmLink({ frameTextMax: 64_000 }), RangeError);
    assert.throws(() => new AstmLink({ replyTimeoutMs: -1 }), RangeError);
    assert.throws(() => new AstmLink({ maxRetransmits: 1.5 }), RangeError);
  });

  it('defaults are the standard\'s', () => {
    const o = new AstmLink().options;
    assert.deepEqual(
      [o.replyTimeoutMs, o.receiveTimeoutMs, o.busyWaitMs, o.contentionWaitMs, o.maxRetransmits, o.frameTextMax, o.maxReceiveFrame, o.framePerRecord, o.checksums, o.holdFinalAck],
      [15_000, 30_000, 10_000, 20_000, 6, 240, 64_000, false, true, false],
    );
  });
});
