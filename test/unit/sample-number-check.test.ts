/**
 * "None is filed under the wrong sample": a sample number in which a delimiter
 * of its message arrived raw, that holds a control character, or text that did
 * not decode in the message's character set is never sent to the LIS, as a
 * result's (the result is unassigned, with the reason) or as a query's (not
 * asked). A delimiter the sender escaped (ASTM `&E&`, HL7 `\T\`) is data.
 * One check for both protocols: lib/conversation/sample-number.ts.
 * And a result without a test code is unassigned, naming the places looked at.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { sampleNumberProblem } from '../../lib/conversation/sample-number';
import { hl7LabEventsOf } from '../../lib/protocols/hl7/lab';
import { HL7_GENERIC_ORU, HL7_IHE_LAW, HL7_ROCHE_COBAS_PRO, profileProblems, type Hl7DialectProfile } from '../../lib/protocols/hl7/dialects';
import { toLabEvents } from '../../lib/protocols/astm/lab';
import { decodeMessage } from '../../lib/protocols/astm/records';
import { GENERIC_LIS2A2, getProfile } from '../../lib/protocols/astm/dialects';
import type { LabEvent } from '../../lib/lab/types';
import type { Hl7LabEvent } from '../../lib/protocols/hl7/lab';

const kinds = (events: readonly (LabEvent | Hl7LabEvent)[]) => events.map((e) => e.type);
const unassigned = (events: readonly (LabEvent | Hl7LabEvent)[]) => events.flatMap((e) => (e.type === 'unassigned' ? e.items : []));
const results = (events: readonly (LabEvent | Hl7LabEvent)[]) => events.flatMap((e) => (e.type === 'results' ? e.results : []));

const LAW_MSH = (charset: string) => `MSH|^~\\&|cobas pro||Host||20240101120000||OUL^R22^OUL_R22|1|P|2.5.1||||||${charset}\r`;
const law = (spm2: string, obx3 = '20490^20490^99ROC', charset = 'UNICODE UTF-8') => `${LAW_MSH(charset)}SPM|1|${spm2}\rOBR|1\rOBX|1|NM|${obx3}||3|mg/L|||||F\r`;

describe('a sample number that is evidently not what the analyzer meant is never sent to the LIS', () => {
  it('the shared check names the delimiter that arrived raw, the control character, the text that did not decode', () => {
    const d = {};
    assert.equal(sampleNumberProblem('RC-0042', d), undefined);
    assert.equal(sampleNumberProblem('Müller-1', d), undefined, 'a decoded non-ASCII character is fine');
    assert.equal(sampleNumberProblem('RC-7&8', d), undefined, 'a delimiter the reader found escaped is data');
    assert.match(sampleNumberProblem('RC-BAD2&BARCODE', { rawDelimiter: '&' })!, /holds "&", a delimiter of its message that arrived unescaped/);
    assert.match(sampleNumberProblem('A\u0007B', d)!, /control character U\+0007/);
    assert.match(sampleNumberProblem('A\u009cB', d)!, /control character U\+009C/);
    assert.match(sampleNumberProblem('A\ufffdB', d)!, /did not decode.*U\+FFFD/);
    assert.match(sampleNumberProblem('A\u00c3B', { ...d, undecodedFrom: 'UTF-8' })!, /not valid UTF-8/);
    assert.equal(sampleNumberProblem('AB', { ...d, undecodedFrom: 'UTF-8' }), undefined, 'ASCII is the same in both');
  });

  it('HL7: a sample number from invalid UTF-8 under MSH-18 UNICODE UTF-8 makes the result unassigned, naming SPM-2', () => {
    const bytes = Buffer.concat([Buffer.from(`${LAW_MSH('UNICODE UTF-8')}SPM|1|UTF8BADSAMPLE-`, 'latin1'), Buffer.from([0xc3, 0x28, 0xff, 0xc0, 0xaf, 0xed, 0xa0, 0xf8]), Buffer.from('&BARCODE\rOBR|1\rOBX|1|NM|20490^20490^99ROC||3|mg/L|||||F\r', 'latin1')]);
    const events = hl7LabEventsOf(bytes, HL7_ROCHE_COBAS_PRO, 'UTC');
    assert.deepEqual(results(events), []);
    const [item] = unassigned(events);
    assert.ok(item);
    assert.match(item.reason, /^OBX 4 \(20490\): SPM-2: the sample number "UTF8BADSAMPLE-.*" holds .*not valid UTF-8/);
    assert.equal(item.Result, '3');
  });

  it('HL7: an escaped delimiter is data; a raw escape character or a control character in a sample number makes the result unassigned', () => {
    for (const [spm2, sample] of [
      ['RC\\T\\X&BARCODE', 'RC&X'],
      ['RC\\S\\X&BARCODE', 'RC^X'],
      ['RC\\F\\X\\R\\Y\\E\\Z&BARCODE', 'RC|X~Y\\Z'],
      ['RC\\X41\\X&BARCODE', 'RCAX'],
    ] as const) {
      const events = hl7LabEventsOf(Buffer.from(law(spm2), 'latin1'), HL7_ROCHE_COBAS_PRO, 'UTC');
      assert.deepEqual(unassigned(events), [], spm2);
      assert.deepEqual(results(events).map((r) => r.SampleNumber), [sample], spm2);
    }
    for (const [spm2, why] of [
      ['RC\\X&BARCODE', /holds "\\\\", a delimiter of its message that arrived unescaped/],
      ['RC\\H\\X&BARCODE', /holds "\\\\", a delimiter of its message that arrived unescaped/],
      ['RC\\X07\\X&BARCODE', /control character U\+0007/],
      ['RC\\X0D\\X&BARCODE', /control character U\+000D/],
    ] as const) {
      const events = hl7LabEventsOf(Buffer.from(law(spm2), 'latin1'), HL7_ROCHE_COBAS_PRO, 'UTC');
      assert.deepEqual(results(events), [], spm2);
      assert.match(unassigned(events)[0]!.reason, why, spm2);
    }
    assert.equal(results(hl7LabEventsOf(Buffer.from(law('RC-1&BARCODE'), 'latin1'), HL7_ROCHE_COBAS_PRO, 'UTC'))[0]!.SampleNumber, 'RC-1');
  });

  it('HL7: a query naming such a sample is not a query the LIS is asked', () => {
    const query = (sample: string) => Buffer.from(`MSH|^~\\&|cobas pro||Host||20240101||QBP^Q11^QBP_Q11|1|P|2.5.1||||||UNICODE UTF-8\rQPD|INIBAR^^99ROC|q1|${sample}\rRCP|I|1|R\r`, 'latin1');
    assert.deepEqual(kinds(hl7LabEventsOf(query('S-1'), HL7_IHE_LAW, 'UTC')), ['query']);
    const escaped = hl7LabEventsOf(query('S\\T\\1'), HL7_IHE_LAW, 'UTC');
    assert.deepEqual(kinds(escaped), ['query'], 'an escaped delimiter is data');
    assert.equal((escaped[0] as { samples: Array<{ sampleNumber: string }> }).samples[0]!.sampleNumber, 'S&1');
    for (const sample of ['S\\X01\\1', 'S\\1']) {
      const events = hl7LabEventsOf(query(sample), HL7_IHE_LAW, 'UTC');
      assert.deepEqual(kinds(events), ['other'], sample);
      assert.match((events[0] as { reason: string }).reason, /QPD-3: the sample number .*not asked of the LIS/);
    }
  });

  it('ASTM: a sample number that did not decode as UTF-8 (U+FFFD) or holds a control character makes its results unassigned', () => {
    const sofia = getProfile('quidel-sofia')!;
    const text = (sample: string) => `H|\\^&|||Sofia\rP|1\rO|1|${sample}||^^^FLU\rR|1|^^^FLU|POS\rL|1|N\r`;
    const bad = Buffer.concat([Buffer.from(text('S-').split('||^^^FLU')[0]!, 'latin1'), Buffer.from([0xc3, 0x28]), Buffer.from(`||^^^FLU${text('').split('||^^^FLU')[1]}`, 'latin1')]).toString('utf8');
    for (const [message, why] of [
      [bad, /U\+FFFD/],
      [text('S\u00071'), /control character U\+0007/],
    ] as const) {
      const events = toLabEvents(decodeMessage(message), sofia, { timeZone: 'UTC' });
      assert.deepEqual(results(events), []);
      const [item] = unassigned(events);
      assert.match(item!.reason, why);
      assert.equal(item!.at?.label, 'O-3 (specimenId)');
    }
  });

  it('ASTM: an escaped delimiter (&E& &F& &S& &R&) is data; a raw escape character (a lone &, a kept &H&) makes the results unassigned', () => {
    const text = (sample: string) => `H|\\^&|||A\rP|1\rO|1|${sample}||^^^GLU\rR|1|^^^GLU|5\rL|1|N\r`;
    for (const [sample, want] of [
      ['RC&E&7', 'RC&7'],
      ['RC&F&1&S&2&R&3', 'RC|1^2\\3'],
    ] as const) {
      const events = toLabEvents(decodeMessage(text(sample)), GENERIC_LIS2A2, { timeZone: 'UTC' });
      assert.deepEqual(unassigned(events), [], sample);
      assert.deepEqual(results(events).map((r) => r.SampleNumber), [want], sample);
    }
    for (const sample of ['RC-BAD2&BARCODE', 'RC&H&7', 'RC&E&7&']) {
      const events = toLabEvents(decodeMessage(text(sample)), GENERIC_LIS2A2, { timeZone: 'UTC' });
      assert.deepEqual(results(events), [], sample);
      assert.match(unassigned(events)[0]!.reason, /^O-3 \(specimenId\) of O record 3: the sample number ".*" holds "&", a delimiter of its message that arrived unescaped/, sample);
    }
  });

  it('ASTM: a query naming such a sample is not asked of the LIS; one with an escaped delimiter is', () => {
    const q = (sample: string) => toLabEvents(decodeMessage(`H|\\^&|||A\rQ|1|^${sample}||ALL\rL|1|N\r`), GENERIC_LIS2A2, { timeZone: 'UTC' });
    assert.deepEqual(kinds(q('S1')), ['query']);
    const escaped = q('S&E&1');
    assert.deepEqual(kinds(escaped), ['query']);
    assert.equal((escaped[0] as { samples: Array<{ sampleNumber: string }> }).samples[0]!.sampleNumber, 'S&1');
    for (const [sample, why] of [
      ['S\u00071', /control character U\+0007.*not asked of the LIS/],
      ['S&1', /holds "&", a delimiter of its message that arrived unescaped.*not asked of the LIS/],
    ] as const) {
      const events = q(sample);
      assert.deepEqual(kinds(events), ['other'], sample);
      assert.match((events[0] as { reason: string }).reason, why, sample);
    }
  });
});

describe('a result without a test code is unassigned', () => {
  it('HL7: an empty OBX-3.1 makes the result unassigned, naming the field; a dialect may list fallbacks (OBX-3.2)', () => {
    const events = hl7LabEventsOf(Buffer.from(law('S-1&BARCODE', '^GLU^L'), 'latin1'), HL7_ROCHE_COBAS_PRO, 'UTC');
    assert.deepEqual(results(events), []);
    assert.match(unassigned(events)[0]!.reason, /^OBX 4: no test code in OBX-3; a result is not sent without one/);
    assert.match(unassigned(hl7LabEventsOf(Buffer.from(law('S-1&BARCODE', '""^GLU'), 'latin1'), HL7_ROCHE_COBAS_PRO, 'UTC'))[0]!.reason, /no test code/, 'HL7 null is no code');
    const fallback: Hl7DialectProfile = { ...HL7_ROCHE_COBAS_PRO, results: { ...HL7_ROCHE_COBAS_PRO.results, codeFallbacks: [{ segment: 'OBX', field: 3, component: 2 }] } };
    assert.deepEqual(profileProblems(fallback), []);
    assert.equal(results(hl7LabEventsOf(Buffer.from(law('S-1&BARCODE', '^GLU^L'), 'latin1'), fallback, 'UTC'))[0]!.instrumentCode, 'GLU');
    assert.equal(results(hl7LabEventsOf(Buffer.from(law('S-1&BARCODE', '20490^GLU^L'), 'latin1'), fallback, 'UTC'))[0]!.instrumentCode, '20490', 'the first place wins');
    assert.match(unassigned(hl7LabEventsOf(Buffer.from(law('S-1&BARCODE', '^^L'), 'latin1'), fallback, 'UTC'))[0]!.reason, /no test code in OBX-3 or OBX-3\.2/);
    const wrong = { ...HL7_GENERIC_ORU, results: { ...HL7_GENERIC_ORU.results, codeFallbacks: [{ segment: 'OBR', field: 4 }] } } as unknown as Hl7DialectProfile;
    assert.deepEqual(profileProblems(wrong), ['results.codeFallbacks[0] must be an OBX place, got "OBR"']);
  });

  it('ASTM: an empty R-3 code makes the result unassigned, naming the field', () => {
    const events = toLabEvents(decodeMessage('H|\\^&|||A\rP|1\rO|1|S1||^^^GLU\rR|1|^^^|5\rL|1|N\r'), GENERIC_LIS2A2, { timeZone: 'UTC' });
    assert.deepEqual(results(events), []);
    const [item] = unassigned(events);
    assert.match(item!.reason, /no instrument test code/);
    assert.equal(item!.at?.label, 'R-3 (universalTestId)');
  });
});
