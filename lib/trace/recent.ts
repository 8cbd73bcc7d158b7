/**
 * The last messages an analyzer sent, read back from its link's trace file
 * (frame-trace.ts), for the dialect preview's "pick a recent message". Only
 * the end of the current file is read: a trace can be 10 MiB, and the
 * messages wanted are the latest. A trace written redacted stays redacted.
 * Each message comes with its own time (when its H record came) and what
 * tells it from the others in a picker: its samples and its first result.
 */
import { readPaste, type PastedMessage } from '../astm/paste';
import { readHl7Capture } from '../hl7/paste';
import { lastLines } from './trace-read';
import type { UnitFraming } from './wire-splitter';

export interface MessageSummary {
  /** Sample IDs of its order records (O-3, else O-4) and queries, empty components left out, each once, in order. */
  samples: string[];
  /** How many result records (R) and queries (Q) it holds. */
  results: number;
  queries: number;
  /** Its first result: test code (R-3's first non-empty component from the 4th on), value and units, e.g. "GLU 5.4 mmol/L". */
  firstResult: string | undefined;
}

export interface RecentMessage extends PastedMessage {
  summary: MessageSummary;
}

export interface RecentMessages {
  messages: RecentMessage[];
  /** What the reading noticed (checksums not checked on a redacted trace, lines sent to the analyzer left out). */
  notes: string[];
  /** What in the trace's end could not be read (each message names its line, frame or record). */
  problems: string[];
}

/**
 * The last `count` messages from the analyzer in the trace file, oldest first; none when the file does not exist yet.
 * `framed` is the link's (FrameTrace.framed): an hl7-link's trace ('mllp') is read as HL7, any other as ASTM.
 */
export async function recentMessages(file: string, count: number, framed: UnitFraming = true, tailBytes = 1024 * 1024): Promise<RecentMessages> {
  // A tail that starts inside a line drops that line (lastLines), and the messages it opened are cut: only whole
  // transfers from the first ENQ on count.
  const lines = await lastLines(file, Number.POSITIVE_INFINITY, tailBytes);
  if (lines.length === 0) return { messages: [], notes: ['the trace has no lines yet: nothing received since tracing began'], problems: [] };
  if (framed === 'mllp') {
    const hl7 = readHl7Capture(lines.join('\n'));
    return { messages: hl7.messages.slice(-count).map((bytes) => ({ bytes, summary: summarizeHl7(bytes) })), notes: hl7.notes, problems: hl7.problems };
  }
  const read = readPaste(lines.join('\n'));
  return {
    messages: read.messages.slice(-count).map((m) => ({ ...m, summary: summarize(m.bytes) })),
    notes: read.notes,
    problems: read.problems.map((p) => p.message),
  };
}

/** What a message is about, read from its records with the delimiters its H record declares (H|\^& by default). */
export function summarize(bytes: Uint8Array): MessageSummary {
  const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('latin1');
  const records = text.split(/\r\n?|\n/).filter((r) => r !== '');
  const h = records.find((r) => r.startsWith('H'));
  const field = h?.[1] ?? '|';
  const repeat = h?.[2] ?? '\\';
  const component = h?.[3] ?? '^';
  const fieldsOf = (r: string) => r.split(field);
  const ids = (value: string | undefined) =>
    (value ?? '')
      .split(repeat)
      // Its components that say something, as written: where the sample ID is depends on the dialect (the c311
      // writes a sequence number before it), and which one tells the messages apart does not.
      .map((rep) => rep.split(component).map((c) => c.trim()).filter((c) => c !== '' && c !== 'ALL').join(component))
      .filter((id) => id !== '');
  const samples: string[] = [];
  const add = (list: string[]) => list.forEach((id) => samples.includes(id) || samples.push(id));
  let results = 0;
  let queries = 0;
  let firstResult: string | undefined;
  for (const r of records) {
    const f = fieldsOf(r);
    const type = f[0]?.replace(/^\d/, '');
    if (type === 'O') add(ids(f[2]).length > 0 ? ids(f[2]) : ids(f[3]));
    else if (type === 'Q') {
      queries++;
      add(ids(f[2]));
    } else if (type === 'R') {
      results++;
      if (firstResult === undefined) {
        // LIS2-A2's local code is the 4th component (^^^GLU); some put it later (Sysmex ^^^^WBC^1): the first from there.
        const parts = (f[2] ?? '').split(component).map((c) => c.trim());
        const code = parts.slice(3).find((c) => c !== '') ?? parts.find((c) => c !== '') ?? '?';
        firstResult = [code, f[3] ?? '', f[4] ?? ''].map((x) => x.trim()).filter((x) => x !== '').join(' ');
      }
    }
  }
  return { samples, results, queries, firstResult };
}

/**
 * The same for an HL7 message, read with the separators its MSH declares:
 * samples from OBR-3 (else OBR-2), SPM-2, and the queries' QRD-8 and QPD-3;
 * results are its OBX segments, the first one as OBX-3's first component,
 * OBX-5 and OBX-6's first component.
 */
export function summarizeHl7(bytes: Uint8Array): MessageSummary {
  const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('latin1');
  const segments = text.split(/\r\n?|\n/).filter((s) => s !== '');
  const msh = segments.find((s) => s.startsWith('MSH'));
  const field = msh?.[3] ?? '|';
  const component = msh?.[4] ?? '^';
  const repeat = msh?.[5] ?? '~';
  const first = (value: string | undefined) => (value ?? '').split(repeat)[0]!.split(component)[0]!.trim();
  const samples: string[] = [];
  const add = (id: string) => id !== '' && !samples.includes(id) && samples.push(id);
  let results = 0;
  let queries = 0;
  let firstResult: string | undefined;
  for (const segment of segments) {
    const f = segment.split(field);
    switch (f[0]) {
      case 'OBR':
        add(first(f[3]) || first(f[2]));
        break;
      case 'SPM':
        add(first(f[2]));
        break;
      case 'QRD':
        queries++;
        add(first(f[8]));
        break;
      case 'QPD':
        queries++;
        add(first(f[3]));
        break;
      case 'OBX': {
        results++;
        if (firstResult === undefined) {
          const code = (f[3] ?? '').split(component).map((c) => c.trim()).find((c) => c !== '') ?? '?';
          firstResult = [code, f[5] ?? '', first(f[6])].map((x) => x.trim()).filter((x) => x !== '').join(' ');
        }
        break;
      }
    }
  }
  return { samples, results, queries, firstResult };
}
