// One table per node's numeric settings: the runtime reads them with it, and the built editor dialogs carry
// the same defaults, ranges and placeholders (scripts/build.mjs writes them from the table).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import vm from 'node:vm';
import { ALARM_SETTINGS, NODE_SETTINGS, readNodeSettings, type NumericSetting } from '../../nodes/shared/node-settings';
import { DEFAULT_OPTIONS } from '../../lib/protocols/astm/link/options';
import { DEFAULT_TUNING } from '../../lib/lis/client';

/** The built dialogs sit beside the built nodes (this file runs as dist/test/unit/...). */
const BUILT_NODES = join(__dirname, '..', '..', 'nodes');

interface Definition {
  defaults: Record<string, { value: unknown; validate?: (v: unknown, opt?: unknown) => true | string }>;
}

/** Runs a built dialog's scripts against a stand-in RED and returns what it registered. */
function registered(type: string): { definition: Definition; html: string } {
  const html = readFileSync(join(BUILT_NODES, `${type}.html`), 'utf8');
  let definition: Definition | undefined;
  const RED = {
    nodes: { registerType: (name: string, def: Definition) => (name === type ? (definition = def) : undefined) },
    _: (key: string, vars: Record<string, unknown>) => `${key} ${JSON.stringify(vars)}`,
  };
  // Only the script that registers the node (registerLink: an analyzer link, nodes/_include/link-dialog.js): others (a sidebar) need the whole editor.
  for (const m of html.matchAll(/<script type="text\/javascript">([\s\S]*?)<\/script>/g)) {
    if (m[1]!.includes(`registerType('${type}'`) || m[1]!.includes(`registerLink('${type}'`)) vm.runInNewContext(m[1]!, { RED });
  }
  assert.ok(definition, `${type}.html registers ${type}`);
  return { definition, html };
}

