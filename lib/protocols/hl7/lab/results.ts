/**
 * The results of an ORU^R01 / OUL^R22: each OBX read where the profile says,
 * placed on the sample its group names (the last PID, SPM, SAC, OBR before
 * it), QC kept apart, encapsulated data counted aside, supplemental
 * observations attached to the result they describe, NTE segments kept as
 * comments. A result that cannot be placed is reported with the reason
 * naming the field, never dropped.
 */
import type { Hl7Message, Hl7Segment } from '../message';
import type { Hl7DialectProfile } from '../dialects/types';
import type { InstrumentResult, UnassignedResult } from '../../../lab/types';
import type { EncapsulatedItem } from './types';
import { codeAt, firstValue, firstValueAt, holds, isValue, placeName, read, valueAt, type Current } from './places';
import { hl7SampleContext } from './sample-check';
import { sampleNumberProblem } from '../../../conversation/sample-number';
import { hl7Instant, hl7Offset } from './time';

export interface ReadResults {
  results: InstrumentResult[];
  qc: InstrumentResult[];
  unassigned: UnassignedResult[];
  encapsulated: EncapsulatedItem[];
  problems: string[];
}

/** Starting one of these segments starts a new group: the ones after it in this list no longer apply. */
const GROUPING = ['PID', 'SPM', 'SAC', 'OBR', 'ORC'];

export function readResults(message: Hl7Message, profile: Hl7DialectProfile, timeZone: string): ReadResults {
  const out: ReadResults = { results: [], qc: [], unassigned: [], encapsulated: [], problems: [] };
  const rule = profile.results;
  const current = new Map<string, Hl7Segment>([['MSH', message.msh]]);
  let last: InstrumentResult | undefined;
  let lastKind = '';
  let orderComments: string[] = [];
  const number = (text: string) => (/^\d+$/.test(text) ? Number(text) : 0);
  const senderOffset = hl7Offset(message.msh.field(7));
  const codePlaces = [rule.code, ...(rule.codeFallbacks ?? [])];

  for (const seg of message.segments.slice(1)) {
    const at = GROUPING.indexOf(seg.name);
    if (at >= 0) {
      for (const name of GROUPING.slice(at)) current.delete(name);
      current.set(seg.name, seg);
      if (seg.name === 'OBR') {
        orderComments = [];
        last = undefined;
        const qc = qcFromRequest(seg, current, profile, timeZone, senderOffset);
        if (qc) out.qc.push(qc);
      }
      lastKind = seg.name;
      continue;
    }
    if (seg.name === 'NTE') {
      const text = seg.fieldAll(3).join(' ');
      if (lastKind === 'OBX' && last) (last.comments ??= []).push(text);
      else if (lastKind === 'OBR') orderComments.push(text);
      continue;
    }
    if (seg.name !== 'OBX') continue;
    lastKind = 'OBX';
    current.set('OBX', seg);
    const code = codeAt(current, codePlaces, rule.trim, rule.codeSkipsNumbers === true);
    const found = firstValueAt(current, profile.sampleId.places, profile.sampleId.trim);
    const sample = found.value;
    const valueType = seg.field(2);
    if (rule.asideValueTypes.includes(valueType)) {
      out.encapsulated.push({ SampleNumber: sample, instrumentCode: code, valueType, record: seg.index, length: seg.rawField(5).length });
      continue;
    }
    if (holds(current, rule.supplemental)) {
      const value = seg.fieldAll(5).join('~');
      const units = read(seg, rule.units ?? { field: 6 }, rule.trim);
      if (last) (last.supplements ??= []).push({ code, value, ...(units !== '' ? { units } : {}), segment: seg.name, index: seg.index });
      else out.unassigned.push({ record: seg.index, reason: `supplemental OBX ${seg.index} (${code}) comes before any result it could describe`, text: seg.text, instrumentCode: code, Result: value, ...(units !== '' ? { units } : {}) });
      continue;
    }
    const value = read(seg, rule.value, rule.trim);
    const shown = described(seg, rule);
    if (sample === '') {
      last = undefined;
      const where = profile.sampleId.places.map(placeName).join(' or ');
      out.unassigned.push({ record: seg.index, reason: `OBX ${seg.index} (${code || 'no code'}): no sample number in ${where}`, text: seg.text, instrumentCode: code, Result: value, ...shown });
      continue;
    }
    const bad = sampleNumberProblem(sample, hl7SampleContext(message, found.place && current.get(found.place.segment), found.place));
    if (bad !== undefined) {
      last = undefined;
      out.unassigned.push({ record: seg.index, reason: `OBX ${seg.index} (${code || 'no code'}): ${found.place ? `${placeName(found.place)}: ` : ''}${bad}`, text: seg.text, instrumentCode: code, Result: value, ...shown });
      continue;
    }
    if (code === '') {
      last = undefined;
      out.unassigned.push({ record: seg.index, reason: `OBX ${seg.index}: no test code in ${codePlaces.map(placeName).join(' or ')}; a result is not sent without one`, text: seg.text, instrumentCode: '', Result: value, ...shown });
      continue;
    }
    const result: InstrumentResult = {
      SampleNumber: sample,
      instrumentCode: code,
      Result: value,
      sequence: { patient: number(current.get('PID')?.field(1) ?? ''), order: number(current.get('OBR')?.field(1) ?? ''), result: number(seg.field(1)) },
      record: seg.index,
    };
    if (rule.subCode) {
      const sub = trimmed(valueAt(current, rule.subCode), rule.trim);
      if (isValue(sub)) result.instrumentSubCode = sub;
    }
    if (value !== seg.rawField(5)) result.rawResult = seg.rawField(5);
    Object.assign(result, shown);
    if (rule.statusField && seg.field(rule.statusField) !== '') result.status = seg.rawField(rule.statusField);
    const time = rule.completedAt.map((n) => seg.field(n)).find(isValue);
    if (time !== undefined) {
      result.completedAtRaw = time;
      const instant = hl7Instant(time, timeZone, senderOffset);
      if (instant) result.completedAt = instant;
      else out.problems.push(`OBX ${seg.index} (${code}): completion time ${JSON.stringify(time)} is not an HL7 date/time; kept as sent in completedAtRaw`);
    }
    if (orderComments.length > 0) result.orderComments = [...orderComments];
    const patientId = firstValue(current, rule.patientId ?? [], true);
    if (patientId !== '') result.patientId = patientId;
    (holds(current, profile.qc) ? out.qc : out.results).push(result);
    last = result;
  }
  return out;
}

