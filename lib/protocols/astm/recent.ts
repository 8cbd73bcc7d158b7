/**
 * ASTM's reading of its link's trace for the dialect preview's recent
 * messages (lib/trace/recent.ts): the transfers as pasted text, and what
 * tells one message from another.
 */
import { readPaste } from './paste';
import type { MessageSummary, RecentReader } from '../../trace/recent';

export const ASTM_RECENT: RecentReader = {
  read(text) {
    const read = readPaste(text);
    return { messages: read.messages, notes: read.notes, problems: read.problems.map((p) => p.message) };
  },
  summarize,
};

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
