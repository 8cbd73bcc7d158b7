/**
 * HL7 fixtures from test/fixtures/hl7, turned into the messages that went over
 * the wire. The files use several notations (raw bytes; a manual's `<SB>`
 * `<EB>` `<CR>` tokens with the PDF's line wrap; Go `%q` session logs with one
 * line per TCP read and the host's replies; a Ruby `inspect` string; a one-line
 * string with `\n` tokens; a manual printing spaces as `·`); test/fixtures/
 * SOURCES.md describes each file, and HL7_FIXTURES below records that
 * description per file, so nothing is guessed from content.
 * Every artefact is undone by a named step that checks the artefact is really
 * there, so a changed fixture fails loudly instead of being half-repaired.
 *
 * MLLP frames are cut here by hand (VT … FS CR), not by lib/protocols/hl7/mllp.ts, so
 * the framer's tests do not grade themselves. The fixture files are read only.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from './fixtures';

const VT = 0x0b;
const FS = 0x1c;
const CR = 0x0d;
const LF = 0x0a;

export type Hl7Vendor = 'Analyx' | 'BioSystems' | 'EDAN' | 'Mindray' | 'Roche' | 'Siemens' | 'URIT';

/** Who sent a message or a read. */
export type Side = 'analyzer' | 'host';

/**
 * How the file writes the data down:
 * - `raw`: the bytes themselves (segment ends and MLLP bytes as real bytes);
 * - `mllp-tokens`: a manual's example, `<SB>` (VT), `<EB>` (FS) and `<CR>` as
 *   text, one segment per line;
 * - `ruby-inspect`: one Ruby `String#inspect` literal (`\v`, `\r`, `\x1C`, `\\`);
 * - `go-session-log`: a reader's log of a TCP session, each TCP read as a Go
 *   `%q` string on its own line with its length (`===>"…" (2048 chars)`), the
 *   host's replies as `<---- "…"`, the reader's own log lines in between;
 * - `escaped-line`: the whole message on one text line, segments separated by
 *   the two characters `\n`, with `\\` and `\"` for a backslash and a quote.
 */
export type Hl7Notation = 'raw' | 'mllp-tokens' | 'ruby-inspect' | 'go-session-log' | 'escaped-line';

/** Capture artefacts named in test/fixtures/SOURCES.md (and a few it implies), undone by the loader. */
export type Hl7Artefact =
  | 'pdf-wrap' // line breaks from the PDF's page layout, even inside a `<CR>` token
  | 'middle-dot-for-space' // the manual prints each space inside a text as `·` (U+00B7)
  | 'lf-for-cr' // the file has LF where the wire had CR (proved by the LF after the final FS)
  | 'reader-log-lines' // the session reader's own log lines between the reads
  | 'unquoted-first-read' // the log's first line is a whole message as an unquoted Go %q body
  | 'reader-error-line' // the log's last line is the reader's own error text, quoted like a read
  | 'file-line-end' // the file's own LF after the one-line notation
  | 'doubled-backslash'; // every backslash written twice (MSH-2 `^~\\&`), as an escaped string prints it, kept in a raw one

/**
 * Where the file shows MLLP: `mllp` (VT … FS CR), `mllp-no-start` (… FS CR,
 * the leading VT missing as captured), `none` (the message text alone).
 */
export type Hl7Framing = 'mllp' | 'mllp-no-start' | 'none';

interface SessionMarkers {
  /** The text before the opening quote of a line holding an analyzer read. */
  analyzer: string;
  /** The text before the opening quote of a line holding a host write. */
  host: string;
}

export interface Hl7FixtureSpec {
  vendor: Hl7Vendor;
  notation: Hl7Notation;
  framing: Hl7Framing;
  artefacts: Hl7Artefact[];
  /** Who sent the file's one message (session logs say so per line). */
  from: Side;
  /** Session logs only: how the log marks each side's lines. */
  markers?: SessionMarkers;
  /** How the file's message text reads from bytes (the message's MSH-18 or the manual's). */
  charset: 'ascii' | 'latin1' | 'utf8';
  /** What a reader of the bytes should know that is no artefact (kept as captured). */
  note?: string;
}

