// The frame trace read back for an operator (the Lab sidebar's view of a link): what FrameTrace wrote, unit by unit.
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FrameTrace, lastLines, readTrace, traceBytes, traceText } from '../../lib/trace';
import { ASTM_NAMING, E1381_TRACE } from '../../lib/protocols/astm';
import { MLLP_TRACE } from '../../lib/protocols/hl7';
import { buildFrame } from '../../lib/protocols/astm/link/frame';

const dir = mkdtempSync(join(tmpdir(), 'trace-read-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const P = 'P|1||PID-77||Doe^Jane||19700101|F\r';

async function written(redact: boolean, name: string): Promise<string[]> {
  let t = Date.UTC(2024, 4, 6, 9, 0, 0);
  const trace = new FrameTrace({ dir, name, framing: E1381_TRACE, redact, now: () => new Date((t += 10)) });
  trace.record('in', Buffer.from([0x05]), '10.0.0.7:50412');
  trace.record('out', Buffer.from([0x06]), '10.0.0.7:50412');
  trace.record('in', buildFrame(1, Buffer.from(`H|\\^&|||ABX\r${P}`, 'latin1'), 'ETX'), '10.0.0.7:50412');
  trace.record('out', Buffer.from([0x15]), '10.0.0.7:50412');
  await trace.close();
  return lastLines(trace.file, 100);
}

describe('reading a frame trace back', () => {
  it('turns trace text back into the same bytes', () => {
    const bytes = Buffer.from([0x02, 0x31, 0x3c, 0x53, 0x54, 0x58, 0x3e, 0xe9, 0x0d, 0x03]);
    assert.deepEqual(traceBytes(traceText(bytes, ASTM_NAMING), ASTM_NAMING), bytes);
  });

  it("reads an hl7-link's MLLP trace: each message's segments, patient names blanked when the link redacts", async () => {
    let t = Date.UTC(2024, 4, 6, 9, 0, 0);
    const trace = new FrameTrace({ dir, name: 'mllp', framing: MLLP_TRACE, redact: false, now: () => new Date((t += 10)) });
    const oru = 'MSH|^~\\&|LAB1||HOST||20240506||ORU^R01|7|P|2.3.1\rPID|1||P1||Doe^Jane||19700101\rOBX|1|NM|GLU||5.5\r';
    trace.record('in', Buffer.concat([Buffer.from([0x0b]), Buffer.from(oru, 'latin1'), Buffer.from([0x1c, 0x0d])]), 'a');
    await trace.close();
    const lines = await lastLines(trace.file, 10);
    const [plain] = readTrace(lines, { framing: MLLP_TRACE, redact: false });
    assert.equal(plain!.kind, 'message');
    assert.deepEqual(plain!.records, oru.split('\r').slice(0, -1));
    const [blanked] = readTrace(lines, { framing: MLLP_TRACE, redact: true });
    assert.equal(blanked!.redacted, true);
    assert.ok(!blanked!.records.join('\n').includes('Doe'), 'the name is blanked');
    assert.ok(blanked!.records.some((r) => r.startsWith('OBX|1|NM|GLU||5.5')), 'results stay');
  });

  it('gives each unit with time, direction, session, and a frame\'s records one by one', async () => {
    const entries = readTrace(await written(false, 'plain'), { framing: E1381_TRACE, redact: false });
    assert.deepEqual(entries.map((e) => [e.direction, e.kind]), [['in', 'ENQ'], ['out', 'ACK'], ['in', 'frame'], ['out', 'NAK']]);
    assert.equal(entries[0]!.session, '10.0.0.7:50412');
    assert.match(entries[0]!.at, /^2024-05-06T09:00:00\.\d{3}Z$/);
    assert.deepEqual(entries[2]!.records, ['H|\\^&|||ABX', P.slice(0, -1)]);
    assert.equal(entries[2]!.frame, 1);
    assert.equal(entries[2]!.redacted, false);
  });

  it('blanks patient fields when the link redacts now, and keeps lines redacted when written', async () => {
    const late = readTrace(await written(false, 'late'), { framing: E1381_TRACE, redact: true });
    assert.ok(!late[2]!.records.join().includes('Doe'), 'name blanked on reading');
    assert.equal(late[2]!.redacted, true);
    const early = readTrace(await written(true, 'early'), { framing: E1381_TRACE, redact: false });
    assert.ok(!early[2]!.records.join().includes('Doe'));
    assert.equal(early[2]!.redacted, true);
  });

  it('reads only the last lines, none of a file that is not there, and skips what is not a trace line', async () => {
    const file = join(dir, 'many.log');
    writeFileSync(file, Array.from({ length: 50 }, (_, i) => `2024-05-06T09:00:${String(i).padStart(2, '0')}.000Z in <ENQ>`).join('\n') + '\nnot a trace line\n2024-05-06T09:01:00.000Z !! 3 trace lines lost: disk full\n');
    const lines = await lastLines(file, 3);
    assert.equal(lines.length, 3);
    const entries = readTrace(lines, { framing: E1381_TRACE, redact: false });
    assert.deepEqual(entries.map((e) => e.kind), ['ENQ', 'note']);
    assert.deepEqual(entries[1]!.records, ['3 trace lines lost: disk full']);
    assert.deepEqual(await lastLines(join(dir, 'none.log'), 3), []);
  });
});
