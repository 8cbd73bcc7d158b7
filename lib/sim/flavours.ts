/**
 * What an analyzer writes around the identifiers the host reads.
 *
 * A DialectProfile says where the host finds the sample number, the test code
 * and the value, and how the host lays out a download. It does not say what
 * the analyzer puts in the other components of those fields: the cobas e 411
 * writes its rack and position next to the sample in Q-3 and wants them back
 * in O-4, the Mindray CL names its assay next to the assay number. Those come
 * from the vendors' captures and manual examples (the fixtures the profiles
 * cite), so each known analyzer has a flavour here; any other profile gets one
 * derived from its rules alone, which the host reads the same way but which
 * looks less like the real instrument.
 */
import type { AstmValue, Delimiters } from '../protocols/astm/records';
import { DEFAULT_DELIMITERS } from '../protocols/astm/records';
import type { DialectProfile, HeaderField, OrderField, QueryRule, ResultsRule, Template, TestIdRule } from '../protocols/astm/dialects';

/** Where the tube sits on the analyzer; the cobas e 411 reports it with every query and result. */
export interface Tube {
  /** The analyzer's running sample sequence number. */
  sequence: number;
  rack: number;
  position: number;
}

export type MessageKind = 'query' | 'results';

export interface AnalyzerFlavour {
  delimiters: Delimiters;
  /** H fields after the delimiters. */
  header(kind: MessageKind): Template<HeaderField>;
  /** Write the message time (site zone) into H-14. */
  headerTimestamp: boolean;
  /** Q-3 components for one tube. */
  queryRange(sample: string, tube: Tube): string[];
  /** which tests the query asks for. */
  queryTests: AstmValue;
  /** Q-13 of a normal query; the cancel code comes from the profile. */
  queryStatus: string;
  /** One O-5 repeat in a result message. */
  orderTestId(code: string, name: string | undefined): string[];
  /** R-3 for one test. */
  resultTestId(code: string, name: string | undefined): AstmValue;
  /** O fields of a result message other than the sample number, the tests and the times. */
  resultOrder(tube: Tube): Template<OrderField>;
  /** R-4 as the analyzer shapes it. */
  value(text: string): AstmValue;
  /** R-6, or undefined when the analyzer sends none. */
  range(low: string, high: string): AstmValue | undefined;
  /** R-14, the instrument that measured. */
  instrumentId?: AstmValue;
  /** The O-5 component holding a test's name in the host's downloads, when there is one. */
  downloadTestName?: number;
}

/** `length` empty components with `value` at 1-based `at` (negative: counted from the end). */
export function placed(value: string, at: number, length = Math.abs(at)): string[] {
  const parts = new Array<string>(Math.max(length, Math.abs(at))).fill('');
  parts[at > 0 ? at - 1 : parts.length + at] = value;
  return parts;
}

/** An AstmValue from components: one component is written as a plain value. */
function value(parts: string[]): AstmValue {
  return parts.length === 1 ? (parts[0] ?? '') : parts;
}

/** R-3 components that put `code` where the profile's locator reads it. */
function testIdFromRule(code: string, rule: TestIdRule): string[] {
  const at = rule.code;
  let text = code;
  // Split rules read one part of a component: the code goes in that part.
  if (at.split !== undefined) text = placed(code, at.split.part).join(at.split.separator);
  const parts = placed(text, at.component);
  // A sub-code read from the end (ARCHITECT's result type, -1) must not land on
  // the code itself: one more, empty, component leaves it without a sub-code.
  const sub = rule.subCode;
  if (sub !== undefined) {
    const index = (c: number) => (c > 0 ? c - 1 : parts.length + c);
    if (index(sub.component) === index(at.component)) parts.push('');
  }
  return parts;
}

function valueFromRule(text: string, rule: ResultsRule['value']): AstmValue {
  const where = rule.component;
  if (where === undefined) return text;
  // The first non-empty component: the analyzer sends the quantitative part first.
  if (where === 'first-non-empty') return [text, ''];
  return value(placed(text, where));
}