const tokens = (artefacts: Hl7Artefact[], from: Side, note?: string): Hl7FixtureSpec => ({
  vendor: 'Mindray',
  notation: 'mllp-tokens',
  framing: 'mllp',
  artefacts,
  from,
  charset: 'ascii',
  ...(note ? { note } : {}),
});
const raw = (vendor: Hl7Vendor, framing: Hl7Framing, charset: Hl7FixtureSpec['charset'], note: string, from: Side = 'analyzer', artefacts: Hl7Artefact[] = []): Hl7FixtureSpec => ({
  vendor,
  notation: 'raw',
  framing,
  artefacts,
  from,
  charset,
  note,
});
const goLog = (markers: SessionMarkers, artefacts: Hl7Artefact[], note: string): Hl7FixtureSpec => ({
  vendor: 'Roche',
  notation: 'go-session-log',
  framing: 'mllp',
  artefacts: ['reader-log-lines', ...artefacts],
  from: 'analyzer',
  markers,
  charset: 'utf8',
  note,
});

/** One entry per file in the folder (a test checks both directions). */
export const HL7_FIXTURES: Readonly<Record<string, Hl7FixtureSpec>> = {
  'analyx-panca-orm-o01-query.txt': raw('Analyx', 'none', 'utf8', 'CR between segments, none after the last; ORC|RF worklist query, ORC-3 the tube'),
  'analyx-panca-oru-r01.txt': raw('Analyx', 'none', 'utf8', 'CR after every segment; OBX-3 the name alone, OBX-6 `10^9/L` with an unescaped ^'),
  'biosystems-ba200-oul-r22.txt': raw('BioSystems', 'none', 'utf8', 'LF between segments, none after the last; `\\Z03BC\\` for µ in OBX-6'),
  'biosystems-ba400-ack-r22-host.txt': raw('BioSystems', 'none', 'utf8', 'CR; MSA-2 is not the MSH-10 of the message it answers', 'host'),
  'biosystems-ba400-qbp-q11.txt': raw('BioSystems', 'mllp-no-start', 'utf8', 'CR; the receiver had already dropped the VT'),
  'edan-h30-oru-r01.txt': raw('EDAN', 'none', 'utf8', 'LF after every segment; OBX-4 the parameter, OBX-6 `10\\S\\3/μL` (escaped ^), OBX-12 value^unit, OBX-13 the flag', 'analyzer', ['doubled-backslash']),
  'edan-i15-oru-r01.txt': raw('EDAN', 'none', 'utf8', 'LF, none after the last; analyte name in OBX-4'),
  'mindray-bc5300-orm-o01-query.txt': raw('Mindray', 'none', 'ascii', 'CR after each segment; the manual\'s ORM^O01 worklist query, ORC-3 the sample'),
  'mindray-bc5380-oru-r01-manual.txt': raw('Mindray', 'none', 'utf8', 'LF after every segment; the manual\'s patient sample: OBR-3 the sample, OBX-3 LOINC^name^LN or Mindray\'s number^name^99MRC, a second OBR group (00002 Manual Count); `… …` where the manual elides histogram data'),
  'mindray-bc5380-oru-r01-xr-qc-manual.txt': raw('Mindray', 'none', 'utf8', 'LF after every segment; the manual\'s X-R QC example: MSH-11 Q, OBR-4 00006 XR QCR / 00008 XR QCR Mean, PID-3 the lot, three groups; `……` where the manual elides histogram data'),
  'mindray-bc6200-oru-r01.txt': raw('Mindray', 'mllp-no-start', 'utf8', 'CR; MSH-18 UNICODE with a UTF-8 ‰ in OBX 54; repeated flags H~N'),
  'mindray-cl2000i-ack-q03.txt': tokens([], 'analyzer', 'the analyzer acknowledges the order download'),
  'mindray-cl2000i-ack-r01-reject.txt': tokens([], 'host'),
  'mindray-cl2000i-ack-r01.txt': tokens([], 'host'),
  'mindray-cl2000i-dsr-q03-order-download.txt': tokens([], 'host'),
  'mindray-cl2000i-oru-r01-qc.txt': tokens(['pdf-wrap'], 'analyzer', 'QC: MSH-16 = 2, OBR only'),
  'mindray-cl2000i-oru-r01-result.txt': tokens(['pdf-wrap'], 'analyzer', 'the PDF wraps one <CR> token as `<` and `CR>`'),
  'mindray-cl2000i-qck-q02-found.txt': tokens([], 'host'),
  'mindray-cl2000i-qck-q02-notfound.txt': tokens([], 'host'),
  'mindray-cl2000i-qry-q02.txt': tokens([], 'analyzer'),
  'roche-cobas6800-oul-r22-result.txt': raw('Roche', 'none', 'ascii', 'LF, one after the last segment too'),
  'roche-cobas6800-oul-r22-sarscov2.txt': {
    vendor: 'Roche',
    notation: 'escaped-line',
    framing: 'none',
    artefacts: ['file-line-end'],
    from: 'analyzer',
    charset: 'ascii',
    note: 'LF between segments; OBX-8 of OBX 4 is one `"`',
  },
  'roche-cobaspro-esu-inu-session.log.txt': goLog({ analyzer: '<===', host: '<---- ' }, [], 'ESU^U01 in one read, INU^U05 in two; the host ACKs have no CR after MSA'),
  'roche-cobaspro-oul-r22-e801.txt': raw('Roche', 'none', 'utf8', 'CR, none after the last segment'),
  'roche-cobaspro-oul-r22-hba1c-session.log.txt': goLog(
    { analyzer: '===>(da) ', host: '<---- ' },
    ['unquoted-first-read', 'reader-error-line'],
    'two OUL^R22; only the second one\'s ACK is logged',
  ),
  'roche-cobaspro-oul-r22-manual.txt': raw('Roche', 'none', 'utf8', 'LF, none after the last segment', 'analyzer', ['middle-dot-for-space']),
  'roche-cobaspro-qbp-q11-manual.txt': raw('Roche', 'none', 'utf8', 'LF, none after the last; MSH-3 `cobas® pro` in UTF-8'),
  'roche-cobaspro-qbp-q11.txt': raw('Roche', 'mllp', 'utf8', 'CR'),
  'roche-cobaspure-oul-r22-qc.txt': raw('Roche', 'none', 'utf8', 'CR, none after the last segment; QC: SPM-11 Q, sample CONTROL'),
  'roche-cobaspure-oul-r22-session.log.txt': goLog({ analyzer: '===>', host: '<---- ' }, [], 'OUL^R22 in 5 reads answered ACK^U05 (sic), then ESU^U01 on a new connection'),
  'siemens-clinitek-status-oru-r01-qc.txt': raw('Siemens', 'mllp-no-start', 'ascii', 'no VT; NTE after OBR and after each OBX', 'analyzer', ['lf-for-cr']),
  'siemens-clinitek-status-oru-r01.txt': {
    vendor: 'Siemens',
    notation: 'ruby-inspect',
    framing: 'mllp',
    artefacts: [],
    from: 'analyzer',
    charset: 'ascii',
    note: 'CR; MSH ends at MSH-12',
  },
  'urit-8030-oru-r01.txt': raw('URIT', 'none', 'ascii', 'LF, one after the last segment too; test name in OBX-4'),
  'urit-ut5160-oru-r01-manual.txt': {
    vendor: 'URIT',
    notation: 'mllp-tokens',
    framing: 'mllp',
    artefacts: ['pdf-wrap'],
    from: 'analyzer',
    charset: 'utf8',
    note: 'the manual cuts each base64 image with `……` (kept: it is the manual\'s text); MSH-18 UNICODE',
  },
};

