/**
 * The dialect editor's picker of recent messages draws what an analyzer sent
 * in <option> texts, which cannot hold a <bdi>: each value is wrapped in FSI
 * ... PDI instead, so a right-to-left override in one sample number cannot
 * reverse the rest of the line (issue 23's rule, for the one place it was
 * missing). The editor script is run as the browser runs it.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { runInNewContext } from 'node:vm';

const SCRIPT = readFileSync(join(__dirname, '..', '..', '..', 'nodes', 'editor', 'dialect-editor.js'), 'utf8');

type Entry = (m: { at?: string; text: string; summary?: { samples: string[]; results: number; queries: number; firstResult?: string } }) => string;

function recentEntry(): Entry {
  const window: { LisBridgeDialectEditor?: { recentEntry: Entry } } = {};
  runInNewContext(SCRIPT, { window, RED: { _: (k: string) => k }, $: () => undefined });
  return window.LisBridgeDialectEditor!.recentEntry;
}

const FSI = '\u2068';
const PDI = '\u2069';
const RLO = '\u202e';

describe('recent messages in the dialect editor', () => {
  it('isolates every sample number and result an analyzer sent, a right-to-left override included', () => {
    const entry = recentEntry()({ text: '', summary: { samples: [`S-1${RLO}987`, 'S-2'], results: 2, queries: 0, firstResult: 'GLU 5.4 mmol/L' } });
    assert.ok(entry.includes(`${FSI}S-1${RLO}987${PDI}, ${FSI}S-2${PDI}`), entry);
    assert.ok(entry.includes(`${FSI}GLU 5.4 mmol/L${PDI} +1`), entry);
    assert.equal(entry.split(FSI).length, entry.split(PDI).length, 'every isolate is closed');
  });

  it('cuts a long value inside its isolate, and names the samples past the third by count', () => {
    const long = 'X'.repeat(1000);
    const entry = recentEntry()({ text: '', summary: { samples: [long, 'A', 'B', 'C', 'D'], results: 0, queries: 1 } });
    assert.ok(entry.startsWith(`? ${FSI}${'X'.repeat(31)}\u2026${PDI}, ${FSI}A${PDI}, ${FSI}B${PDI}, +2`), entry);
    const record = recentEntry()({ text: `H|\\^&\nC|1|${RLO}note<CR>\n`, summary: { samples: [], results: 0, queries: 0 } });
    assert.equal(record, `${FSI}C|1|${RLO}note${PDI}`);
  });
});
