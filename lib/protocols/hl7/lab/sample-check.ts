/** What lib/conversation/sample-number.ts needs to know of an HL7 message. */
import type { Hl7Message } from '../message';
import type { SampleNumberContext } from '../../../conversation/sample-number';

export function hl7SampleContext(message: Hl7Message): SampleNumberContext {
  const d = message.delimiters;
  return { delimiters: [d.field, d.component, d.repetition, d.escape, d.subcomponent], ...(message.fellBackFrom ? { undecodedFrom: message.fellBackFrom === 'utf8' ? 'UTF-8' : message.fellBackFrom } : {}) };
}