/** One message as sent: its bytes between VT and FS (or the whole text when the file shows no MLLP). */
export interface SentMessage {
  from: Side;
  bytes: Buffer;
}

/** One TCP read (analyzer) or write (host) as a session log recorded it. */
export interface SessionRead {
  from: Side;
  bytes: Buffer;
}

export interface Hl7Fixture extends Hl7FixtureSpec {
  name: string;
  /** The file's own bytes, artefacts and all. */
  file: Buffer;
  /** What went over the wire, MLLP bytes included where the file shows them; for a session, both sides in time order. */
  wire: Buffer;
  /** Every message, in the order it was complete on the wire. */
  messages: SentMessage[];
  /** Session logs only: the reads and writes as they came, to replay read by read. */
  reads?: SessionRead[];
}

export class Hl7FixtureError extends Error {
  constructor(name: string, message: string) {
    super(`fixture ${name}: ${message}`);
    this.name = 'Hl7FixtureError';
  }
}

/** The HL7 captures kept in the repository (test/fixtures/hl7). */
export function hl7FixtureDir(): string {
  return join(repoRoot(), 'test', 'fixtures', 'hl7');
}

export function hl7FixtureFiles(): string[] {
  return readdirSync(hl7FixtureDir()).sort();
}

type Fail = (message: string) => never;

