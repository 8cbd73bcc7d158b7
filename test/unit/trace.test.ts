// The raw frame trace (lib/trace): file format, sessions, rotation, pruning,
// file modes, redaction of P records, and surviving write failures.
import { describe, it, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { chmod, mkdtemp, readFile, readdir, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ACK, ENQ, EOT, ETB, ETX, NAK, STX } from '../../lib/protocols/astm/control';
import { checksum } from '../../lib/protocols/astm/link/frame';
import { FrameTrace, readTraceLine, traceBytes, traceText } from '../../lib/trace';
import { ASTM_NAMING, E1381_TRACE, RECORDS_TRACE, astmTraceFraming } from '../../lib/protocols/astm';
import { MLLP_TRACE } from '../../lib/protocols/hl7';
import { initialUnitRedaction, initialRecordState, redactRecords, redactUnit, type UnitRedaction } from '../../lib/protocols/astm/trace-redact';
import { fixtureDir } from '../support/fixtures';

const T0 = Date.parse('2024-05-01T10:00:00.000Z');
const DAY = 86_400_000;

/** A clock the test moves by hand. */
function clock(start = T0): { now: () => Date; advance: (ms: number) => void } {
  let t = start;
  return { now: () => new Date(t), advance: (ms) => void (t += ms) };
}

async function tempDir(t: TestContext): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'lis-trace-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

const bytes = (s: string): Buffer => Buffer.from(s, 'latin1');

/** A whole E1381 frame with a correct checksum: STX FN text ETX|ETB C1 C2 CR LF. */
function frame(fn: number, text: string, end = ETX): Buffer {
  const body = Buffer.concat([bytes(`${fn}${text}`), Buffer.from([end])]);
  return Buffer.concat([Buffer.from([STX]), body, bytes(`${checksum(body)}\r\n`)]);
}

async function lines(file: string): Promise<string[]> {
  return (await readFile(file, 'latin1')).split('\n').filter((l) => l !== '');
}

/** The part of a line after time, direction and session. */
const textOf = (line: string): string => line.replace(/^\S+ (in|out)( \[[^\]]*\])? /, '');

const NAMED: Record<string, number> = { STX: 2, ETX: 3, EOT: 4, ENQ: 5, ACK: 6, LF: 10, CR: 13, NAK: 0x15, ETB: 0x17 };
/** Reads trace text back to bytes, written independently of traceText. */
function untrace(text: string): Buffer {
  const out: number[] = [];
  const re = /<(STX|ETX|EOT|ENQ|ACK|LF|CR|NAK|ETB|0x([0-9A-F]{2}))>|([\s\S])/g;
  for (const m of text.matchAll(re)) {
    if (m[2] !== undefined) out.push(parseInt(m[2], 16));
    else if (m[1] !== undefined) out.push(NAMED[m[1]] ?? -1);
    else out.push((m[3] ?? '').charCodeAt(0));
  }
  return Buffer.from(out);
}

const fixture = (name: string): Buffer => readFileSync(join(fixtureDir(), name));

/** Frames of a capture, found with a regular expression rather than the code under test. */
const framesOf = (capture: Buffer): Buffer[] =>
  [...capture.toString('latin1').matchAll(/\x02[^\x02\x04\x05]*?[\x03\x17]..\r?\n/g)].map((m) => bytes(m[0]));

/** Feeds `data` in pieces of `size` bytes, as a port would. */
function feed(trace: FrameTrace, direction: 'in' | 'out', data: Buffer, size: number, session?: string): void {
  for (let i = 0; i < data.length; i += size) trace.record(direction, data.subarray(i, i + size), session);
}

describe('traceText', () => {
  it('names ASTM control bytes, writes other bytes as <0xNN>, keeps printable ASCII', () => {
    const text = traceText(Buffer.from([STX, 0x31, 0x48, 0x7c, 0x1b, 0x7f, 0x80, 0xfc, 0x0d, ETX, 0x0a]), ASTM_NAMING);
    assert.equal(text, '<STX>1H|<0x1B><0x7F><0x80><0xFC><CR><ETX><LF>');
  });

  it("escapes only a '<' that would read as a token, so '<0.5' stays readable", () => {
    assert.equal(traceText(bytes('R|1|^^^CRP|<0.5|'), ASTM_NAMING), 'R|1|^^^CRP|<0.5|');
    assert.equal(traceText(bytes('<CR> <0x41> <STX'), ASTM_NAMING), '<0x3C>CR> <0x3C>0x41> <STX');
  });

  it('is one line and reads back to exactly the same bytes, for every byte value', () => {
    const all = Buffer.from([...Array(256).keys(), ...bytes('<CR><0x0D><ETX<STX>>')]);
    const text = traceText(all, ASTM_NAMING);
    assert.match(text, /^[\x20-\x7e]*$/);
    assert.deepEqual(untrace(text), all);
  });
});

