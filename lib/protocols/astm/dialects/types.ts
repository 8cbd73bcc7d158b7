/**
 * A dialect profile: everything that differs between analyzers, written down
 * as data. The translation code in lib/protocols/astm/lab reads a profile and never
 * branches on an analyzer's name, so supporting another analyzer means adding
 * one profile file, its fixtures and one line in ./index.ts.
 *
 * Positions follow the standard's numbering: fields by their LIS2-A2 name
 * (the record codec's names, e.g. `specimenId` is O-3), components counted
 * from 1. A negative component counts from the end (-1 is the last one),
 * for vendors whose codes sit at the end of a varying number of components.
 */
import type { AstmLinkOptions } from '../link/options';
import type { HEADER_FIELDS, ORDER_FIELDS, PATIENT_FIELDS, TERMINATOR_FIELDS, AstmValue, Delimiters } from '../records';

export type HeaderField = (typeof HEADER_FIELDS)[number];
export type PatientField = (typeof PATIENT_FIELDS)[number];
export type OrderField = (typeof ORDER_FIELDS)[number];
export type TerminatorField = (typeof TERMINATOR_FIELDS)[number];

/** Fixed field values of a record we write; a field given as '' is written empty, which keeps the vendor's field count. */
export type Template<F extends string> = Readonly<Partial<Record<F, AstmValue>>>;

/** One piece of a field: a component, optionally cut further on a separator inside it. */
export interface Locator {
  /** 1-based; negative counts from the end (-1 = last component). */
  readonly component: number;
  /** Roche cobas type writes `8/1/not` in one component: split on '/' and take part 1. */
  readonly split?: { readonly separator: string; readonly part: number };
  /**
   * Further components appended after `joinWith`, skipping empty ones
   * (GeneXpert analyte^complementary name: `rpoB1` + `Ct` = `rpoB1/Ct`).
   * Never used with `split`.
   */
  readonly alsoComponents?: readonly number[];
  readonly joinWith?: string;
  /** Remove leading and trailing spaces (fixed-width vendors pad with spaces). */
  readonly trim: boolean;
}

/**
 * Where the sample number of a result sits. Results are grouped under the O
 * record before them; the number is read from that O, or from the P record
 * the O belongs to for analyzers that send the sample as a patient ID
 * (EUROIMMUN, Siemens DCA).
 */
export type SampleIdRule = SampleIdPlace & SampleIdReading;

export type SampleIdPlace =
  | { readonly record: 'O'; readonly field: Extract<OrderField, 'specimenId' | 'instrumentSpecimenId'> }
  | { readonly record: 'P'; readonly field: Extract<PatientField, 'practicePatientId' | 'laboratoryPatientId'> };

export interface SampleIdReading {
  readonly component: number;
  readonly trim: boolean;
  /**
   * Refuse the field unless it is one plain value (no component delimiter at
   * all). For profiles that do not know the vendor's layout (the generic
   * one): the cobas c 311 writes `counter^sampleID^...` in O-3 and the Mindray
   * CL `analyzerNumber^^` with the bar code in O-4; taking component 1 would
   * file their results under a counter. A refused group's results are
   * reported as unassigned, never guessed.
   */
  readonly singleComponent: boolean;
}

/** Where a host query (Q record) names its samples. */
export interface QueryRule {
  readonly field: 'startingRange';
  readonly component: number;
  readonly trim: boolean;
  /** 'all' reads every repeat of Q-3 as one sample each (ERBA EM 200 multi-tube queries). */
  readonly repeats: 'first' | 'all';
  /**
   * Component holding the ID in a repeat written without any component
   * delimiter. The EM 200 writes `^ID1` then a bare `ID2` for its second tube.
   */
  readonly bareRepeatComponent?: number;
  /** Q-13 value that cancels the analyzer's earlier query for the sample (Roche e 411 and Mindray: 'A'). */
  readonly cancelStatus?: string;
  /** Q-5 values that mean "every test" (an empty Q-5 always does). */
  readonly allTests: readonly string[];
}

