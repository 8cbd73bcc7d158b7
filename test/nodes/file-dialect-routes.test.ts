/**
 * file-message's dialect routes through the real admin HTTP of a Node-RED
 * runtime: the built-in file dialects, one as JSON, the preview of a pasted
 * export with its capture and roles, pointing at a column, and requests that
 * are not ones refused with what to send; a file loaded in the dialog (its
 * bytes in base64): the real QuantStudio Design & Analysis workbook previewed
 * and pointed at, a file that is no workbook, a ZIP bomb and a wrong sheet
 * answered with what to set, and an upload too large refused naming the limit.
 */
import { afterEach, beforeEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { helper, nodeModules } from '../support/red';
import { APPBIO_QUANTSTUDIO, FILE_PROFILES } from '../../lib/protocols/file';
import { zip } from '../support/zip';

beforeEach(() => helper.startServer());
afterEach(async () => {
  await helper.unload();
  await helper.stopServer();
});

const FIXTURES = join(__dirname, '..', '..', '..', 'test', 'fixtures', 'file');
const QS = readFileSync(join(FIXTURES, 'quantstudio-7-flex-results.txt'), 'utf8');
const WORKBOOK = readFileSync(join(FIXTURES, 'quantstudio-7-pro-diomni-presence-absence.xlsx'));
const XLSX_DIALECT = 'appbio-quantstudio-design-analysis-xlsx';

async function load(): Promise<void> {
  await helper.load(nodeModules('file-message') as never, [{ id: 'm', type: 'file-message', dialect: 'appbio-quantstudio', wires: [[], []] }] as never);
}

describe('file dialect routes', () => {
  it('list the built-in file dialects and give one as JSON (404 for an unknown one)', async () => {
    await load();
    const list = (await helper.request().get('/lis-bridge/dialects?protocol=file').expect(200)).body as Array<Record<string, unknown>>;
    // Every built-in, in the picker's order.
    assert.deepEqual(list.map((p) => p.id), FILE_PROFILES.map((p) => p.id));
    assert.deepEqual(list.slice(0, 3).map((p) => p.id), ['generic-csv', 'appbio-quantstudio', 'appbio-quantstudio-design-analysis-xlsx']);
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
    assert.deepEqual(body.roles, ['sampleNumber', 'testCode', 'value', 'units', 'flags', 'headerRow', 'firstRow']);
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
    assert.deepEqual(bad.errors, ['role must be one of sampleNumber, testCode, value, units, flags, headerRow, firstRow', 'give the place clicked in the capture, or the value clicked in the table']);
    const deep = (await helper.request().post('/lis-bridge/dialects/preview').send({ protocol: 'file', base: 'generic-csv', text: 'x', timeZone: 'Mars/Olympus' }).expect(400)).body as Record<string, any>;
    assert.deepEqual(deep.errors, ['timeZone "Mars/Olympus" is not an IANA zone such as Europe/Berlin']);
  });
});

describe('file dialect routes: a file loaded in the dialog', () => {
  const loaded = (bytes: Buffer, more: Record<string, unknown> = {}) => ({ protocol: 'file', base: XLSX_DIALECT, bytes: bytes.toString('base64'), fileName: 'RUN-01.xlsx', timeZone: 'America/New_York', ...more });
  const preview = async (body: Record<string, unknown>, status = 200) => (await helper.request().post('/lis-bridge/dialects/preview').send(body).expect(status)).body as Record<string, any>;
  const problems = (body: Record<string, any>) => (body.preview.problems as Array<{ text: string }>).map((p) => p.text);

  it('preview a workbook: its sheet as the capture, a cell a token, and the results the runtime reads', async () => {
    await load();
    const body = await preview(loaded(WORKBOOK));
    assert.deepEqual(body.issues, []);
    assert.deepEqual(body.paste, { form: 'file', framing: 'xlsx', notes: [], problems: [] });
    assert.deepEqual(
      body.preview.results.map((r: Record<string, unknown>) => [r.sampleNumber, r.testCode, r.value, r.completedAt]),
      [['Sample001', 'T4', '39.54', '2026-02-13T19:39:53.000Z']],
    );
    assert.deepEqual(body.preview.qc.map((r: Record<string, unknown>) => r.value), ['UNDETERMINED', 'UNDETERMINED', 'UNDETERMINED', 'UNDETERMINED']);
    const header = (body.capture.messages[0].lines as Array<{ label: string; tokens: Array<{ text: string; place?: unknown }> }>).find((l) => l.label === 'line 29')!;
    assert.deepEqual(header.tokens.filter((t) => t.place).map((t) => t.text).slice(0, 8), ['Well', 'Omit', 'Sample', 'Target', 'Task', 'Reporter', 'Quencher', 'Cq']);
    assert.deepEqual(header.tokens[2], { text: 'Omit', place: { row: 29, column: 2 } });
  });

  it('a text export loaded is decoded in the dialect\'s encoding, as pasted', async () => {
    await load();
    const bytes = readFileSync(join(FIXTURES, 'quantstudio-7-flex-results.txt'));
    const asFile = await preview({ protocol: 'file', base: 'appbio-quantstudio', bytes: bytes.toString('base64'), timeZone: 'UTC' });
    const asPaste = await preview({ protocol: 'file', base: 'appbio-quantstudio', text: QS, timeZone: 'UTC' });
    assert.equal(asFile.preview.results.length, 18);
    assert.deepEqual(asFile.preview, asPaste.preview);
  });

  it('point at a cell of the workbook: the column of the header row is written as the override', async () => {
    await load();
    const body = (await helper.request().post('/lis-bridge/dialects/point').send(loaded(WORKBOOK, { role: 'sampleNumber', place: { row: 29, column: 1 } })).expect(200)).body as Record<string, any>;
    assert.deepEqual(body.overrides, { layout: { sample: 'Well' } });
    assert.equal(body.setting, 'layout.sample');
    assert.equal(body.changed, 1);
    // The Well column holds well positions: pointed at as the sample number, each is held, never sent as one.
    assert.deepEqual(body.preview.preview.results, []);
    assert.ok(
      (body.preview.preview.unassigned as Array<{ reason: string }>).some((u) => u.reason.includes('sample number "A01" is a plate well\'s position')),
      JSON.stringify(body.preview.preview.unassigned),
    );
    // By a value of the results table too.
    const byValue = (await helper.request().post('/lis-bridge/dialects/point').send(loaded(WORKBOOK, { role: 'testCode', value: 'ABY' })).expect(200)).body as Record<string, any>;
    assert.deepEqual(byValue.overrides, { layout: { test: 'Reporter' } });
  });

  it('a file that is no workbook, a ZIP bomb and a sheet the workbook lacks: answered with what to set', async () => {
    await load();
    // The workbook under a text dialect: the setting to change, not a column it lacks.
    assert.match(problems(await preview(loaded(WORKBOOK, { base: 'generic-csv' })))[0]!, /^the file is a ZIP archive \(an Excel \.xlsx workbook\?\) and the dialect reads text \(format text\): set format to xlsx \(and sheet\)/);
    const csv = readFileSync(join(FIXTURES, 'beckman-access-2-results.csv'));
    assert.match(problems(await preview(loaded(csv)))[0]!, /^the file is not an Excel workbook \(it starts neither as a ZIP archive, \.xlsx, nor as an OLE2 file, \.xls\), and the dialect reads workbooks \(format xlsx\)/);
    const bomb = zip([{ name: 'xl/workbook.xml', data: Buffer.alloc(64 * 1024, 0x20), declared: 0xffffffff }]);
    assert.match(problems(await preview(loaded(bomb)))[0]!, /^the workbook unpacks to 4096 MB by its directory, more than maxUnpackedMB 50 MB allows: not read/);
    const pointed = (await helper.request().post('/lis-bridge/dialects/point').send(loaded(bomb, { role: 'value', place: { row: 1, column: 1 } })).expect(200)).body as Record<string, any>;
    assert.match(pointed.refused, /^the file cannot be read: the workbook unpacks to 4096 MB by its directory, more than maxUnpackedMB 50 MB/);
    const sheet = await preview(loaded(WORKBOOK, { overrides: { sheet: 'Results' } }));
    assert.deepEqual(sheet.issues, []);
    assert.match(problems(sheet)[0]!, /^the workbook has no sheet "Results" \(sheet\); its sheets are 1 "Primary_result", .*; set sheet to one of their names or positions$/);
  });

  it('an upload larger than the preview takes is refused before it is decoded (413, naming the limit); bytes that are no base64, or where they do not belong, with what to send', async () => {
    await load();
    const big = 'A'.repeat(4 * 1024 * 1024 + 4); // base64 of 3 MB and 3 bytes
    for (const route of ['preview', 'point']) {
      const body = (await helper.request().post(`/lis-bridge/dialects/${route}`).send({ protocol: 'file', base: XLSX_DIALECT, bytes: big, role: 'value', place: { row: 1, column: 1 } }).expect(413)).body as Record<string, any>;
      assert.deepEqual(body.errors, ["bytes holds a file of about 3.0 MB, more than the 3 MB (3145728 bytes) the dialog's preview takes: load a smaller export of the same instrument (one run), or try the dialect on the whole file through folder-link"]);
    }
    const bad = await preview({ protocol: 'file', base: XLSX_DIALECT, bytes: 'UEsDBA==!', fileName: 7 }, 400);
    assert.deepEqual(bad.errors, ['bytes must be the loaded file in base64 (A-Z, a-z, 0-9, + and /, padded with =)', "fileName must be the file's name"]);
    assert.deepEqual((await preview({ protocol: 'file', base: XLSX_DIALECT, bytes: 'UEsDB', timeZone: 'UTC' }, 400)).errors, ['bytes must be the loaded file in base64: its length is not a multiple of 4 (cut short?)']);
    assert.deepEqual((await preview({ protocol: 'file', base: XLSX_DIALECT, bytes: 'UEsDBA==', text: 'Well', timeZone: 'UTC' }, 400)).errors, ['give the capture as text (pasted) or as bytes (a file loaded), not both']);
    assert.deepEqual((await preview({ protocol: 'hl7', base: 'generic-hl7', bytes: 'UEsDBA==', timeZone: 'UTC' }, 400)).errors, ['protocol "hl7" takes its capture as text: bytes (a file loaded) are read for file dialects only']);
  });
});
