/**
 * What a finished E2eRun must show, at the LIS and at the analyzer: every
 * result the analyzer had acknowledged arrives once, under its own sample,
 * with the LIS code and the value sent; every sample is reported processed
 * once, after its results; every order request names its sample; every
 * download carries that sample's tests and patient.
 */
import assert from 'node:assert/strict';
import { decodeMessage, repeatsOf, type AstmValue, type OrderRecord, type PatientRecord } from '../../lib/protocols/astm/records';
import type { Hl7RunSummary, RunSummary } from '../../lib/sim';
import type { LisStub, RecordedRequest } from '../support/lis-stub';
import { dirname } from 'node:path';
import { readJournalFile } from '../support/journal-file';
import { TOKEN, astmProfileOf, itemsOf, resultItems, type E2eRun, type MappedTest, type SimRecord } from './harness';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i;
const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

function done(run: E2eRun): { stub: LisStub; summary: RunSummary | Hl7RunSummary; simRecord: SimRecord } {
  assert.ok(run.stub && run.summary && run.simRecord, 'the run did not get as far as running its samples');
  return { stub: run.stub, summary: run.summary, simRecord: run.simRecord };
}

function byInstrumentCode(run: E2eRun): Map<string, MappedTest> {
  return new Map(run.example.tests.map((t) => [t.instrumentCode, t]));
}

function byLisTestId(run: E2eRun): Map<string, MappedTest> {
  return new Map(run.example.tests.map((t) => [t.lisTestId, t]));
}

function countBy<T>(items: readonly T[], key: (t: T) => string): Map<string, number> {
  const m = new Map<string, number>();
  for (const i of items) m.set(key(i), (m.get(key(i)) ?? 0) + 1);
  return m;
}

/** Items of `a` not matched one-for-one in `b`. */
function multisetMinus(a: readonly string[], b: readonly string[]): string[] {
  const left = countBy(b, (x) => x);
  const out: string[] = [];
  for (const x of a) {
    const n = left.get(x) ?? 0;
    if (n > 0) left.set(x, n - 1);
    else out.push(x);
  }
  return out;
}

const sampleOf = (req: RecordedRequest): unknown => (req.json as { SampleNumber?: unknown } | undefined)?.SampleNumber;

/** Every request to the LIS: POST, JSON, the Bearer Token from LIS_TOKEN, a fresh UUID and a current ISO timestamp. */
export function checkRequestHeaders(run: E2eRun): void {
  const { stub } = done(run);
  assert.ok(stub.requests.length > 0, 'no request reached the LIS');
  const now = Date.now();
  for (const req of stub.requests) {
    const where = `${req.path} ${req.body}`;
    assert.ok(['/orders', '/results', '/processed', '/tests'].includes(req.path), `request to an unknown path: ${where}`);
    assert.equal(req.method, 'POST', where);
    assert.match(String(req.headers['content-type']), /^application\/json/, where);
    assert.equal(req.headers.authorization, `Bearer ${TOKEN}`, `Authorization of ${where}`);
    assert.match(String(req.headers['x-request-id']), UUID, `X-Request-ID of ${where}`);
    const stamp = String(req.headers['x-request-timestamp']);
    assert.match(stamp, ISO_MS, `X-Request-Timestamp of ${where}`);
    const t = Date.parse(stamp);
    assert.ok(t >= run.startedAt - 1_000 && t <= now + 1_000, `X-Request-Timestamp ${stamp} of ${where} is not the time of the run`);
    if (req.path !== '/orders') assert.equal(req.headers['x-expected-sample'], undefined, `X-Expected-Sample on ${where}`);
  }
  const ids = stub.requests.map((r) => String(r.headers['x-request-id']));
  assert.equal(new Set(ids).size, ids.length, 'an X-Request-ID was used twice');
}

/** One order request per scanned sample, each with X-Expected-Sample equal to its body's SampleNumber. */
export function checkOrderRequests(run: E2eRun): void {
  const { stub } = done(run);
  const orders = stub.to('/orders');
  for (const req of orders) {
    assert.equal(typeof sampleOf(req), 'string', `order request without a SampleNumber: ${req.body}`);
    assert.equal(req.headers['x-expected-sample'], sampleOf(req), `X-Expected-Sample of ${req.body}`);
  }
  assert.deepEqual(orders.map((r) => String(sampleOf(r))).sort(), [...run.config.samples].sort(), 'one order request per scanned sample');
}

/**
 * Every result the simulator reported as acknowledged is at the LIS exactly
 * once, under its own sample, with the LIS code of the example's mapping and
 * the value the simulator sent; nothing else is.
 */
