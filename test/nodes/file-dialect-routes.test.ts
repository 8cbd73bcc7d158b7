/**
 * file-message's dialect routes through the real admin HTTP of a Node-RED
 * runtime: the built-in file dialects, one as JSON, the preview of a pasted
 * export with its capture and roles, pointing at a column, and requests that
 * are not ones refused with what to send.
 */
import { afterEach, beforeEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { helper, nodeModules } from '../support/red';
import { APPBIO_QUANTSTUDIO } from '../../lib/protocols/file';

beforeEach(() => helper.startServer());
afterEach(async () => {
  await helper.unload();
  await helper.stopServer();
});

const QS = readFileSync(join(__dirname, '..', '..', '..', 'test', 'fixtures', 'file', 'quantstudio-7-flex-results.txt'), 'utf8');

async function load(): Promise<void> {
  await helper.load(nodeModules('file-message') as never, [{ id: 'm', type: 'file-message', dialect: 'appbio-quantstudio', wires: [[], []] }] as never);
}

describe('file dialect routes', () => {
  it('list the built-in file dialects and give one as JSON (404 for an unknown one)', async () => {
    await load();
    const list = (await helper.request().get('/lis-bridge/dialects?protocol=file').expect(200)).body as Array<Record<string, unknown>>;
    assert.deepEqual(list.map((p) => p.id), ['generic-csv', 'appbio-quantstudio', 'appbio-quantstudio-design-analysis-xlsx', 'abbott-m2000rt', 'thermo-multiskan-go', 'thermo-skanit-xlsx', 'moldev-softmax-pro', 'varian-vista-pro', 'beckman-access-2', 'senaite-two-dimension']);
    assert.equal(list[2]!.delimiter, 'xlsx workbook');
    assert.deepEqual(list[1], { id: 'appbio-quantstudio', label: APPBIO_QUANTSTUDIO.label, vendor: 'Applied Biosystems', model: 'QuantStudio 6/7 Flex, 7500', layout: 'row-per-result', delimiter: 'tab' });
    assert.deepEqual((await helper.request().get('/lis-bridge/dialects/appbio-quantstudio?protocol=file').expect(200)).body, JSON.parse(JSON.stringify(APPBIO_QUANTSTUDIO)));
    assert.match((await helper.request().get('/lis-bridge/dialects/nope?protocol=file').expect(404)).body.message, /unknown dialect "nope"/);
    // The dialog's shared script is served with them.
    await helper.request().get('/lis-bridge/editor/dialect-editor.js').expect(200);
  });

  it('preview a pasted export with the site\'s changes: results, capture and roles', async () => {
    await load();
    const body = (await helper.request().post('/lis-bridge/dialects/preview').send({ protocol: 'file', base: 'appbio-quantstudio', overrides: '{"layout":{"value":"Ct Mean"}}', text: QS, timeZone: 'UTC' }).expect(200)).body as Record<string, any>;
    assert.deepEqual(body.issues, []);
    assert.deepEqual(body.overrides, { layout: { value: 'Ct Mean' } });
    assert.deepEqual(body.preview.results.slice(0, 3).map((r: Record<string, unknown>) => r.value), ['25.612', '25.612', '25.612']);
    assert.equal(body.capture.messages[0].lines[0].label, 'line 19');
    assert.deepEqual(body.roles, ['sampleNumber', 'testCode', 'value', 'units']);
  });

  it('point at a cell to set the value column', async () => {
    await load();
    const body = (await helper.request().post('/lis-bridge/dialects/point').send({ protocol: 'file', base: 'appbio-quantstudio', text: QS, timeZone: 'UTC', role: 'value', place: { row: 23, column: 10 } }).expect(200)).body as Record<string, any>;
    assert.deepEqual(body.overrides, { layout: { value: 'Ct Mean' } });
    assert.equal(body.changed, 18, 'every replicate Ct becomes its mean');
  });

  it('refuse requests that are not ones, saying what to send', async () => {
    await load();
    const bad = (await helper.request().post('/lis-bridge/dialects/point').send({ protocol: 'file', base: 'appbio-quantstudio', text: QS, role: 'colour' }).expect(400)).body as Record<string, any>;
    assert.deepEqual(bad.errors, ['role must be one of sampleNumber, testCode, value, units', 'give the place clicked in the capture, or the value clicked in the table']);
    const deep = (await helper.request().post('/lis-bridge/dialects/preview').send({ protocol: 'file', base: 'generic-csv', text: 'x', timeZone: 'Mars/Olympus' }).expect(400)).body as Record<string, any>;
    assert.deepEqual(deep.errors, ['timeZone "Mars/Olympus" is not an IANA zone such as Europe/Berlin']);
  });
});
