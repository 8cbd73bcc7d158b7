/**
 * The analyzer's messages, as the mirror image of lib/protocols/astm/lab: queries the
 * host's toLabEvents reads with the same profile, results it files under the
 * right sample and test, and the reading of the host's downloads that
 * buildOrderMessage / buildNoInformation write.
 *
 * Every place an identifier goes comes from the profile (QueryRule, SampleIdRule,
 * TestIdRule, ResultsRule, OrderLayout); flavours.ts only fills in what the
 * profile leaves open. Messages are written with the record codec, so values
 * are escaped and field counts follow the standard.
 */
import {
  decodeMessage,
  encodeMessage,
  formatAstmTimestamp,
  repeatsOf,
  type AstmRecord,
  type AstmValue,
  type HeaderRecord,
  type OrderRecord,
  type PatientRecord,
  type ResultRecord,
} from '../protocols/astm/records';
import type { DialectProfile, OrderField, OrderLayout, PatientPart, QcRule } from '../protocols/astm/dialects';
import { nameComponents } from '../protocols/astm/lab';
import { simulateValue, type SimulatedValue } from './analytes';
import type { ControlRun } from './qc';
import { flavourOf, placed, type AnalyzerFlavour, type MessageKind, type Tube } from './flavours';

export type { Tube } from './flavours';

export interface TimeOptions {
  now: Date;
  /** The site's IANA zone; the profile's own zone wins when it has one (as on the host side). */
  timeZone: string;
  /** H-5's first component instead of the flavour's, so several simulated analyzers can be told apart. */
  senderName?: string;
}

function stamp(profile: DialectProfile, opts: TimeOptions): string {
  return formatAstmTimestamp(opts.now, profile.timeZone ?? opts.timeZone);
}

function header(flavour: AnalyzerFlavour, kind: MessageKind, profile: DialectProfile, opts: TimeOptions): HeaderRecord {
  const h: HeaderRecord = { type: 'H', delimiters: { ...flavour.delimiters }, ...structuredClone(flavour.header(kind)) };
  if (flavour.headerTimestamp) h.timestamp = stamp(profile, opts);
  if (opts.senderName !== undefined) {
    const rest = Array.isArray(h.senderId) && typeof h.senderId[0] === 'string' ? (h.senderId as string[]).slice(1) : [];
    h.senderId = [opts.senderName, ...rest];
  }
  return h;
}

function encode(flavour: AnalyzerFlavour, records: AstmRecord[]): string {
  return encodeMessage({ delimiters: { ...flavour.delimiters }, records });
}

// ----- queries -----

/** The components of Q-3 this query will carry, so the simulator can check the host's echo of them. */
export function queryRange(profile: DialectProfile, sample: string, tube: Tube): string[] {
  return flavourOf(profile).queryRange(sample, tube);
}

/**
 * A host query for one sample: Q-3 with the sample at the component the
 * profile's QueryRule reads, Q-13 'O' (request orders), or the profile's
 * cancel code when the analyzer gives up on its earlier query.
 */
export function buildQuery(profile: DialectProfile, sample: string, tube: Tube, opts: TimeOptions & { cancel?: boolean }): string {
  const rule = profile.query;
  if (rule === undefined) throw new Error(`dialect ${profile.id} has no host query layout: this analyzer does not query`);
  const flavour = flavourOf(profile);
  let status = flavour.queryStatus;
  if (opts.cancel === true) {
    if (rule.cancelStatus === undefined) throw new Error(`dialect ${profile.id} has no query cancel code`);
    status = rule.cancelStatus;
  }
  const range = flavour.queryRange(sample, tube);
  return encode(flavour, [
    header(flavour, 'query', profile, opts),
    { type: 'Q', sequence: '1', startingRange: range.length === 1 ? (range[0] ?? '') : range, universalTestId: flavour.queryTests, statusCode: status },
    { type: 'L', sequence: '1', terminationCode: 'N' },
  ]);
}

// ----- the host's downloads -----

export interface DownloadedPatient {
  id?: string;
  /** As the LIS wrote it: "Roe, Jane" when P-6 had a surname and a given name where the layout puts them, else the one name. */
  name?: string;
  dateOfBirth?: string;
  age?: string;
  ageUnit?: string;
  sex?: string;
}

