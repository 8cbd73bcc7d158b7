/**
 * What an analyzer's message means to the lab, independent of its dialect.
 */

/** One sample an analyzer asked about. */
export interface QueriedSample {
  sampleNumber: string;
  /** Instrument test codes the analyzer asked for; [] = all tests. */
  instrumentTests: string[];
  /**
   * Every component of the Q-3 repeat the sample came from, as decoded. An
   * answer may have to repeat some of them (the cobas e 411 wants its rack and
   * position back in O-4).
   */
  range: string[];
  /** 1-based index of the Q record in the message. */
  record: number;
  /**
   * What the answer must repeat of the query, by name (HL7: the query's
   * MSH-10 control ID, QPD-2 tag, the QPD or QRD segment); ASTM needs none.
   */
  answerContext?: Readonly<Record<string, string>>;
}

/** Control material details, for QC results whose values come in an O field (Mindray CL). */
export interface ControlInfo {
  id?: string;
  name?: string;
  lot?: string;
  level?: string;
  expiry?: string;
  mean?: string;
  sd?: string;
}

/** One result, shaped for lib/mapping/to-lis.ts (SampleNumber, instrumentCode, instrumentSubCode, Result). */
export interface InstrumentResult {
  SampleNumber: string;
  instrumentCode: string;
  instrumentSubCode?: string;
  /** The value as text; changed only as the profile says (trim, one component, decimal comma). */
  Result: string;
  /** The field exactly as it was on the wire, present whenever Result differs from it. */
  rawResult?: string;
  units?: string;
  referenceRange?: string;
  /** R-7 abnormal flags, one per repeat. */
  flags?: string[];
  /** R-9 result status as sent, repeats joined by the repeat delimiter. */
  status?: string;
  /** The completion time as a UTC ISO instant, read in the analyzer's zone. */
  completedAt?: string;
  /** The completion time as the analyzer wrote it. */
  completedAtRaw?: string;
  /** Text of the C records right after this R record. */
  comments?: string[];
  /** Text of the C records right after the O record the result belongs to. */
  orderComments?: string[];
  /** Text of the C records right after the P record the result belongs to (Sysmex sends the ward note there). */
  patientComments?: string[];
  /** The first non-empty of P-3, P-4, P-5 of the patient record the result belongs to: for display, never used to place the result. */
  patientId?: string;
  /** The plate well a file's value was read from (`C4`), for display: a result is placed by its sample number only. */
  well?: string;
  control?: ControlInfo;
  /**
   * Observations that describe this result rather than being results
   * (HL7 IHE LAW S_RAW/S_OTHER: pipetting time, calibration ID, QC target),
   * in the order sent.
   */
  supplements?: Supplement[];
  /** Sequence numbers as sent (P-2, O-2, R-2; 0 when absent or not a number). */
  sequence: { patient: number; order: number; result: number };
  /** 1-based index of the R record (or of the O record for QC values carried in O) in the message. */
  record: number;
}

/** An observation attached to a result (HL7: a supplemental OBX), with where it was in the message. */
export interface Supplement {
  code: string;
  value: string;
  units?: string;
  /** The segment (or record) it was read from, e.g. `OBX`, and its 1-based index in the message. */
  segment: string;
  index: number;
}

/** The field a reason points at, so an operator (or the dialect preview) can find it in the message. */
export interface FieldAt {
  /** The record type and its 1-based index in the message. */
  record: 'P' | 'O' | 'R';
  index: number;
  /** The codec's (LIS2-A2) field name, e.g. `specimenId`. */
  field: string;
  /** How messages name it: `O-3 (specimenId)`. */
  label: string;
}

/** A result that could not be placed on a sample, or not read; never dropped silently. */
export interface UnassignedResult {
  record: number;
  reason: string;
  /**
   * Set when the dialect's own rule says the result is not for the LIS (a value it reads as no result, a row its
   * instrument marked not valid, a QC record): counted, not held. Any other unassigned result is held for a person
   * (lib/journal/holds), docs/reliability.md lists which is which.
   */
  notForLis?: true;
  /** The field that made it unassigned (the sample number's, or the test code's), when one did. */
  at?: FieldAt;
  /** The record as text, for the operator. */
  text: string;
  instrumentCode?: string;
  Result?: string;
  /** What the result would have carried, when the reader got that far (HL7: OBX-6, OBX-7, OBX-8). */
  units?: string;
  referenceRange?: string;
  flags?: string[];
  /** Text of the C records right after the R record. */
  comments?: string[];
}

export type LabEvent =
  | { type: 'query'; samples: QueriedSample[]; cancel: boolean; sender?: string }
  | { type: 'results'; qc: false; results: InstrumentResult[]; problems: string[]; sender?: string }
  /** QC results: kept apart, they never reach the LIS as patient results. */
  | { type: 'qc'; results: InstrumentResult[]; problems: string[]; sender?: string }
  /**
   * R records that belong to no sample: no O before them, an O without a
   * sample number, or a sample number the profile will not read without
   * guessing. The caller must report them; they are not results.
   */
  | { type: 'unassigned'; items: UnassignedResult[]; sender?: string }
  /** Anything else (an order sent by the analyzer, a bare H/L ...): passed through untouched; `kind` says what it is, `reason` in words. */
  | { type: 'other'; kind: OtherKind; reason: string; sender?: string };

/**
 * What an 'other' event is, for a flow to switch on (its reason says it in words).
 * - `unreadable-query`: a query naming no sample the LIS can be asked about (no sample, a range, a bad sample number)
 * - `unsupported-query`: a query the dialect reads no queries for (ASTM Q records)
 * - `unsupported-message`: a message type the dialect does not read (HL7)
 * - `status-message`: a message that only reports the analyzer's state (HL7 ESU^U01, INU^U05)
 * - `order-message`: order records without results, an order sent by the analyzer (ASTM)
 * - `empty-message`: no query, order or result in it (an ASTM keep-alive H/L, an HL7 ORU without OBX)
 * - `unreadable-record`: a record that could not be read at all (ASTM)
 */
export type OtherKind = 'unreadable-query' | 'unsupported-query' | 'unsupported-message' | 'status-message' | 'order-message' | 'empty-message' | 'unreadable-record';

export interface LabEventOptions {
  /** The site's IANA zone, used unless the profile names the analyzer's own. */
  timeZone: string;
}

/** The patient of an order, as the LIS gives it (lib/lis/schemas.ts PatientSchema). */
export interface LabPatient {
  ID: string;
  Name: string;
  Sex: 'M' | 'F' | 'U';
  DateOfBirth?: string | null;
  Age?: string | null;
  AgeUnit?: 'Y' | 'M' | 'D' | null;
}

/** An LIS order after the test-mapper: the LIS fields plus the instrument test codes to order. */
export interface LabOrder {
  SampleNumber: string;
  TransactionDate?: string | null;
  Priority?: 'S' | 'R' | null;
  SampleType: string;
  /** The LIS test IDs (not written to the analyzer; kept for the caller). */
  Tests?: string[];
  instrumentTests: string[];
  patient: LabPatient;
}