export function loadHl7Fixture(name: string): Hl7Fixture {
  const spec = HL7_FIXTURES[name];
  if (spec === undefined) throw new Hl7FixtureError(name, 'not in the HL7_FIXTURES table');
  const file = readFileSync(join(hl7FixtureDir(), name));
  const fail = (message: string): never => {
    throw new Hl7FixtureError(name, message);
  };
  if (spec.notation === 'go-session-log') {
    const reads = sessionReads(file.toString('utf8'), spec, fail);
    return { ...spec, name, file, wire: Buffer.concat(reads.map((r) => r.bytes)), messages: sessionMessages(reads, fail), reads };
  }
  const wire = wireOf(file, spec, fail);
  return { ...spec, name, file, wire, messages: [{ from: spec.from, bytes: unframe(wire, spec.framing, fail) }] };
}

export function loadAllHl7Fixtures(): Hl7Fixture[] {
  return Object.keys(HL7_FIXTURES).sort().map(loadHl7Fixture);
}

/** Every message of every fixture, named `file#n` (1-based), for tests that go message by message. */
export function allHl7Messages(): { id: string; fixture: Hl7Fixture; from: Side; bytes: Buffer }[] {
  return loadAllHl7Fixtures().flatMap((fixture) => fixture.messages.map((m, i) => ({ id: `${fixture.name}#${i + 1}`, fixture, from: m.from, bytes: m.bytes })));
}

// ---------------------------------------------------------------- notations and artefacts

function has(spec: Hl7FixtureSpec, a: Hl7Artefact): boolean {
  return spec.artefacts.includes(a);
}

function wireOf(file: Buffer, spec: Hl7FixtureSpec, fail: Fail): Buffer {
  switch (spec.notation) {
    case 'raw':
      return rawBytes(file, spec, fail);
    case 'mllp-tokens':
      return mllpTokens(file.toString('utf8'), spec, fail);
    case 'ruby-inspect':
      return rubyInspect(file.toString('utf8'), fail);
    case 'escaped-line':
      return escapedLine(file.toString('utf8'), spec, fail);
    case 'go-session-log':
      return fail('a session log has no single wire text');
  }
}

function rawBytes(file: Buffer, spec: Hl7FixtureSpec, fail: Fail): Buffer {
  let bytes = Buffer.from(file);
  if (has(spec, 'middle-dot-for-space')) {
    // The manual sets `Other·Supplemental`, `0.300·-·350`: a visible space.
    // The wire (the e 801 capture of the same message type) has spaces.
    const text = bytes.toString('utf8');
    if (!text.includes('\u00b7')) fail('expected `·` for spaces');
    bytes = Buffer.from(text.split('\u00b7').join(' '), 'utf8');
  }
  if (has(spec, 'doubled-backslash')) {
    // A Go raw string holding text copied from an escaped one: each
    // backslash twice, so MSH-2 reads `^~\\&` (five characters). Every run
    // of backslashes must be even, or one was really doubled by the analyzer.
    const text = bytes.toString('utf8');
    const runs = text.match(/\\+/g) ?? [];
    if (runs.length === 0 || runs.some((r) => r.length % 2 !== 0)) fail('expected every backslash doubled');
    bytes = Buffer.from(text.replace(/\\\\/g, '\\'), 'utf8');
  }
  if (has(spec, 'lf-for-cr')) {
    // The file ends `LF FS LF`; MLLP ends a frame FS CR, and the same
    // analyzer's other capture from the same source has CR between segments:
    // the file turned every CR into LF.
    if (bytes.includes(CR)) fail('expected no CR at all');
    if (!(bytes[bytes.length - 2] === FS && bytes[bytes.length - 1] === LF)) fail('expected the file to end FS LF');
    bytes = Buffer.from(bytes.map((b) => (b === LF ? CR : b)));
  }
  return bytes;
}

