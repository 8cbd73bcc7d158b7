/**
 * Typed read access to the segments labs use: each view names the fields a
 * lab message carries and reads them, decoded, on demand. A view is a table
 * from a name to an HL7 position, written as HL7 writes it, so the table is
 * also the documentation:
 *
 *   '5'      field 5, first repetition, first component, first subcomponent
 *   '3.2'    field 3, component 2
 *   '2.1.2'  field 2, component 1, subcomponent 2
 *   '8*'     field 8, component 1 of every repetition (a string array)
 *
 * Field meanings are HL7 v2.5.1's (chapters 2, 3, 4, 5, 7, 8, 13), and v2.3.1's
 * for QRD, QRF and DSP, which v2.5.1 keeps only for old queries (Mindray CL:
 * QRY^Q02). What a dialect reads where (the sample number in OBR-3 or SPM-2,
 * the test code in OBX-3.1 or OBX-4) is the dialect's business: the views only
 * name positions. Anything not named here is read with Hl7Segment.field().
 */
import type { Hl7Segment } from './message';

type Path = `${number}${'' | `.${number}` | `.${number}.${number}`}${'' | '*'}`;

type ViewOf<T extends Record<string, Path>> = { readonly [K in keyof T]: T[K] extends `${string}*` ? string[] : string } & { readonly segment: Hl7Segment };

function reader(path: Path): (s: Hl7Segment) => string | string[] {
  const all = path.endsWith('*');
  const [n = 0, comp = 1, sub = 1] = path.replace('*', '').split('.').map(Number);
  return all ? (s) => s.fieldAll(n, comp, sub) : (s) => s.field(n, 1, comp, sub);
}

/** A view maker for one segment type: `view(segment)` reads the named fields on demand. */
function defineView<T extends Record<string, Path>>(name: string, table: T): ((segment: Hl7Segment) => ViewOf<T>) & { readonly positions: Readonly<T> } {
  class View {
    constructor(readonly segment: Hl7Segment) {}
  }
  for (const [key, path] of Object.entries(table)) {
    const read = reader(path);
    Object.defineProperty(View.prototype, key, {
      get(this: View) {
        return read(this.segment);
      },
      enumerable: true,
    });
  }
  const make = (segment: Hl7Segment): ViewOf<T> => {
    if (segment.name !== name) throw new TypeError(`a ${name} view of a ${segment.name} segment (segment ${segment.index})`);
    return new View(segment) as unknown as ViewOf<T>;
  };
  return Object.assign(make, { positions: Object.freeze({ ...table }) });
}

/** MSH, the message header. */
export const msh = defineView('MSH', {
  fieldSeparator: '1',
  encodingCharacters: '2',
  sendingApplication: '3',
  sendingFacility: '4',
  receivingApplication: '5',
  receivingFacility: '6',
  dateTime: '7',
  messageCode: '9.1',
  triggerEvent: '9.2',
  messageStructure: '9.3',
  controlId: '10',
  processingId: '11',
  version: '12',
  /** AL, NE, ER, SU: whether the sender wants a commit ACK (enhanced mode). */
  acceptAckType: '15',
  /** AL, NE, ER, SU, or Mindray's 0/2 (result/QC) in a v2.3.1 message. */
  applicationAckType: '16',
  /** The first repetition: the message's character set. */
  charset: '18',
  messageProfile: '21',
});

/** PID, patient identification. */
export const pid = defineView('PID', {
  setId: '1',
  /** v2.3.1's external patient ID (Mindray CL sends the patient number here). */
  externalId: '2',
  patientId: '3',
  alternateId: '4',
  familyName: '5.1',
  givenName: '5.2',
  birthDate: '7',
  sex: '8',
});

/** PV1, patient visit. */
export const pv1 = defineView('PV1', { setId: '1', patientClass: '2', location: '3' });

/** ORC, common order. */
export const orc = defineView('ORC', { orderControl: '1', placerOrderNumber: '2', fillerOrderNumber: '3', orderStatus: '5', dateTime: '9' });

/** OBR, observation request. */
export const obr = defineView('OBR', {
  setId: '1',
  placerOrderNumber: '2',
  fillerOrderNumber: '3',
  serviceCode: '4.1',
  serviceText: '4.2',
  serviceSystem: '4.3',
  observationDateTime: '7',
  specimenReceived: '14',
  specimenSource: '15',
  resultsReported: '22',
  diagnosticSection: '24',
  resultStatus: '25',
});

