/**
 * The HL7 link machine (lib/protocols/hl7/link-machine.ts), driven tick by tick: what
 * it acknowledges when and with what, what it refuses and how it says so,
 * resends recognised, and the host's own messages sent, resent and failed.
 * The Roche session logs are replayed read by read and our ACKs checked
 * against the ones the logged hosts wrote.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Hl7Link, type Hl7LinkOptions, RecentControlIds, frameMllp, hl7CarriesResults, hl7Sender, isNegativeAck, parseHl7, parseHl7Bytes } from '../../lib/protocols/hl7';
import type { LinkAction } from '../../lib/link/actions';
import { loadHl7Fixture } from '../support/hl7-fixtures';

const T0 = new Date(2024, 4, 1, 10, 20, 30);

function link(options: Partial<Hl7LinkOptions> = {}): Hl7Link {
  let n = 0;
  return new Hl7Link({ clock: () => T0, controlIds: () => `H${++n}`, messageIdPrefix: 'rx', ...options });
}

/** The messages written to the analyzer, unframed, as text. */
function written(actions: LinkAction[]): string[] {
  return actions.flatMap((a) => {
    if (a.type !== 'write') return [];
    assert.equal(a.bytes[0], 0x0b, 'written in an MLLP frame');
    assert.deepEqual([...a.bytes.subarray(-2)], [0x1c, 0x0d]);
    return [a.bytes.subarray(1, -2).toString('latin1')];
  });
}

const of = <T extends LinkAction['type']>(actions: LinkAction[], type: T) => actions.filter((a): a is Extract<LinkAction, { type: T }> => a.type === type);
const seg = (text: string, name: string) => parseHl7(text).segment(name)!;
const lines = (...segments: string[]) => segments.map((s) => `${s}\r`).join('');

const ORU = lines('MSH|^~\\&|LAB1|FAC1|HOST|HFAC|20240501101010||ORU^R01|MSG0001|P|2.3.1', 'PID|1||P1', 'OBR|1|S-1', 'OBX|1|NM|GLU||5.5|mmol/L|||||F');
const ORU_25 = ORU.replace('|2.3.1', '|2.5.1');

