/**
 * toLabEvents against every fixture message: nothing throws, no result is
 * without a sample number, every R record ends up either a result or an
 * unassigned item; then value-by-value checks per vendor, queries, QC, and the
 * cases where the translation must refuse to guess.
 *
 * The expected values were read by eye from the fixture files (see
 * test/fixtures/SOURCES.md); times are the analyzer's wall clock read in
 * Europe/Berlin.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { decodeMessage, splitMessages, type AstmMessage } from '../../lib/protocols/astm/records';
import { GENERIC_LIS2A2, PROFILES, getProfile, type DialectProfile } from '../../lib/protocols/astm/dialects';
import { toLabEvents, type InstrumentResult, type LabEvent } from '../../lib/protocols/astm/lab';
import { FIXTURES, fixtureText, loadFixture } from '../support/fixtures';

const SITE = 'Europe/Berlin';

/** The profile each fixture is read with; vendors without a profile of their own use the generic one. */
const PROFILE_OF: Readonly<Record<string, string>> = {
  'abbott-afinion2-result.txt': 'abbott-architect',
  'abbott-architect-i-result-multi.txt': 'abbott-architect',
  'abbott-architect-query-strings.txt': 'abbott-architect',
  'abbott-m2000-result-framed.txt': 'abbott-architect',
  'abbott-m2000-result.txt': 'abbott-architect',
  'beckman-access-query-strings.txt': 'beckman-access',
  'beckman-access2-result-log.txt': 'beckman-access',
  'biorad-ihcom-bloodtype-multipatient-result.txt': 'biorad-ihcom',
  'biorad-ihcom-bloodtype-result.txt': 'biorad-ihcom',
  'cepheid-genexpert-result.txt': 'cepheid-genexpert',
  'erba-em200-query-multitube.txt': 'erba-em200',
  'erba-em200-query.txt': 'erba-em200',
  'erba-em200-result-session.txt': 'erba-em200',
  'euroimmun-analyzer1-result.txt': 'euroimmun-analyzer1',
  'hologic-panther-result.txt': 'hologic-panther',
  'horiba-pentra-xlr-result.txt': 'horiba-pentra',
  'horiba-pentra60-result-log.txt': 'horiba-pentra',
  'horiba-yumizen-h500-qc-result.txt': 'horiba-yumizen',
  'horiba-yumizen-h550-qc-result.txt': 'horiba-yumizen',
  'immucor-galileo-order.txt': 'immucor',
  'immucor-galileo-result.txt': 'immucor',
  'immucor-neo-query.txt': 'immucor',
  'immucor-neo-result.txt': 'immucor',
  'mindray-bs240-qc-log.txt': 'mindray-bs',
  'mindray-bs240-result-calculated-log.txt': 'mindray-bs',
  'mindray-cl2000i-order-download.txt': 'mindray-cl',
  'mindray-cl2000i-qc-result.txt': 'mindray-cl',
  'mindray-cl2000i-query-answer-notfound.txt': 'mindray-cl',
  'mindray-cl2000i-query.txt': 'mindray-cl',
  'mindray-cl2000i-result.txt': 'mindray-cl',
  'mindray-cl2000i-session-trace.txt': 'mindray-cl',
  'ortho-vision-result-abo-rh.txt': 'ortho-vision',
  'ortho-vision-result.txt': 'ortho-vision',
  'ortho-vision-test-cases.json': 'ortho-vision',
  'ortho-vitros-3600-query-cancel.txt': 'ortho-vitros',
  'ortho-vitros-3600-query.txt': 'ortho-vitros',
  'ortho-vitros-3600-result-indices.txt': 'ortho-vitros',
  'ortho-vitros-3600-result.txt': 'ortho-vitros',
  'phadia-immunocap-result.txt': 'phadia-immunocap',
  'quidel-sofia2-result-monitor-log.txt': 'quidel-sofia',
  'roche-c111-result.txt': 'roche-cobas-c111',
  'roche-cobas-u411-result-manual.txt': 'roche-cobas-u411',
  'roche-urisys1100-result-manual.txt': 'roche-urisys1100',
  'roche-c311-result.txt': 'roche-cobas-c311',
  'roche-cobas6000-e601-result-log.txt': 'roche-cobas-6000',
  'roche-e411-order-download-manual.txt': 'roche-cobas-e411-elecsys',
  'roche-e411-order-download-no-order-manual.txt': 'roche-cobas-e411-elecsys',
  'roche-e411-query-cancel-manual.txt': 'roche-cobas-e411-elecsys',
  'roche-e411-query-manual.txt': 'roche-cobas-e411-elecsys',
  'roche-e411-query-unknown-sample.txt': 'roche-cobas-e411',
  'roche-e411-query.txt': 'roche-cobas-e411',
  'roche-e411-result-multiframe.bytes.txt': 'roche-cobas-e411',
  'roche-e411-result-multiframe.txt': 'roche-cobas-e411',
  'roche-e411-result.bytes.txt': 'roche-cobas-e411',
  'roche-e411-result.txt': 'roche-cobas-e411',
  'siemens-dca-vantage-result.txt': 'siemens-dca-vantage',
  'snibe-maglumi-600-query-manual.txt': 'snibe-maglumi',
  'snibe-maglumi-600-result-manual.txt': 'snibe-maglumi',
  'snibe-maglumi-x3-result-session-hostid-notlis.txt': 'snibe-maglumi',
  'snibe-maglumi-x3-result-session.txt': 'snibe-maglumi',
  'siemens-immulite-query.txt': 'siemens-immulite',
  'siemens-immulite-result.txt': 'siemens-immulite',
  'stago-sta-satellite-max-result.bytes.txt': 'stago-sta',
  'stago-sta-satellite-max-result.txt': 'stago-sta',
  'sysmex-xn550-result-framed-session.txt': 'sysmex-xn',
  'sysmex-xn550-result.txt': 'sysmex-xn',
  'sysmex-xp100-result.txt': 'sysmex-xn',
  'sysmex-uwam-uf4000-result-log.txt': 'sysmex-uwam',
};

function messagesOf(name: string): AstmMessage[] {
  return splitMessages(fixtureText(loadFixture(name))).map((text) => decodeMessage(text));
}

function profileOf(name: string): DialectProfile {
  const id = PROFILE_OF[name];
  assert.ok(id !== undefined, `no profile chosen for ${name}`);
  return getProfile(id);
}

function eventsOf(name: string, index = 0, profile: DialectProfile = profileOf(name)): LabEvent[] {
  const message = messagesOf(name)[index];
  assert.ok(message !== undefined, `${name} has no message ${index + 1}`);
  return toLabEvents(message, profile, { timeZone: SITE });
}

