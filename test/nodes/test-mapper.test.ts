import { afterEach, beforeEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { LisStub, anOrder } from '../support/lis-stub';
import { useLisStub } from '../support/lifecycle';
import { ALL_LIS_NODES, collect, helper, lastStatus, nodeModules, waitUntil } from '../support/red';
import { ROWS } from '../support/mapping-rows';
import { formatCsv } from '../../lib/mapping/csv';
import { ForwardProxy } from '../support/forward-proxy';

const TOKEN = 'mapper-token-51aa';

const ctx = useLisStub();

async function load(props: Record<string, unknown> = {}, token: string | undefined = TOKEN): Promise<void> {
  const flow = [
    { id: 'cfg', type: 'lis-config', labTestsApiUrl: ctx.stub.url('/tests'), timeout: 2000 },
    { id: 'm', type: 'test-mapper', lis: 'cfg', instrument: 'Analyzer #1', direction: 'auto', unmapped: 'warn', mapping: ROWS, wires: [['out1'], ['out2']], ...props },
    { id: 'out1', type: 'helper' },
    { id: 'out2', type: 'helper' },
    { id: 'catcher', type: 'catch', scope: null, uncaught: false, wires: [['caught']] },
    { id: 'caught', type: 'helper' },
  ];
  await helper.load(nodeModules(...ALL_LIS_NODES) as never, flow as never, (token ? { cfg: { bearerToken: token } } : {}) as never);
}

const send = (msg: Record<string, unknown>) => helper.getNode('m').receive(msg as never);

describe('test-mapper at run time', () => {
  it('LIS -> instrument: adds instrumentTests (in order, each once) and msg.unmapped, warning by default', async () => {
    await load();
    const out = collect('out1');
    send({ payload: anOrder('S1', { Tests: ['T-WBC', 'T-GLU', 'T-HGB', 'T-XX'] }) });
    await waitUntil(() => out.length === 1);
    const payload = out[0]!.payload as Record<string, unknown>;
    assert.deepEqual(payload.instrumentTests, ['CBC', 'GLUC']);
    assert.deepEqual(payload.Tests, ['T-WBC', 'T-GLU', 'T-HGB', 'T-XX'], 'the order itself is kept');
    assert.equal((payload.patient as Record<string, unknown>).ID, 'P-0042');
    assert.deepEqual(out[0]!.unmapped, ['T-XX']);
    const warn = (helper.getNode('m') as unknown as { warn: { args: unknown[][] } }).warn;
    assert.match(String(warn.args[0]![0]), /S1.*T-XX/);
    // Not green: the order went without a test, and the Lab sidebar lists it.
    assert.deepEqual(lastStatus(helper.getNode('m')), { fill: 'yellow', shape: 'dot', text: 'S1: 1 test not sent to the analyzer: T-XX, no code' });
    const listed = (await helper.request().get('/lis-bridge/held').expect(200)).body.ordersMissingTests as Array<Record<string, unknown>>;
    assert.deepEqual(listed.map((g) => [g.sample, g.tests, g.node]), [['S1', ['T-XX'], 'm']]);
    send({ payload: anOrder('S3', { Tests: ['T-GLU'] }) });
    await waitUntil(() => out.length === 2);
    assert.deepEqual(lastStatus(helper.getNode('m')), { fill: 'green', shape: 'dot', text: '1 instrument tests, 0 unmapped' });
  });

  it('LIS -> instrument with "fail": an unmapped test fails the message for Catch nodes', async () => {
    await load({ unmapped: 'fail' });
    const caught = collect('caught');
    const out = collect('out1');
    send({ payload: anOrder('S2', { Tests: ['T-GLU', 'T-NEW'] }) });
    await waitUntil(() => caught.length === 1);
    assert.equal(out.length, 0);
    assert.equal((caught[0]!.error as Record<string, unknown>).code, 'UNMAPPED_TESTS');
    assert.deepEqual((caught[0]!._error as Record<string, unknown>).errors, ['T-NEW']);
  });

  it('instrument -> LIS: result items on output 1 with processed tests, unmapped results on output 2 with reasons', async () => {
    await load();
    const out1 = collect('out1');
    const out2 = collect('out2');
    send({
      payload: [
        { SampleNumber: 'S3', instrumentCode: 'GLUC', Result: '5.4', units: 'mmol/L' },
        { SampleNumber: 'S3', instrumentCode: 'CHOL', Result: '4.2' },
        { SampleNumber: 'S3', instrumentCode: 'NA', Result: '140' },
      ],
    });
    await waitUntil(() => out1.length === 1 && out2.length === 1);
    assert.deepEqual(out1[0]!.payload, [
      { SampleNumber: 'S3', TestCode: 'GLU', Result: '5.4' },
      { SampleNumber: 'S3', TestCode: 'LIPID', SubTestCode: 'CHOL', Result: '4.2' },
    ]);
    assert.deepEqual(out1[0]!.processedTests, ['T-GLU', 'T-LIP']);
    assert.deepEqual(out1[0]!.processed, [{ SampleNumber: 'S3', Tests: ['T-GLU', 'T-LIP'] }]);
    const rejected = out2[0]!.payload as Array<{ result: Record<string, unknown>; reason: string }>;
    assert.equal(rejected.length, 1);
    assert.equal(rejected[0]!.result.instrumentCode, 'NA');
    assert.match(rejected[0]!.reason, /no LIS test is mapped/);
  });

  it('instrument -> LIS: nothing on output 1 when no result maps (no empty batch for lis-send-results)', async () => {
    await load();
    const out1 = collect('out1');
    const out2 = collect('out2');
    send({ payload: { results: [{ SampleNumber: 'S4', instrumentCode: 'CRP', Result: '3' }] } });
    await waitUntil(() => out2.length === 1);
    await new Promise((r) => setTimeout(r, 50));
    assert.equal(out1.length, 0);
  });

  it('instrument -> LIS: the status counts results since the deploy, not the last batch alone (one sample mapped, the next not)', async () => {
    await load();
    const out1 = collect('out1');
    const out2 = collect('out2');
    send({ payload: { results: [{ SampleNumber: 'S5', instrumentCode: ROWS.find((r) => r.instrumentCode)!.instrumentCode, Result: '5' }] } });
    await waitUntil(() => out1.length === 1);
    send({ payload: { results: [{ SampleNumber: 'S6', instrumentCode: 'CRP', Result: '3' }] } });
    await waitUntil(() => out2.length === 1);
    assert.deepEqual(lastStatus(helper.getNode('m')), { fill: 'yellow', shape: 'dot', text: 'results since deploy: 1 mapped · 1 held' });
  });

  it('instrument -> LIS: msg.orderedTests settles an instrument code shared by two LIS tests', async () => {
    await load();
    const out1 = collect('out1');
    send({ payload: [{ SampleNumber: 'S5', instrumentCode: 'CRP', Result: '3' }], orderedTests: ['T-CRP'] });
    await waitUntil(() => out1.length === 1);
    assert.equal((out1[0]!.payload as Array<Record<string, unknown>>)[0]!.TestCode, 'CRP');
  });

  it('honours a fixed direction and refuses payloads of neither shape', async () => {
    await load({ direction: 'toInstrument' });
    const caught = collect('caught');
    send({ payload: [{ SampleNumber: 'S', instrumentCode: 'GLUC', Result: '1' }] });
    send({ payload: 'S1' });
    await waitUntil(() => caught.length === 2);
    for (const c of caught) assert.equal((c.error as Record<string, unknown>).code, 'INVALID_INPUT');
    await helper.unload();
    await load();
    const caught2 = collect('caught');
    send({ payload: { SampleNumber: 'S' } });
    await waitUntil(() => caught2.length === 1);
    assert.match(String((caught2[0]!._error as Record<string, unknown>).message), /neither a LIS order/);
  });

  it('replaces the mapping at run time with msg.topic "mapping" (rows or CSV)', async () => {
    await load();
    const out1 = collect('out1');
    send({ topic: 'mapping', payload: [{ lisTestId: 'T-GLU', lisCode: 'GLU', lisName: 'Glucose', instrumentCode: 'G2' }] });
    send({ payload: anOrder('S6', { Tests: ['T-GLU'] }) });
    await waitUntil(() => out1.length === 1);
    assert.deepEqual((out1[0]!.payload as Record<string, unknown>).instrumentTests, ['G2']);
    send({ topic: 'mapping', payload: formatCsv([{ lisTestId: 'T-GLU', lisCode: 'GLU', lisName: 'Glucose', instrumentCode: 'G3' }]) });
    send({ payload: anOrder('S7', { Tests: ['T-GLU'] }) });
    await waitUntil(() => out1.length === 2);
    assert.deepEqual((out1[1]!.payload as Record<string, unknown>).instrumentTests, ['G3']);
  });

  it('refuses an invalid run-time mapping and keeps the one it had', async () => {
    await load();
    const caught = collect('caught');
    const out1 = collect('out1');
    send({ topic: 'mapping', payload: [{ lisCode: 'X', instrumentCode: 'Y' }] });
    await waitUntil(() => caught.length === 1);
    assert.match(String((caught[0]!._error as Record<string, unknown>).message), /mapping\[0\]\.lisTestId/);
    send({ payload: anOrder('S8', { Tests: ['T-GLU'] }) });
    await waitUntil(() => out1.length === 1);
    assert.deepEqual((out1[0]!.payload as Record<string, unknown>).instrumentTests, ['GLUC']);
  });

  it('never wipes the mapping on a "mapping" message without rows', async () => {
    await load();
    const caught = collect('caught');
    const out1 = collect('out1');
    for (const payload of [undefined, null, {}, 42]) send({ topic: 'mapping', payload });
    await waitUntil(() => caught.length === 4);
    for (const c of caught) assert.equal((c.error as Record<string, unknown>).code, 'INVALID_INPUT');
    send({ payload: anOrder('S10', { Tests: ['T-GLU'] }) });
    await waitUntil(() => out1.length === 1);
    assert.deepEqual((out1[0]!.payload as Record<string, unknown>).instrumentTests, ['GLUC']);
  });

  it('refuses a results payload of the wrong shape when the direction is fixed', async () => {
    await load({ direction: 'toLis' });
    const caught = collect('caught');
    for (const payload of [null, { results: 'x' }, { SampleNumber: 'S' }]) send({ payload });
    await waitUntil(() => caught.length === 3);
    for (const c of caught) assert.equal((c.error as Record<string, unknown>).code, 'INVALID_INPUT');
  });

  it('reports an invalid deployed mapping on every message', async () => {
    await load({ mapping: [{ lisTestId: '', lisCode: 'X', instrumentCode: 'Y' }] });
    const caught = collect('caught');
    send({ payload: anOrder('S9') });
    await waitUntil(() => caught.length >= 1);
    assert.match(String((caught.at(-1)!._error as Record<string, unknown>).message), /deployed mapping is invalid/);
  });
});

describe('test-mapper admin endpoints', () => {
  const catalog = [
    { ID: 'T-GLU', Name: 'Glucose', Code: 'GLU', Type: 'Serum' },
    { ID: 'T-CREA', Name: 'Creatinine', Code: 'CREA' },
  ];
  const config = () => ({ id: 'cfg', labTestsApiUrl: ctx.stub.url('/tests'), timeout: '2000' });

  it('loads the catalog with the deployed token and merges it into the rows', async () => {
    ctx.stub.reply('/tests', { body: { tests: catalog } });
    await load();
    const res = await helper
      .request()
      .post('/lis-bridge/catalog')
      .send({ config: config(), rows: [{ lisTestId: 'T-GLU', lisCode: 'OLD', lisName: 'old', instrumentCode: 'GLUC' }, { lisTestId: 'T-GONE', lisCode: 'G', lisName: 'gone', instrumentCode: 'X' }] })
      .expect(200);
    assert.deepEqual(res.body.tests, catalog);
    assert.deepEqual(res.body.rows, [
      { lisTestId: 'T-GLU', lisCode: 'GLU', lisName: 'Glucose', lisType: 'Serum', instrumentCode: 'GLUC' },
      { lisTestId: 'T-GONE', lisCode: 'G', lisName: 'gone', instrumentCode: 'X', stale: true },
      { lisTestId: 'T-CREA', lisCode: 'CREA', lisName: 'Creatinine', instrumentCode: '' },
    ]);
    assert.equal(ctx.stub.to('/tests')[0]!.headers.authorization, `Bearer ${TOKEN}`);
  });

  it('uses a token typed in the dialog for an undeployed config', async () => {
    ctx.stub.reply('/tests', { body: { tests: catalog } });
    await load({}, undefined);
    await helper.request().post('/lis-bridge/catalog').send({ config: { id: 'not-deployed', labTestsApiUrl: ctx.stub.url('/tests') }, bearerToken: 'typed-token' }).expect(200);
    assert.equal(ctx.stub.to('/tests')[0]!.headers.authorization, 'Bearer typed-token');
  });

  it('sends no token when the dialog cleared it, even though one is stored', async () => {
    ctx.stub.reply('/tests', { body: { tests: catalog } });
    await load();
    await helper.request().post('/lis-bridge/catalog').send({ config: config(), bearerToken: '' }).expect(200);
    assert.equal(ctx.stub.to('/tests')[0]!.headers.authorization, undefined);
  });

  it('never sends the stored token to a URL other than the deployed one', async () => {
    ctx.stub.reply('/tests', { body: { tests: catalog } });
    ctx.stub.reply('/elsewhere', { body: { tests: catalog } });
    await load();
    const res = await helper.request().post('/lis-bridge/catalog').send({ config: { ...config(), labTestsApiUrl: ctx.stub.url('/elsewhere') } }).expect(400);
    assert.match(res.body.message, /differs from the deployed one/);
    assert.equal(ctx.stub.requests.length, 0);
  });

  describe('with a proxy in the deployed config', () => {
    let proxy: ForwardProxy;
    beforeEach(async () => {
      proxy = await new ForwardProxy().start();
      proxy.credentials = 'lab:pw';
      const flow = [{ id: 'cfg', type: 'lis-config', labTestsApiUrl: ctx.stub.url('/tests'), timeout: 2000, proxyUrl: proxy.url }];
      await helper.load(nodeModules(...ALL_LIS_NODES) as never, flow as never, { cfg: { bearerToken: TOKEN, proxyUsername: 'lab', proxyPassword: 'pw' } } as never);
    });
    afterEach(() => proxy.stop());

    it('loads the catalog through the deployed proxy, with its stored credentials, when the dialog sends no proxy', async () => {
      ctx.stub.reply('/tests', { body: { tests: catalog } });
      const res = await helper.request().post('/lis-bridge/catalog').send({ config: config() }).expect(200);
      assert.deepEqual(res.body.tests, catalog);
      assert.equal(proxy.forwarded.length, 1);
      assert.equal(ctx.stub.to('/tests')[0]!.headers.authorization, `Bearer ${TOKEN}`);
    });

    it('never sends the stored token (nor the proxy credentials) through another proxy', async () => {
      const other = await new ForwardProxy().start();
      try {
        const res = await helper.request().post('/lis-bridge/catalog').send({ config: { ...config(), proxyUrl: other.url } }).expect(400);
        assert.match(res.body.message, /Proxy URL differs from the deployed one/);
        assert.equal(other.forwarded.length, 0);
        // With a token typed in the dialog it goes, through the proxy typed, without the deployed proxy's credentials.
        ctx.stub.reply('/tests', { body: { tests: catalog } });
        await helper.request().post('/lis-bridge/catalog').send({ config: { ...config(), proxyUrl: other.url }, bearerToken: 'typed' }).expect(200);
        assert.equal(other.forwarded.length, 1);
        assert.equal(other.forwarded[0]!.headers['proxy-authorization'], undefined);
      } finally {
        await other.stop();
      }
    });
  });

  describe('with the token from an environment variable (bearerTokenEnv, as every example sets it)', () => {
    const ENV = 'LIS_MAPPER_TEST_TOKEN';
    const ENV_TOKEN = 'env-token-9c2e';
    const withEnv = (props: Record<string, unknown>) => ({ id: 'cfg', type: 'lis-config', labTestsApiUrl: ctx.stub.url('/tests'), timeout: 2000, bearerTokenEnv: ENV, ...props });
    async function loadEnvConfig(props: Record<string, unknown> = {}): Promise<void> {
      const flow = [withEnv(props), { id: 'm', type: 'test-mapper', lis: 'cfg', instrument: 'Analyzer #1', direction: 'auto', unmapped: 'warn', mapping: ROWS, wires: [[], []] }];
      await helper.load(nodeModules(...ALL_LIS_NODES) as never, flow as never, {} as never);
    }
    const set = (value: string | undefined) => {
      if (value === undefined) delete process.env[ENV];
      else process.env[ENV] = value;
    };

    it('loads the catalog with the token the deployed config reads from the environment', async (t) => {
      t.after(() => set(undefined));
      set(ENV_TOKEN);
      // The LIS requires the token: without it the rows could not come.
      ctx.stub.handle('/tests', (req) => (req.headers.authorization === `Bearer ${ENV_TOKEN}` ? { body: { tests: catalog } } : { status: 401, body: { message: 'no token' } }));
      await loadEnvConfig();
      const res = await helper.request().post('/lis-bridge/catalog').send({ config: { ...config(), bearerTokenEnv: ENV } }).expect(200);
      assert.deepEqual(res.body.tests, catalog);
      assert.deepEqual(res.body.rows.map((r: { lisTestId: string }) => r.lisTestId), ['T-GLU', 'T-CREA']);
      assert.equal(ctx.stub.to('/tests')[0]!.headers.authorization, `Bearer ${ENV_TOKEN}`);
    });

    it('a token typed in the dialog still wins, and a stored one comes before the environment', async (t) => {
      t.after(() => set(undefined));
      set(ENV_TOKEN);
      ctx.stub.reply('/tests', { body: { tests: catalog } });
      await loadEnvConfig();
      await helper.request().post('/lis-bridge/catalog').send({ config: config(), bearerToken: 'typed' }).expect(200);
      assert.equal(ctx.stub.to('/tests')[0]!.headers.authorization, 'Bearer typed');
      await helper.unload();
      await helper.load(nodeModules(...ALL_LIS_NODES) as never, [withEnv({})] as never, { cfg: { bearerToken: 'stored' } } as never);
      await helper.request().post('/lis-bridge/catalog').send({ config: config() }).expect(200);
      assert.equal(ctx.stub.to('/tests')[1]!.headers.authorization, 'Bearer stored');
    });

    it('never sends the environment token to a URL other than the deployed one', async (t) => {
      t.after(() => set(undefined));
      set(ENV_TOKEN);
      ctx.stub.reply('/elsewhere', { body: { tests: catalog } });
      await loadEnvConfig();
      const res = await helper.request().post('/lis-bridge/catalog').send({ config: { ...config(), labTestsApiUrl: ctx.stub.url('/elsewhere') } }).expect(400);
      assert.match(res.body.message, /differs from the deployed one/);
      assert.equal(ctx.stub.requests.length, 0);
    });

    it('never reads a variable named only in the dialog: an undeployed config is told to deploy first', async (t) => {
      t.after(() => set(undefined));
      set(ENV_TOKEN);
      await loadEnvConfig();
      const res = await helper.request().post('/lis-bridge/catalog').send({ config: { id: 'new-cfg', labTestsApiUrl: ctx.stub.url('/tests'), bearerTokenEnv: ENV } }).expect(400);
      assert.match(res.body.message, new RegExp(`${ENV}, which is read for the deployed config only: deploy first`));
      assert.equal(ctx.stub.requests.length, 0);
    });

    it('says which variable is missing when the environment does not hold it', async () => {
      set(undefined);
      await loadEnvConfig();
      const res = await helper.request().post('/lis-bridge/catalog').send({ config: config() }).expect(400);
      assert.match(res.body.message, new RegExp(`environment variable ${ENV}, which is not set where Node-RED runs`));
      assert.equal(ctx.stub.requests.length, 0);
    });
  });

  it('answers 502 with the LIS error when the LIS refuses the token', async () => {
    ctx.stub.reply('/tests', { status: 401, body: { message: 'invalid token', errors: ['expired'] } });
    await load();
    const res = await helper.request().post('/lis-bridge/catalog').send({ config: config() }).expect(502);
    assert.equal(res.body.code, 'HTTP_STATUS');
    assert.equal(res.body.status, 401);
    assert.match(res.body.message, /401.*invalid token/);
    assert.deepEqual(res.body.errors, ['expired']);
    assert.ok(!JSON.stringify(res.body).includes(TOKEN));
  });

  it('answers 502 when the LIS is down, and 400 for an unusable config', async () => {
    const dead = new LisStub();
    await dead.start();
    const url = dead.url('/tests');
    await dead.stop();
    await load();
    const down = await helper.request().post('/lis-bridge/catalog').send({ config: { labTestsApiUrl: url } }).expect(502);
    assert.equal(down.body.code, 'NETWORK');
    const bad = await helper.request().post('/lis-bridge/catalog').send({ config: { labTestsApiUrl: '' } }).expect(400);
    assert.equal(bad.body.code, 'NOT_CONFIGURED');
  });

  it('round-trips the mapping through CSV export and import', async () => {
    await load();
    const exported = await helper.request().post('/lis-bridge/mapping/csv-export').send({ rows: ROWS }).expect(200);
    assert.match(exported.body.csv, /^lisTestId,lisCode,lisName,instrumentCode,instrumentSubCode/);
    const imported = await helper.request().post('/lis-bridge/mapping/csv').send({ csv: exported.body.csv }).expect(200);
    assert.deepEqual(imported.body, { rows: ROWS, problems: [] });
    const partial = await helper.request().post('/lis-bridge/mapping/csv').send({ csv: 'lisTestId,lisCode,instrumentCode\nT1,C1,I1\n,C2,I2\n' }).expect(200);
    assert.equal(partial.body.rows.length, 1);
    assert.deepEqual(partial.body.problems, ['line 3: lisTestId must not be empty']);
  });
});
