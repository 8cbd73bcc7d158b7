/**
 * Any analyzer sending results as ORU^R01 (HL7 v2.3.1 to v2.5.1) with the
 * standard's layout: the sample in SPM-2 (v2.5), else OBR-3 (the filler's,
 * i.e. the analyzer's, order number), else OBR-2; OBX per v2.5.1 7.4.2.
 * Results only: how an unknown analyzer takes orders is not known.
 */
import { STANDARD_OBX } from './common';
import type { Hl7DialectProfile } from './types';

export const HL7_GENERIC_ORU: Hl7DialectProfile = {
  id: 'generic-oru',
  label: 'Generic HL7 ORU^R01 (results only)',
  vendor: 'Generic',
  model: 'HL7 v2 ORU^R01',
  versions: ['2.3.1', '2.4', '2.5', '2.5.1'],
  charset: 'latin1',
  sampleId: { places: [{ segment: 'SPM', field: 2 }, { segment: 'OBR', field: 3 }, { segment: 'OBR', field: 2 }], trim: true },
  results: { ...STANDARD_OBX, messages: ['ORU^R01', 'OUL^R22'] },
  // HL7 table 0369 specimen role Q (control) in SPM-11.
  qc: [{ place: { segment: 'SPM', field: 11 }, anyOf: ['Q'] }],
  statusMessages: [],
  notAcknowledged: [],
  queryDeadlineMs: 10_000,
  acceptsUnsolicitedOrders: false,
  ackMode: 'original',
};
