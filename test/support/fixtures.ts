/**
 * ASTM fixtures from test/fixtures/astm, turned into the bytes that went
 * over the wire. The files use several notations (raw bytes, JSON byte arrays,
 * `<CR>`/`[CR]` tokens, LF-separated records, an annotated manual trace) and
 * some carry capture artefacts; test/fixtures/SOURCES.md describes each file,
 * and FIXTURES below records that description per file, so nothing is guessed
 * from content.
 * Every artefact is undone by a named step that checks the artefact is really
 * there, so a changed fixture fails loudly instead of being half-repaired.
 *
 * The fixture files are read only; nothing here writes to them.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { ACK, CR, ENQ, EOT, ETB, ETX, LF, NAK, STX } from '../../lib/protocols/astm/control';
import { pythonLogReads } from './python-log';
import { monitorLog } from './monitor-log';

export type Framing = 'framed' | 'records' | 'simplified';

/**
 * How the file writes the data down:
 * - `raw`: the bytes themselves (control characters as real bytes);
 * - `json-bytes`: a JSON array of arrays of byte values, one array per serial read;
 * - `lf-lines`: one record per line, lines separated by LF (the CR is implied);
 * - `cr-tokens`: records ended by the text `<CR>`, one per line;
 * - `bracket-cr-tokens`: records ended by the text `[CR]`, one per line;
 * - `trace-tokens`: a manual's conversation trace, with INSTRUMENT/HOST labels
 *   and `<ENQ>` `<STX>` `<ETB>` `<CS>` ... tokens.
 * - `bracket-log`: a serial log writing control characters as `[ENQ]` `[STX]`
 *   `[CR]` `[ETX]` `[LF]` `[EOT]`, its own line break after each read.
 * - `json-messages`: a JSON array of test cases, each message's records in a
 *   `messageContent` string separated by CR.
 * - `python-bytes-log`: a Python driver's log, each read printed as a bytes
 *   literal after the logging prefix (./python-log.ts).
 * - `monitor-log`: a line monitor's two-way log, `[time]  Client NNNN: ...`
 *   per transmission, control characters as bracketed names (./monitor-log.ts).
 * - `python-strings`: records as the items of a Python list of string
 *   literals, one indented `'...',` per line (backslashes written `\\`).
 * - `python-bracket-strings`: the same list form, each item one transmission
 *   written as `bracket-log` writes it (`"[STX]1H|...[CR][ETX]71[CR][LF]",`).
 */
export type Notation =
  | 'raw'
  | 'json-bytes'
  | 'lf-lines'
  | 'cr-tokens'
  | 'bracket-cr-tokens'
  | 'trace-tokens'
  | 'bracket-log'
  | 'json-messages'
  | 'python-bytes-log'
  | 'monitor-log'
  | 'python-strings'
  | 'python-bracket-strings';

/** Capture artefacts named in test/fixtures/SOURCES.md (and a few it implies), undone by the loader. */
export type Artefact =
  | 'lf-for-cr' // the log wrote LF where the wire had CR
  | 'lf-after-cr' // the log added an LF after every CR
  | 'leading-ack' // the host's ACK bytes logged before the instrument's first STX
  | 'trailing-junk' // the bytes EF BF BD (a UTF-8 replacement character) before EOT
  | 'pdf-wrap' // line breaks from the PDF's page layout, not from the data
  | 'comment-lines' // `#` comment lines and a blank line before the data
  | 'doubled-backslash' // every backslash written twice, as in an escaped string literal
  | 'frame-number-prefix' // each line starts with its frame's number digit
  | 'space-before-cr-token' // the manual typesets a space before `[CR]`
  | 'missing-cr-token' // the manual's example leaves out one record's `[CR]`
  | 'checksum-placeholder' // the manual writes `<CS>` instead of the checksum
  | 'indentation' // every line indented, as in a Cucumber doc string
  | 'checksum-suffix' // a space and the frame's two checksum digits after some records
  | 'checksum-field' // the frame's two checksum digits after a field delimiter, `|CS`, on every record
  | 'middle-dot-for-space' // a manual's visible blank: every space written as `·` (U+00B7)
  | 'host-lines' // the host's replies logged as their own lines (` - [ACK]`, a read that is one ACK, a monitor's Server lines)
  | 'program-lines' // the logging program's own lines between the reads
  | 'unterminated-messages'; // each message's last record written without its CR

export type Vendor =
  | 'Abbott'
  | 'Beckman Coulter'
  | 'Bio-Rad'
  | 'Cepheid'
  | 'ERBA'
  | 'EUROIMMUN'
  | 'Hologic'
  | 'HORIBA'
  | 'Immucor'
  | 'Mindray'
  | 'Ortho'
  | 'Phadia'
  | 'Quidel'
  | 'Roche'
  | 'Siemens'
  | 'SNIBE'
  | 'Stago'
  | 'Sysmex';

export interface FixtureSpec {
  vendor: Vendor;
  framing: Framing;
  notation: Notation;
  artefacts: Artefact[];
  /** The raw file this one was decoded from, when both are in the folder. */
  decodedFrom?: string;
  /** What a reader of the bytes should know that is no artefact (kept as captured). */
  note?: string;
  /**
   * How the analyzer computes its frame checksums when not as LIS1-A 6.3.3
   * says (the sum of the bytes): `utf8-characters`, the sum of the
   * characters of its UTF-8 text (the Sofia 2). Kept as sent, checked as made.
   */
  checksum?: 'utf8-characters';
  /**
   * Frames (1-based, in stream order) whose checksum the source computed over
   * other text than it shows: a transcription slip, named in SOURCES-added.md,
   * with the record text the checksum does add up for. The frame is kept as
   * the source has it and checked against that text, so a second slip, or a
   * wrong guess at the first, still fails.
   */
  checksumSlips?: Readonly<Record<number, string>>;
}