export function checkResults(run: E2eRun): void {
  const { stub, summary } = done(run);
  const mapping = byInstrumentCode(run);
  const key = (sample: string, code: string, value: string) => `${sample} ${code} = ${JSON.stringify(value)}`;
  const expected: string[] = [];
  for (const s of summary.samples) {
    if (!s.resultsAcked) continue;
    for (const r of s.results ?? []) {
      const t = mapping.get(r.code);
      assert.ok(t, `the simulator reported ${r.code} for ${s.sampleNumber}, which the example does not map`);
      expected.push(key(s.sampleNumber, t.lisCode, r.value));
    }
  }
  assert.ok(expected.length > 0, 'the simulator had no acknowledged result to check');
  const items = resultItems(stub);
  for (const i of items) assert.equal(i.SubTestCode, undefined, `SubTestCode on ${JSON.stringify(i)}: the mapping has no sub-codes`);
  const got = items.map((i) => key(i.SampleNumber, i.TestCode, i.Result));
  const duplicated = [...countBy(items, (i) => `${i.SampleNumber} ${i.TestCode}`)].filter(([, n]) => n > 1).map(([k, n]) => `${k} x${n}`);
  const wrongSample = items
    .filter((i) => {
      const planned = run.plan.get(i.SampleNumber);
      const lisCodes = (planned?.tests ?? []).map((id) => byLisTestId(run).get(id)?.lisCode);
      return !lisCodes.includes(i.TestCode);
    })
    .map((i) => `${i.SampleNumber} ${i.TestCode} (not ordered for that sample)`);
  assert.deepEqual(
    { lost: multisetMinus(expected, got), duplicated, wrongSample, unexpected: multisetMinus(got, expected) },
    { lost: [], duplicated: [], wrongSample: [], unexpected: [] },
    'results at the LIS against what the analyzer sent and had acknowledged',
  );
  assert.deepEqual([...got].sort(), [...expected].sort());
}

/**
 * One processed notification per sample whose results were acknowledged, after
 * its results, with Tests a JSON string of the LIS test IDs that came back.
 */
export function checkProcessed(run: E2eRun): void {
  const { stub, summary } = done(run);
  const mapping = byInstrumentCode(run);
  const lisIdOfCode = new Map(run.example.tests.map((t) => [t.lisCode, t.lisTestId]));
  const processed = stub.to('/processed');
  const reported = summary.samples.filter((s) => s.resultsAcked).map((s) => s.sampleNumber);
  assert.deepEqual(processed.map((r) => String(sampleOf(r))).sort(), [...reported].sort(), 'one processed notification per sample with results');
  const resultRequests = stub.to('/results');
  for (const req of processed) {
    const body = req.json as { SampleNumber: string; Tests: unknown };
    assert.equal(typeof body.Tests, 'string', `Tests of ${req.body} must be a JSON string (spec 4.4)`);
    const tests = JSON.parse(body.Tests as string) as unknown;
    assert.ok(Array.isArray(tests) && tests.every((t) => typeof t === 'string'), `Tests of ${req.body} is not a JSON array of IDs`);
    const came = resultRequests
      .flatMap(itemsOf)
      .filter((i) => i.SampleNumber === body.SampleNumber)
      .map((i) => lisIdOfCode.get(i.TestCode) ?? `?${i.TestCode}`);
    assert.deepEqual([...(tests as string[])].sort(), [...new Set(came)].sort(), `processed Tests of ${body.SampleNumber} against its results at the LIS`);
    const sent = summary.samples.find((s) => s.sampleNumber === body.SampleNumber)?.results ?? [];
    assert.deepEqual([...(tests as string[])].sort(), sent.map((r) => mapping.get(r.code)?.lisTestId ?? `?${r.code}`).sort(), `processed Tests of ${body.SampleNumber} against the results the analyzer sent`);
    const lastResults = resultRequests.filter((r) => itemsOf(r).some((i) => i.SampleNumber === body.SampleNumber)).at(-1);
    assert.ok(lastResults && lastResults.at <= req.at, `${body.SampleNumber} reported processed before its results reached the LIS`);
  }
}

