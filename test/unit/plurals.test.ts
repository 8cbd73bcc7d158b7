// Counted texts in the message catalogs have a singular and a plural form (i18next's key_one / key_other, picked by
// `count`), never "message(s)". Read here through Node-RED's own runtime i18n (@node-red/util: i18next with
// Node-RED's options and catalog loader), which is what RED._ is in a running Node-RED; the editor's copy is checked
// in test/browser/help.test.ts.
import { before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { NodeAPI } from 'node-red';
import { sharedTexts } from '../../nodes/shared/status';
import { SHARED_NS } from '../../nodes/shared/types';
import { translate } from '../support/catalogs';

/** This file runs as dist/test/unit/...: the built locales sit in dist/nodes/locales. */
const LOCALES = join(__dirname, '..', '..', 'nodes', 'locales');
const NS = '@lis-bridge/node-red-lis-bridge/';

const { i18n } = require('@node-red/util') as { i18n: { init(settings: object): Promise<void>; registerMessageCatalog(ns: string, dir: string, file: string): Promise<void>; _(key: string, vars?: object): string } };

before(async () => {
  await i18n.init({ lang: 'en-US' });
  for (const file of readdirSync(join(LOCALES, 'en-US')).filter((f) => f.endsWith('.json'))) {
    await i18n.registerMessageCatalog(NS + file.replace(/\.json$/, ''), LOCALES, file);
  }
});

/** Every string of a catalog, with its dotted key. */
function strings(v: unknown, path = ''): Array<[string, string]> {
  if (typeof v === 'string') return [[path, v]];
  if (v && typeof v === 'object') return Object.entries(v).flatMap(([k, x]) => strings(x, path ? `${path}.${k}` : k));
  return [];
}

describe('singular and plural texts', () => {
  it('no catalog text writes a count as "(s)", "(es)" or "(ies)", and each singular has its plural', () => {
    for (const file of readdirSync(join(LOCALES, 'en-US')).filter((f) => f.endsWith('.json'))) {
      const all = strings(JSON.parse(readFileSync(join(LOCALES, 'en-US', file), 'utf8')));
      // "(s)" after a unit (`Check every (s)`) is seconds, not a plural.
      assert.deepEqual(all.filter(([, text]) => /[a-z]\((s|es|ies)\)/.test(text)), [], file);
      const keys = new Set(all.map(([k]) => k));
      for (const [key, text] of all) {
        if (key.endsWith('_one')) assert.ok(keys.has(key.replace(/_one$/, '_other')), `${file}: ${key} has no _other`);
        // Both forms fill in the same values (the count itself may be left out: "samples S1, S2").
        if (key.endsWith('_other')) {
          const one = all.find(([k]) => k === key.replace(/_other$/, '_one'))?.[1] ?? '';
          const names = (t: string) => [...new Set(t.match(/__\w+__/g) ?? [])].filter((n) => n !== '__count__').sort();
          assert.deepEqual(names(one), names(text), `${file}: ${key}`);
        }
      }
    }
  });

  it("Node-RED's runtime RED._ picks the form by count: a pushed order, a replay, a stuck message's samples", () => {
    const RED = { _: (key: string, vars?: object) => i18n._(key, vars) } as unknown as NodeAPI;
    const status = sharedTexts(RED, 'status');
    assert.equal(status('received', { count: 1, port: 8091 }), '1 order on :8091');
    assert.equal(status('received', { count: 3, port: 8091 }), '3 orders on :8091');
    const runtime = sharedTexts(RED, 'runtime');
    assert.equal(runtime('replayed', { count: 1 }), '1 message stored before the last stop but never handed to the LIS was processed again');
    assert.equal(runtime('replayed', { count: 2 }), '2 messages stored before the last stop but never handed to the LIS were processed again');
    assert.equal(runtime('stuckSamples', { count: 1, samples: 'S1' }), 'sample S1');
    assert.equal(runtime('stuckSamples', { count: 2, samples: 'S1, S2' }), 'samples S1, S2');
    assert.equal(runtime('unmappedResults', { n: 1, count: 1, reasons: 'x' }), '1 of 1 result not mapped: x');
    assert.equal(runtime('unmappedResults', { n: 1, count: 4, reasons: 'x' }), '1 of 4 results not mapped: x');
    // Texts without a count still come from the cached template.
    assert.equal(status('listening', { port: 8091 }), 'listening :8091');
    assert.equal(i18n._(`${NS}test-mapper:test-mapper.messages.importedWithProblems`, { rows: 3, file: 'a.csv', count: 1 }), 'Imported 3 rows from a.csv; they replace the table. 1 line skipped (cancel the dialog to undo):');
    assert.equal(i18n._(`${SHARED_NS}:common.dialectEditor.replayQc`, { count: 2 }), '2 QC results kept aside');
  });

  it("the tests' stand-in for RED._ picks the same forms", () => {
    assert.equal(translate(`${SHARED_NS}:common.status.received`, { count: 1, port: 1 }), '1 order on :1');
    assert.equal(translate(`${SHARED_NS}:common.status.received`, { count: 0, port: 1 }), '0 orders on :1');
  });
});
