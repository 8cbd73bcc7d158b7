/**
 * HL7's reading of its link's trace for the dialect preview's recent
 * messages (lib/trace/recent.ts): the MLLP capture's messages, and what tells
 * one from another.
 */
import { readHl7Capture } from './paste';
import type { MessageSummary, RecentReader } from '../../trace/recent';

export const HL7_RECENT: RecentReader = {
  read(text) {
    const read = readHl7Capture(text);
    return { messages: read.messages.map((bytes) => ({ bytes })), notes: read.notes, problems: read.problems };
  },
  summarize: summarizeHl7,
};

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