describe('node settings', () => {
  it('takes the runtime\'s own defaults: LIS1-A\'s timers for astm-link, the spec\'s for lis-config', () => {
    assert.equal(NODE_SETTINGS['astm-link'].replyTimeoutMs.default, DEFAULT_OPTIONS.replyTimeoutMs);
    assert.equal(NODE_SETTINGS['lis-config'].timeout.default, DEFAULT_TUNING.timeoutMs);
  });

  it('reads empty fields as the defaults and refuses, by name, a value out of range', () => {
    assert.deepEqual(readNodeSettings('lis-push-in', { localApiPort: '', bodyLimit: ' 20 ' }).values, { localApiPort: 8181, bodyLimit: 20, headersTimeoutMs: 10_000, requestTimeoutMs: 30_000 });
    assert.deepEqual(readNodeSettings('lis-push-in', { localApiPort: '70000' }).errors, ['localApiPort must be a whole number from 0 to 65535, not "70000"']);
    assert.deepEqual(readNodeSettings('astm-link', { busyWaitMs: 'soon' }).errors, ['busyWaitMs must be a whole number of at least 0, not "soon"']);
    // Alarm limits in minutes take fractions (a test's second or two); not words.
    assert.equal(readNodeSettings('astm-link', { quietMinutes: '0.02' }).values.quietMinutes, 0.02);
    assert.deepEqual(readNodeSettings('astm-link', { downMinutes: 'an hour' }).errors, ['downMinutes must be a number of at least 0, not "an hour"']);
  });

  // The rows every analyzer link shares (nodes/_include): the same fields, rules and words in both dialogs.
  const CATALOG = JSON.parse(readFileSync(join(BUILT_NODES, 'locales', 'en-US', 'lis-config.json'), 'utf8')) as { common: Record<string, unknown> };
  for (const type of ['astm-link', 'hl7-link']) {
    it(`${type}: the built dialog has the shared link rows, their rules and their texts from the shared catalog`, () => {
      assert.deepEqual(Object.keys(NODE_SETTINGS[type as 'astm-link']).filter((k) => k in ALARM_SETTINGS), Object.keys(ALARM_SETTINGS));
      const { definition, html } = registered(type);
      for (const id of ['name', 'journal', 'trace', 'traceRedact', 'quietMinutes', 'quietDays', 'quietFrom', 'quietTo', 'downMinutes', 'alarmCheckSeconds']) {
        assert.ok(html.includes(`id="node-input-${id}"`), `${id} row`);
        assert.ok(definition.defaults[id], `${id} in the dialog's defaults`);
      }
      assert.equal(definition.defaults.quietDays!.value, '1,2,3,4,5,6');
      assert.equal(definition.defaults.quietDays!.validate!('1,2'), true);
      assert.match(String(definition.defaults.quietDays!.validate!('none')), /^@lis-bridge\/node-red-lis-bridge\/lis-config:common\.linkDialog\.alarms\.noDays/);
      assert.equal(definition.defaults.quietFrom!.validate!('07:00'), true);
      assert.match(String(definition.defaults.quietTo!.validate!('7pm')), /common\.linkDialog\.alarms\.badTime/);
      const keys = [...html.matchAll(/common\.linkDialog\.([\w.]+)/g)].map((m) => m[1]!).concat(['alarms.day0', 'alarms.noDays', 'alarms.badTime']);
      assert.ok(keys.length > 10);
      // registerLink reads these from the link's own catalog.
      const own = (JSON.parse(readFileSync(join(BUILT_NODES, 'locales', 'en-US', `${type}.json`), 'utf8')) as Record<string, Record<string, Record<string, string>>>)[type]!;
      assert.deepEqual([typeof own.paletteLabel, typeof own.placeholder?.name, typeof own.inputs?.line, typeof own.outputs?.write, typeof own.outputs?.message, typeof own.outputs?.sent], Array(6).fill('string'));
      for (const key of keys) {
        const text = key.split('.').reduce<unknown>((at, part) => (at as Record<string, unknown> | undefined)?.[part], CATALOG.common.linkDialog);
        assert.equal(typeof text, 'string', `common.linkDialog.${key} in lis-config.json`);
      }
    });
  }

  for (const [type, table] of Object.entries(NODE_SETTINGS) as Array<[string, Record<string, NumericSetting>]>) {
    it(`${type}: the built dialog has the table's defaults and ranges, and no placeholder left unfilled`, () => {
      const { definition, html } = registered(type);
      assert.ok(!html.includes('/*@settings*/') && !html.includes('@@default.'), 'every marker replaced');
      for (const [key, s] of Object.entries(table)) {
        const d = definition.defaults[key];
        assert.ok(d, `${key} in the dialog's defaults`);
        assert.equal(d.value, s.default, `${key} default`);
        assert.equal(d.validate!(''), true, `${key}: empty means the default`);
        assert.equal(d.validate!(undefined), true, `${key}: absent (an older flow) means the default`);
        assert.equal(d.validate!(String(s.default)), true);
        assert.equal(d.validate!(String(s.min)), true);
        if (s.min > 0) assert.equal(typeof d.validate!(String(s.min - 1)), 'string', `${key}: below ${s.min} refused`);
        if (s.max !== undefined) assert.equal(typeof d.validate!(String(s.max + 1)), 'string', `${key}: above ${s.max} refused`);
        if (s.fraction) assert.equal(d.validate!('0.5'), true, `${key}: fractions allowed`);
        else assert.equal(typeof d.validate!('1.5'), 'string', `${key}: not whole`);
        assert.equal(typeof d.validate!('1.5x'), 'string', `${key}: not a number`);
        assert.equal(readNodeSettings(type as keyof typeof NODE_SETTINGS, { [key]: String(s.min) }).errors.length, 0, 'the runtime takes what the dialog takes');
        // The refusal names the field by its label, as the dialog shows it, and what to set.
        const label = new RegExp(`<label for="node-(?:config-)?input-${key}"[^>]*>(?:(?!</label>)[\\s\\S])*?data-i18n="(?:[^"]*:)?([^"]+)"`).exec(html);
        assert.ok(label, `${key} has a labelled row`);
        assert.match(String(d.validate!('x')), new RegExp(`common\\.settings\\.(atLeast|between).*"label":"[^"]*${label[1]!.replace(/\./g, '\\.')}`), `${key}: the message names its label`);
      }
      // Node-RED (3.x and later) shows a validator's message only if it takes two arguments; from one that takes one,
      // any string counts as valid, so the field is never flagged.
      for (const [key, d] of Object.entries(definition.defaults)) if (d.validate) assert.equal(d.validate.length, 2, `${type}.${key}: validate(v, opt)`);
    });
  }
});
