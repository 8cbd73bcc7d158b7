/**
 * The HL7 analyzer's messages, the mirror image of lib/protocols/hl7/lab: queries the
 * host reads with the same dialect profile, results and QC it files under the
 * right sample and test, the status messages the cobas pro sends, and the
 * acknowledgements the analyzer gives the host's messages.
 *
 * Every place the host reads is taken from the profile (query.sample,
 * sampleId.places, results.code, value, units, range, flags, status, time,
 * qc markers, qcInRequest), so a profile change moves the writer too;
 * flavours.ts fills in what the profile leaves open.
 */
import { buildHl7, repeat, type Hl7FieldValue, type Hl7SegmentSpec } from '../../protocols/hl7/build';
import type { Hl7DialectProfile, Hl7Place } from '../../protocols/hl7/dialects';
import { hl7Timestamp } from '../../protocols/hl7/lab/time';
import { simulateValue } from '../analytes';
import type { GeneratedResult } from '../messages';
import type { ControlMaterial, ControlRun } from '../qc';
import { hl7FlavourOf } from './flavours';

export interface Hl7WriteOptions {
  now: Date;
  timeZone: string;
  /** MSH-10 of the message (the analyzer numbers its messages from 1, Mindray CL manual p.1-10). */
  controlId: string;
  /** MSH-3 instead of the flavour's, to tell several simulated analyzers apart. */
  senderName?: string;
}

/** A field being written: components of subcomponents, so a place can be set anywhere in it. */
type Cells = string[][];
type Fields = Map<number, Hl7FieldValue | Cells>;

interface Draft {
  name: string;
  fields: Fields;
}

function seg(name: string, fields: Record<number, Hl7FieldValue> = {}): Draft {
  return { name, fields: new Map(Object.entries(fields).map(([k, v]) => [Number(k), v])) };
}

/** Sets SEG-field.component.subcomponent in the first segment of that name, keeping the rest of the field. */
function put(drafts: Draft[], place: Hl7Place, value: string): void {
  const d = drafts.find((x) => x.name === place.segment);
  if (d === undefined) throw new Error(`no ${place.segment} segment to write ${place.segment}-${place.field} in`);
  const old = d.fields.get(place.field);
  const cells: Cells = isCells(old) ? old : typeof old === 'string' ? [[old]] : Array.isArray(old) ? (old as unknown[]).map((c) => (Array.isArray(c) ? c.map(String) : [String(c ?? '')])) : [];
  const c = (place.component ?? 1) - 1;
  const s = (place.subcomponent ?? 1) - 1;
  while (cells.length <= c) cells.push(['']);
  const comp = cells[c]!;
  while (comp.length <= s) comp.push('');
  comp[s] = value;
  d.fields.set(place.field, cells);
}

function isCells(v: unknown): v is Cells {
  return Array.isArray(v) && v.every((c) => Array.isArray(c));
}

function spec(d: Draft): Hl7SegmentSpec {
  const fields: Record<number, Hl7FieldValue> = {};
  for (const [n, v] of d.fields) fields[n] = isCells(v) ? v.map((c) => (c.length === 1 ? c[0]! : c)) : v;
  return { name: d.name, fields };
}

function build(drafts: Draft[]): string {
  return buildHl7(drafts.map(spec));
}

/** MSH-18 as the analyzer states it: the name the host's answers use, else the profile's character set. */
export function charsetName(profile: Hl7DialectProfile): string {
  if (profile.answer !== undefined) return profile.answer.charsetName;
  return profile.charset === 'utf8' ? 'UNICODE UTF-8' : profile.charset === 'latin1' ? '8859/1' : 'ASCII';
}

function isLaw(profile: Hl7DialectProfile): boolean {
  return profile.answer?.form === 'law' || profile.results.messages[0] === 'OUL^R22';
}