const raw = (vendor: Vendor, framing: Framing, artefacts: Artefact[] = [], note?: string): FixtureSpec => ({ vendor, framing, notation: 'raw', artefacts, ...(note ? { note } : {}) });
const lines = (vendor: Vendor, artefacts: Artefact[] = [], note?: string): FixtureSpec => ({ vendor, framing: 'records', notation: 'lf-lines', artefacts, ...(note ? { note } : {}) });

/** One entry per file in the folder (a test checks both directions). */
export const FIXTURES: Readonly<Record<string, FixtureSpec>> = {
  'abbott-afinion2-result.txt': raw('Abbott', 'framed', [], 'frame ends with CR, no LF'),
  'abbott-architect-i-result-multi.txt': lines('Abbott', [], '5 H...L messages back to back; L|1 without code'),
  'abbott-architect-query-strings.txt': { vendor: 'Abbott', framing: 'records', notation: 'python-strings', artefacts: ['frame-number-prefix', 'checksum-field'], note: 'one host query; each record a string literal with its frame number and |checksum' },
  'abbott-m2000-result-framed.txt': raw('Abbott', 'framed', [], 'one record per ETX frame'),
  'abbott-m2000-result.txt': lines('Abbott', [], 'no L record'),
  'beckman-access-query-strings.txt': { vendor: 'Beckman Coulter', framing: 'records', notation: 'python-strings', artefacts: ['frame-number-prefix'], note: 'one host query; PHP single-quoted strings, each record with its frame number, no checksum' },
  'beckman-access2-result-log.txt': { vendor: 'Beckman Coulter', framing: 'framed', notation: 'bracket-log', artefacts: ['host-lines'], note: 'one transfer, one record per frame; the host ACK logged between a CR and its LF' },
  'biorad-ihcom-bloodtype-multipatient-result.txt': lines('Bio-Rad', [], 'both patients are P|1'),
  'biorad-ihcom-bloodtype-result.txt': lines('Bio-Rad'),
  'cepheid-genexpert-result.txt': raw('Cepheid', 'framed', [], 'delimiters H|@^\\; frame ends with CR, no LF'),
  'erba-em200-query-multitube.txt': raw('ERBA', 'framed', ['leading-ack', 'lf-for-cr'], 'repeat delimiter is a backquote'),
  'erba-em200-query.txt': raw('ERBA', 'framed', ['lf-for-cr'], 'the file ends after the checksum'),
  'erba-em200-result-session.txt': raw('ERBA', 'framed', ['lf-for-cr'], 'two ENQ...EOT sessions'),
  'euroimmun-analyzer1-result.txt': lines('EUROIMMUN', [], 'decimal comma'),
  'hologic-panther-result.txt': lines('Hologic', [], 'no L record; the last line is a P record'),
  'horiba-pentra-xlr-result.txt': raw('HORIBA', 'framed', [], 'frames end with LF, no CR'),
  'horiba-pentra60-result-log.txt': lines('HORIBA', ['frame-number-prefix'], 'unit characters garbled in the capture'),
  'horiba-yumizen-h500-qc-result.txt': raw('HORIBA', 'framed', [], 'frames end with LF, no CR; irregular frame numbers'),
  'horiba-yumizen-h550-qc-result.txt': lines('HORIBA', ['doubled-backslash']),
  'immucor-galileo-order.txt': lines('Immucor', [], 'the last record is "L|1|N " with a trailing space'),
  'immucor-galileo-result.txt': lines('Immucor'),
  'immucor-neo-query.txt': lines('Immucor'),
  'immucor-neo-result.txt': lines('Immucor'),
  'mindray-cl2000i-order-download.txt': { vendor: 'Mindray', framing: 'records', notation: 'cr-tokens', artefacts: ['pdf-wrap'] },
  'mindray-cl2000i-qc-result.txt': { vendor: 'Mindray', framing: 'records', notation: 'cr-tokens', artefacts: ['pdf-wrap'] },
  'mindray-cl2000i-query-answer-notfound.txt': { vendor: 'Mindray', framing: 'records', notation: 'cr-tokens', artefacts: [] },
  'mindray-cl2000i-query.txt': { vendor: 'Mindray', framing: 'records', notation: 'cr-tokens', artefacts: [] },
  'mindray-cl2000i-result.txt': { vendor: 'Mindray', framing: 'records', notation: 'cr-tokens', artefacts: ['pdf-wrap'] },
  'mindray-bs240-qc-log.txt': { vendor: 'Mindray', framing: 'framed', notation: 'bracket-log', artefacts: ['host-lines'], note: '43 QC transfers, one frame each' },
  'mindray-bs240-result-calculated-log.txt': { vendor: 'Mindray', framing: 'framed', notation: 'bracket-log', artefacts: ['host-lines'], note: 'two patient transfers, one frame each; the AST/ALT ratio with R-3 component 1 empty (`^AST/ALT^^F`)' },
  'mindray-cl2000i-session-trace.txt': {
    vendor: 'Mindray',
    framing: 'framed',
    notation: 'trace-tokens',
    artefacts: ['pdf-wrap', 'checksum-placeholder'],
    note: 'six transfers in both directions; frame number 8 where modulo 8 gives 0',
  },
  'ortho-vision-result-abo-rh.txt': lines('Ortho', [], 'the article\'s introductory example'),
  'ortho-vision-test-cases.json': {
    vendor: 'Ortho',
    framing: 'records',
    notation: 'json-messages',
    artefacts: ['unterminated-messages'],
    note: 'eight messages: keep-alive, two queries, five results (one with two samples in O-3, one crossmatch)',
  },
  'ortho-vision-result.txt': lines('Ortho', ['comment-lines'], 'M records carry the well reactions; L|| without sequence'),
  'ortho-vitros-3600-query-cancel.txt': raw('Ortho', 'framed', [], 'Q-13 "A" and L-3 "T"'),
  'ortho-vitros-3600-query.txt': raw('Ortho', 'framed'),
  'ortho-vitros-3600-result-indices.txt': raw('Ortho', 'framed'),
  'ortho-vitros-3600-result.txt': raw('Ortho', 'framed', [], 'one record per ETX frame, FN wraps 7 to 0; M records after R'),
  'phadia-immunocap-result.txt': lines('Phadia', ['comment-lines']),
  'quidel-sofia2-result-monitor-log.txt': {
    vendor: 'Quidel',
    framing: 'framed',
    notation: 'monitor-log',
    artefacts: ['host-lines'],
    checksum: 'utf8-characters',
    note: 'one transfer in UTF-8; the Sofia sums characters, so the two frames with umlauts fail the LIS1-A check',
  },
  'roche-cobas-u411-result-manual.txt': {
    vendor: 'Roche',
    framing: 'framed',
    notation: 'python-bracket-strings',
    artefacts: ['middle-dot-for-space'],
    note: 'the Host Interface Manual\'s result example; R-3 number^abbreviation, an M record after the results',
  },
  'roche-urisys1100-result-manual.txt': {
    vendor: 'Roche',
    framing: 'framed',
    notation: 'python-bracket-strings',
    artefacts: ['middle-dot-for-space'],
    // The SG record's units read `gcm3`; its checksum BB adds up for `g/cm3`.
    checksumSlips: { 4: 'R|01|01^ SG|1.020|g/cm3|||||20090116|LNorman^A\r' },
    note: 'the Host Interface Document\'s result example; sample in O-4, R-4 value^grade, values padded with blanks',
  },
  'roche-c111-result.txt': raw('Roche', 'framed', [], 'one record per ETB frame; frames end with LF, no CR'),
  'roche-c311-result.txt': raw('Roche', 'framed'),
  'roche-cobas6000-e601-result-log.txt': { vendor: 'Roche', framing: 'framed', notation: 'python-bytes-log', artefacts: ['program-lines'], note: 'one transfer in 240-character ETB frames; the driver logs its ACKs and the text so far between the reads' },
  'roche-e411-order-download-manual.txt': { vendor: 'Roche', framing: 'records', notation: 'bracket-cr-tokens', artefacts: ['missing-cr-token', 'space-before-cr-token', 'pdf-wrap'] },
  'roche-e411-order-download-no-order-manual.txt': { vendor: 'Roche', framing: 'records', notation: 'bracket-cr-tokens', artefacts: ['space-before-cr-token'] },
  'roche-e411-query-cancel-manual.txt': { vendor: 'Roche', framing: 'records', notation: 'bracket-cr-tokens', artefacts: ['space-before-cr-token'] },
  'roche-e411-query-manual.txt': { vendor: 'Roche', framing: 'records', notation: 'bracket-cr-tokens', artefacts: ['space-before-cr-token'] },
  'roche-e411-query-unknown-sample.txt': raw('Roche', 'framed', ['leading-ack', 'trailing-junk', 'lf-for-cr']),
  'roche-e411-query.txt': raw('Roche', 'framed', ['leading-ack', 'lf-for-cr'], 'the file ends after the checksum'),
  'roche-e411-result-multiframe.bytes.txt': { vendor: 'Roche', framing: 'framed', notation: 'json-bytes', artefacts: [] },
  'roche-e411-result-multiframe.txt': { ...raw('Roche', 'framed', [], '240-character frames split mid-record'), decodedFrom: 'roche-e411-result-multiframe.bytes.txt' },
  'roche-e411-result.bytes.txt': { vendor: 'Roche', framing: 'framed', notation: 'json-bytes', artefacts: [] },
  'roche-e411-result.txt': { ...raw('Roche', 'framed'), decodedFrom: 'roche-e411-result.bytes.txt' },
  'siemens-dca-vantage-result.txt': raw('Siemens', 'framed', [], 'frame ends with CR, no LF'),
  'siemens-immulite-query.txt': lines('Siemens', ['indentation', 'frame-number-prefix', 'checksum-suffix']),
  'siemens-immulite-result.txt': lines('Siemens', ['indentation', 'frame-number-prefix'], 'H|\\^| declares no escape character; frame number 7 is followed by 1'),
  'snibe-maglumi-600-query-manual.txt': { vendor: 'SNIBE', framing: 'records', notation: 'cr-tokens', artefacts: ['indentation'] },
  'snibe-maglumi-600-result-manual.txt': { vendor: 'SNIBE', framing: 'records', notation: 'cr-tokens', artefacts: ['indentation'] },
  'snibe-maglumi-x3-result-session-hostid-notlis.txt': raw('SNIBE', 'simplified', [], 'three ENQ STX ... ETX EOT transfers'),
  'snibe-maglumi-x3-result-session.txt': raw('SNIBE', 'simplified', [], 'three ENQ STX ... ETX EOT transfers'),
  'stago-sta-satellite-max-result.bytes.txt': { vendor: 'Stago', framing: 'framed', notation: 'json-bytes', artefacts: [] },
  'stago-sta-satellite-max-result.txt': { ...raw('Stago', 'framed', [], 'one record per ETX frame'), decodedFrom: 'stago-sta-satellite-max-result.bytes.txt' },
  'sysmex-xn550-result-framed-session.txt': raw('Sysmex', 'framed', ['lf-after-cr'], 'frame number 2 twice in a row with different records (R|29)'),
  'sysmex-xn550-result.txt': raw('Sysmex', 'framed', [], 'frame ends with CR, no LF'),
  'sysmex-xp100-result.txt': raw('Sysmex', 'framed', [], 'frame ends with CR, no LF'),
  'sysmex-uwam-uf4000-result-log.txt': { vendor: 'Sysmex', framing: 'framed', notation: 'python-bytes-log', artefacts: ['host-lines'], note: 'one transfer; the O record spans an ETB frame; R-4 value^format, each result sent RAW and MAINFORMAT' },
};

