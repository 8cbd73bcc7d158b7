/**
 * What integrators paste into the dialect preview, turned into the bytes of
 * the messages it holds. Captures come in many forms (test/fixtures/SOURCES.md
 * lists those met in public repositories and manuals):
 *
 * - `raw`: the bytes themselves, control characters real (a serial capture);
 * - `trace`: lines of this package's frame trace (lib/trace), time, direction
 *   and `<STX>1H|\^&...<ETX>A5<CR><LF>`; only what the analyzer sent is read;
 * - `tokens`: control characters written as `<CR>`, `[CR]`, `<STX>`, `[ETX]`
 *   ... (manuals, serial logs), the paste's own line breaks being layout;
 * - `lines`: one record per line, a log where CR became LF.
 *
 * Each may be framed (E1381 `STX FN text ETX C1 C2`, with or without frame
 * numbers and checksums) or records only, and may hold several messages. The
 * repairs made are said in `notes`; what could not be read is named in
 * `problems` with its line (and column) in the paste, or its frame. Nothing
 * is dropped without a word, since the preview must show the message as the
 * analyzer sent it.
 */
import { ACK, CR, ENQ, EOT, ETB, ETX, LF, NAK, STX } from './control';
import { checksum } from './link/frame';
import { isHeaderText } from './records';
import { readTraceLine } from '../../trace/trace-reader';
import { ASTM_NAMING } from './trace-naming';

export type PasteForm = 'raw' | 'trace' | 'tokens' | 'lines';
export type PasteFraming = 'framed' | 'records';

export interface PasteProblem {
  /** 1-based line of the paste, when the problem has one. */
  line?: number;
  column?: number;
  /** 1-based frame (STX ... ETX/ETB) of the paste, for frame problems. */
  frame?: number;
  /** 1-based record of the paste's record text, for problems found once the records are cut. */
  record?: number;
  message: string;
}

export interface PastedMessage {
  /** Record text, CR after each record, H first. */
  bytes: Buffer;
  /** From a trace: when its first unit was recorded, and on which session. */
  at?: string;
  session?: string;
  redacted?: boolean;
}

export interface PasteRead {
  form: PasteForm;
  framing: PasteFraming;
  notes: string[];
  problems: PasteProblem[];
  messages: PastedMessage[];
}

const NAMES: Readonly<Record<string, number>> = { STX, ETX, ETB, EOT, ENQ, ACK, NAK, CR, LF };
const TOKEN = /<(STX|ETX|ETB|EOT|ENQ|ACK|NAK|CR|LF|CS|0x[0-9A-Fa-f]{2})>|\[(STX|ETX|ETB|EOT|ENQ|ACK|NAK|CR|LF)\]/g;
const CR_TOKEN = /<CR>|\[CR\]/;
const SINGLE = new Set([ENQ, EOT, ACK, NAK]);

/**
 * The messages in a paste. A string is turned into bytes with the dialect's
 * character set (the browser gives text; the analyzer sent bytes).
 */
export function readPaste(input: string | Buffer, charset: 'latin1' | 'utf8' = 'latin1'): PasteRead {
  const text = typeof input === 'string' ? input.replace(/^\uFEFF/, '') : input.toString('latin1');
  const encode = (t: string) => (typeof input === 'string' ? Buffer.from(t, charset) : Buffer.from(t, 'latin1'));
  const lines = text.split('\n');
  const problems: PasteProblem[] = [];
  const notes: string[] = [];

  if (lines.some((l) => readTraceLine(l, ASTM_NAMING) !== undefined)) return fromTrace(lines, notes, problems);

  let bytes: Buffer;
  let form: PasteForm;
  if (TOKEN.test(text)) {
    TOKEN.lastIndex = 0;
    form = 'tokens';
    bytes = fromTokens(lines, encode, notes, problems);
  } else if (text.includes('\r') || text.includes('\x02')) {
    form = 'raw';
    bytes = encode(text);
  } else {
    form = 'lines';
    bytes = encode(text);
  }
  const read = messagesOf(bytes, { lineBreaks: form === 'raw' ? 'data' : 'records', checkChecksums: true }, notes, problems);
  return { form, framing: read.framed ? 'framed' : 'records', notes, problems, messages: read.messages.map((b) => ({ bytes: b })) };
}

