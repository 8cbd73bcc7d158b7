/**
 * Corrections, not duplicates: a file's results set against what its folder link handed on before (the journal's
 * record of handed values), keyed on what was handed on (sample, test code, sub-test, replicate), not on the file's
 * name alone, which instruments reuse (run.csv every day).
 *
 * A value already handed on from an earlier version of this file is not sent again when it is the same (ended: not
 * for the LIS, with where it went before), and held as a correction when it differs (old and new side by side, for a
 * person to send or dismiss). An earlier version is a file the link took under the same name, or one whose bytes
 * this file starts with (it grew). Everything else goes on: new rows of a grown file, a new day's samples in a
 * reused name, and the same sample in a file of another name, which is a new run, as a rerun over ASTM or HL7 is.
 */
import { createHash } from 'node:crypto';
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { HostOutput, ReadMessage } from '../../conversation/message-host';
import type { HandedRecord, HandedValue } from '../../journal/handed-values';
import { handedKey } from '../../journal/handed-values';
import { holdsFor } from '../../journal/holds';
import type { ResultJournal } from '../../journal/journal';
import type { CorrectionInfo } from '../../journal/entries';
import type { InstrumentResult } from '../../lab/types';
import { sliceEnd } from '../../util/slices';

export interface FileOfResults {
  /** The folder link it came over, and its journal message. */
  link: string;
  message: string;
  name: string;
  bytes: Buffer;
  /** The node that holds its corrections (the message node: it passes a sent one on to the test-mapper after it). */
  node: string;
  /** The rest of the flow's message, JSON-safe, kept with a hold. */
  context: Record<string, unknown>;
}

/** A result the file brought again: the same value (repeated) or another (a correction). */
export type Sifted = InstrumentResult & { reason: string; correction?: CorrectionInfo };

/** The file being sifted on each journal: the next waits for it, so each is set against all its predecessor handed on. */
const sifting = new WeakMap<ResultJournal, Promise<void>>();

/** Results looked up between two readings of the clock: a few hundred digests. */
const RESULTS_PER_CHECK = 256;

/**
 * What of a file's read goes on; the values handed on, those not sent again and the corrections are written to
 * the journal first (its record decides synchronously, so two files in a row are compared in order). Done in
 * slices (two digests a result: a file of half a million takes seconds), one file at a time per journal.
 */
export async function siftFileResults<C>(journal: ResultJournal, read: ReadMessage<C>, file: FileOfResults): Promise<ReadMessage<C>> {
  let done!: () => void;
  const previous = sifting.get(journal);
  const mine = new Promise<void>((resolve) => (done = resolve));
  sifting.set(journal, mine);
  const outputs: HostOutput<C>[] = [];
  const writes: Array<Promise<unknown>> = [];
  const allRepeated: Sifted[] = [];
  const repeatReasons = new Set<string>();
  const allCorrections: Sifted[] = [];
  try {
    if (previous !== undefined) await previous;
    await siftAll(journal, read, file, { outputs, writes, allRepeated, repeatReasons, allCorrections });
  } finally {
    // The next file may start once this one's record is applied; its lines are written meanwhile.
    done();
    if (sifting.get(journal) === mine) sifting.delete(journal);
  }
  await Promise.all(writes);
  if (allRepeated.length > 0) {
    outputs.push({ type: 'aside', topic: 'repeated', payload: allRepeated, count: allRepeated.length, reasons: [...repeatReasons] });
    outputs.push({ type: 'warn', text: `${file.name}: ${count(allRepeated.length)} not sent again, the same values were handed on before (${allRepeated[0]!.reason})` });
  }
  if (allCorrections.length > 0) {
    outputs.push({ type: 'aside', topic: 'correction', payload: allCorrections, count: allCorrections.length, reasons: allCorrections.map((c) => c.reason) });
    const shown = allCorrections.slice(0, 5).map((c) => `${label({ sample: c.SampleNumber, code: c.instrumentCode, sub: c.instrumentSubCode })} ${c.correction!.was} -> ${c.Result}`);
    outputs.push({ type: 'warn', text: `${file.name}: ${count(allCorrections.length)} differ from what was delivered before from ${allCorrections[0]!.correction!.wasFile}, held as corrections in the Lab sidebar for a person to send or dismiss (${shown.join(', ')}${allCorrections.length > 5 ? ', ...' : ''})` });
  }
  return { ...read, outputs };
}

/** A line being written, awaited with the others after the loop: a failure while the loop still runs is not unhandled. */
function written(writes: Array<Promise<unknown>>, write: Promise<unknown>): void {
  write.catch(() => undefined);
  writes.push(write);
}

interface Sifting<C> {
  outputs: HostOutput<C>[];
  writes: Array<Promise<unknown>>;
  allRepeated: Sifted[];
  repeatReasons: Set<string>;
  allCorrections: Sifted[];
}

