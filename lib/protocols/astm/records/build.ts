/**
 * The decoder's record objects, one builder per record type, from the values
 * of fields 2 onwards (the H record's from field 3) in wire order. A property
 * is set exactly when the record had that field; values past the layout's
 * last field go to `extra`.
 *
 * Why a line per field instead of a loop over the names in fields.ts: V8
 * stores a property whose name is computed (`record[name] = value`) as a
 * keyed store, and an object that gets more than a dozen properties that way
 * is turned into a hash table ("dictionary mode"). A decoded O or P record has
 * up to 30 fields, so it became one: slow to build and slow to read for every
 * later step (the encoder, the dialect mapping). A store to a named property
 * (`record.specimenId = value`) keeps the object's fast layout, and
 * TypeScript checks each name against the record's interface.
 *
 * The order of the lines is the order of fields.ts; astm-records-paths.test.ts
 * decodes a record of each type with every field filled and compares the
 * properties, in order, with those lists.
 */
import type { Delimiters } from './delimiters';
import type { CommentRecord, HeaderRecord, OrderRecord, PatientRecord, QueryRecord, ResultRecord, TerminatorRecord } from './types';
import type { AstmValue } from './value';

/** H: `v` holds fields 3 on. */
export function headerRecord(delimiters: Delimiters, v: AstmValue[]): HeaderRecord {
  const r: HeaderRecord = { type: 'H', delimiters };
  const n = v.length;
  if (n > 0) r.messageControlId = v[0];
  if (n > 1) r.accessPassword = v[1];
  if (n > 2) r.senderId = v[2];
  if (n > 3) r.senderAddress = v[3];
  if (n > 4) r.reserved = v[4];
  if (n > 5) r.senderPhone = v[5];
  if (n > 6) r.characteristics = v[6];
  if (n > 7) r.receiverId = v[7];
  if (n > 8) r.comments = v[8];
  if (n > 9) r.processingId = v[9];
  if (n > 10) r.version = v[10];
  if (n > 11) r.timestamp = v[11];
  if (n > 12) r.extra = v.slice(12);
  return r;
}

export function patientRecord(v: AstmValue[]): PatientRecord {
  const r: PatientRecord = { type: 'P' };
  const n = v.length;
  if (n > 0) r.sequence = v[0];
  if (n > 1) r.practicePatientId = v[1];
  if (n > 2) r.laboratoryPatientId = v[2];
  if (n > 3) r.patientId3 = v[3];
  if (n > 4) r.name = v[4];
  if (n > 5) r.mothersMaidenName = v[5];
  if (n > 6) r.birthdate = v[6];
  if (n > 7) r.sex = v[7];
  if (n > 8) r.race = v[8];
  if (n > 9) r.address = v[9];
  if (n > 10) r.reserved = v[10];
  if (n > 11) r.phone = v[11];
  if (n > 12) r.attendingPhysicianId = v[12];
  if (n > 13) r.specialField1 = v[13];
  if (n > 14) r.specialField2 = v[14];
  if (n > 15) r.height = v[15];
  if (n > 16) r.weight = v[16];
  if (n > 17) r.diagnosis = v[17];
  if (n > 18) r.medications = v[18];
  if (n > 19) r.diet = v[19];
  if (n > 20) r.practiceField1 = v[20];
  if (n > 21) r.practiceField2 = v[21];
  if (n > 22) r.admissionDates = v[22];
  if (n > 23) r.admissionStatus = v[23];
  if (n > 24) r.location = v[24];
  if (n > 25) r.diagnosisCodeNature = v[25];
  if (n > 26) r.diagnosisCodes = v[26];
  if (n > 27) r.religion = v[27];
  if (n > 28) r.maritalStatus = v[28];
  if (n > 29) r.isolationStatus = v[29];
  if (n > 30) r.language = v[30];
  if (n > 31) r.hospitalService = v[31];
  if (n > 32) r.hospitalInstitution = v[32];
  if (n > 33) r.dosageCategory = v[33];
  if (n > 34) r.extra = v.slice(34);
  return r;
}

