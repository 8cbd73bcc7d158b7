/** Raw, optionally redacted trace of the bytes on an analyzer link (see frame-trace.ts for the file format); the framing is the protocol's (framing.ts). */
export { FrameTrace, traceText, type FrameTraceOptions } from './frame-trace';
export { traceNaming, type TraceFraming, type TraceNaming, type UnitRedactor } from './framing';
export { readTraceLine, traceBytes, traceLineAt, type TraceLine } from './trace-reader';
export { readTrace, lastLines, piecesOf, type TraceEntry } from './trace-read';
export { recentMessages } from './recent';
export { traceRange } from './trace-range';
export { WireSplitter } from './wire-splitter';
