/**
 * Reading decoded field values the way profiles describe them. The codec
 * gives a value in the shape its text had (string, components, repeats);
 * these helpers read any shape the same way.
 */
import { COMMENT_FIELDS, HEADER_FIELDS, ORDER_FIELDS, PATIENT_FIELDS, QUERY_FIELDS, RESULT_FIELDS, encodeValue, repeatsOf, type AstmValue, type Delimiters } from '../records';
import type { Locator, TestIdRule } from '../dialects';

/** The field's text with escapes resolved: components joined by the component delimiter, repeats by the repeat delimiter. */
export function fieldText(value: AstmValue | undefined, d: Delimiters): string {
  return repeatsOf(value)
    .map((r) => r.join(d.component))
    .join(d.repeat);
}

/** The field exactly as it goes on the wire (escapes included). */
export function wireText(value: AstmValue | undefined, d: Delimiters): string {
  return value === undefined ? '' : encodeValue(value, d);
}

/** True when the field is absent or every component of every repeat is empty or spaces. */
export function isBlank(value: AstmValue | undefined): boolean {
  return repeatsOf(value).every((r) => r.every((c) => c.trim() === ''));
}

/** Component `position` (1-based, negative from the end) of repeat `repeat` (1-based); '' when missing. */
export function componentAt(value: AstmValue | undefined, position: number, repeat = 1): string {
  return componentOf(repeatsOf(value)[repeat - 1] ?? [], position);
}

export function componentOf(components: readonly string[], position: number): string {
  const index = position > 0 ? position - 1 : components.length + position;
  return index >= 0 ? (components[index] ?? '') : '';
}

/** What a Locator points at in one repeat's components. */
export function locate(components: readonly string[], at: Locator): string {
  let text = componentOf(components, at.component);
  if (at.split !== undefined) text = text.split(at.split.separator)[at.split.part - 1] ?? '';
  if (at.alsoComponents !== undefined) {
    const parts = [text, ...at.alsoComponents.map((c) => componentOf(components, c))].map((p) => (at.trim ? p.trim() : p)).filter((p) => p !== '');
    return parts.join(at.joinWith ?? '');
  }
  return at.trim ? text.trim() : text;
}

/** The test code of one universal test ID repeat: `code`, else the first fallback that reads a code; '' when none does. */
export function locateCode(components: readonly string[], rule: Pick<TestIdRule, 'code' | 'codeFallbacks'>): string {
  for (const at of [rule.code, ...(rule.codeFallbacks ?? [])]) {
    const code = locate(components, at);
    if (code !== '') return code;
  }
  return '';
}

/** `component 1`, or `component 1, 2 or -1` when a profile has fallbacks: where a missing code was looked for. */
export function codePlaces(rule: Pick<TestIdRule, 'code' | 'codeFallbacks'>): string {
  const all = [rule.code, ...(rule.codeFallbacks ?? [])].map((l) => String(l.component));
  return all.length === 1 ? `component ${all[0] ?? ''}` : `components ${all.slice(0, -1).join(', ')} or ${all[all.length - 1] ?? ''}`;
}

const NUMBERS: Readonly<Record<string, Readonly<Record<string, number>>>> = {
  H: Object.fromEntries(HEADER_FIELDS.map((n, i) => [n, i + 3])),
  P: Object.fromEntries(PATIENT_FIELDS.map((n, i) => [n, i + 2])),
  O: Object.fromEntries(ORDER_FIELDS.map((n, i) => [n, i + 2])),
  R: Object.fromEntries(RESULT_FIELDS.map((n, i) => [n, i + 2])),
  C: Object.fromEntries(COMMENT_FIELDS.map((n, i) => [n, i + 2])),
  Q: Object.fromEntries(QUERY_FIELDS.map((n, i) => [n, i + 2])),
};

/** E1394's number of a named field (1 is the record type); 0 for a name the record does not have. */
export function fieldNumber(record: 'H' | 'P' | 'O' | 'R' | 'C' | 'Q', name: string): number {
  return NUMBERS[record]?.[name] ?? 0;
}

/** `O-3 (specimenId)`: how messages name a field, so an operator can find it in a trace. */
export function fieldLabel(record: 'H' | 'P' | 'O' | 'R' | 'C' | 'Q', name: string): string {
  const n = NUMBERS[record]?.[name];
  return n === undefined ? `${record} ${name}` : `${record}-${n} (${name})`;
}

/** A sequence number as sent; 0 when absent or not a whole number. */
export function sequenceOf(value: AstmValue | undefined): number {
  const text = componentAt(value, 1).trim();
  return /^\d+$/.test(text) ? Number(text) : 0;
}
