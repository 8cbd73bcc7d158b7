/**
 * The bytes of a received message as lab events, in an analyzer's dialect.
 * One transfer may hold several messages (H ... L, H ... L): each is decoded
 * with the delimiters its own H record declares.
 */
import { decodeMessage, splitMessages } from '../records';
import type { DialectProfile } from '../dialects';
import { toLabEvents } from './to-lab-events';
import type { LabEvent } from '../../../lab/types';

export function labEventsOf(bytes: Buffer, dialect: DialectProfile, timeZone: string): LabEvent[] {
  const text = bytes.toString(dialect.charset === 'utf8' ? 'utf8' : 'latin1');
  const events: LabEvent[] = [];
  for (const part of splitMessages(text)) events.push(...toLabEvents(decodeMessage(part), dialect, { timeZone }));
  return events;
}
