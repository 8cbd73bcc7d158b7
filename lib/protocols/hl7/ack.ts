/**
 * The acknowledgements the host writes to an analyzer (HL7 v2.5.1 chapter 2.9,
 * "Message processing rules"; table 0008 for the codes, table 0357 for the
 * error codes): an `ACK` whose MSH answers the analyzer's (sender and receiver
 * swapped, its trigger event, version and processing ID echoed, a fresh
 * control ID) and whose MSA names the analyzer's MSH-10. An error gets an ERR
 * segment in the form the message's version knows: ERR-1 before v2.5 (v2.3.1
 * 2.16.5), ERR-3 and ERR-8 from v2.5 on (2.15.5).
 *
 * Fields copied from the analyzer's MSH are copied raw (rawHl7), in the
 * analyzer's own delimiters and character set, so a name such as `cobas® pro`
 * (MSH-3 of the cobas pro query, test/fixtures/SOURCES.md) comes back byte for
 * byte.
 */
import { randomBytes } from 'node:crypto';
import { buildHl7, rawHl7, type Hl7FieldValue, type Hl7SegmentSpec } from './build';
import { DEFAULT_DELIMITERS, type Hl7Delimiters, checkWriteDelimiters } from './delimiters';
import type { Hl7Segment } from './message';

/** Table 0008: A* original mode and application acks, C* enhanced-mode accept (commit) acks. */
export type AckCode = 'AA' | 'AE' | 'AR' | 'CA' | 'CE' | 'CR';

/** Table 0357 codes the link uses. */
export const ERROR_CODES = {
  segmentSequence: '100',
  requiredFieldMissing: '101',
  dataType: '102',
  unsupportedMessageType: '200',
  unsupportedProcessingId: '202',
  unsupportedVersion: '203',
  internal: '207',
} as const;
export type ErrorCode = (typeof ERROR_CODES)[keyof typeof ERROR_CODES];

const ERROR_NAMES: Record<ErrorCode, string> = {
  '100': 'Segment sequence error',
  '101': 'Required field missing',
  '102': 'Data type error',
  '200': 'Unsupported message type',
  '202': 'Unsupported processing id',
  '203': 'Unsupported version id',
  '207': 'Application internal error',
};

export interface AckProblem {
  code: ErrorCode;
  /** What was wrong, for the analyzer's operator (ERR-8, or ERR-1's text before v2.5). */
  text: string;
  /** Where, when known: segment name and field number. */
  segment?: string;
  field?: number;
}

export interface AckOptions {
  code: AckCode;
  /** The analyzer's MSH, or undefined when it could not be read (then MSA-2 is empty). */
  header: Hl7Segment | undefined;
  /** Delimiters of the analyzer's message (defaults when its header could not be read). */
  delimiters?: Hl7Delimiters;
  /** Our MSH-10. */
  controlId: string;
  /** MSH-7. */
  time: Date;
  problem?: AckProblem;
}

