/**
 * The sample number an order group belongs to, read exactly where the profile
 * says. Anything doubtful is refused with a reason: a result filed under the
 * wrong sample is worse than a result reported as unassigned.
 */
import type { AstmRecord, AstmValue, Delimiters, OrderRecord, PatientRecord } from '../records';
import { arrivedComponent, escapeText, holdsRawEscape } from '../records';
import { sampleNumberProblem } from '../../../conversation/sample-number';
import { repeatsOf } from '../records';
import type { SampleIdRule } from '../dialects';
import { componentOf, fieldLabel, fieldNumber } from './fields';

/** The sample number, or why not with the field at fault (P fields are the patient record's before the O). */
export type SampleRead = { sample: string } | { problem: string; field: { record: 'O' | 'P'; name: string } };

export function readSample(rule: SampleIdRule, order: OrderRecord, orderRecord: number, patient: PatientRecord | undefined, d: Delimiters): SampleRead {
  const field = { record: rule.record, name: rule.field };
  let value: AstmValue | undefined;
  let where: string;
  if (rule.record === 'O') {
    value = order[rule.field];
    where = `${fieldLabel('O', rule.field)} of O record ${orderRecord}`;
  } else {
    if (patient === undefined) return { problem: `O record ${orderRecord} has no P record before it, and the sample number is read from ${fieldLabel('P', rule.field)}`, field };
    value = patient[rule.field];
    where = `${fieldLabel('P', rule.field)} of the P record before O record ${orderRecord}`;
  }
  const repeats = repeatsOf(value);
  if (repeats.length > 1) return { problem: `${where} holds ${repeats.length} repeats; one result cannot belong to several samples`, field };
  const components = repeats[0] ?? [];
  const raw = componentOf(components, rule.component);
  const sample = rule.trim ? raw.trim() : raw;
  if (sample.trim() === '') return { problem: `${where} has no sample number at component ${rule.component}`, field };
  if (rule.singleComponent && components.length > 1) {
    return { problem: `${where} has components (${JSON.stringify(components.join('^'))}); this profile does not know which one is the sample number, so it does not guess`, field };
  }
  const record = rule.record === 'O' ? order : patient!;
  const bad = sampleNumberProblem(sample, { rawDelimiter: rawEscapeAt(record, fieldNumber(rule.record, rule.field), 1, rule.component, raw, d) });
  if (bad !== undefined) return { problem: `${where}: ${bad}`, field };
  return { sample };
}

/**
 * The escape character, when it arrived raw in that component (a lone `&`):
 * the only delimiter that can, since the others split the text. Escaped
 * delimiters (`&E&`, `&S&` …) are data.
 */
export function rawEscapeAt(record: AstmRecord, field: number, repeat: number, component: number, decoded: string, d: Delimiters): string | undefined {
  const arrived = arrivedComponent(record, field, repeat, component, d) ?? escapeText(decoded, d);
  return holdsRawEscape(arrived, d) ? d.escape : undefined;
}
