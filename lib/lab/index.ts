/**
 * The lab model every protocol reads into and writes from: lab events (query,
 * results, QC, unassigned, other), orders and their patients, queried
 * samples, wall-clock timestamps read in the analyzer's zone, and the patient
 * name's components. Plain TypeScript, no I/O, no protocol.
 */
export { nameComponents } from './patient-name';
export { AstmTimestampError, formatAstmTimestamp, isKnownTimeZone, parseAstmDate, parseAstmTimestamp, type Disambiguation, type ParseTimestampOptions } from './timestamp';
export type * from './types';
