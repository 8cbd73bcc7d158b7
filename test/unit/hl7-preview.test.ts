/**
 * The HL7 dialect preview (lib/protocols/hl7/preview.ts) on real captures:
 * what a dialect, built-in or edited, makes of them, in any form a capture is
 * pasted in, and for what it cannot place, the segment and the places the
 * dialect looked in.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { previewHl7Site } from '../../lib/protocols/hl7/preview';
import { frameMllp } from '../../lib/protocols/hl7/mllp';
import { repoRoot } from '../support/fixtures';

const capture = (name: string): string => readFileSync(join(repoRoot(), 'test', 'fixtures', 'hl7', name), 'latin1');
const EDAN = capture('edan-i15-oru-r01.txt');
const EDAN_CODES = ['pH', 'pO2', 'pCO2', 'Na+', 'K+', 'Ca++', 'Cl-', 'Glu', 'Lac', 'Hct', 'tHb(est)'];
const BY_OBX4 = { results: { code: { segment: 'OBX', field: 4 } } };

describe('the HL7 dialect preview', () => {
  it('shows the generic dialect reading the EDAN i15 codes from the wrong place, and an override reading them right', () => {
    const generic = previewHl7Site({ base: 'generic-oru' }, EDAN, 'UTC');
    assert.deepEqual(generic.issues, []);
    assert.deepEqual(generic.paste, { form: 'segments', framing: 'segments', notes: ['read as segments, one per line; a message begins at each MSH'], problems: [] });
    const before = generic.preview!;
    assert.equal(before.messages, 1);
    // OBX-3 is the EDAN's result group ("0" or "1"), not a test code.
    assert.deepEqual(new Set(before.results.map((r) => r.testCode)), new Set(['0', '1']));

    const site = previewHl7Site({ base: 'generic-oru', overrides: JSON.stringify(BY_OBX4) }, EDAN, 'UTC');
    assert.deepEqual(site.overrides, BY_OBX4);
    const after = site.preview!;
    assert.deepEqual(after.results.slice(0, EDAN_CODES.length).map((r) => r.testCode), EDAN_CODES);
    assert.deepEqual(after.results[1], {
      message: 1,
      record: 5,
      sampleNumber: '20250902001',
      testCode: 'pO2',
      value: '90',
      units: 'mmHg',
      referenceRange: '83',
      completedAt: '2025-09-02T19:02:39.000Z',
      completedAtRaw: '20250902190239',
    });
  });

  it('reads the same capture alike as segments, as MLLP bytes and as MLLP tokens', () => {
    const segments = EDAN.split('\n').filter((l) => l !== '').join('\r') + '\r';
    const forms = {
      segments: EDAN,
      mllp: frameMllp(Buffer.from(segments, 'latin1')).toString('latin1'),
      tokens: `<VT>${segments.replaceAll('\r', '<CR>\n')}<FS><CR>`,
    };
    const seen = Object.entries(forms).map(([form, text]) => {
      const p = previewHl7Site({ base: 'generic-oru', overrides: BY_OBX4 }, text, 'UTC');
      assert.deepEqual(p.paste?.problems, [], form);
      return [p.paste?.framing, p.preview?.results];
    });
    assert.deepEqual(seen.map(([framing]) => framing), ['segments', 'framed', 'framed']);
    assert.deepEqual(seen[1]![1], seen[0]![1]);
    assert.deepEqual(seen[2]![1], seen[0]![1]);
  });

  it('leaves results unassigned with the reason, the OBX and the places looked in', () => {
    const p = previewHl7Site({ base: 'generic-oru', overrides: { sampleId: { places: [{ segment: 'SPM', field: 2 }, { segment: 'OBR', field: 2 }] } } }, EDAN, 'UTC').preview!;
    assert.equal(p.results.length, 0);
    assert.equal(p.unassigned.length, 12);
    assert.deepEqual(p.unassigned[0], {
      message: 1,
      record: 4,
      reason: 'OBX 4 (0): no sample number in SPM-2 or OBR-2',
      at: { record: 'OBX', index: 4, label: 'SPM-2 or OBR-2' },
      text: 'OBX|0|ST|0|pH|7.400||7.350^7.450||||||Pass|20250902190239||mfrs||||',
      testCode: '0',
      value: '7.400',
    });
    const noCode = previewHl7Site({ base: 'generic-oru', overrides: { results: { code: { segment: 'OBX', field: 9 } } } }, EDAN, 'UTC').preview!;
    assert.deepEqual(noCode.unassigned[0]?.at, { record: 'OBX', index: 4, label: 'OBX-9' });
  });

  it('shows queries the dialect reads, and a message it does not read as other', () => {
    const query = capture('mindray-cl2000i-qry-q02.txt');
    assert.deepEqual(previewHl7Site({ base: 'mindray-cl-hl7' }, query, 'UTC').preview?.queries, [{ message: 1, record: 2, sampleNumber: '0019', tests: [], cancel: false }]);
    assert.deepEqual(previewHl7Site({ base: 'generic-oru' }, query, 'UTC').preview?.other, [{ message: 1, reason: 'QRY^Q02 is not a message the generic-oru dialect reads (it reads ORU^R01, OUL^R22)' }]);
  });

  it('says what could not be read, and gives the problems of the dialect with no preview', () => {
    const stray = previewHl7Site({ base: 'generic-oru' }, `PID|stray\n${EDAN}`, 'UTC');
    assert.deepEqual(stray.paste?.problems, [{ message: 'line 1 comes before any MSH segment' }]);
    assert.equal(stray.preview?.results.length, 12);
    const bad = previewHl7Site({ base: 'generic-oru', overrides: { results: { code: { segment: 'OBX', field: 0 } } } }, EDAN, 'UTC');
    assert.deepEqual(bad.issues.map((i) => i.path), ['results.code.field']);
    assert.equal(bad.preview, undefined);
    assert.equal(bad.paste?.form, 'segments');
  });
});