/** Every sample with an order: the simulator ran it through, and its download had the sample's mapped tests (in the order's order) and patient. */
export function checkDownloads(run: E2eRun): void {
  const { summary, simRecord } = done(run);
  const layout = astmProfileOf(run.example).order;
  assert.ok(layout, `${run.example.spec.dialect} has no order layout`);
  const mapping = byLisTestId(run);
  for (const [sample, planned] of run.plan) {
    const outcome = summary.samples.find((s) => s.sampleNumber === sample);
    assert.ok(outcome, `no outcome for ${sample}`);
    assert.equal(outcome.ok, true, `${sample}: ${outcome.error ?? 'not ok'}`);
    const order = outcome.order;
    assert.ok(order && 'reportType' in order, `${sample}: no download`);
    assert.equal(order.sampleNumber, sample);
    assert.deepEqual(order.problems, [], `${sample}: the analyzer objects to the download`);
    assert.deepEqual(order.tests, planned.tests.map((id) => mapping.get(id)!.instrumentCode), `${sample}: downloaded tests`);
    assert.equal(order.reportType, layout.order.reportType.queried, `${sample}: the download answers the query`);
    assert.equal(simRecord.orders.filter((o) => o.sampleNumber === sample).length, 1, `${sample}: downloaded once`);
    assert.deepEqual((outcome.results ?? []).map((r) => r.code), order.tests, `${sample}: the analyzer reported its ordered tests`);
    checkPatient(run, sample, simRecord.received);
    checkEcho(run, sample, simRecord);
  }
  // Nothing was downloaded for a sample nobody ordered.
  assert.deepEqual(simRecord.orders.filter((o) => !run.plan.has(o.sampleNumber)), [], 'downloads for samples the LIS has no order for');
}

/**
 * HL7: every sample with an order was answered before the analyzer's deadline
 * (the simulator gives up after its dialect's queryDeadlineMs), and got one
 * download (DSR^Q03 or OML^O33) answering its query, with the sample's mapped
 * tests in the order's order and its patient; the analyzer reported exactly
 * those tests. No download for a sample nobody ordered.
 */
export function checkHl7Downloads(run: E2eRun): void {
  const { summary, simRecord } = done(run);
  const profile = run.example.hl7Profile;
  assert.ok(profile?.answer, `${run.example.spec.dialect} is no HL7 dialect with an order layout`);
  const orderType = profile.answer.form === 'display' ? 'DSR^Q03' : 'OML^O33';
  const mapping = byLisTestId(run);
  for (const [sample, planned] of run.plan) {
    const outcome = summary.samples.find((s) => s.sampleNumber === sample);
    assert.ok(outcome, `no outcome for ${sample}`);
    assert.equal(outcome.ok, true, `${sample}: ${outcome.error ?? 'not ok'} (the analyzer gives up on a query after ${profile.queryDeadlineMs} ms)`);
    const order = outcome.order;
    assert.ok(order && 'messageType' in order, `${sample}: no download`);
    assert.equal(order.sampleNumber, sample);
    assert.deepEqual(order.problems, [], `${sample}: the analyzer objects to the download`);
    assert.equal(order.unsolicited, false, `${sample}: the download answers the query`);
    assert.equal(order.messageType, orderType, `${sample}: downloaded as ${orderType}`);
    assert.deepEqual(order.tests, planned.tests.map((id) => mapping.get(id)!.instrumentCode), `${sample}: downloaded tests`);
    assert.equal(order.patient?.id, planned.patient.ID, `${sample}: patient ID`);
    assert.ok((order.patient?.name ?? '').includes(planned.patient.Name.split(', ')[0]!), `${sample}: patient name ${JSON.stringify(order.patient?.name)} has ${planned.patient.Name}'s last name`);
    assert.equal(simRecord.orders.filter((o) => o.sampleNumber === sample).length, 1, `${sample}: downloaded once`);
    assert.deepEqual((outcome.results ?? []).map((r) => r.code), order.tests, `${sample}: the analyzer reported its ordered tests`);
  }
  assert.deepEqual(simRecord.orders.filter((o) => !run.plan.has(o.sampleNumber) && !o.unsolicited), [], 'downloads for samples the LIS has no order for');
}