function one<T extends LabEvent['type']>(events: LabEvent[], type: T): Extract<LabEvent, { type: T }> {
  const found = events.filter((e): e is Extract<LabEvent, { type: T }> => e.type === type);
  assert.equal(found.length, 1, `expected one ${type} event in ${JSON.stringify(events.map((e) => e.type))}`);
  return found[0] as Extract<LabEvent, { type: T }>;
}

function types(events: LabEvent[]): string[] {
  return events.map((e) => e.type);
}

function resultFor(results: InstrumentResult[], code: string, sub?: string): InstrumentResult {
  const found = results.filter((r) => r.instrumentCode === code && r.instrumentSubCode === sub);
  assert.equal(found.length, 1, `expected one result ${code}/${sub ?? ''}, found ${found.length}`);
  return found[0] as InstrumentResult;
}

function resultsOf(name: string, index = 0): InstrumentResult[] {
  const ev = one(eventsOf(name, index), 'results');
  assert.deepEqual(ev.problems, []);
  return ev.results;
}

/** Every R record of the message is a result or an unassigned item: nothing dropped, nothing doubled. */
function assertAccounted(message: AstmMessage, events: LabEvent[], label: string): void {
  const rRecords = message.records.flatMap((r, i) => (r.type === 'R' ? [i + 1] : []));
  const seen: number[] = [];
  for (const e of events) {
    if (e.type === 'results' || e.type === 'qc') {
      for (const r of e.results) {
        assert.ok(typeof r.SampleNumber === 'string' && r.SampleNumber.trim() !== '', `${label}: result without sample number`);
        assert.ok(r.instrumentCode.trim() !== '', `${label}: result without test code`);
        if (r.control === undefined) seen.push(r.record);
      }
    }
    if (e.type === 'unassigned') for (const item of e.items) if (message.records[item.record - 1]?.type === 'R') seen.push(item.record);
  }
  assert.deepEqual(seen.sort((a, b) => a - b), rRecords, `${label}: R records and what became of them`);
}

describe('toLabEvents over every fixture message', () => {
  it('has a profile chosen for every fixture file', () => {
    assert.deepEqual(Object.keys(PROFILE_OF).sort(), Object.keys(FIXTURES).sort());
  });

  it('never throws, never gives a result without a sample number, and accounts for every R record', () => {
    for (const name of Object.keys(FIXTURES)) {
      messagesOf(name).forEach((message, i) => {
        const label = `${name} message ${i + 1}`;
        const events = toLabEvents(message, profileOf(name), { timeZone: SITE });
        assert.ok(events.length > 0, label);
        assertAccounted(message, events, label);
      });
    }
  });

  it('holds the same under the generic profile and under every other profile', () => {
    for (const profile of PROFILES) {
      for (const name of Object.keys(FIXTURES)) {
        messagesOf(name).forEach((message, i) => {
          const label = `${name} message ${i + 1} with ${profile.id}`;
          assertAccounted(message, toLabEvents(message, profile, { timeZone: SITE }), label);
        });
      }
    }
  });
});