export interface DownloadedOrder {
  sampleNumber: string;
  /** Instrument test codes, in download order. */
  tests: string[];
  /** Test names the download gave (Mindray O-5 assay names), by code. */
  testNames: Record<string, string>;
  /** Absent when O-6 does not say: a code the layout writes for both priorities (Sysmex XN), or none it writes. */
  priority?: 'S' | 'R';
  /** The LIS sample type: the O field mapped back through the profile's table. */
  sampleType?: string;
  patient?: DownloadedPatient;
  /** O-12 and O-26 as received. */
  actionCode: string;
  reportType: string;
  /** The fields the profile's layout echoes from the query (Roche O-4), as received. */
  echo: { field: OrderField; components: string[] }[];
  /** Anything the analyzer would object to; empty when the download is as the profile describes it. */
  problems: string[];
}

export type HostAnswer =
  | { kind: 'order'; order: DownloadedOrder }
  /** The dialect's "no information" answer; sampleNumber is absent in the terminator form (Mindray `L|1|I`). */
  | { kind: 'noInformation'; sampleNumber?: string; problems: string[] }
  | { kind: 'other'; reason: string };

const first = (v: AstmValue | undefined, position = 1): string => (repeatsOf(v)[0]?.[position - 1] ?? '').trim();

/** What a message from the host means to the analyzer: orders, "no information", or something else. */
export function readHostMessage(text: string, profile: DialectProfile): HostAnswer[] {
  const layout = profile.order;
  if (layout === undefined) return [{ kind: 'other', reason: `dialect ${profile.id} has no order download layout: the simulator cannot read downloads for it` }];
  let records: AstmRecord[];
  try {
    records = decodeMessage(text).records;
  } catch (err) {
    return [{ kind: 'other', reason: `message could not be decoded: ${(err as Error).message}` }];
  }
  const flavour = flavourOf(profile);
  const out: HostAnswer[] = [];
  let patient: PatientRecord | undefined;
  let orders = 0;
  let terminationCode = '';
  for (const record of records) {
    if (record.type === 'P') patient = record;
    else if (record.type === 'L') terminationCode = first(record.terminationCode);
    else if (record.type === 'O') {
      orders++;
      out.push(readOrder(record, patient, layout, profile, flavour));
    }
  }
  if (orders === 0) {
    const noOrder = profile.noOrder;
    const code = noOrder?.form === 'terminator' ? noOrder.terminationCode : 'I';
    if (terminationCode === code) out.push({ kind: 'noInformation', problems: [] });
    else out.push({ kind: 'other', reason: `no order record and L-3 ${JSON.stringify(terminationCode)}, not the "no information" code ${JSON.stringify(code)}` });
  }
  return out;
}

/**
 * The component of the layout's sample field that holds the sample number.
 * The host writes the sample as the whole field, unless the layout echoes the
 * query into that field (Sysmex XN O-3 = the query's Q-3 rack^position^sample^
 * attribute): the echo replaces what was there, and the sample sits where the
 * profile's QueryRule reads it in the query, counted from the echo's start
 * (lib/protocols/astm/lab/build-order.ts echoQuery).
 */
export function downloadSampleComponent(profile: DialectProfile, layout: OrderLayout): number {
  const field = layout.order.sampleField;
  // The host writes the echoes in order: the last one into the field is what stays there.
  const echo = (layout.order.echo ?? []).filter((e) => e.field === field).at(-1);
  const query = profile.query;
  if (echo === undefined || query === undefined) return 1;
  return query.component - echo.from + 1;
}

/**
 * O-6 as the analyzer understands it: 'S' or 'R' when the code names one
 * priority only. A code the layout writes for both (Sysmex XN leaves O-6 empty
 * for STAT and routine) or for neither says nothing: undefined, not a guess.
 * The code for "no priority given" is the routine one where it equals it.
 */
export function readPriority(code: string, layout: OrderLayout): 'S' | 'R' | undefined {
  const map = layout.order.priority;
  const stat = code === map.S;
  const routine = code === map.R;
  if (stat === routine) return undefined;
  return stat ? 'S' : 'R';
}

