/**
 * The dialect section names each value a keyboard user reaches in the capture
 * by its place and text ("R-3 component 2: CA125"), from the places the
 * protocols' capture.ts give, with the words from the message catalog. The
 * editor script is run as the browser runs it.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { runInNewContext } from 'node:vm';

const ROOT = join(__dirname, '..', '..', '..');
const SCRIPT = readFileSync(join(ROOT, 'nodes', 'editor', 'dialect-pointing.js'), 'utf8');
const CATALOG = JSON.parse(readFileSync(join(ROOT, 'nodes', 'locales', 'en-US', 'lis-config.json'), 'utf8')).common.dialectEditor.pointing;

type PlaceName = (place: Record<string, unknown>, lineLabel: string, several: boolean, t: (key: string, vars?: Record<string, unknown>) => string) => string;

function placeName(): PlaceName {
  const window: { LisBridgeDialectPointing?: { placeName: PlaceName } } = {};
  runInNewContext(SCRIPT, { window });
  return window.LisBridgeDialectPointing!.placeName;
}

/** The catalog's text for `key`, its __name__ markers filled as i18next fills them. */
function t(key: string, vars: Record<string, unknown> = {}): string {
  const text = key.split('.').reduce((o: Record<string, unknown>, k) => o[k] as Record<string, unknown>, CATALOG) as unknown as string;
  assert.equal(typeof text, 'string', `${key} is in the catalog`);
  return text.replace(/__(\w+)__/g, (_, name: string) => String(vars[name]));
}

describe('names of the values pointed at with the keyboard', () => {
  it('ASTM: field, component and repeat', () => {
    const name = placeName();
    assert.equal(name({ message: 1, record: 4, type: 'R', field: 3, component: 2 }, 'R 4', false, t), 'R-3 component 2');
    assert.equal(name({ message: 1, record: 3, type: 'O', field: 4 }, 'O 3', false, t), 'O-4');
    assert.equal(name({ message: 1, record: 3, type: 'O', field: 5, repetition: 2, component: 1 }, 'O 3', false, t), 'O-5 component 1 repeat 2');
  });

  it('HL7: dotted components and subcomponents, the repetition named', () => {
    const name = placeName();
    assert.equal(name({ message: 1, segment: 'OBX', index: 4, field: 4 }, 'OBX 4', false, t), 'OBX-4');
    assert.equal(name({ message: 1, segment: 'OBX', index: 4, field: 3, component: 2 }, 'OBX 4', false, t), 'OBX-3.2');
    assert.equal(name({ message: 1, segment: 'SPM', index: 3, field: 2, subcomponent: 1 }, 'SPM 3', false, t), 'SPM-2.1.1');
    assert.equal(name({ message: 1, segment: 'OBX', index: 4, field: 5, repetition: 2 }, 'OBX 4', false, t), 'OBX-5 repeat 2');
  });

  it('files by line and column; the message when the capture holds several; the line for a place of another shape', () => {
    const name = placeName();
    assert.equal(name({ row: 19, column: 2 }, 'line 19', false, t), 'line 19 column 2');
    assert.equal(name({ message: 2, record: 4, type: 'R', field: 3, component: 2 }, 'R 4', true, t), 'message 2, R-3 component 2');
    assert.equal(name({ somewhere: true }, 'Z 7', false, t), 'Z 7');
  });
});
