/**
 * How the simulator reads the host's downloads (lib/sim/messages.ts): the
 * sample number where the profile's order layout and query rule put it (also
 * when the layout echoes the query into the sample field, as the Sysmex XN
 * does), the priority only when its code names one, and the patient name in
 * the layout's component order.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { PROFILES, getProfile, type DialectProfile } from '../../lib/protocols/astm/dialects';
import { buildNoInformation, buildOrderMessage, toLabEvents, type LabOrder, type QueriedSample } from '../../lib/protocols/astm/lab';
import { decodeMessage, repeatsOf } from '../../lib/protocols/astm/records';
import { buildQuery, buildResults, readHostMessage, type DownloadedOrder, type Tube } from '../../lib/sim';
import { downloadSampleComponent, readPriority } from '../../lib/sim/messages';
import { labOrder } from './support/test-host';
import { waitUntil } from '../support/wait';
import { NOW, rig } from './support/setup';

const TUBE: Tube = { sequence: 7, rack: 2, position: 1 };
const OPTS = { now: NOW, timeZone: 'Europe/Berlin' };

/** The download Node-RED sent for sample SYS1001 in the sysmex-xn-serial example (test/e2e/known-issues.test.ts). */
const SYSMEX_DOWNLOAD =
  'H|\\^&|||||||||||E1394-97\r' +
  'P|1|||PID-SYS1001|^Jane^Roe||19800229|F\r' +
  'O|1|^^SYS1001^||^^^^WBC\\^^^^RBC||20261121093015|||||N||||||||||||||Q\r' +
  'L|1|N\r';

/** The query the host reads from the simulator's own query message for this sample. */
function hostQuery(profile: DialectProfile, sample: string): QueriedSample {
  const events = toLabEvents(decodeMessage(buildQuery(profile, sample, TUBE, OPTS)), profile, { timeZone: 'Europe/Berlin' });
  const query = events.find((e) => e.type === 'query');
  assert.ok(query !== undefined && query.type === 'query', `the host reads a query: ${JSON.stringify(events)}`);
  const [queried] = query.samples;
  assert.ok(queried, 'the query names a sample');
  return queried;
}

/** A sample type the profile has a code for: Serum, or the first the map knows (Immucor: Blood). */
function knownType(profile: DialectProfile): string {
  const map = profile.order?.order.sampleType?.map;
  if (map === undefined || map === 'as-is' || Object.hasOwn(map, 'Serum')) return 'Serum';
  return Object.keys(map)[0] ?? 'Serum';
}

/** The host's answer to the simulator's query, read back by the simulator. */
function roundTrip(profile: DialectProfile, order: LabOrder): DownloadedOrder {
  const lis = { ...order, SampleType: knownType(profile) };
  const text = buildOrderMessage(lis, profile, { ...OPTS, query: hostQuery(profile, order.SampleNumber) });
  const answers = readHostMessage(text, profile);
  assert.equal(answers.length, 1, text);
  const [answer] = answers;
  assert.ok(answer?.kind === 'order', `an order: ${JSON.stringify(answer)}\n${text}`);
  return answer.order;
}

function onlyOrder(text: string, profile: DialectProfile): DownloadedOrder {
  const answers = readHostMessage(text, profile);
  assert.equal(answers.length, 1);
  const [answer] = answers;
  assert.ok(answer?.kind === 'order', `an order: ${JSON.stringify(answer)}`);
  return answer.order;
}

/** A LIS2-A2 profile whose download echoes Q-3 components 2..4 into O-3, the sample at Q-3 component 3 (so at O-3 component 2). */
function echoingProfile(): DialectProfile {
  const generic = getProfile('generic-lis2a2');
  const order = generic.order!;
  return {
    ...generic,
    id: 'test-echoing-lis2a2',
    query: { ...generic.query!, component: 3 },
    order: { ...order, order: { ...order.order, echo: [{ field: 'specimenId', from: 2, to: 4 }] } },
    acceptsUnsolicitedOrders: false,
  };
}

