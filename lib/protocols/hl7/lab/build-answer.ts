/**
 * The host's messages, per answer form (lib/protocols/hl7/dialects/types.ts
 * Hl7AnswerRule): the answer to a query (found: the acknowledgement then the
 * order; not found) and the unsolicited order download. The text of several
 * messages is returned as one string, each starting with its MSH;
 * splitBuiltMessages() cuts it again (the builder escapes every CR inside values,
 * so a segment starting `MSH` is always a new message).
 */
import { buildHl7, rawHl7, type Hl7SegmentSpec } from '../build';
import type { Hl7DialectProfile, Hl7DisplayAnswer, Hl7LawAnswer } from '../dialects/types';
import type { LabOrder, QueriedSample } from '../../../lab/types';
import { nameComponents } from '../../../lab/patient-name';
import { hl7Timestamp } from './time';

export interface AnswerAt {
  now: Date;
  timeZone: string;
  /** The control ID this message gets (the host numbers its messages). */
  controlId: () => string;
}

export type OrderAt = AnswerAt & ({ queried: true; query: QueriedSample } | { queried: false });

/** Throws, naming what is missing, when an order cannot be written at all. */
function check(order: LabOrder): void {
  if (order.SampleNumber.trim() === '') throw new Error('the order has no SampleNumber');
  if (order.instrumentTests.length === 0) throw new Error(`the order for sample ${order.SampleNumber} names no instrument test (test-mapper gave none)`);
}

export function buildHl7Order(profile: Hl7DialectProfile, order: LabOrder, at: OrderAt): string {
  const answer = requireAnswer(profile);
  check(order);
  return answer.form === 'display' ? displayOrder(profile, answer, order, at) : lawOrder(profile, answer, order, at);
}

export function buildHl7NotFound(profile: Hl7DialectProfile, sampleNumber: string, at: AnswerAt & { query: QueriedSample }): string {
  const answer = requireAnswer(profile);
  return answer.form === 'display' ? buildHl7([...displayAck(profile, answer, 'QCK^Q02', at.query, 'NF', at)]) : buildHl7(lawResponse(profile, answer, at.query, 'NF', at));
}

/**
 * The messages in a text built here (buildHl7Order, buildHl7NotFound), each
 * with its type. Only for such text: it cuts at a CR followed by `MSH`, which
 * holds because the builder escapes every CR inside a value and ends each
 * segment with CR. Received text may end segments with LF or CR LF and is
 * read whole by parseHl7Bytes, one message per MLLP frame.
 */
export function splitBuiltMessages(text: string): { type: string; text: string }[] {
  const parts = text.split(/\r(?=MSH)/).map((t, i, all) => (i < all.length - 1 ? `${t}\r` : t));
  return parts.filter((t) => t !== '').map((t) => {
    const fields = t.slice(0, t.indexOf('\r') < 0 ? t.length : t.indexOf('\r')).split(t.charAt(3));
    const [code = '', event = ''] = (fields[8] ?? '').split(t.charAt(4));
    return { type: `${code}^${event}`, text: t };
  });
}

function requireAnswer(profile: Hl7DialectProfile) {
  if (profile.answer === undefined) throw new Error(`the ${profile.label} dialect documents no order download; orders cannot be sent to this analyzer`);
  return profile.answer;
}

function stamp(at: AnswerAt): string {
  return hl7Timestamp(at.now, at.timeZone);
}

/** LIS yyyymmdd (spec 2.3) as HL7's date/time of birth. */
function birth(order: LabOrder, withTime: boolean): string {
  const d = order.patient.DateOfBirth ?? '';
  return d === '' ? '' : withTime ? `${d}000000` : d;
}

// --- HL7 v2.3.1 display response (Mindray CL manual pages 1-8, 1-21 to 1-24, 1-29 to 1-31) ---

function displayMsh(profile: Hl7DialectProfile, a: Hl7DisplayAnswer, type: string, controlId: string, at: AnswerAt, acceptAck = ''): Hl7SegmentSpec {
  const [code, event] = type.split('^');
  return { name: 'MSH', fields: { 7: stamp(at), 9: [code, event], 10: controlId, 11: 'P', 12: profile.versions[0], 15: acceptAck, 18: a.charsetName, 21: '' } };
}

/** MSH MSA ERR QAK: the QCK^Q02 acknowledgement, and the head of a DSR^Q03. */
function displayAck(profile: Hl7DialectProfile, a: Hl7DisplayAnswer, type: string, query: QueriedSample | undefined, status: 'OK' | 'NF', at: AnswerAt, acceptAck = ''): Hl7SegmentSpec[] {
  // Manual p.1-29/1-30: the QCK and the DSR repeat the query's control ID in MSH-10 and MSA-2.
  const id = query?.answerContext?.controlId ?? at.controlId();
  return [
    displayMsh(profile, a, type, id, at, acceptAck),
    { name: 'MSA', fields: { 1: 'AA', 2: id, 3: 'Message accepted', 6: '0', 7: '' } },
    { name: 'ERR', fields: { 1: '0', 2: '' } },
    { name: 'QAK', fields: { 1: 'SR', 2: status, 3: '' } },
  ];
}

