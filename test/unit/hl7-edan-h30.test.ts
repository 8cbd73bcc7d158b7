/**
 * The EDAN H30 dialect on its capture (edan-h30-oru-r01.txt,
 * test/fixtures/SOURCES-added.md): where the generic dialect goes wrong on
 * it, and the values the dialect reads (all 23 rows are in
 * hl7-lab-fixtures.test.ts; the ones that show each reading are here).
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { allHl7Messages, loadHl7Fixture } from '../support/hl7-fixtures';
import { HL7_GENERIC_ORU, findHl7Profile, profileProblems } from '../../lib/protocols/hl7/dialects';
import { hl7LabEventsOf } from '../../lib/protocols/hl7/lab';

const SITE = 'Europe/Berlin';

function message(): Buffer {
  const m = allHl7Messages().find((x) => x.id === 'edan-h30-oru-r01.txt#1');
  assert.ok(m);
  return m.bytes;
}

describe('EDAN H30 (HL7 2.4)', () => {
  it('the fixture is the source with its doubled backslashes halved, nothing else', () => {
    const f = loadHl7Fixture('edan-h30-oru-r01.txt');
    assert.equal(f.messages.length, 1);
    const text = message().toString('utf8');
    assert.ok(text.startsWith('MSH|^~\\&|H30_Pro^5295|EDANLAB|||20260217114231||ORU^R01|188|P|2.4||||0||UTF8\n'));
    assert.ok(text.includes('\nOBX||NM|0|WBC|13.56|10\\S\\3/μL|3.50-9.50|1||0||13.56^10\\S\\3/μL|H\n'));
  });

  it('the generic dialect files every result under OBR-2 `9`, the run number, with code `0`', () => {
    const [ev] = hl7LabEventsOf(message(), HL7_GENERIC_ORU, SITE);
    assert.ok(ev?.type === 'results');
    assert.deepEqual([...new Set(ev.results.map((r) => `${r.SampleNumber}/${r.instrumentCode}`))], ['9/0']);
  });

  it('edan-h30 reads the bar code in PID-2, the parameter in OBX-4, units unescaped, the flag in OBX-13', () => {
    const p = findHl7Profile('edan-h30')!;
    assert.deepEqual(profileProblems(p), []);
    const events = hl7LabEventsOf(message(), p, SITE);
    assert.deepEqual(events.map((e) => e.type), ['results']);
    const [ev] = events;
    assert.ok(ev?.type === 'results');
    assert.equal(ev.results.length, 23);
    assert.deepEqual(ev.results[0], {
      SampleNumber: 'WBL260217001',
      instrumentCode: 'WBC',
      Result: '13.56',
      units: '10^3/μL',
      referenceRange: '3.50-9.50',
      flags: ['H'],
      sequence: { patient: 175, order: 0, result: 0 },
      record: 4,
    });
    const at = (code: string) => ev.results.find((r) => r.instrumentCode === code);
    assert.deepEqual([at('RBC')?.Result, at('RBC')?.units, at('RBC')?.flags], ['4.95', '10^6/μL', undefined]);
    assert.deepEqual([at('PLT')?.Result, at('PLT')?.flags], ['13', ['L']]);
    assert.deepEqual([at('PDW')?.Result, at('PDW')?.units, at('PDW')?.flags], ['22.28', undefined, ['H']]);
    assert.deepEqual([at('NLR')?.Result, at('NLR')?.referenceRange], ['26.39', undefined]);
  });
});