function readOrder(o: OrderRecord, p: PatientRecord | undefined, layout: OrderLayout, profile: DialectProfile, flavour: AnalyzerFlavour): HostAnswer {
  const sampleAt = downloadSampleComponent(profile, layout);
  const sample = first(o[layout.order.sampleField], sampleAt);
  const reportType = first(o.reportType);
  const problems: string[] = [];
  const codeAt = layout.order.test.codeComponent;
  const tests: string[] = [];
  const testNames: Record<string, string> = {};
  for (const r of repeatsOf(o.universalTestId)) {
    const code = (r[codeAt - 1] ?? '').trim();
    if (code === '') continue;
    if (tests.includes(code)) problems.push(`test ${code} ordered twice`);
    else tests.push(code);
    const nameAt = flavour.downloadTestName;
    const name = nameAt === undefined ? '' : (r[nameAt - 1] ?? '').trim();
    if (name !== '') testNames[code] = name;
  }
  if (sample === '') {
    const where = sampleAt === 1 ? `its ${layout.order.sampleField} field` : `component ${sampleAt} of its ${layout.order.sampleField} field (where the echo of the query puts it)`;
    problems.push(`the order names no sample in ${where}`);
  }
  if (tests.length === 0) {
    // The "no information" answer in order form: an O record without tests (Roche).
    const expected = profile.noOrder?.form === 'order' ? profile.noOrder.reportType : undefined;
    if (expected !== undefined && reportType !== expected) problems.push(`O-26 ${JSON.stringify(reportType)} where the "no information" answer has ${JSON.stringify(expected)}`);
    return { kind: 'noInformation', ...(sample === '' ? {} : { sampleNumber: sample }), problems };
  }
  const order: DownloadedOrder = {
    sampleNumber: sample,
    tests,
    testNames,
    actionCode: first(o.actionCode),
    reportType,
    echo: (layout.order.echo ?? []).map((e) => ({ field: e.field, components: repeatsOf(o[e.field])[0] ?? [] })),
    problems,
  };
  const priority = readPriority(first(o.priority), layout);
  if (priority !== undefined) order.priority = priority;
  const sampleType = readSampleType(o, layout);
  if (sampleType !== undefined) order.sampleType = sampleType;
  if (p !== undefined) {
    const patient = readPatient(p, layout);
    if (Object.keys(patient).length > 0) order.patient = patient;
  }
  return { kind: 'order', order };
}

function readSampleType(o: OrderRecord, layout: OrderLayout): string | undefined {
  const rule = layout.order.sampleType;
  if (rule === undefined) return undefined;
  const code = first(o[rule.field]);
  if (code === '') return undefined;
  if (rule.map === 'as-is') return code;
  // Several LIS types may share a code (Roche: Serum and Plasma are both '1'): the first one names it.
  return Object.entries(rule.map).find(([, c]) => c === code)?.[0] ?? code;
}

function readPatient(p: PatientRecord, layout: OrderLayout): DownloadedPatient {
  const spec = layout.patient;
  const out: DownloadedPatient = {};
  if (spec.id !== undefined) {
    const id = first(p[spec.id]);
    if (id !== '') out.id = id;
  }
  const name = readName(p, spec);
  if (name !== undefined) out.name = name;
  if (spec.birth !== undefined) {
    const parts = repeatsOf(p.birthdate)[0] ?? [];
    spec.birth.forEach((part: PatientPart, i) => {
      const v = (parts[i] ?? '').trim();
      if (v !== '') out[part] = v;
    });
  }
  if (spec.sex === true) {
    const sex = first(p.sex);
    if (sex !== '') out.sex = sex;
  }
  return out;
}

/**
 * P-6 where the layout writes it: last^first^... (nameComponents), or each
 * component in the layout's nameOrder (Sysmex XN `^first^last`). The mirror of
 * lab/patient-name.ts: a surname and a given name came from "last, first".
 */
function readName(p: PatientRecord, spec: OrderLayout['patient']): string | undefined {
  const parts = repeatsOf(p.name)[0] ?? [];
  const at = (i: number): string => (i < 0 ? '' : (parts[i] ?? '').trim());
  let last: string;
  let given: string;
  if (spec.nameComponents !== undefined) {
    last = at(0);
    given = spec.nameComponents < 2 ? '' : at(1);
  } else if (spec.nameOrder !== undefined) {
    last = at(spec.nameOrder.indexOf('last'));
    given = at(spec.nameOrder.indexOf('first'));
  } else {
    return undefined;
  }
  const name = given === '' ? last : `${last}, ${given}`;
  return name === '' ? undefined : name;
}

/** P-6 for a name, laid out as the download layout writes it (lib/protocols/astm/lab/build-order.ts). */
function nameField(name: string, spec: OrderLayout['patient']): string[] | undefined {
  if (spec.nameComponents !== undefined) return nameComponents(name, spec.nameComponents);
  const order = spec.nameOrder;
  if (order === undefined) return undefined;
  const [last = '', given = ''] = nameComponents(name, order.includes('first') ? 2 : 1);
  return order.map((part) => (part === 'last' ? last : part === 'first' ? given : ''));
}

// ----- results -----

