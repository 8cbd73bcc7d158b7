/** The result journal: every received message stored before it is taken, delivered once, held when it cannot go. What nodes/ uses of it. */
export { type AppendObserver } from './append-log';
export { type CorrectionInfo } from './entries';
export { type HandedRecord, type HandedValue } from './handed-values';
export { ResultDelivery } from './delivery';
export { batchOrigin, contextOf, heldDue, heldSummary, journalOrigin } from './held';
export { HOLD_BATCH_PREFIX, type HeldResult, type HoldAction, holdEntryFor, holdsFor, type HoldRecord, type NewHold } from './holds';
export { type BatchRecord, type Ending, isSettled, type MessageRecord, type MessageSource, NOT_UNDERSTOOD, owedSamples, type ResultJournal } from './journal';
export { LinkStore, type PassedOn } from './link-store';
export { journalAt, openedJournal } from './registry';
export { resultKey } from './result-key';
