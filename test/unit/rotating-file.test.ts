// The rotating log file on its own (lib/util/rotating-file): entries in and
// bytes out, rotation by size, pruning by age and count, owner-only modes,
// write failures and recovery, flush and close.
import { describe, it, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, readFile, readdir, rename, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RotatingFile, type RotatingFileOptions } from '../../lib/util/rotating-file';

const START = Date.parse('2024-05-01T10:00:00.000Z');
const HOUR = 3_600_000;

/** Time that moves only when the test says so. */
class ManualClock {
  constructor(private t = START) {}
  readonly now = (): Date => new Date(this.t);
  advance(ms: number): void {
    this.t += ms;
  }
}

async function scratch(t: TestContext): Promise<string> {
  const root = await mkdtemp(join(tmpdir(), 'lis-rotfile-'));
  t.after(() => rm(root, { recursive: true, force: true }));
  return root;
}

function writer(dir: string, options: Partial<RotatingFileOptions> = {}): RotatingFile {
  return new RotatingFile({ dir, name: 'log', now: new ManualClock().now, ...options });
}

const text = (path: string): Promise<string> => readFile(path, 'utf8');

/** The writer's files, oldest first (rotated by stamp then counter, the current one last). */
async function filesInOrder(dir: string, name = 'log'): Promise<string[]> {
  const pattern = new RegExp(`^${name}\\.(\\d{8}T\\d{6}Z)(?:-(\\d+))?\\.log$`);
  const rotated = (await readdir(dir))
    .map((f) => ({ f, m: pattern.exec(f) }))
    .filter((x) => x.m !== null)
    .sort((a, b) => (a.m?.[1] ?? '').localeCompare(b.m?.[1] ?? '') || Number(a.m?.[2] ?? 0) - Number(b.m?.[2] ?? 0))
    .map((x) => x.f);
  return existsSync(join(dir, `${name}.log`)) ? [...rotated, `${name}.log`] : rotated;
}

/** A dir that cannot be created: its parent is a regular file (this holds even for root). */
async function blocked(root: string): Promise<{ dir: string; unblock: () => Promise<void> }> {
  const parent = join(root, 'not-a-dir');
  await writeFile(parent, '');
  return { dir: join(parent, 'logs'), unblock: () => rm(parent) };
}

describe('RotatingFile entries', () => {
  it('appends strings as UTF-8 and bytes as given, in order, after what the file held', async (t) => {
    const dir = await scratch(t);
    await writeFile(join(dir, 'log.log'), 'earlier\n');
    const w = writer(dir);
    const reused = Buffer.from([0x00, 0xff, 0x0a]);
    w.append('ééén\n');
    w.append(reused);
    reused.fill(0x41); // a caller reusing its buffer must not change what gets written
    w.append(new Uint8Array([0x7a, 0x0a]));
    await w.close();
    assert.deepEqual(
      await readFile(join(dir, 'log.log')),
      Buffer.concat([Buffer.from('earlier\nééén\n', 'utf8'), Buffer.from([0x00, 0xff, 0x0a, 0x7a, 0x0a])]),
    );
  });

  it('names its file after `name`, other characters than [A-Za-z0-9._-] becoming _', async (t) => {
    const dir = await scratch(t);
    const odd = writer(dir, { name: 'link/1 ä.hl7' });
    const empty = writer(dir, { name: '' });
    assert.equal(odd.file, join(dir, 'link_1__.hl7.log'));
    assert.equal(empty.file, join(dir, '_.log'));
    await Promise.all([odd.close(), empty.close()]);
    assert.deepEqual((await readdir(dir)).sort(), ['_.log', 'link_1__.hl7.log'], 'both files are created on open');
  });

  it('close writes everything queued, then ignores appends; flush and close again just resolve', async (t) => {
    const dir = await scratch(t);
    const w = writer(dir, { maxBytes: 4096 });
    const sent = Array.from({ length: 2000 }, (_, i) => `entry ${i}\n`);
    for (const e of sent) w.append(e);
    const closing = w.close();
    w.append('too late\n');
    assert.equal(w.close(), closing, 'the same close');
    await closing;
    await w.flush();
    let written = '';
    for (const f of await filesInOrder(dir)) written += await text(join(dir, f));
    assert.equal(written, sent.join(''));
  });

  it('flush resolves once what was appended so far is in the file', async (t) => {
    const dir = await scratch(t);
    const w = writer(dir);
    w.append('one\n');
    await w.flush();
    assert.equal(await text(w.file), 'one\n');
    w.append('two\n');
    await w.flush();
    assert.equal(await text(w.file), 'one\ntwo\n');
    await w.close();
  });
});

