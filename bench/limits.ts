/**
 * What quick mode judges: ratios of two things measured in the same run, on
 * the same machine, against fixed limits. Absolute figures (MB/s, ms,
 * results/s) are reported for the record only: compared with a baseline
 * written on another CPU they "regressed" with unchanged code (9 of 40 beyond
 * 2x on a different machine), while a ratio of two measurements taken side by
 * side moves with the code, not with the machine.
 *
 * Each limit is about half (or twice) what the ratio was on the bench machine
 * (a shared 2-core AMD EPYC, see bench/README.md), so a regression of 2x is
 * caught, as before, and noise is not. The goals the issue sets (`goal` on a
 * figure) are reported beside, met or missed, and do not fail a run.
 */
import type { Figure } from './report';

export interface Limit {
  /** The ratio figure's key. */
  key: string;
  /** The bench section that measures it (to measure it again). */
  section: number;
  /** The ratio must be at least this ... */
  min?: number;
  /** ... or at most this. */
  max?: number;
  /** Judged only when this figure has no value: the in-process reference stands in for python-astm when python3 or PYASTM_DIR is missing. */
  unless?: string;
  /** What the ratio compares, and what was measured when the limit was set. */
  why: string;
}

export const LIMITS: readonly Limit[] = [
  { key: 'codec.decode.vsPyastm', section: 1, min: 4, why: 'decodeMessage over python-astm decode_record, same messages, CPU time; 10.0-14.1x measured' },
  { key: 'codec.encode.vsPyastm', section: 1, min: 4, why: 'encodeMessage over python-astm encode_record, CPU time; 6.4-11.5x measured' },
  { key: 'codec.decode.vsSplit', section: 1, min: 0.6, unless: 'codec.decode.vsPyastm', why: 'decodeMessage over a plain JavaScript split of the same text; 1.2-2.0x measured' },
  { key: 'codec.encode.vsJoin', section: 1, min: 0.4, unless: 'codec.encode.vsPyastm', why: 'encodeMessage over a plain JavaScript join of those pieces; 0.79-1.25x measured' },
  { key: 'hl7.decode.vsSplit', section: 1, min: 0.7, why: 'HL7: parseHl7Bytes + every OBX read over a plain split to the same fields, CPU time; 1.34-1.75x measured' },
  { key: 'link.inprocess.vsReference', section: 2, max: 12, why: 'frame -> ACK in AstmLink + LinkDriver over a bare receiver (checksum, keep the text, ACK), p50; 4.5-6.3x measured' },
  { key: 'serial.lineUse', section: 3, min: 0.8, why: 'line time over wall time of a paced batch at 9600 baud; 0.90-0.98 measured (goal > 0.95)' },
  { key: 'hostQuery.ratio.p50', section: 4, max: 3, why: 'host query overhead, our nodes over the core http request node doing the same LIS call, p50; 1.25-1.39x measured with node:http, 1.72-1.79x with axios back through instance.request(), 1.40-1.61x with its adapter called directly (issue 24, seven runs at load 6-10; 3.1-4.8x before the host-query work; goal 1.6x)' },
  { key: 'hostQuery.oursOverFloor.p50', section: 4, max: 2, why: 'host query overhead, our nodes over the floor (the same round trips and LIS call through core nodes only), p50; 0.79-0.94x measured with node:http, 1.24-1.28x with axios through instance.request(), 0.97-1.09x with its adapter called directly (seven runs)' },
  { key: 'hostQuery.hl7Ratio.p50', section: 4, max: 3, why: 'host query overhead of the HL7 example (QRY^Q02 -> first byte of QCK^Q02) over the core http request node, p50; 1.06-1.17x measured (2.2-2.6x before hl7-link parsed once and wrote QCK and DSR as one)' },
  { key: 'scale.1.onOff.resultsPerS', section: 5, min: 0.2, why: 'results/s with the journal over without, one analyzer; 0.35-0.65 measured' },
  { key: 'scale.200.onOff.resultsPerS', section: 5, min: 0.3, why: 'results/s with the journal over without, 200 analyzers; 0.59-1.38 measured' },
  { key: 'scale.1.onOff.cpuPer1000', section: 5, max: 5, why: 'Node-RED CPU per result with the journal over without, one analyzer; 1.4-2.5 measured' },
  { key: 'scale.200.onOff.cpuPer1000', section: 5, max: 3, why: 'Node-RED CPU per result with the journal over without, 200 analyzers; 0.7-1.4 measured' },
  { key: 'journal.append.w1.perSync', section: 6, min: 0.8, why: 'appends per fdatasync with one writer: 1 unless an append syncs twice; 1.00 measured' },
  { key: 'journal.append.w100.perSync', section: 6, min: 5, why: 'appends per fdatasync with 100 writers (the group commit); 50 measured' },
  { key: 'adversarial.hl7.worstOverOrdinary', section: 7, max: 3, why: 'HL7: CPU per byte of the slowest adversarial shape (repetitions, components, escapes, tiny segments ...) over an ordinary message of the same size; 1.8-2.9x measured (thousands of x before issue 23, growing with size)' },
  { key: 'adversarial.astm.worstOverOrdinary', section: 7, max: 3, why: 'ASTM: the same for ASTM shapes over an ordinary message; 1.1-1.9x measured' },
  { key: 'journal.ack.perAppend', section: 6, max: 3.5, why: 'what the journal adds to the final ACK over one durable append, p50s: the ACK waits for one append; 0.9-1.75 measured' },
];

export interface Judged {
  limit: Limit;
  figure: Figure;
  value: number;
  within: boolean;
}

/**
 * The limits that apply to these figures and whether each is kept. A figure
 * that was not measured (another section, or "not available") is not judged.
 */
export function judge(figures: readonly Figure[], limits: readonly Limit[] = LIMITS): Judged[] {
  const byKey = new Map(figures.map((f) => [f.key, f]));
  const measured = (key: string) => {
    const f = byKey.get(key);
    return f !== undefined && f.value !== null && Number.isFinite(f.value) ? f : undefined;
  };
  const out: Judged[] = [];
  for (const limit of limits) {
    const figure = measured(limit.key);
    if (figure === undefined || (limit.unless !== undefined && measured(limit.unless) !== undefined)) continue;
    const value = figure.value!;
    const within = (limit.min === undefined || value >= limit.min) && (limit.max === undefined || value <= limit.max);
    out.push({ limit, figure, value, within });
  }
  return out;
}

export function limitText(limit: Limit): string {
  return [limit.min !== undefined ? `>= ${limit.min}` : '', limit.max !== undefined ? `<= ${limit.max}` : ''].filter(Boolean).join(' and ');
}

export function describeJudged(j: Judged): string {
  const f = j.figure;
  return `${j.within ? 'within' : 'BEYOND'} ${f.key} (${f.section}: ${f.label}) = ${j.value.toPrecision(3)}${f.unit ? ` ${f.unit}` : ''}, limit ${limitText(j.limit)} (${j.limit.why})`;
}