function queryFromRule(sample: string, rule: QueryRule): string[] {
  return placed(sample, rule.component);
}

/** A flavour from the profile's rules alone: what the host reads is right, the rest is left empty. */
export function derivedFlavour(profile: DialectProfile): AnalyzerFlavour {
  return {
    delimiters: { ...(profile.order?.delimiters ?? DEFAULT_DELIMITERS) },
    header: () => ({ senderId: [profile.model.split(',')[0]?.trim() ?? profile.id, 'SIM'], processingId: 'P', version: 'LIS2-A2' }),
    headerTimestamp: true,
    queryRange: (sample) => (profile.query === undefined ? [sample] : queryFromRule(sample, profile.query)),
    queryTests: 'ALL',
    queryStatus: 'O',
    orderTestId: (code) => testIdFromRule(code, profile.testId),
    resultTestId: (code) => value(testIdFromRule(code, profile.testId)),
    resultOrder: () => ({}),
    value: (text) => valueFromRule(text, profile.results.value),
    // LIS2-A2 R-6 "lower limit to upper limit".
    range: (low, high) => `${low} to ${high}`,
  };
}

/**
 * Strict LIS2-A2: Q-3 patientID^specimenID, `^^^code` test IDs, plain values,
 * R-6 "lower to upper". The sender name is the simulator's own: the standard
 * gives no vendor name to copy.
 */
function genericFlavour(profile: DialectProfile): AnalyzerFlavour {
  return {
    ...derivedFlavour(profile),
    header: () => ({ senderId: ['LIS-BRIDGE-SIM', '1.0'], receiverId: 'LIS', processingId: 'P', version: 'LIS2-A2' }),
    orderTestId: (code) => ['', '', '', code],
    resultTestId: (code) => ['', '', '', code],
  };
}

/**
 * cobas e 411, cobas type: roche-e411-query.txt and roche-e411-result*.txt.
 * `H|\^&|||cobas-e411^1|||||host|TSREQ^REAL|P|1`, Q-3
 * `^^sample^sequence^carrier^position^^S1^SC`, O-4 the same tube
 * description, R-3 `^^^code/1/not`, O-23 the time all results were in,
 * R-14 the module `E1`. The analyzer sends no reference range.
 */
function cobasE411(profile: DialectProfile): AnalyzerFlavour {
  const tube = (t: Tube) => [String(t.sequence), String(t.rack), String(t.position), '', 'S1', 'SC'];
  return {
    ...derivedFlavour(profile),
    header: (kind) => ({ senderId: ['cobas-e411', '1'], receiverId: 'host', comments: kind === 'query' ? ['TSREQ', 'REAL'] : ['RSUPL', 'REAL'], processingId: 'P', version: '1' }),
    headerTimestamp: false,
    queryRange: (sample, t) => ['', '', sample, ...tube(t)],
    queryTests: 'ALL',
    orderTestId: (code) => ['', '', '', code, '1'],
    resultTestId: (code) => ['', '', '', `${code}/1/not`],
    // O-12 'N', O-16 '1' (serum) as in roche-e411-result.txt.
    resultOrder: (t) => ({ instrumentSpecimenId: tube(t), actionCode: 'N', specimenDescriptor: '1' }),
    value: (text) => text,
    range: () => undefined,
    instrumentId: 'E1',
  };
}

/**
 * cobas e 411, Elecsys type: roche-e411-query-manual.txt
 * (`H|\^&||||||||||P||`, Q-3 `^sample^sequence^carrier^position^^SAMPLE^NORMAL`).
 * No Elecsys-type result capture exists; results follow the manual's field
 * list (p.42: `^^^code^dilution`), with the tube in O-4 as in the downloads.
 */
