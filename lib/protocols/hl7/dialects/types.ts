/**
 * An HL7 dialect profile: what differs between HL7 analyzers, written down as
 * data, as lib/protocols/astm/dialects does for ASTM. lib/protocols/hl7/lab reads a profile and
 * never branches on an analyzer's name; the host's messages come in two
 * structures (v2.3.1 display response, IHE LAW), chosen by `answer.form`.
 *
 * Positions are HL7's, 1-based: `{ segment: 'OBR', field: 3 }` is OBR-3,
 * component and subcomponent default to 1.
 */
import type { Hl7Charset } from '../charset';

/** One value in a segment: SEG-field[.component[.subcomponent]]. */
export interface Hl7Place {
  readonly segment: string;
  readonly field: number;
  readonly component?: number;
  readonly subcomponent?: number;
}

/**
 * How an OBX field becomes text: one component (default 1) or the whole
 * field, its components joined by `join` (the URIT UT-5160 writes units
 * `10^9/L` with an unescaped `^`; EDAN writes a range as `low^high`).
 */
export interface Hl7FieldReading {
  readonly field: number;
  readonly component?: number | 'all';
  /** With component 'all': the text between components (default `^`); empty components at the end are left out. */
  readonly join?: string;
}

/** A marker: the message (MSH, EQU …) or the group a result belongs to (SPM, OBR) has one of `anyOf` at `place`. */
export interface Hl7Match {
  readonly place: Hl7Place;
  readonly anyOf: readonly string[];
}

/** Where a message names the samples of its results. */
export interface Hl7SampleIdRule {
  /**
   * Tried in order, each read from the last such segment before the OBX; the
   * first that is not empty (nor HL7's null `""`) is the sample number.
   */
  readonly places: readonly Hl7Place[];
  readonly trim: boolean;
}

export interface Hl7ResultsRule {
  /** Message types (MSH-9.1^MSH-9.2) that carry results. */
  readonly messages: readonly string[];
  readonly code: Hl7Place & { readonly segment: 'OBX' };
  /**
   * Where else the test code may be, tried in order when `code` holds none
   * (OBX-3.2 after OBX-3.1), as sampleId.places are. A result whose code is
   * in none of them is unassigned, naming them: never sent without a code.
   */
  readonly codeFallbacks?: readonly (Hl7Place & { readonly segment: 'OBX' })[];
  /**
   * Pass over a code place that holds only digits when a later place holds a
   * name: the URIT-8030 writes a channel number in OBX-3 (`1`) and the test
   * in OBX-4 (`GLI`), the EDAN i15 measured/calculated (`0`/`1`) in OBX-3 and
   * the analyte in OBX-4 (`pH`). With every place a number (or empty), the
   * first number is the code, as without this setting.
   */
  readonly codeSkipsNumbers?: boolean;
  /** A second part that tells results of one test apart (OBX-4 sub-ID on the cobas 6800); becomes instrumentSubCode. */
  readonly subCode?: Hl7Place & { readonly segment: 'OBX' };
  readonly value: Hl7FieldReading;
  /** `{ field: 6, component: 'all' }` reads units written with an unescaped `^` whole (`10^9/L`, URIT UT-5160, Analyx Panca). */
  readonly units?: Hl7FieldReading;
  readonly referenceRange?: Hl7FieldReading;
  /** Component of each OBX-8 repetition that is the flag. */
  readonly flagsField?: number;
  readonly statusField?: number;
  /** OBX fields holding the completion time, first non-empty wins (OBX-14 v2.3.1, OBX-19 v2.5). */
  readonly completedAt: readonly number[];
  /** Remove leading and trailing spaces from code, value, units and range (Mindray CL pads units: ` umol/L `). */
  readonly trim: boolean;
  /**
   * OBX-2 value types that are not results for the LIS (ED: encapsulated
   * histograms and images): counted and kept aside, never sent as results.
   */
  readonly asideValueTypes: readonly string[];
  /**
   * OBX that describe the result before them (Roche's `S_OTHER`/`S_RAW`
   * supplemental observations: pipetting time, calibration, QC target; the
   * CE interpretation beside a numeric value): attached to it as supplements.
   */
  readonly supplemental: readonly Hl7Match[];
  /** Where the patient ID is, for display only. */
  readonly patientId?: readonly Hl7Place[];
}

/** QC results sent in the OBR itself, without OBX (Mindray CL, MSH-16 = 2): OBR field numbers. */
export interface Hl7QcInRequest {
  readonly code: number;
  readonly value: number;
  readonly units: number;
  readonly completedAt: number;
  readonly control: { readonly id: number; readonly name: number; readonly lot: number; readonly expiry: number; readonly level: number; readonly mean: number; readonly sd: number };
}