/** The ACK's text (CR after each segment); encode it in the analyzer's message's character set. */
export function buildAck(options: AckOptions): string {
  const { header, problem } = options;
  const d = usable(options.delimiters);
  // Raw copies only in the analyzer's own delimiters; otherwise the values are written decoded (and escaped).
  const same = options.delimiters !== undefined && d === options.delimiters;
  const raw = (n: number): Hl7FieldValue => (header ? (same ? rawHl7(header.rawField(n)) : header.field(n)) : undefined);
  const trigger = header?.field(9, 1, 2) ?? '';
  const version = header?.field(12) || '2.5.1';
  const old = beforeV25(version);
  const msh: Hl7SegmentSpec = {
    name: 'MSH',
    fields: {
      3: raw(5),
      4: raw(6),
      5: raw(3),
      6: raw(4),
      7: hl7Time(options.time),
      // MSH-9.3 (message structure) is written from v2.5 on; v2.3.1 analyzers show `ACK^R01` (Mindray CL Host
      // Interface Manual 1.3.1, test/fixtures/hl7/mindray-cl2000i-ack-r01.txt), and the component is optional there.
      9: trigger === '' ? 'ACK' : old ? ['ACK', trigger] : ['ACK', trigger, 'ACK'],
      10: options.controlId,
      11: header && header.rawField(11) !== '' ? raw(11) : 'P',
      12: header && header.rawField(12) !== '' ? raw(12) : version,
      // The character set the analyzer stated: the ACK is written in it.
      ...(header && header.rawField(18) !== '' ? { 18: raw(18) } : {}),
    },
  };
  const msa: Hl7SegmentSpec = {
    name: 'MSA',
    // MSA-3 (text) exists up to v2.4 and is what v2.3.1 analyzers display (the Mindray CL manual's ACK^R01 says
    // "Message accepted"); from v2.5 the text is ERR-8.
    fields: { 1: options.code, 2: header ? raw(10) : '', ...(old ? { 3: problem ? problem.text : ACCEPTED[options.code] } : {}) },
  };
  const segments = [msh, msa];
  if (problem) segments.push(old ? errV231(problem) : errV25(problem));
  return buildHl7(segments, { delimiters: d });
}

/** MSA-3 of an acknowledgement without a problem, before v2.5. */
const ACCEPTED: Record<AckCode, string> = { AA: 'Message accepted', CA: 'Message accepted', AE: '', AR: '', CE: '', CR: '' };

/** v2.3.1 ERR-1 (CM_ELD): segment ^ sequence ^ field ^ code&text&HL70357. */
function errV231(p: AckProblem): Hl7SegmentSpec {
  return { name: 'ERR', fields: { 1: [p.segment ?? '', p.segment ? '1' : '', p.field === undefined ? '' : String(p.field), [p.code, `${ERROR_NAMES[p.code]}: ${p.text}`, 'HL70357']] } };
}

/** v2.5 ERR-2 location, ERR-3 HL7 error code, ERR-4 severity E, ERR-8 user message. */
function errV25(p: AckProblem): Hl7SegmentSpec {
  const location = p.segment ? [p.segment, '1', p.field === undefined ? '' : String(p.field)] : undefined;
  return { name: 'ERR', fields: { 2: location, 3: [p.code, ERROR_NAMES[p.code], 'HL70357'], 4: 'E', 8: p.text } };
}

/** Whether a version (MSH-12) predates v2.5's ERR segment. An unreadable one is taken as current. */
export function beforeV25(version: string): boolean {
  const m = /^(\d+)\.(\d+)/.exec(version.trim());
  if (!m) return false;
  return Number(m[1]) < 2 || (Number(m[1]) === 2 && Number(m[2]) < 5);
}

/** MSH-7 as YYYYMMDDHHMMSS in the host's local time (every version reads it; the offset is optional). */
export function hl7Time(t: Date): string {
  const p = (n: number, w = 2) => String(n).padStart(w, '0');
  return `${p(t.getFullYear(), 4)}${p(t.getMonth() + 1)}${p(t.getDate())}${p(t.getHours())}${p(t.getMinutes())}${p(t.getSeconds())}`;
}

/** The analyzer's delimiters when they can be written, else HL7's defaults. */
function usable(d: Hl7Delimiters | undefined): Hl7Delimiters {
  if (!d) return DEFAULT_DELIMITERS;
  try {
    checkWriteDelimiters(d);
    return d;
  } catch {
    return DEFAULT_DELIMITERS;
  }
}

/**
 * Fresh control IDs for what the host writes: a random prefix per process, so
 * IDs never repeat across restarts, and a counter; at most 20 characters
 * (MSH-10 is ST of 20 in v2.3.1 and v2.5.1).
 */
export function controlIdSource(prefix = randomBytes(4).toString('hex').toUpperCase()): () => string {
  let n = 0;
  return () => `${prefix}${(++n).toString(36).toUpperCase()}`.slice(0, 20);
}
