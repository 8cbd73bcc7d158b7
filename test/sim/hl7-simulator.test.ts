/**
 * The HL7 simulator over real TCP on loopback against a small host built
 * from lib/protocols/hl7 (support/hl7-host.ts), in both roles (the simulator connects;
 * it listens), for Mindray CL (QRY^Q02 -> QCK^Q02 + DSR^Q03, ORU^R01, QC)
 * and IHE LAW (QBP^Q11 -> RSP^K11 + OML^O33, OUL^R22), and each
 * misbehaviour as the host sees it on the wire.
 */
import { describe, it, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { findHl7Profile } from '../../lib/protocols/hl7/dialects';
import { buildHl7Order } from '../../lib/protocols/hl7/lab';
import { Hl7AnalyzerSimulator, TcpClientTransport, TcpServerTransport, type FrameEvent, type Hl7SimulatorOptions } from '../../lib/sim';
import type { LabOrder } from '../../lib/protocols/astm/lab';
import { Hl7TestHost, type Hl7HostOptions } from './support/hl7-host';
import { labOrder } from './support/test-host';
import { waitUntil } from '../support/wait';
import { NOW, clock, record } from './support/setup';

interface Rig {
  sim: Hl7AnalyzerSimulator;
  host: Hl7TestHost;
  frames: FrameEvent[];
  notes: string[];
  warnings: string[];
  trace(): string;
}

async function rig(
  t: TestContext,
  dialect: string,
  options: { role?: 'connects' | 'listens'; orders?: LabOrder[]; host?: Partial<Hl7HostOptions>; sim?: Partial<Hl7SimulatorOptions> } = {},
): Promise<Rig> {
  const profile = findHl7Profile(dialect)!;
  const hostOptions = { profile, now: clock, ...(options.orders ? { orders: options.orders } : {}), ...options.host };
  const simOptions = { dialect, timeZone: 'Europe/Berlin', now: clock, analysisMs: 0, intervalMs: 0, ...options.sim };
  let host: Hl7TestHost;
  let sim: Hl7AnalyzerSimulator;
  if (options.role === 'listens') {
    const line = new TcpServerTransport(0);
    sim = new Hl7AnalyzerSimulator({ ...simOptions, transport: line });
    await sim.start();
    host = new Hl7TestHost({ ...hostOptions, transport: new TcpClientTransport('127.0.0.1', line.boundPort) });
    await host.start();
  } else {
    const line = new TcpServerTransport(0);
    host = new Hl7TestHost({ ...hostOptions, transport: line });
    await host.start();
    sim = new Hl7AnalyzerSimulator({ ...simOptions, transport: { kind: 'tcp', host: '127.0.0.1', port: line.boundPort } });
    await sim.start();
  }
  await sim.waitConnected();
  const seen = record(sim);
  t.after(async () => {
    await sim.stop();
    await host.stop();
  });
  return { sim, host, ...seen };
}

const TESTS = ['GLU', 'CREA', 'TSH'];

/** What the host decoded, beside what the simulator meant to send. */
function decoded(host: Hl7TestHost) {
  return host.results.map((r) => ({ code: r.instrumentCode, value: r.Result, units: r.units, range: r.referenceRange, flags: r.flags, sample: r.SampleNumber }));
}
function meant(sample: string, results: { code: string; value: string; units?: string; referenceRange?: string; flag?: string }[]) {
  return results.map((r) => ({ code: r.code, value: r.value, units: r.units, range: r.referenceRange, flags: r.flag === undefined ? undefined : [r.flag], sample }));
}

for (const role of ['connects', 'listens'] as const) {
  describe(`HL7 simulator as Mindray CL (the simulator ${role})`, () => {
    it('query found: QRY^Q02 -> QCK^Q02 + DSR^Q03, the DSR acknowledged with ACK^Q03, the QCK not at all; results decode exactly', async (t) => {
      const r = await rig(t, 'mindray-cl-hl7', { role, orders: [labOrder('0019', TESTS, { Priority: 'S' })] });
      const { order } = await r.sim.scan('0019');
      assert.ok(order, r.trace());
      assert.deepEqual(order.tests, TESTS);
      assert.equal(order.priority, 'S');
      assert.equal(order.sampleType, 'Serum');
      assert.deepEqual(r.host.queries.map((q) => q.sampleNumber), ['0019']);
      assert.deepEqual(r.host.sent.map((m) => m.type), ['QCK^Q02', 'DSR^Q03']);
      const dsr = r.host.sent[1]!;
      await waitUntil(() => r.host.acks.length === 1, 3000, () => `the ACK^Q03\n${r.host.trace()}`);
      assert.deepEqual(r.host.acks, [{ code: 'AA', acknowledges: dsr.controlId, text: 'Message accepted' }]);
      assert.deepEqual(r.host.of('ACK^Q03').length, 1, 'the DSR is acknowledged as ACK^Q03 (manual p.1-31); the QCK^Q02 gets no ACK');
      const sent = await r.sim.sendResults('0019', order.tests, { order });
      await waitUntil(() => r.host.results.length === TESTS.length, 3000, () => `the results\n${r.host.trace()}`);
      assert.deepEqual(decoded(r.host), meant('0019', sent.results));
      assert.equal(r.host.of('ORU^R01').length, 1);
      assert.equal(r.host.results[0]?.completedAt, NOW.toISOString());
      assert.deepEqual(r.host.errors, []);
      const c = r.sim.counters;
      assert.deepEqual([c.sent, c.acked, c.failed, c.aeReceived, c.arReceived, c.acksSent], [2, 2, 0, 0, 0, 1]);
    });

    it('query not found: QCK^Q02 NF, no DSR, nothing acknowledged by the simulator', async (t) => {
      const r = await rig(t, 'mindray-cl-hl7', { role });
      assert.deepEqual(await r.sim.scan('UNKNOWN-7'), { sampleNumber: 'UNKNOWN-7', noInformation: true });
      assert.deepEqual(r.host.sent.map((m) => m.type), ['QCK^Q02']);
      assert.equal(r.sim.counters.acksSent, 0);
    });

    it('QC: MSH-16 2, the control in the OBR; the host keeps it apart', async (t) => {
      const r = await rig(t, 'mindray-cl-hl7', { role });
      const sent = await r.sim.sendQc('QUAL2', ['AST', 'GLU']);
      await waitUntil(() => r.host.qc.length === 2, 3000, () => `the QC at the host\n${r.host.trace()}`);
      assert.deepEqual(r.host.qc.map((q) => [q.SampleNumber, q.instrumentCode, q.Result]), sent.results.map((x) => ['QUAL2', x.code, x.value]));
      assert.deepEqual(r.host.results, []);
    });

    it('runSamples: found and not found, one outcome per sample and a summary', async (t) => {
      const r = await rig(t, 'mindray-cl-hl7', { role, orders: [labOrder('S1', ['GLU'])] });
      const summary = await r.sim.runSamples(['S1', 'S2']);
      assert.equal(summary.ok, false, 'S2 has no order');
      assert.deepEqual(summary.samples.map((s) => [s.sampleNumber, s.ok, s.noInformation === true, s.resultsAcked]), [['S1', true, false, true], ['S2', false, true, false]]);
      assert.deepEqual(decoded(r.host), meant('S1', summary.samples[0]!.results!));
    });
  });

  describe(`HL7 simulator as an IHE LAW analyzer (the simulator ${role})`, () => {
    it('QBP^Q11 -> RSP^K11 + OML^O33, the OML acknowledged ORL^O34, the RSP not; OUL^R22 decodes exactly', async (t) => {
      const r = await rig(t, 'ihe-law', { role, orders: [labOrder('140799', TESTS)] });
      const { order } = await r.sim.scan('140799');
      assert.ok(order, r.trace());
      assert.deepEqual(order.tests, TESTS);
      assert.equal(order.unsolicited, false);
      assert.deepEqual(r.host.sent.map((m) => m.type), ['RSP^K11', 'OML^O33']);
      await waitUntil(() => r.host.acks.length === 1, 3000, () => `the ACK of the OML\n${r.host.trace()}`);
      assert.deepEqual(r.host.acks.map((a) => [a.code, a.acknowledges]), [['AA', r.host.sent[1]!.controlId]]);
      assert.match(r.host.frames.find((f) => f.type === 'ORL^O34')!.text, /^MSH\|[^\r]*\|ORL\^O34\^ORL_O34\|/);
      const sent = await r.sim.sendResults('140799', order.tests, { order });
      await waitUntil(() => r.host.results.length === TESTS.length, 3000, () => `the results\n${r.host.trace()}`);
      assert.deepEqual(decoded(r.host), meant('140799', sent.results));
      assert.match(r.host.of('OUL^R22')[0]!.text, /\rSPM\|1\|140799&BARCODE\|/);
    });

    it('not found: RSP^K11 NF', async (t) => {
      const r = await rig(t, 'ihe-law', { role });
      assert.deepEqual(await r.sim.scan('NOPE'), { sampleNumber: 'NOPE', noInformation: true });
      assert.deepEqual(r.host.sent.map((m) => m.type), ['RSP^K11']);
    });

    it('an unsolicited OML^O33 is acknowledged and kept for when the tube is scanned', async (t) => {
      const r = await rig(t, 'ihe-law', { role });
      r.host.send(buildHl7Order(r.host.profile, labOrder('U1', ['GLU']), { now: NOW, timeZone: 'Europe/Berlin', controlId: () => 'H77', queried: false }));
      await waitUntil(() => r.host.acks.length === 1, 3000, () => `the ACK\n${r.host.trace()}`);
      assert.deepEqual(r.host.acks.map((a) => [a.code, a.acknowledges]), [['AA', 'H77']]);
      const scan = await r.sim.scan('U1');
      assert.equal(scan.order?.unsolicited, true);
      assert.deepEqual(r.host.queries, [], 'no query for a tube whose order is already there');
    });
  });
}

describe('HL7 simulator, LAW "no work" answer', () => {
  it('an OML^O33 with ORC-1 DC for the queried specimen is "not found", and acknowledged with ORL^O34', async (t) => {
    const r = await rig(t, 'ihe-law', { host: { silent: true } });
    const scan = r.sim.scan('S7');
    await waitUntil(() => r.host.queries.length === 1, 3000, () => `the query\n${r.host.trace()}`);
    const oml = buildHl7Order(r.host.profile, labOrder('S7', ['GLU']), { now: NOW, timeZone: 'Europe/Berlin', controlId: () => 'H9', queried: false });
    r.host.send(oml.replace(/\rORC\|NW\|/g, '\rORC|DC|'));
    assert.deepEqual(await scan, { sampleNumber: 'S7', noInformation: true });
    await waitUntil(() => r.host.acks.length === 1, 3000, () => `the ORL\n${r.host.trace()}`);
    assert.deepEqual(r.host.acks.map((a) => [a.code, a.acknowledges]), [['AA', 'H9']]);
  });
});

describe('HL7 simulator, the dialect\'s character set', () => {
  it('ihe-law (UTF-8): a non-ASCII name in the OML comes back whole in the OUL^R22', async (t) => {
    const r = await rig(t, 'ihe-law', { orders: [labOrder('S8', ['GLU'], { patient: { ID: 'P8', Name: 'Müller, Jürgen', Sex: 'M' } })] });
    const { order } = await r.sim.scan('S8');
    assert.equal(order?.patient?.name, 'Müller, Jürgen');
    await r.sim.sendResults('S8', order!.tests, { order: order! });
    assert.match(r.host.of('OUL^R22')[0]!.text, /\rPID\|1\|\|P8\|\|Müller\^Jürgen\|/);
  });
});

describe('HL7 simulator as a cobas pro', () => {
  it('sends ESU^U01 on connecting; the host acknowledges it', async (t) => {
    const r = await rig(t, 'roche-cobas-pro');
    await waitUntil(() => r.sim.counters.acked === 1, 3000, () => `the ESU acknowledged\n${r.host.trace()}`);
    assert.deepEqual(r.host.frames.map((f) => f.type), ['ESU^U01']);
  });
});

describe('HL7 simulator misbehaviour, as the host sees it', () => {
  it('missingStart: the frame arrives without VT and is still read', async (t) => {
    const r = await rig(t, 'mindray-cl-hl7', { sim: { misbehaviour: { missingStart: 1 } } });
    await r.sim.sendResults('S1', ['GLU']);
    assert.deepEqual(r.host.frames.map((f) => f.missingStart), [true]);
    assert.equal(r.host.results.length, 1);
    assert.match(r.notes[0]!, /missingStart: frame 1/);
  });

  it('junk: bytes outside a frame are discarded by the host, the frame after them is read', async (t) => {
    const r = await rig(t, 'mindray-cl-hl7', { sim: { misbehaviour: { junk: 1 } } });
    await r.sim.sendResults('S1', ['GLU']);
    assert.deepEqual(r.host.discarded.map((d) => d.reason), ['outside-frame']);
    assert.match(r.host.discarded[0]!.excerpt, /^#noise/);
    assert.equal(r.host.results.length, 1);
  });

  it('splitWrites: one frame over many small writes, joined by the host', async (t) => {
    const r = await rig(t, 'ihe-law', { sim: { misbehaviour: { splitWrites: 16 } } });
    const sent = await r.sim.sendResults('S1', TESTS);
    assert.ok(r.host.reads.length > 5, `the host read the frame in ${r.host.reads.length} pieces`);
    assert.deepEqual(decoded(r.host), meant('S1', sent.results));
  });

  it('noAck: the DSR^Q03 is taken but never acknowledged', async (t) => {
    const r = await rig(t, 'mindray-cl-hl7', { orders: [labOrder('S1', ['GLU'])], sim: { misbehaviour: { noAck: 1 } } });
    const { order } = await r.sim.scan('S1');
    assert.deepEqual(order?.tests, ['GLU']);
    await r.sim.sendResults('S1', ['GLU']);
    assert.deepEqual(r.host.acks, [], 'no ACK^Q03 reached the host');
    assert.equal(r.sim.counters.acksSent, 0);
  });

  it('errorAck: the OML^O33 is answered AE with an ERR text and not taken', async (t) => {
    const r = await rig(t, 'ihe-law', { orders: [labOrder('S1', ['GLU'])], sim: { misbehaviour: { errorAck: 1 }, queryTimeoutMs: 300 } });
    await assert.rejects(r.sim.scan('S1'), /sent no order for S1 within 300 ms; the analyzer gives up \(the dialect has no query cancel\)/);
    assert.equal(r.host.acks.length, 1);
    assert.equal(r.host.acks[0]!.code, 'AE');
    assert.match(r.host.acks[0]!.text, /simulated error: OML\^O33 H\d+ refused/);
  });

  it('dropAck: the host\'s ACK is lost, the same MSH-10 comes again; the host acknowledges it again and files it once', async (t) => {
    const r = await rig(t, 'mindray-cl-hl7', { sim: { misbehaviour: { dropAck: 1 } } });
    await r.sim.sendResults('S1', TESTS);
    const oru = r.host.of('ORU^R01');
    assert.equal(oru.length, 2);
    assert.equal(oru[0]!.controlId, oru[1]!.controlId);
    assert.equal(oru[0]!.text, oru[1]!.text);
    assert.deepEqual(r.host.repeats, [oru[0]!.controlId]);
    assert.equal(r.host.results.length, TESTS.length, 'filed once');
  });

  it('dropResultsAck: counts results messages only, so the lost ACK is a result\'s whatever went before it', async (t) => {
    const r = await rig(t, 'mindray-cl-hl7', { sim: { misbehaviour: { dropResultsAck: 2 } } });
    await r.sim.sendQc('QUAL2', ['GLU']);
    await r.sim.sendResults('S1', TESTS);
    await r.sim.sendResults('S2', TESTS);
    const oru = r.host.of('ORU^R01').filter((m) => !m.text.includes('QUAL2'));
    assert.deepEqual(oru.map((m) => m.text.includes('|S1|') ? 'S1' : 'S2'), ['S1', 'S2', 'S2']);
    assert.deepEqual(r.host.repeats, [oru[1]!.controlId]);
    assert.match(r.notes.join('\n'), /dropResultsAck: the host's ACK of results message 2 \(MSH-10 [^)]+\) is lost/);
  });

  it('no ACK from the host: the message goes out again after ackTimeoutMs, same MSH-10, and is then acknowledged', async (t) => {
    const r = await rig(t, 'ihe-law', { host: { answer: { withhold: 1 } }, sim: { ackTimeoutMs: 150, retries: 2 } });
    await r.sim.sendResults('S1', ['GLU']);
    const oul = r.host.of('OUL^R22');
    assert.equal(oul.length, 2);
    assert.equal(oul[0]!.controlId, oul[1]!.controlId);
    assert.match(r.warnings.join('\n'), /no acknowledgement of results 1 within 150 ms: sending it again \(1 of 2\)/);
  });

  it('never an ACK: sent 1 + retries times, then failed', async (t) => {
    const r = await rig(t, 'ihe-law', { host: { answer: { withhold: 99 } }, sim: { ackTimeoutMs: 100, retries: 2 } });
    await assert.rejects(r.sim.sendResults('S1', ['GLU']), /not delivered: no acknowledgement within 100 ms, sent 3 time\(s\)/);
    assert.equal(r.host.of('OUL^R22').length, 3);
    assert.equal(r.sim.counters.failed, 1);
  });

  it('AE from the host: counted; Mindray sends the message again at most twice (manual p.1-11), then fails with the text', async (t) => {
    const r = await rig(t, 'mindray-cl-hl7', { host: { answer: { code: 'AE', text: 'bad channel' } } });
    await assert.rejects(r.sim.sendResults('S1', ['GLU']), /the host answered AE: bad channel/);
    assert.equal(r.host.of('ORU^R01').length, 3);
    assert.equal(r.sim.counters.aeReceived, 3);
  });

  it('AR from a LAW host: counted, not sent again', async (t) => {
    const r = await rig(t, 'ihe-law', { host: { answer: { code: 'AR', text: 'unknown specimen' } } });
    await assert.rejects(r.sim.sendResults('S1', ['GLU']), /the host answered AR: unknown specimen/);
    assert.equal(r.host.of('OUL^R22').length, 1);
    assert.equal(r.sim.counters.arReceived, 1);
  });

  it('bad options are refused by name', () => {
    assert.throws(() => new Hl7AnalyzerSimulator({ dialect: 'mindray-cl-hl7', transport: { kind: 'listen', port: 0 }, misbehaviour: { noAck: 0 } }), /noAck must be a whole number >= 1, got 0/);
    assert.throws(() => new Hl7AnalyzerSimulator({ dialect: 'roche-cobas-e411', transport: { kind: 'listen', port: 0 } }), /unknown HL7 dialect "roche-cobas-e411"/);
  });
});
