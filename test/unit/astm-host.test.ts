// A received ASTM message read into what goes where, in a dialect, with the host conversation behind it.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { AstmHost, hostProfile } from '../../lib/protocols/astm/host';
import { getProfile } from '../../lib/protocols/astm/dialects';
import { isLabOrder } from '../../lib/conversation/message-host';

const bytes = (text: string) => Buffer.from(text, 'latin1');
const host = () => new AstmHost<string>(getProfile('generic-lis2a2'), 'UTC');

describe('AstmHost', () => {
  it('numbers the result batches of a message and names its samples', () => {
    const read = host().read(bytes('H|\\^&\rP|1\rO|1|S1||^^^GLU\rR|1|^^^GLU|5.4\rP|2\rO|1|S2||^^^GLU\rR|1|^^^GLU|6.1\rL|1|N\r'), 'line', 0, 'ctx', false);
    const batches = read.outputs.filter((o) => o.type === 'results');
    assert.equal(read.parts, batches.length);
    assert.deepEqual(batches.map((b) => (b.type === 'results' ? b.part : -1)), batches.map((_, i) => i));
    assert.deepEqual(read.samples.sort(), ['S1', 'S2']);
  });

  it('turns a query into one ask per sample, and a replayed query into a warning only', () => {
    const query = bytes('H|\\^&\rQ|1|^Q1||ALL||||||||O\rL|1|N\r');
    assert.deepEqual(host().read(query, 'line', 0, 'q', false).outputs.map((o) => o.type), ['ask']);
    assert.deepEqual(host().read(query, 'line', 0, 'q', true).outputs.map((o) => o.type), ['warn']);
  });

  it('keeps results that belong to no sample aside, with the reasons', () => {
    const read = host().read(bytes('H|\\^&\rR|1|^^^GLU|5.4\rL|1|N\r'), 'line', 0, 'c', false);
    const aside = read.outputs.find((o) => o.type === 'aside');
    assert.ok(aside && aside.type === 'aside' && aside.topic === 'unassigned' && aside.count === 1 && aside.reasons.length === 1);
    assert.equal(read.parts, 0, 'nothing for the LIS');
  });

  it('answers an order within the query\'s deadline, written in the dialect', () => {
    const h = host();
    h.read(bytes('H|\\^&\rQ|1|^Q1||ALL||||||||O\rL|1|N\r'), 'line', 0, 'q', false);
    const order = { SampleNumber: 'Q1', SampleType: 'Serum', Tests: ['T-GLU'], instrumentTests: ['GLU'], patient: { ID: 'P1', Name: 'Roe, Jane', Sex: 'F' as const } };
    assert.ok(isLabOrder(order));
    const [sent] = h.conversation.order('line', order, 1_000, 'o');
    assert.ok(sent && sent.type === 'send' && /\|Q1\|/.test(sent.text));
    assert.deepEqual(h.bytes('é'), Buffer.from([0xe9]), 'latin1 on the wire');
    // Issue 23: a character Latin-1 cannot carry is a visible ?, never its low byte (U+017C ż would be `|`, U+015E Ş `^`).
    assert.equal(h.bytes('Ka\u017Ca Ş\u{1F600}|').toString('latin1'), 'Ka?a ??|');
  });

  it('names a bad dialect, override or time zone, with the node setting at fault', () => {
    const messages = (p: { problems: Array<{ message: string }> }) => p.problems.map((f) => f.message).join();
    assert.match(messages(hostProfile({ dialect: 'no-such', timeZone: 'UTC' })), /unknown dialect "no-such"/);
    assert.match(messages(hostProfile({ dialect: 'generic-lis2a2', timeZone: 'Mars/Olympus' })), /unknown time zone/);
    const bad = hostProfile({ dialect: 'generic-lis2a2', overrides: '{"results": {"value": {"component": 0}}, "sampleID": {}}', timeZone: 'UTC' }).problems;
    assert.equal(bad.length, 1, 'the shape is checked first; its problems are named before the rules run');
    assert.match(bad[0]!.message, /^dialect overrides: sampleID: not a setting/);
    assert.equal(bad[0]!.setting, 'dialectOverrides.sampleID');
    const rule = hostProfile({ dialect: 'generic-lis2a2', overrides: { results: { value: { component: 0 } } }, timeZone: 'UTC' });
    assert.match(messages(rule), /results\.value\.component must be a non-zero integer/);
    assert.deepEqual(rule.problems.map((f) => f.setting), ['dialectOverrides.results.value.component']);
    assert.deepEqual(hostProfile({ dialect: 'no-such', timeZone: 'Mars/Olympus' }).problems.map((f) => f.setting), ['dialect', 'timeZone']);
    const ok = hostProfile({ dialect: 'generic-lis2a2', overrides: '', timeZone: 'Europe/Berlin' });
    assert.deepEqual(ok.problems, []);
    assert.equal(ok.profile?.id, 'generic-lis2a2');
  });
});
