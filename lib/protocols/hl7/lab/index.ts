/** HL7 messages <-> lab events (docs/architecture.md, "HL7 v2"). */
export type { EncapsulatedItem, Hl7LabEvent } from './types';
export { hl7LabEventsOf, messageType, parseForProfile } from './to-lab-events';
export { buildHl7NotFound, buildHl7Order, splitBuiltMessages, type AnswerAt, type OrderAt } from './build-answer';
export { hl7Instant } from './time';