describe('HL7 link: receiving', () => {
  it('takes a message over several reads, holds its ACK until the journal stored it, then answers AA in original mode', () => {
    const l = link();
    const wire = frameMllp(Buffer.from(ORU, 'latin1'));
    const first = l.receive(wire.subarray(0, 7), 0);
    assert.deepEqual(of(first, 'message'), []);
    assert.equal(l.state, 'receiving');
    const rest = l.receive(wire.subarray(7, 40), 1).concat(l.receive(wire.subarray(40), 2));
    const [m] = of(rest, 'message');
    assert.ok(m);
    assert.equal(m.held, true);
    assert.equal(m.end, 'frame');
    assert.equal(m.bytes.toString('latin1'), ORU, 'the bytes between VT and FS, as sent');
    assert.deepEqual(written(rest), [], 'nothing acknowledged before it is stored');
    assert.equal(l.awaitsStored(m.id), true);
    const acks = written(l.confirmStored(m.id, 3));
    assert.equal(acks.length, 1);
    assert.equal(acks[0], lines('MSH|^~\\&|HOST|HFAC|LAB1|FAC1|20240501102030||ACK^R01|H1|P|2.3.1', 'MSA|AA|MSG0001|Message accepted'));
    assert.equal(l.awaitsStored(m.id), false);
    assert.equal(l.state, 'idle');
  });

  it("answers the Mindray CL's result as the manual's ACK^R01 does: MSH-9 ACK^R01, MSA AA, its control ID, Message accepted", () => {
    const l = link({ holdAck: false });
    const [result] = loadHl7Fixture('mindray-cl2000i-oru-r01-result.txt').messages;
    const [manual] = loadHl7Fixture('mindray-cl2000i-ack-r01.txt').messages;
    const [ours] = written(l.receive(frameMllp(result!.bytes), 0));
    const theirs = parseHl7Bytes(manual!.bytes);
    const mine = parseHl7(ours!);
    for (const n of [9, 11, 12]) assert.equal(mine.msh.field(n), theirs.msh.field(n), `MSH-${n}`);
    assert.equal(mine.msh.rawField(9), 'ACK^R01');
    for (const n of [1, 2, 3]) assert.equal(mine.segment('MSA')!.field(n), theirs.segment('MSA')!.field(n), `MSA-${n}`);
  });

  it('writes MSH-9 with its message structure and no MSA-3 from v2.5 on', () => {
    const l = link({ holdAck: false });
    const [ack] = written(l.receive(frameMllp(Buffer.from(ORU_25, 'latin1')), 0));
    assert.equal(parseHl7(ack!).msh.rawField(9), 'ACK^R01^ACK');
    assert.equal(parseHl7(ack!).segment('MSA')!.rawField(3), '');
  });

  it('answers at once when its ACK is not held (journal off)', () => {
    const l = link({ holdAck: false });
    const out = l.receive(frameMllp(Buffer.from(ORU, 'latin1')), 0);
    assert.equal(of(out, 'message')[0]!.held, false);
    assert.equal(seg(written(out)[0]!, 'MSA').field(1), 'AA');
  });

  it('echoes the trigger event of what it answers (ACK^R22 to an OUL^R22, ACK^U01 to an ESU^U01)', () => {
    for (const [type, trigger] of [['OUL^R22^OUL_R22', 'R22'], ['ESU^U01^ESU_U01', 'U01'], ['INU^U05^INU_U05', 'U05']]) {
      const l = link({ holdAck: false });
      const ack = written(l.receive(frameMllp(Buffer.from(ORU_25.replace('ORU^R01', type!), 'latin1')), 0))[0]!;
      assert.equal(seg(ack, 'MSH').field(9, 1, 2), trigger);
      assert.equal(seg(ack, 'MSH').field(9, 1, 3), 'ACK');
    }
  });

  it('reports bytes outside a frame, never dropping them silently, and still reads the frame after them', () => {
    const l = link({ holdAck: false });
    const out = l.receive(Buffer.concat([Buffer.from('noise\r\n', 'latin1'), frameMllp(Buffer.from(ORU, 'latin1'))]), 0);
    const [d] = of(out, 'discarded');
    assert.equal(d!.bytes.toString('latin1'), 'noise\r\n');
    assert.match(d!.reason, /outside an MLLP frame, 7 bytes/);
    assert.equal(of(out, 'message').length, 1);
  });

  it('discards a frame over the size limit with a warning, and answers AR when its header can be read', () => {
    const l = link({ maxFrameBytes: 100 });
    const big = ORU + `NTE|1||${'x'.repeat(200)}\r`;
    const out = l.receive(frameMllp(Buffer.from(big, 'latin1')), 0);
    assert.equal(of(out, 'message').length, 0);
    assert.match(of(out, 'warning')[0]!.text, /longer than 100 bytes/);
    assert.match(of(out, 'discarded')[0]!.reason, /longer than 100 bytes, refused: raise Largest message \(bytes\) on the hl7-link/);
    const [ack] = written(out);
    assert.equal(seg(ack!, 'MSA').field(1), 'AR');
    assert.equal(seg(ack!, 'MSA').field(2), 'MSG0001');
    assert.match(seg(ack!, 'ERR').field(1, 1, 4, 2), /longer than the 100 bytes/);
  });

  it('refuses a message of more segments than its limit with AR, and takes one at the limit (10,000 by default)', () => {
    const segments = (n: number) => ORU.split('\r').filter((x) => x !== '').length + n;
    const withObx = (n: number) => ORU + Array.from({ length: n }, (_, i) => `OBX|${i + 1}|NM|GLU||5.${i % 10}|mmol/L|||||F\r`).join('');
    const base = segments(0);
    const l = link({ holdAck: false, maxSegments: 50 });
    const over = l.receive(frameMllp(Buffer.from(withObx(51 - base), 'latin1')), 0);
    assert.equal(of(over, 'message').length, 0);
    // The warning names the setting to raise, as astm-link's for Largest message does.
    assert.match(of(over, 'discarded')[0]!.reason, /a message of 51 segments, more than the 50 this link accepts, refused: raise Most segments on the hl7-link/);
    const [ack] = written(over);
    assert.equal(seg(ack!, 'MSA').field(1), 'AR');
    assert.equal(seg(ack!, 'MSA').field(2), 'MSG0001');
    assert.match(seg(ack!, 'ERR').field(1, 1, 4, 2), /51 segments, more than the 50/);
    assert.equal(of(l.receive(frameMllp(Buffer.from(withObx(50 - base), 'latin1')), 0), 'message').length, 1);
    // The default: a run of 9,999 result segments is taken, 10,001 segments are not.
    const d = link({ holdAck: false });
    assert.equal(of(d.receive(frameMllp(Buffer.from(withObx(10_000 - base), 'latin1')), 0), 'message').length, 1);
    assert.equal(of(d.receive(frameMllp(Buffer.from(withObx(10_001 - base).replace('MSG0001', 'MSG0002'), 'latin1')), 0), 'message').length, 0);
  });

  it('answers a message that cannot be parsed AR, saying what was wrong (ERR-1 for v2.3.1, ERR-3 and ERR-8 for v2.5)', () => {
    const bad = ORU.replace('PID|1||P1', 'P!D|1');
    const out = link().receive(frameMllp(Buffer.from(bad, 'latin1')), 0);
    assert.equal(of(out, 'message').length, 0);
    assert.equal(of(out, 'discarded').length, 1);
    const [ack] = written(out);
    assert.equal(seg(ack!, 'MSA').field(1), 'AR');
    assert.equal(seg(ack!, 'MSA').field(2), 'MSG0001');
    assert.match(seg(ack!, 'MSA').field(3), /segment 2.*does not start with a segment name/, 'MSA-3 text in v2.3.1');
    assert.equal(seg(ack!, 'ERR').field(1, 1, 4, 1), '100');
    assert.match(seg(ack!, 'ERR').field(1, 1, 4, 2), /segment name/);

    const out25 = link().receive(frameMllp(Buffer.from(bad.replace('|2.3.1', '|2.5.1'), 'latin1')), 0);
    const err = seg(written(out25)[0]!, 'ERR');
    assert.equal(err.field(1), '', 'no ERR-1 from v2.5 on');
    assert.equal(err.field(3), '100');
    assert.equal(err.field(3, 1, 3), 'HL70357');
    assert.equal(err.field(4), 'E');
    assert.match(err.field(8), /does not start with a segment name/);
    assert.equal(seg(written(out25)[0]!, 'MSA').field(3), '', 'no MSA-3 from v2.5 on');
  });

  it('refuses AR what it cannot take: an empty MSH-9, a version that is not 2.x, an unknown processing ID', () => {
    const cases: Array<[string, string, RegExp]> = [
      [ORU.replace('ORU^R01', ''), '101', /MSH-9/],
      [ORU.replace('|2.3.1', '|3.0'), '203', /MSH-12 \(version\) is "3.0"/],
      [ORU.replace('|MSG0001|P|', '|MSG0001|X|'), '202', /MSH-11/],
    ];
    for (const [text, code, why] of cases) {
      const out = link().receive(frameMllp(Buffer.from(text, 'latin1')), 0);
      assert.equal(of(out, 'message').length, 0, code);
      const ack = written(out)[0]!;
      assert.equal(seg(ack, 'MSA').field(1), 'AR', code);
      assert.equal(seg(ack, 'ERR').field(1, 1, 4, 1) || seg(ack, 'ERR').field(3), code);
      assert.match(ack, why);
    }
  });

  it('takes MSH-11 Q, the processing ID Mindray BC analyzers mark QC with, and acknowledges it with Q', () => {
    const l = link();
    const out = l.receive(frameMllp(Buffer.from(ORU.replace('|MSG0001|P|', '|MSG0001|Q|'), 'latin1')), 0);
    const [m] = of(out, 'message');
    assert.ok(m, 'taken, not refused AR 202 as before');
    const ack = written(l.confirmStored(m.id, 1))[0]!;
    assert.equal(seg(ack, 'MSA').field(1), 'AA');
    assert.equal(seg(ack, 'MSH').field(11), 'Q');
  });

  it('answers a header too broken to name the message AR with an empty MSA-2, and warns', () => {
    for (const text of [ORU.replace('|^~\\&|', '|^~&|'), 'HELLO|world\r']) {
      const out = link().receive(frameMllp(Buffer.from(text, 'latin1')), 0);
      const ack = written(out)[0]!;
      assert.equal(seg(ack, 'MSA').field(1), 'AR');
      assert.equal(seg(ack, 'MSA').rawField(2), '');
      assert.ok(of(out, 'warning').some((w) => /empty MSA-2/.test(w.text)), text);
      assert.equal(of(out, 'discarded').length, 1);
    }
  });

  it('answers AE with an ERR saying it could not be stored when the journal failed, so the analyzer sends it again', () => {
    const l = link();
    const [m] = of(l.receive(frameMllp(Buffer.from(ORU_25, 'latin1')), 0), 'message');
    const ack = written(l.rejectStored(m!.id, 1))[0]!;
    assert.equal(seg(ack, 'MSA').field(1), 'AE');
    assert.equal(seg(ack, 'ERR').field(3), '207');
    assert.match(seg(ack, 'ERR').field(8), /could not be stored/);
    // Not remembered as answered: the resend is a message of its own.
    assert.equal(of(l.receive(frameMllp(Buffer.from(ORU_25, 'latin1')), 2), 'message').length, 1);
  });

  it('in enhanced mode, answers as MSH-15 and MSH-16 ask: CA when stored, AA as the application ACK, nothing asked for none', () => {
    const withModes = (accept: string, app: string, type = 'OUL^R22') => ORU_25.replace('ORU^R01', type).replace('|P|2.5.1', `|P|2.5.1|||${accept}|${app}`);
    const codes = (text: string, stored = true) => {
      const l = link();
      const out = l.receive(frameMllp(Buffer.from(text, 'latin1')), 0);
      const [m] = of(out, 'message');
      const after = stored ? l.confirmStored(m!.id, 1) : l.rejectStored(m!.id, 1);
      return { codes: written(after).map((a) => seg(a, 'MSA').field(1)), warnings: of(after, 'warning').map((w) => w.text) };
    };
    assert.deepEqual(codes(withModes('NE', 'AL')).codes, ['AA'], 'cobas pure/pro: application ACK only');
    assert.deepEqual(codes(withModes('AL', 'AL')).codes, ['CA', 'AA']);
    assert.deepEqual(codes(withModes('AL', 'NE')).codes, ['CA']);
    assert.deepEqual(codes(withModes('SU', 'ER')).codes, ['CA']);
    assert.deepEqual(codes(withModes('ER', 'ER')).codes, []);
    assert.deepEqual(codes(withModes('AL', 'AL'), false).codes, ['CE'], 'a commit error when it could not be stored');
    assert.deepEqual(codes(withModes('NE', 'AL'), false).codes, ['AE']);
    const silent = codes(withModes('NE', 'NE'), false);
    assert.deepEqual(silent.codes, []);
    assert.match(silent.warnings.join(), /asked for no acknowledgement of errors/);
    // A query's application answer is its response (RSP^K11), written by the flow; it does not wait for the disk,
    // so a commit ACK goes out as it arrives.
    const query = (accept: string, app: string) => {
      const out = link().receive(frameMllp(Buffer.from(withModes(accept, app, 'QBP^Q11^QBP_Q11'), 'latin1')), 0);
      assert.equal(of(out, 'message')[0]!.held, false, 'a query is not held for the journal');
      return written(out).map((a) => seg(a, 'MSA').field(1));
    };
    assert.deepEqual(query('ER', 'AL'), []);
    assert.deepEqual(query('AL', 'AL'), ['CA']);
    // Mindray's MSH-16 0/2 is no table 0155 value: original mode.
    assert.deepEqual(codes(ORU.replace('|P|2.3.1', '|P|2.3.1||||0')).codes, ['AA']);
  });

  it('gives a query no AA of its own in original mode (the QCK^Q02 answers it) and passes it on at once, not held for the journal', () => {
    const qry = loadHl7Fixture('mindray-cl2000i-qry-q02.txt').messages[0]!.bytes;
    const l = link();
    const first = l.receive(frameMllp(qry), 0);
    const [m] = of(first, 'message');
    assert.equal(m!.held, false, 'a query carries no result: it does not wait for the disk');
    assert.equal(l.awaitsStored(m!.id), false);
    assert.deepEqual(written(first), []);
    const [m2] = of(l.receive(frameMllp(qry), 2), 'message');
    assert.ok(m2, 'a repeated query is processed again: answering it twice is what the analyzer asked for');
  });

  it('writes its own text in a Latin-1 ACK with ? for what Latin-1 cannot carry, never a delimiter (the … of an excerpt was `&`; issue 23)', () => {
    const out = link().receive(frameMllp(Buffer.from('HELLO|world, a message without any MSH\r', 'latin1')), 0);
    const ack = written(out)[0]!;
    assert.equal(seg(ack, 'ERR').field(8), 'the message does not start with a readable MSH segment (it starts HELLO|world, a messa?)');
    assert.equal(seg(ack, 'ERR').fieldCount, 8);
  });

  it('answers AR naming MSH-2 a message whose encoding characters are short or incoherent, never files it (issue 23)', () => {
    const law = lines('MSH|^~&|LAW|FAC|HOST|HFAC|20240501101010||OUL^R22^OUL_R22|M1|P|2.5.1', 'SPM|1|RC-BAD2&BARCODE', 'OBR|1', 'OBX|1|NM|GLU||5.5|mmol/L|||||F');
    for (const text of [law, law.replace('|^~&|', '|^~\\^|'), law.replace('|^~&|', '|^~\\&A|')]) {
      const out = link().receive(frameMllp(Buffer.from(text, 'latin1')), 0);
      assert.equal(of(out, 'message').length, 0, text);
      const ack = written(out)[0]!;
      assert.equal(seg(ack, 'MSA').field(1), 'AR');
      assert.deepEqual([seg(ack, 'ERR').field(2), seg(ack, 'ERR').field(2, 1, 3), seg(ack, 'ERR').field(3)], ['MSH', '2', '102']);
      assert.match(seg(ack, 'ERR').field(8), /^HL7 segment 1 \(MSH\), MSH-2: MSH-/);
    }
  });

  it('takes a message with an empty MSH-10 (the EDAN i15): AA with MSA-2 empty, a resend known by its content (issue 23)', () => {
    const recent = new RecentControlIds();
    const l = link({ recent });
    const noId = ORU.replace('MSG0001', '');
    const first = l.receive(frameMllp(Buffer.from(noId, 'latin1')), 0);
    const [m] = of(first, 'message');
    assert.ok(m, 'passed on');
    const [ack] = written(l.confirmStored(m.id, 1));
    assert.deepEqual([seg(ack!, 'MSA').field(1), seg(ack!, 'MSA').rawField(2)], ['AA', '']);
    const resend = noId.replace('20240501101010', '20240501101055');
    const again = l.receive(frameMllp(Buffer.from(resend, 'latin1')), 2);
    assert.equal(of(again, 'message').length, 0, 'the same content again is a repeat');
    assert.deepEqual(written(again).map((a) => [seg(a, 'MSA').field(1), seg(a, 'MSA').rawField(2)]), [['AA', '']]);
    assert.match(of(again, 'warning')[0]!.text, /\(no MSH-10\) was received and acknowledged before/);
    const other = l.receive(frameMllp(Buffer.from(noId.replace('5.5', '6.1'), 'latin1')), 3);
    assert.equal(of(other, 'message').length, 1, 'other content is a new message');
    assert.deepEqual(of(other, 'warning'), []);
    const [n] = of(other, 'message');
    l.confirmStored(n!.id, 4);
    assert.equal(of(l.receive(frameMllp(Buffer.from(noId, 'latin1')), 5), 'message').length, 0, 'the first is still known after another');
  });

  it('acknowledges a resend of an acknowledged message again, with the same code, without passing it on twice (on another connection too)', () => {
    const recent = new RecentControlIds();
    const l = link({ recent });
    const [m] = of(l.receive(frameMllp(Buffer.from(ORU, 'latin1')), 0), 'message');
    l.confirmStored(m!.id, 1);
    const resend = ORU.replace('20240501101010', '20240501101055');
    const again = l.receive(frameMllp(Buffer.from(resend, 'latin1')), 2);
    assert.equal(of(again, 'message').length, 0);
    assert.deepEqual(written(again).map((a) => [seg(a, 'MSA').field(1), seg(a, 'MSA').field(2)]), [['AA', 'MSG0001']]);
    assert.match(of(again, 'warning')[0]!.text, /acknowledged again, not passed on again/);
    const other = link({ recent });
    assert.equal(of(other.receive(frameMllp(Buffer.from(resend, 'latin1')), 3), 'message').length, 0, 'a new connection of the same node knows it');
    assert.equal(of(link().receive(frameMllp(Buffer.from(resend, 'latin1')), 3), 'message').length, 1, 'another node does not');
    // Another sender, or the same control ID with other content, is a new message.
    assert.equal(of(l.receive(frameMllp(Buffer.from(ORU.replace('LAB1', 'LAB2'), 'latin1')), 4), 'message').length, 1);
    const reused = l.receive(frameMllp(Buffer.from(ORU.replace('5.5', '6.1'), 'latin1')), 5);
    assert.equal(of(reused, 'message').length, 1);
    assert.match(of(reused, 'warning')[0]!.text, /used before for another message/);
  });

  it('answers a resend that came while the first copy was being stored once it is, both copies, and passes it on once', () => {
    const l = link();
    const [m] = of(l.receive(frameMllp(Buffer.from(ORU, 'latin1')), 0), 'message');
    const again = l.receive(frameMllp(Buffer.from(ORU, 'latin1')), 1);
    assert.equal(of(again, 'message').length, 0);
    assert.deepEqual(written(again), []);
    assert.deepEqual(written(l.confirmStored(m!.id, 2)).map((a) => seg(a, 'MSA').field(1)), ['AA', 'AA']);

    const l2 = link();
    const [n] = of(l2.receive(frameMllp(Buffer.from(ORU, 'latin1')), 0), 'message');
    l2.receive(frameMllp(Buffer.from(ORU, 'latin1')), 1);
    assert.deepEqual(written(l2.rejectStored(n!.id, 2)).map((a) => seg(a, 'MSA').field(1)), ['AE', 'AE']);
  });

  it('reads the bytes in the link\'s character set or MSH-18\'s, and writes the ACK in it, so a non-ASCII name comes back byte for byte', () => {
    const qbp = loadHl7Fixture('roche-cobaspro-qbp-q11-manual.txt').messages[0]!.bytes;
    assert.ok(qbp.includes(Buffer.from('cobas® pro', 'utf8')));
    for (const charset of ['msh18', 'utf8', 'latin1'] as const) {
      const l = link({ charset, holdAck: false });
      const enhanced = Buffer.from(qbp.toString('latin1').replace('|||NE|AL|', '|||AL|AL|'), 'latin1');
      const out = l.receive(frameMllp(enhanced), 0);
      const w = of(out, 'write')[0]!.bytes;
      assert.ok(w.includes(Buffer.from('|cobas® pro|', 'utf8')), `${charset}: MSH-5 of the ACK is MSH-3's bytes`);
      assert.equal(parseHl7Bytes(w.subarray(1, -2)).segment('MSA')!.field(1), 'CA');
    }
    const latin = Buffer.concat([Buffer.from('MSH|^~\\&|Ana', 'latin1'), Buffer.of(0xe9), Buffer.from('|F||H|20240501||ORU^R01|7|P|2.5.1||||||8859/1\rPID|1\r', 'latin1')]);
    const w = of(link({ holdAck: false }).receive(frameMllp(latin), 0), 'write')[0]!.bytes;
    assert.ok(w.includes(Buffer.concat([Buffer.from('|Ana', 'latin1'), Buffer.of(0xe9), Buffer.from('|', 'latin1')])));
    assert.match(w.toString('latin1'), /\|8859\/1\r/, 'MSH-18 stated back');
    const unstated = Buffer.from(latin.toString('latin1').replace('8859/1', ''), 'latin1');
    const warned = of(link({ charset: 'utf8', holdAck: false }).receive(frameMllp(unstated), 0), 'warning');
    assert.match(warned.map((x) => x.text).join(), /not valid utf8; read as Latin-1/);
  });
});

