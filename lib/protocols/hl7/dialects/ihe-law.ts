/**
 * IHE Laboratory Analytical Workflow (LAW), HL7 v2.5.1: the analyzer queries
 * with QBP^Q11 (LAB-27, QPD-3 the specimen ID), the host answers RSP^K11
 * (QAK-2 OK or NF) and sends the work order as OML^O33 (LAB-28); results
 * come as OUL^R22 (LAB-29) with the specimen in SPM-2 (`140799&BARCODE`: the
 * ID in the first subcomponent).
 *
 * Source: IHE Laboratory Technical Framework, LAW profile (TF-2, LAB-27,
 * LAB-28, LAB-29); captures roche-cobaspro-*.txt, roche-cobaspure-*.txt,
 * biosystems-*.txt (test/fixtures/SOURCES.md).
 */
import { LAW_QC, LAW_SUPPLEMENTAL, STANDARD_OBX } from './common';
import type { Hl7DialectProfile } from './types';

export const HL7_IHE_LAW: Hl7DialectProfile = {
  id: 'ihe-law',
  label: 'IHE LAW analyzer (HL7 2.5.1)',
  vendor: 'IHE LAW',
  model: 'any LAW analyzer',
  versions: ['2.5.1', '2.5'],
  charset: 'utf8',
  // LAB-29 SPM-2.1 the specimen ID (its first subcomponent, before `&BARCODE`);
  // SAC-3 the container ID when SPM-2 is empty.
  sampleId: { places: [{ segment: 'SPM', field: 2 }, { segment: 'SAC', field: 3 }], trim: true },
  results: { ...STANDARD_OBX, messages: ['OUL^R22'], supplemental: LAW_SUPPLEMENTAL },
  qc: LAW_QC,
  statusMessages: [],
  // LAB-27: QPD-3 the specimen ID, QPD-2 the query tag echoed in QAK-1.
  query: { messages: ['QBP^Q11'], sample: { segment: 'QPD', field: 3 }, tag: { segment: 'QPD', field: 2 } },
  answer: {
    form: 'law',
    profiles: { answer: 'LAB-27^IHE', order: 'LAB-28^IHE' },
    testCodingSystem: '99LAB',
    specimenIdType: 'BARCODE',
    charsetName: 'UNICODE UTF-8',
  },
  // RSP^K11 is itself the application response to the query.
  notAcknowledged: ['RSP^K11'],
  queryDeadlineMs: 10_000,
  // LAB-28 is also the host's unsolicited work order broadcast.
  acceptsUnsolicitedOrders: true,
  // LAW messages state MSH-15/16 (captures: NE / AL, or ER / AL).
  ackMode: 'enhanced',
};
