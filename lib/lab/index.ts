/**
 * The lab model every protocol reads into and writes from: lab events (query,
 * results, QC, unassigned, other), orders and their patients, queried
 * samples, wall-clock timestamps read in the analyzer's zone, and the patient
 * name's components. Plain TypeScript, no I/O, no protocol.
 */
export { nameComponents } from './patient-name';
export { AstmTimestampError, formatAstmTimestamp, isKnownTimeZone, parseAstmDate, parseAstmTimestamp, type Disambiguation, type ParseTimestampOptions } from './timestamp';
export type * from './types';
export { CAPTURE_LIMITS, POINT_ROLES, changedResults, isPointRole, type Capture, type CaptureLine, type CaptureToken, type ComparedResult, type PointChoice, type PointRole } from './capture';