export interface Turn {
  from: 'instrument' | 'host';
  bytes: Buffer;
}

export interface Fixture extends FixtureSpec {
  name: string;
  /** What went over the wire (for a two-way trace: both directions in time order). */
  bytes: Buffer;
  /** The file's own bytes, artefacts and all. */
  file: Buffer;
  /** For a two-way trace only: each transmission and who sent it. */
  turns?: Turn[];
}

export class FixtureError extends Error {
  constructor(name: string, message: string) {
    super(`fixture ${name}: ${message}`);
    this.name = 'FixtureError';
  }
}

/**
 * The repository root, found by its package.json rather than by counting
 * folders, so the answer is the same from test/support and from the compiled
 * dist/test/support.
 */
export function repoRoot(): string {
  let dir = __dirname;
  for (;;) {
    const manifest = join(dir, 'package.json');
    if (existsSync(manifest) && (JSON.parse(readFileSync(manifest, 'utf8')) as { name?: unknown }).name === '@lis-bridge/node-red-lis-bridge') return dir;
    const up = dirname(dir);
    if (up === dir) throw new Error(`no package.json of @lis-bridge/node-red-lis-bridge above ${__dirname}`);
    dir = up;
  }
}

/**
 * The ASTM captures kept in the repository (test/fixtures/astm), so a fresh
 * clone tests itself. tsc does not copy them into dist/, hence the root.
 */
