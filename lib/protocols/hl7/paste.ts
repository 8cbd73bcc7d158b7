/**
 * HL7 messages out of captured text, for an operator's replay through the
 * deployed flow (nodes/shared/replay-routes.ts) and a pasted capture: the
 * hl7-link's own trace lines (only what the analyzer sent, per session), MLLP
 * written as tokens (`<VT>` / `<SB>`, `<FS>` / `<EB>`, `<CR>`, `<LF>`,
 * `<0x0B>`, as manuals and our trace print them), raw MLLP bytes, or plain
 * segments one per line as logs keep them (a message begins at each MSH).
 * Nothing is guessed silently: every repair is a note, everything left
 * unread is a problem.
 */
import { readTraceLine } from '../../trace/trace-reader';
import { MllpDeframer, type MllpEvent } from './mllp';

export interface Hl7CaptureRead {
  /** What the capture was taken for: the link's trace, MLLP frames (as bytes or `<VT>` tokens), or segments one per line. */
  form: 'trace' | 'mllp' | 'segments';
  messages: Buffer[];
  /** What form was found and what was repaired. */
  notes: string[];
  /** What could not be read, with where. */
  problems: string[];
}

const TOKEN = /<(VT|SB|FS|EB|CR|LF|0x[0-9A-Fa-f]{2})>/g;
const TOKEN_BYTES: Readonly<Record<string, number>> = { VT: 0x0b, SB: 0x0b, FS: 0x1c, EB: 0x1c, CR: 0x0d, LF: 0x0a };

export function readHl7Capture(text: string): Hl7CaptureRead {
  const notes: string[] = [];
  const problems: string[] = [];
  const lines = text.split(/\r\n|\n|\r/);
  const traced = lines.map((l) => readTraceLine(l, true));
  if (traced.some((t) => t !== undefined)) {
    notes.push('read as hl7-link trace lines (what the analyzer sent)');
    const bySession = new Map<string, Buffer[]>();
    traced.forEach((t, i) => {
      if (t === undefined) {
        if (lines[i]!.trim() !== '') problems.push(`line ${i + 1} is not a trace line`);
        return;
      }
      if (t.direction !== 'in') return;
      const key = t.session ?? '';
      bySession.set(key, [...(bySession.get(key) ?? []), t.bytes]);
    });
    const messages = [...bySession.values()].flatMap((chunks) => deframe(Buffer.concat(chunks), problems));
    return { form: 'trace', messages, notes, problems };
  }
  let tokens = 0;
  const bytes = Buffer.from(
    text.replace(TOKEN, (_m, name: string) => {
      tokens++;
      return String.fromCharCode(name.startsWith('0x') ? Number.parseInt(name.slice(2), 16) : (TOKEN_BYTES[name] ?? 0));
    }),
    'latin1',
  );
  if (tokens > 0) notes.push(`${tokens} control-character tokens read as bytes`);
  if (bytes.includes(0x0b) || bytes.includes(0x1c)) {
    notes.push('read as MLLP frames');
    // Token forms put a line break after each `<CR>` token for the eye; the segment ends are the tokens.
    const framed = tokens > 0 ? Buffer.from(bytes.toString('latin1').replace(/\r(?:\r?\n)/g, '\r'), 'latin1') : bytes;
    return { form: 'mllp', messages: deframe(framed, problems), notes, problems };
  }
  notes.push('read as segments, one per line; a message begins at each MSH');
  return { form: 'segments', messages: segmentsToMessages(bytes.toString('latin1'), problems), notes, problems };
}

function deframe(bytes: Buffer, problems: string[]): Buffer[] {
  const deframer = new MllpDeframer();
  const out: Buffer[] = [];
  const take = (events: MllpEvent[]): void => {
    for (const e of events) {
      if (e.kind === 'frame') out.push(Buffer.from(e.message));
      // Line breaks between frames are how the capture was written down, not data.
      else if (e.kind === 'discarded' && e.bytes.some((b) => b !== 0x0d && b !== 0x0a)) problems.push(`${e.count} bytes outside a frame (${e.reason}): ${e.excerpt}`);
      else if (e.kind === 'oversize') problems.push(`a frame over ${e.limit} bytes`);
    }
  };
  take(deframer.push(bytes));
  take(deframer.end());
  return out;
}

function segmentsToMessages(text: string, problems: string[]): Buffer[] {
  const messages: string[][] = [];
  text.split(/\r\n|\n|\r/).forEach((line, i) => {
    if (line.trim() === '') return;
    if (line.startsWith('MSH')) messages.push([line]);
    else if (messages.length > 0) messages[messages.length - 1]!.push(line);
    else problems.push(`line ${i + 1} comes before any MSH segment`);
  });
  return messages.map((segments) => Buffer.from(segments.map((s) => `${s}\r`).join(''), 'latin1'));
}
