/**
 * Section 6: what the result journal costs, in process (no Node-RED), on a
 * temporary directory under os.tmpdir(): the disk the bench's Node-RED userDir
 * (and so its default journal directory, <userDir>/lis-bridge) is on.
 *
 * (a) Appends per second. ResultJournal.received() driven directly by 1, 10
 * and 100 concurrent writers, each awaiting its own append before the next
 * one, with a realistic message: the fixture message closest to 1 KB, under a
 * new random id each time (as astm-link does). The journal writes and
 * fdatasyncs in groups (AppendLog: whatever arrived while one sync was under
 * way shares the next), so appends/s over syncs/s is the group size. After a
 * warm-up, a window of a few seconds: appends finished in it per second,
 * group commits (journal.syncs) in it per second, and the latency of each
 * append begun in it (the call to its promise resolving).
 *
 * (b) What it adds to the final ACK. The host side of the link (AstmLink +
 * LinkDriver, as section 2 drives it) receives the fixture corpus framed as an
 * analyzer frames it. For the frame that completes a message, the time from
 * the receive() call carrying it to the ACK write action: with holdFinalAck
 * and the journal (the message action starts journal.received(); its promise
 * calls confirmStored, which writes the ACK: what astm-link does), and
 * without (holdFinalAck false: the ACK is written inside receive()). The two
 * are measured in alternating rounds; p50 and p99 are the median round's, max
 * over all rounds, as in section 2.
 *
 * Judged in quick mode (bench/limits.ts), as ratios of this run's own
 * measurements, which do not depend on how fast this disk syncs: appends per
 * fdatasync with one writer (1, unless an append syncs twice) and with 100
 * (the group commit), and what the journal adds to the final ACK over one
 * append (the ACK waits for one append, not more). Rates and latencies are
 * for the record; the p99s and maxima of anything that waits for fdatasync
 * are the tail of a shared virtual disk (between back-to-back runs of the
 * same code they moved from 0.5 to 8 ms, where the p50s stayed within 1.5x).
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ACK, ENQ, EOT, NAK } from '../lib/protocols/astm/control';
import { AstmLink, buildFrames } from '../lib/protocols/astm/link';
import { LinkDriver } from '../lib/link/driver';
import { ResultJournal } from '../lib/journal/journal';
import { corpus } from './codec';
import { filesystemOf, machineLoad } from './proc';
import type { Report } from './report';
import { median, sleep, summarize, type Summary } from './stats';

export interface JournalSizes {
  /** Concurrent writers of part (a), one window each. */
  writers: number[];
  windowMs: number;
  warmUpMs: number;
  /** Messages per variant in part (b). */
  ackMessages: number;
}

const ROUNDS = 5;
const RETENTION_MS = 30 * 24 * 60 * 60_000;

