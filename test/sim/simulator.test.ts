/**
 * The simulator against the package's own host-side pieces (AstmLink in the
 * computer role, toLabEvents, buildOrderMessage / buildNoInformation), per
 * dialect: its queries name the right sample where the host reads it, it
 * understands the host's downloads, and its results are filed by the host
 * under the right sample and tests with units, ranges, flags and the
 * completion time.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { PROFILES, getProfile } from '../../lib/protocols/astm/dialects';
import { buildOrderMessage, type LabEvent } from '../../lib/protocols/astm/lab';
import { AnalyzerSimulator, MemoryTransport, TcpClientTransport, TcpServerTransport, SerialTransport, simulateValue, type ScanResult } from '../../lib/sim';
import { TestHost } from './support/host';
import { labOrder } from './support/test-host';
import { waitUntil } from '../support/wait';
import { cable } from './support/pty';
import { NOW, rig } from './support/setup';

const DIALECTS = ['generic-lis2a2', 'roche-cobas-e411', 'roche-cobas-e411-elecsys', 'mindray-cl'] as const;
const TESTS = ['GLU', 'CREA', 'TSH'];

function unassigned(events: LabEvent[]): LabEvent[] {
  return events.filter((e) => e.type === 'unassigned' || e.type === 'qc' || (e.type === 'results' && e.problems.length > 0));
}

for (const dialect of DIALECTS) {
  const profile = getProfile(dialect);

  describe(`simulator as ${dialect}`, () => {
    it('sends a query the host reads as a query for that sample', async (t) => {
      const r = await rig(t, dialect, { orders: [labOrder('S100', TESTS)] });
      await r.sim.scan('S100');
      assert.equal(r.host.queries.length, 1, r.trace());
      const q = r.host.queries[0]!;
      assert.equal(q.sampleNumber, 'S100');
      assert.deepEqual(q.instrumentTests, [], 'the analyzer asks for every test ordered');
      assert.deepEqual(r.host.cancels, []);
      if (dialect === 'roche-cobas-e411') assert.deepEqual(q.range, ['', '', 'S100', '1', '1', '1', '', 'S1', 'SC'], 'sample, then sequence^carrier^position^^type^container');
      if (dialect === 'roche-cobas-e411-elecsys') assert.deepEqual(q.range, ['', 'S100', '1', '1', '1', '', 'SAMPLE', 'NORMAL']);
    });

    it('understands the order download the host built', async (t) => {
      const r = await rig(t, dialect, { orders: [labOrder('S100', TESTS, { Priority: 'S' })] });
      const answer = await r.sim.scan('S100');
      const order = answer.order;
      assert.ok(order, `an order (${JSON.stringify(answer)})\n${r.trace()}`);
      assert.equal(order.sampleNumber, 'S100');
      assert.deepEqual(order.tests, TESTS);
      assert.deepEqual(order.problems, [], 'the download matches the query (Roche: the tube echoed in O-4)');
      assert.equal(order.priority, 'S');
      assert.equal(order.reportType, profile.order?.order.reportType.queried);
      if (profile.order?.order.sampleType !== undefined) assert.equal(order.sampleType, 'Serum');
      if (profile.order?.patient.id !== undefined) {
        assert.equal(order.patient?.id, 'P-S100');
        assert.equal(order.patient?.name, 'Roe, Jane');
        assert.equal(order.patient?.sex, 'F');
        assert.equal(order.patient?.dateOfBirth, '19800102');
      } else {
        assert.equal(order.patient, undefined, 'this dialect downloads no patient data');
      }
    });

    it('recognises the dialect\'s "no information" answer', async (t) => {
      const r = await rig(t, dialect, { orders: [labOrder('S100', TESTS)] });
      const answer = await r.sim.scan('UNKNOWN-7');
      assert.deepEqual(answer, { sampleNumber: 'UNKNOWN-7', noInformation: true } satisfies ScanResult);
    });

    it('reports exactly the ordered tests, filed by the host under the sample with units, flags and time', async (t) => {
      const r = await rig(t, dialect, { orders: [labOrder('S100', TESTS)] });
      const { order } = await r.sim.scan('S100');
      assert.ok(order);
      const sent = await r.sim.sendResults('S100', order.tests, { order });
      await waitUntil(() => r.host.results.length === TESTS.length, 2000, () => `the results at the host\n${r.trace()}`);
      assert.deepEqual(unassigned(r.host.events), [], 'nothing unassigned, no problems, no QC');
      assert.deepEqual(
        r.host.results.map((x) => x.instrumentCode),
        TESTS,
      );
      for (const result of r.host.results) {
        const expected = simulateValue('1', 'S100', result.instrumentCode);
        assert.equal(result.SampleNumber, 'S100');
        assert.equal(result.Result, expected.value, `${result.instrumentCode} value`);
        assert.equal(result.units, expected.units);
        assert.deepEqual(result.flags, [expected.flag]);
        assert.equal(result.completedAtRaw, '20261121093015', 'the completion time in the site zone');
        assert.equal(result.completedAt, NOW.toISOString());
        const range = sent.results.find((g) => g.code === result.instrumentCode)?.referenceRange;
        assert.equal(result.referenceRange, range);
      }
      if (dialect === 'generic-lis2a2') assert.equal(r.host.results[0]?.referenceRange, '3.9 to 6.1', 'LIS2-A2 "lower to upper"');
      if (dialect === 'mindray-cl') assert.equal(r.host.results[0]?.referenceRange, '3.9^6.1');
      if (dialect.startsWith('roche')) assert.equal(r.host.results[0]?.referenceRange, undefined, 'the e 411 sends no range');
      if (profile.order?.patient.id !== undefined) assert.equal(r.host.results[0]?.patientId, 'P-S100', 'the patient of the download is reported back');
    });

    it('runs a series of samples: scan, download, results, each acknowledged', async (t) => {
      const r = await rig(t, dialect, { orders: [labOrder('A1', ['GLU']), labOrder('A2', ['WBC', 'HGB', 'PLT']), labOrder('A3', ['PT', 'INR'])] });
      const summary = await r.sim.runSamples(['A1', 'A2', 'A3'], { intervalMs: 5, analysisMs: 5 });
      assert.ok(summary.ok, JSON.stringify(summary.samples, null, 1));
      assert.deepEqual(
        summary.samples.map((s) => s.order?.tests),
        [['GLU'], ['WBC', 'HGB', 'PLT'], ['PT', 'INR']],
      );
      await waitUntil(() => r.host.results.length === 6, 2000, () => `six results\n${r.trace()}`);
      const bySample = (s: string) => r.host.results.filter((x) => x.SampleNumber === s).map((x) => x.instrumentCode);
      assert.deepEqual(bySample('A2'), ['WBC', 'HGB', 'PLT']);
      assert.deepEqual(bySample('A3'), ['PT', 'INR']);
      assert.equal(summary.counters.failed, 0);
      assert.equal(summary.counters.acked, summary.counters.sent);
      assert.equal(summary.counters.sent, 6, 'three queries and three result messages');
    });
  });
}

describe('simulator: analyzer behaviour', () => {
  it('gives up on an unanswered query at its deadline and cancels it (Roche Q-13 "A")', async (t) => {
    const r = await rig(t, 'roche-cobas-e411', { host: { silent: true }, sim: { queryTimeoutMs: 150 } });
    await assert.rejects(r.sim.scan('S9'), /no answer to the query for S9 within 150 ms; the query was cancelled/);
    await waitUntil(() => r.host.cancels.length === 1, 2000, () => `the cancel at the host\n${r.trace()}`);
    assert.equal(r.host.cancels[0]?.sampleNumber, 'S9');
  });

  it('refuses a download whose tube description is not the one it queried with', async (t) => {
    const profile = getProfile('roche-cobas-e411');
    const r = await rig(t, 'roche-cobas-e411', { host: { silent: true } });
    const scanned = r.sim.scan('S5');
    await waitUntil(() => r.host.queries.length === 1, 2000, () => `the query\n${r.trace()}`);
    const q = r.host.queries[0]!;
    const otherTube = { ...q, range: q.range.map((c, i) => (i === 5 ? '4' : c)) };
    r.host.send(buildOrderMessage(labOrder('S5', ['GLU']), profile, { now: NOW, timeZone: 'Europe/Berlin', query: otherTube }));
    const { order } = await scanned;
    assert.match(order?.problems.join() ?? '', /instrumentSpecimenId is "1\^1\^4\^\^S1\^SC" where the query gave "1\^1\^1\^\^S1\^SC"/);
  });

  it('keeps an unsolicited download and uses it when the tube is scanned, without a query', async (t) => {
    const profile = getProfile('generic-lis2a2');
    const r = await rig(t, 'generic-lis2a2');
    const arrived = new Promise((resolve) => r.sim.once('order', resolve));
    r.host.send(buildOrderMessage(labOrder('U1', ['CRP']), profile, { now: NOW, timeZone: 'Europe/Berlin' }));
    await arrived;
    const { order } = await r.sim.scan('U1');
    assert.deepEqual(order?.tests, ['CRP']);
    assert.equal(order?.reportType, 'O', 'an unsolicited download');
    assert.deepEqual(r.host.queries, []);
  });

  it('speaks records only (no link layer) when asked', async (t) => {
    const r = await rig(t, 'generic-lis2a2', { orders: [labOrder('R1', ['GLU', 'K'])], host: { framing: 'records' }, sim: { framing: 'records' } });
    const summary = await r.sim.runSamples(['R1']);
    assert.ok(summary.ok, JSON.stringify(summary.samples));
    await waitUntil(() => r.host.results.length === 2, 2000, () => `two results\n${r.trace()}`);
    assert.ok(r.frames.every((f) => !f.text.includes('<STX>') && !f.text.includes('<ENQ>')), r.trace());
    assert.ok(r.frames.some((f) => f.direction === 'out' && f.text === 'Q|1|^R1||ALL||||||||O<CR>'), r.trace());
  });

  it('counts messages sent, acknowledged and failed', async (t) => {
    const r = await rig(t, 'generic-lis2a2', { orders: [labOrder('C1', ['GLU'])] });
    await r.sim.runSamples(['C1']);
    assert.deepEqual({ ...r.sim.counters, framesIn: 0, framesOut: 0 }, { sent: 2, acked: 2, failed: 0, received: 1, framesIn: 0, framesOut: 0 });
    assert.equal(r.sim.counters.framesOut, 2, 'one frame per message');
    assert.equal(r.sim.counters.framesIn, 1);
  });

  it('rejects a scan for a dialect that does not query, and options that cannot work', async (t) => {
    const r = await rig(t, 'horiba-pentra');
    await assert.rejects(r.sim.scan('X'), /has no host query layout/);
    const [a] = MemoryTransport.pair();
    assert.throws(() => new AnalyzerSimulator({ dialect: 'generic-lis2a2', transport: a, framing: 'records', misbehaviour: { dropAck: 1 } }), /dropAck needs the E1381 link layer/);
    assert.throws(() => new AnalyzerSimulator({ dialect: 'generic-lis2a2', transport: a, timeZone: 'Mars/Olympus' }), /unknown time zone/);
    assert.throws(() => new AnalyzerSimulator({ dialect: 'nope', transport: a }), /unknown dialect profile/);
  });
});

describe('simulator: dialects without an order download layout', () => {
  for (const profile of PROFILES.filter((p) => p.order === undefined)) {
    it(`${profile.id}: reports the caller's tests, filed by the host under the sample`, async (t) => {
      const r = await rig(t, profile.id);
      const summary = await r.sim.runSamples(['X-42'], { tests: ['GLU', 'WBC', 'ZZTOP'] });
      assert.ok(summary.ok, JSON.stringify(summary.samples));
      assert.deepEqual(r.host.queries, [], 'no query: the host could not answer it');
      await waitUntil(() => r.host.results.length === 3, 2000, () => `three results\n${r.trace()}`);
      assert.deepEqual(unassigned(r.host.events), [], r.trace());
      assert.deepEqual(
        r.host.results.map((x) => [x.SampleNumber, x.instrumentCode, x.instrumentSubCode, x.Result]),
        ['GLU', 'WBC', 'ZZTOP'].map((code) => ['X-42', code, undefined, simulateValue('1', 'X-42', code).value]),
      );
      const unknown = r.host.results[2]!;
      assert.equal(unknown.units, undefined, 'an unknown test gets no units');
      assert.equal(unknown.flags, undefined, 'nor a flag');
    });
  }
});

describe('simulator: values', () => {
  it('are a pure function of seed, sample and test', () => {
    assert.deepEqual(simulateValue('1', 'S1', 'GLU'), simulateValue('1', 'S1', 'GLU'));
    const seeds = new Set(['1', '2', '3', '4', '5'].map((seed) => simulateValue(seed, 'S1', 'PLT').value));
    assert.ok(seeds.size > 1, 'another seed gives other values');
  });

  it('are flagged from the reference range, mostly normal, sometimes high or low, never negative', () => {
    const flags = new Map<string, number>();
    for (let i = 0; i < 400; i++) {
      for (const code of ['GLU', 'CREA', 'WBC', 'HGB', 'PLT', 'PT', 'INR', 'TSH', 'CRP']) {
        const v = simulateValue('7', `S${i}`, code);
        const n = Number(v.value);
        assert.ok(n >= 0, `${code} ${v.value}`);
        const expected = n < Number(v.low) ? 'L' : n > Number(v.high) ? 'H' : 'N';
        assert.equal(v.flag, expected, `${code} ${v.value} in ${v.low}-${v.high}`);
        flags.set(v.flag ?? '', (flags.get(v.flag ?? '') ?? 0) + 1);
      }
    }
    const total = 400 * 9;
    assert.ok((flags.get('N') ?? 0) > total * 0.7, JSON.stringify([...flags]));
    assert.ok((flags.get('H') ?? 0) > 0 && (flags.get('L') ?? 0) > 0, JSON.stringify([...flags]));
  });

  it('have the units and reference intervals of the analyte table', () => {
    assert.deepEqual(pick(simulateValue('1', 'S1', 'GLU')), { units: 'mmol/L', low: '3.9', high: '6.1' });
    assert.deepEqual(pick(simulateValue('1', 'S1', 'CREA')), { units: 'umol/L', low: '45', high: '90' });
    assert.deepEqual(pick(simulateValue('1', 'S1', 'WBC')), { units: '10*3/uL', low: '4.00', high: '10.00' });
    assert.deepEqual(pick(simulateValue('1', 'S1', 'TSH')), { units: 'mIU/L', low: '0.270', high: '4.200' });
    // Mindray downloads assay numbers with names: the name finds the analyte.
    assert.equal(simulateValue('1', 'S1', '7', 'TSH').units, 'mIU/L');
    const unknown = simulateValue('1', 'S1', 'XYZ');
    assert.match(unknown.value, /^\d+\.\d\d$/);
    assert.equal(unknown.units, undefined);
  });
});

function pick(v: { units?: string; low?: string; high?: string }) {
  return { units: v.units, low: v.low, high: v.high };
}

describe('simulator: transports', () => {
  it('connects to a host listening on TCP, as analyzers do', async (t) => {
    const hostEnd = new TcpServerTransport(0);
    const host = new TestHost({ profile: getProfile('mindray-cl'), transport: hostEnd, orders: [labOrder('T1', ['TSH', 'FT4'])] });
    await host.start();
    const sim = new AnalyzerSimulator({ dialect: 'mindray-cl', transport: { kind: 'tcp', host: '127.0.0.1', port: hostEnd.boundPort }, timeZone: 'UTC', analysisMs: 0 });
    t.after(async () => {
      await sim.stop();
      await host.stop();
    });
    await sim.start();
    const summary = await sim.runSamples(['T1']);
    assert.ok(summary.ok, JSON.stringify(summary.samples));
    await waitUntil(() => host.results.length === 2, 3000, () => `two results\n${host.trace()}`);
  });

  it('listens for the host when asked (--listen)', async (t) => {
    const sim = new AnalyzerSimulator({ dialect: 'generic-lis2a2', transport: { kind: 'listen', port: 0 }, timeZone: 'UTC', analysisMs: 0 });
    await sim.start();
    const port = (sim.transport as TcpServerTransport).boundPort;
    const host = new TestHost({ profile: getProfile('generic-lis2a2'), transport: new TcpClientTransport('127.0.0.1', port), orders: [labOrder('L1', ['GLU'])] });
    t.after(async () => {
      await sim.stop();
      await host.stop();
    });
    const running = sim.runSamples(['L1']);
    await host.start();
    const summary = await running;
    assert.ok(summary.ok, JSON.stringify(summary.samples));
  });

  it('works over a serial line (socat pty pair)', async (t) => {
    const line = await cable();
    const host = new TestHost({ profile: getProfile('roche-cobas-e411'), transport: new SerialTransport(line.host), orders: [labOrder('000123', ['10', '30'])] });
    const sim = new AnalyzerSimulator({ dialect: 'roche-cobas-e411', transport: { kind: 'serial', path: line.analyzer }, timeZone: 'Europe/Berlin', analysisMs: 0 });
    t.after(async () => {
      await sim.stop();
      await host.stop();
      await line.close();
    });
    await host.start();
    await sim.start();
    const summary = await sim.runSamples(['000123']);
    assert.ok(summary.ok, JSON.stringify(summary.samples));
    await waitUntil(() => host.results.length === 2, 3000, () => `two results\n${host.trace()}`);
    assert.deepEqual(
      host.results.map((x) => [x.SampleNumber, x.instrumentCode]),
      [
        ['000123', '10'],
        ['000123', '30'],
      ],
    );
  });
});
