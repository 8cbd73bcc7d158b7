/** A host query (QRY^Q02, QBP^Q11, ORM^O01): the sample it names and what the answer must repeat. */
import type { Hl7Message } from '../message';
import type { Hl7Place, Hl7QueryRule } from '../dialects/types';
import type { QueriedSample } from '../../../lab/types';
import { isValue, placeName } from './places';
import { hl7SampleContext } from './sample-check';
import { sampleNumberProblem } from '../../../conversation/sample-number';

/** The queried sample, or the reason the query names none. */
export function readQuery(message: Hl7Message, rule: Hl7QueryRule): QueriedSample | string {
  const places = [rule.sample, ...(rule.sampleFallbacks ?? [])];
  const present = places.filter((p) => message.segment(p.segment) !== undefined);
  if (present.length === 0) return `${message.msh.field(9)}^${message.msh.field(9, 1, 2)} has no ${[...new Set(places.map((p) => p.segment))].join(' or ')} segment to name the sample in ${places.map(placeName).join(' or ')}`;
  const read = (p: Hl7Place) => message.segment(p.segment)?.field(p.field, 1, p.component ?? 1, p.subcomponent ?? 1).trim() ?? '';
  const at = present.find((p) => isValue(read(p))) ?? present[0]!;
  const seg = message.segment(at.segment)!;
  const sample = read(at);
  if (!isValue(sample)) return `the query names no sample in ${present.map(placeName).join(' or ')} (a query by range or time, which one order cannot answer)`;
  const bad = sampleNumberProblem(sample, hl7SampleContext(message, seg, at));
  if (bad !== undefined) return `${placeName(at)}: ${bad} (not asked of the LIS)`;
  const context: Record<string, string> = {
    controlId: message.msh.field(10),
    sendingApplication: message.msh.rawField(3),
    sendingFacility: message.msh.rawField(4),
    receivingApplication: message.msh.rawField(5),
    receivingFacility: message.msh.rawField(6),
    // The query segment's fields as sent, for an answer that echoes it (LAW: QPD).
    segment: seg.text.slice(4),
    segmentName: seg.name,
  };
  if (rule.tag) context.tag = message.segment(rule.tag.segment)?.field(rule.tag.field, 1, rule.tag.component ?? 1) ?? '';
  if (seg.name === 'QRD') context.queryId = seg.field(4);
  return { sampleNumber: sample, instrumentTests: [], range: seg.components(at.field), record: seg.index, answerContext: context };
}