function msh(profile: Hl7DialectProfile, type: string, opts: Hl7WriteOptions, extra: { kind?: string; profileId?: string; structure?: string } = {}): Draft {
  const f = hl7FlavourOf(profile);
  const [code = '', event = ''] = type.split('^');
  const v25 = !profile.versions[0]?.startsWith('2.3');
  const fields: Record<number, Hl7FieldValue> = {
    3: opts.senderName ?? f.sendingApplication,
    5: f.receivingApplication,
    7: hl7Timestamp(opts.now, opts.timeZone),
    // v2.5 names the message structure in MSH-9.3 (`OUL^R22^OUL_R22`); v2.3.1 has two components.
    9: v25 ? [code, event, extra.structure ?? `${code}_${event}`] : [code, event],
    10: opts.controlId,
    11: 'P',
    12: profile.versions[0] ?? '2.5.1',
    15: f.ackModes?.accept ?? '',
    16: extra.kind ?? f.ackModes?.application ?? '',
    18: charsetName(profile),
    // Mindray writes MSH-19..21 empty (`ASCII|||`); LAW names its profile there.
    21: extra.profileId === undefined ? '' : extra.profileId.split('^'),
  };
  return seg('MSH', fields);
}

// ----- queries -----

/** QRY^Q02 (Mindray CL p.1-21/1-28), ORM^O01 (Analyx Panca's worklist query) or QBP^Q11 (IHE LAW LAB-27) for one sample, the sample where the profile's query rule reads it. */
export function buildHl7Query(profile: Hl7DialectProfile, sample: string, opts: Hl7WriteOptions & { queryId: string; tag: string }): string {
  const rule = profile.query;
  if (rule === undefined) throw new Error(`dialect ${profile.id} has no host query: this analyzer does not query`);
  const type = rule.messages[0]!;
  const f = hl7FlavourOf(profile);
  const stamp = hl7Timestamp(opts.now, opts.timeZone);
  let drafts: Draft[];
  if (type === 'QRY^Q02') {
    // p.1-28: QRD|time|R|D|query ID|||RD|bar code|OTH|||T| and QRF||||||RCT|COR|ALL||.
    drafts = [msh(profile, type, opts), seg('QRD', { 1: stamp, 2: 'R', 3: 'D', 4: opts.queryId, 7: 'RD', 9: 'OTH', 12: 'T', 13: '' }), seg('QRF', { 6: 'RCT', 7: 'COR', 8: 'ALL', 9: '', 10: '' })];
  } else if (type === 'ORM^O01') {
    // analyx-panca-orm-o01-query.txt: `ORC|RF|C1|<tube>||IP`, the refill request for the tube's worklist.
    drafts = [msh(profile, type, opts), seg('ORC', { 1: 'RF', 2: 'C1', 5: 'IP' })];
  } else {
    const qpd: Record<number, Hl7FieldValue> = { 1: f.queryName };
    f.queryTail.forEach((v, i) => (qpd[4 + i] = v.split('^')));
    // LAB-27 RCP: immediate response, one record, real time (roche-cobaspro-qbp-q11-manual.txt).
    drafts = [msh(profile, type, opts, f.queryProfile === undefined ? {} : { profileId: f.queryProfile }), seg('QPD', qpd), seg('RCP', { 1: 'I', 2: '1', 3: ['R', '', 'HL70394'] })];
  }
  put(drafts, rule.sample, sample);
  if (rule.tag !== undefined) put(drafts, rule.tag, opts.tag);
  return build(drafts);
}

// ----- results -----

export interface Hl7ResultsInput {
  sampleNumber: string;
  tests: readonly string[];
  /** A test reported although nobody ordered it (misbehaviour unorderedResult). */
  unorderedTest?: string;
  patient?: { id?: string; name?: string; sex?: string };
  priority?: 'S' | 'R';
  completedAt: Date;
  seed: string;
  /** QC: the control's name takes the sample's place and the message carries the dialect's QC marker. */
  qc?: boolean;
  /** Values to send instead of the seeded ones (a control run's), by test code: no range, no flag. */
  values?: Readonly<Record<string, { value: string; units?: string }>>;
}

/** One test's simulated value as the host should read it. */
function generate(seed: string, sample: string, code: string, ordered: readonly string[]): GeneratedResult {
  const v = simulateValue(seed, sample, code);
  const out: GeneratedResult = { code, value: v.value };
  if (v.analyte !== undefined) out.name = v.analyte.name;
  if (v.units !== undefined) out.units = v.units;
  if (v.low !== undefined && v.high !== undefined) out.referenceRange = `${v.low}-${v.high}`;
  if (v.flag !== undefined) out.flag = v.flag;
  if (!ordered.includes(code)) out.unordered = true;
  return out;
}

/**
 * ORU^R01 or OUL^R22 for one sample (or one control), laid out so that
 * hl7LabEventsOf with the same profile files every result under it: the
 * sample at the profile's first sample place, each test at results.code, the
 * value, units, range, flag, status and time in the fields the profile reads.
 */