/** P record of the download holding `sample`, checked field by field against the LIS patient where the dialect's layout writes it. */
function checkPatient(run: E2eRun, sample: string, received: SimRecord['received']): void {
  const planned = run.plan.get(sample)!;
  const spec = astmProfileOf(run.example).order!.patient;
  const p = patientRecordFor(received, sample);
  assert.ok(p, `${sample}: no P record before its O record in the downloads`);
  const [last, first] = planned.patient.Name.split(', ');
  const comp = (v: AstmValue | undefined, i: number) => (repeatsOf(v)[0]?.[i] ?? '').trim();
  if (spec.id !== undefined) assert.equal(comp(p[spec.id], 0), planned.patient.ID, `${sample}: patient ID in P ${spec.id}`);
  const name = repeatsOf(p.name)[0] ?? [];
  if (spec.nameComponents !== undefined) assert.deepEqual([name[0], name[1]], [last, first], `${sample}: patient name (last^first)`);
  if (spec.nameOrder !== undefined) {
    spec.nameOrder.forEach((role, i) => {
      if (role !== '') assert.equal(name[i], role === 'last' ? last : first, `${sample}: patient name component ${i + 1} (${role})`);
    });
  }
  const birthAt = spec.birth?.indexOf('dateOfBirth') ?? -1;
  if (birthAt >= 0) assert.equal(comp(p.birthdate, birthAt), planned.patient.DateOfBirth, `${sample}: date of birth`);
  if (spec.sex === true) assert.equal(comp(p.sex, 0), planned.patient.Sex, `${sample}: sex`);
}

/** The P and O records of the download that names `sample` (in any component of O-3 or O-4). */
function downloadRecordsFor(received: SimRecord['received'], sample: string): { patient?: PatientRecord; order: OrderRecord } | undefined {
  for (const { text } of received) {
    let patient: PatientRecord | undefined;
    for (const rec of decodeMessage(text).records) {
      if (rec.type === 'P') patient = rec;
      if (rec.type === 'O') {
        const ids = [rec.specimenId, rec.instrumentSpecimenId].flatMap((v) => repeatsOf(v).flat().map((c) => c.trim()));
        if (ids.includes(sample)) return { ...(patient === undefined ? {} : { patient }), order: rec };
      }
    }
  }
  return undefined;
}

function patientRecordFor(received: SimRecord['received'], sample: string): PatientRecord | undefined {
  return downloadRecordsFor(received, sample)?.patient;
}

/** Components without the empty ones at the end: `^^S` and `^^S^` say the same. */
function trimmedComponents(v: AstmValue | undefined): string[] {
  const parts = [...(repeatsOf(v)[0] ?? [])];
  while (parts.length > 0 && parts[parts.length - 1] === '') parts.pop();
  return parts;
}

/** Where the layout copies the query into the download (Roche O-4, Sysmex O-3), the download repeats this sample's own query. */
function checkEcho(run: E2eRun, sample: string, simRecord: SimRecord): void {
  const echo = astmProfileOf(run.example).order!.order.echo ?? [];
  if (echo.length === 0) return;
  const queryText = simRecord.acked.find((m) => m.kind === 'query' && m.sampleNumber === sample)?.text;
  assert.ok(queryText, `${sample}: no acknowledged query`);
  const q = decodeMessage(queryText).records.find((r) => r.type === 'Q');
  assert.ok(q && q.type === 'Q', `${sample}: no Q record in its query`);
  const range = repeatsOf(q.startingRange)[0] ?? [];
  const o = downloadRecordsFor(simRecord.received, sample)?.order;
  assert.ok(o, `${sample}: no O record naming it in the downloads`);
  for (const e of echo) {
    const expected = trimmedComponents(range.slice(e.from - 1, e.to));
    assert.deepEqual(trimmedComponents(o[e.field]), expected, `${sample}: O ${e.field} repeats Q-3 components ${e.from}-${e.to} of its query`);
  }
}

/** NOORDER samples: asked for once, answered "no information", and nothing of theirs reaches the LIS. */
export function checkNoOrderSamples(run: E2eRun): void {
  const { stub, summary, simRecord } = done(run);
  const noOrder = run.config.samples.filter((s) => s.startsWith('NOORDER'));
  assert.ok(noOrder.length > 0, 'the run scanned no NOORDER sample');
  for (const sample of noOrder) {
    const outcome = summary.samples.find((s) => s.sampleNumber === sample);
    assert.equal(outcome?.noInformation, true, `${sample}: the analyzer got "no information" (${outcome?.error ?? ''})`);
    assert.equal(outcome?.results, undefined, `${sample}: no results reported`);
    assert.equal(stub.to('/orders').filter((r) => sampleOf(r) === sample).length, 1, `${sample}: asked for once`);
    assert.deepEqual(resultItems(stub).filter((i) => i.SampleNumber === sample), [], `${sample}: results at the LIS`);
    assert.deepEqual(stub.to('/processed').filter((r) => sampleOf(r) === sample), [], `${sample}: processed at the LIS`);
    assert.equal(simRecord.orders.filter((o) => o.sampleNumber === sample).length, 0, `${sample}: an order was downloaded`);
  }
}

