/**
 * Section 1, HL7: lib/protocols/hl7's decoding over the HL7 fixture corpus (every
 * message of every capture in test/fixtures/hl7, both sides), as the message
 * node uses it: parseHl7Bytes on the bytes the link hands over, then every
 * OBX read through its view (code, sub-ID, value, units, range, flags,
 * status, time), so the lazy field decoding is paid for as a flow pays it.
 *
 * Beside it, in alternating rounds, a plain split of the same bytes to the
 * same answers (splitHl7): Latin-1 text, segments, fields, and the OBX fields
 * read into repetitions, components and subcomponents. No escapes, no
 * character set, no checks: the least an HL7 decoder does, in the same process on the same V8, so the ratio
 * (ours over it, CPU time) moves with the code and not with the machine;
 * quick mode judges it (bench/limits.ts). The MB/s figures are for the record.
 */
import { parseHl7Bytes, views } from '../lib/protocols/hl7';
import { allHl7Messages } from '../test/support/hl7-fixtures';
import type { Report } from './report';
import { median } from './stats';

export interface Hl7CodecSizes {
  /** Bytes of message text to decode per side, in all rounds together. */
  bytes: number;
  rounds: number;
}

interface RoundResult {
  bytes: number;
  messages: number;
  seconds: number;
  cpuSeconds: number;
}

/** The fixture corpus as the link would hand it over: one Buffer per message. */
export function hl7Corpus(): Buffer[] {
  return allHl7Messages().map((m) => Buffer.from(m.bytes));
}

/** lib/protocols/hl7's decode as hl7-message does it: parse, then every OBX's lab fields. Returns a number so nothing is optimised away. */
export function decodeHl7(bytes: Buffer): number {
  const message = parseHl7Bytes(bytes);
  let n = message.segments.length;
  for (const segment of message.all('OBX')) {
    const o = views.obx(segment);
    n += o.code.length + o.subId.length + o.value.length + o.units.length + o.referenceRange.length + o.flags.length + o.resultStatus.length + o.observationDateTime.length;
  }
  return n;
}

/** OBX fields the views above read: 3 (code), 4, 5, 6, 7, 8 (flags), 11, 14. */
const OBX_FIELDS = [3, 4, 5, 6, 7, 8, 11, 14];

/**
 * The reference: the same answers the least way. Segments on CR/LF, fields on
 * `|`; the OBX fields read above into repetitions, components and
 * subcomponents on `~ ^ &`. No escapes, no character set, no checks.
 */
export function splitHl7(bytes: Buffer): number {
  const segments = bytes.toString('latin1').split(/\r\n|\r|\n/);
  let n = segments.length;
  for (const segment of segments) {
    const fields = segment.split('|');
    if (fields[0] !== 'OBX') continue;
    for (const i of OBX_FIELDS) n += (fields[i] ?? '').split('~').map((r) => r.split('^').map((c) => c.split('&'))).length;
  }
  return n;
}

function passRound(corpus: Buffer[], passes: number, one: (b: Buffer) => number): RoundResult {
  let bytes = 0;
  const started = process.hrtime.bigint();
  const cpu = process.cpuUsage();
  for (let p = 0; p < passes; p++) {
    for (const b of corpus) {
      one(b);
      bytes += b.length;
    }
  }
  const used = process.cpuUsage(cpu);
  return { bytes, messages: passes * corpus.length, seconds: Number(process.hrtime.bigint() - started) / 1e9, cpuSeconds: (used.user + used.system) / 1e6 };
}

export function benchHl7Codec(report: Report, sizes: Hl7CodecSizes): void {
  const corpus = hl7Corpus();
  const corpusBytes = corpus.reduce((n, b) => n + b.length, 0);
  let sink = 0;
  const sides = {
    ours: (b: Buffer) => (sink += decodeHl7(b)),
    split: (b: Buffer) => (sink += splitHl7(b)),
  };
  // Whole passes, so every round has the same mix of small messages and the large URIT one.
  const passes = Math.max(1, Math.round(sizes.bytes / sizes.rounds / corpusBytes));
  for (const one of Object.values(sides)) passRound(corpus, Math.max(1, Math.round(passes / 4)), one);
  const rounds: Record<keyof typeof sides, RoundResult[]> = { ours: [], split: [] };
  for (let r = 0; r < sizes.rounds; r++) {
    rounds.ours.push(passRound(corpus, passes, sides.ours));
    rounds.split.push(passRound(corpus, passes, sides.split));
  }
  const rate = (side: keyof typeof sides) => median(rounds[side].map((r) => r.bytes / 1e6 / r.seconds));
  const cpuRate = (side: keyof typeof sides) => median(rounds[side].map((r) => r.bytes / 1e6 / r.cpuSeconds));
  const section = '1 HL7 codec';
  const note = `${corpus.length} messages, ${(corpusBytes / 1000).toFixed(1)} kB per pass`;
  report.add({ key: 'hl7.decode.MBps', section, label: 'parseHl7Bytes + every OBX read, fixture corpus', value: rate('ours'), unit: 'MB/s', note });
  report.add({ key: 'hl7.decode.msgps', section, label: 'same, messages', value: median(rounds.ours.map((r) => r.messages / r.seconds)), unit: 'msg/s' });
  report.add({ key: 'hl7.split.decode.MBps', section, label: 'plain split into segments and fields, OBX fields into components (JS reference)', value: rate('split'), unit: 'MB/s' });
  report.add({ key: 'hl7.decode.vsSplit', section, label: 'decode: ours / plain split (CPU time)', value: cpuRate('ours') / cpuRate('split'), unit: 'x' });
  report.detail('hl7Codec', { corpusMessages: corpus.length, corpusBytes, passes, rounds, sink });
}