/** A trace: the analyzer's units of each session, in order; what went to the analyzer is left out (and said so). */
function fromTrace(lines: string[], notes: string[], problems: PasteProblem[]): PasteRead {
  const sessions = new Map<string, { session?: string; units: Buffer[]; times: string[]; redacted: boolean }>();
  let out = 0;
  lines.forEach((line, i) => {
    if (line.trim() === '') return;
    const t = readTraceLine(line, ASTM_NAMING);
    if (t === undefined) return problems.push({ line: i + 1, message: `line ${i + 1} is not a trace line: ${JSON.stringify(line.slice(0, 60))}` });
    if (t.direction === 'out') return out++;
    if (t.direction === '!!') return notes.push(`trace note at line ${i + 1}: ${t.bytes.toString('latin1')}`);
    const key = t.session ?? '';
    let s = sessions.get(key);
    if (s === undefined) {
      s = { ...(t.session === undefined ? {} : { session: t.session }), units: [], times: [], redacted: false };
      sessions.set(key, s);
    }
    s.units.push(t.bytes);
    s.times.push(t.at);
    s.redacted ||= t.redacted;
  });
  if (out > 0) notes.push(`${out} trace line${out === 1 ? '' : 's'} sent to the analyzer left out`);
  const messages: PastedMessage[] = [];
  let framed = false;
  for (const s of sessions.values()) {
    // A redacted trace shows '***' where the checksum was computed over the name.
    if (s.redacted) notes.push(`session ${s.session ?? '(serial)'}: patient fields are redacted, so checksums were not checked`);
    for (const transfer of transfersOf(s.units, s.times)) {
      const read = messagesOf(Buffer.concat(transfer.units), { lineBreaks: 'data', checkChecksums: !s.redacted }, notes, problems);
      framed ||= read.framed;
      // Each message at the time of the unit its H record came in; when they cannot be matched one to one, the transfer's.
      const starts = transfer.units.flatMap((u, i) => (startsMessage(u) ? [transfer.times[i]!] : []));
      read.messages.forEach((bytes, i) => {
        const at = starts.length === read.messages.length ? starts[i]! : transfer.times[0]!;
        messages.push({ bytes, at, ...(s.session === undefined ? {} : { session: s.session }), ...(s.redacted ? { redacted: true } : {}) });
      });
    }
  }
  // Sessions interleave in time: oldest first across them, so the last messages are the latest.
  messages.sort((a, b) => (a.at! < b.at! ? -1 : a.at! > b.at! ? 1 : 0));
  return { form: 'trace', framing: framed ? 'framed' : 'records', notes, problems, messages };
}

/** A session's units cut at each ENQ (LIS1-A 6.2: a transfer, holding one message or a few), with their times. */
function transfersOf(units: Buffer[], times: string[]): Array<{ units: Buffer[]; times: string[] }> {
  const out: Array<{ units: Buffer[]; times: string[] }> = [];
  units.forEach((u, i) => {
    if (out.length === 0 || (u.length === 1 && u[0] === ENQ)) out.push({ units: [], times: [] });
    out.at(-1)!.units.push(u);
    out.at(-1)!.times.push(times[i]!);
  });
  return out;
}

/** A unit that begins with an H record: a frame's text (after STX and its number), or an unframed record. */
function startsMessage(unit: Buffer): boolean {
  let i = unit[0] === STX ? 1 : 0;
  if (i === 1 && (unit[1] ?? 0) >= 0x30 && (unit[1] ?? 0) <= 0x37) i = 2;
  const after = unit[i + 1];
  return unit[i] === 0x48 && after !== undefined && !/[A-Za-z0-9]/.test(String.fromCharCode(after));
}

/**
 * Tokens to bytes. With `<CR>` tokens present the paste's own line breaks are
 * layout (a manual's lines, a log's reads); without, each line break stands
 * for the CR the log did not write.
 */
function fromTokens(lines: string[], encode: (t: string) => Buffer, notes: string[], problems: PasteProblem[]): Buffer {
  const layout = CR_TOKEN.test(lines.join('\n'));
  const parts: Buffer[] = [];
  let placeholders = 0;
  let spaced = 0;
  lines.forEach((raw, i) => {
    let line = raw.replace(/\r$/, '');
    // `P|1 [CR]`: manuals set a space before the token for legibility.
    if (layout && / +(?:<CR>|\[CR\])/.test(line)) {
      spaced++;
      line = line.replace(/ +(<CR>|\[CR\])/g, '$1');
    }
    let plain = 0;
    const text = (end: number) => {
      const piece = line.slice(plain, end);
      const odd = /<[A-Z]{2,4}>|\[[A-Z]{2,4}\]/.exec(piece);
      if (odd !== null) problems.push({ line: i + 1, column: plain + odd.index + 1, message: `unknown token ${odd[0]}, read as text` });
      parts.push(encode(piece));
    };
    for (const m of line.matchAll(TOKEN)) {
      text(m.index);
      const name = m[1] ?? m[2] ?? '';
      if (name === 'CS') placeholders++;
      else if (/^0x/i.test(name)) parts.push(Buffer.of(Number.parseInt(name.slice(2), 16)));
      else parts.push(Buffer.of(NAMES[name] ?? 0));
      plain = m.index + m[0].length;
    }
    text(line.length);
    if (!layout && i < lines.length - 1) parts.push(Buffer.of(CR));
  });
  if (placeholders > 0) notes.push(`${placeholders} checksum placeholder${placeholders === 1 ? '' : 's'} <CS>: those frames are read without checksum`);
  if (!layout) notes.push('no <CR> tokens: each line break read as the end of a record');
  if (spaced > 0) notes.push(`spaces before a CR token removed on ${spaced} line${spaced === 1 ? '' : 's'}`);
  return Buffer.concat(parts);
}

