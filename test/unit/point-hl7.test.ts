/**
 * Shaping an HL7 dialect by pointing (lib/protocols/hl7/point.ts), on real
 * captures from test/fixtures/hl7: a click on a field, a component, a
 * subcomponent and a repetition for each role, values clicked in the table
 * that sit at two places, and the dialect the written overrides make then
 * reads the capture as meant, value by value.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pointAtHl7, type Hl7PointAnswer, type Hl7PointRequest } from '../../lib/protocols/hl7/point';
import { previewHl7Messages, previewHl7Site } from '../../lib/protocols/hl7/preview';
import { hl7SiteProfile } from '../../lib/protocols/hl7/dialects';
import { readHl7Capture } from '../../lib/protocols/hl7/paste';
import { CAPTURE_LIMITS } from '../../lib/dialect';

/** This file runs as dist/test/unit/...: the fixtures are the repository's. */
const capture = (name: string): string => readFileSync(join(__dirname, '..', '..', '..', 'test', 'fixtures', 'hl7', name), 'latin1');

function point(request: Omit<Hl7PointRequest, 'timeZone' | 'base'> & { base?: string }): Hl7PointAnswer {
  return pointAtHl7({ base: 'generic-oru', timeZone: 'UTC', ...request });
}

function written(answer: Hl7PointAnswer): Extract<Hl7PointAnswer, { overrides: unknown }> {
  assert.ok('overrides' in answer, JSON.stringify(answer));
  return answer;
}

function refused(answer: Hl7PointAnswer): string {
  assert.ok('refused' in answer, JSON.stringify(answer));
  return answer.refused;
}

/** What the site dialect the overrides make reads in the capture: [sample, code, value, units] per result. */
function readsWith(overrides: unknown, text: string): string[][] {
  const built = hl7SiteProfile({ base: 'generic-oru', overrides });
  assert.deepEqual(built.issues, []);
  return previewHl7Messages(built.profile!, readHl7Capture(text).messages, 'UTC').results.map((r) => [r.sampleNumber, r.testCode, r.value, r.units ?? '']);
}

