/**
 * The LIS the bench's flows talk to: the tests' LisStub (test/support/lis-stub.ts)
 * answering the example's four endpoints under /api at once, with an order
 * carrying the example's six tests for every sample asked about (the HL7
 * example's four for section 4's HL7 samples). Every request
 * keeps when it arrived (headers in) and when its answer was finished (the
 * last byte handed to the socket): their difference is the time the stand-in
 * spent answering, which section 4 takes off the host query time.
 */
import { LisStub, anOrder, type RecordedRequest } from '../test/support/lis-stub';
import { hl7BenchExample } from './flows';

/** The LIS test IDs the generic example maps (T-GLU -> GLU ...). */
const EXAMPLE_TESTS = ['T-GLU', 'T-CREA', 'T-UREA', 'T-ALT', 'T-CHOL', 'T-CRP'];

/** Samples the HL7 analyzer of section 4 asks about: their orders carry the HL7 example's tests. */
export const HL7_SAMPLE_PREFIX = 'H7-';
const HL7_EXAMPLE_TESTS = hl7BenchExample().tests.map((t) => t.lisTestId);

const OK = { body: { status: 'success' } };

export async function startBenchLis(): Promise<LisStub> {
  const lis = await new LisStub().start();
  lis.reply('/api/tests', { body: { status: 'success', tests: [] } });
  lis.handle('/api/orders', (req) => {
    const sample = sampleOf(req);
    return { body: { status: 'success', order: anOrder(sample, { Tests: sample.startsWith(HL7_SAMPLE_PREFIX) ? HL7_EXAMPLE_TESTS : EXAMPLE_TESTS, patient: { ID: `P-${sample}`, Name: 'Roe, Jane', Sex: 'F', DateOfBirth: '19800229', Age: '46', AgeUnit: 'Y' } }) } };
  });
  lis.reply('/api/results', OK);
  lis.reply('/api/processed', OK);
  return lis;
}

/** Environment of the example flows pointing at the bench's LIS. */
export function benchLisEnv(lis: LisStub): Record<string, string> {
  return lis.exampleEnv('bench-token', '/api');
}

type Body = { SampleNumber?: unknown; results?: Array<{ SampleNumber?: unknown }> } | undefined;

/** The sample a request is about: X-Expected-Sample (else SampleNumber) on orders, the first result's SampleNumber on results, SampleNumber on processed. */
export function sampleOf(req: RecordedRequest): string {
  const body = req.json as Body;
  if (req.path === '/api/orders') return String(req.headers['x-expected-sample'] ?? body?.SampleNumber ?? '');
  if (req.path === '/api/results') return String(body?.results?.[0]?.SampleNumber ?? '');
  return String(body?.SampleNumber ?? '');
}

/** Result items in a results request's body. */
export function resultCount(req: RecordedRequest): number {
  return (req.json as Body)?.results?.length ?? 0;
}