interface Options {
  /** 'data': CR and LF are bytes as sent; 'records': each line break ends a record (a log where CR became LF). */
  lineBreaks: 'data' | 'records';
  checkChecksums: boolean;
}

/** Bytes, framed or not, to the record text of each message. */
function messagesOf(bytes: Buffer, options: Options, notes: string[], problems: PasteProblem[]): { framed: boolean; messages: Buffer[] } {
  const framed = bytes.includes(STX);
  const text = framed ? deframe(bytes, options, notes, problems) : recordsOf(bytes, options, notes);
  return { framed, messages: splitRecords(text, notes, problems) };
}

/**
 * Frame texts joined (LIS1-A 6.3: a record may run on over ETB frames). The
 * frame number is optional (MAGLUMI's simplified framing has none), the
 * checksum too; a checksum that fails is tried against the text with LF read
 * as CR, or with the LF after each CR removed, the two ways logs change it.
 */
function deframe(bytes: Buffer, options: Options, notes: string[], problems: PasteProblem[]): Buffer {
  const texts: Buffer[] = [];
  const counts = { frames: 0, checked: 0, numbered: 0, repaired: 0 };
  let i = 0;
  while (i < bytes.length) {
    const b = bytes[i] as number;
    if (b !== STX) {
      if (!SINGLE.has(b) && b !== CR && b !== LF) {
        const end = nextOf(bytes, i, [STX]);
        problems.push({ frame: counts.frames + 1, message: `bytes outside any frame before frame ${counts.frames + 1}, left out: ${JSON.stringify(bytes.toString('latin1', i, Math.min(end, i + 40)))}` });
        i = end;
      } else i++;
      continue;
    }
    counts.frames++;
    const n = counts.frames;
    const end = nextOf(bytes, i + 1, [ETX, ETB, STX, EOT]);
    if (end >= bytes.length || bytes[end] === STX || bytes[end] === EOT) {
      problems.push({ frame: n, message: `frame ${n} has no ETX or ETB: its text is read as it is` });
      texts.push(bytes.subarray(i + 1, end));
      i = end;
      continue;
    }
    const body = bytes.subarray(i + 1, end + 1); // FN ... ETX|ETB
    const numbered = body.length > 1 && (body[0] as number) >= 0x30 && (body[0] as number) <= 0x37;
    if (numbered) counts.numbered++;
    let text = body.subarray(numbered ? 1 : 0, body.length - 1);
    const sent = bytes.toString('latin1', end + 1, end + 3);
    i = end + 1;
    if (/^[0-9A-Fa-f]{2}$/.test(sent)) {
      i += 2;
      if (options.checkChecksums) {
        counts.checked++;
        const repaired = checksumRepair(body, sent.toUpperCase(), numbered);
        if (repaired === undefined) problems.push({ frame: n, message: `frame ${n}: checksum ${sent}, expected ${checksum(body)}; its text is read anyway` });
        else if (!repaired.equals(text)) {
          counts.repaired++;
          text = repaired;
        }
      }
    }
    texts.push(text);
  }
  if (counts.frames > 0) {
    notes.push(`${counts.frames} frame${counts.frames === 1 ? '' : 's'}${counts.numbered === 0 ? ' without frame numbers' : ''}, ${counts.checked === 0 ? 'no checksums checked' : `${counts.checked} checksum${counts.checked === 1 ? '' : 's'} checked`}`);
  }
  if (counts.repaired > 0) notes.push(`${counts.repaired} frame${counts.repaired === 1 ? '' : 's'} held LF where the checksum shows the analyzer sent CR: repaired`);
  const joined = Buffer.concat(texts);
  // Frames without checksums cannot prove what an LF was; a CR-less text with LFs is a log's doing.
  return joined.includes(LF) ? recordsOf(joined, { ...options, lineBreaks: joined.includes(CR) ? 'data' : 'records' }, notes) : joined;
}

