/**
 * What a message from the host means to the HL7 analyzer: an acknowledgement
 * of one of its own messages, the answer to a query (QCK^Q02, RSP^K11: found
 * or not found), an order (DSR^Q03, OML^O33), or something it does not take.
 * The mirror image of lib/protocols/hl7/lab/build-answer.ts, read with the same profile.
 */
import type { Hl7DialectProfile, Hl7DisplayAnswer, Hl7LawAnswer } from '../../protocols/hl7/dialects';
import { parseHl7Bytes, type Hl7Message } from '../../protocols/hl7/message';

export interface Hl7DownloadedOrder {
  sampleNumber: string;
  /** Instrument test codes, in download order. */
  tests: string[];
  priority?: 'S' | 'R';
  /** The LIS sample type, mapped back through the profile's table. */
  sampleType?: string;
  patient?: { id?: string; name?: string; dateOfBirth?: string; sex?: string };
  /** Sent unasked (Mindray MSH-15 `P`; an OML^O33 that answers no query). */
  unsolicited: boolean;
  /** MSH-9 and MSH-10 of the message that carried it. */
  messageType: string;
  controlId: string;
  problems: string[];
}

export type Hl7HostMessage =
  | { kind: 'ack'; code: string; acknowledges: string; text: string }
  /** QCK^Q02 / RSP^K11: QAK-2 OK (an order follows) or NF; `acknowledges` is the query's control ID (MSA-2). */
  | { kind: 'queryAnswer'; status: string; acknowledges: string; tag: string }
  | { kind: 'order'; order: Hl7DownloadedOrder }
  /** IHE LAW LAB-27 (assertion LAB27-004): "no work for that specimen" as an OML^O33 whose ORC-1 is DC. */
  | { kind: 'noWork'; sampleNumber: string }
  | { kind: 'other'; reason: string };

export interface ReadHostMessage {
  message?: Hl7Message;
  type: string;
  controlId: string;
  sender: string;
  meaning: Hl7HostMessage;
}

export function readHl7HostMessage(bytes: Buffer, profile: Hl7DialectProfile): ReadHostMessage {
  let message: Hl7Message;
  try {
    message = parseHl7Bytes(bytes, { charset: profile.charset });
  } catch (err) {
    return { type: '', controlId: '', sender: '', meaning: { kind: 'other', reason: `not an HL7 message: ${(err as Error).message}` } };
  }
  const m = message.msh;
  const type = `${m.field(9)}^${m.field(9, 1, 2)}`;
  const base = { message, type, controlId: m.field(10), sender: m.rawField(3) };
  const msa = message.segment('MSA');
  if (m.field(9) === 'ACK') {
    const err = message.segment('ERR');
    const text = msa?.field(3) || err?.field(8) || err?.field(3, 1, 2) || '';
    return { ...base, meaning: { kind: 'ack', code: msa?.field(1) ?? '', acknowledges: msa?.field(2) ?? '', text } };
  }
  const answer = profile.answer;
  if (type === 'QCK^Q02' || type === 'RSP^K11') {
    const qak = message.segment('QAK');
    return { ...base, meaning: { kind: 'queryAnswer', status: qak?.field(2) ?? '', acknowledges: msa?.field(2) ?? '', tag: qak?.field(1) ?? '' } };
  }
  if (type === 'DSR^Q03' && answer?.form === 'display') return { ...base, meaning: { kind: 'order', order: displayOrder(message, answer, type) } };
  if (type === 'OML^O33' && answer?.form === 'law') {
    const orcs = message.all('ORC');
    if (orcs.length > 0 && orcs.every((o) => o.field(1) === 'DC')) return { ...base, meaning: { kind: 'noWork', sampleNumber: message.segment('SPM')?.field(2, 1, 1, 1) || message.segment('SAC')?.field(3) || '' } };
    return { ...base, meaning: { kind: 'order', order: lawOrder(message, answer, type) } };
  }
  return { ...base, meaning: { kind: 'other', reason: `${type} is not a message the ${profile.id} analyzer takes from the host` } };
}

function backFrom(table: Readonly<Record<string, string>> | undefined, written: string): string {
  const hit = Object.entries(table ?? {}).find(([, v]) => v === written);
  return hit?.[0] ?? written;
}

/** DSR^Q03 (Mindray CL p.1-23/1-24): DSP-1 the item number, DSP-3 its value. */
function displayOrder(message: Hl7Message, a: Hl7DisplayAnswer, type: string): Hl7DownloadedOrder {
  const items = new Map<number, string>();
  for (const d of message.all('DSP')) items.set(Number(d.field(1)), d.field(3));
  const item = (n: number) => items.get(n) ?? '';
  const tests = [...items.entries()].filter(([n, v]) => n >= a.items.tests && v !== '').sort(([x], [y]) => x - y).map(([, v]) => v);
  const problems: string[] = [];
  const sample = item(a.items.sample);
  if (sample === '') problems.push(`DSP ${a.items.sample} (the bar code) is empty`);
  if (tests.length === 0) problems.push(`no test from DSP ${a.items.tests} on`);
  const birth = item(a.items.birth);
  const patient: Hl7DownloadedOrder['patient'] = {};
  if (item(a.items.patientId) !== '') patient.id = item(a.items.patientId);
  if (item(a.items.name) !== '') patient.name = item(a.items.name);
  if (birth !== '') patient.dateOfBirth = birth.slice(0, 8);
  if (item(a.items.sex) !== '') patient.sex = item(a.items.sex);
  const order: Hl7DownloadedOrder = {
    sampleNumber: sample,
    tests,
    priority: item(a.items.stat) === 'Y' ? 'S' : 'R',
    patient,
    unsolicited: message.msh.field(15) === a.unsolicitedAcceptAck,
    messageType: type,
    controlId: message.msh.field(10),
    problems,
  };
  if (item(a.items.sampleType) !== '') order.sampleType = backFrom(a.sampleTypes, item(a.items.sampleType));
  return order;
}

/** OML^O33 (IHE LAW LAB-28): SPM-2.1 the specimen, OBR-4.1 each test, TQ1-9 the priority, PID-3/5/7/8 the patient. */
function lawOrder(message: Hl7Message, a: Hl7LawAnswer, type: string): Hl7DownloadedOrder {
  const spm = message.segment('SPM');
  const pid = message.segment('PID');
  const sample = spm?.field(2, 1, 1, 1) || message.segment('SAC')?.field(3) || '';
  const tests = message.all('OBR').map((o) => o.field(4)).filter((c) => c !== '');
  const problems: string[] = [];
  if (sample === '') problems.push('SPM-2 (the specimen ID) is empty');
  if (tests.length === 0) problems.push('no OBR-4 test code');
  const patient: Hl7DownloadedOrder['patient'] = {};
  if (pid?.field(3)) patient.id = pid.field(3);
  const [family = '', given = ''] = pid?.components(5) ?? [];
  if (family !== '') patient.name = given === '' ? family : `${family}, ${given}`;
  if (pid?.field(7)) patient.dateOfBirth = pid.field(7).slice(0, 8);
  if (pid?.field(8)) patient.sex = pid.field(8);
  const order: Hl7DownloadedOrder = {
    sampleNumber: sample,
    tests,
    priority: message.segment('TQ1')?.field(9) === 'S' ? 'S' : 'R',
    patient,
    // An answer to a query comes right after its RSP^K11; the simulator decides (it knows its queries).
    unsolicited: false,
    messageType: type,
    controlId: message.msh.field(10),
    problems,
  };
  if (spm?.field(4)) order.sampleType = backFrom(a.sampleTypes, spm.field(4));
  return order;
}
