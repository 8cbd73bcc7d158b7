/**
 * The four LIS endpoints of the spec (section 4), as functions from a parsed
 * request body to an answer. No HTTP here: DemoLis does transport, auth and
 * recording, which keeps each rule below readable on its own.
 *
 * Bodies that break the spec are refused with 422 and the spec 7 error shape
 * { message, errors }, naming each bad field, so an integrator sees exactly
 * what to fix. Test codes or IDs the catalog does not know are accepted with
 * `warnings`: the spec does not say a LIS refuses them, but the likely cause
 * (an ID sent where a code belongs, or the other way round) is worth showing.
 */
import { z } from 'zod';
import { ResultItemsSchema, describeIssues, type LisTest } from '../lib/lis/schemas';
import { errorBody } from './http';
import type { ProcessedLedger } from './journal';
import type { OrderBook } from './orders';

export interface Answer {
  status: number;
  body: unknown;
  /** One readable phrase for the log and the page. */
  note: string;
}

const notBlank = (what: string) => z.string().refine((v) => v.trim() !== '', { message: `${what} must not be empty` });

const TestsRequestSchema = z.looseObject({
  Name: z.string().nullish(),
  Code: z.string().nullish(),
});

const OrderRequestSchema = z.looseObject({
  SampleNumber: notBlank('SampleNumber'),
  allTests: z.string().nullish(),
});

const ResultsRequestSchema = z.looseObject({
  results: ResultItemsSchema,
});

const ProcessedRequestSchema = z.looseObject({
  SampleNumber: notBlank('SampleNumber'),
  Tests: z.unknown(),
});

const ProcessedTestsSchema = z.array(notBlank('test ID')).min(1, { message: 'must list at least one test ID' });

function invalid(error: z.ZodError, root = ''): Answer {
  const errors = describeIssues(error, root);
  return { status: 422, body: errorBody('request body invalid', errors), note: `refused: ${errors.join('; ')}` };
}

/** Spec 4.1: Name and Code are partial-match filters, both applied; case does not matter. */
export function answerTests(body: unknown, catalog: readonly LisTest[]): Answer {
  // The package sends {} without filters; an empty body means the same here.
  const parsed = TestsRequestSchema.safeParse(body ?? {});
  if (!parsed.success) return invalid(parsed.error);
  const name = parsed.data.Name?.trim().toLowerCase() ?? '';
  const code = parsed.data.Code?.trim().toLowerCase() ?? '';
  const tests = catalog.filter((t) => t.Name.toLowerCase().includes(name) && t.Code.toLowerCase().includes(code));
  const filters = [name && `Name~"${name}"`, code && `Code~"${code}"`].filter(Boolean).join(' ');
  return { status: 200, body: { tests }, note: `${tests.length} tests${filters ? ` for ${filters}` : ''}` };
}

/**
 * Spec 4.2. Tests already confirmed through the processed endpoint are left
 * out unless allTests is "1"; an order with every test processed is answered
 * like a missing one, with its own status word.
 */
export function answerOrders(body: unknown, book: OrderBook, ledger: ProcessedLedger, now: Date): Answer {
  const parsed = OrderRequestSchema.safeParse(body);
  if (!parsed.success) return invalid(parsed.error);
  const sample = parsed.data.SampleNumber;
  const found = book.lookup(sample, now);
  if (!found.found) return { status: 200, body: { status: 'not found' }, note: `no order for ${sample}` };
  const order = found.order;
  if (parsed.data.allTests !== '1') {
    const done = ledger.processed(sample);
    const open = order.Tests.filter((id) => !done.has(id));
    if (open.length === 0) {
      return { status: 200, body: { status: 'already processed' }, note: `every test of ${sample} already processed (ask with allTests "1" for all)` };
    }
    order.Tests = open;
  }
  return { status: 200, body: { status: 'success', order }, note: `${found.source} order ${sample}: ${order.Tests.join(', ')}` };
}

/** Spec 4.3, items checked with the package's own ResultItemSchema. */
export function answerResults(body: unknown, catalog: readonly LisTest[]): Answer {
  const parsed = ResultsRequestSchema.safeParse(body);
  if (!parsed.success) return invalid(parsed.error);
  const results = parsed.data.results;
  const codes = new Set(catalog.map((t) => t.Code));
  const warnings: string[] = [];
  results.forEach((item, i) => {
    if (codes.has(item.TestCode)) return;
    const byId = catalog.find((t) => t.ID === item.TestCode);
    const hint = byId ? `: that is a test ID; results carry the test code (${byId.Code})` : '';
    warnings.push(`results[${i}].TestCode: ${item.TestCode} is not a code in the catalog${hint}`);
  });
  const samples = [...new Set(results.map((r) => r.SampleNumber))].join(', ');
  return {
    status: 200,
    body: { status: 'success', received: results.length, ...(warnings.length > 0 ? { warnings } : {}) },
    note: `${results.length} results for ${samples}${warnings.length > 0 ? ` (${warnings.length} warnings)` : ''}`,
  };
}

/** Spec 4.4: Tests is a JSON-serialised array of test IDs, carried as a string. */
export function answerProcessed(body: unknown, catalog: readonly LisTest[], ledger: ProcessedLedger): Answer {
  const parsed = ProcessedRequestSchema.safeParse(body);
  if (!parsed.success) return invalid(parsed.error);
  const { SampleNumber, Tests } = parsed.data;
  const refuse = (error: string): Answer => ({ status: 422, body: errorBody('request body invalid', [error]), note: `refused: ${error}` });
  if (Array.isArray(Tests)) {
    return refuse('Tests: must be a JSON-serialised string such as "[\\"T-GLU\\"]", not a nested array (spec 4.4)');
  }
  if (typeof Tests !== 'string') return refuse('Tests: must be a string holding a JSON array of test IDs');
  let ids: unknown;
  try {
    ids = JSON.parse(Tests);
  } catch {
    return refuse('Tests: the string is not JSON; expected a JSON array of test IDs such as "[\\"T-GLU\\"]"');
  }
  const checked = ProcessedTestsSchema.safeParse(ids);
  if (!checked.success) return invalid(checked.error, 'Tests');
  const known = new Set(catalog.map((t) => t.ID));
  const warnings: string[] = [];
  for (const id of checked.data) {
    if (known.has(id)) continue;
    const byCode = catalog.find((t) => t.Code === id);
    const hint = byCode ? `: that is a test code; processed notifications carry test IDs (${byCode.ID})` : '';
    warnings.push(`Tests: ${id} is not a test ID in the catalog${hint}`);
  }
  ledger.mark(SampleNumber, checked.data);
  return {
    status: 200,
    body: { status: 'success', processed: checked.data.length, ...(warnings.length > 0 ? { warnings } : {}) },
    note: `${SampleNumber} processed: ${checked.data.join(', ')}${warnings.length > 0 ? ` (${warnings.length} warnings)` : ''}`,
  };
}
