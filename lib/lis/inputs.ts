/**
 * What the LIS nodes accept on msg.payload, read into the client's arguments.
 * Every function throws INVALID_INPUT naming what was wrong.
 */
import { invalidInput } from '../errors';

const CONTROL_OR_WIDE = /[^\t\x20-\x7e\x80-\xff]/;

/**
 * lis-get-order: a sample number string, or { SampleNumber, allTests? }.
 * Surrounding white space is trimmed (analyzers pad sample IDs); what is left
 * must be usable in the X-Expected-Sample header.
 */
export function orderRequestFrom(payload: unknown, nodeAllTests: boolean): { sampleNumber: string; allTests: boolean } {
  let raw: unknown = payload;
  let allTests = nodeAllTests;
  if (typeof payload === 'object' && payload !== null && !Array.isArray(payload)) {
    const p = payload as Record<string, unknown>;
    raw = p.SampleNumber;
    if (p.allTests !== undefined) allTests = [true, 1, '1', 'true'].includes(p.allTests as never);
  }
  if (typeof raw !== 'string') {
    throw invalidInput('order not requested', [`msg.payload must be a sample number string or { SampleNumber }, got ${describe(raw)}`]);
  }
  const sampleNumber = raw.trim();
  if (sampleNumber === '') throw invalidInput('order not requested', ['SampleNumber is empty']);
  if (CONTROL_OR_WIDE.test(sampleNumber)) {
    throw invalidInput('order not requested', ['SampleNumber holds control characters or characters outside Latin-1, which cannot travel in the X-Expected-Sample header']);
  }
  return { sampleNumber, allTests };
}

/** lis-send-results: an array of result items, or { results: [...] }. Items are validated by the client. */
export function resultsFrom(payload: unknown): unknown[] {
  if (Array.isArray(payload)) return payload;
  if (typeof payload === 'object' && payload !== null && Array.isArray((payload as { results?: unknown }).results)) {
    return (payload as { results: unknown[] }).results;
  }
  throw invalidInput('results not sent', [`msg.payload must be an array of result items or { results: [...] }, got ${describe(payload)}`]);
}

/** lis-get-tests: the node's filters, each overridable by msg.payload.Name / msg.payload.Code. */
export function testsFilterFrom(payload: unknown, defaults: { Name?: string; Code?: string }): { Name?: string; Code?: string } {
  const out: { Name?: string; Code?: string } = {};
  const p = typeof payload === 'object' && payload !== null ? (payload as Record<string, unknown>) : {};
  for (const key of ['Name', 'Code'] as const) {
    const v = p[key] !== undefined ? p[key] : defaults[key];
    if (v === undefined || v === null || v === '') continue;
    if (typeof v !== 'string') throw invalidInput('tests not requested', [`msg.payload.${key} must be a string, got ${describe(v)}`]);
    out[key] = v;
  }
  return out;
}

export function describe(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  if (typeof v === 'string') return v === '' ? 'an empty string' : 'a string';
  return typeof v === 'object' ? 'an object without the expected fields' : `a ${typeof v}`;
}