describe('RotatingFile batches', () => {
  it('with batchMs, flush and close write what waits for its batch without waiting for the timer', async (t) => {
    const dir = await scratch(t);
    const w = writer(dir, { batchMs: 3_600_000 });
    w.append('one\n');
    w.append('two\n');
    await w.flush();
    assert.equal(await text(w.file), 'one\ntwo\n');
    w.append('three\n');
    await w.close();
    assert.equal(await text(w.file), 'one\ntwo\nthree\n');
  });

  it('with movedCheckMs, still follows its path on flush when the file was renamed away or deleted', async (t) => {
    const dir = await scratch(t);
    const w = writer(dir, { movedCheckMs: 3_600_000, batchMs: 3_600_000 });
    w.append('first\n');
    await w.flush();
    await rename(w.file, join(dir, 'log.log.1'));
    w.append('second\n');
    await w.flush();
    await rm(w.file);
    w.append('third\n');
    await w.close();
    assert.equal(await text(join(dir, 'log.log.1')), 'first\n');
    assert.equal(await text(w.file), 'third\n');
  });
});

describe('RotatingFile rotation by size', () => {
  it('never takes a file past maxBytes nor splits an entry; rotated names count up within a second', async (t) => {
    const dir = await scratch(t);
    const c = new ManualClock();
    const w = writer(dir, { maxBytes: 100, maxFiles: 50, now: c.now });
    const sent: string[] = [];
    for (let i = 0; i < 12; i++) sent.push(`${String(i).padStart(2, '0')} ${'x'.repeat(26)}\n`); // 30 bytes each
    for (const e of sent.slice(0, 9)) w.append(e);
    await w.flush();
    c.advance(1_000);
    for (const e of sent.slice(9)) w.append(e);
    await w.close();

    const files = await filesInOrder(dir);
    assert.deepEqual(files, ['log.20240501T100000Z.log', 'log.20240501T100000Z-1.log', 'log.20240501T100001Z.log', 'log.log']);
    const contents = await Promise.all(files.map((f) => text(join(dir, f))));
    for (const [i, body] of contents.entries()) {
      assert.ok(Buffer.byteLength(body) <= 100, `${files[i]}: ${body.length} bytes`);
      assert.match(body, /^(\d\d x{26}\n)+$/, `${files[i]} holds whole entries`);
    }
    assert.equal(contents.join(''), sent.join(''));
  });

  it('gives an entry larger than maxBytes a file of its own', async (t) => {
    const dir = await scratch(t);
    const w = writer(dir, { maxBytes: 10 });
    const big = `${'y'.repeat(40)}\n`;
    w.append('small\n');
    w.append(big);
    w.append('tail\n');
    await w.close();
    const files = await filesInOrder(dir);
    assert.deepEqual(await Promise.all(files.map((f) => text(join(dir, f)))), ['small\n', big, 'tail\n']);
  });

  it('does not reuse a name of the same second after pruning it, so the newest file is the one kept', async (t) => {
    const dir = await scratch(t);
    const w = writer(dir, { maxBytes: 8, maxFiles: 1 });
    for (let i = 0; i < 6; i++) w.append(`line ${i}\n`);
    await w.close();
    const files = await filesInOrder(dir);
    assert.deepEqual(files, ['log.20240501T100000Z-4.log', 'log.log']);
    assert.equal(await text(join(dir, files[0] ?? '')), 'line 4\n');
    assert.equal(await text(join(dir, 'log.log')), 'line 5\n');
  });

  it('counts up within a second even when the files of that second are gone', async (t) => {
    const dir = await scratch(t);
    const w = writer(dir, { maxBytes: 8 });
    w.append('line 0\n');
    w.append('line 1\n');
    await w.flush();
    await rm(join(dir, 'log.20240501T100000Z.log'));
    w.append('line 2\n');
    await w.close();
    assert.deepEqual(await filesInOrder(dir), ['log.20240501T100000Z-1.log', 'log.log']);
  });
});

