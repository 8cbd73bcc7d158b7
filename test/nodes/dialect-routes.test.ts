/**
 * The dialect editor's admin routes through the real admin HTTP of a Node-RED
 * runtime: a built-in profile as JSON, the preview of a pasted capture with an
 * edited dialect, and the recent messages of a deployed astm-link from its trace;
 * the same for HL7 with `protocol: 'hl7'`.
 */
import { afterEach, beforeEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { collect, helper, nodeModules, waitUntil } from '../support/red';
import { loadFixture } from '../support/fixtures';
import { GENERIC_LIS2A2 } from '../../lib/protocols/astm/dialects';
import { frameMllp, HL7_PROFILES, readHl7Capture } from '../../lib/protocols/hl7';
import { HL7_GENERIC_ORU } from '../../lib/protocols/hl7/dialects';
import { loadHl7Fixture } from '../support/hl7-fixtures';

beforeEach(() => helper.startServer());
afterEach(async () => {
  await helper.unload();
  await helper.stopServer();
});

async function load(linkProps: Record<string, unknown> = {}): Promise<void> {
  const flow = [
    { id: 'link', type: 'astm-link', wires: [['line'], ['messages'], []], ...linkProps },
    { id: 'line', type: 'helper' },
    { id: 'messages', type: 'helper' },
    { id: 'm', type: 'astm-message', dialect: 'generic-lis2a2', wires: [[], [], [], []] },
  ];
  await helper.load(nodeModules('astm-link', 'astm-message') as never, flow as never);
}

const C311_SITE = {
  sampleId: { component: 2, singleComponent: false },
  testId: { code: { component: 4, split: { separator: '/', part: 1 }, trim: true } },
  results: { completedAt: { record: 'O', field: 'resultedAt' } },
};
/** A capture's frames as one transfer: the link reads frames only between ENQ and EOT (LIS1-A 6.2). */
const transfer = (name: string) => Buffer.concat([Buffer.of(0x05), loadFixture(name).bytes, Buffer.of(0x04)]);
const c311Paste = () => loadFixture('roche-c311-result.txt').file.toString('latin1');

const preview = async (body: Record<string, unknown>, status = 200) => (await helper.request().post('/lis-bridge/dialects/preview').send(body).expect(status)).body as Record<string, any>;

describe('dialect routes', () => {
  it('give a built-in profile as JSON, and 404 for an unknown one', async () => {
    await load();
    const res = await helper.request().get('/lis-bridge/dialects/generic-lis2a2').expect(200);
    assert.deepEqual(res.body, JSON.parse(JSON.stringify(GENERIC_LIS2A2)));
    const missing = await helper.request().get('/lis-bridge/dialects/no-such-analyzer').expect(404);
    assert.match(missing.body.message, /unknown dialect "no-such-analyzer"/);
  });

  it('serve the dialog\'s dialect section as one script', async () => {
    await load();
    const res = await helper.request().get('/lis-bridge/editor/dialect-editor.js').expect(200);
    assert.match(String(res.headers['content-type']), /javascript/);
    assert.match(res.text, /window\.LisBridgeDialectEditor = \{ mount: mount,/);
  });

  it('preview a pasted capture: unassigned with the base, results with the site\'s overrides', async () => {
    await load();
    const before = await preview({ base: 'generic-lis2a2', text: c311Paste(), timeZone: 'UTC' });
    assert.deepEqual(before.issues, []);
    assert.equal(before.paste.form, 'raw');
    assert.equal(before.paste.framing, 'framed');
    assert.equal(before.preview.results.length, 0);
    assert.equal(before.preview.unassigned[0].at.label, 'O-3 (specimenId)');

    const after = await preview({ base: 'generic-lis2a2', overrides: JSON.stringify(C311_SITE), text: c311Paste(), timeZone: 'UTC' });
    assert.equal(after.preview.unassigned.length, 0);
    assert.deepEqual(after.preview.results[0], { message: 1, record: 4, sampleNumber: 'CL-PL-24-0370', testCode: '685', value: '22.4', units: 'U/l', flags: ['A'], status: 'F', completedAt: '2024-02-03T13:20:11.000Z', completedAtRaw: '20240203132011' });
    assert.deepEqual(after.overrides, C311_SITE);
  });

  it('point: write what reads a clicked place, ask which place for an ambiguous table value, and refuse what is no request', async () => {
    await load();
    const script = await helper.request().get('/lis-bridge/editor/dialect-pointing.js').expect(200);
    assert.match(script.text, /window\.LisBridgeDialectPointing = \{ attach: attach,/);
    const text = loadFixture('mindray-cl2000i-result.txt').file.toString('latin1');
    const point = async (body: Record<string, unknown>, status = 200) => (await helper.request().post('/lis-bridge/dialects/point').send(body).expect(status)).body as Record<string, any>;
    const sample = await point({ protocol: 'astm', base: 'generic-lis2a2', text, timeZone: 'UTC', role: 'sampleNumber', place: { message: 1, record: 3, type: 'O', field: 4 } });
    assert.deepEqual(sample.overrides, { sampleId: { field: 'instrumentSpecimenId' } });
    assert.equal(sample.changed, 2);
    assert.deepEqual(sample.preview.preview.results.map((r: { sampleNumber: string }) => r.sampleNumber), ['SAMPLE123', 'SAMPLE123']);
    const code = await point({ base: 'generic-lis2a2', overrides: JSON.stringify(sample.overrides), text, role: 'testCode', value: 'CA125', message: 1 });
    assert.deepEqual(code.overrides.testId, { code: { component: 2, trim: true } });
    const architect = loadFixture('abbott-architect-i-result-multi.txt').file.toString('latin1');
    const ask = await point({ base: 'generic-lis2a2', text: architect, role: 'sampleNumber', value: '276056250158121' });
    assert.equal(ask.choices.length, 2);
    const refused = await point({ protocol: 'astm', base: 'generic-lis2a2', text, role: 'colour' }, 400);
    assert.match(refused.errors.join(' '), /role must be one of/);
    // Flags are a file table's column; a message carries them where its standard puts them.
    const flags = await point({ protocol: 'astm', base: 'generic-lis2a2', text, role: 'flags', value: 'CA125' }, 400);
    assert.deepEqual(flags.errors, ['role must be one of sampleNumber, testCode, value, units']);
    const nowhere = await point({ base: 'generic-lis2a2', text, role: 'value' }, 400);
    assert.match(nowhere.errors.join(' '), /give the place/);
    // HL7 through the same route: the URIT 8030 bar code in OBR-2.
    const urit = readFileSync(join(__dirname, '..', '..', '..', 'test', 'fixtures', 'hl7', 'urit-8030-oru-r01.txt'), 'latin1');
    const hl7 = await point({ protocol: 'hl7', base: 'generic-oru', text: urit, role: 'sampleNumber', value: '0000966134' });
    assert.deepEqual(hl7.overrides, { sampleId: { places: [{ segment: 'OBR', field: 2 }] } });
    assert.equal(hl7.changed, 1);
    assert.equal(hl7.preview.preview.results[0].sampleNumber, '0000966134');
    const shown = await preview({ protocol: 'hl7', base: 'generic-oru', text: urit });
    assert.deepEqual(shown.capture.messages[0].lines.map((l: { label: string }) => l.label), ['MSH 1', 'PID 2', 'OBR 3', 'OBX 4']);
    const unknown = await point({ protocol: 'dicom', base: 'x', text, role: 'value', value: '1' }, 400);
    assert.match(unknown.errors.join(' '), /protocol "dicom"/);
  });

  it('answer a dialect\'s problems with their paths and no preview, and refuse what is no request', async () => {
    await load();
    const bad = await preview({ base: 'generic-lis2a2', overrides: { sampleId: { component: 0 }, results: { valeu: {} } }, text: c311Paste() });
    assert.deepEqual(bad.issues.map((i: { path: string }) => i.path), ['results.valeu']);
    assert.equal(bad.preview, undefined);
    assert.equal(bad.paste.form, 'raw', 'the paste is read all the same');
    const rules = await preview({ base: 'generic-lis2a2', overrides: { sampleId: { component: 0 } } });
    assert.deepEqual(rules.issues.map((i: { path: string }) => i.path), ['sampleId.component']);
    const refused = await preview({ overrides: {}, text: 42, timeZone: 'Mars/Olympus' }, 400);
    assert.equal(refused.code, 'INVALID_INPUT');
    assert.equal(refused.errors.length, 3);
  });

  it('refuse overrides nested 5,000 levels deep with 400 naming the setting\'s path, as an object or as stored text', async () => {
    await load();
    const nested = `{"results":${'{"value":'.repeat(5000)}1${'}'.repeat(5000)}}`;
    // Written as JSON text by hand: the test's own JSON.stringify would recurse 5,000 levels too.
    for (const overrides of [JSON.stringify(nested), nested]) {
      const body = `{"base":"generic-lis2a2","overrides":${overrides},"text":${JSON.stringify(c311Paste())}}`;
      const res = await helper.request().post('/lis-bridge/dialects/preview').set('Content-Type', 'application/json').send(body).expect(400);
      assert.equal(res.body.code, 'INVALID_INPUT');
      assert.match(res.body.errors.join('\n'), /^overrides\.results(\.value){31}: the overrides are nested deeper than 32 levels/);
    }
  });

  it('give the last messages a deployed link received, from its trace, ready to preview', async () => {
    await load();
    const messages = collect('messages');
    helper.getNode('link').receive({ payload: transfer('roche-c311-result.txt') } as never);
    await waitUntil(() => messages.length === 1);
    const recent = (await helper.request().get('/lis-bridge/links/link/recent?count=5').expect(200)).body as { messages: Array<{ text: string; at: string; redacted: boolean; summary: { samples: string[]; results: number; firstResult: string } }> };
    assert.equal(recent.messages.length, 1);
    // What the picker shows of it beside its time: its sample and first result.
    assert.deepEqual(recent.messages[0]!.summary, { samples: ['11625^CL-PL-24-0370^1^004'], results: 7, queries: 0, firstResult: '685/ 22.4 U/l' });
    assert.match(recent.messages[0]!.text, /^H\|\\\^&\|\|\|c311\^1/);
    assert.equal(recent.messages[0]!.redacted, false);
    const shown = await preview({ base: 'generic-lis2a2', overrides: C311_SITE, text: recent.messages[0]!.text, timeZone: 'UTC' });
    assert.equal(shown.paste.form, 'tokens');
    assert.equal(shown.preview.results.length, 7);

    await helper.request().get('/lis-bridge/links/no-such-link/recent').expect(404);
    await helper.request().get('/lis-bridge/links/link/recent?count=0').expect(400);
  });

  it('give an hl7-link\'s last messages, its trace read as MLLP', async () => {
    const flow = [
      { id: 'hl7', type: 'hl7-link', transport: 'tcp', journal: false, wires: [['line'], ['messages'], []] },
      { id: 'line', type: 'helper' },
      { id: 'messages', type: 'helper' },
    ];
    await helper.load(nodeModules('astm-link', 'hl7-link', 'hl7-message') as never, flow as never);
    const messages = collect('messages');
    const line = collect('line');
    const oru = (id: string, sample: string) => `MSH|^~\\&|LAB1|FAC|HOST|HFAC|20240501101010||ORU^R01^ORU_R01|${id}|P|2.5.1\rPID|1||P1\rOBR|1|${sample}\rOBX|1|NM|GLU||5.5|mmol/L|||||F\r`;
    for (const [id, sample] of [['R-1', 'S-1'], ['R-2', 'S-2']] as const) {
      helper.getNode('hl7').receive({ payload: frameMllp(Buffer.from(oru(id, sample), 'latin1')), _session: { type: 'tcp', id: 'a1' } } as never);
    }
    await waitUntil(() => messages.length === 2 && line.length >= 1, 5000, 'both messages and their ACKs');
    const recent = (await helper.request().get('/lis-bridge/links/hl7/recent').expect(200)).body as { messages: Array<{ text: string; summary: unknown }>; problems: string[] };
    assert.deepEqual(recent.problems, []);
    // What tells them apart in the picker: the sample and the first result.
    assert.deepEqual(recent.messages.map((m) => m.summary), [
      { samples: ['S-1'], results: 1, queries: 0, firstResult: 'GLU 5.5 mmol/L' },
      { samples: ['S-2'], results: 1, queries: 0, firstResult: 'GLU 5.5 mmol/L' },
    ]);
    assert.equal(recent.messages.length, 2, 'the ACKs sent are not listed');
    assert.match(recent.messages[0]!.text, /^MSH\|\^~\\&\|LAB1\|.*\|R-1\|/);
    assert.match(recent.messages[1]!.text, /OBR\|1\|S-2<CR>/);
    // Picked in hl7-message's dialog, it previews as hl7-message reads it.
    const shown = await preview({ protocol: 'hl7', base: 'generic-oru', text: recent.messages[1]!.text, timeZone: 'UTC' });
    assert.deepEqual(shown.paste.problems, []);
    assert.deepEqual(shown.preview.results.map((r: Record<string, unknown>) => [r.sampleNumber, r.testCode, r.value, r.units]), [['S-2', 'GLU', '5.5', 'mmol/L']]);
  });

  it('serve HL7 with protocol "hl7": the built-in list, a profile, the preview with overrides; an unknown protocol is refused', async () => {
    await load();
    const list = (await helper.request().get('/lis-bridge/dialects?protocol=hl7').expect(200)).body as Array<{ id: string; versions: string[] }>;
    assert.deepEqual(list.map((p) => p.id), HL7_PROFILES.map((p) => p.id));
    assert.deepEqual(list[0]!.versions, HL7_GENERIC_ORU.versions);
    const astm = (await helper.request().get('/lis-bridge/dialects').expect(200)).body as Array<{ id: string }>;
    assert.equal(astm[0]!.id, 'generic-lis2a2', 'no protocol is ASTM, as before');
    assert.deepEqual((await helper.request().get('/lis-bridge/dialects/generic-oru?protocol=hl7').expect(200)).body, JSON.parse(JSON.stringify(HL7_GENERIC_ORU)));
    await helper.request().get('/lis-bridge/dialects/generic-oru').expect(404);

    const edan = loadHl7Fixture('edan-i15-oru-r01.txt').messages[0]!.bytes.toString('latin1');
    const before = await preview({ protocol: 'hl7', base: 'generic-oru', text: edan, timeZone: 'UTC' });
    assert.deepEqual(before.preview.results.slice(0, 2).map((r: Record<string, unknown>) => r.testCode), ['0', '0']);
    const overrides = { results: { code: { segment: 'OBX', field: 4 } } };
    const after = await preview({ protocol: 'hl7', base: 'generic-oru', overrides: JSON.stringify(overrides), text: edan, timeZone: 'UTC' });
    assert.deepEqual(after.preview.results.slice(0, 2).map((r: Record<string, unknown>) => r.testCode), ['pH', 'pO2']);
    assert.deepEqual(after.overrides, overrides);
    const bad = await preview({ protocol: 'hl7', base: 'generic-oru', overrides: { results: { code: { segment: 'OBX', field: 0 } } } });
    assert.deepEqual(bad.issues.map((i: { path: string }) => i.path), ['results.code.field']);

    const refused = await preview({ protocol: 'dicom', base: 'generic-oru' }, 400);
    assert.match(refused.errors.join(), /protocol "dicom" is not one the dialect editor serves \(astm, hl7, file\)/);
    await helper.request().get('/lis-bridge/dialects?protocol=dicom').expect(400);
  });

  it('give an hl7-link\'s messages in its own naming, so the HL7 paste reader reads back the same bytes', async () => {
    const flow = [
      { id: 'hl7', type: 'hl7-link', transport: 'tcp', journal: false, wires: [['line'], ['messages'], []] },
      { id: 'line', type: 'helper' },
      { id: 'messages', type: 'helper' },
    ];
    await helper.load(nodeModules('astm-link', 'hl7-link') as never, flow as never);
    const messages = collect('messages');
    // Text that looks like MLLP tokens, and a byte ASTM names (STX): shown in ASTM's naming, the first read back as VT and FS, the second as text.
    const oru = 'MSH|^~\\&|LAB1|FAC|HOST|HFAC|20240501101010||ORU^R01^ORU_R01|R-9|P|2.5.1\rPID|1||P1\rOBR|1|S-9\rOBX|1|NM|GLU||5.5|mmol/L|||||F\rNTE|1||see <VT> and <FS> \x02 here\r';
    helper.getNode('hl7').receive({ payload: frameMllp(Buffer.from(oru, 'latin1')), _session: { type: 'tcp', id: 'a1' } } as never);
    await waitUntil(() => messages.length === 1, 5000, 'the message');
    const recent = (await helper.request().get('/lis-bridge/links/hl7/recent').expect(200)).body as { messages: Array<{ text: string }> };
    assert.equal(recent.messages.length, 1);
    const read = readHl7Capture(recent.messages[0]!.text);
    assert.deepEqual(read.problems, []);
    assert.equal(read.messages[0]?.toString('latin1'), oru);
  });

  it('give a redacting link\'s messages redacted', async () => {
    await load({ traceRedact: true });
    const messages = collect('messages');
    helper.getNode('link').receive({ payload: transfer('sysmex-xn550-result.txt') } as never);
    await waitUntil(() => messages.length === 1);
    const recent = (await helper.request().get('/lis-bridge/links/link/recent').expect(200)).body as { messages: Array<{ text: string; redacted: boolean }>; notes: string[] };
    assert.equal(recent.messages[0]!.redacted, true);
    const p = recent.messages[0]!.text.split('\n').find((r) => r.startsWith('P|'));
    assert.match(p ?? '', /^P\|1\|\|\|[^|]*\|\*\*\*\|/);
    assert.ok(recent.notes.some((n) => /redacted/.test(n)));
  });
});