const OML = lines('MSH|^~\\&|HOST||LAB1||20240501||OML^O33^OML_O33|ORD1|P|2.5.1', 'SPM|1|S-9');
const ackTo = (id: string, code: string, extra = '') => frameMllp(Buffer.from(lines('MSH|^~\\&|LAB1||HOST||20240501||ACK^O33^ACK|A1|P|2.5.1', `MSA|${code}|${id}`) + extra, 'latin1'));

describe('HL7 link: sending', () => {
  it('writes a message framed with CR between segments, and reports it sent on the analyzer\'s AA', () => {
    const l = link();
    const out = l.send(Buffer.from(OML.replace(/\r/g, '\r\n'), 'latin1'), 'tx-1', 0);
    assert.deepEqual(written(out), [OML]);
    assert.equal(l.state, 'waitingAck');
    assert.equal(l.nextDeadline(), 10_000);
    const done = l.receive(ackTo('ORD1', 'AA'), 5);
    assert.deepEqual(of(done, 'sent'), [{ type: 'sent', id: 'tx-1' }]);
    assert.deepEqual(written(done), [], 'an ACK is never acknowledged');
    assert.equal(of(done, 'message').length, 0, 'nor passed on');
    assert.equal(l.state, 'idle');
  });

  it('fails a message the analyzer answers AE or AR, with the analyzer\'s own text', () => {
    const l = link();
    l.send(Buffer.from(OML, 'latin1'), 'tx-1', 0);
    const out = l.receive(ackTo('ORD1', 'AE', 'ERR||SPM^1^2|204^Unknown key identifier^HL70357|E||||sample S-9 unknown\r'), 1);
    const [f] = of(out, 'sendFailed');
    assert.equal(f!.id, 'tx-1');
    assert.match(f!.reason, /answered AE to message ORD1: sample S-9 unknown; Unknown key identifier/);
    const mindray = link();
    mindray.send(Buffer.from(OML, 'latin1'), 'tx-2', 0);
    const r = of(mindray.receive(frameMllp(Buffer.from(lines('MSH|^~\\&|||||20120508094823||ACK^R01|1|P|2.3.1', 'MSA|AR|ORD1|Application query error|||206|'), 'latin1')), 1), 'sendFailed');
    assert.match(r[0]!.reason, /answered AR to message ORD1: Application query error/);
  });

  it('writes a message again with the same control ID when no ACK comes in time, and fails it after the attempts', () => {
    const l = link({ ackTimeoutMs: 100, sendAttempts: 3 });
    const first = written(l.send(Buffer.from(OML, 'latin1'), 'tx-1', 0));
    assert.deepEqual(l.tick(99), []);
    const second = l.tick(100);
    assert.deepEqual(written(second), first);
    assert.match(of(second, 'warning')[0]!.text, /attempt 2 of 3/);
    assert.deepEqual(written(l.tick(200)), first);
    const last = l.tick(300);
    assert.deepEqual(written(last), []);
    assert.match(of(last, 'sendFailed')[0]!.reason, /no ACK to message ORD1 after 3 attempts of 100 ms/);
    assert.equal(l.nextDeadline(), null);
  });

  it('keeps one message outstanding per connection, the others queued in order; a message expecting no ACK is sent once written', () => {
    const l = link();
    const two = OML.replace('ORD1', 'ORD2');
    const qck = lines('MSH|^~\\&|||||20120508104700||QCK^Q02|4|P|2.3.1', 'MSA|AA|4', 'QAK|SR|OK');
    assert.equal(written(l.send(Buffer.from(OML, 'latin1'), 'tx-1', 0)).length, 1);
    assert.deepEqual(written(l.send(Buffer.from(qck, 'latin1'), 'tx-2', 1, { expectAck: false })), []);
    assert.deepEqual(written(l.send(Buffer.from(two, 'latin1'), 'tx-3', 2)), []);
    const out = l.receive(ackTo('ORD1', 'CA'), 3);
    assert.deepEqual(written(out), [qck, two]);
    assert.deepEqual(of(out, 'sent').map((s) => s.id), ['tx-1', 'tx-2']);
    assert.equal(l.state, 'waitingAck');
    // An ACK to nothing outstanding is ignored with a warning; an application ACK after the CA too, unless it is an error.
    assert.match(of(l.receive(ackTo('NOPE', 'AA'), 4), 'warning')[0]!.text, /not one waiting/);
    assert.deepEqual(l.receive(ackTo('ORD1', 'AA'), 5).filter((a) => a.type === 'warning'), []);
    assert.match(of(l.receive(ackTo('ORD1', 'AE', 'ERR||||E||||late trouble\r'), 6), 'warning')[0]!.text, /late trouble/);
  });

  it('refuses to send what has no MSH-10 to match its ACK to, or is no HL7 message', () => {
    assert.match(of(link().send(Buffer.from(OML.replace('ORD1', ''), 'latin1'), 'tx-1', 0), 'sendFailed')[0]!.reason, /MSH-10/);
    assert.match(of(link().send(Buffer.from('H|\\^&\r', 'latin1'), 'tx-1', 0), 'sendFailed')[0]!.reason, /not an HL7 v2 message/);
  });

  it('fails what is in transfer and queued at once when the connection closes, and reports a partial frame', () => {
    const l = link();
    l.send(Buffer.from(OML, 'latin1'), 'tx-1', 0);
    l.send(Buffer.from(OML.replace('ORD1', 'ORD2'), 'latin1'), 'tx-2', 0);
    const [m] = of(l.receive(frameMllp(Buffer.from(ORU, 'latin1')), 1), 'message');
    l.receive(Buffer.from('\x0bMSH|^~\\&|half', 'latin1'), 2);
    const out = l.disconnect(3, 'the TCP connection closed');
    assert.deepEqual(of(out, 'sendFailed'), [
      { type: 'sendFailed', id: 'tx-1', reason: 'the TCP connection closed' },
      { type: 'sendFailed', id: 'tx-2', reason: 'the TCP connection closed' },
    ]);
    assert.match(of(out, 'discarded')[0]!.reason, /incomplete when the connection closed/);
    assert.equal(l.awaitsStored(m!.id), false, 'its ACK can no longer go out');
    assert.deepEqual(written(out), []);
    assert.equal(l.nextDeadline(), null);
  });
});