/**
 * `<SB>MSH|…<CR>` one segment per line, `<EB><CR>` at the end (Mindray CL
 * manual §1.3, URIT UT-5160 manual appendix). The file's own line break comes
 * after each `<CR>` token and after a lone `<SB>`; any other is the PDF's.
 */
function mllpTokens(text: string, spec: Hl7FixtureSpec, fail: Fail): Buffer {
  if (/[\r\x0b\x1c]/.test(text)) fail('expected tokens only, no CR, VT or FS bytes');
  let t = text.split('<CR>\n').join('<CR>').split('<SB>\n').join('<SB>');
  if (has(spec, 'pdf-wrap')) {
    if (!t.includes('\n')) fail('expected wrapped lines');
    t = t.split('\n').join('');
  }
  if (t.includes('\n')) fail('a line break is left that is neither after a token nor a known wrap');
  const m = /^<SB>(MSH[^]*)<EB><CR>$/.exec(t);
  if (m === null) return fail('expected <SB>MSH… <EB><CR>');
  const body = m[1] ?? '';
  if (/<(?!CR>)/.test(body.replace(/<CR>/g, ''))) fail('a token other than <CR> inside the message');
  return Buffer.concat([Buffer.of(VT), Buffer.from(body.split('<CR>').join('\r'), 'utf8'), Buffer.of(FS, CR)]);
}

/** A Ruby `inspect` literal: `"…"` with `\v \r \n \t \e \\ \" \#` and `\xHH`. */
function rubyInspect(text: string, fail: Fail): Buffer {
  const m = /^"([^]*)"$/.exec(text);
  if (m === null) return fail('expected one double-quoted Ruby string and nothing else');
  return unescapeLiteral(m[1] ?? '', { v: VT, r: CR, n: LF, t: 0x09, e: 0x1b, '\\': 0x5c, '"': 0x22, '#': 0x23 }, fail);
}

/** The whole message on one line, `\n` between segments (universal-machine-interfacing-adapter's hl7.txt). */
function escapedLine(text: string, spec: Hl7FixtureSpec, fail: Fail): Buffer {
  let t = text;
  if (has(spec, 'file-line-end')) {
    if (!t.endsWith('\n')) fail('expected the file to end with its own LF');
    t = t.slice(0, -1);
  }
  if (t.includes('\n') || t.includes('\r')) fail('expected one line');
  if (!t.includes('\\n')) fail('expected `\\n` tokens between segments');
  return unescapeLiteral(t, { n: LF, '\\': 0x5c, '"': 0x22 }, fail);
}

/**
 * A string literal's body: `\` followed by one of `simple`'s keys, or `xHH`.
 * Any other escape fails: the notation is not what the table says.
 */
function unescapeLiteral(body: string, simple: Readonly<Record<string, number>>, fail: Fail): Buffer {
  const out: number[] = [];
  for (let i = 0; i < body.length; i++) {
    const c = body.charCodeAt(i);
    if (c !== 0x5c) {
      if (c > 0x7f) out.push(...Buffer.from(body.charAt(i), 'utf8'));
      else out.push(c);
      continue;
    }
    const next = body.charAt(i + 1);
    const byte = simple[next];
    if (byte !== undefined) {
      out.push(byte);
      i++;
    } else if (next === 'x' && /^[0-9A-Fa-f]{2}$/.test(body.slice(i + 2, i + 4))) {
      out.push(parseInt(body.slice(i + 2, i + 4), 16));
      i += 3;
    } else fail(`unknown escape \\${next} at character ${i}`);
  }
  return Buffer.from(out);
}

/** The message between VT (or the start) and FS CR; the whole bytes when the file shows no MLLP. */
function unframe(wire: Buffer, framing: Hl7Framing, fail: Fail): Buffer {
  if (framing === 'none') {
    if (wire.includes(VT) || wire.includes(FS)) fail('MLLP bytes in a file listed without framing');
    return wire;
  }
  const start = framing === 'mllp' ? 1 : 0;
  if (framing === 'mllp' && wire[0] !== VT) fail('expected a leading VT');
  if (framing === 'mllp-no-start' && wire[0] === VT) fail('expected no leading VT');
  if (!(wire[wire.length - 2] === FS && wire[wire.length - 1] === CR)) fail('expected FS CR at the end');
  const body = wire.subarray(start, wire.length - 2);
  if (body.includes(VT) || body.includes(FS)) fail('expected one frame');
  return body;
}