describe('sim downloads: the sample number where the layout puts it', () => {
  it('reads the Sysmex XN download Node-RED sent: O-3 component 3, where the echo of Q-3 puts it', () => {
    const order = onlyOrder(SYSMEX_DOWNLOAD, getProfile('sysmex-xn'));
    assert.equal(order.sampleNumber, 'SYS1001');
    assert.deepEqual(order.problems, []);
    assert.deepEqual(order.tests, ['WBC', 'RBC']);
    assert.deepEqual(order.echo, [{ field: 'specimenId', components: ['', '', 'SYS1001', ''] }]);
  });

  it('finds the component from the layout and the query rule, for every dialect', () => {
    assert.equal(downloadSampleComponent(getProfile('sysmex-xn'), getProfile('sysmex-xn').order!), 3, 'echo of Q-3 1..4, sample at Q-3 component 3');
    // Roche echoes the query into O-4, not into the sample field O-3.
    for (const id of ['generic-lis2a2', 'roche-cobas-e411', 'roche-cobas-e411-elecsys', 'mindray-cl', 'immucor']) {
      const profile = getProfile(id);
      assert.equal(downloadSampleComponent(profile, profile.order!), 1, id);
    }
    const echoing = echoingProfile();
    assert.equal(downloadSampleComponent(echoing, echoing.order!), 2, 'echo from Q-3 component 2, sample at 3');
  });

  for (const profile of PROFILES.filter((p) => p.order !== undefined && p.query !== undefined)) {
    it(`${profile.id}: the host's answer to the simulator's query names the queried sample, with no problem`, () => {
      const order = roundTrip(profile, labOrder('S100', ['GLU', 'CREA']));
      assert.equal(order.sampleNumber, 'S100');
      assert.deepEqual(order.problems, []);
      assert.deepEqual(order.tests, ['GLU', 'CREA']);
    });
  }

  it('a profile echoing the query into its sample field from another component is read there too (not a Sysmex special case)', () => {
    const profile = echoingProfile();
    const text = buildOrderMessage(labOrder('E42', ['GLU']), profile, { ...OPTS, query: hostQuery(profile, 'E42') });
    assert.match(text, /\rO\|1\|\^E42\^\|/, 'O-3 is the echo of Q-3 components 2..4');
    const order = onlyOrder(text, profile);
    assert.equal(order.sampleNumber, 'E42');
    assert.deepEqual(order.problems, []);
  });

  it('names the component it looked at when the echoed field holds no sample', () => {
    const order = onlyOrder(SYSMEX_DOWNLOAD.replace('O|1|^^SYS1001^|', 'O|1|SYS1001^^^|'), getProfile('sysmex-xn'));
    assert.equal(order.sampleNumber, '');
    assert.deepEqual(order.problems, ['the order names no sample in component 3 of its specimenId field (where the echo of the query puts it)']);
  });

  it('reads the sample of a "no information" answer in order form where the order layout puts it (Roche)', () => {
    for (const id of ['roche-cobas-e411', 'roche-cobas-e411-elecsys']) {
      const profile = getProfile(id);
      const text = buildNoInformation('N7', profile, { ...OPTS, query: hostQuery(profile, 'N7') });
      assert.deepEqual(readHostMessage(text, profile), [{ kind: 'noInformation', sampleNumber: 'N7', problems: [] }], id);
    }
  });
});

describe('sim downloads: priority', () => {
  it('is unknown when the layout writes one code for STAT and routine (Sysmex XN: O-6 empty for both)', () => {
    const profile = getProfile('sysmex-xn');
    assert.equal(onlyOrder(SYSMEX_DOWNLOAD, profile).priority, undefined);
    for (const Priority of ['S', 'R', null] as const) {
      assert.equal(roundTrip(profile, labOrder('S1', ['WBC'], { Priority })).priority, undefined, `LIS priority ${String(Priority)}`);
    }
    assert.equal(readPriority('', profile.order!), undefined);
  });

  it('is read where the codes tell STAT and routine apart', () => {
    for (const id of ['generic-lis2a2', 'roche-cobas-e411', 'mindray-cl']) {
      const profile = getProfile(id);
      assert.equal(roundTrip(profile, labOrder('S1', ['GLU'], { Priority: 'S' })).priority, 'S', id);
      assert.equal(roundTrip(profile, labOrder('S1', ['GLU'], { Priority: 'R' })).priority, 'R', id);
      // No LIS priority goes out as the routine code (absent: 'R').
      assert.equal(roundTrip(profile, labOrder('S1', ['GLU'], { Priority: null })).priority, 'R', id);
    }
  });

  it('is unknown for a code the layout does not write, or one it writes for both priorities', () => {
    const layout = getProfile('generic-lis2a2').order!;
    assert.equal(readPriority('S', layout), 'S');
    assert.equal(readPriority('R', layout), 'R');
    assert.equal(readPriority('', layout), undefined);
    assert.equal(readPriority('A', layout), undefined);
    const same = { ...layout, order: { ...layout.order, priority: { S: 'X', R: 'X', absent: 'X' } } };
    assert.equal(readPriority('X', same), undefined);
  });
});