export function fixtureDir(): string {
  return join(repoRoot(), 'test', 'fixtures', 'astm');
}

export function fixtureFiles(): string[] {
  return readdirSync(fixtureDir()).sort();
}

export function loadFixture(name: string): Fixture {
  const spec = FIXTURES[name];
  if (spec === undefined) throw new FixtureError(name, 'not in the FIXTURES table');
  const file = readFileSync(join(fixtureDir(), name));
  const fail = (message: string): never => {
    throw new FixtureError(name, message);
  };
  switch (spec.notation) {
    case 'raw':
      return { ...spec, name, file, bytes: undoByteArtefacts(file, spec.artefacts, fail) };
    case 'json-bytes':
      return { ...spec, name, file, bytes: jsonBytes(file, fail) };
    case 'lf-lines':
      return { ...spec, name, file, bytes: lfLines(file.toString('latin1'), spec.artefacts, fail) };
    case 'cr-tokens':
    case 'bracket-cr-tokens':
      return { ...spec, name, file, bytes: tokenRecords(file.toString('latin1'), spec.notation === 'cr-tokens' ? '<CR>' : '[CR]', spec.artefacts, fail) };
    case 'bracket-log':
      return { ...spec, name, file, bytes: bracketLog(file.toString('latin1'), spec.artefacts, fail) };
    case 'json-messages':
      return { ...spec, name, file, bytes: jsonMessages(file, spec.artefacts, fail) };
    case 'python-bytes-log':
      return { ...spec, name, file, bytes: pythonLog(file.toString('latin1'), spec.artefacts, fail) };
    case 'monitor-log':
      return { ...spec, name, file, bytes: monitorBytes(file.toString('utf8'), spec.artefacts, fail) };
    case 'python-strings':
      return { ...spec, name, file, bytes: lfLines(pythonStrings(file.toString('latin1'), fail), spec.artefacts, fail) };
    case 'python-bracket-strings':
      return { ...spec, name, file, bytes: bracketLog(middleDots(pythonStrings(file.toString('utf8'), fail), spec.artefacts, fail), [], fail) };
    case 'trace-tokens': {
      // The manual's text is UTF-8 (full-width colons, an ellipsis); the data in it is ASCII.
      const turns = readTrace(file.toString('utf8'), spec.artefacts, fail);
      return { ...spec, name, file, bytes: Buffer.concat(turns.map((t) => t.bytes)), turns };
    }
  }
}

export function loadAllFixtures(): Fixture[] {
  return Object.keys(FIXTURES).sort().map(loadFixture);
}

// ---------------------------------------------------------------- frames

export interface Frame {
  /** The frame number character as sent (normally '0'-'7'). */
  number: string;
  /** Frame text (after the number, before ETX/ETB), latin1. */
  text: string;
  end: 'ETX' | 'ETB';
  /** The two checksum characters as sent. */
  checksum: string;
  /** What the checksum should be: sum of the bytes from the number through ETX/ETB, mod 256, two upper-case hex digits. */
  expected: string;
}

export function checksumOf(bytes: Uint8Array): string {
  let sum = 0;
  for (const b of bytes) sum = (sum + b) & 0xff;
  return sum.toString(16).toUpperCase().padStart(2, '0');
}

/**
 * Every `STX FN text ETX|ETB C1 C2` frame in the bytes, in order. Bytes
 * between frames (ENQ, EOT, ACK, CR, LF) are skipped, as a receiver does.
 */
export function readFrames(bytes: Buffer): Frame[] {
  const frames: Frame[] = [];
  let i = bytes.indexOf(STX);
  while (i >= 0) {
    let k = i + 1;
    while (k < bytes.length && bytes[k] !== ETX && bytes[k] !== ETB) {
      if (bytes[k] === STX) throw new Error(`frame ${frames.length + 1}: STX inside a frame at byte ${k}`);
      k++;
    }
    if (k + 2 >= bytes.length) throw new Error(`frame ${frames.length + 1}: no ETX/ETB and checksum after the STX at byte ${i}`);
    frames.push({
      number: bytes.toString('latin1', i + 1, i + 2),
      text: bytes.toString('latin1', i + 2, k),
      end: bytes[k] === ETX ? 'ETX' : 'ETB',
      checksum: bytes.toString('latin1', k + 1, k + 3),
      expected: checksumOf(bytes.subarray(i + 1, k + 1)),
    });
    i = bytes.indexOf(STX, k + 3);
  }
  return frames;
}

