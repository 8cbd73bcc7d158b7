/**
 * A decoded ASTM message as lab events: queries, patient results, QC results,
 * results that belong to no sample, and everything else.
 *
 * Results are filed under the O record before them, with the sample number
 * the profile reads from that O (or from its P). Nothing is guessed: an R
 * without an O, or under an O whose sample number is missing or doubtful,
 * becomes an 'unassigned' item with the reason, never a result. A message
 * holding several H...L messages (ARCHITECT sends five in a row) is read one
 * H at a time.
 *
 * Data never makes this throw; a broken profile or an unknown time zone does,
 * because those are configuration errors that would affect every message.
 */
import { encodeRecord, isKnownTimeZone, repeatsOf, type AstmMessage, type AstmRecord, type Delimiters, type HeaderRecord, type OrderRecord, type PatientRecord } from '../records';
import { assertProfile, type DialectProfile } from '../dialects';
import { componentAt, fieldLabel, fieldText, isBlank, locateCode, sequenceOf } from './fields';
import { headerIsQc, orderIsQc } from './qc';
import { readQuery } from './queries';
import { readResult, resultParts } from './results';
import { readSample } from './samples';
import type { FieldAt, InstrumentResult, LabEvent, LabEventOptions, OtherKind, QueriedSample, UnassignedResult } from '../../../lab/types';

interface Indexed {
  record: AstmRecord;
  /** 1-based position in the message. */
  index: number;
}

interface PatientGroup {
  record: PatientRecord;
  index: number;
  id?: string;
  sequence: number;
  comments: string[];
}

interface OrderGroup {
  record: OrderRecord;
  index: number;
  sample?: string;
  problem?: string;
  /** The field the problem is about. */
  problemAt?: FieldAt;
  qc: boolean;
  patient?: PatientGroup;
  comments: string[];
  results: InstrumentResult[];
  /** `code\u0000sub` -> record index of the first result with that test, to notice a test reported twice. */
  seen: Map<string, number>;
}

type Target =
  | { kind: 'patient'; group: PatientGroup }
  | { kind: 'order'; group: OrderGroup }
  | { kind: 'result'; result: InstrumentResult }
  | { kind: 'unassigned'; item: UnassignedResult }
  | { kind: 'none' };

export function toLabEvents(message: AstmMessage, profile: DialectProfile, opts: LabEventOptions): LabEvent[] {
  assertProfile(profile);
  const timeZone = profile.timeZone ?? opts.timeZone;
  if (!isKnownTimeZone(timeZone)) {
    throw new RangeError(`unknown time zone ${JSON.stringify(timeZone)} (expected an IANA name such as Europe/Berlin)`);
  }
  const events: LabEvent[] = [];
  for (const segment of segmentsOf(message.records)) {
    const first = segment[0]?.record;
    const header = first?.type === 'H' ? first : undefined;
    events.push(...segmentEvents(segment, header, header?.delimiters ?? message.delimiters, profile, timeZone));
  }
  return events;
}

/** The records cut before each H record. */
function segmentsOf(records: AstmRecord[]): Indexed[][] {
  const out: Indexed[][] = [];
  records.forEach((record, i) => {
    const last = out[out.length - 1];
    if (record.type === 'H' || last === undefined) out.push([{ record, index: i + 1 }]);
    else last.push({ record, index: i + 1 });
  });
  return out;
}

