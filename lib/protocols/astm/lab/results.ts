/**
 * One R record as an InstrumentResult. The value is kept as text; the only
 * changes are the ones the profile asks for, and then the field as sent is
 * kept in rawResult.
 */
import { parseAstmTimestamp, repeatsOf, type AstmValue, type Delimiters, type OrderRecord, type ResultRecord } from '../records';
import type { DialectProfile, ResultsRule } from '../dialects';
import { codePlaces, componentAt, fieldLabel, fieldText, isBlank, locate, locateCode, sequenceOf, wireText } from './fields';
import type { InstrumentResult } from '../../../lab/types';

export interface ResultContext {
  sample: string;
  order: OrderRecord;
  sequence: { patient: number; order: number };
  patientId?: string;
  timeZone: string;
  d: Delimiters;
}

export type ResultRead = { result: InstrumentResult; problems: string[] } | { unassigned: string; instrumentCode?: string; Result?: string };

export function readResult(r: ResultRecord, record: number, profile: DialectProfile, ctx: ResultContext): ResultRead {
  const tests = repeatsOf(r.universalTestId);
  const value = readValue(r.value, profile.results.value, ctx.d);
  if (tests.length > 1) return { unassigned: `R record ${record} names ${tests.length} tests in ${fieldLabel('R', 'universalTestId')}; one value cannot be filed under several tests`, Result: value.Result };
  const components = tests[0] ?? [];
  const instrumentCode = locateCode(components, profile.testId);
  if (instrumentCode === '') {
    return { unassigned: `R record ${record} has no instrument test code at ${codePlaces(profile.testId)} of ${fieldLabel('R', 'universalTestId')}`, Result: value.Result };
  }
  const problems: string[] = [];
  const result: InstrumentResult = {
    SampleNumber: ctx.sample,
    instrumentCode,
    Result: value.Result,
    sequence: { patient: ctx.sequence.patient, order: ctx.sequence.order, result: sequenceOf(r.sequence) },
    record,
  };
  if (profile.testId.subCode !== undefined) {
    const from = profile.testId.subCodeIn === 'value' ? (repeatsOf(r.value)[0] ?? []) : components;
    const sub = locate(from, profile.testId.subCode);
    if (sub !== '') result.instrumentSubCode = sub;
  }
  if (value.rawResult !== undefined) result.rawResult = value.rawResult;
  const units = profile.results.units === undefined ? fieldText(r.units, ctx.d) : componentAt(r.units, profile.results.units.component).trim();
  if (!isBlank(r.units) && units !== '') result.units = units;
  if (!isBlank(r.referenceRange)) result.referenceRange = fieldText(r.referenceRange, ctx.d);
  const flags = repeatsOf(r.abnormalFlags)
    .map((f) => f.join(ctx.d.component))
    .filter((f) => f.trim() !== '');
  if (flags.length > 0) result.flags = flags;
  if (!isBlank(r.resultStatus)) result.status = fieldText(r.resultStatus, ctx.d);
  const when = profile.results.completedAt;
  const time = componentAt(when.record === 'R' ? r[when.field] : ctx.order[when.field], 1).trim();
  if (time !== '') {
    result.completedAtRaw = time;
    try {
      result.completedAt = parseAstmTimestamp(time, ctx.timeZone);
    } catch (err) {
      problems.push(`R record ${record}: ${fieldLabel(when.record, when.field)} ${JSON.stringify(time)} is not a usable time (${(err as Error).message}); kept as completedAtRaw`);
    }
  }
  if (ctx.patientId !== undefined) result.patientId = ctx.patientId;
  return { result, problems };
}

/**
 * The test code and value of an R record that has no sample, for the
 * operator's report of it; never used to file a result.
 */
export function resultParts(r: ResultRecord, profile: DialectProfile, d: Delimiters): { instrumentCode?: string; Result: string } {
  const Result = readValue(r.value, profile.results.value, d).Result;
  const tests = repeatsOf(r.universalTestId);
  const instrumentCode = tests.length === 1 ? locateCode(tests[0] ?? [], profile.testId) : '';
  return instrumentCode === '' ? { Result } : { instrumentCode, Result };
}

const DECIMAL_COMMA = /^([<>]=?\s*|=\s*)?[+-]?\d+,\d+$/;

/** The value per the profile, and the field as sent when that differs. */
export function readValue(value: AstmValue | undefined, rule: ResultsRule['value'], d: Delimiters): { Result: string; rawResult?: string } {
  const whole = fieldText(value, d);
  let text: string;
  if (rule.component === undefined) text = whole;
  else if (rule.component === 'first-non-empty') text = (repeatsOf(value)[0] ?? []).find((c) => c.trim() !== '') ?? '';
  else text = componentAt(value, rule.component);
  if (rule.trim) text = text.trim();
  if (rule.decimalComma === 'dot' && DECIMAL_COMMA.test(text.trim())) text = text.replace(',', '.');
  return text === whole ? { Result: text } : { Result: text, rawResult: wireText(value, d) };
}