/** The sum of a frame's characters (number through ETX/ETB) read as UTF-8, as the Sofia 2 computes it. */
function characterChecksumOf(bytes: Uint8Array): string {
  let sum = 0;
  for (const c of Buffer.from(bytes).toString('utf8')) sum = (sum + (c.codePointAt(0) ?? 0)) & 0xff;
  return sum.toString(16).toUpperCase().padStart(2, '0');
}

/** The checksum the analyzer should have put on the frame: LIS1-A's, or as `rule` says it makes them. */
export function checksumMade(frame: Frame, rule?: FixtureSpec['checksum']): string {
  if (rule === undefined) return frame.expected;
  return characterChecksumOf(Buffer.from(`${frame.number}${frame.text}${frame.end === 'ETX' ? '\x03' : '\x17'}`, 'latin1'));
}

/**
 * The checksum frame `n` (1-based) of a fixture should carry: as the analyzer
 * makes them, or, for a slip the table names, the sum over the text the
 * source computed it for (which must differ from the text it shows).
 */
export function checksumExpected(spec: Pick<FixtureSpec, 'checksum' | 'checksumSlips'>, frame: Frame, n: number): string {
  const slip = spec.checksumSlips?.[n];
  if (slip === undefined) return checksumMade(frame, spec.checksum);
  if (slip === frame.text) throw new Error(`frame ${n}: the slip's text is the frame's own`);
  return checksumOf(Buffer.from(`${frame.number}${slip}${frame.end === 'ETX' ? '\x03' : '\x17'}`, 'latin1'));
}

/** The frames' texts joined, after checking every checksum (made as `spec` says; LIS1-A's by default). */
export function framedText(bytes: Buffer, spec: Pick<FixtureSpec, 'checksum' | 'checksumSlips'> = {}): string {
  const frames = readFrames(bytes);
  if (frames.length === 0) throw new Error('no frames');
  frames.forEach((f, i) => {
    const expected = checksumExpected(spec, f, i + 1);
    if (f.checksum !== expected) throw new Error(`frame ${i + 1} (number ${f.number}): checksum ${JSON.stringify(f.checksum)}, expected ${expected}`);
  });
  for (const n of Object.keys(spec.checksumSlips ?? {})) if (Number(n) > frames.length) throw new Error(`checksum slip named for frame ${n} of ${frames.length}`);
  return frames.map((f) => f.text).join('');
}

/** MAGLUMI's simplified framing: `ENQ STX records ETX EOT`, no frame number or checksum. */
export function simplifiedText(bytes: Buffer): string {
  let text = '';
  let i = bytes.indexOf(STX);
  while (i >= 0) {
    const end = bytes.indexOf(ETX, i + 1);
    if (end < 0) throw new Error(`no ETX after the STX at byte ${i}`);
    text += bytes.toString('latin1', i + 1, end);
    i = bytes.indexOf(STX, end + 1);
  }
  return text;
}

/** The record text a fixture carries: frame texts joined, or its records as they are. */
export function fixtureText(fixture: Fixture): string {
  switch (fixture.framing) {
    case 'framed':
      return framedText(fixture.bytes, fixture);
    case 'simplified':
      return simplifiedText(fixture.bytes);
    case 'records':
      return fixture.bytes.toString('latin1');
  }
}

/**
 * The fixture's text cut before each H record (each piece keeps its CRs).
 * Done here without the codec, so the codec's tests do not grade themselves.
 */
export function fixtureMessages(fixture: Fixture): string[] {
  const records = fixtureText(fixture).split('\r');
  const out: string[] = [];
  let current = '';
  records.forEach((record, i) => {
    const piece = i < records.length - 1 ? `${record}\r` : record;
    if (/^H[^A-Za-z0-9]/.test(record) && current !== '') {
      out.push(current);
      current = '';
    }
    current += piece;
  });
  if (current !== '') out.push(current);
  return out;
}

// ---------------------------------------------------------------- notations and artefacts

type Fail = (message: string) => never;

function has(artefacts: Artefact[], a: Artefact): boolean {
  return artefacts.includes(a);
}

function undoByteArtefacts(file: Buffer, artefacts: Artefact[], fail: Fail): Buffer {
  let bytes: Buffer = Buffer.from(file);
  if (has(artefacts, 'leading-ack')) {
    // The host's ACK to the analyzer's ENQ, logged into the analyzer's stream;
    // the instrument never sent it.
    let n = 0;
    while (bytes[n] === ACK) n++;
    if (n === 0) fail('expected ACK bytes before the first STX');
    bytes = bytes.subarray(n);
  }
  if (has(artefacts, 'trailing-junk')) {
    // EF BF BD is U+FFFD in UTF-8: a byte the logger could not decode,
    // written in its place. It is no protocol byte.
    const junk = Buffer.from([0xef, 0xbf, 0xbd, EOT]);
    const at = bytes.lastIndexOf(junk);
    if (at < 0 || at + junk.length !== bytes.length) fail('expected the bytes EF BF BD right before the final EOT');
    bytes = Buffer.concat([bytes.subarray(0, at), Buffer.of(EOT)]);
  }
  if (has(artefacts, 'lf-for-cr')) {
    // The log turned every CR into LF. Inside a frame the checksum proves each
    // LF was a CR. Between frames the log shows "LF LF" after a checksum (its
    // CR LF trailer) and an LF after ENQ/EOT (its own line break).
    bytes = rebuildFramed(bytes, (text) => Buffer.from(text.map((b) => (b === LF ? CR : b))), fail);
  }
  if (has(artefacts, 'lf-after-cr')) {
    // The log added an LF after every CR. Inside a frame the checksum proves
    // it; after a checksum the CR LF is the real trailer; after ENQ/EOT the CR LF
    // is the log's line break.
    bytes = rebuildFramed(
      bytes,
      (text) => {
        const out: number[] = [];
        text.forEach((b, j) => {
          if (!(b === LF && text[j - 1] === CR)) out.push(b);
        });
        return Buffer.from(out);
      },
      fail,
    );
  }
  return bytes;
}