describe('FrameTrace file', () => {
  it('writes one timestamped line per unit, in order, with in/out directions', async (t) => {
    const dir = await tempDir(t);
    const c = clock();
    const trace = new FrameTrace({ dir, name: 'link/1 a', framing: E1381_TRACE, now: c.now });
    assert.equal(trace.file, join(dir, 'link_1_a.trace.log'));
    const h = frame(1, 'H|\\^&|||ABX\r');
    trace.record('in', Buffer.from([ENQ]));
    c.advance(5);
    trace.record('out', Buffer.from([ACK]));
    c.advance(10);
    trace.record('in', h.subarray(0, 7)); // a read that ends inside the frame
    c.advance(3);
    trace.record('in', Buffer.concat([h.subarray(7), Buffer.from([EOT])]));
    c.advance(1);
    trace.record('out', Buffer.from([ACK]));
    await trace.close();
    assert.deepEqual(await lines(trace.file), [
      '2024-05-01T10:00:00.000Z in <ENQ>',
      '2024-05-01T10:00:00.005Z out <ACK>',
      `2024-05-01T10:00:00.018Z in <STX>1H|\\^&|||ABX<CR><ETX>${checksum(h.subarray(1, h.length - 4))}<CR><LF>`,
      '2024-05-01T10:00:00.018Z in <EOT>',
      '2024-05-01T10:00:00.019Z out <ACK>',
    ]);
  });

  it('writes the answer after the frame it answers: a frame whose CR LF come after the ACK, or never, is shown once its checksum is read', async (t) => {
    const dir = await tempDir(t);
    const c = clock();
    const trace = new FrameTrace({ dir, name: 'order', framing: E1381_TRACE, now: c.now });
    const h = frame(1, 'H|\\^&|||ABX\r');
    const p = frame(2, 'P|1\r');
    const l = frame(3, 'L|1|N\r');
    // The link answers a frame at its second checksum character (lib/protocols/astm/link/frame-reader): here the read
    // that ends there is answered before the read with the CR LF; the next frame comes without CR LF at all.
    trace.record('in', h.subarray(0, h.length - 2), 'S1');
    trace.record('out', Buffer.from([ACK]), 'S1');
    c.advance(1);
    trace.record('in', h.subarray(h.length - 2), 'S1');
    c.advance(1);
    trace.record('in', p.subarray(0, p.length - 2), 'S1');
    trace.record('out', Buffer.from([ACK]), 'S1');
    c.advance(1);
    trace.record('in', l, 'S1');
    trace.record('out', Buffer.from([ACK]), 'S1');
    await trace.close();
    assert.deepEqual((await lines(trace.file)).map(textOf), [
      traceText(h.subarray(0, h.length - 2), ASTM_NAMING),
      '<ACK>',
      '<CR><LF>',
      traceText(p.subarray(0, p.length - 2), ASTM_NAMING),
      '<ACK>',
      traceText(l, ASTM_NAMING),
      '<ACK>',
    ]);
    // Each line is written at the time of its last bytes: the frame's before its answer's.
    const at = (await lines(trace.file)).map((x) => x.slice(0, 24));
    assert.deepEqual(at, [...at].sort());
  });

  it("keeps the host's frames before the analyzer's answers too, and a whole frame read at once as one line", async (t) => {
    const dir = await tempDir(t);
    const trace = new FrameTrace({ dir, name: 'host', framing: E1381_TRACE, now: clock().now });
    const o = frame(1, 'O|1|S1\r');
    trace.record('out', o.subarray(0, o.length - 1));
    trace.record('in', Buffer.from([ACK]));
    trace.record('out', o.subarray(o.length - 1));
    trace.record('out', Buffer.from([EOT]));
    trace.record('in', o);
    trace.record('out', Buffer.from([ACK]));
    await trace.close();
    assert.deepEqual((await lines(trace.file)).map(textOf), [traceText(o.subarray(0, o.length - 1), ASTM_NAMING), '<ACK>', '<LF>', '<EOT>', traceText(o, ASTM_NAMING), '<ACK>']);
  });

  it('keeps TCP sessions apart: interleaved reads still give whole frames, tagged by session', async (t) => {
    const dir = await tempDir(t);
    const trace = new FrameTrace({ dir, name: 'tcp', framing: E1381_TRACE, now: clock().now });
    const a = frame(1, 'H|\\^&|||A\r');
    const b = frame(1, 'H|\\^&|||B\r');
    trace.record('in', a.subarray(0, 5), 's1');
    trace.record('in', b.subarray(0, 8), 's 2');
    trace.record('out', Buffer.from([ACK]), 's1'); // the other direction of s1 is a unit of its own
    trace.record('in', a.subarray(5), 's1');
    trace.record('in', b.subarray(8), 's 2');
    await trace.close();
    assert.deepEqual(
      (await lines(trace.file)).map((l) => l.slice(25)),
      ['out [s1] <ACK>', `in [s1] ${traceText(a, ASTM_NAMING)}`, `in [s_2] ${traceText(b, ASTM_NAMING)}`],
    );
  });

  it('cuts records at CR when unframed', async (t) => {
    const dir = await tempDir(t);
    const trace = new FrameTrace({ dir, name: 'rec', framing: RECORDS_TRACE, now: clock().now });
    feed(trace, 'in', bytes('H|\\^&\rP|1\rL|1\r'), 4);
    await trace.close();
    assert.deepEqual((await lines(trace.file)).map(textOf), ['H|\\^&<CR>', 'P|1<CR>', 'L|1<CR>']);
  });

  it('cuts MLLP at each message (VT … FS CR), names VT and FS, and shows bytes between messages as their own unit', async (t) => {
    const dir = await tempDir(t);
    const trace = new FrameTrace({ dir, name: 'mllp', framing: MLLP_TRACE, now: clock().now });
    const wire = bytes('\x0bMSH|^~\\&|A\rPID|1||x<VT>\r\x1c\r\r\n\x0bMSH|^~\\&|B\r\x1c\r');
    feed(trace, 'in', wire, 5);
    await trace.close();
    const shown = (await lines(trace.file)).map(textOf);
    assert.deepEqual(shown, ['<VT>MSH|^~\\&|A<CR>PID|1||x<0x3C>VT><CR><FS><CR>', '<CR><LF>', '<VT>MSH|^~\\&|B<CR><FS><CR>']);
    assert.equal(traceText(bytes('\x0b\x1c'), ASTM_NAMING), '<0x0B><0x1C>', 'ASTM traces name them as before');
  });

  it('blanks PID-5 to PID-7 of HL7 messages with redact, whatever the reads, in the message\'s own field separator', async (t) => {
    const dir = await tempDir(t);
    const trace = new FrameTrace({ dir, name: 'mllp-r', framing: MLLP_TRACE, redact: true, now: clock().now });
    feed(trace, 'in', bytes('\x0bMSH#^~\\&#A\rPID#1##P9##Doe^Jane#Mother#19700101#F\rOBX#1#NM#GLU##5\r\x1c\r'), 7);
    trace.record('in', bytes('\x0bMSH|^~\\&|A\nPID|1||P9||||19700101\n\x1c\r'));
    await trace.close();
    assert.deepEqual((await lines(trace.file)).map(textOf), [
      '<VT>MSH#^~\\&#A<CR>PID#1##P9##***#***#***#F<CR>OBX#1#NM#GLU##5<CR><FS><CR> [redacted]',
      '<VT>MSH|^~\\&|A<LF>PID|1||P9||||***<LF><FS><CR> [redacted]',
    ]);
  });

  it('writes a partial frame on close', async (t) => {
    const dir = await tempDir(t);
    const trace = new FrameTrace({ dir, name: 'p', framing: E1381_TRACE, now: clock().now });
    trace.record('in', frame(1, 'H|\\^&\r'));
    trace.record('in', bytes('\x022O|1|S1'));
    await trace.close();
    assert.deepEqual((await lines(trace.file)).map(textOf).slice(1), ['<STX>2O|1|S1']);
  });

  it('writes a partial frame after an idle pause, and what follows as a unit of its own', async (t) => {
    const dir = await tempDir(t);
    const trace = new FrameTrace({ dir, name: 'idle', framing: E1381_TRACE, now: clock().now });
    const f = frame(2, 'O|1|S1\r');
    trace.record('in', f.subarray(0, 5));
    await new Promise((resolve) => setTimeout(resolve, 350));
    trace.record('in', f.subarray(5));
    await trace.close();
    assert.deepEqual((await lines(trace.file)).map(textOf), [traceText(f.subarray(0, 5), ASTM_NAMING), traceText(f.subarray(5), ASTM_NAMING)]);
  });

  it('ignores records after close', async (t) => {
    const dir = await tempDir(t);
    const trace = new FrameTrace({ dir, name: 'c', framing: E1381_TRACE, now: clock().now });
    trace.record('in', Buffer.from([ENQ]));
    await trace.close();
    assert.doesNotThrow(() => trace.record('in', Buffer.from([EOT])));
    await trace.flush();
    assert.deepEqual((await lines(trace.file)).map(textOf), ['<ENQ>']);
  });
});