describe('results, value by value', () => {
  it('Roche cobas e 411: sample from O-3, code before the "/", time from O-23', () => {
    const [r] = resultsOf('roche-e411-result.txt');
    assert.deepEqual(r, {
      SampleNumber: '000009680',
      instrumentCode: '1',
      Result: '223.1',
      units: 'pg/ml',
      flags: ['N'],
      status: 'F',
      completedAtRaw: '20191207174651',
      completedAt: '2019-12-07T16:46:51.000Z',
      sequence: { patient: 1, order: 1, result: 1 },
      record: 4,
    });
    assert.equal(one(eventsOf('roche-e411-result.txt'), 'results').sender, 'cobas-e411^1');
  });

  it('Roche cobas e 411, multi-frame: qualitative value^COI kept whole, flag LL with its comment', () => {
    const results = resultsOf('roche-e411-result-multiframe.txt');
    assert.deepEqual(results.map((r) => r.instrumentCode), ['8', '7', '6', '5', '4', '3', '1']);
    assert.ok(results.every((r) => r.SampleNumber === '000002327' && r.completedAt === '2019-01-10T15:30:45.000Z'));
    const tsh = resultFor(results, '5');
    assert.equal(tsh.Result, '-1^0.282');
    assert.equal(tsh.units, 'COI');
    const low = resultFor(results, '3');
    assert.equal(low.Result, '<3.00');
    assert.deepEqual(low.flags, ['LL']);
    assert.deepEqual(low.comments, ['27']);
  });

  it('Roche cobas c 311: the sample ID is component 2 of O-3, padding trimmed', () => {
    const results = resultsOf('roche-c311-result.txt');
    assert.equal(results.length, 7);
    assert.ok(results.every((r) => r.SampleNumber === 'CL-PL-24-0370'));
    const alt = resultFor(results, '685');
    assert.equal(alt.Result, '22.4');
    assert.equal(alt.units, 'U/l');
    assert.deepEqual(alt.flags, ['A']);
    assert.deepEqual(alt.comments, ['43']);
  });

  it('Sysmex XN-550: sample from O-4 component 3, flags, image paths with escapes resolved, the P comment', () => {
    const results = resultsOf('sysmex-xn550-result.txt');
    assert.equal(results.length, 41);
    assert.ok(results.every((r) => r.SampleNumber === '27' && r.patientId === '37182'));
    const wbc = resultFor(results, 'WBC');
    assert.equal(wbc.Result, '8.13');
    assert.equal(wbc.units, '10*3/uL');
    assert.deepEqual(wbc.flags, ['N']);
    assert.equal(wbc.status, 'F');
    assert.equal(wbc.completedAt, '2024-06-27T11:54:07.000Z');
    assert.deepEqual(wbc.patientComments, ['POST HD']);
    assert.deepEqual(resultFor(results, 'HCT').flags, ['L']);
    assert.deepEqual(resultFor(results, 'EO%').flags, ['H']);
    const flag = resultFor(results, 'Eosinophilia');
    assert.equal(flag.Result, '');
    assert.deepEqual(flag.flags, ['A']);
    assert.equal(resultFor(results, 'SCAT_WDF').Result, 'PNG\\20240628\\2024_06_27_13_54_27_WDF.PNG');
  });

  it('Sysmex XP-100: padded values trimmed, the padded text kept as rawResult', () => {
    const results = resultsOf('sysmex-xp100-result.txt');
    assert.equal(results.length, 20);
    const wbc = resultFor(results, 'WBC');
    assert.equal(wbc.SampleNumber, '113');
    assert.equal(wbc.Result, '5.5');
    assert.equal(wbc.rawResult, '  5.5');
    assert.equal(resultFor(results, 'PLT').Result, '170');
  });

  it('HORIBA Pentra XLR: sample from O-3 component 1, comments on the result they follow, status X kept', () => {
    const results = resultsOf('horiba-pentra-xlr-result.txt');
    assert.equal(results.length, 21);
    assert.ok(results.every((r) => r.SampleNumber === 'S1234'));
    const wbc = resultFor(results, 'WBC');
    assert.equal(wbc.Result, '8.5');
    assert.equal(wbc.status, 'W');
    assert.equal(wbc.completedAt, '2022-07-27T10:15:50.000Z');
    assert.deepEqual(wbc.comments, ['Alarm_WBC^LMNE-^BASO+^LL^NL^LN^NO^SL1', 'LARGE IMMATURE CELL^NRBCs']);
    assert.equal(resultFor(results, 'LYM#').comments, undefined);
    assert.deepEqual(resultFor(results, 'MON#').flags, ['L']);
    const bas = resultFor(results, 'BAS#');
    assert.equal(bas.Result, '-----');
    assert.equal(bas.status, 'X');
    assert.deepEqual(bas.flags, ['HH']);
    assert.deepEqual(resultFor(results, 'PLT').comments, ['PLATELET AGGREGATS']);
  });

  it('Abbott ARCHITECT: five messages, five samples; F/I/P results told apart by sub-code', () => {
    const messages = messagesOf('abbott-architect-i-result-multi.txt');
    assert.equal(messages.length, 5);
    const samples = messages.map((m) => one(toLabEvents(m, profileOf('abbott-architect-i-result-multi.txt'), { timeZone: SITE }), 'results').results.map((r) => r.SampleNumber));
    assert.deepEqual(samples.map((s) => [...new Set(s)]), [['276056250158121'], ['70225954624I'], ['AA5XVA2BT9'], ['AA5XVA2BT9'], ['CL5X1A30VH']]);
    const results = resultsOf('abbott-architect-i-result-multi.txt');
    const f = resultFor(results, '580', 'F');
    assert.equal(f.Result, '0.15');
    assert.equal(f.units, 'S/CO');
    assert.equal(f.status, 'R');
    assert.equal(f.completedAt, '2025-06-13T08:18:44.000Z');
    assert.equal(resultFor(results, '580', 'I').Result, 'Nonreactive');
    assert.equal(resultFor(results, '580', 'P').units, 'RLU');
    assert.equal(one(eventsOf('abbott-architect-i-result-multi.txt'), 'results').sender, 'ARCHITECT^9.45^F3452430028^H1P1O1R1C1Q1L1');
  });

  it('Siemens DCA Vantage: the sample number is the ID typed into P-3; R-12 is the time', () => {
    const results = resultsOf('siemens-dca-vantage-result.txt');
    assert.deepEqual(
      results.map((r) => [r.SampleNumber, r.instrumentCode, r.Result, r.units]),
      [
        ['BU24R554', 'Alb', '63.7', 'mg/L'],
        ['BU24R554', 'Crt', '230.8', 'mg/dL'],
        ['BU24R554', 'Ratio', '27.6', 'mg/g'],
      ],
    );
    assert.deepEqual(resultFor(results, 'Alb').comments, ['1.000^0.0 mg/L']);
    assert.equal(resultFor(results, 'Ratio').completedAt, '2024-08-20T13:10:30.000Z');
  });

  it('Stago STA Satellite Max: one O per test, all on one sample, instrument messages as comments', () => {
    const results = resultsOf('stago-sta-satellite-max-result.txt');
    assert.deepEqual(
      results.map((r) => [r.SampleNumber, r.instrumentCode, r.Result, r.units]),
      [
        ['000004782', 'SPT', '14.02', 'S'],
        ['000004782', 'SINR', '1.02', 'INR ISI'],
        ['000004782', 'SAPTT', '31.93', 'S'],
        ['000004782', 'SPT', '13.66', 'S'],
        ['000004782', 'SINR', '0.99', 'INR ISI'],
        ['000004782', 'SAPTT', '32.47', 'S'],
      ],
    );
    assert.deepEqual(results[0]?.comments, ['36^Test Co 24 controls are invalid.', '-3016^Test Co 24 Stirring defect']);
    assert.equal(results[0]?.completedAt, '2019-06-22T13:04:04.000Z');
    assert.deepEqual(results.map((r) => r.sequence.order), [1, 2, 3, 4, 5, 6]);
  });

  it('Cepheid GeneXpert: `H|@^\\` delimiters, result code + analyte sub-code, qualitative^quantitative values', () => {
    const results = resultsOf('cepheid-genexpert-result.txt');
    assert.equal(results.length, 84);
    assert.ok(results.every((r) => r.SampleNumber === 'PR25A137'));
    const mtb = resultFor(results, 'Xpert', 'MTB');
    assert.equal(mtb.Result, 'NOT DETECTED');
    assert.equal(mtb.rawResult, 'NOT DETECTED^');
    assert.equal(mtb.status, 'F');
    assert.equal(mtb.completedAt, '2025-05-14T11:21:03.000Z');
    assert.deepEqual(mtb.comments, ['Notes^^Id# 118176 Sardani P Lantion CDU/Dr. A Marcil cp']);
    const ct = resultFor(results, 'Xpert', 'SPC/Ct');
    assert.equal(ct.Result, '24.7');
    assert.equal(ct.rawResult, '^24.7');
    assert.equal(resultFor(results, 'RIF', 'rpoB4 Mut melt B/EndPt').Result, '0.0');
  });

  it('Mindray CL-2000i: sample = bar code in O-4, code = assay number, value = the quantitative component', () => {
    const results = resultsOf('mindray-cl2000i-result.txt');
    assert.deepEqual(results, [
      {
        SampleNumber: 'SAMPLE123',
        instrumentCode: '1',
        Result: '10000.000000',
        rawResult: '10000.000000^^^^',
        units: 'U/mL',
        flags: ['N'],
        status: 'F',
        completedAtRaw: '20130715102938',
        completedAt: '2013-07-15T08:29:38.000Z',
        patientId: 'PATIENT111',
        sequence: { patient: 1, order: 1, result: 1 },
        record: 4,
      },
      {
        SampleNumber: 'SAMPLE123',
        instrumentCode: '2',
        Result: '5547.808063',
        rawResult: '5547.808063^^^^',
        units: 'ng/mL',
        flags: ['N'],
        status: 'F',
        completedAtRaw: '20130715103002',
        completedAt: '2013-07-15T08:30:02.000Z',
        patientId: 'PATIENT111',
        sequence: { patient: 1, order: 1, result: 2 },
        record: 5,
      },
    ]);
  });

  it('Bio-Rad IH-Com, two patients: each result stays under its own P/O group', () => {
    const results = resultsOf('biorad-ihcom-bloodtype-multipatient-result.txt');
    assert.deepEqual(
      results.map((r) => [r.SampleNumber, r.instrumentCode, r.Result, r.record]),
      [
        ['1122206642', 'AntiA', '40^^', 4],
        ['1122206642', 'AntiB', '0^^', 6],
        ['1122206642', 'AntiD', '0^^', 8],
        ['1122206642', 'Result', 'A^NEG^NEG^ccee^K-^NEG^^^', 10],
        ['1122206642', 'AntiA', '40^^', 14],
      ],
    );
    assert.deepEqual(resultFor(results.slice(0, 1), 'AntiA').comments, ['CAS^5005352062212117030^50053.52.06^20221231^4']);
    assert.equal(results[3]?.comments, undefined, 'the empty C after R 4 adds nothing');
  });

  it('Immucor Galileo: reaction grades kept whole, two orders for one sample', () => {
    const results = resultsOf('immucor-galileo-result.txt');
    assert.equal(results.length, 14);
    assert.ok(results.every((r) => r.SampleNumber === '0651439A' && r.patientId === '1171984'));
    assert.equal(resultFor(results, 'Anti-B').Result, '3+^3+^45');
    assert.equal(resultFor(results, 'ABOD Full Interp').Result, 'B Pos');
    assert.equal(resultFor(results, 'Screen Interp').Result, 'Pos');
    assert.equal(resultFor(results, 'Screen 1').sequence.order, 2);
    assert.equal(resultFor(results, 'Anti-A').completedAt, '2006-03-06T15:44:29.000Z');
  });

  it('ERBA EM 200: backquote repeat delimiter, two sessions', () => {
    const [glu] = resultsOf('erba-em200-result-session.txt', 0);
    assert.equal(glu?.SampleNumber, 'Asha Singh');
    assert.equal(glu?.instrumentCode, 'GLU');
    assert.equal(glu?.Result, '115.5');
    assert.equal(glu?.units, 'mg/dl');
    assert.equal(glu?.referenceRange, '^DEFAULT');
    assert.deepEqual(glu?.flags, ['H']);
    assert.deepEqual(glu?.comments, ['Instrument Flag H']);
    assert.equal(glu?.completedAt, '2018-11-20T14:04:33.000Z');
    const [cre] = resultsOf('erba-em200-result-session.txt', 1);
    assert.deepEqual([cre?.SampleNumber, cre?.instrumentCode, cre?.Result], ['Asha Singh1', 'CRE', '0.75']);
  });

  it('EUROIMMUN Analyzer I: twenty P/O/R groups, twenty samples from P-4, decimal commas as dots', () => {
    const results = resultsOf('euroimmun-analyzer1-result.txt');
    assert.equal(results.length, 20);
    assert.equal(new Set(results.map((r) => r.SampleNumber)).size, 20);
    assert.deepEqual(results.slice(0, 2).map((r) => [r.SampleNumber, r.instrumentCode, r.Result, r.rawResult, r.units]), [
      ['TEST-27-079-5-1', 'SARSCOV2IGA', '>8', undefined, 'Ratio'],
      ['TEST-27-077-5-1', 'SARSCOV2IGA', '7.41', '7,41', 'Ratio'],
    ]);
    assert.equal(results[14]?.SampleNumber, 'TEST-27-026-5-1  57', 'P-4 as sent, outer spaces trimmed');
  });

  it('Hologic Panther: the result name is the sub-code, three samples', () => {
    const results = resultsOf('hologic-panther-result.txt');
    assert.equal(results.length, 12);
    assert.deepEqual([...new Set(results.map((r) => r.SampleNumber))], ['662047', '1203695', '1203665']);
    const hiv = resultFor(results.slice(0, 4), 'qHIV-1', 'HIV-1');
    assert.equal(hiv.Result, 'Not Detected');
    assert.equal(hiv.units, 'copies/mL');
    assert.equal(hiv.completedAt, '2019-08-08T03:28:56.000Z');
    assert.equal(resultFor(results.slice(8), 'qHIV-1', 'HIV-1').Result, '59');
    assert.equal(resultFor(results.slice(8), 'qHIV-1', 'HIV-1LogBase10').Result, '1.77');
  });

  it('Phadia ImmunoCAP: value component 1, comment per result', () => {
    const results = resultsOf('phadia-immunocap-result.txt');
    assert.deepEqual(
      results.map((r) => [r.SampleNumber, r.instrumentCode, r.Result, r.units, r.comments]),
      [
        ['B7650020', 't2', '9.34', 'kUA/l', ['Response value in RU 2140']],
        ['B7650020', 't3', 'Examine', 'kUA/l', ['Response value in RU 576']],
        ['B7650020', 'a-IgE', '199', 'kU/l', ['Response value in RU 1575']],
      ],
    );
    assert.equal(results[0]?.rawResult, '9.34^^^^');
    assert.equal(results[0]?.completedAt, '2003-05-03T10:47:04.000Z');
  });

  it('SNIBE MAGLUMI X3: three transfers, one result each, R-13 the time, status empty', () => {
    const rows = [0, 1, 2].map((i) => resultsOf('snibe-maglumi-x3-result-session.txt', i)[0]);
    assert.deepEqual(
      rows.map((r) => [r?.SampleNumber, r?.instrumentCode, r?.Result, r?.units, r?.referenceRange, r?.flags]),
      [
        ['PATIENT-REDACTED-1', 'FT3', '5.43', 'pmol/L', '3.08 - 6.468', ['N']],
        ['PATIENT-REDACTED-1', 'FT4 II', '1.58', 'ng/dL', '0.9 - 1.75', ['N']],
        ['PATIENT-REDACTED-1', 'TSH II', '2.78', 'uIU/mL', '0.3 - 4.5', ['N']],
      ],
    );
    assert.equal(rows[0]?.completedAt, '2025-03-20T14:32:45.000Z');
  });

  it('SNIBE MAGLUMI X3 with receiver NOTLIS: read the same way, the sender from H-5', () => {
    const ev = one(eventsOf('snibe-maglumi-x3-result-session-hostid-notlis.txt'), 'results');
    assert.equal(ev.sender, 'Maglumi X3');
    const [ft3] = ev.results;
    assert.deepEqual([ft3?.SampleNumber, ft3?.instrumentCode, ft3?.Result, ft3?.units, ft3?.flags, ft3?.status], ['PATIENT-REDACTED-1', 'FT3', '5.43', 'pmol/L', ['N'], undefined]);
  });

  it('SNIBE MAGLUMI 600 manual example: the same layout, R-13 the time', () => {
    const [cyfra] = resultsOf('snibe-maglumi-600-result-manual.txt');
    assert.deepEqual(cyfra, {
      SampleNumber: '1234567',
      instrumentCode: 'CYFRA211',
      Result: '0',
      referenceRange: '0 to 7',
      flags: ['N'],
      completedAtRaw: '20100326172956',
      completedAt: '2010-03-26T16:29:56.000Z',
      sequence: { patient: 1, order: 1, result: 1 },
      record: 4,
    });
  });

  it('Siemens IMMULITE: H|\\^| without escape character, six patients, sample from O-3, R-13 the time', () => {
    const ev = one(eventsOf('siemens-immulite-result.txt'), 'results');
    assert.equal(ev.sender, 'DPC');
    assert.deepEqual(ev.problems, []);
    // The values the levinalex/lis feature file expects it to post.
    assert.deepEqual(
      ev.results.map((r) => [r.SampleNumber, r.instrumentCode, r.Result, r.units, r.flags, r.status, r.completedAtRaw]),
      [
        ['130000445', 'TT4', '10.3', 'ug/dL', ['N'], 'F', '19950119092826'],
        ['130000445', 'TU', '26.6', 'Percnt', ['N'], 'F', '19950119092756'],
        ['130000617', 'FER', '173.', 'ng/mL', ['N'], 'F', '19950119092858'],
        ['130000722', 'FER', '490.', 'ng/mL', ['N'], 'F', '19950119092928'],
        ['130000724', 'E2', '25.3', 'pg/mL', ['N'], 'F', '19950119100049'],
        ['130000724', 'FSH', '60.6', 'mIU/mL', ['N'], 'F', '19950119093030'],
        ['130000724', 'LH', '24.4', 'mIU/mL', ['N'], 'F', '19950119093101'],
        ['130000741', 'FER', '238.', 'ng/mL', ['N'], 'F', '19950119093132'],
        ['130000790', 'IGE', '517.', 'IU/mL', ['N'], 'F', '19950119093202'],
      ],
    );
    const tt4 = resultFor(ev.results, 'TT4');
    assert.equal(tt4.referenceRange, '4.5\\.4^12.5\\24', 'R-6 kept as text, repeats and all');
    assert.equal(tt4.patientId, '119813;TGH');
    assert.equal(tt4.completedAt, '1995-01-19T08:28:26.000Z');
  });

  it('Ortho VITROS 3600: sample from O-3 component 1, code between the "+" of R-3, replicates flagged', () => {
    const ev = one(eventsOf('ortho-vitros-3600-result.txt'), 'results');
    assert.equal(ev.sender, '3600796');
    assert.deepEqual(
      ev.results.map((r) => [r.SampleNumber, r.instrumentCode, r.Result, r.units, r.status]),
      [
        ['1111111', '002', '33.86', 'nmol/L', 'V'],
        ['1111111', '002', '33.46', 'nmol/L', 'V'],
        ['1111111', '002', '34.05', 'nmol/L', 'V'],
        ['1111111', '002', '33.59', 'nmol/L', 'V'],
        ['1111111', '002', '34.35', 'nmol/L', 'V'],
        ['1111111', '950', 'No Result', undefined, 'V'],
        ['1111111', '951', 'No Result', undefined, 'V'],
        ['1111111', '952', 'No Result', undefined, 'V'],
      ],
    );
    const [first] = ev.results;
    assert.deepEqual(first?.flags, ['^0^FRMN', '^0^NR', '^0^NR', '^0^NR'], 'one R-7 repeat per replicate, as sent');
    assert.deepEqual([first?.completedAtRaw, first?.completedAt], ['20201111221629', '2020-11-11T21:16:29.000Z']);
    // Five results of one test under one order: kept, and said.
    assert.equal(ev.problems.length, 4);
    assert.match(ev.problems[0] ?? '', /R records 4 and 5 both report test 002 for sample 1111111/);
    const indices = resultsOf('ortho-vitros-3600-result-indices.txt');
    assert.deepEqual(
      indices.map((r) => [r.SampleNumber, r.instrumentCode, r.Result, r.flags]),
      [
        ['44444411', '950', '51', ['^0^NQ']],
        ['44444411', '951', '5', ['^0^NQ']],
        ['44444411', '952', '56', ['^0^NQ']],
      ],
    );
  });

  it('Ortho VISION: R-3 is the analysis itself, R-4 the grouping; the card-well M records are no results', () => {
    const results = resultsOf('ortho-vision-result.txt');
    assert.deepEqual(
      results.map((r) => [r.SampleNumber, r.instrumentCode, r.Result, r.flags, r.status, r.completedAt, r.record]),
      [
        ['SID101', 'ABO', 'A', ['T'], 'F', '2024-03-07T14:12:36.000Z', 4],
        ['SID101', 'Rh', 'NEG', ['T'], 'F', '2024-03-07T14:12:36.000Z', 8],
      ],
    );
    const intro = resultsOf('ortho-vision-result-abo-rh.txt');
    assert.deepEqual(
      intro.map((r) => [r.SampleNumber, r.instrumentCode, r.Result, r.units, r.flags, r.status, r.completedAtRaw, r.patientId]),
      [
        ['SID305', 'ABO', 'B', undefined, undefined, 'R', '20210309142229', 'PID123456'],
        ['SID305', 'Rh', 'POS', undefined, undefined, 'R', '20210309142229', 'PID123456'],
      ],
    );
  });

  it('Ortho VISION specification examples: results, a crossmatch flagged twice, two samples in O-3 refused', () => {
    const name = 'ortho-vision-test-cases.json';
    assert.equal(messagesOf(name).length, 8);
    assert.deepEqual(types(eventsOf(name, 0)), ['other'], 'the keep-alive: an H and an L');
    const noTrailing = resultsOf(name, 4);
    assert.deepEqual(
      noTrailing.map((r) => [r.SampleNumber, r.instrumentCode, r.Result, r.status, r.completedAtRaw, r.record]),
      [
        ['SID305', 'ABO', 'A', 'R', '20210303211641', 4],
        ['SID305', 'Rh', 'NEG', 'R', '20210303211641', 7],
      ],
    );
    const xm = one(eventsOf(name, 6), 'results');
    assert.deepEqual(xm.results.map((r) => [r.SampleNumber, r.instrumentCode, r.Result, r.record]), [
      ['SID101', 'XM', 'CMP', 4],
      ['SID101', 'XM', 'INCMP', 6],
    ]);
    assert.deepEqual(xm.problems, ['R records 4 and 6 both report test XM for sample SID101 under O record 3']);
    const two = eventsOf(name, 7);
    assert.deepEqual(types(two), ['unassigned']);
    const items = one(two, 'unassigned').items;
    assert.deepEqual(items.map((i) => i.record), [4, 7, 9]);
    assert.match(items[0]?.reason ?? '', /O-3 \(specimenId\) of O record 3 holds 2 repeats/);
  });

  it('Roche cobas c 111: O-3 is empty, the sample is component 1 of O-4, spaces kept inside', () => {
    const [alb] = resultsOf('roche-c111-result.txt');
    assert.deepEqual(alb, {
      SampleNumber: 'T20 10134GA D28',
      instrumentCode: '413',
      Result: '40.13',
      units: 'g/L',
      flags: ['N'],
      status: 'F',
      completedAtRaw: '20230803131700',
      completedAt: '2023-08-03T11:17:00.000Z',
      sequence: { patient: 1, order: 1, result: 1 },
      record: 4,
    });
  });

  it('Bio-Rad IH-Com: reaction grades and the blood group kept whole, R-12 the time', () => {
    const results = resultsOf('biorad-ihcom-bloodtype-result.txt');
    assert.deepEqual(
      results.map((r) => [r.SampleNumber, r.instrumentCode, r.Result, r.units, r.status, r.completedAt]),
      [
        ['1122206642', 'AntiA', '40^^', 'C', 'R', '2022-03-11T10:41:03.000Z'],
        ['1122206642', 'AntiB', '0^^', 'C', 'R', '2022-03-11T10:41:03.000Z'],
        ['1122206642', 'AntiD', '0^^', 'C', 'R', '2022-03-11T10:41:03.000Z'],
        ['1122206642', 'Result', 'A^NEG^NEG^ccee^K-^NEG^^^', 'C', 'S', '2022-03-11T10:41:03.000Z'],
      ],
    );
    assert.equal(results[0]?.flags, undefined);
    assert.equal(results[0]?.patientId, '1010868845');
  });
});