describe('HL7 link: the Roche session logs replayed read by read', () => {
  for (const name of ['roche-cobaspure-oul-r22-session.log.txt', 'roche-cobaspro-esu-inu-session.log.txt', 'roche-cobaspro-oul-r22-hba1c-session.log.txt']) {
    it(`${name}: every analyzer message passed on once, and answered as the logged host did (our trigger echoed)`, () => {
      const f = loadHl7Fixture(name);
      const l = link();
      const received: string[] = [];
      const ours: string[] = [];
      for (const read of f.reads!.filter((r) => r.from === 'analyzer')) {
        const out = l.receive(read.bytes, 0);
        assert.deepEqual(written(out), [], 'nothing written before storage');
        for (const m of of(out, 'message')) {
          received.push(m.bytes.toString('latin1'));
          ours.push(...written(l.confirmStored(m.id, 0)));
        }
      }
      const sent = f.messages.filter((m) => m.from === 'analyzer').map((m) => m.bytes.toString('latin1'));
      assert.deepEqual(received, sent);
      const theirs = f.messages.filter((m) => m.from === 'host').map((m) => parseHl7(m.bytes.toString('latin1')));
      assert.ok(theirs.length > 0);
      for (const host of theirs) {
        const answered = host.segment('MSA')!.field(2);
        const i = sent.findIndex((s) => parseHl7(s).msh.field(10) === answered);
        assert.ok(i >= 0, `the logged ACK answers message ${answered}`);
        const ack = parseHl7(ours[i]!);
        const analyzer = parseHl7(sent[i]!);
        assert.equal(ack.segment('MSA')!.field(1), host.segment('MSA')!.field(1), 'the same code');
        assert.equal(ack.segment('MSA')!.field(2), answered);
        // Sender and receiver swapped, processing ID, version and character set echoed: as the logged host wrote them.
        for (const n of [3, 4, 5, 6, 11, 12, 18]) assert.equal(ack.msh.field(n), host.msh.field(n), `MSH-${n}`);
        assert.equal(ack.msh.field(9, 1, 2), analyzer.msh.field(9, 1, 2), 'the trigger of the message answered, whatever the logged host wrote');
      }
    });
  }
});