describe('FrameTrace rotation and pruning', () => {
  const rotatedName = /^r\.trace\.20240501T100000Z(?:-(\d+))?\.log$/;

  it('rotates by size, with unique names within one second, and keeps maxFiles', async (t) => {
    const dir = await tempDir(t);
    const trace = new FrameTrace({ dir, name: 'r', framing: E1381_TRACE, maxBytes: 300, maxFiles: 2, now: clock().now });
    const sent: string[] = [];
    for (let i = 0; i < 20; i++) {
      const f = frame(i % 8, `R|${i}|^^^GLU|${100 + i}|mg/dL\r`);
      sent.push(traceText(f, ASTM_NAMING));
      trace.record('in', f);
    }
    await trace.close();
    const files = await readdir(dir);
    const rotated = files.filter((f) => rotatedName.test(f));
    assert.equal(rotated.length, 2, files.join(', '));
    assert.equal(files.length, 3, files.join(', '));
    rotated.sort((x, y) => Number(rotatedName.exec(x)?.[1] ?? 0) - Number(rotatedName.exec(y)?.[1] ?? 0));
    const kept: string[] = [];
    for (const f of [...rotated, 'r.trace.log']) {
      const s = await stat(join(dir, f));
      assert.ok(s.size <= 300, `${f} is ${s.size} bytes`);
      assert.equal(s.mode & 0o777, 0o600, f);
      kept.push(...(await lines(join(dir, f))).map(textOf));
    }
    // What is kept is the newest lines, whole and in order.
    assert.ok(kept.length >= 6);
    assert.deepEqual(kept, sent.slice(sent.length - kept.length));
  });

  it('never overwrites a rotated file left from before with the same second', async (t) => {
    const dir = await tempDir(t);
    await writeFile(join(dir, 'r.trace.20240501T100000Z.log'), 'from an earlier run\n');
    const trace = new FrameTrace({ dir, name: 'r', framing: E1381_TRACE, maxBytes: 100, now: clock().now });
    for (let i = 0; i < 3; i++) trace.record('in', frame(i, `R|${i}|^^^GLU|1|mg/dL\r`));
    await trace.close();
    assert.equal(await readFile(join(dir, 'r.trace.20240501T100000Z.log'), 'latin1'), 'from an earlier run\n');
    assert.deepEqual((await readdir(dir)).sort(), ['r.trace.20240501T100000Z-1.log', 'r.trace.20240501T100000Z-2.log', 'r.trace.20240501T100000Z.log', 'r.trace.log']);
  });

  it('deletes its own rotated files older than maxAgeDays on open, then at most hourly', async (t) => {
    const dir = await tempDir(t);
    const at = async (name: string, daysOld: number): Promise<string> => {
      const path = join(dir, name);
      await writeFile(path, 'x\n');
      const time = new Date(T0 - daysOld * DAY);
      await utimes(path, time, time);
      return path;
    };
    const old = await at('n.trace.20240301T000000Z.log', 40);
    const oldSecond = await at('n.trace.20240301T000000Z-1.log', 31);
    const recent = await at('n.trace.20240420T000000Z.log', 10);
    const current = await at('n.trace.log', 40); // the current file is never aged out
    const otherLink = await at('n2.trace.20240301T000000Z.log', 40);
    const unrelated = await at('notes.txt', 40);
    const c = clock();
    const trace = new FrameTrace({ dir, name: 'n', framing: E1381_TRACE, now: c.now });
    await trace.flush();
    assert.deepEqual([old, oldSecond, recent, current, otherLink, unrelated].map(existsSync), [false, false, true, true, true, true]);

    const time = new Date(T0 - 40 * DAY);
    await utimes(recent, time, time);
    c.advance(30 * 60_000);
    trace.record('in', Buffer.from([ENQ]));
    await trace.flush();
    assert.ok(existsSync(recent), 'not checked again within the hour');
    c.advance(31 * 60_000);
    trace.record('in', Buffer.from([EOT]));
    await trace.flush();
    assert.ok(!existsSync(recent), 'checked again after an hour');
    await trace.close();
  });

  it('deletes the oldest rotated files beyond maxFiles on open', async (t) => {
    const dir = await tempDir(t);
    const names = ['m.trace.20240102T000000Z.log', 'm.trace.20240101T000000Z-1.log', 'm.trace.20240101T000000Z.log', 'm.trace.20240103T000000Z.log'];
    for (const name of names) await writeFile(join(dir, name), 'x\n');
    const trace = new FrameTrace({ dir, name: 'm', framing: E1381_TRACE, maxFiles: 2, now: clock().now });
    await trace.close();
    assert.deepEqual((await readdir(dir)).sort(), ['m.trace.20240102T000000Z.log', 'm.trace.20240103T000000Z.log', 'm.trace.log']);
  });
});

