/**
 * Checks an HL7 profile's internal consistency. Profiles are configuration, so
 * a broken one is a programming error, caught by the profile tests and when a
 * node is configured, not in the middle of a patient's results. A site's
 * edited profile (./overrides.ts) meets the same rules, each problem with the
 * path of its setting.
 */
import type { ProfileIssue } from '../../../dialect/overrides';
import type { Hl7DialectProfile, Hl7FieldReading, Hl7Place } from './types';

const ID = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;
const SEGMENT = /^[A-Z0-9]{3}$/;
const MESSAGE = /^[A-Z0-9]{3}\^[A-Z0-9]{3}$/;

/** Every problem of a profile, as sentences; [] when it is usable. */
export function profileProblems(p: Hl7DialectProfile): string[] {
  return profileIssues(p).map((i) => i.message);
}

/** Every problem of a profile with the path of the setting at fault (`results.code.field`, `qc[1].anyOf`); [] when it is usable. */
export function profileIssues(p: Hl7DialectProfile): ProfileIssue[] {
  const out: ProfileIssue[] = [];
  const add = (path: string, message: string) => out.push({ path, message });
  const positive = (what: string, n: number | undefined) => {
    if (n !== undefined && (!Number.isInteger(n) || n < 1)) add(what, `${what} must be a positive integer, got ${String(n)}`);
  };
  const place = (what: string, pl: Hl7Place) => {
    if (!SEGMENT.test(pl.segment)) add(`${what}.segment`, `${what}.segment ${JSON.stringify(pl.segment)} is not a segment name`);
    positive(`${what}.field`, pl.field);
    positive(`${what}.component`, pl.component);
    positive(`${what}.subcomponent`, pl.subcomponent);
  };
  const reading = (what: string, r: Hl7FieldReading | undefined) => {
    if (r === undefined) return;
    positive(`${what}.field`, r.field);
    if (r.component !== 'all') positive(`${what}.component`, r.component);
    if (r.join !== undefined && r.component !== 'all') add(`${what}.join`, `${what}.join is only for component 'all'`);
  };
  const messages = (what: string, list: readonly string[]) => {
    list.forEach((m, i) => {
      if (!MESSAGE.test(m)) add(`${what}[${i}]`, `${what} ${JSON.stringify(m)} is not a message type such as ORU^R01`);
    });
  };

  if (!ID.test(p.id)) add('id', `id ${JSON.stringify(p.id)} must be lower-case words joined by '-'`);
  for (const key of ['label', 'vendor', 'model'] as const) if (p[key].trim() === '') add(key, `${key} must not be empty`);
  if (p.versions.length === 0) add('versions', 'versions must name at least one HL7 version');
  if (!Number.isFinite(p.queryDeadlineMs) || p.queryDeadlineMs <= 0) add('queryDeadlineMs', 'queryDeadlineMs must be a positive number');
  if (p.sampleId.places.length === 0) add('sampleId.places', 'sampleId.places must name at least one place');
  p.sampleId.places.forEach((pl, i) => place(`sampleId.places[${i}]`, pl));
  messages('results.messages', p.results.messages);
  if (p.results.messages.length === 0) add('results.messages', 'results.messages must name at least one message type');
  place('results.code', p.results.code);
  p.results.codeFallbacks?.forEach((pl, i) => {
    place(`results.codeFallbacks[${i}]`, pl);
    if (pl.segment !== 'OBX') add(`results.codeFallbacks[${i}].segment`, `results.codeFallbacks[${i}] must be an OBX place, got ${JSON.stringify(pl.segment)}`);
  });
  if (p.results.subCode) place('results.subCode', p.results.subCode);
  reading('results.value', p.results.value);
  reading('results.units', p.results.units);
  reading('results.referenceRange', p.results.referenceRange);
  positive('results.flagsField', p.results.flagsField);
  positive('results.statusField', p.results.statusField);
  p.results.completedAt.forEach((n, i) => positive(`results.completedAt[${i}]`, n));
  p.results.supplemental.forEach((m, i) => place(`results.supplemental[${i}].place`, m.place));
  p.qc.forEach((m, i) => {
    place(`qc[${i}].place`, m.place);
    if (m.anyOf.length === 0) add(`qc[${i}].anyOf`, `qc[${i}].anyOf must list at least one value`);
  });
  messages('statusMessages', p.statusMessages);
  messages('notAcknowledged', p.notAcknowledged);
  if (p.query) {
    messages('query.messages', p.query.messages);
    place('query.sample', p.query.sample);
    if (p.query.tag) place('query.tag', p.query.tag);
  }
  const answer = p.answer;
  if (answer?.form === 'display') {
    const items = Object.entries(answer.items);
    for (const [k, n] of items) positive(`answer.items.${k}`, n);
    const taken = items.filter(([k]) => k !== 'tests').map(([, n]) => n);
    if (new Set(taken).size !== taken.length) add('answer.items', 'answer.items must not give two order values one DSP item');
    if (taken.some((n) => n >= answer.items.tests)) add('answer.items.tests', 'answer.items.tests must come after every other item (tests take one DSP each from there on)');
    positive('answer.testComponents', answer.testComponents);
  }
  if (p.acceptsUnsolicitedOrders && answer === undefined) add('acceptsUnsolicitedOrders', 'acceptsUnsolicitedOrders needs an answer layout');
  if (answer !== undefined && p.query === undefined && !p.acceptsUnsolicitedOrders) add('answer', 'an answer layout is of no use without queries or unsolicited orders');
  return out;
}

export class Hl7ProfileError extends Error {
  readonly problems: readonly string[];

  constructor(id: string, problems: readonly string[]) {
    super(`HL7 dialect profile ${JSON.stringify(id)} is not usable: ${problems.join('; ')}`);
    this.name = 'Hl7ProfileError';
    this.problems = problems;
  }
}

/** Throws Hl7ProfileError when the profile is not usable; returns it otherwise. */
export function assertHl7Profile(p: Hl7DialectProfile): Hl7DialectProfile {
  const problems = profileProblems(p);
  if (problems.length > 0) throw new Hl7ProfileError(p.id, problems);
  return p;
}
