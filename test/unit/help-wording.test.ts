// Each node's help names settings, outputs and other nodes with the words the editor shows (the dialog's labels,
// the palette's names, the status texts), so an integrator reading the help finds what it speaks of.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** This file runs as dist/test/unit/...: the package root is three levels up. */
const LOCALES = join(__dirname, '..', '..', '..', 'nodes', 'locales', 'en-US');
const help = (type: string) => readFileSync(join(LOCALES, `${type}.html`), 'utf8');
const catalog = (type: string): any => JSON.parse(readFileSync(join(LOCALES, `${type}.json`), 'utf8'));

describe('help wording matches the editor', () => {
  it("astm-link: the Transport option named as the dialog names it, not 'Auto'", () => {
    const auto: string = catalog('astm-link')['astm-link'].transport.auto;
    assert.ok(help('astm-link').replace(/\s+/g, ' ').includes(`*${auto}*`), auto);
    assert.doesNotMatch(help('astm-link'), /\*Auto\*/);
  });

  it('test-mapper: lis-push-in named as the palette names it', () => {
    const label: string = catalog('lis-push-in')['lis-push-in'].paletteLabel;
    assert.ok(help('test-mapper').includes(`**${label}**`), label);
    assert.doesNotMatch(help('test-mapper'), /\*\*LIS push\*\*/);
  });

  it("file-message: its picker named as the dialog names it, not 'Instrument' (folder-link's free text)", () => {
    const label: string = catalog('file-message')['file-message'].label.dialect;
    assert.equal(label, 'File dialect');
    assert.ok(help('file-message').includes(`*${label}*`));
  });

  it('lis-mark-processed: the grey statuses its help names are the ones it shows', () => {
    const status = catalog('lis-config').common.status as Record<string, string>;
    const text = help('lis-mark-processed').replace(/\s+/g, ' ');
    assert.ok(text.includes(`\`${status.disabled}\``));
    const off = status.disabledUnset!.replace('__variable__', 'LIS_PROCESSED_URL');
    assert.ok(text.includes(`\`${off}\``), off);
    assert.ok(help('lis-config').replace(/\s+/g, ' ').includes(`\`${status.disabledUnset!.replace('__variable__', 'NAME')}\``));
  });
});