describe('queries', () => {
  it('Roche cobas e 411 capture: sample from Q-3 component 3; Q-13 "A" is a cancel', () => {
    const q = one(eventsOf('roche-e411-query.txt'), 'query');
    assert.equal(q.cancel, true);
    assert.equal(q.sender, 'cobas-e411^1');
    assert.deepEqual(q.samples, [{ sampleNumber: '0000000387', instrumentTests: [], range: ['', '', '0000000387', '587', '0', '2', '', 'S1', 'SC'], record: 2 }]);
  });

  it('Roche cobas e 411 manual (Elecsys type): query and cancel, sample from component 2', () => {
    const q = one(eventsOf('roche-e411-query-manual.txt'), 'query');
    assert.equal(q.cancel, false);
    assert.deepEqual(q.samples, [{ sampleNumber: '000004', instrumentTests: [], range: ['', '000004', '40', '0', '5', '', 'SAMPLE', 'NORMAL'], record: 2 }]);
    const c = one(eventsOf('roche-e411-query-cancel-manual.txt'), 'query');
    assert.equal(c.cancel, true);
    assert.equal(c.samples[0]?.sampleNumber, '000004');
  });

  it('reading a cobas-type query with the Elecsys-type profile finds no sample rather than a wrong one', () => {
    const events = eventsOf('roche-e411-query.txt', 0, getProfile('roche-cobas-e411-elecsys'));
    assert.deepEqual(types(events), ['other']);
    assert.match((events[0] as { reason: string }).reason, /names no sample at component 2/);
  });

  it('ERBA EM 200: one tube, and two tubes as repeats of Q-3', () => {
    assert.deepEqual(one(eventsOf('erba-em200-query.txt'), 'query').samples.map((s) => s.sampleNumber), ['010520182']);
    const two = one(eventsOf('erba-em200-query-multitube.txt'), 'query');
    assert.equal(two.cancel, false);
    assert.deepEqual(two.samples.map((s) => [s.sampleNumber, s.instrumentTests, s.record]), [
      ['0000000406', [], 2],
      ['00001001', [], 2],
    ]);
  });

  it('Immucor NEO: five Q records, one event, specimen in Q-3 component 1', () => {
    const q = one(eventsOf('immucor-neo-query.txt'), 'query');
    assert.equal(q.sender, 'RVT');
    assert.deepEqual(q.samples.map((s) => [s.sampleNumber, s.instrumentTests, s.record]), [
      ['VALI200301', [], 2],
      ['VALI200302', [], 3],
      ['VALI200303', [], 4],
      ['VALI200304', [], 5],
      ['VALI200305', [], 6],
    ]);
  });

  it('Mindray CL-2000i: bar code in Q-3 component 2, also inside the session trace', () => {
    const q = one(eventsOf('mindray-cl2000i-query.txt'), 'query');
    assert.deepEqual([q.cancel, q.samples.map((s) => s.sampleNumber)], [false, ['SAMPLE123']]);
    const trace = messagesOf('mindray-cl2000i-session-trace.txt').map((m) => types(toLabEvents(m, profileOf('mindray-cl2000i-session-trace.txt'), { timeZone: SITE })));
    assert.deepEqual(trace, [['results'], ['results'], ['query'], ['query'], ['other'], ['other']]);
  });

  it('SNIBE MAGLUMI 600 manual example: the query after the bar code is read, sample at Q-3 component 2', () => {
    const q = one(eventsOf('snibe-maglumi-600-query-manual.txt'), 'query');
    assert.deepEqual([q.sender, q.cancel, q.samples], ['Maglumi 600', false, [{ sampleNumber: '1234567', instrumentTests: [], range: ['', '1234567'], record: 2 }]]);
  });

  it('Siemens IMMULITE: the DPC query example, sample at component 2 of Q-3', () => {
    const q = one(eventsOf('siemens-immulite-query.txt'), 'query');
    assert.equal(q.sender, 'DPC');
    assert.deepEqual([q.cancel, q.samples], [false, [{ sampleNumber: '123ABC', instrumentTests: [], range: ['', '123ABC'], record: 2 }]]);
  });

  it('Ortho VISION: the specification\'s two queries, one sample each at Q-3 component 2', () => {
    const name = 'ortho-vision-test-cases.json';
    assert.deepEqual(
      [1, 2].map((i) => one(eventsOf(name, i), 'query').samples.map((s) => [s.sampleNumber, s.instrumentTests, s.record])),
      [[['SID107', [], 2]], [['=W13131200096100', [], 2]]],
    );
  });

  it('Ortho VITROS 3600: a query and, ten seconds later, its cancel (Q-13 "A")', () => {
    const q = one(eventsOf('ortho-vitros-3600-query.txt'), 'query');
    assert.deepEqual([q.sender, q.cancel, q.samples.map((s) => [s.sampleNumber, s.instrumentTests, s.record])], ['3600796', false, [['1068687', [], 2]]]);
    const c = one(eventsOf('ortho-vitros-3600-query-cancel.txt'), 'query');
    assert.deepEqual([c.cancel, c.samples.map((s) => s.sampleNumber)], [true, ['1068687']]);
  });

  it('names the tests asked for in Q-5, through the profile\'s test-code rule', () => {
    const message = decodeMessage('H|\\^&\rQ|1|^S-1||^^^GLU\\^^^CRE||||||||O\rQ|2|^S-2||ALL||||||||O\rL|1|N\r');
    const q = one(toLabEvents(message, GENERIC_LIS2A2, { timeZone: SITE }), 'query');
    assert.deepEqual(q.samples.map((s) => [s.sampleNumber, s.instrumentTests]), [
      ['S-1', ['GLU', 'CRE']],
      ['S-2', []],
    ]);
  });
});