describe('sim downloads: patient name in the layout order', () => {
  it('reads the Sysmex XN `^first^last` as "last, first"', () => {
    const order = onlyOrder(SYSMEX_DOWNLOAD, getProfile('sysmex-xn'));
    assert.deepEqual(order.patient, { id: 'PID-SYS1001', name: 'Roe, Jane', dateOfBirth: '19800229', sex: 'F' });
  });

  it('gets back the name the LIS gave, on every dialect that downloads one', () => {
    for (const profile of PROFILES.filter((p) => p.order !== undefined && p.query !== undefined)) {
      const spec = profile.order!.patient;
      if (spec.nameComponents === undefined && spec.nameOrder === undefined) continue;
      for (const Name of ['Roe, Jane', 'Cher', 'Mary Ann Smith']) {
        const base = labOrder('S2', ['GLU']);
        const order = roundTrip(profile, { ...base, patient: { ...base.patient, Name } });
        assert.equal(order.patient?.name, Name, `${profile.id}: ${Name}`);
      }
    }
  });

  it('reports the name back in results where the download put it (Sysmex XN: P-6 `^first^last`)', () => {
    const profile = getProfile('sysmex-xn');
    const patient = onlyOrder(SYSMEX_DOWNLOAD, profile).patient;
    assert.ok(patient);
    const { text } = buildResults(profile, { sampleNumber: 'SYS1001', tests: ['WBC'], patient, tube: TUBE, completedAt: NOW, timeZone: 'Europe/Berlin', seed: '1' });
    const p = decodeMessage(text).records.find((r) => r.type === 'P');
    assert.ok(p !== undefined && p.type === 'P');
    assert.deepEqual(repeatsOf(p.name)[0], ['', 'Jane', 'Roe']);
    assert.equal(p.patientId3, 'PID-SYS1001');
  });
});

describe('simulator as sysmex-xn against the package host', () => {
  it('pairs the download with its query: no problem, the order of the scanned sample', async (t) => {
    const r = await rig(t, 'sysmex-xn', { orders: [labOrder('S100', ['WBC', 'RBC'], { Priority: 'S' })] });
    const answer = await r.sim.scan('S100');
    const order = answer.order;
    assert.ok(order, `an order (${JSON.stringify(answer)})\n${r.trace()}`);
    assert.equal(order.sampleNumber, 'S100');
    assert.deepEqual(order.problems, [], 'O-3 repeats the query\'s Q-3, padded to the echoed components');
    assert.deepEqual(order.tests, ['WBC', 'RBC']);
    assert.equal(order.priority, undefined, 'O-6 does not say');
    assert.equal(order.patient?.name, 'Roe, Jane');
    assert.deepEqual(r.warnings, []);
  });

  it('runs a series of samples: each download is the answer to its own query', async (t) => {
    const samples = ['S1', 'S2', 'S3'];
    const r = await rig(t, 'sysmex-xn', { orders: samples.map((s) => labOrder(s, ['WBC', 'HGB'])) });
    const summary = await r.sim.runSamples([...samples, 'NOPE']);
    assert.deepEqual(
      summary.samples.map((s) => [s.sampleNumber, s.ok, s.noInformation === true]),
      [
        ['S1', true, false],
        ['S2', true, false],
        ['S3', true, false],
        ['NOPE', false, true],
      ],
      `${JSON.stringify(summary.samples)}\n${r.trace()}`,
    );
    await waitUntil(() => r.host.results.length === 6, 2000, () => `the results at the host\n${r.trace()}`);
    assert.deepEqual(r.warnings, [], 'no download filed as unsolicited');
  });

  it('still refuses a download whose O-3 is not the query it answers', async (t) => {
    const profile = getProfile('sysmex-xn');
    const r = await rig(t, 'sysmex-xn', { host: { silent: true } });
    const scanned = r.sim.scan('S5');
    await waitUntil(() => r.host.queries.length === 1, 2000, () => `the query\n${r.trace()}`);
    const q = r.host.queries[0]!;
    const otherRack = { ...q, range: ['9', ...q.range.slice(1)] };
    r.host.send(buildOrderMessage(labOrder('S5', ['WBC']), profile, { ...OPTS, query: otherRack }));
    const { order } = await scanned;
    assert.equal(order?.sampleNumber, 'S5');
    assert.deepEqual(order?.problems, ['specimenId is "9^^S5^" where the query gave "^^S5^"']);
  });
});