describe('FrameTrace file modes', () => {
  it('creates the directory 0700 and the file 0600, even with umask 0', async (t) => {
    const root = await tempDir(t);
    const dir = join(root, 'a', 'b');
    const umask = process.umask(0);
    try {
      const trace = new FrameTrace({ dir, name: 'mode', framing: E1381_TRACE, now: clock().now });
      trace.record('in', Buffer.from([ENQ]));
      await trace.close();
    } finally {
      process.umask(umask);
    }
    assert.equal((await stat(dir)).mode & 0o777, 0o700);
    assert.equal((await stat(join(dir, 'mode.trace.log'))).mode & 0o777, 0o600);
  });

  it('narrows an existing file left with a wider mode to 0600', async (t) => {
    const dir = await tempDir(t);
    const file = join(dir, 'w.trace.log');
    await writeFile(file, 'older line\n');
    await chmod(file, 0o644);
    const trace = new FrameTrace({ dir, name: 'w', framing: E1381_TRACE, now: clock().now });
    trace.record('in', Buffer.from([ENQ]));
    await trace.close();
    assert.equal((await stat(file)).mode & 0o777, 0o600);
    assert.deepEqual((await lines(file)).map(textOf), ['older line', '<ENQ>'], 'appended, not truncated');
  });
});

