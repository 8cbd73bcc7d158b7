/** What lib/conversation/sample-number.ts needs to know of an HL7 message and the place a sample number was read at. */
import type { Hl7Message, Hl7Segment } from '../message';
import type { Hl7Place } from '../dialects/types';
import { holdsRawHl7Escape } from '../escape';
import type { SampleNumberContext } from '../../../conversation/sample-number';

/**
 * The delimiters split the text before it is read, so the escape character is
 * the only one that can arrive raw inside a subcomponent.
 */
export function hl7SampleContext(message: Hl7Message, seg: Hl7Segment | undefined, place: Hl7Place | undefined): SampleNumberContext {
  const d = message.delimiters;
  const arrived = seg !== undefined && place !== undefined ? seg.rawAt(place.field, 1, place.component ?? 1, place.subcomponent ?? 1) : '';
  return {
    ...(holdsRawHl7Escape(arrived, d) ? { rawDelimiter: d.escape } : {}),
    ...(message.fellBackFrom ? { undecodedFrom: message.fellBackFrom === 'utf8' ? 'UTF-8' : message.fellBackFrom } : {}),
  };
}