/** Where the instrument test code (and an optional sub-code) sit in a universal test ID (R-3, O-5, Q-5). */
export interface TestIdRule {
  readonly code: Locator;
  /**
   * Where else the code may be, tried in order when `code` reads empty: the
   * Mindray BS-240 writes a measured test `P^Phosphorus^^F` but a calculated
   * one (and some measured ones) with component 1 empty, `^A/G^^F`, its name
   * at component 2 the only name it has. A result with no code in any of
   * them stays unassigned.
   */
  readonly codeFallbacks?: readonly Locator[];
  /**
   * A second part that tells results of one test apart: ARCHITECT's result
   * type F/I/P, Hologic's result name. It becomes `instrumentSubCode`, which
   * the test-mapper matches exactly, so only profiles whose sub-code names a
   * different result set one (a dilution factor would not).
   */
  readonly subCode?: Locator;
  /**
   * Where `subCode` is read: the test ID (R-3, the default), or the value
   * for analyzers that name the form of a value next to it: Sysmex
   * U-WAM sends every result twice under one R-3, `21.5^RAW` and
   * `21.5^MAINFORMAT`. Results only; queries and orders have no value.
   */
  readonly subCodeIn?: 'testId' | 'value';
}

export interface ResultsRule {
  /**
   * The value: the whole field (components kept, joined by the message's
   * component delimiter), one component of it, or its first non-empty
   * component (Mindray `10000.000000^^^^` quantitative^qualitative...,
   * GeneXpert `NOT DETECTED^` / `^24.7` qualitative^quantitative). Whenever
   * the result differs from the field as sent, the field is kept in `rawResult`.
   */
  readonly value: { readonly component?: number | 'first-non-empty'; readonly trim: boolean; readonly decimalComma: 'keep' | 'dot' };
  /**
   * One component of R-5 as the units (trimmed), for analyzers that send
   * more than the units there; absent: R-5 as sent, components joined by the
   * message's component delimiter. Written by pointing at the units in the dialog.
   */
  readonly units?: { readonly component: number };
  /**
   * Where the time the test was completed is: R-13 per LIS2-A2; Mindray uses
   * R-12; Roche sends none per result and puts "all results collected" in O-23.
   */
  readonly completedAt: { readonly record: 'R'; readonly field: 'completedAt' | 'startedAt' } | { readonly record: 'O'; readonly field: 'resultedAt' };
}

/** A QC marker: a message (H rule) or one order (O rule) whose field component equals one of `anyOf`. */
export type QcRule =
  | { readonly record: 'H'; readonly field: HeaderField; readonly component: number; readonly anyOf: readonly string[] }
  | { readonly record: 'O'; readonly field: OrderField; readonly component: number; readonly anyOf: readonly string[] };

/**
 * Mindray CL QC messages carry the control values in an O field (O-12 repeats
 * `no^name^lot^expiry^mean^level^sd^value`) and send no R record. Each repeat
 * becomes one QC result.
 */
export interface QcInOrderRule {
  readonly field: OrderField;
  readonly components: {
    readonly id: number;
    readonly name: number;
    readonly lot: number;
    readonly expiry: number;
    readonly mean: number;
    readonly level: number;
    readonly sd: number;
    readonly value: number;
  };
}

/** Copies Q-3 components `from`..`to` of the query into an O field (Roche: sequence^rack^position^^type^container). */
export interface QueryEcho {
  readonly field: OrderField;
  readonly from: number;
  readonly to: number;
}

/** Derives an O field from one Q-3 component through a code table (Roche cobas O-16 from the query's S1/S2/S5). */
export interface QueryDerived {
  readonly field: OrderField;
  readonly component: number;
  readonly map: Readonly<Record<string, string>>;
}

export type PatientPart = 'dateOfBirth' | 'age' | 'ageUnit';

/** One P-6 component: the surname, the given name, or one left empty. */
export type NamePart = 'last' | 'first' | '';