function segmentEvents(segment: Indexed[], header: HeaderRecord | undefined, d: Delimiters, profile: DialectProfile, timeZone: string): LabEvent[] {
  const sender = header === undefined || isBlank(header.senderId) ? undefined : fieldText(header.senderId, d).trim();
  const withSender = <E extends LabEvent>(e: E): E => (sender === undefined ? e : { ...e, sender });
  const messageQc = headerIsQc(profile.qc, header);

  let patient: PatientGroup | undefined;
  let order: OrderGroup | undefined;
  let target: Target = { kind: 'none' };
  let noInformation = false;
  const groups: OrderGroup[] = [];
  const unassigned: UnassignedResult[] = [];
  const queried: QueriedSample[] = [];
  const cancelled: QueriedSample[] = [];
  const others: { kind: OtherKind; reason: string }[] = [];
  const problems: string[] = [];
  const qcProblems: string[] = [];
  let queryRecords = 0;

  const textOf = (record: AstmRecord): string => {
    try {
      return encodeRecord(record, d);
    } catch {
      return record.type;
    }
  };

  for (const { record, index } of segment) {
    try {
      switch (record.type) {
        case 'P': {
          const id = [record.practicePatientId, record.laboratoryPatientId, record.patientId3].map((v) => componentAt(v, 1).trim()).find((v) => v !== '');
          patient = { record, index, sequence: sequenceOf(record.sequence), comments: [], ...(id === undefined ? {} : { id }) };
          order = undefined;
          target = { kind: 'patient', group: patient };
          break;
        }
        case 'O': {
          const read = readSample(profile.sampleId, record, index, patient?.record, d);
          order = {
            record,
            index,
            qc: messageQc || orderIsQc(profile.qc, record),
            comments: [],
            results: [],
            seen: new Map(),
            ...(patient === undefined ? {} : { patient }),
            ...('sample' in read ? { sample: read.sample } : { problem: read.problem, problemAt: fieldAt(read.field.record, read.field.record === 'O' ? index : (patient?.index ?? index), read.field.name) }),
          };
          groups.push(order);
          target = { kind: 'order', group: order };
          break;
        }
        case 'R': {
          // A comment after an unassigned R stays with that item, never with an earlier result.
          if (order === undefined) {
            target = unplaced(unassigned, { record: index, reason: `R record ${index} has no O record before it${patient === undefined ? '' : ' (after its P record)'}`, text: textOf(record), ...resultParts(record, profile, d) });
            break;
          }
          if (order.sample === undefined) {
            target = unplaced(unassigned, {
              record: index,
              reason: order.problem ?? `O record ${order.index} has no sample number`,
              text: textOf(record),
              ...(order.problemAt === undefined ? {} : { at: order.problemAt }),
              ...resultParts(record, profile, d),
            });
            break;
          }
          const read = readResult(record, index, profile, {
            sample: order.sample,
            order: order.record,
            sequence: { patient: order.patient?.sequence ?? 0, order: sequenceOf(order.record.sequence) },
            timeZone,
            d,
            ...(order.patient?.id === undefined ? {} : { patientId: order.patient.id }),
          });
          if ('unassigned' in read) {
            target = unplaced(unassigned, { record: index, reason: read.unassigned, at: fieldAt('R', index, 'universalTestId'), text: textOf(record), ...(read.Result === undefined ? {} : { Result: read.Result }) });
            break;
          }
          const into = order.qc ? qcProblems : problems;
          into.push(...read.problems);
          const key = `${read.result.instrumentCode}\u0000${read.result.instrumentSubCode ?? ''}`;
          const earlier = order.seen.get(key);
          if (earlier !== undefined) {
            into.push(`R records ${earlier} and ${index} both report test ${read.result.instrumentCode}${read.result.instrumentSubCode === undefined ? '' : `/${read.result.instrumentSubCode}`} for sample ${order.sample} under O record ${order.index}`);
          } else order.seen.set(key, index);
          order.results.push(read.result);
          target = { kind: 'result', result: read.result };
          break;
        }
        case 'C': {
          if (isBlank(record.text)) break;
          const text = fieldText(record.text, d);
          if (target.kind === 'result') (target.result.comments ??= []).push(text);
          else if (target.kind === 'unassigned') (target.item.comments ??= []).push(text);
          else if (target.kind === 'order') target.group.comments.push(text);
          else if (target.kind === 'patient') target.group.comments.push(text);
          break;
        }
        case 'Q': {
          queryRecords++;
          if (profile.query === undefined) {
            others.push({ kind: 'unsupported-query', reason: `Q record ${index}: profile ${profile.id} reads no host queries` });
            break;
          }
          const read = readQuery(record, index, profile.query, profile.testId, d);
          (read.cancel ? cancelled : queried).push(...read.samples);
          others.push(...read.problems.map((reason) => ({ kind: 'unreadable-query' as const, reason })));
          break;
        }
        case 'L':
          if (componentAt(record.terminationCode, 1).trim() === 'I') noInformation = true;
          break;
        default:
          // H (the segment's own), M and S records and unknown types: nothing to read for the lab.
          break;
      }
    } catch (err) {
      // Not expected: every value is read defensively. Still, a record that
      // cannot be read is reported, never skipped.
      const reason = `record ${index} (${record.type}) could not be read: ${(err as Error).message}`;
      if (record.type === 'R') target = unplaced(unassigned, { record: index, reason, text: textOf(record) });
      else others.push({ kind: 'unreadable-record', reason });
    }
  }

  const qcResults: InstrumentResult[] = [];
  const patientResults: InstrumentResult[] = [];
  for (const group of groups) {
    if (group.qc && group.results.length === 0 && profile.qcInOrder !== undefined) {
      qcResults.push(...qcInOrder(group, profile, unassigned, textOf));
    }
    for (const result of group.results) {
      if (group.comments.length > 0) result.orderComments = [...group.comments];
      if (group.patient !== undefined && group.patient.comments.length > 0) result.patientComments = [...group.patient.comments];
      (group.qc ? qcResults : patientResults).push(result);
    }
  }

  const events: LabEvent[] = [];
  if (queried.length > 0) events.push(withSender({ type: 'query', samples: queried, cancel: false }));
  if (cancelled.length > 0) events.push(withSender({ type: 'query', samples: cancelled, cancel: true }));
  if (patientResults.length > 0 || problems.length > 0) events.push(withSender({ type: 'results', qc: false, results: patientResults, problems }));
  if (qcResults.length > 0 || qcProblems.length > 0 || (messageQc && groups.length > 0)) {
    if (qcResults.length === 0 && unassigned.length === 0) qcProblems.push('QC message without any readable QC result');
    events.push(withSender({ type: 'qc', results: qcResults, problems: qcProblems }));
  }
  if (unassigned.length > 0) events.push(withSender({ type: 'unassigned', items: unassigned }));
  for (const other of others) events.push(withSender({ type: 'other', ...other }));
  if (events.length === 0) events.push(withSender({ type: 'other', ...describeOther(groups, queryRecords, noInformation) }));
  return events;
}

