/**
 * Checks a profile's internal consistency. Profiles are configuration, so a
 * broken one is a programming error: it is caught once, when the profile is
 * used (and by the profile tests), not in the middle of a patient's results.
 */
import { checkDelimiters, formatAstmTimestamp } from '../records';
import { formatPath } from '../../../dialect/paths';
import type { ProfileIssue } from '../../../dialect/overrides';
import type { DialectProfile, Locator } from './types';

export class DialectProfileError extends Error {
  readonly problems: readonly string[];

  constructor(id: string, problems: readonly string[]) {
    super(`dialect profile ${JSON.stringify(id)} is not usable: ${problems.join('; ')}`);
    this.name = 'DialectProfileError';
    this.problems = problems;
  }
}

const ID = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;

export type { ProfileIssue };

/** Every problem of a profile, as sentences; [] when it is usable. */
export function profileProblems(p: DialectProfile): string[] {
  return profileIssues(p).map((i) => i.message);
}

/** Every problem of a profile with the path of the setting at fault; [] when it is usable. */
export function profileIssues(p: DialectProfile): ProfileIssue[] {
  const out: ProfileIssue[] = [];
  const add = (path: string, message: string) => out.push({ path, message });
  const position = (what: string, n: number, allowNegative: boolean) => {
    if (!Number.isInteger(n) || n === 0 || (!allowNegative && n < 0)) add(what, `${what} must be ${allowNegative ? 'a non-zero' : 'a positive'} integer, got ${String(n)}`);
  };
  const locator = (what: string, l: Locator) => {
    position(`${what}.component`, l.component, true);
    if (l.split !== undefined) {
      if (l.split.separator.length === 0) add(`${what}.split.separator`, `${what}.split.separator must not be empty`);
      position(`${what}.split.part`, l.split.part, false);
      if (l.alsoComponents !== undefined) add(what, `${what} cannot both split and join components`);
    }
    (l.alsoComponents ?? []).forEach((c, i) => position(`${what}.alsoComponents[${i}]`, c, true));
    if (l.alsoComponents !== undefined && (l.joinWith === undefined || l.joinWith === '')) add(`${what}.joinWith`, `${what}.joinWith must be given with alsoComponents`);
  };

  if (!ID.test(p.id)) add('id', `id ${JSON.stringify(p.id)} must be lower-case words joined by '-'`);
  for (const key of ['label', 'vendor', 'model'] as const) if (p[key].trim() === '') add(key, `${key} must not be empty`);
  if (!Number.isFinite(p.queryDeadlineMs) || p.queryDeadlineMs <= 0) add('queryDeadlineMs', 'queryDeadlineMs must be a positive number');
  if (p.timeZone !== undefined) {
    try {
      formatAstmTimestamp(new Date(0), p.timeZone);
    } catch {
      add('timeZone', `timeZone ${JSON.stringify(p.timeZone)} is not a known IANA zone`);
    }
  }
  if (p.sampleId.record === 'O' && p.sampleId.field !== 'specimenId' && p.sampleId.field !== 'instrumentSpecimenId') add('sampleId.field', 'an O sample ID must be read from specimenId or instrumentSpecimenId');
  if (p.sampleId.record === 'P' && p.sampleId.field !== 'practicePatientId' && p.sampleId.field !== 'laboratoryPatientId') add('sampleId.field', 'a P sample ID must be read from practicePatientId or laboratoryPatientId');
  position('sampleId.component', p.sampleId.component, true);
  if (p.query !== undefined) {
    position('query.component', p.query.component, false);
    if (p.query.bareRepeatComponent !== undefined) position('query.bareRepeatComponent', p.query.bareRepeatComponent, false);
  }
  locator('testId.code', p.testId.code);
  (p.testId.codeFallbacks ?? []).forEach((l, i) => locator(`testId.codeFallbacks[${i}]`, l));
  if (p.testId.subCode !== undefined) locator('testId.subCode', p.testId.subCode);
  if (p.testId.subCodeIn === 'value') {
    // The value and its sub-code must be different components of R-4.
    const sub = p.testId.subCode;
    if (sub === undefined) add('testId.subCode', 'testId.subCodeIn "value" needs a testId.subCode');
    else if (typeof p.results.value.component !== 'number' || p.results.value.component === sub.component) {
      add('results.value.component', 'testId.subCodeIn "value" needs results.value.component to be another component than testId.subCode.component');
    }
  }
  if (typeof p.results.value.component === 'number') position('results.value.component', p.results.value.component, true);
  if (p.results.units !== undefined) position('results.units.component', p.results.units.component, true);
  p.qc.forEach((rule, i) => {
    position(`qc[${i}].component`, rule.component, false);
    if (rule.anyOf.length === 0) add(`qc[${i}].anyOf`, `qc[${i}].anyOf must list at least one value`);
  });

  const order = p.order;
  if (order !== undefined) {
    try {
      checkDelimiters(order.delimiters);
    } catch (err) {
      add('order.delimiters', `order.delimiters: ${(err as Error).message}`);
    }
    position('order.order.test.codeComponent', order.order.test.codeComponent, false);
    position('order.order.test.components', order.order.test.components, false);
    if (order.order.test.components < order.order.test.codeComponent) add('order.order.test.components', 'order.order.test.components is smaller than its codeComponent');
    if (order.patient.nameComponents !== undefined) position('order.patient.nameComponents', order.patient.nameComponents, false);
    const nameOrder = order.patient.nameOrder;
    if (nameOrder !== undefined) {
      if (order.patient.nameComponents !== undefined) add('order.patient.nameOrder', 'order.patient takes nameComponents or nameOrder, not both');
      const count = (part: string) => nameOrder.filter((n) => n === part).length;
      if (count('last') !== 1 || count('first') > 1) add('order.patient.nameOrder', 'order.patient.nameOrder must name "last" once and "first" at most once');
    }
    const map = order.order.sampleType?.map;
    if (map !== undefined && map !== 'as-is') {
      for (const [type, code] of Object.entries(map)) {
        if (typeof code !== 'string' && code.length === 0) add(formatPath(['order', 'order', 'sampleType', 'map', type]), `order.order.sampleType.map[${JSON.stringify(type)}] has no components`);
      }
    }
    for (const [i, e] of (order.order.echo ?? []).entries()) {
      position(`order.order.echo[${i}].from`, e.from, false);
      position(`order.order.echo[${i}].to`, e.to, false);
      if (e.to < e.from) add(`order.order.echo[${i}].to`, `order.order.echo[${i}]: to is before from`);
      // An echo that writes the sample field replaces the sample number the
      // builder put there: it must carry the query's own sample component.
      if (e.field === order.order.sampleField) {
        const q = p.query;
        if (q === undefined || q.component < e.from || q.component > e.to) {
          add(`order.order.echo[${i}]`, `order.order.echo into ${e.field}, the sample field, must cover the query component that names the sample`);
        }
      }
    }
    if (order.order.echo !== undefined && order.order.echo.length > 0 && p.acceptsUnsolicitedOrders) {
      add('acceptsUnsolicitedOrders', 'a profile whose orders echo the query cannot accept unsolicited orders (there is no query to echo)');
    }
    const policy = order.textDelimiters;
    if (policy !== 'escape') {
      const d = order.delimiters;
      if ([d.field, d.repeat, d.component, d.escape].some((c) => policy.replaceWith.includes(c))) add('order.textDelimiters.replaceWith', 'order.textDelimiters.replaceWith must not hold a delimiter');
    }
    if (p.noOrder === undefined) add('noOrder', 'a profile that builds orders needs a noOrder layout to answer queries it has no order for');
  } else if (p.acceptsUnsolicitedOrders) {
    add('acceptsUnsolicitedOrders', 'acceptsUnsolicitedOrders needs an order layout');
  }
  if (p.noOrder !== undefined && order === undefined) add('noOrder', 'a noOrder layout needs an order layout (its delimiters and header)');
  return out;
}

/** Frozen profiles found usable: every query and every result message asks again, and a frozen one cannot have changed. */
const usable = new WeakSet<DialectProfile>();

/**
 * Throws DialectProfileError when the profile is not usable; returns it
 * otherwise. A frozen profile (the shipped ones are frozen to the last field)
 * is checked once.
 */
export function assertProfile(p: DialectProfile): DialectProfile {
  if (usable.has(p)) return p;
  const problems = profileProblems(p);
  if (problems.length > 0) throw new DialectProfileError(p.id, problems);
  if (Object.isFrozen(p)) usable.add(p);
  return p;
}