/** The units, reference range and flags of an OBX, as the profile reads them; absent ones left out. */
function described(seg: Hl7Segment, rule: Hl7DialectProfile['results']): Pick<InstrumentResult, 'units' | 'referenceRange' | 'flags'> {
  const out: Pick<InstrumentResult, 'units' | 'referenceRange' | 'flags'> = {};
  const units = rule.units ? read(seg, rule.units, rule.trim) : '';
  if (units !== '') out.units = units;
  const range = rule.referenceRange ? read(seg, rule.referenceRange, rule.trim) : '';
  if (range !== '') out.referenceRange = range;
  if (rule.flagsField) {
    const flags = seg.fieldAll(rule.flagsField).map((f) => f.trim()).filter(isValue);
    if (flags.length > 0) out.flags = flags;
  }
  return out;
}

/** A QC result carried in the OBR itself (Mindray CL), when the message is QC and the OBR holds a value. */
function qcFromRequest(obr: Hl7Segment, current: Current, profile: Hl7DialectProfile, timeZone: string, senderOffset: string | undefined): InstrumentResult | undefined {
  const rule = profile.qcInRequest;
  if (rule === undefined || !holds(current, profile.qc)) return undefined;
  const f = (n: number) => obr.field(n).trim();
  const value = f(rule.value);
  if (value === '') return undefined;
  const control = Object.fromEntries(Object.entries(rule.control).map(([k, n]) => [k, f(n)] as const).filter(([, v]) => v !== ''));
  const result: InstrumentResult = {
    SampleNumber: control.name ?? control.id ?? '',
    instrumentCode: f(rule.code),
    Result: value,
    control,
    sequence: { patient: 0, order: Number(f(1)) || 0, result: 1 },
    record: obr.index,
  };
  if (f(rule.units) !== '') result.units = f(rule.units);
  const time = f(rule.completedAt);
  if (time !== '') {
    result.completedAtRaw = time;
    const instant = hl7Instant(time, timeZone, senderOffset);
    if (instant) result.completedAt = instant;
  }
  return result;
}

function trimmed(text: string, trim: boolean): string {
  return trim ? text.trim() : text;
}
