/**
 * GET /lis-bridge/links, the Lab sidebar's list: each link names the dialect
 * its message node speaks (dialectLabel), from the deployed flow, before the
 * analyzer has sent anything, so two analyzers' boxes can be told apart.
 */
import { afterEach, beforeEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { helper, nodeModules } from '../support/red';

beforeEach(() => helper.startServer());
afterEach(async () => {
  await helper.unload();
  await helper.stopServer();
});

describe('the Lab sidebar\'s links', () => {
  it('carry the label of the dialect each link\'s message node reads, whichever way it is wired', async () => {
    const flow = [
      { id: 'tab', type: 'tab', label: 'analyzers' },
      { id: 'e411', type: 'astm-link', z: 'tab', name: 'Roche cobas e 411', transport: 'serial', journal: false, trace: false, wires: [[], ['e411msg'], []] },
      { id: 'e411msg', type: 'astm-message', z: 'tab', dialect: 'roche-cobas-e411-elecsys', timeZone: 'UTC', wires: [[], [], ['e411'], []] },
      // Wired only from the message node to the link (orders down), as some flows do.
      { id: 'cl', type: 'hl7-link', z: 'tab', name: 'Mindray CL-2000i (HL7)', transport: 'tcp', journal: false, trace: false, wires: [[], [], []] },
      { id: 'clmsg', type: 'hl7-message', z: 'tab', dialect: 'mindray-cl-hl7', timeZone: 'UTC', wires: [[], [], ['cl'], []] },
      { id: 'bare', type: 'astm-link', z: 'tab', name: 'not wired', transport: 'serial', journal: false, trace: false, wires: [[], [], []] },
    ];
    await helper.load(nodeModules('astm-link', 'astm-message', 'hl7-link', 'hl7-message') as never, flow as never);
    const res = await helper.request().get('/lis-bridge/links').expect(200);
    const links = res.body.links as Array<{ node: string; name: string; protocol: string; dialectLabel?: string }>;
    const view = Object.fromEntries(links.map((l) => [l.node, { name: l.name, protocol: l.protocol, dialectLabel: l.dialectLabel }]));
    assert.deepEqual(view, {
      e411: { name: 'Roche cobas e 411', protocol: 'astm', dialectLabel: 'Roche cobas e 411 (Elecsys type)' },
      cl: { name: 'Mindray CL-2000i (HL7)', protocol: 'hl7', dialectLabel: 'Mindray CL-1000i / CL-2000i / CL-2200i (HL7 2.3.1)' },
      bare: { name: 'not wired', protocol: 'astm', dialectLabel: undefined },
    });
  });
});