/**
 * Re-emits a framed stream with each frame's text repaired, a standard CR LF
 * trailer where the log had a line break after the checksum, and the log's
 * line breaks between control bytes dropped.
 */
function rebuildFramed(bytes: Buffer, repair: (text: Buffer) => Buffer, fail: Fail): Buffer {
  const out: Buffer[] = [];
  let i = 0;
  while (i < bytes.length) {
    const b = bytes[i];
    if (b === STX) {
      let k = i + 1;
      while (k < bytes.length && bytes[k] !== ETX && bytes[k] !== ETB) k++;
      if (k + 2 >= bytes.length) fail(`frame at byte ${i} has no ETX/ETB and checksum`);
      const text = repair(bytes.subarray(i + 1, k));
      if (text.includes(LF)) fail(`frame at byte ${i} still holds an LF after repair`);
      out.push(Buffer.of(STX), text, bytes.subarray(k, k + 3));
      i = k + 3;
      let breaks = 0;
      while (bytes[i] === CR || bytes[i] === LF) {
        i++;
        breaks++;
      }
      if (breaks > 0) out.push(Buffer.of(CR, LF));
    } else if (b === CR || b === LF) {
      i++;
    } else if (b === ENQ || b === EOT || b === ACK || b === NAK) {
      out.push(Buffer.of(b));
      i++;
    } else {
      fail(`unexpected byte 0x${(b ?? 0).toString(16)} between frames at byte ${i}`);
    }
  }
  return Buffer.concat(out);
}

function jsonBytes(file: Buffer, fail: Fail): Buffer {
  const reads: unknown = JSON.parse(file.toString('utf8'));
  if (!Array.isArray(reads)) return fail('expected a JSON array of reads');
  const bytes: number[] = [];
  for (const read of reads) {
    if (!Array.isArray(read)) return fail('expected each read to be an array of byte values');
    for (const b of read) {
      if (typeof b !== 'number' || !Number.isInteger(b) || b < 0 || b > 255) return fail(`not a byte value: ${JSON.stringify(b)}`);
      bytes.push(b);
    }
  }
  return Buffer.from(bytes);
}