describe('RotatingFile retention', () => {
  it('keeps the newest maxFiles rotated files, by stamp then counter, and touches no one else’s', async (t) => {
    const dir = await scratch(t);
    const present = [
      'log.20240102T000000Z.log',
      'log.20240101T000000Z-2.log',
      'log.20240101T000000Z-10.log',
      'log.20240101T000000Z.log',
      'log.20231231T235959Z.log',
      'log2.20200101T000000Z.log',
      'log.x.20200101T000000Z.log',
      'log.20200101T000000Z.txt',
      'notes.txt',
    ];
    for (const f of present) await writeFile(join(dir, f), 'x\n');
    const w = writer(dir, { maxFiles: 2 });
    await w.close();
    assert.deepEqual((await readdir(dir)).sort(), [
      'log.20200101T000000Z.txt',
      'log.20240101T000000Z-10.log',
      'log.20240102T000000Z.log',
      'log.log',
      'log.x.20200101T000000Z.log',
      'log2.20200101T000000Z.log',
      'notes.txt',
    ]);
  });

  it('with maxFiles 0 keeps only the current file', async (t) => {
    const dir = await scratch(t);
    const w = writer(dir, { maxBytes: 5, maxFiles: 0 });
    for (const e of ['a\n', 'bb\n', 'ccc\n']) w.append(e);
    await w.close();
    assert.deepEqual(await readdir(dir), ['log.log']);
    assert.equal(await text(join(dir, 'log.log')), 'ccc\n');
  });

  it('ages out rotated files past maxAgeDays, checking at most once an hour, never the current file', async (t) => {
    const dir = await scratch(t);
    // The files get real mtimes, so this clock starts at the real time.
    const c = new ManualClock(Date.now());
    const w = writer(dir, { maxBytes: 10, maxAgeDays: 1, now: c.now });
    w.append('old entry\n');
    w.append('new\n');
    await w.flush();
    const [rotated] = await filesInOrder(dir);
    assert.ok(rotated !== undefined && rotated !== 'log.log');

    // Each append below fits (no rotation), so only the hourly check can prune.
    const appendAfter = async (ms: number): Promise<boolean> => {
      c.advance(ms);
      w.append('\n');
      await w.flush();
      return existsSync(join(dir, rotated));
    };
    assert.ok(await appendAfter(23.5 * HOUR), 'younger than a day');
    assert.ok(await appendAfter(0.75 * HOUR), 'past a day, but checked less than an hour ago');
    assert.ok(!(await appendAfter(0.25 * HOUR)), 'checked again an hour later');
    await appendAfter(40 * 24 * HOUR);
    await w.close();
    assert.equal(await text(w.file), 'new\n\n\n\n\n', 'the current file is never aged out');
  });
});

describe('RotatingFile modes', () => {
  it('makes the directory 0700 and every file 0600, whatever the umask', async (t) => {
    const dir = join(await scratch(t), 'a', 'b');
    const umask = process.umask(0);
    try {
      const w = writer(dir, { maxBytes: 4 });
      w.append('one\n');
      w.append('two\n');
      await w.close();
    } finally {
      process.umask(umask);
    }
    assert.equal((await stat(dir)).mode & 0o777, 0o700);
    const files = await filesInOrder(dir);
    assert.equal(files.length, 2);
    for (const f of files) assert.equal((await stat(join(dir, f))).mode & 0o777, 0o600, f);
  });

  it('narrows a directory and a file that were left wider', async (t) => {
    const dir = join(await scratch(t), 'logs');
    await mkdir(dir);
    await chmod(dir, 0o755);
    await writeFile(join(dir, 'log.log'), 'kept\n');
    await chmod(join(dir, 'log.log'), 0o644);
    const w = writer(dir);
    w.append('added\n');
    await w.close();
    assert.equal((await stat(dir)).mode & 0o777, 0o700);
    assert.equal((await stat(w.file)).mode & 0o777, 0o600);
    assert.equal(await text(w.file), 'kept\nadded\n');
  });
});