export interface ResultsInput {
  sampleNumber: string;
  tests: readonly string[];
  testNames?: Readonly<Record<string, string>>;
  /** A test reported although nobody ordered it (misbehaviour unorderedResult). */
  unorderedTest?: string;
  patient?: DownloadedPatient;
  priority?: 'S' | 'R';
  tube: Tube;
  completedAt: Date;
  timeZone: string;
  seed: string;
  senderName?: string;
  /** Values to send instead of the seeded ones (a control run's), by test code: no range, no flag. */
  values?: Readonly<Record<string, { value: string; units?: string }>>;
  /** Mark the message or its order as QC, with every marker of the profile's (the sample is the control material). */
  qc?: boolean;
}

export interface GeneratedResult {
  code: string;
  name?: string;
  /** The value as the host should read it (decimal point). */
  value: string;
  units?: string;
  referenceRange?: string;
  flag?: 'N' | 'L' | 'H';
  unordered?: true;
}

/**
 * A result message for one sample, laid out so that toLabEvents with the same
 * profile files every R under this sample: the sample number where SampleIdRule
 * reads it, the code where TestIdRule reads it, the value where ResultsRule
 * reads it, and the completion time in the field ResultsRule names, in the
 * site zone.
 */
export function buildResults(profile: DialectProfile, input: ResultsInput): { text: string; results: GeneratedResult[] } {
  const flavour = flavourOf(profile);
  const opts: TimeOptions = { now: input.completedAt, timeZone: input.timeZone, ...(input.senderName === undefined ? {} : { senderName: input.senderName }) };
  const done = stamp(profile, opts);
  const codes = [...input.tests];
  if (input.unorderedTest !== undefined && !codes.includes(input.unorderedTest)) codes.push(input.unorderedTest);
  if (input.tests.length === 0) throw new Error(`no tests to report for sample ${input.sampleNumber}`);

  const p: PatientRecord = { type: 'P', sequence: '1' };
  const o: OrderRecord = { type: 'O', sequence: '1', ...structuredClone(flavour.resultOrder(input.tube)) };
  const rule = profile.sampleId;
  if (rule.record === 'P') p[rule.field] = placeSample(input.sampleNumber, rule.component, p[rule.field]);
  else o[rule.field] = placeSample(input.sampleNumber, rule.component, o[rule.field]);
  if (rule.record === 'O') echoPatient(p, profile.order, input.patient);

  o.universalTestId = input.tests.map((code) => flavour.orderTestId(code, input.testNames?.[code]));
  o.priority = input.priority === 'S' ? 'S' : 'R';
  // LIS2-A2 O-26 'F': final results.
  o.reportType = 'F';
  const when = profile.results.completedAt;
  if (when.record === 'O') o[when.field] = done;

  const results: GeneratedResult[] = [];
  const rs: ResultRecord[] = codes.map((code, i) => {
    const name = input.testNames?.[code];
    const given = input.values?.[code];
    const v: SimulatedValue = given === undefined ? simulateValue(input.seed, input.sampleNumber, code, name) : { value: given.value, ...(given.units === undefined ? {} : { units: given.units }) };
    // EUROIMMUN writes decimal commas; its profile turns them into points, so the analyzer sends commas.
    const text = profile.results.value.decimalComma === 'dot' ? v.value.replace('.', ',') : v.value;
    const r: ResultRecord = { type: 'R', sequence: String(i + 1), universalTestId: flavour.resultTestId(code, name ?? v.analyte?.code), value: flavour.value(text) };
    const generated: GeneratedResult = { code, value: v.value };
    if (name !== undefined) generated.name = name;
    if (v.units !== undefined) r.units = generated.units = v.units;
    if (v.low !== undefined && v.high !== undefined) {
      const range = flavour.range(v.low, v.high);
      if (range !== undefined) {
        r.referenceRange = range;
        generated.referenceRange = typeof range === 'string' ? range : repeatsOf(range)[0]?.join(flavour.delimiters.component);
      }
    }
    if (v.flag !== undefined) r.abnormalFlags = generated.flag = v.flag;
    // LIS2-A2 R-9 'F': final result.
    r.resultStatus = 'F';
    if (when.record === 'R') r[when.field] = done;
    if (flavour.instrumentId !== undefined) r.instrumentId = structuredClone(flavour.instrumentId);
    if (!input.tests.includes(code)) generated.unordered = true;
    results.push(generated);
    return r;
  });

  const h = header(flavour, 'results', profile, opts);
  if (input.qc === true) {
    if (profile.qc.length === 0) throw new Error(noQc(profile));
    markQc(profile.qc, h, o);
  }
  const text = encode(flavour, [h, p, o, ...rs, { type: 'L', sequence: '1', terminationCode: 'N' }]);
  return { text, results };
}

