// The help texts as the build leaves them: shared passages (written once under locales/<lang>/_include) in place.
import { it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

/** This file runs as dist/test/unit/...: the built locales sit in dist/nodes/locales. */
const LOCALES = join(__dirname, '..', '..', 'nodes', 'locales');

it('fills every shared passage into the built help texts and dialogs, and ships no _include folder', () => {
  const nodes = join(LOCALES, '..');
  assert.equal(existsSync(join(nodes, '_include')), false);
  for (const file of readdirSync(nodes).filter((f) => f.endsWith('.html'))) {
    const text = readFileSync(join(nodes, file), 'utf8');
    assert.ok(!text.includes('@include'), `${file} has an include left`);
  }
  for (const lang of readdirSync(LOCALES)) {
    assert.equal(existsSync(join(LOCALES, lang, '_include')), false);
    for (const file of readdirSync(join(LOCALES, lang)).filter((f) => f.endsWith('.html'))) {
      const text = readFileSync(join(LOCALES, lang, file), 'utf8');
      assert.ok(!text.includes('@include'), `${lang}/${file} has an include left`);
    }
    // The four LIS request nodes all tell how a Catch node sees msg.error.
    for (const node of ['lis-get-order', 'lis-get-tests', 'lis-mark-processed', 'lis-send-results']) {
      const text = readFileSync(join(LOCALES, lang, `${node}.html`), 'utf8');
      assert.match(text, /: error\.code \(string\) : one of the codes below\./, node);
      assert.match(text, /Node-RED rebuilds `msg\.error`/, node);
    }
    // Both analyzer links tell their alarms in the same words.
    for (const node of ['astm-link', 'hl7-link']) {
      const text = readFileSync(join(LOCALES, lang, `${node}.html`), 'utf8');
      assert.match(text, /#### Alarms\n\nTwo optional alarms watch the link/, node);
      assert.match(text, /`LINK_QUIET` \/ `LINK_DOWN`/, node);
    }
  }
});
