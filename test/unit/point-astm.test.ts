/**
 * Shaping an ASTM dialect by pointing (lib/protocols/astm/point.ts), on real
 * captures from test/fixtures: a click on a field, a component or a
 * repetition for each role, a value clicked in the table that sits at two
 * places, and the dialect the written overrides make then reads the capture
 * as meant, value by value.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { pointAt, type AstmPointRequest, type PointAnswer } from '../../lib/protocols/astm/point';
import { previewSite } from '../../lib/protocols/astm/preview';
import { siteProfile } from '../../lib/protocols/astm/dialects';
import { previewMessages } from '../../lib/protocols/astm/preview';
import { readPaste } from '../../lib/protocols/astm/paste';
import { CAPTURE_LIMITS, changedResults } from '../../lib/dialect';
import { traceText } from '../../lib/trace';
import { ASTM_NAMING } from '../../lib/protocols/astm';
import { loadFixture } from '../support/fixtures';

/** The capture as the integrator pastes it: the trace's text, a record a line. */
const capture = (name: string): string => traceText(loadFixture(name).bytes, ASTM_NAMING).replace(/<CR>/g, '<CR>\n');

function point(request: Omit<AstmPointRequest, 'timeZone' | 'base'> & { base?: string }): PointAnswer {
  return pointAt({ base: 'generic-lis2a2', timeZone: 'UTC', ...request });
}

function written(answer: PointAnswer): Extract<PointAnswer, { overrides: unknown }> {
  assert.ok('overrides' in answer, JSON.stringify(answer));
  return answer;
}

/** What the site dialect the overrides make reads in the capture: [sample, code, value, units] per result. */
function readsWith(overrides: unknown, text: string, base = 'generic-lis2a2'): string[][] {
  const built = siteProfile({ base, overrides });
  assert.deepEqual(built.issues, []);
  const bytes = readPaste(text, 'latin1').messages.map((m) => m.bytes);
  return previewMessages(built.profile!, bytes, 'UTC').results.map((r) => [r.sampleNumber, r.testCode, r.value, r.units ?? '']);
}

