/**
 * Field names of the LIS2-A2 (E1394) records, in wire order. Each list starts
 * at field 2 (field 1 is the record type), except the header's, which starts at
 * field 3 because field 2 holds the delimiters themselves.
 *
 * Section numbers are LIS2-A2's. The order was checked against the public
 * LIS2-A2 field lists (go-astm's lis02a2 format, SwatInc's record classes) and
 * against the fixtures; the names are the standard's field names in camelCase.
 */

/** H, fields 3-14 (section 6). */
export const HEADER_FIELDS = [
  'messageControlId', // 3
  'accessPassword', // 4
  'senderId', // 5: vendors put model^version^serial here
  'senderAddress', // 6
  'reserved', // 7
  'senderPhone', // 8
  'characteristics', // 9
  'receiverId', // 10
  'comments', // 11: Roche puts RSUPL^REAL / TSREQ^REAL here
  'processingId', // 12: P production, T training, D debugging, Q QC (Mindray: message type)
  'version', // 13
  'timestamp', // 14
] as const;

/** P, fields 2-35 (section 7). */
export const PATIENT_FIELDS = [
  'sequence', // 2
  'practicePatientId', // 3
  'laboratoryPatientId', // 4
  'patientId3', // 5
  'name', // 6: last^first^middle^suffix^title
  'mothersMaidenName', // 7
  'birthdate', // 8
  'sex', // 9
  'race', // 10
  'address', // 11
  'reserved', // 12
  'phone', // 13
  'attendingPhysicianId', // 14
  'specialField1', // 15
  'specialField2', // 16
  'height', // 17
  'weight', // 18
  'diagnosis', // 19
  'medications', // 20
  'diet', // 21
  'practiceField1', // 22
  'practiceField2', // 23
  'admissionDates', // 24
  'admissionStatus', // 25
  'location', // 26
  'diagnosisCodeNature', // 27
  'diagnosisCodes', // 28
  'religion', // 29
  'maritalStatus', // 30
  'isolationStatus', // 31
  'language', // 32
  'hospitalService', // 33
  'hospitalInstitution', // 34
  'dosageCategory', // 35
] as const;

/** O, fields 2-31 (section 8.4). */
export const ORDER_FIELDS = [
  'sequence', // 2
  'specimenId', // 3: the LIS's specimen ID
  'instrumentSpecimenId', // 4: the analyzer's (Sysmex puts the sample number here)
  'universalTestId', // 5: repeats of ^^^code
  'priority', // 6: S stat, A ASAP, R routine, C callback, P pre-op
  'requestedAt', // 7
  'collectedAt', // 8
  'collectionEndAt', // 9
  'collectionVolume', // 10
  'collectorId', // 11
  'actionCode', // 12: C cancel, A add, N new, P pending, L reserved, X in process, Q QC
  'dangerCode', // 13
  'clinicalInfo', // 14
  'receivedAt', // 15
  'specimenDescriptor', // 16: type^source
  'orderingPhysician', // 17
  'physicianPhone', // 18
  'userField1', // 19
  'userField2', // 20
  'labField1', // 21
  'labField2', // 22
  'resultedAt', // 23
  'charge', // 24
  'instrumentSectionId', // 25
  'reportType', // 26: O order, C correction, P preliminary, F final, X cannot, I pending, Y no order, Z no record, Q query response
  'reserved', // 27
  'locationWard', // 28
  'nosocomialFlag', // 29
  'specimenService', // 30
  'specimenInstitution', // 31
] as const;

/** R, fields 2-14 (section 9). */
export const RESULT_FIELDS = [
  'sequence', // 2
  'universalTestId', // 3
  'value', // 4
  'units', // 5
  'referenceRange', // 6
  'abnormalFlags', // 7: L H LL HH < > N A U D B W
  'abnormalityNature', // 8
  'resultStatus', // 9: C P F X I S M R N Q V W
  'normsChangedAt', // 10
  'operatorId', // 11: performed^verified
  'startedAt', // 12
  'completedAt', // 13
  'instrumentId', // 14
] as const;

/**
 * C, fields 2-5 (section 10). The standard's "comment type" is `commentType`
 * because `type` is the record type on every record object.
 */
export const COMMENT_FIELDS = [
  'sequence', // 2
  'source', // 3: I instrument, L LIS, P practice
  'text', // 4
  'commentType', // 5: G generic, I instrument flag ...
] as const;

/** Q, fields 2-13 (section 11). */
export const QUERY_FIELDS = [
  'sequence', // 2
  'startingRange', // 3: patientId^specimenId^... (vendors differ on the component)
  'endingRange', // 4
  'universalTestId', // 5: ALL or ^^^code
  'timeLimits', // 6
  'beginAt', // 7
  'endAt', // 8
  'physicianName', // 9
  'physicianPhone', // 10
  'userField1', // 11
  'userField2', // 12
  'statusCode', // 13: O request orders, A cancel last request ...
] as const;

/** L, fields 2-3 (section 12). */
export const TERMINATOR_FIELDS = [
  'sequence', // 2
  'terminationCode', // 3: N normal, T sender abort, R receiver abort, E error, Q query error, I no information, F query done
] as const;

/** M (manufacturer) and S (scientific) have a sequence and then their own fields. */
export const FREE_FIELDS = ['sequence'] as const;