describe('QC, kept apart from patient results', () => {
  it('HORIBA Yumizen H500 and H550: H-12 "Q" and O-16 CTRL make the whole run QC', () => {
    const h500 = eventsOf('horiba-yumizen-h500-qc-result.txt');
    assert.deepEqual(types(h500), ['qc']);
    const qc = one(h500, 'qc');
    assert.equal(qc.results.length, 21);
    const mcv = resultFor(qc.results, 'MCV');
    assert.deepEqual([mcv.SampleNumber, mcv.Result, mcv.units, mcv.referenceRange, mcv.completedAt], ['PX440N', '90.6', 'um3', '84.0 - 94.0^REFERENCE_RANGE', '2023-03-29T09:06:31.000Z']);
    assert.deepEqual(mcv.orderComments, ['CONTROL_FAILED^^PLT_ABOVE_TOLERANCE', 'ABXdifftrol N']);
    const h550 = eventsOf('horiba-yumizen-h550-qc-result.txt');
    assert.deepEqual(types(h550), ['qc']);
    assert.equal(one(h550, 'qc').results.length, 20);
    // Even read with the generic profile, H-12 'Q' keeps the run out of patient results.
    assert.deepEqual(types(eventsOf('horiba-yumizen-h500-qc-result.txt', 0, GENERIC_LIS2A2)), ['qc']);
  });

  it('Mindray CL-2000i: QC values from the O-12 repeats, one result per control', () => {
    const events = eventsOf('mindray-cl2000i-qc-result.txt');
    assert.deepEqual(types(events), ['qc']);
    const qc = one(events, 'qc');
    assert.deepEqual(
      qc.results.map((r) => [r.SampleNumber, r.instrumentCode, r.Result, r.control?.lot, r.control?.level, r.control?.mean, r.control?.sd]),
      [
        ['QC1', '1', '10.28', '1111', 'M', '10', '5'],
        ['QC2', '1', '20.48', '2222', 'M', '20', '10'],
        ['QC3', '1', '30.25', '3333', 'M', '30', '15'],
      ],
    );
  });

  it('Mindray BS-240: 43 QC transfers (H-12 "QR"), the control value from O-12 and the code from O-5', () => {
    const messages = messagesOf('mindray-bs240-qc-log.txt');
    assert.equal(messages.length, 43);
    const all = messages.map((m) => toLabEvents(m, profileOf('mindray-bs240-qc-log.txt'), { timeZone: SITE }));
    assert.ok(all.every((events) => events.length === 1 && events[0]?.type === 'qc'), 'every transfer is QC, none a patient result');
    const first = one(all[0] ?? [], 'qc');
    assert.equal(first.sender, 'Mindry^^');
    assert.deepEqual(first.results, [
      {
        SampleNumber: 'MLT cntrl1',
        instrumentCode: 'P',
        Result: '4.926913',
        control: { id: '1', name: 'MLT cntrl1', lot: '059325001', level: 'M', expiry: '20270201', mean: '4.220000', sd: '0.220000' },
        sequence: { patient: 517, order: 517, result: 1 },
        record: 3,
      },
    ]);
    const last = one(all[42] ?? [], 'qc').results[0];
    assert.deepEqual([last?.SampleNumber, last?.instrumentCode, last?.Result, last?.control?.lot, last?.control?.mean], ['mlt cntrl2', 'UREA', '163.413921', '059425004', '123.000000']);
  });

  it('Sysmex XN-550 QC session: O-12 "Q" marks it', () => {
    const events = eventsOf('sysmex-xn550-result-framed-session.txt');
    assert.deepEqual(types(events), ['qc']);
    const qc = one(events, 'qc');
    assert.equal(qc.results.length, 33);
    assert.ok(qc.results.every((r) => r.SampleNumber === 'QC-82151403'));
    assert.equal(resultFor(qc.results, 'WBC').Result, '16.74');
  });

  it('splits a message holding patient and QC orders into two events', () => {
    const message = decodeMessage('H|\\^&\rP|1\rO|1|S-1||^^^GLU|R||||||N\rR|1|^^^GLU|5.2\rO|2|CTRL-A||^^^GLU|R||||||Q\rR|1|^^^GLU|4.9\rL|1|N\r');
    const events = toLabEvents(message, GENERIC_LIS2A2, { timeZone: SITE });
    assert.deepEqual(types(events), ['results', 'qc']);
    assert.deepEqual(one(events, 'results').results.map((r) => [r.SampleNumber, r.Result]), [['S-1', '5.2']]);
    assert.deepEqual(one(events, 'qc').results.map((r) => [r.SampleNumber, r.Result]), [['CTRL-A', '4.9']]);
  });
});

