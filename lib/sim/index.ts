/**
 * The analyzer simulator: plays one analyzer of a chosen dialect against a
 * host, for integrators' rehearsals, the end-to-end tests and the benchmarks.
 */
export { AnalyzerSimulator, SimulatorError } from './simulator';
export { ControlModel, qcProblems, type ControlMaterial, type ControlRun, type ControlTarget, type ControlValue, type QcFaults, type QcOptions, type SentControlRun } from './qc';
export type * from './types';
export { analyteCodes, findAnalyte, simulateValue, type Analyte, type SimulatedValue } from './analytes';
export { buildControlMessages, buildQuery, buildResults, queryRange, readHostMessage, type DownloadedOrder, type DownloadedPatient, type GeneratedResult, type HostAnswer, type ResultsInput, type Tube } from './messages';
export { flavourOf, hasVendorFlavour, type AnalyzerFlavour } from './flavours';
export { misbehaviourProblems, type Misbehaviour } from './misbehaviour';
export { createTransport, MemoryTransport, SerialTransport, TcpClientTransport, TcpServerTransport, Transport, type SerialTransportOptions, type TransportSpec } from './transport';
export { Hl7AnalyzerSimulator } from './hl7/simulator';
export type * from './hl7/types';
export { buildHl7Ack, buildHl7ControlMessages, buildHl7Query, buildHl7Results, buildHl7Status, type AckInput, type Hl7ResultsInput, type Hl7WriteOptions } from './hl7/messages';
export { readHl7HostMessage, type Hl7DownloadedOrder, type Hl7HostMessage } from './hl7/read-host';
export { hl7MisbehaviourProblems, type Hl7Misbehaviour } from './hl7/misbehaviour';
export { FileExporter, fromTemplate, MALFORMED, type WriteOptions, type Written } from './file';
