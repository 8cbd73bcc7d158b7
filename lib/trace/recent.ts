/**
 * The last messages an analyzer sent, read back from its link's trace file
 * (frame-trace.ts), for the dialect preview's "pick a recent message". Only
 * the end of the current file is read: a trace can be 10 MiB, and the
 * messages wanted are the latest. A trace written redacted stays redacted.
 * Each message comes with its own time (when its H record came) and what
 * tells it from the others in a picker: its samples and its first result.
 */
import { lastLines } from './trace-read';

export interface MessageSummary {
  /** Sample IDs of its order records (O-3, else O-4) and queries, empty components left out, each once, in order. */
  samples: string[];
  /** How many result records (R) and queries (Q) it holds. */
  results: number;
  queries: number;
  /** Its first result: test code (R-3's first non-empty component from the 4th on), value and units, e.g. "GLU 5.4 mmol/L". */
  firstResult: string | undefined;
}

/** One message as a protocol reads it back from a trace. */
export interface TracedMessage {
  /** The message's text (ASTM: records, CR after each; HL7: segments), without link framing. */
  bytes: Buffer;
  /** When its first unit was recorded, and on which session, when the trace says. */
  at?: string;
  session?: string;
  redacted?: boolean;
}

export interface RecentMessage extends TracedMessage {
  summary: MessageSummary;
}

export interface RecentMessages {
  messages: RecentMessage[];
  /** What the reading noticed (checksums not checked on a redacted trace, lines sent to the analyzer left out). */
  notes: string[];
  /** What in the trace's end could not be read (each message names its line, frame or record). */
  problems: string[];
}

/** How a protocol reads its link's trace back into messages (lib/protocols/astm/recent.ts, lib/protocols/hl7/recent.ts): the trace knows no protocol. */
export interface RecentReader {
  /** Every message from the analyzer in the trace's lines, oldest first, with what the reading noticed. */
  read(text: string): { messages: TracedMessage[]; notes: string[]; problems: string[] };
  summarize(bytes: Uint8Array): MessageSummary;
}

/**
 * The last `count` messages from the analyzer in the trace file, oldest first; none when the file does not exist yet.
 * `reader` is the link's protocol's.
 */
export async function recentMessages(file: string, count: number, reader: RecentReader, tailBytes = 1024 * 1024): Promise<RecentMessages> {
  // A tail that starts inside a line drops that line (lastLines), and the messages it opened are cut: only whole
  // transfers from the first ENQ on count.
  const lines = await lastLines(file, Number.POSITIVE_INFINITY, tailBytes);
  if (lines.length === 0) return { messages: [], notes: ['the trace has no lines yet: nothing received since tracing began'], problems: [] };
  const read = reader.read(lines.join('\n'));
  return { messages: read.messages.slice(-count).map((m) => ({ ...m, summary: reader.summarize(m.bytes) })), notes: read.notes, problems: read.problems };
}