describe('FrameTrace write failures', () => {
  it('does not throw, reports at most once a minute, and writes how many lines were lost once it works again', async (t) => {
    const root = await tempDir(t);
    // A directory under a regular file cannot be created, even by root.
    const blocker = join(root, 'blocker');
    await writeFile(blocker, '');
    const dir = join(blocker, 'trace');
    const errors: Error[] = [];
    const c = clock();
    const trace = new FrameTrace({ dir, name: 'f', framing: E1381_TRACE, now: c.now, onError: (e) => errors.push(e) });
    assert.doesNotThrow(() => {
      trace.record('in', Buffer.from([ENQ]));
      trace.record('in', frame(1, 'H|\\^&\r'));
      trace.record('in', Buffer.from([EOT]));
    });
    await trace.flush(); // resolves, does not reject
    await trace.flush();
    assert.equal(errors.length, 1, 'several failures within a minute, one report');
    assert.match(errors[0]?.message ?? '', /ENOTDIR|EEXIST/);

    c.advance(61_000);
    trace.record('out', Buffer.from([ACK]));
    await trace.flush();
    assert.equal(errors.length, 2, 'reported again after a minute');

    await rm(blocker);
    c.advance(1_000);
    trace.record('in', Buffer.from([ENQ]));
    await trace.close();
    const written = await lines(join(dir, 'f.trace.log'));
    assert.equal(written.length, 2, written.join('\n'));
    assert.match(written[0] ?? '', /^2024-05-01T10:01:02\.000Z !! 4 trace lines lost: .*(ENOTDIR|EEXIST)/);
    assert.equal(written[1], '2024-05-01T10:01:02.000Z in <ENQ>');
  });

  it('opens afresh when its directory was removed, so lines do not vanish into a deleted file', async (t) => {
    const root = await tempDir(t);
    const dir = join(root, 'trace');
    const trace = new FrameTrace({ dir, name: 'g', framing: E1381_TRACE, now: clock().now });
    trace.record('in', Buffer.from([ENQ]));
    await trace.flush();
    await rm(dir, { recursive: true });
    trace.record('in', Buffer.from([EOT]));
    await trace.close();
    assert.deepEqual((await lines(trace.file)).map(textOf), ['<EOT>']);
    assert.equal((await stat(dir)).mode & 0o777, 0o700);
  });

  it('drops and counts lines beyond 8 MiB waiting to be written', async (t) => {
    const dir = await tempDir(t);
    const trace = new FrameTrace({ dir, name: 'big', framing: RECORDS_TRACE, now: clock().now });
    const record = Buffer.alloc(64 * 1024, 0x41);
    record[record.length - 1] = 0x0d;
    const total = 140; // 8.75 MiB, recorded before the writer gets a turn
    for (let i = 0; i < total; i++) trace.record('in', record);
    await trace.close();
    const written = await lines(trace.file);
    const note = written.at(-1) ?? '';
    const m = /!! (\d+) trace lines lost: more than 8 MiB waiting to be written$/.exec(note);
    assert.ok(m, note.slice(0, 200));
    assert.ok(Number(m[1]) > 0);
    assert.equal(written.length - 1 + Number(m[1]), total);
  });
});