export function buildHl7Results(profile: Hl7DialectProfile, input: Hl7ResultsInput, opts: Hl7WriteOptions): { text: string; results: GeneratedResult[] } {
  if (input.tests.length === 0) throw new Error(`no tests to report for sample ${input.sampleNumber}`);
  const codes = [...input.tests];
  if (input.unorderedTest !== undefined && !codes.includes(input.unorderedTest)) codes.push(input.unorderedTest);
  const results = codes.map((code) => {
    const given = input.values?.[code];
    if (given === undefined) return generate(input.seed, input.sampleNumber, code, input.tests);
    return { code, value: given.value, ...(given.units === undefined ? {} : { units: given.units }) };
  });
  if (input.qc === true && profile.qcInRequest !== undefined) {
    const material = { id: '1', name: input.sampleNumber, level: 'M', lot: 'LOT1', expiry: '20301231' };
    return { text: qcInRequest(profile, results.map((r) => ({ ...r, material })), opts), results };
  }
  if (input.qc === true && profile.qc.length === 0) throw new Error(`dialect ${profile.id} has no QC marker: this analyzer sends no QC the host could tell apart`);
  return { text: resultMessage(profile, input, results, opts), results };
}

function resultMessage(profile: Hl7DialectProfile, input: Hl7ResultsInput, results: GeneratedResult[], opts: Hl7WriteOptions): string {
  const f = hl7FlavourOf(profile);
  const rule = profile.results;
  const type = rule.messages[0]!;
  const law = isLaw(profile);
  const stamp = hl7Timestamp(input.completedAt, opts.timeZone);
  const head = msh(profile, type, opts, { ...(f.resultKind === undefined ? {} : { kind: input.qc === true ? f.resultKind.qc : f.resultKind.patient }), ...(law && f.resultsProfile !== undefined ? { profileId: f.resultsProfile } : {}) });
  const pid = seg('PID', { 1: '1' });
  const p = input.patient;
  if (p?.id !== undefined) put([pid], rule.patientId?.[0] ?? { segment: 'PID', field: 3 }, p.id);
  if (p?.name !== undefined) pid.fields.set(5, p.name.split(',').map((s) => s.trim()));
  if (p?.sex !== undefined) pid.fields.set(8, p.sex);
  const drafts: Draft[] = [head, pid];
  const samplePlace = profile.sampleId.places[0]!;
  const needsSpm = law || samplePlace.segment === 'SPM' || profile.qc.some((m) => m.place.segment === 'SPM');
  if (needsSpm) {
    // LAW SPM-11 specimen role (HL7 table 0369): P patient, Q control.
    drafts.push(seg('SPM', { 1: '1', 11: input.qc === true ? 'Q' : 'P' }));
    if (law) drafts.push(seg('SAC', { 3: input.sampleNumber }));
  }
  const priority = input.priority === 'S' ? 'S' : 'R';
  const obx = (r: GeneratedResult, i: number): Draft => {
    const numeric = /^-?\d+(\.\d+)?$/.test(r.value);
    const o = seg('OBX', { 1: String(i + 1), 2: numeric ? 'NM' : 'ST', 3: f.testCode(r.code) });
    // Mindray CL p.1-19: OBX-4 the test name; a profile reading OBX-4 as a sub-ID gets nothing there.
    if (profile.answer?.form === 'display' && rule.subCode === undefined && r.name !== undefined) o.fields.set(4, r.name);
    put([o], { segment: 'OBX', field: rule.value.field, ...(typeof rule.value.component === 'number' ? { component: rule.value.component } : {}) }, r.value);
    if (rule.units !== undefined && r.units !== undefined) o.fields.set(rule.units.field, r.units);
    if (rule.referenceRange !== undefined && r.referenceRange !== undefined) o.fields.set(rule.referenceRange.field, r.referenceRange);
    if (rule.flagsField !== undefined && r.flag !== undefined) o.fields.set(rule.flagsField, r.flag);
    // v2.5.1 table 0085: F, final result.
    if (rule.statusField !== undefined) o.fields.set(rule.statusField, 'F');
    const when = rule.completedAt[0];
    if (when !== undefined) o.fields.set(when, stamp);
    put([o], rule.code, r.code);
    return o;
  };
  if (law) {
    // roche-cobaspro-oul-r22-manual.txt: one OBR / ORC / TQ1 group per test, its OBX after it.
    results.forEach((r, i) => {
      drafts.push(seg('OBR', { 1: String(i + 1), 4: f.testCode(r.code) }), seg('ORC', { 1: 'SC', 5: 'CM' }), seg('TQ1', { 9: priority }), obx(r, 0));
    });
  } else {
    // Mindray CL p.1-26: OBR-5 the STAT flag Y/N, then every OBX.
    drafts.push(seg('OBR', { 1: '1', 5: priority === 'S' ? 'Y' : 'N' }));
    results.forEach((r, i) => drafts.push(obx(r, i)));
  }
  placeSample(drafts, profile, input.sampleNumber, f.specimenIdType);
  if (input.qc === true) for (const m of profile.qc) put(drafts, m.place, m.anyOf[m.anyOf.length - 1]!);
  return build(drafts);
}

