/**
 * Pasted captures to message bytes (lib/protocols/astm/paste.ts): each form integrators
 * paste, on the real captures of test/fixtures/astm in the form their files
 * keep them. The expected messages come from test/support/fixtures.ts, which
 * undoes each file's notation by steps of its own, not by the code under test.
 */
import { describe, it, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ACK, EOT } from '../../lib/protocols/astm/control';
import { readPaste, type PasteRead } from '../../lib/protocols/astm/paste';
import { FrameTrace, traceText } from '../../lib/trace';
import { ASTM_NAMING, E1381_TRACE } from '../../lib/protocols/astm';
import { fixtureMessages, loadFixture } from '../support/fixtures';

const texts = (r: PasteRead): string[] => r.messages.map((m) => m.bytes.toString('latin1'));

/** The fixture file as pasted, and the messages it holds. */
function pasted(name: string): { read: PasteRead; want: string[] } {
  const f = loadFixture(name);
  return { read: readPaste(f.file.toString('latin1')), want: fixtureMessages(f) };
}

describe('reading a paste', () => {
  it('raw framed bytes, checksums checked (cobas e 411 in 240-character frames)', () => {
    const { read, want } = pasted('roche-e411-result-multiframe.txt');
    assert.equal(read.form, 'raw');
    assert.equal(read.framing, 'framed');
    assert.deepEqual(texts(read), want);
    assert.deepEqual(read.problems, []);
    assert.ok(read.notes.some((n) => /3 frames, 3 checksums checked/.test(n)), read.notes.join());
  });

  it('a log where CR became LF inside frames: the checksum shows it and the text is repaired (ERBA EM 200)', () => {
    const { read, want } = pasted('erba-em200-query.txt');
    assert.deepEqual(texts(read), want);
    assert.ok(read.notes.some((n) => /held LF where the checksum shows the analyzer sent CR/.test(n)));
  });

  it('frames without frame numbers or checksums, several transfers (MAGLUMI X3)', () => {
    const { read, want } = pasted('snibe-maglumi-x3-result-session.txt');
    assert.equal(read.framing, 'framed');
    assert.equal(read.messages.length, 3);
    assert.deepEqual(texts(read), want);
    assert.ok(read.notes.some((n) => /without frame numbers, no checksums checked/.test(n)));
  });

  it('one record per line, several messages (ARCHITECT: five H...L)', () => {
    const { read, want } = pasted('abbott-architect-i-result-multi.txt');
    assert.equal(read.form, 'lines');
    assert.equal(read.framing, 'records');
    assert.equal(read.messages.length, 5);
    assert.deepEqual(texts(read), want);
  });

  it('lines with frame numbers and checksums left on, naming the checksum that does not match (IMMULITE)', () => {
    const { read, want } = pasted('siemens-immulite-query.txt');
    assert.deepEqual(texts(read), want);
    assert.ok(read.notes.includes('a frame number digit before each record removed'));
    assert.deepEqual(read.problems.map((p) => p.record), [1]);
    assert.match(read.problems[0]!.message, /checksum 51/);
  });

  it('<CR> tokens with the page layout of a manual (Mindray CL-2000i)', () => {
    const { read, want } = pasted('mindray-cl2000i-result.txt');
    assert.equal(read.form, 'tokens');
    assert.deepEqual(texts(read), want);
  });

  it('[CR] tokens with a space before them (cobas e 411 host interface manual)', () => {
    const { read, want } = pasted('roche-e411-query-manual.txt');
    assert.equal(read.form, 'tokens');
    assert.deepEqual(texts(read), want);
    assert.ok(read.notes.some((n) => /spaces before a CR token/.test(n)));
  });

  it('a serial log writing [STX] [ETX] tokens, with the host\'s replies on lines of their own (Mindray BS-240)', () => {
    const { read, want } = pasted('mindray-bs240-qc-log.txt');
    assert.equal(read.form, 'tokens');
    assert.equal(read.messages.length, 43);
    assert.deepEqual(texts(read), want);
    // The host's " - [ACK]" lines are no frames: named, not read as data.
    assert.ok(read.problems.every((p) => p.frame !== undefined && /outside any frame/.test(p.message)));
  });

  it('the readable form of the trace without its time and direction', () => {
    const f = loadFixture('roche-e411-result.txt');
    const read = readPaste(traceText(f.bytes, ASTM_NAMING));
    assert.equal(read.form, 'tokens');
    assert.deepEqual(texts(read), fixtureMessages(f));
    assert.deepEqual(read.problems, []);
  });

  it('a trace file: only what the analyzer sent, per session', async (t: TestContext) => {
    const dir = await mkdtemp(join(tmpdir(), 'lis-paste-'));
    t.after(() => rm(dir, { recursive: true, force: true }));
    const f = loadFixture('sysmex-xn550-result-framed-session.txt');
    const trace = new FrameTrace({ dir, name: 'link', framing: E1381_TRACE });
    trace.record('in', f.bytes.subarray(0, 1), 's1');
    trace.record('out', Buffer.of(ACK), 's1');
    trace.record('in', f.bytes.subarray(1), 's1');
    await trace.close();
    const read = readPaste(await readFile(trace.file, 'latin1'));
    assert.equal(read.form, 'trace');
    assert.deepEqual(texts(read), fixtureMessages(f));
    assert.equal(read.messages[0]?.session, 's1');
    assert.match(read.messages[0]?.at ?? '', /^\d{4}-\d\d-\d\dT/);
    assert.ok(read.notes.some((n) => /1 trace line sent to the analyzer left out/.test(n)));
    assert.deepEqual(read.problems, []);
  });

  it('a redacted trace: read without checking the checksums the redaction broke', async (t: TestContext) => {
    const dir = await mkdtemp(join(tmpdir(), 'lis-paste-'));
    t.after(() => rm(dir, { recursive: true, force: true }));
    const f = loadFixture('roche-e411-result.txt');
    const trace = new FrameTrace({ dir, name: 'link', framing: E1381_TRACE, redact: true });
    trace.record('in', Buffer.concat([Buffer.from('\x02'), Buffer.from('1H|\\^&\rP|1||PID||Doe^Jane\rL|1\r\x03', 'latin1'), Buffer.from('00\r\n\x04', 'latin1')]));
    trace.record('in', f.bytes);
    await trace.close();
    const read = readPaste(await readFile(trace.file, 'latin1'));
    assert.equal(read.messages.length, 2);
    assert.match(texts(read)[0]!, /P\|1\|\|PID\|\|\*\*\*\r/);
    assert.equal(read.messages[0]?.redacted, true);
    assert.ok(read.notes.some((n) => /redacted, so checksums were not checked/.test(n)));
    assert.deepEqual(read.problems, []);
  });
});

describe('what a paste cannot give', () => {
  it('names an unknown token by line and column', () => {
    const read = readPaste('H|\\^&<CR>\nR|1|^^^GLU|5<FOO><CR>\nL|1<CR>\n');
    assert.deepEqual(read.problems, [{ line: 2, column: 13, message: 'unknown token <FOO>, read as text' }]);
  });

  it('names a frame whose checksum is wrong, and still shows its text', () => {
    const read = readPaste(`\x021H|\\^&\rL|1\r\x03FF\r\n${String.fromCharCode(EOT)}`);
    assert.equal(read.problems.length, 1);
    assert.equal(read.problems[0]?.frame, 1);
    assert.match(read.problems[0]!.message, /checksum FF, expected [0-9A-F]{2}/);
    assert.deepEqual(texts(read), ['H|\\^&\rL|1\r']);
  });

  it('names text before the first H record, and a paste without any', () => {
    const read = readPaste('captured on line 2\nH|\\^&\nL|1\n');
    assert.deepEqual(texts(read), ['H|\\^&\rL|1\r']);
    assert.match(read.problems[0]!.message, /1 record before the first H record left out: "captured on line 2"/);
    assert.match(readPaste('hello').problems[0]!.message, /no H record/);
  });
});
