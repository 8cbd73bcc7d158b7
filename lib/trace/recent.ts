/**
 * The last messages an analyzer sent, read back from its link's trace file
 * (frame-trace.ts), for the dialect preview's "pick a recent message". Only
 * the end of the current file is read: a trace can be 10 MiB, and the
 * messages wanted are the latest. A trace written redacted stays redacted.
 */
import { readPaste, type PastedMessage } from '../astm/paste';
import { readHl7Capture } from '../hl7/paste';
import { lastLines } from './trace-read';
import type { UnitFraming } from './wire-splitter';

export interface RecentMessages {
  messages: PastedMessage[];
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
    return { messages: hl7.messages.slice(-count).map((bytes) => ({ bytes })), notes: hl7.notes, problems: hl7.problems };
  }
  const read = readPaste(lines.join('\n'));
  return {
    messages: read.messages.slice(-count),
    notes: read.notes,
    problems: read.problems.map((p) => p.message),
  };
}