describe('pointing at an ASTM capture', () => {
  const mindray = capture('mindray-cl2000i-result.txt');

  it('draws the capture as the preview numbers it: a token per field, component and repetition, the text as received', () => {
    const p = previewSite({ base: 'generic-lis2a2' }, mindray, 'UTC');
    assert.deepEqual(p.roles, ['sampleNumber', 'testCode', 'value', 'units']);
    const lines = p.capture!.messages[0]!.lines;
    assert.deepEqual(lines.map((l) => l.label), ['H 1', 'P 2', 'O 3', 'R 4', 'R 5', 'L 6']);
    // Joined, the tokens give the record back as sent.
    assert.equal(lines[3]!.tokens.map((t) => t.text).join(''), 'R|1|1^CA125^^F|10000.000000^^^^|U/mL|^|N||F|1074051.882311^^^^|0|20130715102938||Mindray^');
    const code = lines[3]!.tokens.find((t) => t.text === 'CA125');
    assert.deepEqual(code?.place, { message: 1, record: 4, type: 'R', field: 3, component: 2 });
    const test2 = lines[2]!.tokens.find((t) => t.text === 'Test2');
    assert.deepEqual(test2?.place, { message: 1, record: 3, type: 'O', field: 5, repetition: 2, component: 2 });
    assert.equal(lines[0]!.tokens[0]!.text, 'H|\\^&|||');
    assert.equal(lines[0]!.tokens[0]!.place, undefined);
  });

  it('a field: the Mindray CL bar code in O-4 is the sample number; the generic dialect had left both results unassigned', () => {
    assert.deepEqual(readsWith({}, mindray), []);
    const a = written(point({ text: mindray, role: 'sampleNumber', place: { message: 1, record: 3, type: 'O', field: 4 } }));
    assert.deepEqual(a.overrides, { sampleId: { field: 'instrumentSpecimenId' } });
    assert.equal(a.changed, 2);
    assert.match(a.setting, /^sampleId: O-4 \(instrumentSpecimenId\)/);
    assert.deepEqual(readsWith(a.overrides, mindray), [
      ['SAMPLE123', 'F', '10000.000000^^^^', 'U/mL'],
      ['SAMPLE123', 'F', '5547.808063^^^^', 'ng/mL'],
    ]);
    // The answer carries the preview with the new overrides, and its capture.
    assert.equal(a.preview.preview?.results.length, 2);
    assert.ok(a.preview.capture);
  });

  it('components: the test code at R-3.2 and the value at R-4.1 (Mindray CL), each click counting the results it changed', () => {
    const sample = { sampleId: { field: 'instrumentSpecimenId' } };
    const code = written(point({ text: mindray, overrides: sample, role: 'testCode', place: { message: 1, record: 4, type: 'R', field: 3, component: 2 } }));
    assert.deepEqual(code.overrides, { ...sample, testId: { code: { component: 2, trim: true } } });
    assert.equal(code.changed, 2);
    const value = written(point({ text: mindray, overrides: code.overrides, role: 'value', place: { message: 1, record: 5, type: 'R', field: 4, component: 1 } }));
    assert.deepEqual(value.overrides, { ...code.overrides, results: { value: { component: 1 } } });
    assert.equal(value.changed, 2);
    assert.deepEqual(readsWith(value.overrides, mindray), [
      ['SAMPLE123', 'CA125', '10000.000000', 'U/mL'],
      ['SAMPLE123', 'TPSA', '5547.808063', 'ng/mL'],
    ]);
    // The units are where the dialect already reads them: nothing to write, nothing changed.
    const units = written(point({ text: mindray, overrides: value.overrides, role: 'units', place: { message: 1, record: 4, type: 'R', field: 5 } }));
    assert.deepEqual(units.overrides, value.overrides);
    assert.equal(units.changed, 0);
  });

  it('a padded component: the Sysmex XN-550 sample number at O-4.3, and the code at R-3.5, read trimmed', () => {
    const xn = capture('sysmex-xn550-result.txt');
    const sample = written(point({ text: xn, role: 'sampleNumber', place: { message: 1, record: 4, type: 'O', field: 4, component: 3 } }));
    assert.deepEqual(sample.overrides, { sampleId: { field: 'instrumentSpecimenId', component: 3, singleComponent: false } });
    const code = written(point({ text: xn, overrides: sample.overrides, role: 'testCode', place: { message: 1, record: 6, type: 'R', field: 3, component: 5 } }));
    assert.equal(code.changed, 41);
    const read = readsWith(code.overrides, xn);
    assert.equal(read.length, 41);
    assert.deepEqual(read.slice(0, 4), [
      ['27', 'WBC', '8.13', '10*3/uL'],
      ['27', 'RBC', '2.60', '10*6/uL'],
      ['27', 'HGB', '8.0', 'g/dL'],
      ['27', 'HCT', '22.7', '%'],
    ]);
  });

  it('a field: the Ortho VISION test name is all of R-3 (ABO, Rh), where the generic dialect looks for component 4', () => {
    const vision = capture('ortho-vision-result.txt');
    assert.deepEqual(readsWith({}, vision), []);
    const a = written(point({ text: vision, role: 'testCode', place: { message: 1, record: 4, type: 'R', field: 3 } }));
    assert.deepEqual(a.overrides, { testId: { code: { component: 1, trim: true } } });
    assert.equal(a.setting, 'testId.code: R-3 component 1');
    assert.equal(a.changed, 2);
    assert.deepEqual(
      readsWith(a.overrides, vision).map((r) => r.slice(0, 3)),
      [
        ['SID101', 'ABO', 'A'],
        ['SID101', 'Rh', 'NEG'],
      ],
    );
  });

  it('fields: units and value pointed at R-5 and R-4 as a whole take back site settings that read one component of them (Siemens IMMULITE)', () => {
    const immulite = capture('siemens-immulite-result.txt');
    const wrong = { results: { units: { component: 2 } } };
    assert.ok(readsWith(wrong, immulite).every((r) => r[3] === ''));
    const a = written(point({ text: immulite, overrides: wrong, role: 'units', place: { message: 1, record: 4, type: 'R', field: 5 } }));
    assert.deepEqual(a.overrides, {});
    assert.equal(a.changed, 9);
    assert.deepEqual(readsWith(a.overrides, immulite)[0], ['130000445', 'TT4', '10.3', 'ug/dL']);
    // The same for a value: R-4 as a whole takes back a component setting that read nothing there.
    const noValue = { results: { value: { component: 2 } } };
    assert.ok(readsWith(noValue, immulite).every((r) => r[2] === ''));
    const value = written(point({ text: immulite, overrides: noValue, role: 'value', place: { message: 1, record: 4, type: 'R', field: 4 } }));
    assert.deepEqual(value.overrides, {});
    assert.equal(value.setting, 'results.value: R-4 whole');
    assert.equal(value.changed, 9);
    assert.deepEqual(readsWith(value.overrides, immulite)[0], ['130000445', 'TT4', '10.3', 'ug/dL']);
  });

  it('repetitions: the second tube of an ERBA EM 200 query is refused under "first repeat only", the first is the query component', () => {
    const erba = capture('erba-em200-query-multitube.txt');
    const p = previewSite({ base: 'generic-lis2a2' }, erba, 'UTC');
    const q = p.capture!.messages[0]!.lines[1]!.tokens.filter((t) => t.place !== undefined && (t.place as { field: number }).field === 3);
    assert.deepEqual(
      q.map((t) => [t.text, t.place]),
      [
        ['0000000406', { message: 1, record: 2, type: 'Q', field: 3, repetition: 1, component: 2 }],
        ['00001001', { message: 1, record: 2, type: 'Q', field: 3, repetition: 2 }],
      ],
    );
    const second = point({ text: erba, role: 'sampleNumber', place: { message: 1, record: 2, type: 'Q', field: 3, repetition: 2 } });
    assert.ok('refused' in second);
    assert.match(second.refused, /Q-3 holds 2 repeats/);
    // The ERBA dialect reads every repeat: there the second tube's number is the query component 1 of its repeat.
    const first = written(point({ text: erba, role: 'sampleNumber', place: { message: 1, record: 2, type: 'Q', field: 3, repetition: 1, component: 2 } }));
    assert.deepEqual(first.overrides, {});
    assert.deepEqual(
      first.preview.preview?.queries.map((x) => x.sampleNumber),
      ['0000000406'],
    );
    // A repetition of O-5 is no place a test code is read from.
    const o5 = point({ text: mindray, role: 'testCode', place: { message: 1, record: 3, type: 'O', field: 5, repetition: 2, component: 2 } });
    assert.ok('refused' in o5);
    assert.match(o5.refused, /R-3/);
  });

  it('a value clicked in the table that is at two places asks which (ARCHITECT: the sample in O-3 and O-4.1), then writes the one chosen', () => {
    const architect = capture('abbott-architect-i-result-multi.txt');
    const before = readsWith({}, architect);
    assert.equal(before[0]?.[0], '276056250158121');
    const ask = point({ text: architect, role: 'sampleNumber', value: '276056250158121', message: 1 });
    assert.ok('choices' in ask, JSON.stringify(ask));
    assert.deepEqual(
      ask.choices.map((c) => c.place),
      [
        { message: 1, record: 3, type: 'O', field: 3 },
        { message: 1, record: 3, type: 'O', field: 4, component: 1 },
      ],
    );
    assert.deepEqual(
      ask.choices.map((c) => c.label),
      ['O-3 (specimenId), message 1 record 3', 'O-4 (instrumentSpecimenId) component 1, message 1 record 3'],
    );
    const chosen = written(point({ text: architect, role: 'sampleNumber', place: ask.choices[1]!.place }));
    assert.deepEqual(chosen.overrides, { sampleId: { field: 'instrumentSpecimenId', singleComponent: false } });
    // Every message's sample read from O-4.1 is the one in O-3: nothing changed, and the dialect now reads O-4.
    assert.equal(chosen.changed, 0);
    assert.deepEqual(readsWith(chosen.overrides, architect), before);
  });

  it('a value clicked in the table at one readable place is written at once; one at no such place is refused with where it is', () => {
    const a = written(point({ text: mindray, overrides: { sampleId: { field: 'instrumentSpecimenId' } }, role: 'testCode', value: 'TPSA' }));
    assert.deepEqual(a.place, { message: 1, record: 5, type: 'R', field: 3, component: 2 });
    assert.equal(a.changed, 2);
    const not = point({ text: mindray, role: 'testCode', value: 'Test2' });
    assert.ok('refused' in not);
    assert.match(not.refused, /O-5 \(universalTestId\) component 2 of repeat 2/);
    const absent = point({ text: mindray, role: 'value', value: 'no such text' });
    assert.ok('refused' in absent);
  });

  it('refuses a place that is not in the capture, and a dialect with problems', () => {
    const gone = point({ text: mindray, role: 'value', place: { message: 1, record: 9, type: 'R', field: 4 } });
    assert.ok('refused' in gone);
    const bad = point({ text: mindray, overrides: { sampleId: { component: 0 } }, role: 'value', place: { message: 1, record: 4, type: 'R', field: 4, component: 1 } });
    assert.ok('refused' in bad);
    assert.equal(bad.issues?.[0]?.path, 'sampleId.component');
  });
});