export async function benchJournalCost(report: Report, sizes: JournalSizes, log: (s: string) => void): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'lis-bench-journal-'));
  const fs = filesystemOf(dir);
  try {
    const texts = corpus();
    const message = texts.reduce((best, t) => (Math.abs(t.length - 1024) < Math.abs(best.length - 1024) ? t : best));
    const bytes = Buffer.from(message, 'latin1');
    const appends: AppendResult[] = [];
    for (const writers of sizes.writers) {
      log(`6: journal appends, ${writers} concurrent writer(s), ${bytes.length}-byte message, ${sizes.warmUpMs} ms warm-up, ${sizes.windowMs} ms window`);
      const r = await appendWindow(join(dir, `appends-${writers}.jsonl`), bytes, writers, sizes);
      appends.push(r);
      const section = '6 journal appends';
      const who = `${writers} writer${writers === 1 ? '' : 's'}`;
      report.add({ key: `journal.append.w${writers}.perS`, section, label: `${who}: appends per second (each durable)`, value: r.appendsPerS, unit: '/s', note: `${r.appends} appends` });
      report.add({ key: `journal.append.w${writers}.syncsPerS`, section, label: `${who}: group commits (fdatasync) per second`, value: r.syncsPerS, unit: '/s' });
      report.add({ key: `journal.append.w${writers}.p50`, section, label: `${who}: append latency, p50`, value: r.p50, unit: 'ms' });
      report.add({ key: `journal.append.w${writers}.p99`, section, label: `${who}: append latency, p99`, value: r.p99, unit: 'ms' });
      report.add({ key: `journal.append.w${writers}.perSync`, section, label: `${who}: appends per fdatasync (group size)`, value: r.appendsPerSync, unit: '' });
    }

    log(`6: final frame -> ACK with and without the journal, ${sizes.ackMessages} messages each`);
    const ack = await finalAck(join(dir, 'final-ack.jsonl'), texts, sizes.ackMessages);
    const section = '6 journal, final ACK';
    report.add({ key: 'journal.ack.off.p50', section, label: 'final frame -> ACK, no journal (holdFinalAck off), p50', value: ack.off.p50, unit: 'ms', note: `${ack.off.all.n} messages` });
    report.add({ key: 'journal.ack.off.p99', section, label: 'final frame -> ACK, no journal, p99', value: ack.off.p99, unit: 'ms' });
    report.add({ key: 'journal.ack.off.max', section, label: 'final frame -> ACK, no journal, max', value: ack.off.all.max, unit: 'ms' });
    report.add({ key: 'journal.ack.on.p50', section, label: 'final frame -> ACK, journal append + confirmStored, p50', value: ack.on.p50, unit: 'ms', note: `${ack.on.all.n} messages` });
    report.add({ key: 'journal.ack.on.p99', section, label: 'final frame -> ACK, journal, p99', value: ack.on.p99, unit: 'ms' });
    report.add({ key: 'journal.ack.on.max', section, label: 'final frame -> ACK, journal, max', value: ack.on.all.max, unit: 'ms' });
    report.add({ key: 'journal.ack.added.p50', section, label: 'added by the journal, p50 (journal - no journal)', value: ack.on.p50 - ack.off.p50, unit: 'ms' });
    report.add({ key: 'journal.ack.added.p99', section, label: 'added by the journal, p99 (journal - no journal)', value: ack.on.p99 - ack.off.p99, unit: 'ms' });
    const one = appends.find((a) => a.writers === 1);
    if (one !== undefined) report.add({ key: 'journal.ack.perAppend', section, label: 'added by the journal to the final ACK / one append (1 writer), p50s', value: (ack.on.p50 - ack.off.p50) / one.p50, unit: 'x' });
    report.detail('journal', { dir, filesystem: fs, message: { bytes: bytes.length }, appends, finalAck: ack, ...machineLoad() });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

interface AppendRound {
  seconds: number;
  appends: number;
  syncs: number;
  appendsPerS: number;
  syncsPerS: number;
  latencyMs: Summary;
}

interface AppendResult {
  writers: number;
  /** Median round: appends/s, syncs/s, p50 and p99 are each the median over the rounds. */
  appendsPerS: number;
  syncsPerS: number;
  p50: number;
  p99: number;
  /** The whole window. */
  appends: number;
  syncs: number;
  appendsPerSync: number;
  latencyMs: Summary;
  rounds: AppendRound[];
  journalBytes: number;
  failures: number;
}

async function appendWindow(file: string, bytes: Buffer, writers: number, sizes: JournalSizes): Promise<AppendResult> {
  const journal = await ResultJournal.open({ file, retentionMs: RETENTION_MS });
  // -1: warm-up; 0 .. ROUNDS-1: the measured rounds; ROUNDS: stopping.
  let round = -1;
  const latencies: number[][] = Array.from({ length: ROUNDS }, () => []);
  const finished = new Array<number>(ROUNDS).fill(0);
  let failures = 0;
  const loops = Array.from({ length: writers }, async (_, w) => {
    while (round < ROUNDS) {
      const begun = round;
      const t0 = performance.now();
      try {
        await journal.received(`bench-${w}`, randomUUID(), bytes, 'terminator');
      } catch {
        failures++;
        continue;
      }
      // An append's latency counts in the round it began in (also when it ends after it), its completion in the round it ended in.
      if (begun >= 0 && begun < ROUNDS) latencies[begun]!.push(performance.now() - t0);
      if (round >= 0 && round < ROUNDS) finished[round]!++;
    }
  });
  await sleep(sizes.warmUpMs);
  const rounds: AppendRound[] = [];
  for (let k = 0; k < ROUNDS; k++) {
    const syncs0 = journal.syncs;
    const t0 = performance.now();
    round = k;
    await sleep(sizes.windowMs / ROUNDS);
    const seconds = (performance.now() - t0) / 1000;
    const syncs = journal.syncs - syncs0;
    // Appends finishing from here on belong to the next round (or to none after the last).
    round = k + 1;
    rounds.push({ seconds, appends: finished[k]!, syncs, appendsPerS: finished[k]! / seconds, syncsPerS: syncs / seconds, latencyMs: summarize([]) });
  }
  await Promise.all(loops);
  rounds.forEach((r, k) => (r.latencyMs = summarize(latencies[k]!)));
  const journalBytes = journal.sizeBytes;
  await journal.close();
  rmSync(file, { force: true });
  const appends = rounds.reduce((n, r) => n + r.appends, 0);
  const syncs = rounds.reduce((n, r) => n + r.syncs, 0);
  return {
    writers,
    appendsPerS: median(rounds.map((r) => r.appendsPerS)),
    syncsPerS: median(rounds.map((r) => r.syncsPerS)),
    p50: median(rounds.map((r) => r.latencyMs.p50)),
    p99: median(rounds.map((r) => r.latencyMs.p99)),
    appends,
    syncs,
    appendsPerSync: syncs > 0 ? appends / syncs : Number.NaN,
    latencyMs: summarize(latencies.flat()),
    rounds,
    journalBytes,
    failures,
  };
}

/** One host-side link and what it measures. */
interface Rig {
  driver: LinkDriver;
  ackAt: bigint;
  naks: number;
  /** The frame just received completed a message. */
  completed: boolean;
  /** The ACK of a held frame: resolved by the write action. */
  waitAck: (() => void) | undefined;
  latencies: number[];
}

function rig(journal: ResultJournal | undefined, name: string): Rig {
  const r: Rig = { driver: undefined as unknown as LinkDriver, ackAt: 0n, naks: 0, completed: false, waitAck: undefined, latencies: [] };
  r.driver = new LinkDriver(new AstmLink({ messageIdPrefix: name, holdFinalAck: journal !== undefined }), (action) => {
    if (action.type === 'write' && action.bytes.length === 1 && (action.bytes[0] === ACK || action.bytes[0] === NAK)) {
      if (action.bytes[0] === ACK) r.ackAt = process.hrtime.bigint();
      else r.naks++;
      const w = r.waitAck;
      r.waitAck = undefined;
      w?.();
    } else if (action.type === 'message') {
      r.completed = true;
      if (journal && action.held) {
        // What astm-link's store() does: on disk first, then the held ACK.
        journal.received(name, randomUUID(), action.bytes, action.end).then(
          () => r.driver.confirmStored(action.id),
          () => r.driver.rejectStored(action.id),
        );
      }
    }
  });
  return r;
}

/** Feeds `count` messages of the corpus (framed, ENQ ... EOT each) and times the frames that complete one. */
async function feed(r: Rig, sessions: Buffer[][], from: number, count: number, keep: boolean): Promise<number> {
  const enq = Buffer.of(ENQ);
  const eot = Buffer.of(EOT);
  let i = from;
  let measured = 0;
  while (measured < count) {
    const session = sessions[i++ % sessions.length]!;
    r.driver.receive(enq);
    for (const frame of session) {
      r.ackAt = 0n;
      r.completed = false;
      const answered = new Promise<void>((resolve) => (r.waitAck = resolve));
      const t0 = process.hrtime.bigint();
      r.driver.receive(frame);
      // Only a frame that completed a message can have its ACK held; every other reply is written inside receive().
      if (r.ackAt === 0n && r.completed) await withTimeout(answered, 15_000, 'the held ACK (confirmStored after the journal append)');
      r.waitAck = undefined;
      if (!r.completed) continue;
      measured++;
      if (r.ackAt !== 0n && keep) r.latencies.push(Number(r.ackAt - t0) / 1e6);
    }
    r.driver.receive(eot);
  }
  return i;
}

function withTimeout<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    p.finally(() => clearTimeout(timer)),
    new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`section 6: no reply within ${ms} ms: ${what}`)), ms))),
  ]);
}

