/**
 * What identifies a result the LIS holds: the sample, the LIS test (and
 * sub-test) and the value, exactly as they were posted (spec 4.3). The LIS
 * knows nothing else of a result, so two items equal in these four are the
 * same result to it, whatever the analyzer message, the time or the mapping
 * that made them. A result the LIS holds under another test code (the mapping
 * changed what an instrument test means) is a result it never got.
 *
 * Keys are digests: the journal keeps one per delivered result for its
 * retention time, and they need not spell out sample numbers in memory.
 */
import { createHash } from 'node:crypto';

export interface ResultIdentity {
  SampleNumber: string;
  TestCode: string;
  SubTestCode?: string | null | undefined;
  Result: string;
}

export function resultKey(item: ResultIdentity): string {
  const text = JSON.stringify([item.SampleNumber, item.TestCode, item.SubTestCode ?? '', item.Result]);
  return createHash('sha256').update(text).digest('base64url').slice(0, 22);
}

/** The result keys of a journaled batch body (items that are no result items are left out: a body is checked before it is sent). */
export function resultKeysOf(body: unknown): string[] {
  if (!Array.isArray(body)) return [];
  const out: string[] = [];
  for (const item of body as Array<Partial<ResultIdentity> | null>) {
    if (item && typeof item.SampleNumber === 'string' && typeof item.TestCode === 'string' && typeof item.Result === 'string') out.push(resultKey(item as ResultIdentity));
  }
  return out;
}