describe('HL7 link: who sent a message, and whether it carries results', () => {
  it('names the sender by MSH-3 (MSH-4 when MSH-3 is empty) and knows result messages by their type and an OBX', () => {
    assert.deepEqual(hl7Sender(Buffer.from(ORU, 'latin1')), { text: 'LAB1', name: 'LAB1' });
    assert.deepEqual(hl7Sender(Buffer.from(ORU.replace('|LAB1|FAC1|', '|CL-2000i^1.0|FAC1|'), 'latin1')), { text: 'CL-2000i^1.0', name: 'CL-2000i' });
    assert.deepEqual(hl7Sender(Buffer.from(ORU.replace('|LAB1|FAC1|', '||FAC1|'), 'latin1')), { text: 'FAC1', name: 'FAC1' });
    assert.equal(hl7Sender(Buffer.from(ORU.replace('|LAB1|FAC1|', '|||'), 'latin1')), undefined);
    assert.equal(hl7Sender(Buffer.from('garbage', 'latin1')), undefined);
    assert.equal(hl7CarriesResults(Buffer.from(ORU, 'latin1')), true);
    assert.equal(hl7CarriesResults(Buffer.from(ORU.replace('ORU^R01', 'OUL^R22').replace(/\r/g, '\n'), 'latin1')), true);
    assert.equal(hl7CarriesResults(Buffer.from(ORU.replace(/OBX[^\r]*\r/, ''), 'latin1')), false, 'no OBX');
    assert.equal(hl7CarriesResults(Buffer.from(ORU.replace('ORU^R01', 'ESU^U01'), 'latin1')), false);
    for (const f of ['roche-cobaspure-oul-r22-qc.txt', 'mindray-cl2000i-oru-r01-result.txt']) assert.equal(hl7CarriesResults(loadHl7Fixture(f).messages[0]!.bytes), true, f);
    assert.equal(hl7CarriesResults(loadHl7Fixture('mindray-cl2000i-qry-q02.txt').messages[0]!.bytes), false);
  });

  it('counts an acknowledgement as negative by its MSA-1 (AE, AR, CE, CR), framed or not, and nothing else', () => {
    const ack = (code: string) => `MSH|^~\\&|LIS||LAB1||20250101||ACK^R01^ACK|9|P|2.5.1\rMSA|${code}|42\r`;
    for (const code of ['AE', 'AR', 'CE', 'CR']) {
      assert.equal(isNegativeAck(Buffer.from(ack(code), 'latin1')), true, code);
      assert.equal(isNegativeAck(frameMllp(Buffer.from(ack(code), 'latin1'))), true, `${code} framed`);
    }
    for (const code of ['AA', 'CA']) assert.equal(isNegativeAck(Buffer.from(ack(code), 'latin1')), false, code);
    assert.equal(isNegativeAck(Buffer.from(ORU, 'latin1')), false, 'a result message');
    assert.equal(isNegativeAck(Buffer.from('OBX|1|ST|MSA|AE|x\r', 'latin1')), false, 'MSA inside a field is not a segment');
    assert.equal(isNegativeAck(loadHl7Fixture('mindray-cl2000i-ack-r01-reject.txt').messages[0]!.bytes), true, 'the Mindray manual\'s AR');
    assert.equal(isNegativeAck(loadHl7Fixture('mindray-cl2000i-ack-r01.txt').messages[0]!.bytes), false, 'the Mindray manual\'s AA');
  });
});