/**
 * A Go reader's session log (AlwaysSmarter/wisemed-labreaders, SOURCES.md):
 * each read or write is a Go `%q` string on a line starting with its side's
 * marker; the analyzer's reads carry `(N chars)`, the read's length in bytes,
 * checked here so a mis-decoded escape cannot pass.
 */
function sessionReads(text: string, spec: Hl7FixtureSpec, fail: Fail): SessionRead[] {
  const markers = spec.markers ?? fail('a session log needs its markers');
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  const reads: SessionRead[] = [];
  if (has(spec, 'unquoted-first-read')) {
    // The first line is a whole message written as a %q body without the quotes.
    const first = lines.shift() ?? '';
    if (!first.startsWith('\\vMSH') || !first.endsWith('\\x1c\\r')) fail('expected line 1 to be an unquoted \\vMSH … \\x1c\\r');
    reads.push({ from: 'analyzer', bytes: goUnquote(first, fail) });
  }
  if (has(spec, 'reader-error-line')) {
    // `<===(bm) "Given OBR segment nor properly formed #1" (40 chars)`: the
    // reader's complaint about the message, not bytes from the analyzer.
    const last = lines.pop() ?? '';
    if (!/^<===\(bm\) "[^"\\]*" \(\d+ chars\)$/.test(last)) fail('expected the last line to be the reader\'s `<===(bm) "…"` error');
  }
  let logLines = 0;
  lines.forEach((line, n) => {
    const quoted = /^(.*?)"((?:[^"\\]|\\.)*)"(?: \((\d+) chars\))?$/.exec(line);
    const marker = quoted?.[1];
    const from: Side | undefined = marker === markers.analyzer ? 'analyzer' : marker === markers.host ? 'host' : undefined;
    if (quoted === null || from === undefined) {
      if (line.includes('\\x1c') || line.includes('MSH|')) fail(`line ${n + 1} holds MLLP data but no known marker`);
      logLines++;
      return;
    }
    const bytes = goUnquote(quoted[2] ?? '', fail);
    const count = quoted[3];
    if (from === 'analyzer' && count === undefined) fail(`line ${n + 1}: an analyzer read without its (N chars)`);
    if (count !== undefined && Number(count) !== bytes.length) fail(`line ${n + 1}: ${bytes.length} bytes decoded, the log says ${count}`);
    reads.push({ from, bytes });
  });
  if (has(spec, 'reader-log-lines') && logLines === 0) fail('expected the reader\'s own log lines');
  return reads;
}

/** A Go `%q` body: `\v \r \n \t \\ \"`, `\xHH`; printable Unicode as itself. */
function goUnquote(body: string, fail: Fail): Buffer {
  return unescapeLiteral(body, { v: VT, r: CR, n: LF, t: 0x09, '\\': 0x5c, '"': 0x22, a: 0x07, b: 0x08, f: 0x0c }, fail);
}

/** Each side's reads joined and cut at VT … FS CR; a message counts when its FS CR has arrived. */
function sessionMessages(reads: SessionRead[], fail: Fail): SentMessage[] {
  const pending: Record<Side, Buffer> = { analyzer: Buffer.alloc(0), host: Buffer.alloc(0) };
  const out: SentMessage[] = [];
  for (const read of reads) {
    let buf = Buffer.concat([pending[read.from], read.bytes]);
    for (;;) {
      if (buf.length > 0 && buf[0] !== VT) fail(`${read.from}: bytes before a VT`);
      const end = buf.indexOf(Buffer.of(FS, CR));
      if (end < 0) break;
      const body = buf.subarray(1, end);
      if (body.includes(VT)) fail(`${read.from}: a VT inside a frame`);
      out.push({ from: read.from, bytes: Buffer.from(body) });
      buf = buf.subarray(end + 2);
    }
    pending[read.from] = buf;
  }
  for (const side of ['analyzer', 'host'] as const) if (pending[side].length > 0) fail(`${side}: the log ends inside a frame`);
  return out;
}