describe('redact.ts', () => {
  const text = 'H;\\^&\rP;1;;PID;;Smith^John;Maiden;19650101;M\rO;1;S1;;^^^GLU;R;20240101;20240102\rL;1\r';
  const expected = 'H;\\^&\rP;1;;PID;;***;***;***;M\rO;1;S1;;^^^GLU;R;20240101;20240102\rL;1\r';

  it('blanks P-6, P-7 and P-8 with the delimiter from the H record', () => {
    const r = redactRecords(bytes(text), initialRecordState());
    assert.equal(r.bytes.toString('latin1'), expected);
    assert.equal(r.redacted, true);
    assert.equal(r.state.delimiter, 0x3b);
  });

  it('gives the same result wherever the text is cut in two (state carries over)', () => {
    for (let i = 0; i <= text.length; i++) {
      const first = redactRecords(bytes(text.slice(0, i)), initialRecordState());
      const second = redactRecords(bytes(text.slice(i)), first.state);
      assert.equal(Buffer.concat([first.bytes, second.bytes]).toString('latin1'), expected, `cut at ${i}`);
    }
  });

  it('leaves empty fields empty and reports no change when there is nothing to blank', () => {
    const r = redactRecords(bytes('P|1||PID|||||F\r'), initialRecordState());
    assert.equal(r.bytes.toString('latin1'), 'P|1||PID|||||F\r');
    assert.equal(r.redacted, false);
  });

  /** Runs units through redactUnit, returning the texts and redacted flags. */
  function run(units: Buffer[], framed = true, state: UnitRedaction = initialUnitRedaction()): { texts: string[]; flags: boolean[] } {
    const texts: string[] = [];
    const flags: boolean[] = [];
    for (const u of units) {
      const r = redactUnit(u, framed, state);
      state = r.state;
      texts.push(r.bytes.toString('latin1'));
      flags.push(r.redacted);
    }
    return { texts, flags };
  }

  it('keeps STX, frame number, terminator and checksum as they were', () => {
    const f = frame(3, 'P|1||x||Doe^Jane||19990101|F\r');
    const { texts } = run([f]);
    assert.equal(texts[0], `\x023P|1||x||***||***|F\r\x03${f.subarray(-4).toString('latin1')}`);
  });

  it('a frame sent again (same number, after a NAK) is read from where its first copy began', () => {
    const f1 = frame(1, 'P|1||PID||Smi', ETB);
    const { texts } = run([frame(0, 'H|\\^&\r'), f1, Buffer.from([NAK]), f1, frame(2, 'th^John||19650101|M\r')]);
    assert.equal(texts[1], texts[3]);
    assert.ok(texts[1]?.includes('P|1||PID||***'), texts[1]);
    assert.ok(texts[4]?.startsWith('\x022||***|M\r'), texts[4]);
  });

  it('ETX ends a record that had no CR, and EOT ends an unfinished one', () => {
    const o = (fn: number): Buffer => frame(fn, 'O|1|S|x|^^^A|R|keep6|keep7|keep8\r');
    const afterEtx = run([frame(1, 'P|1||x||Name', ETX), o(2)]);
    assert.deepEqual(afterEtx.texts[1], o(2).toString('latin1'));
    assert.deepEqual(afterEtx.flags, [true, false]);
    const afterEot = run([frame(1, 'P|1||x||Name', ETB), Buffer.from([EOT]), Buffer.from([ENQ]), o(1)]);
    assert.deepEqual(afterEot.texts[3], o(1).toString('latin1'));
    assert.deepEqual(afterEot.flags, [true, false, false, false]);
  });

  it('the rest of a frame shown early (idle pause) goes on with the same record', () => {
    const { texts, flags } = run([bytes('\x021P|1||x||Sm'), bytes('ith^J|Maiden|19650101|F\r\x03AB\r\n')]);
    assert.equal(texts[0], '\x021P|1||x||***');
    assert.equal(texts[1], '|***|***|F\r\x03AB\r\n');
    assert.deepEqual(flags, [true, true]);
  });
});