function fieldAt(record: FieldAt['record'], index: number, field: string): FieldAt {
  return { record, index, field, label: fieldLabel(record, field) };
}

function unplaced(list: UnassignedResult[], item: UnassignedResult): Target {
  list.push(item);
  return { kind: 'unassigned', item };
}

/** Mindray CL QC: one result per control in the O field the profile names (the message carries no R record). */
function qcInOrder(group: OrderGroup, profile: DialectProfile, unassigned: UnassignedResult[], textOf: (r: AstmRecord) => string): InstrumentResult[] {
  const rule = profile.qcInOrder;
  if (rule === undefined) return [];
  const controls = repeatsOf(group.record[rule.field]);
  const code = locateCode(repeatsOf(group.record.universalTestId)[0] ?? [], profile.testId);
  const out: InstrumentResult[] = [];
  controls.forEach((c, i) => {
    const at = (n: number) => (c[n - 1] ?? '').trim();
    const value = at(rule.components.value);
    const name = at(rule.components.name);
    const id = at(rule.components.id);
    if (value === '' && name === '' && id === '') return;
    if (code === '' || (name === '' && id === '')) {
      unassigned.push({ record: group.index, reason: `QC repeat ${i + 1} of ${fieldLabel('O', rule.field)} in O record ${group.index} names no ${code === '' ? 'test' : 'control'}`, notForLis: true, at: fieldAt('O', group.index, rule.field), text: textOf(group.record) });
      return;
    }
    const control = Object.fromEntries(
      (['id', 'name', 'lot', 'level', 'expiry', 'mean', 'sd'] as const).map((k) => [k, at(rule.components[k])] as const).filter(([, v]) => v !== ''),
    );
    out.push({
      SampleNumber: name !== '' ? name : id,
      instrumentCode: code,
      Result: value,
      control,
      sequence: { patient: group.patient?.sequence ?? 0, order: sequenceOf(group.record.sequence), result: i + 1 },
      record: group.index,
    });
  });
  return out;
}

function describeOther(groups: OrderGroup[], queries: number, noInformation: boolean): { kind: OtherKind; reason: string } {
  if (groups.length > 0) {
    const types = [...new Set(groups.map((g) => componentAt(g.record.reportType, 1).trim()).filter((t) => t !== ''))];
    return { kind: 'order-message', reason: `order records without results (O-26 ${types.length > 0 ? types.map((t) => JSON.stringify(t)).join(', ') : 'empty'}): an order message, not results` };
  }
  if (noInformation && queries === 0) return { kind: 'empty-message', reason: 'no information (L-3 "I") and no query, order or result records' };
  return { kind: 'empty-message', reason: 'no query, order or result records' };
}