/** The frame text whose checksum matches, trying the logs' two known changes; undefined when none does. */
function checksumRepair(body: Buffer, sent: string, numbered: boolean): Buffer | undefined {
  const start = numbered ? 1 : 0;
  const candidates = [body, Buffer.from(body.map((b) => (b === LF ? CR : b))), Buffer.from([...body].filter((b, j) => !(b === LF && body[j - 1] === CR)))];
  for (const c of candidates) if (checksum(c) === sent) return c.subarray(start, c.length - 1);
  return undefined;
}

function nextOf(bytes: Buffer, from: number, stops: number[]): number {
  for (let k = from; k < bytes.length; k++) if (stops.includes(bytes[k] as number)) return k;
  return bytes.length;
}

/** Record text without link bytes: CR LF read as CR, and LF as CR where the log wrote LF for it. */
function recordsOf(bytes: Buffer, options: Options, notes: string[]): Buffer {
  let text = bytes.toString('latin1').replace(/[\x05\x04\x06\x15]/g, '');
  if (text.includes('\r\n')) text = text.replace(/\r\n/g, '\r');
  if (text.includes('\n') && (options.lineBreaks === 'records' || !text.includes('\r'))) {
    notes.push('line breaks read as the CR that ends each record');
    text = text.replace(/\n/g, '\r');
  }
  return Buffer.from(text, 'latin1');
}

/**
 * Records to messages, each from an H record on. Undoes what logs add around
 * records when every record shows it: one indentation, a frame number digit
 * before each record, a frame checksum after it (kept only if at least one
 * verifies, so data that ends in two hex digits is not cut).
 */
function splitRecords(text: Buffer, notes: string[], problems: PasteProblem[]): Buffer[] {
  let records = text.toString('latin1').split('\r');
  if (records[records.length - 1] === '') records.pop();
  const blank = records.filter((r) => r.trim() === '').length;
  if (blank > 0) notes.push(`${blank} empty line${blank === 1 ? '' : 's'} left out`);
  records = records.filter((r) => r.trim() !== '');

  const indent = /^[ \t]+/.exec(records[0] ?? '')?.[0];
  if (indent !== undefined && records.every((r) => r.startsWith(indent))) {
    records = records.map((r) => r.slice(indent.length));
    notes.push('indentation removed');
  }
  const numbered = records.length > 0 && records.every((r) => /^[0-7][A-Z][^A-Za-z0-9 ]/.test(r)) && /^[0-7]H/.test(records[0] ?? '');
  const numbers = numbered ? records.map((r) => r.charAt(0)) : [];
  if (numbered) {
    records = records.map((r) => r.slice(1));
    notes.push('a frame number digit before each record removed');
  }
  const suffixed = records.map((r) => / ([0-9A-F]{2})$/.exec(r));
  const verified = suffixed.filter((m, i) => m !== null && checksum(Buffer.from(`${numbers[i] ?? ''}${records[i]!.slice(0, m.index)}\r\x03`, 'latin1')) === m[1]).length;
  if (verified > 0) {
    records = records.map((r, i) => {
      const m = suffixed[i];
      if (m === null || m === undefined) return r;
      const kept = r.slice(0, m.index);
      if (checksum(Buffer.from(`${numbers[i] ?? ''}${kept}\r\x03`, 'latin1')) !== m[1]) problems.push({ record: i + 1, message: `record ${i + 1}: checksum ${m[1]} after it does not match; removed with the others` });
      return kept;
    });
    notes.push(`frame checksums after the records removed (${verified} verified)`);
  }

  const first = records.findIndex((r) => isHeaderText(r));
  if (first < 0) {
    if (records.length > 0) problems.push({ record: 1, message: 'no H record: nothing here reads as an ASTM message' });
    return [];
  }
  if (first > 0) problems.push({ record: 1, message: `${first} record${first === 1 ? '' : 's'} before the first H record left out: ${JSON.stringify(records[0]!.slice(0, 40))}` });
  const messages: string[][] = [];
  for (const r of records.slice(first)) {
    if (isHeaderText(r) || messages.length === 0) messages.push([r]);
    else messages[messages.length - 1]!.push(r);
  }
  return messages.map((m) => Buffer.from(m.map((r) => `${r}\r`).join(''), 'latin1'));
}
