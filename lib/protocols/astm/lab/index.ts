/**
 * Lab-level translation of ASTM messages: analyzer messages -> lab events
 * (queries, results, QC), LIS orders -> order downloads, and the bookkeeping
 * that decides whether an order may still be sent. Plain TypeScript, no I/O.
 */
export { buildNoInformation, buildOrderMessage, type BuildOptions } from './build-order';
export { LabOrderError } from './errors';
export { nameComponents } from '../../../lab/patient-name';
export { QueryBook, type QueryBookOptions, type QueryDecision } from '../../../conversation/query-book';
export { AnswerOrder } from '../../../conversation/answer-order';
export { toLabEvents } from './to-lab-events';
export { labEventsOf } from './read-message';
export type * from '../../../lab/types';