/** OBX, one observation. */
export const obx = defineView('OBX', {
  setId: '1',
  valueType: '2',
  code: '3.1',
  text: '3.2',
  codingSystem: '3.3',
  alternateCode: '3.4',
  alternateText: '3.5',
  alternateCodingSystem: '3.6',
  subId: '4',
  /** The first component of the first repetition; values and OBX-5's components through Hl7Segment. */
  value: '5',
  values: '5*',
  units: '6.1',
  referenceRange: '7',
  /** OBX-8 repeats: BC-6200 sends `H~N`. */
  flags: '8*',
  resultStatus: '11',
  /** v2.3.1 and Mindray CL: the original result (OBX-13, user-defined access checks). */
  userDefinedChecks: '13',
  observationDateTime: '14',
  producerId: '15',
  responsibleObserver: '16',
  method: '17',
  equipment: '18*',
  analysisDateTime: '19',
});

/** SPM, specimen (v2.5). */
export const spm = defineView('SPM', {
  setId: '1',
  /** SPM-2.1: the specimen ID; LAW writes `140799&BARCODE`, the ID in its first subcomponent. */
  specimenId: '2.1.1',
  specimenIdType: '2.1.2',
  specimenType: '4.1',
  /** P patient, Q control (HL7 table 0369). */
  role: '11.1',
  collectionDateTime: '17',
  expirationDateTime: '21',
});

/** SAC, specimen container detail. */
export const sac = defineView('SAC', { containerId: '3', carrierId: '10', positionInCarrier: '11', volume: '21', volumeUnits: '24.1' });

/** NTE, notes and comments. */
export const nte = defineView('NTE', { setId: '1', source: '2', comment: '3', commentType: '4' });

/** QRD, original-mode query definition (v2.3.1; Mindray CL: the sample barcode in QRD-8). */
export const qrd = defineView('QRD', { dateTime: '1', format: '2', priority: '3', queryId: '4', quantityLimit: '7', whoSubject: '8', whatSubject: '9', whatDepartment: '10', resultsLevel: '12' });

/** QRF, original-mode query filter (v2.3.1). */
export const qrf = defineView('QRF', { whereSubject: '1', from: '2', to: '3', whatUserQualifier: '4', otherSubject: '5', whichDateTimeQualifier: '6', whichStatusQualifier: '7', dateSelectionQualifier: '8' });

/** QPD, query parameter definition (IHE LAW LAB-27: QPD-3 the specimen ID). */
export const qpd = defineView('QPD', { queryName: '1.1', queryTag: '2', specimenId: '3' });

/** RCP, response control parameter. */
export const rcp = defineView('RCP', { priority: '1', quantityLimit: '2.1', responseModality: '3.1' });

/** QAK, query acknowledgement (QAK-2: OK, NF, AE, AR). */
export const qak = defineView('QAK', { queryTag: '1', responseStatus: '2' });

/** MSA, message acknowledgement. */
export const msa = defineView('MSA', {
  /** AA, AE, AR (original mode); CA, CE, CR (enhanced mode commit). */
  ackCode: '1',
  controlId: '2',
  text: '3',
  /** v2.3.1 and Mindray CL: the error code (0, or 206 …). */
  errorCondition: '6',
});

/** ERR, error (v2.3.1 used ERR-1 alone; v2.5 ERR-3 the HL7 error code, ERR-4 severity, ERR-8 the user message). */
export const err = defineView('ERR', { codeAndLocation: '1', errorCode: '3.1', errorText: '3.2', severity: '4', userMessage: '8' });

/** TQ1, timing and quantity (TQ1-9: the priority, R routine, S stat). */
export const tq1 = defineView('TQ1', { setId: '1', priority: '9' });

/** INV, inventory detail (reagents, controls). */
export const inv = defineView('INV', { substanceId: '1.1', statuses: '2*', type: '3.1', expirationDate: '12', lotNumber: '16' });

/** DSP, display data (v2.3.1; Mindray CL's order download carries each order field in DSP-3). */
export const dsp = defineView('DSP', { setId: '1', data: '3' });
