/** Reading a profile's places and field readings out of segments. */
import type { Hl7Segment } from '../message';
import type { Hl7FieldReading, Hl7Match, Hl7Place } from '../dialects/types';

/** The segments in force at an OBX: the message header and the last of each kind before it in its group. */
export type Current = ReadonlyMap<string, Hl7Segment>;

export function valueAt(current: Current, place: Hl7Place): string {
  const seg = current.get(place.segment);
  return seg === undefined ? '' : seg.field(place.field, 1, place.component ?? 1, place.subcomponent ?? 1);
}

/** HL7 v2.5.1 2.5.3: `""` is an explicit null, no value. */
export function isValue(text: string): boolean {
  return text !== '' && text !== '""';
}

/** The first place holding a value, and its text. */
export function firstValue(current: Current, places: readonly Hl7Place[], trim: boolean): string {
  return firstValueAt(current, places, trim).value;
}

/** The first place holding a value, its text and where it was ('' and no place when none holds one). */
export function firstValueAt(current: Current, places: readonly Hl7Place[], trim: boolean): { value: string; place?: Hl7Place } {
  for (const place of places) {
    const raw = valueAt(current, place);
    const value = trim ? raw.trim() : raw;
    if (isValue(value)) return { value, place };
  }
  return { value: '' };
}

/**
 * The test code: the first place holding a value, except that with
 * `skipNumbers` a value of digits alone gives way to a later place holding
 * something else (a channel number before the test's name); when no later
 * place does, the first value found is the code.
 */
export function codeAt(current: Current, places: readonly Hl7Place[], trim: boolean, skipNumbers: boolean): string {
  const values = places.map((p) => (trim ? valueAt(current, p).trim() : valueAt(current, p))).filter(isValue);
  if (skipNumbers) {
    const named = values.find((v) => !/^\d+$/.test(v.trim()));
    if (named !== undefined) return named;
  }
  return values[0] ?? '';
}

export function holds(current: Current, matches: readonly Hl7Match[]): boolean {
  return matches.some((m) => m.anyOf.includes(valueAt(current, m.place).trim()));
}

export function read(seg: Hl7Segment, r: Hl7FieldReading, trim: boolean): string {
  let text: string;
  if (r.component === 'all') {
    const parts = seg.components(r.field);
    while (parts.length > 1 && parts[parts.length - 1] === '') parts.pop();
    text = parts.join(r.join ?? '^');
  } else {
    text = seg.field(r.field, 1, r.component ?? 1);
  }
  return trim ? text.trim() : text;
}

/** `OBR-3`, `SPM-2.1.1`: a place as HL7 people write it, for reasons. */
export function placeName(p: Hl7Place): string {
  return `${p.segment}-${p.field}${p.component !== undefined && p.component !== 1 ? `.${p.component}` : ''}${p.subcomponent !== undefined && p.subcomponent !== 1 ? `.${p.subcomponent}` : ''}`;
}