describe('FrameTrace redaction', () => {
  async function traced(t: TestContext, units: Buffer[], redact: boolean, framed = true): Promise<string[]> {
    const dir = await tempDir(t);
    const trace = new FrameTrace({ dir, name: 'x', framing: astmTraceFraming(framed), redact, now: clock().now });
    for (const u of units) feed(trace, 'in', u, 5, 'tcp-1');
    await trace.close();
    return (await lines(trace.file)).map(textOf);
  }
  const h = frame(1, 'H|\\^&|||ABX\r');

  it('blanks name, maiden name and birth date of a P record in one frame, and marks the line', async (t) => {
    const out = await traced(t, [h, frame(2, 'P|1||PID||Smith^John|Maiden|19650101|M\r')], true);
    assert.equal(out[0], traceText(h, ASTM_NAMING), 'H untouched, not marked');
    assert.match(out[1] ?? '', /^<STX>2P\|1\|\|PID\|\|\*\*\*\|\*\*\*\|\*\*\*\|M<CR><ETX>[0-9A-F]{2}<CR><LF> \[redacted\]$/);
  });

  it('blanks a P record among several records in one frame, and nothing else', async (t) => {
    const f = frame(1, 'H|\\^&\rP|1||A||Doe^Jane||20000101|F\rO|1|S1||^^^GLU|R|20240101|20240102|\rL|1\r');
    const out = await traced(t, [f], true);
    assert.equal(out[0]?.endsWith(' [redacted]'), true);
    assert.ok(out[0]?.includes('<CR>P|1||A||***||***|F<CR>O|1|S1||^^^GLU|R|20240101|20240102|<CR>L|1<CR>'), out[0]);
  });

  it('blanks a P record split across two frames (ETB), in both lines', async (t) => {
    const first = frame(2, 'P|1||PID||Smi', ETB);
    const out = await traced(t, [h, first, frame(3, 'th^John||19650101|M\rO|1|S1||^^^GLU|R|20240101\r')], true);
    // The checksum shown is the one the analyzer sent, for the text before redaction.
    assert.equal(out[1], `<STX>2P|1||PID||***<ETB>${first.subarray(-4, -2).toString('latin1')}<CR><LF> [redacted]`);
    assert.ok(out[2]?.startsWith('<STX>3||***|M<CR>O|1|S1||^^^GLU|R|20240101<CR><ETX>'), out[2]);
    assert.ok(out[2]?.endsWith(' [redacted]'));
    assert.ok(!out.join('\n').includes('John') && !out.join('\n').includes('1965'));
  });

  it('uses the field delimiter of the last H record of that session', async (t) => {
    const out = await traced(t, [frame(1, 'H!\\^&\r'), frame(2, 'P!1!!PID!!Smith^John!!19650101!M\r')], true);
    assert.ok(out[1]?.startsWith('<STX>2P!1!!PID!!***!!***!M<CR>'), out[1]);
  });

  it('does not redact when redact is false', async (t) => {
    const p = frame(2, 'P|1||PID||Smith^John|Maiden|19650101|M\r');
    const out = await traced(t, [h, p], false);
    assert.deepEqual(out, [traceText(h, ASTM_NAMING), traceText(p, ASTM_NAMING)]);
  });

  it('real capture (HORIBA Pentra XLR, framed): only the P frame changes', async (t) => {
    const capture = fixture('horiba-pentra-xlr-result.txt');
    const frames = framesOf(capture);
    assert.equal(frames.length, 28);
    const out = await traced(t, [capture], true);
    assert.equal(out.length, frames.length);
    assert.ok(capture.includes('Mohale^Rita||19771201'), 'the fixture has the name this test looks for');
    for (const [i, f] of frames.entries()) {
      if (f.includes('P|1||')) assert.equal(out[i], '<STX>2P|1||||***||***|F<CR><ETX>C9<LF> [redacted]');
      else assert.equal(out[i], traceText(f, ASTM_NAMING), `frame ${i + 1}`);
    }
    assert.ok((await traced(t, [capture], false)).some((l) => l.includes('Mohale^Rita||19771201')));
  });

  it('real capture (Sysmex XN-550, one frame of many records)', async (t) => {
    const capture = fixture('sysmex-xn550-result.txt');
    const out = await traced(t, [capture], true);
    const all = out.join('\n');
    assert.ok(capture.includes('|^Jim^Brown||19870626|'));
    assert.ok(all.includes('<CR>P|1|||37182|***||***|M|'), all.slice(0, 300));
    assert.ok(!all.includes('Jim') && !all.includes('19870626'));
    assert.ok(all.includes('R|1|^^^^WBC^1|8.13|10*3/uL||N||F||||20240627135407<CR>'), 'results untouched');
  });

  it('real capture (Bio-Rad IH-Com, records only)', async (t) => {
    // The fixture separates records with LF, as stored; on the wire they end in CR.
    const capture = bytes(fixture('biorad-ihcom-bloodtype-result.txt').toString('latin1').replace(/\r?\n/g, '\r'));
    const out = await traced(t, [capture], true, false);
    const p = /P\|1\|\|1010868845\|\|Testus\^Test\|\|19400607\|M[^\r]*\r/.exec(capture.toString('latin1'))?.[0] ?? 'missing';
    assert.equal(out[1], traceText(bytes(p.replace('Testus^Test', '***').replace('19400607', '***')), ASTM_NAMING) + ' [redacted]');
    assert.equal(out.filter((l) => l.endsWith('[redacted]')).length, 1);
  });
});

