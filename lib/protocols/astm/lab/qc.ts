/** QC markers: whether a message (H rules) or one order (O rules) is quality control. */
import { repeatsOf, type AstmValue, type HeaderRecord, type OrderRecord } from '../records';
import type { QcRule } from '../dialects';

function holds(value: AstmValue | undefined, component: number, anyOf: readonly string[]): boolean {
  return repeatsOf(value).some((r) => anyOf.includes((r[component - 1] ?? '').trim()));
}

export function headerIsQc(rules: readonly QcRule[], header: HeaderRecord | undefined): boolean {
  if (header === undefined) return false;
  return rules.some((r) => r.record === 'H' && holds(header[r.field], r.component, r.anyOf));
}

export function orderIsQc(rules: readonly QcRule[], order: OrderRecord): boolean {
  return rules.some((r) => r.record === 'O' && holds(order[r.field], r.component, r.anyOf));
}
