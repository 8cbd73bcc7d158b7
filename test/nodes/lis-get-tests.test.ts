import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { useLisStub } from '../support/lifecycle';
import { helper } from '../support/red';
import { TOKEN, loadLisFlow, run } from '../support/lis-flow';

const ctx = useLisStub();

const catalog = [
  { ID: '1', Name: 'Glucose', Code: 'GLU', Type: 'Serum' },
  { ID: '2', Name: 'Complete blood count', Code: 'CBC' },
];

describe('lis-get-tests', () => {
  it('posts the node filters and outputs the validated catalog', async () => {
    ctx.stub.reply('/tests', { body: { tests: catalog } });
    await loadLisFlow(ctx.stub, { type: 'lis-get-tests', node: { filterName: 'glu', filterCode: '' } });
    const { port, msg } = await run(undefined);
    assert.equal(port, 'out1');
    assert.deepEqual(msg.payload, catalog);
    const [req] = ctx.stub.to('/tests');
    assert.deepEqual(req!.json, { Name: 'glu' });
    assert.equal(req!.headers.authorization, `Bearer ${TOKEN}`);
    assert.equal(req!.headers['x-expected-sample'], undefined);
    assert.equal(req!.headers.accept, 'application/json');
  });

  it('lets msg.payload.Name and msg.payload.Code override the node filters', async () => {
    ctx.stub.reply('/tests', { body: { tests: [] } });
    await loadLisFlow(ctx.stub, { type: 'lis-get-tests', node: { filterName: 'glu', filterCode: 'X' } });
    await run({ Name: 'creat', Code: 'CR' });
    assert.deepEqual(ctx.stub.to('/tests')[0]!.json, { Name: 'creat', Code: 'CR' });
  });

  it('sends an empty body when no filter is set', async () => {
    ctx.stub.reply('/tests', { body: { tests: [] } });
    await loadLisFlow(ctx.stub, { type: 'lis-get-tests' });
    await run('go');
    assert.deepEqual(ctx.stub.to('/tests')[0]!.json, {});
  });

  it('makes a single attempt even on 503', async () => {
    ctx.stub.reply('/tests', { status: 503 });
    await loadLisFlow(ctx.stub, { type: 'lis-get-tests' });
    const { port } = await run(undefined);
    assert.equal(port, 'caught');
    await new Promise((r) => setTimeout(r, 300));
    assert.equal(ctx.stub.to('/tests').length, 1);
  });

  it('names the offending fields of a catalog that breaks the schema', async () => {
    ctx.stub.reply('/tests', { body: { tests: [{ ID: 1, Name: 'Glucose', Code: 'GLU' }, { ID: '2', Name: 'Urea' }] } });
    await loadLisFlow(ctx.stub, { type: 'lis-get-tests' });
    const { port, msg } = await run(undefined);
    assert.equal(port, 'caught');
    const err = msg._error as { code: string; errors: string[] };
    assert.equal(err.code, 'INVALID_RESPONSE');
    assert.ok(err.errors.some((e) => e.startsWith('tests[0].ID:')), err.errors.join(' | '));
    assert.ok(err.errors.some((e) => e.startsWith('tests[1].Code:')), err.errors.join(' | '));
  });

  it('refuses a bare array where { tests } is specified, and a truncated body', async () => {
    for (const body of [catalog, '{"tests": [{"ID": "1"']) {
      ctx.stub.reply('/tests', { body });
      await loadLisFlow(ctx.stub, { type: 'lis-get-tests' });
      const { port, msg } = await run(undefined);
      assert.equal(port, 'caught');
      assert.equal((msg._error as Record<string, unknown>).code, 'INVALID_RESPONSE');
      await helper.unload();
    }
  });
});
