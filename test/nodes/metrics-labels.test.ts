/**
 * One message whose MSH-3 is 1 MB (issue 23: every scrape of
 * /lis-bridge/metrics was 8.1 MB after it, until a restart). The analyzer's
 * name is a label: cut to 64 characters with an ellipsis, in the metrics and
 * in the Lab sidebar's link list alike.
 */
import { afterEach, beforeEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { collect, helper, nodeModules, waitUntil } from '../support/red';
import { find, parseSamples } from '../support/prometheus';
import { frameMllp } from '../../lib/protocols/hl7';

beforeEach(() => helper.startServer());
afterEach(async () => {
  await helper.unload();
  await helper.stopServer();
});

describe('metrics after an analyzer names itself at length', () => {
  it('keeps the analyzer label at 64 characters: the scrape stays small', async () => {
    const flow = [
      { id: 'link', type: 'hl7-link', transport: 'tcp', journal: false, trace: false, wires: [['writes'], ['messages'], []] },
      { id: 'writes', type: 'helper' },
      { id: 'messages', type: 'helper' },
    ];
    // astm-link's module installs the metrics and links routes (in a real Node-RED every module of the package is loaded).
    await helper.load(nodeModules('hl7-link', 'astm-link') as never, flow as never);
    const messages = collect('messages');
    const writes = collect('writes');
    const name = 'A'.repeat(1024 * 1024);
    const text = `MSH|^~\\&|${name}|FAC|HOST|HFAC|20240501101010||ORU^R01^ORU_R01|BIG-1|P|2.5.1\rPID|1||P1\rOBR|1|S-1\rOBX|1|NM|GLU||5.5|mmol/L|||||F\r`;
    helper.getNode('link').receive({ payload: frameMllp(Buffer.from(text, 'latin1')), _session: { type: 'tcp', id: 'big' } } as never);
    await waitUntil(() => messages.length === 1 && writes.length === 1, 5000, 'the message and its ACK');

    const scrape = (await helper.request().get('/lis-bridge/metrics').expect(200)).text;
    assert.ok(scrape.length < 64 * 1024, `the scrape is ${scrape.length} bytes`);
    const received = find(parseSamples(scrape), 'lisbridge_link_messages_received_total', { link: 'link' }).filter((s) => s.value > 0);
    assert.deepEqual(received.map((s) => s.labels.analyzer), [`${'A'.repeat(63)}…`]);

    const links = (await helper.request().get('/lis-bridge/links').expect(200));
    assert.ok(links.text.length < 16 * 1024, `the link list is ${links.text.length} bytes`);
    const link = (links.body.links as Array<Record<string, any>>).find((l) => l.node === 'link')!;
    assert.equal(link.analyzer, `${'A'.repeat(63)}…`);
    assert.equal(link.sender.length, 256);
  });
});