function placeSample(drafts: Draft[], profile: Hl7DialectProfile, sample: string, idType: string | undefined): void {
  const place = profile.sampleId.places[0]!;
  // Every OBR of a LAW message belongs to the SPM before it: the sample is written once.
  put(drafts, place, sample);
  if (place.segment === 'SPM' && place.field === 2 && idType !== undefined) put(drafts, { ...place, subcomponent: 2 }, idType);
}

/** Mindray CL QC (p.1-17/1-18, fixture mindray-cl2000i-oru-r01-qc.txt): MSH-16 2, one OBR per test carrying the control and the value, no OBX. */
function qcInRequest(profile: Hl7DialectProfile, results: (GeneratedResult & { material: ControlMaterial; mean?: number; sd?: number })[], opts: Hl7WriteOptions): string {
  const rule = profile.qcInRequest!;
  const f = hl7FlavourOf(profile);
  const stamp = hl7Timestamp(opts.now, opts.timeZone);
  const drafts: Draft[] = [msh(profile, profile.results.messages[0]!, opts, { kind: f.resultKind?.qc ?? '2' })];
  results.forEach((r, i) => {
    const obr = seg('OBR', { 1: String(i + 1) });
    const set = (n: number, v: string) => obr.fields.set(n, v);
    set(rule.code, r.code);
    set(rule.value, r.value);
    if (r.units !== undefined) set(rule.units, r.units);
    set(rule.completedAt, stamp);
    const c = rule.control;
    const m = r.material;
    set(c.id, m.id);
    set(c.name, m.name);
    set(c.lot, m.lot);
    set(c.expiry, m.expiry);
    set(c.level, m.level);
    if (r.mean !== undefined) set(c.mean, String(r.mean));
    if (r.sd !== undefined) set(c.sd, String(r.sd));
    drafts.push(obr);
  });
  // The control is what the host files QC under (its name, else its number).
  return build(drafts);
}

/**
 * A control run as the analyzer sends it: where the dialect carries the
 * control in the OBR (Mindray CL, MSH-16 2), one message with an OBR per
 * test and level, naming the control, its lot, expiry, level, target mean
 * and SD; otherwise one QC message per level, its material ID in the
 * sample's place. `controlId` numbers each message (MSH-10).
 */
export function buildHl7ControlMessages(profile: Hl7DialectProfile, run: ControlRun, completedAt: Date, opts: Omit<Hl7WriteOptions, 'controlId'>, controlId: () => string): { id: string; text: string }[] {
  if (profile.qc.length === 0) throw new Error(`dialect ${profile.id} has no QC marker: this analyzer sends no QC the host could tell apart`);
  if (profile.qcInRequest !== undefined) {
    const id = controlId();
    const results = run.values.map((v) => ({ code: v.test, value: v.value, ...(v.units === undefined ? {} : { units: v.units }), material: v.material, mean: v.mean, sd: v.sd }));
    return [{ id, text: qcInRequest(profile, results, { ...opts, now: completedAt, controlId: id }) }];
  }
  const materials = [...new Map(run.values.map((v) => [v.material.id, v.material])).values()];
  return materials.map((m) => {
    const mine = run.values.filter((v) => v.material.id === m.id);
    const id = controlId();
    const values = Object.fromEntries(mine.map((v) => [v.test, { value: v.value, ...(v.units === undefined ? {} : { units: v.units }) }]));
    const { text } = buildHl7Results(profile, { sampleNumber: m.id, tests: mine.map((v) => v.test), completedAt, seed: '', qc: true, values }, { ...opts, controlId: id });
    return { id, text };
  });
}