/**
 * A host query: its message types and where it names the sample. The types
 * a dialect may read: QRY^Q02 (Mindray CL, QRD-8), QBP^Q11 (IHE LAW,
 * QPD-3), ORM^O01 as hematology analyzers send it to ask for their
 * worklist (`ORC|RF|C1|wbl2506100001||IP`: ORC-3 the sample).
 */
export interface Hl7QueryRule {
  readonly messages: readonly string[];
  readonly sample: Hl7Place;
  /**
   * Where else the sample may be, tried in order when the message has no
   * `sample` segment or it holds no value: one dialect reading QRY^Q02
   * (QRD-8) and ORM^O01 (ORC-3).
   */
  readonly sampleFallbacks?: readonly Hl7Place[];
  /** Where the query's tag is, echoed in the answer (QPD-2 for LAW), if anywhere. */
  readonly tag?: Hl7Place;
}

/**
 * How the host answers and downloads orders:
 * - `display`: HL7 v2.3.1 original mode (Mindray CL): QCK^Q02 (QAK OK/NF),
 *   then the order as DSR^Q03 with one DSP segment per order item.
 * - `law`: IHE LAW (LAB-27/28): RSP^K11 (QAK OK/NF, the QPD echoed), then the
 *   order as OML^O33.
 */
export type Hl7AnswerRule = Hl7DisplayAnswer | Hl7LawAnswer;

export interface Hl7DisplayAnswer {
  readonly form: 'display';
  /** The DSP item (1-based) of each order value; tests start at `tests` and take one DSP each. */
  readonly items: { readonly patientId: number; readonly name: number; readonly birth: number; readonly sex: number; readonly sample: number; readonly stat: number; readonly sampleType: number; readonly tests: number };
  /** The text of DSP items for the LIS SampleType (absent: the LIS name as it is). */
  readonly sampleTypes?: Readonly<Record<string, string>>;
  /** MSH-15 of an unsolicited download (and left empty in an answer). */
  readonly unsolicitedAcceptAck: string;
  /** How each test is written: `channel^^^` (components after the code left empty). */
  readonly testComponents: number;
  readonly charsetName: string;
}

export interface Hl7LawAnswer {
  readonly form: 'law';
  /** MSH-21 of the query answer and of the order (IHE's LAB-27 / LAB-28 profile IDs, or the vendor's). */
  readonly profiles: { readonly answer: string; readonly order: string };
  /** The coding system written after each test code (`20340^^99ROC`). */
  readonly testCodingSystem: string;
  /** SPM-4 for the LIS SampleType (absent: the LIS name). */
  readonly sampleTypes?: Readonly<Record<string, string>>;
  /** SPM-2.2: the ID type written after the sample number (`BARCODE`), if any. */
  readonly specimenIdType?: string;
  readonly charsetName: string;
}

export interface Hl7DialectProfile {
  readonly id: string;
  readonly label: string;
  readonly vendor: string;
  readonly model: string;
  /** The HL7 versions (MSH-12) the analyzer sends. */
  readonly versions: readonly string[];
  /** The link's character set when MSH-18 states none. */
  readonly charset: Hl7Charset;
  readonly sampleId: Hl7SampleIdRule;
  readonly results: Hl7ResultsRule;
  /** A result is QC when any marker holds for it (message-wide or for its group). */
  readonly qc: readonly Hl7Match[];
  readonly qcInRequest?: Hl7QcInRequest;
  /** Message types that only report the analyzer's state (ESU^U01, INU^U05): acknowledged by the link, passed on as 'other'. */
  readonly statusMessages: readonly string[];
  /** Absent: the analyzer does not query (its queries would be 'other'). */
  readonly query?: Hl7QueryRule;
  /** Absent: orders cannot be written for this analyzer (no documented layout). */
  readonly answer?: Hl7AnswerRule;
  /**
   * Host messages the analyzer does not acknowledge (Mindray's QCK^Q02 is
   * followed by DSR^Q03, not by an ACK): sent with msg.hl7.expectAck = false.
   */
  readonly notAcknowledged: readonly string[];
  /** How long the analyzer waits for the answer to a query, in ms. */
  readonly queryDeadlineMs: number;
  readonly acceptsUnsolicitedOrders: boolean;
  /** What the analyzer expects of acknowledgements: original mode, or enhanced (MSH-15/16) as its messages ask. */
  readonly ackMode: 'original' | 'enhanced';
}
