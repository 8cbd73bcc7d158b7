import { afterEach, beforeEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { LisStub } from '../support/lis-stub';
import { helper } from '../support/red';
import { TOKEN, loadLisFlow, run } from '../support/lis-flow';

let stub: LisStub;
beforeEach(async () => {
  stub = await new LisStub().start();
  await helper.startServer();
});
afterEach(async () => {
  await helper.unload();
  await helper.stopServer();
  await stub.stop();
});

const catalog = [
  { ID: '1', Name: 'Glucose', Code: 'GLU', Type: 'Serum' },
  { ID: '2', Name: 'Complete blood count', Code: 'CBC' },
];

describe('lis-get-tests', () => {
  it('posts the node filters and outputs the validated catalog', async () => {
    stub.reply('/tests', { body: { tests: catalog } });
    await loadLisFlow(stub, { type: 'lis-get-tests', node: { filterName: 'glu', filterCode: '' } });
    const { port, msg } = await run(undefined);
    assert.equal(port, 'out1');
    assert.deepEqual(msg.payload, catalog);
    const [req] = stub.to('/tests');
    assert.deepEqual(req!.json, { Name: 'glu' });
    assert.equal(req!.headers.authorization, `Bearer ${TOKEN}`);
    assert.equal(req!.headers['x-expected-sample'], undefined);
    assert.equal(req!.headers.accept, 'application/json');
  });

  it('lets msg.payload.Name and msg.payload.Code override the node filters', async () => {
    stub.reply('/tests', { body: { tests: [] } });
    await loadLisFlow(stub, { type: 'lis-get-tests', node: { filterName: 'glu', filterCode: 'X' } });
    await run({ Name: 'creat', Code: 'CR' });
    assert.deepEqual(stub.to('/tests')[0]!.json, { Name: 'creat', Code: 'CR' });
  });

  it('sends an empty body when no filter is set', async () => {
    stub.reply('/tests', { body: { tests: [] } });
    await loadLisFlow(stub, { type: 'lis-get-tests' });
    await run('go');
    assert.deepEqual(stub.to('/tests')[0]!.json, {});
  });

  it('makes a single attempt even on 503', async () => {
    stub.reply('/tests', { status: 503 });
    await loadLisFlow(stub, { type: 'lis-get-tests' });
    const { port } = await run(undefined);
    assert.equal(port, 'caught');
    await new Promise((r) => setTimeout(r, 300));
    assert.equal(stub.to('/tests').length, 1);
  });

  it('names the offending fields of a catalog that breaks the schema', async () => {
    stub.reply('/tests', { body: { tests: [{ ID: 1, Name: 'Glucose', Code: 'GLU' }, { ID: '2', Name: 'Urea' }] } });
    await loadLisFlow(stub, { type: 'lis-get-tests' });
    const { port, msg } = await run(undefined);
    assert.equal(port, 'caught');
    const err = msg._error as { code: string; errors: string[] };
    assert.equal(err.code, 'INVALID_RESPONSE');
    assert.ok(err.errors.some((e) => e.startsWith('tests[0].ID:')), err.errors.join(' | '));
    assert.ok(err.errors.some((e) => e.startsWith('tests[1].Code:')), err.errors.join(' | '));
  });

  it('refuses a bare array where { tests } is specified, and a truncated body', async () => {
    for (const body of [catalog, '{"tests": [{"ID": "1"']) {
      stub.reply('/tests', { body });
      await loadLisFlow(stub, { type: 'lis-get-tests' });
      const { port, msg } = await run(undefined);
      assert.equal(port, 'caught');
      assert.equal((msg._error as Record<string, unknown>).code, 'INVALID_RESPONSE');
      await helper.unload();
    }
  });
});