describe('RotatingFile failures', () => {
  const note = (count: number, reason: string): string => `!! ${count} lost: ${reason}\n`;

  it('never throws, reports at most once a minute, and notes the loss in the file once writing works again', async (t) => {
    const { dir, unblock } = await blocked(await scratch(t));
    const c = new ManualClock();
    const errors: Error[] = [];
    const w = writer(dir, { now: c.now, lostNote: note, onError: (e) => errors.push(e) });
    assert.doesNotThrow(() => {
      w.append('a\n');
      w.append('b\n');
    });
    await w.flush();
    w.append('c\n');
    await w.flush();
    assert.equal(errors.length, 1, 'one report within the minute');
    assert.match(errors[0]?.message ?? '', /ENOTDIR|EEXIST/);
    c.advance(60_000);
    w.append('d\n');
    await w.flush();
    assert.equal(errors.length, 2, 'reported again after a minute');

    await unblock();
    w.append('e\n');
    await w.close();
    const written = (await text(w.file)).split('\n');
    assert.match(written[0] ?? '', /^!! 4 lost: .*(ENOTDIR|EEXIST)/);
    assert.deepEqual(written.slice(1), ['e', '']);
  });

  it('recovers when its directory is replaced by a file while open, without losing what came before', async (t) => {
    const dir = join(await scratch(t), 'logs');
    const errors: Error[] = [];
    const w = writer(dir, { lostNote: note, onError: (e) => errors.push(e) });
    w.append('before\n');
    await w.flush();
    const kept = join(dir, '..', 'kept.log');
    await rename(w.file, kept);
    await rm(dir, { recursive: true });
    await writeFile(dir, 'in the way');
    w.append('during\n');
    await w.flush();
    assert.equal(errors.length, 1);
    await rm(dir);
    w.append('after\n');
    await w.close();
    assert.equal(await text(kept), 'before\n');
    assert.match(await text(w.file), /^!! 1 lost: [^\n]*\nafter\n$/);
    assert.equal((await stat(dir)).mode & 0o777, 0o700);
  });

  it('follows its path when the file is renamed away, as an outside logrotate would', async (t) => {
    const dir = await scratch(t);
    const errors: Error[] = [];
    const w = writer(dir, { onError: (e) => errors.push(e) });
    w.append('first\n');
    await w.flush();
    await rename(w.file, join(dir, 'log.log.1'));
    w.append('second\n');
    await w.close();
    assert.equal(await text(join(dir, 'log.log.1')), 'first\n');
    assert.equal(await text(w.file), 'second\n');
    assert.deepEqual(errors, []);
  });

  it('puts the note for entries the caller dropped where they went missing, with the last reason as ASCII', async (t) => {
    const dir = await scratch(t);
    const errors: Error[] = [];
    const w = writer(dir, { lostNote: note, onError: (e) => errors.push(e) });
    w.append('1\n');
    w.drop(2, new Error('bad\nunit'));
    w.append('2\n');
    w.drop(1, 'clock went \u00e9 backwards');
    w.append('3\n');
    await w.close();
    assert.equal(await text(w.file), '1\n!! 3 lost: clock went   backwards\n2\n3\n');
    assert.equal(errors.length, 1, 'once a minute');
    assert.equal(errors[0]?.message, 'bad\nunit');
  });

  it('drops and counts entries beyond maxPendingBytes waiting to be written', async (t) => {
    const dir = await scratch(t);
    const w = writer(dir, { maxPendingBytes: 1000, lostNote: note });
    const entry = `${'z'.repeat(99)}\n`;
    for (let i = 0; i < 30; i++) w.append(entry); // before the writer gets a turn
    await w.close();
    const lines = (await text(w.file)).split('\n').slice(0, -1);
    assert.equal(lines.length, 11);
    assert.equal(lines.filter((l) => l === entry.trim()).length, 10);
    assert.equal(lines[10], '!! 20 lost: more than 1000 bytes waiting to be written');
  });

  it('without lostNote only reports the loss; a throwing onError stops nothing', async (t) => {
    const { dir, unblock } = await blocked(await scratch(t));
    let calls = 0;
    const w = writer(dir, {
      onError: () => {
        calls += 1;
        throw new Error('handler broke');
      },
    });
    w.append('lost\n');
    await w.flush();
    assert.equal(calls, 1);
    await unblock();
    w.append('kept\n');
    await w.close();
    assert.equal(await text(w.file), 'kept\n');
  });

  it('close resolves even when nothing can be written', async (t) => {
    const { dir } = await blocked(await scratch(t));
    const errors: Error[] = [];
    const w = writer(dir, { onError: (e) => errors.push(e) });
    w.append('never\n');
    await w.close();
    assert.equal(errors.length, 1);
    assert.ok(!existsSync(w.file));
  });
});
