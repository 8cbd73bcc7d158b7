/**
 * BioSystems BA200 / BA400 chemistry analyzers, IHE LAW (HL7 v2.5.1).
 *
 * Captures biosystems-ba400-qbp-q11.txt (QBP^Q11 `WOS^Work Order Step^IHE_LABTF`,
 * QPD-3 `32971968`) and biosystems-ba200-oul-r22.txt (OUL^R22, SPM-2 `SI APA`,
 * one OBR per test with OBR-2 `""`, OBX-3.1 the test name, OBX-6.1 units,
 * OBX-8 `NONE`, OBX-19 the analysis time).
 */
import { HL7_IHE_LAW } from './ihe-law';
import type { Hl7DialectProfile } from './types';

export const HL7_BIOSYSTEMS: Hl7DialectProfile = {
  ...HL7_IHE_LAW,
  id: 'biosystems-ba',
  label: 'BioSystems BA200 / BA400 (HL7 2.5.1, IHE LAW)',
  vendor: 'BioSystems',
  model: 'BA200, BA400',
  versions: ['2.5.1'],
  // Captures MSH-18 `UNICODE UTF-8`.
  charset: 'utf8',
  // Captures MSH-15 ER, MSH-16 AL; the BA400 log shows the host's ACK^R22 (biosystems-ba400-ack-r22-host.txt).
};
