/**
 * The body of a pushed order (spec 4.6 shows no shape): `{ order: {...} }`, a
 * bare order, or `{ orders: [...] }`. All orders of one request are validated
 * before any is accepted, so the LIS gets one clear answer for the whole batch.
 */
import { OrderSchema, describeIssues, type Order } from './schemas';

export type PushedOrders = { ok: true; orders: Order[] } | { ok: false; message: string; errors: string[] };

const MISSING = 'order data missing or empty';

export function readPushedOrders(body: unknown): PushedOrders {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    return { ok: false, message: MISSING, errors: ['the body must be a JSON object: { "order": {...} }, { "orders": [...] } or an order'] };
  }
  const b = body as Record<string, unknown>;
  let candidates: unknown[];
  let root: (i: number) => string;
  if ('orders' in b) {
    if (!Array.isArray(b.orders) || b.orders.length === 0) {
      return { ok: false, message: MISSING, errors: ['orders must be a non-empty array of orders'] };
    }
    candidates = b.orders;
    root = (i) => `orders[${i}]`;
  } else if ('order' in b) {
    if (isEmpty(b.order)) return { ok: false, message: MISSING, errors: ['order is empty'] };
    candidates = [b.order];
    root = () => 'order';
  } else if (Object.keys(b).length > 0) {
    candidates = [b];
    root = () => 'order';
  } else {
    return { ok: false, message: MISSING, errors: ['the body is an empty object'] };
  }

  const orders: Order[] = [];
  const errors: string[] = [];
  candidates.forEach((candidate, i) => {
    if (isEmpty(candidate)) {
      errors.push(`${root(i)}: ${MISSING}`);
      return;
    }
    const parsed = OrderSchema.safeParse(candidate);
    if (parsed.success) orders.push(parsed.data);
    else errors.push(...describeIssues(parsed.error, root(i)));
  });
  if (errors.length > 0) return { ok: false, message: 'order data invalid: nothing was accepted', errors };
  return { ok: true, orders };
}

function isEmpty(v: unknown): boolean {
  return v === null || v === undefined || (typeof v === 'object' && Object.keys(v).length === 0);
}
