/**
 * The last messages an analyzer sent, read back from its link's trace file
 * (frame-trace.ts), for the dialect preview's "pick a recent message". Only
 * the end of the current file is read: a trace can be 10 MiB, and the
 * messages wanted are the latest. A trace written redacted stays redacted.
 */
import { open } from 'node:fs/promises';
import { readPaste, type PastedMessage } from '../astm/paste';

export interface RecentMessages {
  messages: PastedMessage[];
  /** What the reading noticed (checksums not checked on a redacted trace, lines sent to the analyzer left out). */
  notes: string[];
  /** What in the trace's end could not be read (each message names its line, frame or record). */
  problems: string[];
}

/** The last `count` messages from the analyzer in the trace file, oldest first; none when the file does not exist yet. */
export async function recentMessages(file: string, count: number, tailBytes = 1024 * 1024): Promise<RecentMessages> {
  let text: string;
  try {
    const handle = await open(file, 'r');
    try {
      const { size } = await handle.stat();
      const start = Math.max(0, size - tailBytes);
      const buffer = Buffer.alloc(size - start);
      await handle.read(buffer, 0, buffer.length, start);
      text = buffer.toString('latin1');
      // A tail that starts inside a line drops that line, and the messages it
      // opened are cut: only whole transfers from the first ENQ on count.
      if (start > 0) text = text.slice(text.indexOf('\n') + 1);
    } finally {
      await handle.close();
    }
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { messages: [], notes: ['the trace has no file yet: nothing received since tracing began'], problems: [] };
    throw err;
  }
  const read = readPaste(text);
  return {
    messages: read.messages.slice(-count),
    notes: read.notes,
    problems: read.problems.map((p) => p.message),
  };
}
