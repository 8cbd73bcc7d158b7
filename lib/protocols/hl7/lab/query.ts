/** A host query (QRY^Q02, QBP^Q11): the sample it names and what the answer must repeat. */
import type { Hl7Message } from '../message';
import type { Hl7QueryRule } from '../dialects/types';
import type { QueriedSample } from '../../../lab/types';
import { isValue, placeName } from './places';
import { hl7SampleContext } from './sample-check';
import { sampleNumberProblem } from '../../../conversation/sample-number';

/** The queried sample, or the reason the query names none. */
export function readQuery(message: Hl7Message, rule: Hl7QueryRule): QueriedSample | string {
  const seg = message.segment(rule.sample.segment);
  if (seg === undefined) return `${message.msh.field(9)}^${message.msh.field(9, 1, 2)} has no ${rule.sample.segment} segment to name the sample in ${placeName(rule.sample)}`;
  const sample = seg.field(rule.sample.field, 1, rule.sample.component ?? 1, rule.sample.subcomponent ?? 1).trim();
  if (!isValue(sample)) return `the query names no sample in ${placeName(rule.sample)} (a query by range or time, which one order cannot answer)`;
  const bad = sampleNumberProblem(sample, hl7SampleContext(message));
  if (bad !== undefined) return `${placeName(rule.sample)}: ${bad} (not asked of the LIS)`;
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
  return { sampleNumber: sample, instrumentTests: [], range: seg.components(rule.sample.field), record: seg.index, answerContext: context };
}