export function orderRecord(v: AstmValue[]): OrderRecord {
  const r: OrderRecord = { type: 'O' };
  const n = v.length;
  if (n > 0) r.sequence = v[0];
  if (n > 1) r.specimenId = v[1];
  if (n > 2) r.instrumentSpecimenId = v[2];
  if (n > 3) r.universalTestId = v[3];
  if (n > 4) r.priority = v[4];
  if (n > 5) r.requestedAt = v[5];
  if (n > 6) r.collectedAt = v[6];
  if (n > 7) r.collectionEndAt = v[7];
  if (n > 8) r.collectionVolume = v[8];
  if (n > 9) r.collectorId = v[9];
  if (n > 10) r.actionCode = v[10];
  if (n > 11) r.dangerCode = v[11];
  if (n > 12) r.clinicalInfo = v[12];
  if (n > 13) r.receivedAt = v[13];
  if (n > 14) r.specimenDescriptor = v[14];
  if (n > 15) r.orderingPhysician = v[15];
  if (n > 16) r.physicianPhone = v[16];
  if (n > 17) r.userField1 = v[17];
  if (n > 18) r.userField2 = v[18];
  if (n > 19) r.labField1 = v[19];
  if (n > 20) r.labField2 = v[20];
  if (n > 21) r.resultedAt = v[21];
  if (n > 22) r.charge = v[22];
  if (n > 23) r.instrumentSectionId = v[23];
  if (n > 24) r.reportType = v[24];
  if (n > 25) r.reserved = v[25];
  if (n > 26) r.locationWard = v[26];
  if (n > 27) r.nosocomialFlag = v[27];
  if (n > 28) r.specimenService = v[28];
  if (n > 29) r.specimenInstitution = v[29];
  if (n > 30) r.extra = v.slice(30);
  return r;
}

export function resultRecord(v: AstmValue[]): ResultRecord {
  const r: ResultRecord = { type: 'R' };
  const n = v.length;
  if (n > 0) r.sequence = v[0];
  if (n > 1) r.universalTestId = v[1];
  if (n > 2) r.value = v[2];
  if (n > 3) r.units = v[3];
  if (n > 4) r.referenceRange = v[4];
  if (n > 5) r.abnormalFlags = v[5];
  if (n > 6) r.abnormalityNature = v[6];
  if (n > 7) r.resultStatus = v[7];
  if (n > 8) r.normsChangedAt = v[8];
  if (n > 9) r.operatorId = v[9];
  if (n > 10) r.startedAt = v[10];
  if (n > 11) r.completedAt = v[11];
  if (n > 12) r.instrumentId = v[12];
  if (n > 13) r.extra = v.slice(13);
  return r;
}

export function commentRecord(v: AstmValue[]): CommentRecord {
  const r: CommentRecord = { type: 'C' };
  const n = v.length;
  if (n > 0) r.sequence = v[0];
  if (n > 1) r.source = v[1];
  if (n > 2) r.text = v[2];
  if (n > 3) r.commentType = v[3];
  if (n > 4) r.extra = v.slice(4);
  return r;
}

export function queryRecord(v: AstmValue[]): QueryRecord {
  const r: QueryRecord = { type: 'Q' };
  const n = v.length;
  if (n > 0) r.sequence = v[0];
  if (n > 1) r.startingRange = v[1];
  if (n > 2) r.endingRange = v[2];
  if (n > 3) r.universalTestId = v[3];
  if (n > 4) r.timeLimits = v[4];
  if (n > 5) r.beginAt = v[5];
  if (n > 6) r.endAt = v[6];
  if (n > 7) r.physicianName = v[7];
  if (n > 8) r.physicianPhone = v[8];
  if (n > 9) r.userField1 = v[9];
  if (n > 10) r.userField2 = v[10];
  if (n > 11) r.statusCode = v[11];
  if (n > 12) r.extra = v.slice(12);
  return r;
}

export function terminatorRecord(v: AstmValue[]): TerminatorRecord {
  const r: TerminatorRecord = { type: 'L' };
  const n = v.length;
  if (n > 0) r.sequence = v[0];
  if (n > 1) r.terminationCode = v[1];
  if (n > 2) r.extra = v.slice(2);
  return r;
}