describe('a capture too large to draw', () => {
  it('is drawn up to the token budget, said to be truncated, and still pointed at in full', () => {
    const many = Array.from({ length: 20000 }, (_, i) => `^^^T${i}`).join('\\');
    const text = `H|\\^&|||X<CR>\nP|1<CR>\nO|1|S1||${many}<CR>\nR|1|^^^^GLU|5.4|mmol/L<CR>\nL|1|N<CR>\n`;
    const p = previewSite({ base: 'generic-lis2a2' }, text, 'UTC');
    assert.equal(p.capture?.truncated, true);
    const drawn = p.capture!.messages[0]!.lines.reduce((n, l) => n + l.tokens.length, 0);
    assert.ok(drawn <= CAPTURE_LIMITS.tokens, `${drawn} tokens drawn`);
    // The R record is past the budget, not past pointing: a value clicked in the table is found in the whole capture.
    const a = written(point({ text, role: 'testCode', value: 'GLU' }));
    assert.deepEqual(a.place, { message: 1, record: 4, type: 'R', field: 3, component: 5 });
    assert.deepEqual(readsWith(a.overrides, text), [['S1', 'GLU', '5.4', 'mmol/L']]);
  });
});

describe('how many results a change of dialect changed', () => {
  const r = (record: number, testCode: string, value = '1') => ({ message: 1, record, sampleNumber: 'S', testCode, value });
  it('counts added, lost and read differently, not the same ones', () => {
    assert.equal(changedResults([r(4, 'A'), r(5, 'B')], [r(4, 'A'), r(5, 'C')]), 1);
    assert.equal(changedResults([], [r(4, 'A'), r(5, 'B')]), 2);
    assert.equal(changedResults([r(4, 'A'), r(5, 'B')], [r(4, 'A')]), 1);
    assert.equal(changedResults([r(4, 'A', '1')], [r(4, 'A', '2')]), 1);
  });
});