/** Each result set against the record, a batch's lines handed to the journal as its batch ends; the loop given its turns. */
async function siftAll<C>(journal: ResultJournal, read: ReadMessage<C>, file: FileOfResults, into: Sifting<C>): Promise<void> {
  const { outputs, writes, allRepeated, repeatReasons, allCorrections } = into;
  const lineage = lineageOf(journal, file);
  const heldAlready = openCorrectionValues(journal, file);
  const seen = new Map<string, number>();
  let until = sliceEnd();
  let looked = 0;
  for (const o of read.outputs) {
    if (o.type !== 'results') {
      outputs.push(o);
      continue;
    }
    const go: InstrumentResult[] = [];
    const handed: HandedValue[] = [];
    const repeated: Array<HandedValue & { reason: string }> = [];
    const corrections: Sifted[] = [];
    for (const item of o.results) {
      // Within a batch too: its values are applied only at its end, so a pause here changes no decision.
      if (++looked % RESULTS_PER_CHECK === 0 && performance.now() >= until) {
        await nextTurn();
        until = sliceEnd();
      }
      const v = valueOf(item, seen);
      const before = journal.handedValue(file.link, v);
      const kin = before === undefined ? 'other' : lineage(before);
      if (before === undefined || kin !== 'earlier') {
        go.push(item);
        handed.push(v);
      } else if (before.value === v.value || heldAlready.has(`${handedKey(file.link, v)}\u0000${v.value}`)) {
        const reason = before.value === v.value ? `already delivered from ${before.name} at ${new Date(before.at).toISOString()}` : `already held as a correction of ${before.value} from ${before.name}`;
        repeated.push({ ...v, reason });
        allRepeated.push({ ...item, reason });
        repeatReasons.add(reason);
      } else {
        const correction: CorrectionInfo = { was: before.value, wasFile: before.name, wasAt: before.at, file: file.name, n: v.n };
        const reason = `${label(v)} is ${v.value} in ${file.name}, ${before.value} was delivered from ${before.name} at ${new Date(before.at).toISOString()}: held as a correction (Send posts ${v.value} to the LIS; Dismiss leaves ${before.value})`;
        corrections.push({ ...item, reason, correction });
      }
    }
    const endsPart = go.length === 0;
    if (corrections.length > 0) {
      const holds = holdsFor(corrections.map((c) => ({ result: withoutNotes(c), reason: c.reason, kind: 'correction' as const, code: codeOf(c), correction: c.correction! })), `${file.message}#${o.part}`);
      written(writes, journal.hold({ node: file.node, link: file.link, message: file.message, part: o.part, endsPart, msg: file.context, holds }));
      for (const c of corrections) allCorrections.push(c);
    }
    if (handed.length > 0 || repeated.length > 0) {
      written(writes, journal.handed({ link: file.link, message: file.message, name: file.name, part: o.part, endsPart, via: 'file', values: handed, ...(repeated.length > 0 ? { repeated } : {}) }));
    }
    if (go.length > 0) outputs.push({ ...o, results: go });
  }
}

/**
 * How a value handed on before relates to this file: `earlier` when it came from an earlier version of it (same
 * name, or bytes this file starts with, or a correction of this very file a person sent), `other` when it came
 * from another file, or from this one before a restart (its batches go on again; the LIS sender's keys keep them
 * from reaching the LIS twice).
 */
function lineageOf(journal: ResultJournal, file: FileOfResults): (r: HandedRecord) => 'earlier' | 'other' {
  const grownFrom = new Map<string, boolean>();
  return (r) => {
    if (r.message === file.message) return r.via === 'correction' ? 'earlier' : 'other';
    if (r.name === file.name) return 'earlier';
    let grown = grownFrom.get(r.message);
    if (grown === undefined) {
      const source = journal.message(r.message)?.source;
      const size = Number(source?.size);
      grown = typeof source?.hash === 'string' && size > 0 && size < file.bytes.length && sha256(file.bytes.subarray(0, size)) === source.hash;
      grownFrom.set(r.message, grown);
    }
    return grown ? 'earlier' : 'other';
  };
}

/**
 * The new values of the link's open corrections from other files: a file bringing one of them again holds no second
 * correction. (This file's own, from before a restart, are held once by their ids.)
 */
function openCorrectionValues(journal: ResultJournal, file: FileOfResults): Set<string> {
  const { link } = file;
  const out = new Set<string>();
  for (const h of journal.openCorrections(link)) {
    if (h.message === file.message) continue;
    for (const r of h.results) {
      const item = r.result as InstrumentResult;
      if (r.correction) out.add(`${handedKey(link, { sample: item.SampleNumber, code: item.instrumentCode, sub: item.instrumentSubCode, n: r.correction.n })}\u0000${item.Result}`);
    }
  }
  return out;
}

/** The value as the record keys it: the n-th value of this file for its sample, test and sub-test (replicates in their order). */
function valueOf(item: InstrumentResult, seen: Map<string, number>): HandedValue {
  const sub = item.instrumentSubCode ?? '';
  const k = JSON.stringify([item.SampleNumber, item.instrumentCode, sub]);
  const n = seen.get(k) ?? 0;
  seen.set(k, n + 1);
  return { sample: item.SampleNumber, code: item.instrumentCode, ...(sub !== '' ? { sub } : {}), n, value: item.Result };
}

function withoutNotes(s: Sifted): InstrumentResult {
  const { reason: _reason, correction: _correction, ...item } = s;
  return item;
}

const codeOf = (r: InstrumentResult) => (r.instrumentSubCode ? `${r.instrumentCode}/${r.instrumentSubCode}` : r.instrumentCode);
const label = (v: { sample: string; code: string; sub?: string | undefined }) => `${v.sample} ${v.sub ? `${v.code}/${v.sub}` : v.code}`;
const count = (n: number) => (n === 1 ? '1 result' : `${n} results`);

function sha256(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}