interface AckVariant {
  p50: number;
  p99: number;
  all: Summary;
  rounds: Summary[];
  naks: number;
}

async function finalAck(file: string, texts: string[], messages: number): Promise<{ on: AckVariant; off: AckVariant; journalSyncs: number }> {
  const sessions = texts.map((text) => buildFrames(Buffer.from(text, 'latin1'), { frameTextMax: 240 }));
  const journal = await ResultJournal.open({ file, retentionMs: RETENTION_MS });
  const on = rig(journal, 'bench-journal');
  const off = rig(undefined, 'bench-no-journal');
  try {
    // Warm-up, not kept.
    let nextOn = await feed(on, sessions, 0, Math.min(200, messages), false);
    let nextOff = await feed(off, sessions, 0, Math.min(200, messages), false);
    const perRound = Math.max(1, Math.floor(messages / ROUNDS));
    const rounds: { on: Summary[]; off: Summary[] } = { on: [], off: [] };
    for (let k = 0; k < ROUNDS; k++) {
      for (const [name, r] of [['off', off], ['on', on]] as const) {
        const before = r.latencies.length;
        if (name === 'on') nextOn = await feed(r, sessions, nextOn, perRound, true);
        else nextOff = await feed(r, sessions, nextOff, perRound, true);
        rounds[name].push(summarize(r.latencies.slice(before)));
      }
    }
    const variant = (r: Rig, rs: Summary[]): AckVariant => ({ p50: median(rs.map((s) => s.p50)), p99: median(rs.map((s) => s.p99)), all: summarize(r.latencies), rounds: rs, naks: r.naks });
    return { on: variant(on, rounds.on), off: variant(off, rounds.off), journalSyncs: journal.syncs };
  } finally {
    on.driver.close();
    off.driver.close();
    await journal.close();
  }
}