describe('refusing to guess', () => {
  const read = (text: string, profile: DialectProfile = GENERIC_LIS2A2) => toLabEvents(decodeMessage(text), profile, { timeZone: SITE });

  it('an R record with no O before it is unassigned', () => {
    const events = read('H|\\^&\rP|1\rR|1|^^^GLU|5.2\rL|1|N\r');
    assert.deepEqual(types(events), ['unassigned']);
    const [item] = one(events, 'unassigned').items;
    assert.equal(item?.record, 3);
    assert.match(item?.reason ?? '', /no O record before it/);
    assert.equal(item?.text, 'R|1|^^^GLU|5.2');
  });

  it('an O without a sample number makes its R records unassigned, not the previous sample\'s', () => {
    const events = read('H|\\^&\rP|1\rO|1|S-1||^^^A\rR|1|^^^A|1\rO|2|||^^^B\rR|1|^^^B|2\rC|1|I|late note|G\rL|1|N\r');
    assert.deepEqual(types(events), ['results', 'unassigned']);
    const [a] = one(events, 'results').results;
    assert.deepEqual([a?.SampleNumber, a?.instrumentCode, a?.comments], ['S-1', 'A', undefined], 'the C after the unassigned R is not attached to result A');
    const [item] = one(events, 'unassigned').items;
    assert.match(item?.reason ?? '', /O-3 \(specimenId\) of O record 5 has no sample number/);
    assert.deepEqual(item?.comments, ['late note'], 'the comment stays with the R it follows');
  });

  it('the generic profile refuses an O-3 with components (cobas c 311, Mindray, Pentra)', () => {
    for (const name of ['roche-c311-result.txt', 'mindray-cl2000i-result.txt', 'horiba-pentra-xlr-result.txt', 'phadia-immunocap-result.txt']) {
      const events = eventsOf(name, 0, GENERIC_LIS2A2);
      assert.deepEqual(types(events), ['unassigned'], name);
      assert.match(one(events, 'unassigned').items[0]?.reason ?? '', /has components/, name);
    }
  });

  it('the generic profile finds no sample in the cobas c 111\'s empty O-3, where its own profile reads O-4', () => {
    const events = eventsOf('roche-c111-result.txt', 0, GENERIC_LIS2A2);
    assert.deepEqual(types(events), ['unassigned']);
    assert.match(one(events, 'unassigned').items[0]?.reason ?? '', /O-3 \(specimenId\) of O record 3 has no sample number/);
  });

  it('Mindray BS-240 calculated items have no code at R-3 component 1: filed under their name at component 2; with neither, unassigned', () => {
    const message = decodeMessage('H|\\^&|||Mindry^^|||||||PR|1394-97|20250701173105\rP|1\rO|1|8^^|S-1|CREAS^Creatinine^^\rR|1|CREAS^Creatinine^^F|1.02^^^^|mg/dL|^|N||F|1.02^^^^|0|20250701154254||Mindry^\rR|2|^Glo^^F|26.6^^^^|g/L|^|N||F|26.6^^^^||||Mindry^\rR|3|^^^F|1.5^^^^||^|N||F|1.5^^^^||||Mindry^\rL|1|N\r');
    const events = toLabEvents(message, getProfile('mindray-bs'), { timeZone: SITE });
    assert.deepEqual(types(events), ['results', 'unassigned']);
    assert.deepEqual(one(events, 'results').results.map((r) => [r.SampleNumber, r.instrumentCode, r.Result, r.rawResult, r.completedAtRaw]), [
      ['S-1', 'CREAS', '1.02', '1.02^^^^', '20250701154254'],
      ['S-1', 'Glo', '26.6', '26.6^^^^', undefined],
    ]);
    assert.match(one(events, 'unassigned').items[0]?.reason ?? '', /R record 6 has no instrument test code at components 1 or 2/);
  });

  it('a sample field with repeats is refused: one result cannot belong to two samples', () => {
    const events = read('H|\\^&\rP|1\rO|1|S-1\\S-2||^^^A\rR|1|^^^A|1\rL|1|N\r');
    assert.match(one(events, 'unassigned').items[0]?.reason ?? '', /2 repeats/);
  });

  it('an R record with no test code where the profile looks is unassigned', () => {
    const events = read('H|\\^&\rP|1\rO|1|S-1||^^^A\rR|1|GLU|1\rL|1|N\r');
    assert.match(one(events, 'unassigned').items[0]?.reason ?? '', /no instrument test code at component 4/);
  });

  it('flags a test reported twice under one order', () => {
    const events = read('H|\\^&\rP|1\rO|1|S-1||^^^A\rR|1|^^^A|1\rR|2|^^^A|2\rL|1|N\r');
    const ev = one(events, 'results');
    assert.equal(ev.results.length, 2);
    assert.deepEqual(ev.problems, ['R records 4 and 5 both report test A for sample S-1 under O record 3']);
  });

  it('keeps an unreadable completion time as text and says so', () => {
    const ev = one(read('H|\\^&\rP|1\rO|1|S-1||^^^A\rR|1|^^^A|1|||||F||||20251341\rL|1|N\r'), 'results');
    assert.equal(ev.results[0]?.completedAt, undefined);
    assert.equal(ev.results[0]?.completedAtRaw, '20251341');
    assert.match(ev.problems[0] ?? '', /R-13 \(completedAt\) "20251341" is not a usable time/);
  });

  it('changes values only as the profile says', () => {
    const [r] = one(read('H|\\^&\rP|1\rO|1|S-1||^^^A\rR|1|^^^A| 7,41 \rL|1|N\r'), 'results').results;
    assert.equal(r?.Result, ' 7,41 ');
    assert.equal(r?.rawResult, undefined);
  });

  it('reads the analyzer clock in the profile\'s zone when it has one, else the site\'s', () => {
    const text = 'H|\\^&\rP|1\rO|1|S-1||^^^A\rR|1|^^^A|1|||||F||||20250101120000\rL|1|N\r';
    assert.equal(one(read(text), 'results').results[0]?.completedAt, '2025-01-01T11:00:00.000Z');
    assert.equal(one(read(text, { ...GENERIC_LIS2A2, timeZone: 'UTC' }), 'results').results[0]?.completedAt, '2025-01-01T12:00:00.000Z');
  });

  it('throws on configuration errors: an unknown zone', () => {
    assert.throws(() => toLabEvents(decodeMessage('H|\\^&\rL|1|N\r'), GENERIC_LIS2A2, { timeZone: 'Nowhere/Town' }), RangeError);
  });

  it('passes other messages through as "other" with a reason', () => {
    assert.match((one(eventsOf('immucor-galileo-order.txt'), 'other')).reason, /order records without results/);
    assert.match((one(eventsOf('roche-e411-order-download-no-order-manual.txt'), 'other')).reason, /O-26 "Z"/);
    assert.match((one(eventsOf('mindray-cl2000i-query-answer-notfound.txt'), 'other')).reason, /no information/);
    const noQueries = eventsOf('immucor-neo-query.txt', 0, getProfile('horiba-pentra'));
    assert.deepEqual(types(noQueries), ['other', 'other', 'other', 'other', 'other']);
    assert.match((noQueries[0] as { reason: string }).reason, /Q record 2: profile horiba-pentra reads no host queries/);
  });
  it('says what each other event is in its kind', () => {
    const kinds = (events: readonly LabEvent[]) => events.map((e) => (e.type === 'other' ? e.kind : e.type));
    assert.deepEqual(kinds(eventsOf('immucor-galileo-order.txt')), ['order-message']);
    assert.deepEqual(kinds(eventsOf('mindray-cl2000i-query-answer-notfound.txt')), ['empty-message']);
    assert.deepEqual(kinds(eventsOf('immucor-neo-query.txt', 0, getProfile('horiba-pentra'))), Array(5).fill('unsupported-query'));
    assert.deepEqual(kinds(toLabEvents(decodeMessage('H|\\^&\rL|1|N\r'), GENERIC_LIS2A2, { timeZone: 'UTC' })), ['empty-message']);
    assert.deepEqual(kinds(toLabEvents(decodeMessage('H|\\^&\rQ|1\rL|1|N\r'), GENERIC_LIS2A2, { timeZone: 'UTC' })), ['unreadable-query']);
  });
});
