/**
 * GET /lis-bridge/metrics, scraped from Node-RED as an integrator runs it
 * (the package installed, an example flow as the flows file, the analyzer
 * simulator on the line, the loopback LIS): the counts must be what the
 * simulator sent and the LIS received. Then, with adminAuth set, the route
 * wants a token with lis.read: none gets 401; a static token from a tokens()
 * function in settings.js (what Prometheus scrapes with) and a token from
 * POST /auth/token get the metrics.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { startNodeRed, type NodeRedProcess } from '../support/node-red-process';
import { find, parseSamples, sum, type Sample } from '../support/prometheus';
import { E2eRun, TOKEN, installPackage, loadExample, resultItems, withDiagnostics, type Installation } from './harness';

const EXAMPLE = 'mindray-cl2000i-tcp';
const SAMPLES = ['MET1001', 'NOORDER-MET', 'MET1002', 'MET1003'];

let installation: Installation | undefined;

before(() => {
  installation = installPackage();
});

after(() => {
  installation?.remove();
});

describe(`metrics of an end-to-end run (example ${EXAMPLE})`, () => {
  let run: E2eRun | undefined;
  let text = '';
  let samples: Sample[] = [];
  let linkId = '';
  const check = (fn: (r: E2eRun) => void | Promise<void>) => () => withDiagnostics(run, () => fn(run!));

  before(async () => {
    assert.ok(installation, 'the package was not installed');
    const example = loadExample(EXAMPLE);
    linkId = example.flow.find((n) => n.type === 'astm-link')!.id;
    run = new E2eRun({ example, installation, samples: SAMPLES, seed: 20260317 });
    await withDiagnostics(run, async () => {
      await run!.start();
      await run!.run();
      const res = await fetch(`${run!.red!.url}/lis-bridge/metrics`);
      assert.equal(res.status, 200, await res.clone().text());
      assert.equal(res.headers.get('content-type'), 'text/plain; version=0.0.4; charset=utf-8');
      text = await res.text();
      samples = parseSamples(text);
    });
  });

  after(async () => {
    await run?.stop();
  });

  const link = () => ({ link: linkId });

  it('counts every message the analyzer sent and every one it acknowledged from us', check((r) => {
    assert.ok(r.simRecord!.acked.length >= SAMPLES.length * 2 - 1, `the simulator sent ${r.simRecord!.acked.length} messages`);
    assert.equal(sum(samples, 'lisbridge_link_messages_received_total', link()), r.simRecord!.acked.length);
    assert.equal(sum(samples, 'lisbridge_link_messages_sent_total', link()), r.simRecord!.received.length);
    assert.equal(sum(samples, 'lisbridge_link_errors_total', link()), 0);
    assert.equal(sum(samples, 'lisbridge_link_naks_total', link()), 0);
  }));

  it('counts one query per scanned sample and every result the analyzer sent', check((r) => {
    assert.equal(sum(samples, 'lisbridge_link_queries_total', link()), r.simRecord!.acked.filter((m) => m.kind === 'query').length);
    assert.equal(sum(samples, 'lisbridge_link_queries_total', link()), SAMPLES.length);
    const sent = r.summary!.samples.filter((s) => s.resultsAcked).reduce((n, s) => n + (s.results?.length ?? 0), 0);
    assert.ok(sent > 0);
    assert.equal(sum(samples, 'lisbridge_link_results_total', link()), sent);
    assert.equal(resultItems(r.stub!).length, sent, 'and the LIS got them all');
    // Each of them ended delivered, none held, discarded or kept from the LIS, and no person resolved any.
    assert.deepEqual(
      ['delivered', 'held', 'discarded', 'not_for_lis', 'released', 'dismissed'].map((ending) => sum(samples, 'lisbridge_link_results_ended_total', { ...link(), ending })),
      [sent, 0, 0, 0, 0, 0],
    );
  }));

  it('names the analyzer by its H-5 sender, and the link by its node', check(() => {
    const named = find(samples, 'lisbridge_link_messages_received_total', link()).filter((s) => s.value > 0);
    assert.equal(named.length, 1, JSON.stringify(named));
    assert.notEqual(named[0]!.labels.analyzer, '');
    assert.equal(named[0]!.labels.link_name, loadExample(EXAMPLE).spec.analyzer);
  }));

  it('shows the link up and connected, with its last message received during the run', check((r) => {
    assert.equal(sum(samples, 'lisbridge_link_up', link()), 1);
    assert.equal(sum(samples, 'lisbridge_link_state', { ...link(), state: 'connected' }), 1);
    assert.equal(sum(samples, 'lisbridge_link_state', link()), 1, 'one state at a time');
    assert.equal(sum(samples, 'lisbridge_link_connections', link()), 1);
    assert.equal(find(samples, 'lisbridge_link_alarm', link()).length, 3, 'LINK_QUIET, LINK_DOWN and HELD, each');
    assert.equal(sum(samples, 'lisbridge_link_alarm', link()), 0, 'no alarm up');
    const last = Math.max(...find(samples, 'lisbridge_link_last_received_timestamp_seconds', link()).map((s) => s.value));
    assert.ok(last >= r.startedAt / 1000 && last <= Date.now() / 1000, `last received ${last}`);
  }));

  it('counts the LIS requests by endpoint and outcome as the LIS received them, each timed', check((r) => {
    const stub = r.stub!;
    const byEndpoint = { TransactionInfoAPI: stub.to('/orders').length, ResultAPI: stub.to('/results').length, OrderCompletedAPI: stub.to('/processed').length };
    assert.equal(byEndpoint.TransactionInfoAPI, SAMPLES.length);
    for (const [endpoint, n] of Object.entries(byEndpoint)) {
      assert.equal(sum(samples, 'lisbridge_lis_requests_total', { endpoint, outcome: 'ok' }), n, endpoint);
      assert.equal(sum(samples, 'lisbridge_lis_requests_total', { endpoint }), n, `${endpoint}: no other outcome`);
      assert.equal(sum(samples, 'lisbridge_lis_request_duration_seconds_count', { endpoint }), n, `${endpoint} timed`);
      assert.equal(sum(samples, 'lisbridge_lis_request_duration_seconds_bucket', { endpoint, le: '+Inf' }), n);
    }
    assert.equal(sum(samples, 'lisbridge_lis_retries_total'), 0);
  }));

  it('counts the journal\'s lines and times its fsyncs; nothing held, stuck, waiting, on its way or not understood', check(() => {
    const appends = sum(samples, 'lisbridge_journal_appends_total');
    assert.ok(appends >= SAMPLES.length * 2, `${appends} journal lines`);
    const syncs = sum(samples, 'lisbridge_journal_fsync_duration_seconds_count');
    assert.ok(syncs > 0 && syncs <= appends, `${syncs} fsyncs for ${appends} lines`);
    assert.equal(sum(samples, 'lisbridge_held_batches', link()), 0);
    assert.equal(sum(samples, 'lisbridge_stuck_messages', link()), 0);
    // The same counts as the Lab sidebar's verdict, each reported (0), not left out.
    for (const name of ['lisbridge_results_waiting', 'lisbridge_messages_on_their_way', 'lisbridge_messages_not_understood']) {
      assert.deepEqual(find(samples, name).map((s) => s.value).filter((v) => v !== 0), [], name);
    }
    assert.deepEqual(find(samples, 'lisbridge_results_waiting', link()).map((s) => s.value), [0], 'per link');
    assert.deepEqual([find(samples, 'lisbridge_messages_on_their_way').length, find(samples, 'lisbridge_messages_not_understood').length], [1, 1]);
  }));

  it('puts no sample number, patient or token in the metrics', check((r) => {
    for (const sample of SAMPLES) assert.ok(!text.includes(sample), sample);
    for (const order of r.plan.values()) assert.ok(!text.includes(order.patient.Name), order.patient.Name);
    assert.ok(!text.includes(TOKEN));
  }));
});

describe('metrics with adminAuth', () => {
  let red: NodeRedProcess | undefined;
  const SCRAPE_TOKEN = 'scrape-5d1e77a0';
  const VIEWER_TOKEN = 'viewer-0b91c2de';

  before(async () => {
    assert.ok(installation, 'the package was not installed');
    // bcryptjs comes with Node-RED; the hash is what `node-red admin hash-pw` prints.
    const bcrypt = createRequire(require.resolve('node-red/package.json'))('bcryptjs') as { hashSync(pw: string, rounds: number): string };
    const hash = bcrypt.hashSync('monitor-pw', 8);
    red = await startNodeRed({
      userDir: installation.userDir,
      flows: [],
      settingsCode: `module.exports.adminAuth = {
  type: 'credentials',
  users: [{ username: 'monitor', password: ${JSON.stringify(hash)}, permissions: 'lis.read' }],
  tokens(token) {
    if (token === ${JSON.stringify(SCRAPE_TOKEN)}) return Promise.resolve({ username: 'prometheus', permissions: 'lis.read' });
    if (token === ${JSON.stringify(VIEWER_TOKEN)}) return Promise.resolve({ username: 'viewer', permissions: 'flows.read' });
    return Promise.resolve(null);
  },
};`,
    });
  });

  after(async () => {
    await red?.stop();
  });

  const scrape = (headers: Record<string, string> = {}) => fetch(`${red!.url}/lis-bridge/metrics`, { headers });

  it('answers 401 without a token, and to a token without lis.read', async () => {
    assert.equal((await scrape()).status, 401);
    assert.equal((await scrape({ Authorization: 'Bearer not-a-token' })).status, 401);
    assert.equal((await scrape({ Authorization: `Bearer ${VIEWER_TOKEN}` })).status, 401);
  });

  it('guards the Lab sidebar\'s routes (installed by the plugin from the packed package) the same way: lis.read to see, lis.write to act', async () => {
    const read = { Authorization: `Bearer ${SCRAPE_TOKEN}` };
    for (const path of ['/lis-bridge/links', '/lis-bridge/links/some-link/trace', '/lis-bridge/held']) {
      assert.equal((await fetch(`${red!.url}${path}`)).status, 401, path);
      assert.equal((await fetch(`${red!.url}${path}`, { headers: { Authorization: `Bearer ${VIEWER_TOKEN}` } })).status, 401, path);
    }
    const links = await fetch(`${red!.url}/lis-bridge/links`, { headers: read });
    assert.equal(links.status, 200);
    assert.deepEqual(((await links.json()) as { links: unknown[] }).links, []);
    const trace = await fetch(`${red!.url}/lis-bridge/links/some-link/trace`, { headers: read });
    assert.equal(trace.status, 404);
    assert.match(((await trace.json()) as { message: string }).message, /no trace of link some-link/);
    for (const path of ['/lis-bridge/stuck/m-1/replay', '/lis-bridge/stuck/m-1/dismiss', '/lis-bridge/held/b-1/resend']) {
      assert.equal((await fetch(`${red!.url}${path}`, { method: 'POST', headers: read })).status, 401, `${path} needs lis.write`);
    }
  });

  it('answers the metrics to the static token of settings.js tokens() with lis.read', async () => {
    const res = await scrape({ Authorization: `Bearer ${SCRAPE_TOKEN}` });
    assert.equal(res.status, 200);
    const body = await res.text();
    assert.match(body, /^# HELP lisbridge_/m);
    assert.match(body, /^# TYPE lisbridge_lis_request_duration_seconds histogram$/m);
  });

  it('answers the metrics to a token from POST /auth/token for a user with lis.read', async () => {
    const login = await fetch(`${red!.url}/auth/token`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ client_id: 'node-red-admin', grant_type: 'password', scope: 'lis.read', username: 'monitor', password: 'monitor-pw' }).toString(),
    });
    assert.equal(login.status, 200, await login.clone().text());
    const { access_token } = (await login.json()) as { access_token: string };
    assert.equal((await scrape({ Authorization: `Bearer ${access_token}` })).status, 200);
  });
});