describe('pointing at an HL7 capture', () => {
  const urit = capture('urit-8030-oru-r01.txt');
  const edan = capture('edan-i15-oru-r01.txt');
  const cobasPro = capture('roche-cobaspro-oul-r22-e801.txt');

  it('draws the capture as the preview numbers it: a token per field, repetition, component and subcomponent, the text as received', () => {
    const p = previewHl7Site({ base: 'generic-oru' }, urit, 'UTC');
    assert.deepEqual(p.roles, ['sampleNumber', 'testCode', 'value', 'units']);
    const lines = p.capture!.messages[0]!.lines;
    assert.deepEqual(lines.map((l) => l.label), ['MSH 1', 'PID 2', 'OBR 3', 'OBX 4']);
    assert.equal(lines[3]!.tokens.map((t) => t.text).join(''), 'OBX|1|NM|1|GLI|111|mg/dL|65-99|N|||F||0.2441|2025-08-09||Admin||');
    assert.equal(lines[0]!.tokens[0]!.text, 'MSH|^~\\&|');
    assert.equal(lines[0]!.tokens[0]!.place, undefined);
    const spm = previewHl7Site({ base: 'generic-oru' }, cobasPro, 'UTC').capture!.messages[0]!.lines[2]!;
    assert.deepEqual(
      spm.tokens.filter((t) => t.place !== undefined && (t.place as { field: number }).field === 2).map((t) => [t.text, t.place]),
      [
        ['140799', { message: 1, segment: 'SPM', index: 3, field: 2, subcomponent: 1 }],
        ['BARCODE', { message: 1, segment: 'SPM', index: 3, field: 2, subcomponent: 2 }],
      ],
    );
  });

  it('fields: the URIT 8030 bar code in OBR-2 is the sample number (the generic dialect took the run number in OBR-3), its code in OBX-4', () => {
    assert.deepEqual(readsWith({}, urit), [['202508090002', '1', '111', 'mg/dL']]);
    const sample = written(point({ text: urit, role: 'sampleNumber', place: { message: 1, segment: 'OBR', index: 3, field: 2 } }));
    assert.deepEqual(sample.overrides, { sampleId: { places: [{ segment: 'OBR', field: 2 }] } });
    assert.equal(sample.changed, 1);
    assert.equal(sample.setting, 'sampleId.places: OBR-2');
    const code = written(point({ text: urit, overrides: sample.overrides, role: 'testCode', place: { message: 1, segment: 'OBX', index: 4, field: 4 } }));
    assert.deepEqual(code.overrides, { ...sample.overrides, results: { code: { segment: 'OBX', field: 4 } } });
    assert.equal(code.changed, 1);
    assert.deepEqual(readsWith(code.overrides, urit), [['0000966134', 'GLI', '111', 'mg/dL']]);
    // The value and the units are where the dialect reads them already: nothing written, nothing changed.
    const value = written(point({ text: urit, overrides: code.overrides, role: 'value', place: { message: 1, segment: 'OBX', index: 4, field: 5 } }));
    assert.deepEqual(value.overrides, code.overrides);
    assert.equal(value.changed, 0);
    const units = written(point({ text: urit, overrides: code.overrides, role: 'units', place: { message: 1, segment: 'OBX', index: 4, field: 6 } }));
    assert.equal(units.changed, 0);
  });

  it('a value clicked in the table at one place: the EDAN i15 analyte name in OBX-4 (OBX-3 holds 0 or 1) becomes every code', () => {
    const a = written(point({ text: edan, role: 'testCode', value: 'pH', message: 1 }));
    assert.deepEqual(a.place, { message: 1, segment: 'OBX', index: 4, field: 4 });
    assert.equal(a.changed, 12);
    const read = readsWith(a.overrides, edan);
    assert.deepEqual(read.slice(0, 4), [
      ['20250902001', 'pH', '7.400', ''],
      ['20250902001', 'pO2', '90', 'mmHg'],
      ['20250902001', 'pCO2', '40.0', 'mmHg'],
      ['20250902001', 'Na+', '140', 'mmol/L'],
    ]);
    assert.equal(read.length, 12);
    // A value from no place a setting reads it from is refused with where it is.
    assert.match(refused(point({ text: edan, role: 'value', value: '7.350' })), /"7\.350" is at OBX-7\.1, message 1 segment 4, where no setting reads a value/);
  });

  it('components: BioSystems BA200 units at OBX-6.2, and the code at OBX-3.2 (asked: the same text is in OBX-3.1)', () => {
    const ba = capture('biosystems-ba200-oul-r22.txt');
    const before = readsWith({}, ba);
    const units = written(point({ text: ba, role: 'units', place: { message: 1, segment: 'OBX', index: 5, field: 6, component: 2 } }));
    assert.deepEqual(units.overrides, { results: { units: { field: 6, component: 2 } } });
    assert.equal(units.changed, 0, 'OBX-6.2 repeats OBX-6.1 in every result');
    const ask = point({ text: ba, role: 'testCode', value: 'ACE' });
    assert.ok('choices' in ask, JSON.stringify(ask));
    assert.deepEqual(
      ask.choices.map((c) => c.label),
      ['OBX-3.1, message 1 segment 5', 'OBX-3.2, message 1 segment 5'],
    );
    const code = written(point({ text: ba, role: 'testCode', place: ask.choices[1]!.place }));
    assert.deepEqual(code.overrides, { results: { code: { segment: 'OBX', field: 3, component: 2 } } });
    assert.deepEqual(readsWith(code.overrides, ba), before);
    assert.equal(before.length, 24);
  });

  it('a subcomponent, and a sample number at two places asked about: cobas pro SPM-2.1.1 or SAC-3.1', () => {
    const ask = point({ text: cobasPro, role: 'sampleNumber', value: '140799' });
    assert.ok('choices' in ask, JSON.stringify(ask));
    assert.deepEqual(
      ask.choices.map((c) => [c.label, c.place]),
      [
        ['SPM-2.1.1, message 1 segment 3', { message: 1, segment: 'SPM', index: 3, field: 2, subcomponent: 1 }],
        ['SAC-3.1, message 1 segment 4', { message: 1, segment: 'SAC', index: 4, field: 3, component: 1 }],
      ],
    );
    const before = readsWith({}, cobasPro);
    const sac = written(point({ text: cobasPro, role: 'sampleNumber', place: ask.choices[1]!.place }));
    assert.deepEqual(sac.overrides, { sampleId: { places: [{ segment: 'SAC', field: 3 }] } });
    assert.deepEqual(readsWith(sac.overrides, cobasPro), before);
    // The subcomponent itself: SPM-2.1.1 is what profiles call SPM-2.
    const spm = written(point({ text: cobasPro, role: 'sampleNumber', place: ask.choices[0]!.place }));
    assert.deepEqual(spm.overrides, { sampleId: { places: [{ segment: 'SPM', field: 2 }] } });
    const bar = written(point({ text: cobasPro, role: 'sampleNumber', place: { message: 1, segment: 'SPM', index: 3, field: 2, subcomponent: 2 } }));
    assert.deepEqual(bar.overrides, { sampleId: { places: [{ segment: 'SPM', field: 2, component: 1, subcomponent: 2 }] } });
    assert.ok(readsWith(bar.overrides, cobasPro).every((r) => r[0] === 'BARCODE'));
  });

  it('repetitions: the cobas pro QC test IDs repeat in OBX-5 and are refused as a value; the first is the field itself', () => {
    const p = previewHl7Site({ base: 'generic-oru' }, cobasPro, 'UTC');
    const obx = p.capture!.messages[0]!.lines.find((l) => l.tokens.some((t) => t.text === 'QCTID'))!;
    const reps = obx.tokens.filter((t) => t.place !== undefined && (t.place as { field: number }).field === 5);
    assert.deepEqual(
      reps.map((t) => [t.text, (t.place as { repetition?: number }).repetition]),
      [
        ['19132', 1],
        ['19112', 2],
        ['19092', 3],
      ],
    );
    assert.match(refused(point({ text: cobasPro, role: 'value', place: reps[1]!.place })), /OBX-5 holds 3 repetitions; the dialect reads the first one only/);
    const first = written(point({ text: cobasPro, role: 'value', place: reps[0]!.place }));
    assert.deepEqual(first.overrides, {}, 'OBX-5 repetition 1 is what the dialect reads already');
    // A repetition of a field no setting reads a role from names where the role is read.
    const flags = previewHl7Site({ base: 'generic-oru' }, capture('mindray-bc6200-oru-r01.txt'), 'UTC').capture!.messages[0]!.lines.flatMap((l) => l.tokens).find((t) => (t.place as { repetition?: number; field?: number } | undefined)?.repetition === 2)!;
    assert.match(refused(point({ text: capture('mindray-bc6200-oru-r01.txt'), role: 'units', place: flags.place })), /units are read from OBX-6, not OBX-8/);
  });

  it('refuses a sample number from a segment that does not describe the sample, and a query setting the dialect lacks', () => {
    assert.match(refused(point({ text: urit, role: 'sampleNumber', place: { message: 1, segment: 'MSH', index: 1, field: 10 } })), /not MSH-10/);
    const qbp = capture('roche-cobaspro-qbp-q11.txt');
    const qpd = previewHl7Site({ base: 'generic-oru' }, qbp, 'UTC').capture!.messages[0]!.lines.find((l) => l.label.startsWith('QPD'))!;
    const place = qpd.tokens.find((t) => t.place !== undefined)!.place;
    assert.match(refused(point({ text: qbp, role: 'sampleNumber', place })), /reads no queries/);
  });
});

describe('an HL7 capture too large to draw', () => {
  it('is drawn up to the token budget, said to be truncated, and still pointed at in full', () => {
    const many = Array.from({ length: 20000 }, (_, i) => `N${i}`).join('~');
    const text = `MSH|^~\\&|X|Y|||20250101||ORU^R01|1|P|2.5.1\rPID|1||${many}\rOBR|1||S-77\rOBX|1|NM|GLU^Glucose||5.4|mmol/L\r`;
    const p = previewHl7Site({ base: 'generic-oru' }, text, 'UTC');
    assert.equal(p.capture?.truncated, true);
    const drawn = p.capture!.messages[0]!.lines.reduce((n, l) => n + l.tokens.length, 0);
    assert.ok(drawn <= CAPTURE_LIMITS.tokens, `${drawn} tokens drawn`);
    const a = written(point({ text, role: 'testCode', value: 'Glucose' }));
    assert.deepEqual(a.place, { message: 1, segment: 'OBX', index: 4, field: 3, component: 2 });
    assert.deepEqual(readsWith(a.overrides, text), [['S-77', 'Glucose', '5.4', 'mmol/L']]);
  });
});