describe('readTraceLine', () => {
  it('gives back the exact bytes of every byte value, with time, direction and session', () => {
    const all = Buffer.from(Array.from({ length: 256 }, (_, i) => i));
    const mixed = Buffer.concat([all, bytes('<STX><0x41> < <'), all]);
    const line = readTraceLine(`2024-05-01T10:00:00.000Z in [10.0.0.7:50412] ${traceText(mixed, ASTM_NAMING)}`, ASTM_NAMING);
    assert.ok(line);
    assert.ok(line.bytes.equals(mixed));
    assert.equal(line.direction, 'in');
    assert.equal(line.session, '10.0.0.7:50412');
    assert.equal(line.redacted, false);
    assert.equal(traceBytes(traceText(all, ASTM_NAMING), ASTM_NAMING).equals(all), true);
  });

  it('tells redacted lines and notes apart, and refuses what is no trace line', () => {
    assert.equal(readTraceLine('2024-05-01T10:00:00.000Z out <ACK> [redacted]', ASTM_NAMING)?.redacted, true);
    assert.equal(readTraceLine('2024-05-01T10:00:00.000Z !! 3 trace lines lost: disk full', ASTM_NAMING)?.direction, '!!');
    assert.equal(readTraceLine('H|\\^&|||', ASTM_NAMING), undefined);
  });
});
