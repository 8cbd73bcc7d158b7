/** Host queries (Q records): which samples the analyzer asks about, and whether it cancels. */
import { repeatsOf, type Delimiters, type QueryRecord } from '../records';
import type { QueryRule, TestIdRule } from '../dialects';
import { fieldLabel, fieldNumber, locateCode } from './fields';
import type { QueriedSample } from '../../../lab/types';
import { sampleNumberProblem } from '../../../conversation/sample-number';
import { rawEscapeAt } from './samples';

export interface QueryRead {
  cancel: boolean;
  samples: QueriedSample[];
  problems: string[];
}

export function readQuery(q: QueryRecord, record: number, rule: QueryRule, testId: TestIdRule, d: Delimiters): QueryRead {
  const cancel = rule.cancelStatus !== undefined && repeatsOf(q.statusCode).some((r) => (r[0] ?? '').trim() === rule.cancelStatus);
  const instrumentTests = testsOf(q, rule, testId, d);
  const all = repeatsOf(q.startingRange);
  const repeats = rule.repeats === 'all' ? all : all.slice(0, 1);
  const samples: QueriedSample[] = [];
  const problems: string[] = [];
  repeats.forEach((range, i) => {
    const position = range.length === 1 && rule.bareRepeatComponent !== undefined ? rule.bareRepeatComponent : rule.component;
    const raw = range[position - 1] ?? '';
    const sampleNumber = rule.trim ? raw.trim() : raw;
    if (sampleNumber.trim() === '') {
      const which = repeats.length > 1 ? `repeat ${i + 1} of ` : '';
      problems.push(`Q record ${record} names no sample at component ${position} of ${which}${fieldLabel('Q', 'startingRange')} (${JSON.stringify(range.join(d.component))})`);
      return;
    }
    const bad = sampleNumberProblem(sampleNumber, { rawDelimiter: rawEscapeAt(q, fieldNumber('Q', 'startingRange'), i + 1, position, raw, d) });
    if (bad !== undefined) {
      problems.push(`Q record ${record}, ${fieldLabel('Q', 'startingRange')}: ${bad} (not asked of the LIS)`);
      return;
    }
    samples.push({ sampleNumber, instrumentTests: [...instrumentTests], range: [...range], record });
  });
  if (repeats.length === 0) problems.push(`Q record ${record} has no ${fieldLabel('Q', 'startingRange')}: range or time-window queries are not supported`);
  return { cancel, samples, problems };
}

/**
 * Q-5 as instrument test codes; [] when it asks for all tests: empty, or one
 * of the profile's "all" words, as the whole field (`ALL`) or where the
 * profile reads test codes (`^^^ALL`, LIS2-A2's universal test ID form, as
 * the ARCHITECT sends it).
 */
function testsOf(q: QueryRecord, rule: QueryRule, testId: TestIdRule, d: Delimiters): string[] {
  const codes: string[] = [];
  for (const r of repeatsOf(q.universalTestId)) {
    const text = r.join(d.component).trim();
    if (text === '' || rule.allTests.includes(text)) return [];
    const code = locateCode(r, testId);
    if (rule.allTests.includes(code)) return [];
    if (code !== '' && !codes.includes(code)) codes.push(code);
  }
  // Repeats with no code where the profile looks leave codes empty: "all", as
  // the answer carries the LIS order's tests for this analyzer either way.
  return codes;
}