function lfLines(text: string, artefacts: Artefact[], fail: Fail): Buffer {
  let t = text;
  if (has(artefacts, 'comment-lines')) {
    // The source document's own notes ('#' lines) and the blank line after them.
    const m = /^(?:#[^\n]*\n)+\n?/.exec(t);
    if (m === null) fail('expected # comment lines at the top');
    else t = t.slice(m[0].length);
  }
  if (has(artefacts, 'doubled-backslash')) {
    // Every backslash in the file is doubled (the header reads H|\\^&, and the
    // M-3 repeats read CLEANER\\DILUENT): the file was written as an escaped
    // string. The same vendor's H500 capture has single ones.
    if (t.replace(/\\\\/g, '').includes('\\')) fail('expected every backslash to be doubled');
    if (!t.startsWith('H|\\\\^&')) fail('expected the header H|\\\\^&');
    t = t.replace(/\\\\/g, '\\');
  }
  const records = t.split('\n');
  if (records[records.length - 1] === '') records.pop();
  if (has(artefacts, 'indentation')) {
    // A Cucumber doc string indents its lines like the step above it; the
    // indentation is the feature file's, not the data's.
    const indent = /^ +/.exec(records[0] ?? '')?.[0] ?? '';
    if (indent === '') fail('expected indented lines');
    records.forEach((r, i) => {
      if (!r.startsWith(indent)) fail(`line ${i + 1} is not indented like the first`);
      records[i] = r.slice(indent.length);
    });
  }
  // Each line's frame number, when the log kept it (the checksum covers it).
  const numbers: string[] = [];
  if (has(artefacts, 'frame-number-prefix')) {
    // The logger kept each frame's number digit and dropped STX/ETX/checksum.
    records.forEach((r, i) => {
      if (!/^[0-7]/.test(r)) fail(`line ${i + 1} does not start with a frame number`);
      numbers[i] = r.charAt(0);
      records[i] = r.slice(1);
    });
  }
  if (has(artefacts, 'checksum-suffix')) {
    // `...|19940407120613 51`: the source kept some frames' checksums after a
    // space. At least one must be its frame's real checksum (the sum of the
    // frame number, the record, CR and ETX), which shows these are checksums
    // and not data; the IMMULITE example's H line carries 51 where its bytes
    // sum to 59, a slip in the source, so the others are only cut.
    let verified = 0;
    let cut = 0;
    records.forEach((r, i) => {
      const m = / ([0-9A-F]{2})$/.exec(r);
      if (m === null) return;
      const text = r.slice(0, m.index);
      if (checksumOf(Buffer.from(`${numbers[i] ?? ''}${text}\r\x03`, 'latin1')) === m[1]) verified++;
      records[i] = text;
      cut++;
    });
    if (cut === 0 || verified === 0) fail('expected at least one record followed by its frame checksum');
  }
  if (has(artefacts, 'checksum-field')) {
    // `...|20120225131842|21`: the logger appended each frame's checksum as
    // one more field. Every one must be its frame's real checksum (frame
    // number, record, CR, ETX), or it could be data.
    records.forEach((r, i) => {
      const m = /\|([0-9A-F]{2})$/.exec(r);
      if (m === null) return fail(`line ${i + 1} does not end with |CS`);
      const text = r.slice(0, m.index);
      const expected = checksumOf(Buffer.from(`${numbers[i] ?? ''}${text}\r\x03`, 'latin1'));
      if (expected !== m[1]) fail(`line ${i + 1}: checksum ${m[1]}, the frame sums to ${expected}`);
      records[i] = text;
    });
  }
  records.forEach((r, i) => {
    if (r === '') fail(`unexpected blank line ${i + 1}`);
    if (r.includes('\r')) fail(`line ${i + 1} holds a CR`);
  });
  return Buffer.from(records.map((r) => `${r}\r`).join(''), 'latin1');
}

/**
 * The items of a Python list of string literals, one per line:
 * `<indent>'text',` or `"text",` (no comma after the last). Backslashes
 * follow Python: `\\` is one backslash, a backslash before a character that
 * is no escape (`\^`) stays as written, and a real escape (`\n`, `\x02`) is
 * refused rather than guessed. Gives the texts as LF lines.
 */
function pythonStrings(text: string, fail: Fail): string {
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  return lines
    .map((line, i) => {
      const m = /^ *(['"])((?:(?!\1)[^\\]|\\.)*)\1,?$/.exec(line);
      if (m === null) return fail(`line ${i + 1} is not one string literal of a list`);
      return (m[2] ?? '').replace(/\\(.)/g, (all, c: string) => {
        if (c === '\\') return '\\';
        if (/['"abfnrtvxNuU0-7]/.test(c)) return fail(`line ${i + 1}: the escape ${all} is not undone here`);
        return all;
      });
    })
    .map((l) => `${l}\n`)
    .join('');
}

/**
 * Roche's manuals print each space of an example as `·` so that blanks can be
 * counted; the checksums of those examples add up over spaces. With
 * `middle-dot-for-space` every `·` becomes the space it stands for.
 */
function middleDots(text: string, artefacts: Artefact[], fail: Fail): string {
  if (!has(artefacts, 'middle-dot-for-space')) return text;
  if (!text.includes('\u00b7')) fail('expected the manual\'s blanks written as \u00b7');
  return text.replace(/\u00b7/g, ' ');
}

/**
 * A serial log that writes control characters as bracketed names and starts a
 * line after each read (mindray-bs240-qc-log.txt). Lines starting with " - "
 * are the host's replies as the log recorded them (its ACKs); the analyzer's
 * stream is the other lines joined, the names turned back into bytes.
 */
function bracketLog(text: string, artefacts: Artefact[], fail: Fail): Buffer {
  const names: Readonly<Record<string, number>> = { ENQ, STX, ETX, ETB, EOT, CR, LF, ACK, NAK };
  let lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  if (has(artefacts, 'host-lines')) {
    const host = lines.filter((l) => l.startsWith(' - '));
    if (host.length === 0) fail('expected the host\'s replies on lines starting with " - "');
    if (host.some((l) => !/^(?: - \[(?:ACK|NAK)\])+$/.test(l))) fail('a " - " line holds more than ACK/NAK');
    lines = lines.filter((l) => !l.startsWith(' - '));
  }
  const out: number[] = [];
  for (const piece of lines.join('').split(/(\[[A-Z]{2,3}\])/)) {
    if (piece === '') continue;
    const m = /^\[([A-Z]{2,3})\]$/.exec(piece);
    if (m === null) {
      out.push(...Buffer.from(piece, 'latin1'));
      continue;
    }
    const byte = names[m[1] ?? ''];
    if (byte === undefined) fail(`unknown token ${piece}`);
    else out.push(byte);
  }
  return Buffer.from(out);
}

/**
 * A Python driver's log (./python-log.ts). With `host-lines`, reads that are
 * one ACK or NAK byte are the host's replies, logged in the same stream (the
 * U-WAM log prints the analyzer's frames and the host's ACKs alike); with
 * `program-lines`, lines that are no read are the driver's own and dropped,
 * otherwise every line must be a read.
 */
function pythonLog(text: string, artefacts: Artefact[], fail: Fail): Buffer {
  const { reads, otherLines } = pythonLogReads(text, fail);
  if (has(artefacts, 'program-lines') ? otherLines === 0 : otherLines > 0) fail(`${otherLines} line(s) that are no read, ${has(artefacts, 'program-lines') ? 'expected some' : 'expected none'}`);
  let kept = reads;
  if (has(artefacts, 'host-lines')) {
    kept = reads.filter((r) => !(r.length === 1 && (r[0] === ACK || r[0] === NAK)));
    if (kept.length === reads.length) fail('expected reads that are one ACK or NAK (the host\'s replies)');
  }
  return Buffer.concat(kept);
}

/**
 * A monitor's two-way log (./monitor-log.ts). With `host-lines`, the
 * `Server` lines are the host's replies and dropped; the analyzer's stream is
 * the `Client` lines' bytes.
 */
function monitorBytes(text: string, artefacts: Artefact[], fail: Fail): Buffer {
  const lines = monitorLog(text, fail);
  if (!has(artefacts, 'host-lines')) fail('a monitor log holds both sides: name the host-lines step');
  if (!lines.some((l) => l.from === 'Server')) fail('expected the host\'s Server lines');
  return Buffer.concat(lines.filter((l) => l.from === 'Client').map((l) => l.bytes));
}

/**
 * Test cases kept as JSON (ortho-vision-test-cases.json): the messages are the
 * `messageContent` strings, records separated by CR, in file order.
 */
function jsonMessages(file: Buffer, artefacts: Artefact[], fail: Fail): Buffer {
  const cases: unknown = JSON.parse(file.toString('utf8'));
  if (!Array.isArray(cases)) return fail('expected a JSON array of test cases');
  const texts = cases.map((c, i) => {
    const text = (c as { messageContent?: unknown }).messageContent;
    if (typeof text !== 'string') return fail(`case ${i + 1} has no messageContent string`);
    if (text.includes('\n')) fail(`case ${i + 1} holds an LF`);
    return text;
  });
  if (has(artefacts, 'unterminated-messages')) {
    // The test cases leave out the CR after each message's last record, which
    // the wire has (LIS2-A2: every record ends with CR).
    return Buffer.from(
      texts
        .map((t, i) => {
          if (t.endsWith('\r')) fail(`case ${i + 1} already ends with CR`);
          return `${t}\r`;
        })
        .join(''),
      'latin1',
    );
  }
  return Buffer.from(texts.join(''), 'latin1');
}

function tokenRecords(text: string, token: '<CR>' | '[CR]', artefacts: Artefact[], fail: Fail): Buffer {
  let t = text;
  if (has(artefacts, 'indentation')) {
    // Text taken from a PDF's layout keeps the page's left margin on every line.
    const lines = t.split('\n');
    const indent = /^ +/.exec(lines[0] ?? '')?.[0] ?? '';
    if (indent === '') fail('expected indented lines');
    t = lines
      .map((l, i) => {
        if (l === '' && i === lines.length - 1) return l;
        if (!l.startsWith(indent)) fail(`line ${i + 1} is not indented like the first`);
        return l.slice(indent.length);
      })
      .join('\n');
  }
  if (has(artefacts, 'missing-cr-token')) {
    // The manual's order download ends its O record (O-26 = Q) without [CR]
    // before the L record; the no-order example on the same page has it.
    const gap = '||||||||||||||Q\nL|1|';
    if (t.split(gap).length !== 2) fail('expected the O record ending "||||||||||||||Q" right before L without [CR]');
    t = t.replace(gap, `||||||||||||||Q${token}\nL|1|`);
  }
  if (has(artefacts, 'space-before-cr-token')) {
    // `P|1 [CR]`, `L|1| [CR]`: the manual sets a space before the token for
    // legibility; other records on the same page have none.
    if (!t.includes(` ${token}`)) fail(`expected a space before ${token}`);
    t = t.split(` ${token}`).join(token);
  }
  // The file's own line ends come after each token.
  t = t.split(`${token}\n`).join(token);
  if (has(artefacts, 'pdf-wrap')) {
    // What newlines remain are where the PDF wrapped a long record.
    if (!t.includes('\n')) fail('expected wrapped lines');
    t = t.split('\n').join('');
  }
  if (t.includes('\n')) fail('a line break is left that is neither after a token nor a known wrap');
  if (!t.endsWith(token)) fail(`expected the last record to end with ${token}`);
  return Buffer.from(t.split(token).join('\r'), 'latin1');
}

/**
 * The Mindray manual's traces (section 2.3): lines labelled `INSTRUMENT:` or
 * `HOST:` (the PDF split `INSTRUMENT:` into `INSTRUM` and, on the next line,
 * `ENT:`), prose between the examples, and records wrapped at the page edge.
 * Frames are collected from `<STX>` to `<LF>` across lines; who sent a frame
 * is taken from who sent the ENQ of its transfer, because the labels drift
 * (one frame's `<STX>2` sits on an unlabelled line).
 */
function readTrace(text: string, artefacts: Artefact[], fail: Fail): Turn[] {
  if (!has(artefacts, 'pdf-wrap') || !has(artefacts, 'checksum-placeholder')) fail('a trace needs the pdf-wrap and checksum-placeholder steps');
  const label = /^(?:INSTRUM |HOST[:\uff1a] ?|ENT[:\uff1a] ?)/;
  const turns: Turn[] = [];
  let speaker: Turn['from'] | undefined;
  let sender: Turn['from'] | undefined;
  let frame: string | undefined;
  text.split('\n').forEach((line, n) => {
    const m = label.exec(line);
    if (m !== null) {
      if (m[0].startsWith('INSTRUM')) speaker = 'instrument';
      else if (m[0].startsWith('HOST')) speaker = 'host';
    }
    let rest = m === null ? line : line.slice(m[0].length);
    if (frame === undefined) {
      const tokens = /<(ENQ|ACK|NAK|EOT|STX)>/g;
      let t: RegExpExecArray | null;
      while ((t = tokens.exec(rest)) !== null) {
        const name = t[1];
        if (name === 'STX') {
          frame = '';
          rest = rest.slice(t.index + t[0].length);
          break;
        }
        if (speaker === undefined) fail(`line ${n + 1}: <${name}> before any INSTRUMENT/HOST label`);
        const from: Turn['from'] = speaker;
        if (name === 'ENQ') sender = from;
        else if (name === 'EOT' && from !== sender) fail(`line ${n + 1}: EOT from the receiving side`);
        else if ((name === 'ACK' || name === 'NAK') && from === sender) fail(`line ${n + 1}: <${name}> from the sending side`);
        turns.push({ from, bytes: Buffer.of({ ENQ, ACK, NAK, EOT }[name as 'ENQ' | 'ACK' | 'NAK' | 'EOT']) });
      }
    }
    if (frame !== undefined) {
      frame += rest;
      const end = frame.indexOf('<LF>');
      if (end >= 0) {
        if (frame.slice(end + 4) !== '') fail(`line ${n + 1}: text after <LF>`);
        if (sender === undefined) fail(`line ${n + 1}: a frame before any ENQ`);
        turns.push({ from: sender, bytes: traceFrame(frame.slice(0, end + 4), n + 1, fail) });
        frame = undefined;
      }
    }
  });
  if (frame !== undefined) fail('the trace ends inside a frame');
  return turns;
}

/** `1H|...<CR><ETB><CS><CR><LF>` as bytes, with the checksum the manual left as `<CS>`. */
function traceFrame(tokens: string, line: number, fail: Fail): Buffer {
  const chars: Record<string, number> = { '<CR>': CR, '<LF>': LF, '<ETX>': ETX, '<ETB>': ETB };
  const parts = tokens.split(/(<[A-Z]+>)/).filter((p) => p !== '');
  const out: number[] = [STX];
  for (const p of parts) {
    const byte = chars[p];
    if (byte !== undefined) out.push(byte);
    else if (p === '<CS>') {
      const end = out.length - 1;
      if (out[end] !== ETX && out[end] !== ETB) fail(`line ${line}: <CS> not right after <ETX>/<ETB>`);
      out.push(...Buffer.from(checksumOf(Uint8Array.from(out.slice(1))), 'latin1'));
    } else if (p.startsWith('<')) fail(`line ${line}: unknown token ${p}`);
    else out.push(...Buffer.from(p, 'latin1'));
  }
  return Buffer.from(out);
}
