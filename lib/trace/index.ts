/** Raw, optionally redacted trace of the bytes on an analyzer link (see frame-trace.ts for the file format). */
export { FrameTrace, traceText, type FrameTraceOptions } from './frame-trace';
export { initialUnitRedaction, initialRecordState, redactRecords, redactUnit, type UnitRedaction, type RecordState } from './redact';
export { readTraceLine, traceBytes, type TraceLine } from './trace-reader';
export { readTrace, lastLines, type TraceEntry } from './trace-read';
export { recentMessages } from './recent';
export { traceRange } from './trace-range';
export { type UnitFraming } from './wire-splitter';