/** How an order download is written. */
export interface OrderLayout {
  readonly delimiters: Delimiters;
  readonly header: {
    readonly fields: Template<HeaderField>;
    /** Write the message time (site zone) into H-14. */
    readonly timestamp: boolean;
    readonly whenQueried?: Template<HeaderField>;
    readonly whenUnsolicited?: Template<HeaderField>;
  };
  readonly patient: {
    readonly fields: Template<PatientField>;
    /** Where the LIS patient ID goes: P-3, P-4, or P-5 (Sysmex XN writes it in P-5). */
    readonly id?: Extract<PatientField, 'practicePatientId' | 'laboratoryPatientId' | 'patientId3'>;
    /** P-6 with this many components: last^first^... (see lab/patient-name.ts). */
    readonly nameComponents?: number;
    /**
     * P-6 for analyzers that do not start with the surname: each component in
     * order (Sysmex XN writes `^first^last`: ['', 'first', 'last']). Instead
     * of nameComponents, never with it; the name is split as lab/patient-name.ts says.
     */
    readonly nameOrder?: readonly NamePart[];
    /** P-8 components, in order. */
    readonly birth?: readonly PatientPart[];
    readonly sex?: boolean;
  };
  readonly order: {
    readonly fields: Template<OrderField>;
    readonly sampleField: Extract<OrderField, 'specimenId' | 'instrumentSpecimenId'>;
    /**
     * Each O-5 repeat: this many components with the code at `codeComponent`
     * (`^^^10^` = 5 components, code at 4). Kept apart from `testId`, which
     * reads results: the cobas e 411 reports `^^^10/1/not` but orders `^^^10^`.
     */
    readonly test: { readonly codeComponent: number; readonly components: number };
    readonly priority: { readonly S: string; readonly R: string; readonly absent: string };
    /** O-7 "requested date/time" from the LIS TransactionDate. */
    readonly requestedAtFromTransaction?: boolean;
    /**
     * O-16 (or another field) from the LIS SampleType; 'as-is' writes the LIS
     * name. A type missing from the map is refused. A code given as a list is
     * written as components (Immucor `Blood^Patient`: type^source).
     */
    readonly sampleType?: { readonly field: OrderField; readonly map: 'as-is' | Readonly<Record<string, string | readonly string[]>> };
    readonly actionCode: { readonly queried: string; readonly unsolicited: string };
    readonly reportType: { readonly queried: string; readonly unsolicited: string };
    /**
     * Set when the answer must repeat what the query said about the tube's
     * place; such a profile can only answer queries. An echo into the sample
     * field itself (Sysmex XN O-3 = the query's rack^position^sample^attribute)
     * must cover the query component that names the sample.
     */
    readonly echo?: readonly QueryEcho[];
  };
  readonly terminator: Template<TerminatorField>;
  /**
   * What happens to a delimiter or escape character inside free text (the
   * patient name). 'escape' uses the E1394 escapes (&F& &S& &R& &E&);
   * `replaceWith` is for analyzers that do not read them (Mindray documents a
   * prefix convention of its own). Identifiers are never altered: a sample
   * number, patient ID or test code holding such a character is refused
   * under `replaceWith`.
   */
  readonly textDelimiters: 'escape' | { readonly replaceWith: string };
}

/** The "no information for this sample" answer to a query. */
export type NoOrderLayout =
  /** H + L with a termination code (LIS2-A2 L-3 'I'); the H may differ from an order's (Mindray H-12 'QA'). */
  | { readonly form: 'terminator'; readonly header: Template<HeaderField>; readonly terminationCode: string }
  /** An order record without tests, with its own report type (Roche Elecsys 'Z', cobas 'O'). */
  | { readonly form: 'order'; readonly reportType: string; readonly derived?: readonly QueryDerived[] };

export interface SerialSettings {
  readonly baudRate: number;
  readonly dataBits: 7 | 8;
  readonly parity: 'none' | 'even' | 'odd';
  readonly stopBits: 1 | 2;
}

/** Link options a dialect may need; the rest stay at LIS1-A's values. */
export type DialectLinkOptions = Partial<
  Pick<AstmLinkOptions, 'framePerRecord' | 'recordFrameEnd' | 'frameTextMax' | 'checksums' | 'strictFrameNumbers' | 'terminatorRequired'>
>;

export interface DialectProfile {
  readonly id: string;
  readonly label: string;
  readonly vendor: string;
  readonly model: string;
  readonly transport: { readonly serial?: SerialSettings; readonly tcp?: boolean };
  readonly link: DialectLinkOptions;
  /** Text decoding of message bytes (the checksum is always over bytes). */
  readonly charset: 'latin1' | 'utf8';
  readonly sampleId: SampleIdRule;
  /** Absent: the profile reads no queries (Q records then give an 'other' event). */
  readonly query?: QueryRule;
  readonly testId: TestIdRule;
  readonly results: ResultsRule;
  readonly qc: readonly QcRule[];
  readonly qcInOrder?: QcInOrderRule;
  /** Absent: orders cannot be built for this analyzer (its download layout is not documented in the sources). */
  readonly order?: OrderLayout;
  readonly noOrder?: NoOrderLayout;
  /** How long the analyzer waits for the answer to a query before giving up, in ms. */
  readonly queryDeadlineMs: number;
  /** Whether an order may be downloaded without a query, or after the query's deadline. */
  readonly acceptsUnsolicitedOrders: boolean;
  /** The analyzer clock's zone when it differs from the site zone (a node setting). */
  readonly timeZone?: string;
}
