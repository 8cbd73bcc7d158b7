/**
 * readHl7Capture: the forms an operator replays HL7 from (hl7-link's trace,
 * MLLP tokens as the Mindray manual prints them, raw frames, segments one per
 * line), each read to the messages the analyzer sent.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { MLLP_NAMING, frameMllp, parseHl7Bytes } from '../../lib/protocols/hl7';
import { readHl7Capture } from '../../lib/protocols/hl7/paste';
import { traceBytes, traceText } from '../../lib/trace';
import { ASTM_NAMING } from '../../lib/protocols/astm';
import { hl7FixtureDir, loadHl7Fixture } from '../support/hl7-fixtures';

const raw = (name: string) => readFileSync(join(hl7FixtureDir(), name), 'latin1');
const segments = (bytes: Buffer) => parseHl7Bytes(bytes).segments.map((s) => s.text);

describe('readHl7Capture', () => {
  it("reads hl7-link's trace lines: only what the analyzer sent, per session, across split units", () => {
    const result = loadHl7Fixture('mindray-cl2000i-oru-r01-result.txt').messages[0]!.bytes;
    const query = loadHl7Fixture('mindray-cl2000i-qry-q02.txt').messages[0]!.bytes;
    const wire = frameMllp(result);
    const line = (dir: string, session: string, bytes: Buffer) => `2026-11-23T10:00:00.000Z ${dir} [${session}] ${traceText(bytes, MLLP_NAMING)}`;
    const text = [
      line('in', 'a', wire.subarray(0, 40)),
      line('in', 'b', frameMllp(query)),
      line('out', 'a', frameMllp(Buffer.from('MSH|^~\\&|||||20120508||ACK^R01|1|P|2.3.1\rMSA|AA|1\r', 'latin1'))),
      line('in', 'a', wire.subarray(40)),
    ].join('\n');
    const read = readHl7Capture(text);
    assert.deepEqual(read.problems, []);
    assert.deepEqual(read.messages.map((m) => m.toString('latin1')).sort(), [result, query].map((m) => m.toString('latin1')).sort());
  });

  it('reads MLLP written as tokens, as the Mindray CL manual prints its query', () => {
    const read = readHl7Capture(raw('mindray-cl2000i-qry-q02.txt'));
    assert.deepEqual(read.problems, []);
    assert.equal(read.messages.length, 1);
    assert.deepEqual(segments(read.messages[0]!), segments(loadHl7Fixture('mindray-cl2000i-qry-q02.txt').messages[0]!.bytes));
  });

  it('reads raw MLLP bytes, several frames in a row', () => {
    const a = loadHl7Fixture('mindray-cl2000i-qry-q02.txt').messages[0]!.bytes;
    const b = loadHl7Fixture('mindray-cl2000i-oru-r01-result.txt').messages[0]!.bytes;
    const read = readHl7Capture(Buffer.concat([frameMllp(a), frameMllp(b)]).toString('latin1'));
    assert.deepEqual(read.messages, [a, b]);
  });

  it('reads segments one per line (a log where CR became LF), a message at each MSH, and names lines before any MSH', () => {
    const read = readHl7Capture(`PID|stray\n${raw('urit-8030-oru-r01.txt')}${raw('urit-8030-oru-r01.txt')}`);
    assert.equal(read.messages.length, 2);
    const msh = parseHl7Bytes(read.messages[0]!).msh;
    assert.equal(msh.field(10), '202508090002');
    assert.equal(parseHl7Bytes(read.messages[0]!).segment('OBX')!.field(5), '111');
    assert.deepEqual(read.problems, ['line 1 comes before any MSH segment']);
  });

  it("keeps an ASTM trace's `<VT>` text as text: only the MLLP reading names VT and FS", () => {
    assert.equal(traceBytes('<VT>x<FS>', ASTM_NAMING).toString('latin1'), '<VT>x<FS>');
    assert.deepEqual([...traceBytes('<VT>x<FS><CR>', MLLP_NAMING)], [0x0b, 0x78, 0x1c, 0x0d]);
  });
});
