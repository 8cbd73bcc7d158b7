/**
 * Roche cobas analyzers speaking IHE LAW: the cobas 6800/8800 (HL7 v2.5) and
 * the cobas pro / cobas pure (HL7 v2.5.1, Roche's own status messages).
 * Both follow ./ihe-law.ts; only what differs is written here.
 */
import { HL7_IHE_LAW } from './ihe-law';
import type { Hl7DialectProfile } from './types';

/**
 * cobas 6800/8800. Captures roche-cobas6800-oul-r22-result.txt and
 * -sarscov2.txt: SPM-2 `BP23-04444` (no `&BARCODE`), OBX-3.1 the target
 * (`HIV`, `TGT1`) or the LOINC order code with OBX-4 telling the result rows
 * apart (`1/1`, `1/2`), OBX-8 the interpretation (`BT`, `NEG`, `RR`),
 * S_OTHER supplemental CT values. No query capture exists; the query and
 * order layout are IHE LAW's.
 */
export const HL7_ROCHE_COBAS_6800: Hl7DialectProfile = {
  ...HL7_IHE_LAW,
  id: 'roche-cobas-6800',
  label: 'Roche cobas 6800/8800 (HL7 2.5, IHE LAW)',
  vendor: 'Roche',
  model: 'cobas 6800, cobas 8800',
  // Captures: MSH-12 2.5, MSH-18 ASCII.
  versions: ['2.5'],
  charset: 'ascii',
  results: { ...HL7_IHE_LAW.results, subCode: { segment: 'OBX', field: 4 } },
  answer: { ...(HL7_IHE_LAW.answer as Extract<Hl7DialectProfile['answer'], { form: 'law' }>), testCodingSystem: '99ROC', charsetName: 'ASCII' },
};

/**
 * cobas pro (c 503, e 801) and cobas pure (c 303). Captures
 * roche-cobaspro-*.txt and roche-cobaspure-*.txt: SPM-2 `022&BARCODE`,
 * OBX-3.1 the assay number (`20490^20490^99ROC^^^IHELAW`), each assay's value
 * followed by a CE OBX with its interpretation (`^^99ROC`) and S_OTHER/S_RAW
 * supplements; QC with SPM-11 `Q`; ESU^U01 and INU^U05 status messages
 * acknowledged by the host (session logs); QBP^Q11 with QPD-1 INIBAR (by
 * bar code) or INISEQ (by sequence), QPD-3 the number.
 */
export const HL7_ROCHE_COBAS_PRO: Hl7DialectProfile = {
  ...HL7_IHE_LAW,
  id: 'roche-cobas-pro',
  label: 'Roche cobas pro / cobas pure (HL7 2.5.1, IHE LAW)',
  vendor: 'Roche',
  model: 'cobas pro, cobas pure',
  versions: ['2.5.1'],
  charset: 'utf8',
  results: {
    ...HL7_IHE_LAW.results,
    // The CE OBX after each value interprets it (roche-cobaspro-oul-r22-manual.txt OBX-2).
    supplemental: [...HL7_IHE_LAW.results.supplemental, { place: { segment: 'OBX', field: 2 }, anyOf: ['CE'] }],
  },
  // Session logs: ESU^U01 (equipment status) and INU^U05 (inventory), each answered with an ACK.
  statusMessages: ['ESU^U01', 'INU^U05'],
  answer: { ...(HL7_IHE_LAW.answer as Extract<Hl7DialectProfile['answer'], { form: 'law' }>), testCodingSystem: '99ROC' },
};