/** The analyzer's side of the run: every message it sent was acknowledged and none failed. */
export function checkLine(run: E2eRun): void {
  const { summary, simRecord } = done(run);
  assert.deepEqual(simRecord.failed, [], 'messages the analyzer could not deliver');
  assert.equal(summary.counters.failed, 0);
  assert.equal(summary.counters.acked, summary.counters.sent, 'every message the analyzer sent was acknowledged');
  const results = simRecord.acked.filter((m) => m.kind === 'results').map((m) => m.sampleNumber);
  assert.deepEqual([...results].sort(), [...run.plan.keys()].sort(), 'one acknowledged results message per sample with an order');
}

/** Node-RED logged no error (a Catch-able failure, a link or serial error) during the run. */
export function checkNodeRedLog(run: E2eRun): void {
  assert.ok(run.red, 'Node-RED was not started');
  const errors = run.red
    .output()
    .split('\n')
    .filter((l) => /\[error\]/.test(l));
  assert.deepEqual(errors, [], 'errors in Node-RED\'s log');
}

/**
 * What every example run must show, whatever the protocol, as it() titles and
 * checks; `downloads` is the protocol's own check of the order downloads.
 */
/**
 * Every result the run read has its end, by the Lab sidebar's summary and by the journal file read on its own: each
 * message settled (its parts all handed on: a batch, or holds that end it), no hold open, no batch held.
 */
export async function checkEveryResultEnded(run: E2eRun): Promise<void> {
  const answer = (await run.red!.held()) as unknown as { summary: Record<string, unknown>; holds: unknown[] };
  assert.deepEqual(answer.summary, { waiting: 0, heldBatches: 0, stuck: 0, onTheirWay: 0, notUnderstood: 0, everythingReached: true }, `the Lab summary (holds: ${JSON.stringify(answer.holds)})`);
  const file = readJournalFile(dirname(run.red!.journalFile));
  const handed = new Map<string, Set<number>>();
  for (const b of file.batches.values()) if (b.message !== undefined && b.part !== undefined) (handed.get(b.message) ?? handed.set(b.message, new Set()).get(b.message)!).add(b.part);
  for (const e of file.lines) if (e.e === 'hold' && e.endsPart === true && typeof e.message === 'string') (handed.get(e.message) ?? handed.set(e.message, new Set()).get(e.message)!).add(Number(e.part));
  const unsettled = [...file.messages.values()].filter((m) => m.parts === undefined || (handed.get(m.id)?.size ?? 0) < m.parts).map((m) => `${m.id} (parts ${m.parts ?? '?'}, handed ${handed.get(m.id)?.size ?? 0})`);
  assert.deepEqual(unsettled, [], 'every message in the journal file settled');
  const ended = new Set(file.lines.filter((e) => e.e === 'holdu').map((e) => String(e.id)));
  for (const key of file.batches.keys()) if (key.startsWith('hold:')) ended.add(key.slice('hold:'.length));
  const open = file.lines.filter((e) => e.e === 'hold').flatMap((e) => (e.holds as Array<{ id: string }>).map((h) => h.id)).filter((id) => !ended.has(id));
  assert.deepEqual(open, [], 'no hold open in the journal file');
  assert.deepEqual([...file.batches.values()].filter((b) => b.state !== 'delivered').map((b) => `${b.key} ${b.state}`), [], 'every batch delivered');
}

export function exampleChecks(downloads: (run: E2eRun) => void): Array<[title: string, check: (run: E2eRun) => void | Promise<void>]> {
  return [
    ['sends the Bearer Token from LIS_TOKEN, a fresh X-Request-ID and an ISO X-Request-Timestamp on every LIS request', checkRequestHeaders],
    ['asks the LIS once per scanned sample, with X-Expected-Sample equal to the SampleNumber', checkOrderRequests],
    ['downloads each sample\'s LIS tests as the mapped instrument codes, with its patient, as the answer to its query (in time: the analyzer gives up at its deadline)', downloads],
    ['delivers every acknowledged result once, for its own sample, with the mapped LIS code and the value sent', checkResults],
    ['reports each sample processed once, after its results, with the LIS test IDs that came back', checkProcessed],
    ['answers the NOORDER sample "no information" (not found) and sends nothing of it to the LIS', checkNoOrderSamples],
    ['leaves no message of the analyzer undelivered or unacknowledged', checkLine],
    ['logs no error in Node-RED', checkNodeRedLog],
    ['ends every result it read: the Lab summary says everything reached the LIS, and the journal file agrees', checkEveryResultEnded],
  ];
}
