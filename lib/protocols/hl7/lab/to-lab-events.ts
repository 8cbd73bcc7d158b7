/**
 * A received HL7 message read into the same lab events as ASTM
 * (lib/lab/types.ts): queries, patient results, QC apart, results that
 * belong to no sample, and anything else passed on as 'other', plus the
 * encapsulated data (histograms, images) counted aside.
 */
import { parseHl7Bytes, type Hl7Message } from '../message';
import type { Hl7DialectProfile } from '../dialects/types';
import type { Hl7LabEvent } from './types';
import { readQuery } from './query';
import { readResults } from './results';

/** The message type as `ORU^R01` (MSH-9.1 ^ MSH-9.2). */
export function messageType(message: Hl7Message): string {
  return `${message.msh.field(9)}^${message.msh.field(9, 1, 2)}`;
}

export function parseForProfile(bytes: Buffer, profile: Hl7DialectProfile): Hl7Message {
  return parseHl7Bytes(bytes, { charset: profile.charset });
}

export function hl7LabEventsOf(input: Buffer | Hl7Message, profile: Hl7DialectProfile, timeZone: string): Hl7LabEvent[] {
  const message = Buffer.isBuffer(input) ? parseForProfile(input, profile) : input;
  const type = messageType(message);
  const sender = message.msh.field(3) || undefined;
  const withSender = <E extends Hl7LabEvent>(e: E): E => (sender === undefined ? e : { ...e, sender });

  if (profile.query?.messages.includes(type)) {
    const q = readQuery(message, profile.query);
    if (typeof q === 'string') return [withSender({ type: 'other', kind: 'unreadable-query', reason: `${type}: ${q}` })];
    return [withSender({ type: 'query', samples: [q], cancel: false })];
  }
  if (profile.results.messages.includes(type)) {
    const r = readResults(message, profile, timeZone);
    const events: Hl7LabEvent[] = [];
    if (r.results.length > 0 || r.problems.length > 0) events.push(withSender({ type: 'results', qc: false, results: r.results, problems: r.problems }));
    if (r.qc.length > 0) events.push(withSender({ type: 'qc', results: r.qc, problems: [] }));
    if (r.unassigned.length > 0) events.push(withSender({ type: 'unassigned', items: r.unassigned }));
    if (r.encapsulated.length > 0) events.push(withSender({ type: 'encapsulated', items: r.encapsulated }));
    if (events.length === 0) events.push(withSender({ type: 'other', kind: 'empty-message', reason: `${type} without any OBX result` }));
    return events;
  }
  if (profile.statusMessages.includes(type)) return [withSender({ type: 'other', kind: 'status-message', reason: `${type} reports the analyzer's state; it carries no results` })];
  const reads = [...profile.results.messages, ...(profile.query?.messages ?? [])].join(', ');
  return [withSender({ type: 'other', kind: 'unsupported-message', reason: `${type} is not a message the ${profile.id} dialect reads (it reads ${reads})` })];
}