function noQc(profile: DialectProfile): string {
  return `dialect ${profile.id} has no QC marker (profile qc is empty): the host could not tell this analyzer's controls from patient samples`;
}

/**
 * Every QC marker of the profile, each at its component of its field, the
 * rest of the field kept (the cobas e 411's O-4 holds the rack before its
 * sample type). All of them, as the analyzers the profiles cite write both
 * kinds where they have both.
 */
function markQc(rules: readonly QcRule[], h: HeaderRecord, o: OrderRecord): void {
  for (const r of rules) {
    const mark = r.anyOf[0]!;
    if (r.record === 'H') h[r.field] = placeSample(mark, r.component, h[r.field]);
    else o[r.field] = placeSample(mark, r.component, o[r.field]);
  }
}

/**
 * A control run as the analyzer sends it: one message per level (the
 * level's material ID in the sample's place, the QC markers set), or, where
 * the profile reads QC values from an O field (Mindray CL and BS, manual
 * p.2-18), one QC message with an O record per test whose repeats are the
 * levels: id^name^lot^expiry^mean^level^SD^value.
 */
export function buildControlMessages(profile: DialectProfile, run: ControlRun, input: Omit<ResultsInput, 'sampleNumber' | 'tests' | 'values' | 'qc' | 'testNames' | 'patient' | 'priority' | 'unorderedTest'>): string[] {
  if (profile.qc.length === 0) throw new Error(noQc(profile));
  const rule = profile.qcInOrder;
  if (rule === undefined) {
    const materials = [...new Map(run.values.map((v) => [v.material.id, v.material])).values()];
    return materials.map((m) => {
      const mine = run.values.filter((v) => v.material.id === m.id);
      const values = Object.fromEntries(mine.map((v) => [v.test, { value: v.value, ...(v.units === undefined ? {} : { units: v.units }) }]));
      return buildResults(profile, { ...input, sampleNumber: m.id, tests: mine.map((v) => v.test), values, qc: true }).text;
    });
  }
  const flavour = flavourOf(profile);
  const opts: TimeOptions = { now: input.completedAt, timeZone: input.timeZone, ...(input.senderName === undefined ? {} : { senderName: input.senderName }) };
  const h = header(flavour, 'results', profile, opts);
  markQc(profile.qc, h, { type: 'O' });
  const tests = [...new Set(run.values.map((v) => v.test))];
  const width = Math.max(...Object.values(rule.components));
  const when = profile.results.completedAt;
  const orders: OrderRecord[] = tests.map((test, i) => {
    const o: OrderRecord = { type: 'O', sequence: String(i + 1), universalTestId: flavour.orderTestId(test, undefined), reportType: 'F' };
    o[rule.field] = run.values
      .filter((v) => v.test === test)
      .map((v) => {
        const c = new Array<string>(width).fill('');
        const set = (k: keyof typeof rule.components, text: string) => (c[rule.components[k] - 1] = text);
        set('id', v.material.id);
        set('name', v.material.name);
        set('lot', v.material.lot);
        set('expiry', v.material.expiry);
        set('mean', String(v.mean));
        set('level', v.material.level);
        set('sd', String(v.sd));
        set('value', v.value);
        return c;
      });
    if (when.record === 'O') o[when.field] = stamp(profile, opts);
    return o;
  });
  return [encode(flavour, [h, { type: 'P', sequence: '1' }, ...orders, { type: 'L', sequence: '1', terminationCode: 'N' }])];
}

/** The sample number at its component of a field, keeping what the flavour wrote in the others. */
function placeSample(sample: string, component: number, existing: AstmValue | undefined): AstmValue {
  const parts = repeatsOf(existing)[0] ?? [];
  const length = Math.max(parts.length, component);
  if (length === 1) return sample;
  const out = placed('', component, length).map((_, i) => parts[i] ?? '');
  out[component - 1] = sample;
  return out;
}

/** Analyzers report the patient they were given: ID and name where the download put them. */
function echoPatient(p: PatientRecord, layout: OrderLayout | undefined, patient: DownloadedPatient | undefined): void {
  if (layout === undefined || patient === undefined) return;
  const spec = layout.patient;
  if (spec.id !== undefined && patient.id !== undefined) p[spec.id] = patient.id;
  const name = patient.name === undefined ? undefined : nameField(patient.name, spec);
  if (name !== undefined) p.name = name;
  if (spec.sex === true && patient.sex !== undefined) p.sex = patient.sex;
}