function displayOrder(profile: Hl7DialectProfile, a: Hl7DisplayAnswer, order: LabOrder, at: OrderAt): string {
  const query = at.queried ? at.query : undefined;
  const items: string[] = new Array<string>(a.items.tests - 1).fill('');
  const put = (n: number, v: string) => (items[n - 1] = v);
  put(a.items.patientId, order.patient.ID);
  put(a.items.name, order.patient.Name);
  put(a.items.birth, birth(order, true));
  put(a.items.sex, order.patient.Sex === 'U' ? 'O' : order.patient.Sex);
  put(a.items.sample, order.SampleNumber);
  put(a.items.stat, order.Priority === 'S' ? 'Y' : 'N');
  put(a.items.sampleType, a.sampleTypes?.[order.SampleType] ?? order.SampleType);
  const dsp: Hl7SegmentSpec[] = items.map((v, i) => ({ name: 'DSP', fields: { 1: String(i + 1), 3: v, 6: '' } }));
  order.instrumentTests.forEach((code, i) => {
    const comps = new Array<string>(a.testComponents).fill('');
    comps[0] = code;
    dsp.push({ name: 'DSP', fields: { 1: String(a.items.tests + i), 3: comps, 6: '' } });
  });
  const dsr = [
    ...displayAck(profile, a, 'DSR^Q03', query, 'OK', at, at.queried ? '' : a.unsolicitedAcceptAck),
    // p.1-21: QRD-1 time, R, D, QRD-4 the query ID, RD, QRD-8 empty (the bar code is in the DSP), OTH, T.
    { name: 'QRD', fields: { 1: stamp(at), 2: 'R', 3: 'D', 4: query?.answerContext?.queryId ?? '1', 7: 'RD', 8: '', 9: 'OTH', 12: 'T', 13: '' } },
    { name: 'QRF', fields: { 6: 'RCT', 7: 'COR', 8: 'ALL', 9: '', 10: '' } },
    ...dsp,
    // p.1-25: DSC-1 empty when answering one bar code.
    { name: 'DSC', fields: { 1: '', 2: '' } },
  ];
  const qck = query ? buildHl7(displayAck(profile, a, 'QCK^Q02', query, 'OK', at)) : '';
  return qck + buildHl7(dsr);
}

// --- IHE LAW: RSP^K11 (LAB-27) and OML^O33 (LAB-28) ---

function lawMsh(profile: Hl7DialectProfile, a: Hl7LawAnswer, type: string, structure: string, at: AnswerAt, query: QueriedSample | undefined, profileId: string): Hl7SegmentSpec {
  const [code, event] = type.split('^');
  const c = query?.answerContext ?? {};
  return {
    name: 'MSH',
    fields: { 3: rawHl7(c.receivingApplication || 'Host'), 4: rawHl7(c.receivingFacility ?? ''), 5: rawHl7(c.sendingApplication ?? ''), 6: rawHl7(c.sendingFacility ?? ''), 7: stamp(at), 9: [code, event, structure], 10: at.controlId(), 11: 'P', 12: profile.versions[0], 15: 'NE', 16: 'AL', 18: a.charsetName, 21: profileId.split('^') },
  };
}

function lawResponse(profile: Hl7DialectProfile, a: Hl7LawAnswer, query: QueriedSample, status: 'OK' | 'NF', at: AnswerAt): Hl7SegmentSpec[] {
  const c = query.answerContext ?? {};
  const queryName = (c.segment ?? '').split('|')[0] ?? '';
  return [
    lawMsh(profile, a, 'RSP^K11', 'RSP_K11', at, query, a.profiles.answer),
    { name: 'MSA', fields: { 1: 'AA', 2: c.controlId ?? '' } },
    { name: 'QAK', fields: { 1: c.tag ?? '', 2: status, 3: rawHl7(queryName) } },
    // The QPD repeated as the analyzer sent it.
    { name: 'QPD', fields: { 1: rawHl7(c.segment ?? '') } },
  ];
}

function lawOrder(profile: Hl7DialectProfile, a: Hl7LawAnswer, order: LabOrder, at: OrderAt): string {
  const query = at.queried ? at.query : undefined;
  const p = order.patient;
  const sample = a.specimenIdType ? [[order.SampleNumber, a.specimenIdType]] : order.SampleNumber;
  const oml: Hl7SegmentSpec[] = [
    lawMsh(profile, a, 'OML^O33', 'OML_O33', at, query, a.profiles.order),
    { name: 'PID', fields: { 1: '1', 3: p.ID, 5: nameComponents(p.Name, 2), 7: birth(order, false), 8: p.Sex } },
    { name: 'SPM', fields: { 1: '1', 2: sample, 4: a.sampleTypes?.[order.SampleType] ?? order.SampleType, 11: 'P' } },
    { name: 'SAC', fields: { 3: order.SampleNumber } },
  ];
  order.instrumentTests.forEach((code, i) => {
    oml.push({ name: 'ORC', fields: { 1: 'NW', 2: order.SampleNumber, 9: stamp(at) } });
    oml.push({ name: 'TQ1', fields: { 1: '1', 9: order.Priority === 'S' ? 'S' : 'R' } });
    oml.push({ name: 'OBR', fields: { 1: String(i + 1), 2: order.SampleNumber, 4: [code, '', a.testCodingSystem] } });
  });
  const head = query ? buildHl7(lawResponse(profile, a, query, 'OK', at)) : '';
  return head + buildHl7(oml);
}