// ----- status -----

/** ESU^U01 (roche-cobaspro-esu-inu-session.log.txt): the analyzer's state, which the host must acknowledge too. */
export function buildHl7Status(profile: Hl7DialectProfile, opts: Hl7WriteOptions): string {
  const type = profile.statusMessages.find((m) => m === 'ESU^U01');
  if (type === undefined) throw new Error(`dialect ${profile.id} sends no ESU^U01 status messages`);
  const f = hl7FlavourOf(profile);
  const stamp = hl7Timestamp(opts.now, opts.timeZone);
  const equ = f.equipment?.(stamp) ?? [['1'], [stamp]];
  const fields: Record<number, Hl7FieldValue> = {};
  equ.forEach((reps, i) => (fields[i + 1] = repeat(...reps.map((r) => r.split('^')))));
  return build([msh(profile, type, opts, { profileId: 'ROC-02^ROCHE' }), seg('EQU', fields)]);
}

// ----- acknowledgements -----

export interface AckInput {
  /** MSH-9 of the message acknowledged, e.g. `DSR^Q03`. */
  type: string;
  /** MSH-10 of the message acknowledged. */
  controlId: string;
  /** MSH-3 of the message acknowledged: whom the ACK goes back to. */
  sender?: string;
  code: 'AA' | 'AE' | 'AR';
  /** What was wrong (AE/AR). */
  text?: string;
}

/**
 * An acknowledgement of one received message, in the dialect's form.
 * Original mode (Mindray CL p.1-31, fixture mindray-cl2000i-ack-q03.txt):
 * `ACK^<event>`, MSH-10 and MSA-2 the acknowledged message's control ID,
 * MSA-3 the text, MSA-6 the status code (p.1-11: 0 accepted; 100-103 AE; 200-207 AR),
 * ERR-1 the same code. Enhanced mode (IHE LAW; the hosts' ACKs in the cobas
 * session logs): `ACK^<event>^ACK` (`ORL^O34^ORL_O34` for an OML^O33), MSA-1/2,
 * and for an error an ERR segment with ERR-3 (table 0357), ERR-4 severity and
 * ERR-8 the text.
 */
export function buildHl7Ack(profile: Hl7DialectProfile, ack: AckInput, opts: Hl7WriteOptions): string {
  const event = ack.type.split('^')[1] ?? '';
  const display = profile.ackMode === 'original' || profile.answer?.form === 'display';
  if (display) {
    const status = ack.code === 'AA' ? '0' : ack.code === 'AE' ? '101' : '207';
    const text = ack.text ?? (ack.code === 'AA' ? 'Message accepted' : ack.code === 'AE' ? 'Required field missing' : 'Application internal error');
    const head = msh(profile, `ACK^${event}`, { ...opts, controlId: ack.controlId });
    head.fields.set(3, '');
    head.fields.set(5, '');
    return build([head, seg('MSA', { 1: ack.code, 2: ack.controlId, 3: text, 6: status, 7: '' }), seg('ERR', { 1: status, 2: '' })]);
  }
  // IHE LAW LAB-28: the Analyzer answers the AWOS broadcast (OML^O33) with ORL^O34^ORL_O34 (the IHE
  // Gazelle LAW test 30602 lists it among the messages a bi-directional Analyzer sends); its response
  // group is optional in v2.5.1, so MSH MSA [ERR] is a whole ORL. Everything else gets `ACK^<event>^ACK`.
  const head = ack.type === 'OML^O33' ? msh(profile, 'ORL^O34', opts, { structure: 'ORL_O34' }) : msh(profile, `ACK^${event}`, opts, { structure: 'ACK' });
  head.fields.set(5, ack.sender ?? '');
  // An ACK is never acknowledged itself.
  head.fields.set(15, 'NE');
  head.fields.set(16, 'NE');
  const drafts = [head, seg('MSA', { 1: ack.code, 2: ack.controlId })];
  if (ack.code !== 'AA') {
    const code = ack.code === 'AE' ? ['101', 'Required field missing', 'HL70357'] : ['207', 'Application internal error', 'HL70357'];
    drafts.push(seg('ERR', { 3: code, 4: 'E', 8: ack.text ?? code[1]! }));
  }
  return build(drafts);
}