function elecsysE411(profile: DialectProfile): AnalyzerFlavour {
  const tube = (t: Tube) => [String(t.sequence), String(t.rack), String(t.position), '', 'SAMPLE', 'NORMAL'];
  return {
    ...derivedFlavour(profile),
    header: () => ({ processingId: 'P', version: '', timestamp: '' }),
    headerTimestamp: false,
    queryRange: (sample, t) => ['', sample, ...tube(t)],
    queryTests: 'ALL',
    orderTestId: (code) => ['', '', '', code, ''],
    resultTestId: (code) => ['', '', '', code, '1'],
    resultOrder: (t) => ({ instrumentSpecimenId: tube(t), actionCode: 'N' }),
    value: (text) => text,
    range: () => undefined,
  };
}

/**
 * Mindray CL-2000i: mindray-cl2000i-query.txt, -result.txt, -session-trace.txt.
 * H-5 `Mindray^^`, H-12 the message type (RQ query, PR patient result), Q-3
 * `^bar code`, empty Q-5; results carry the analyzer's own number in O-3
 * (`1^^`), the bar code in O-4, R-3 `assay no.^name^^F`, R-4
 * `value^^^^`, R-6 `low^high` and the finish time in R-12 (the profile's
 * completedAt rule).
 */
function mindrayCl(profile: DialectProfile): AnalyzerFlavour {
  return {
    ...derivedFlavour(profile),
    header: (kind) => ({ senderId: ['Mindray', '', ''], processingId: kind === 'query' ? 'RQ' : 'PR', version: '1394-97' }),
    headerTimestamp: true,
    queryRange: (sample) => ['', sample],
    queryTests: '',
    orderTestId: (code, name) => [code, name ?? '', '', ''],
    resultTestId: (code, name) => [code, name ?? '', '', 'F'],
    resultOrder: (t) => ({ specimenId: [String(t.sequence), '', ''] }),
    value: (text) => [text, '', '', '', ''],
    range: (low, high) => [low, high],
    instrumentId: ['Mindray', ''],
    downloadTestName: 2,
  };
}

/**
 * Beckman Coulter Access 2 / UniCel DxI: beckman-access2-result-log.txt and
 * beckman-access-query-strings.txt. `H|\^&|||ACCESS^575707|||||LIS||P|1`,
 * Q-3 `^specimen`, Q-5 `ALL`, O-4 `^rack^position`, R-3 `^^^HCG5^1`, R-4 the
 * value alone, R-6 empty, R-14 the instrument's serial number.
 */
function beckmanAccess(profile: DialectProfile): AnalyzerFlavour {
  return {
    ...derivedFlavour(profile),
    header: () => ({ senderId: ['ACCESS', '575707'], receiverId: 'LIS', processingId: 'P', version: '1' }),
    headerTimestamp: true,
    queryRange: (sample) => ['', sample],
    queryTests: 'ALL',
    queryStatus: 'O',
    orderTestId: (code) => ['', '', '', code, '1'],
    resultTestId: (code) => ['', '', '', code, '1'],
    resultOrder: (t) => ({ instrumentSpecimenId: ['', String(t.rack), String(t.position)] }),
    value: (text) => text,
    range: () => undefined,
    instrumentId: '575707',
  };
}

const FLAVOURS: Readonly<Record<string, (p: DialectProfile) => AnalyzerFlavour>> = {
  'generic-lis2a2': genericFlavour,
  'roche-cobas-e411': cobasE411,
  'roche-cobas-e411-elecsys': elecsysE411,
  'mindray-cl': mindrayCl,
  'beckman-access': beckmanAccess,
};

export function flavourOf(profile: DialectProfile): AnalyzerFlavour {
  return (FLAVOURS[profile.id] ?? derivedFlavour)(profile);
}

/** Whether this profile has a flavour taken from the vendor's own captures. */
export function hasVendorFlavour(profile: DialectProfile): boolean {
  return FLAVOURS[profile.id] !== undefined;
}
