/**
 * The record codec against every ASTM fixture: the loader's reading of each
 * file, exact round trips of every message, and values read by eye from the
 * fixtures, at least one message per vendor.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  FIXTURES,
  fixtureFiles,
  fixtureMessages,
  fixtureText,
  checksumExpected,
  loadAllFixtures,
  loadFixture,
  readFrames,
  type Fixture,
  type Vendor,
} from '../support/fixtures';
import { ACK, LF, STX } from '../../lib/protocols/astm/control';
import {
  component,
  decodeMessage,
  encodeMessage,
  type AstmMessage,
  type AstmRecord,
  type CommentRecord,
  type HeaderRecord,
  type ManufacturerRecord,
  type OrderRecord,
  type PatientRecord,
  type QueryRecord,
  type ResultRecord,
  type TerminatorRecord,
} from '../../lib/protocols/astm/records';

const all = loadAllFixtures();

function decoded(name: string, index = 0): AstmMessage {
  const text = fixtureMessages(loadFixture(name))[index];
  assert.ok(text !== undefined, `${name} has no message ${index + 1}`);
  return decodeMessage(text);
}

function ofType<T extends AstmRecord['type']>(message: AstmMessage, type: T): Extract<AstmRecord, { type: T }>[] {
  return message.records.filter((r): r is Extract<AstmRecord, { type: T }> => r.type === type);
}

function first<T extends AstmRecord['type']>(message: AstmMessage, type: T): Extract<AstmRecord, { type: T }> {
  const found = ofType(message, type)[0];
  assert.ok(found !== undefined, `no ${type} record`);
  return found;
}

function results(message: AstmMessage): ResultRecord[] {
  return ofType(message, 'R');
}

/** The R record whose test ID has `code` at component `position`. */
function resultFor(message: AstmMessage, code: string, position: number): ResultRecord {
  const found = results(message).find((r) => component(r.universalTestId, position) === code);
  assert.ok(found !== undefined, `no result for ${code}`);
  return found;
}

describe('ASTM fixture loader', () => {
  it('has a table entry for every file in the folder, and a file for every entry', () => {
    assert.deepEqual(fixtureFiles(), Object.keys(FIXTURES).sort());
  });

  it('covers the sixteen vendors', () => {
    const vendors = new Set(Object.values(FIXTURES).map((f) => f.vendor));
    const expected: Vendor[] = ['Abbott', 'Beckman Coulter', 'Bio-Rad', 'Cepheid', 'ERBA', 'EUROIMMUN', 'Hologic', 'HORIBA', 'Immucor', 'Mindray', 'Ortho', 'Phadia', 'Quidel', 'Roche', 'Siemens', 'SNIBE', 'Stago', 'Sysmex'];
    assert.deepEqual([...vendors].sort(), [...expected].sort());
  });

  it('reads the JSON byte arrays into the same bytes as the decoded files', () => {
    const pairs = Object.entries(FIXTURES).filter(([, spec]) => spec.decodedFrom !== undefined);
    assert.equal(pairs.length, 3);
    for (const [name, spec] of pairs) assert.ok(loadFixture(name).bytes.equals(loadFixture(spec.decodedFrom ?? '').bytes), name);
  });

  it('gives framed fixtures whose every checksum is right (as LIS1-A makes it, as the table says the analyzer does, or over the text of a slip the table names)', () => {
    for (const fixture of all.filter((f) => f.framing === 'framed')) {
      const frames = readFrames(fixture.bytes);
      assert.ok(frames.length > 0, fixture.name);
      for (const [n, frame] of frames.entries()) {
        assert.equal(frame.checksum, checksumExpected(fixture, frame, n + 1), `${fixture.name} frame ${n + 1}`);
      }
    }
  });

  it('gives record texts with CR only, ending in CR, starting with an H record', () => {
    for (const fixture of all) {
      const text = fixtureText(fixture);
      assert.ok(!text.includes('\n'), `${fixture.name} holds an LF`);
      assert.ok(text.endsWith('\r'), `${fixture.name} does not end with CR`);
      assert.match(text, /^H[|]/, fixture.name);
    }
  });

  it('undoes the logged CR-to-LF conversion and the leading ACKs of the ERBA and e 411 captures', () => {
    for (const name of ['erba-em200-query-multitube.txt', 'erba-em200-query.txt', 'erba-em200-result-session.txt', 'roche-e411-query.txt', 'roche-e411-query-unknown-sample.txt']) {
      const fixture = loadFixture(name);
      assert.ok(fixture.file.includes(LF), name);
      assert.notEqual(fixture.bytes[0], ACK, name);
      for (const frame of readFrames(fixture.bytes)) assert.ok(!frame.text.includes('\n'), name);
    }
    assert.equal(loadFixture('erba-em200-query-multitube.txt').bytes[0], STX);
    assert.ok(!loadFixture('roche-e411-query-unknown-sample.txt').bytes.includes(0xef));
    assert.equal(readFrames(loadFixture('sysmex-xn550-result-framed-session.txt').bytes).length, 40);
  });

  it('unwraps the manuals and reads their tokens', () => {
    const order = fixtureText(loadFixture('roche-e411-order-download-manual.txt')).split('\r');
    assert.deepEqual(order, ['H|\\^&||||||||||P||', 'P|1', 'O|1|000004|40^0^5^^SAMPLE^NORMAL|^^^10^\\^^^30^2\\^^^40^|R||||||N||||||||||||||Q', 'L|1|', '']);
    const trace = loadFixture('mindray-cl2000i-session-trace.txt');
    assert.equal(fixtureMessages(trace).length, 6);
    assert.deepEqual(new Set(trace.turns?.map((t) => t.from)), new Set(['instrument', 'host']));
    assert.deepEqual(
      readFrames(trace.bytes).map((f) => f.number).join(''),
      '1' + '12345678' + '1' + '123' + '1' + '1234',
    );
  });

  it('takes out the comment lines, the frame-number digits and the doubled backslashes', () => {
    assert.match(fixtureText(loadFixture('phadia-immunocap-result.txt')), /^H\|\\\^&\|\|\|Phadia/);
    assert.match(fixtureText(loadFixture('horiba-pentra60-result-log.txt')), /^H\|\\\^&\|\|\|ABX\|/);
    const h550 = fixtureText(loadFixture('horiba-yumizen-h550-qc-result.txt'));
    assert.match(h550, /^H\|\\\^&\|\|\|H550/);
    assert.ok(!h550.includes('\\\\'));
  });
});

describe('every fixture message', () => {
  const cases = all.flatMap((fixture: Fixture) => fixtureMessages(fixture).map((text, i) => ({ fixture, text, label: `${fixture.name} #${i + 1}` })));

  it('decodes, and encodes back to the identical text', () => {
    assert.ok(cases.length >= 60);
    for (const { text, label } of cases) assert.equal(encodeMessage(decodeMessage(text)), text, label);
  });

  it('decodes again to the same object after encoding', () => {
    for (const { text, label } of cases) {
      const message = decodeMessage(text);
      assert.deepEqual(decodeMessage(encodeMessage(message)), message, label);
      assert.deepEqual(decodeMessage(encodeMessage(JSON.parse(JSON.stringify(message)) as AstmMessage)), message, `${label} via JSON`);
    }
  });

  it('needs no verbatim copy and no raw record: every record is standard and canonical, but the known ones', () => {
    // Records that hold the escape character unescaped: read as text (escape.ts
    // keeps a lone escape character), written back exactly as they came.
    const known: Readonly<Record<string, string>> = {
      // The VISION profile name `Type && Screen` in O-5.
      'ortho-vision-test-cases.json #8': 'O|1|SID303\\SID304||Type && Screen|N|20210304152221|||||||||PACKEDCELLS\\PLASMA|||||||20210304152459|||F|||||',
    };
    const verbatim: Record<string, string> = {};
    for (const { text, label } of cases) {
      for (const record of decodeMessage(text).records) {
        assert.notEqual(record.type, 'raw', label);
        if (record.type !== 'raw' && record.verbatim !== undefined) verbatim[label] = record.verbatim;
      }
    }
    assert.deepEqual(verbatim, known);
  });

  it('starts with an H record', () => {
    for (const { text, label } of cases) assert.equal(decodeMessage(text).records[0]?.type, 'H', label);
  });
});

describe('values by vendor', () => {
  it('Roche cobas c 311: padded sample ID, Roche test codes, flags and comments', () => {
    const m = decoded('roche-c311-result.txt');
    const h: HeaderRecord = first(m, 'H');
    assert.deepEqual(h.senderId, ['c311', '1']);
    assert.equal(h.receiverId, 'host');
    assert.deepEqual(h.comments, ['RSUPL', 'REAL']);
    assert.equal(h.processingId, 'P');
    assert.equal(h.version, '1');
    assert.equal(h.timestamp, undefined, 'the c 311 H record stops at field 13');
    const o: OrderRecord = first(m, 'O');
    assert.deepEqual(o.specimenId, ['11625', 'CL-PL-24-0370         ', '1', '', '004']);
    assert.equal(o.instrumentSpecimenId, 'R1');
    assert.equal(o.resultedAt, '20240203132011');
    assert.equal(o.reportType, 'F');
    assert.deepEqual(
      (o.universalTestId as string[][]).map((t) => t[3]),
      ['685/', '687/', '712/', '158/', '735/', '717/', '690/'],
    );
    const alt = resultFor(m, '685/', 4);
    assert.equal(alt.value, '22.4');
    assert.equal(alt.units, 'U/l');
    assert.equal(alt.abnormalFlags, 'A');
    assert.equal(alt.resultStatus, 'F');
    assert.equal(alt.instrumentId, 'P1');
    const crea = resultFor(m, '712/', 4);
    assert.deepEqual([crea.value, crea.units, crea.abnormalFlags], ['4.1', 'umol/l', 'L']);
    const c: CommentRecord = first(m, 'C');
    assert.deepEqual([c.source, c.text, c.commentType], ['I', '43', 'I']);
    assert.equal(first(m, 'L').terminationCode, 'N');
  });

  it('Roche cobas e 411: a record split across 240-character frames, interpretation^COI values', () => {
    const m = decoded('roche-e411-result-multiframe.txt');
    const o: OrderRecord = first(m, 'O');
    assert.equal(o.specimenId, '000002327');
    assert.deepEqual(o.instrumentSpecimenId, ['159', '0', '1', '', 'S1', 'SC']);
    const t4 = resultFor(m, '7/1/not', 4);
    assert.deepEqual([t4.sequence, t4.value, t4.units, t4.abnormalFlags], ['2', '9.61', 'ug/dl', 'N']);
    assert.deepEqual(resultFor(m, '5/1/not', 4).value, ['-1', '0.282']);
    assert.equal(resultFor(m, '5/1/not', 4).units, 'COI');
    const low = resultFor(m, '3/1/not', 4);
    assert.deepEqual([low.value, low.units, low.abnormalFlags], ['<3.00', 'ng/ml', 'LL']);
    assert.equal(resultFor(m, '1/1/not', 4).value, '141.3');
    assert.equal(results(m).length, 7);
  });

  it('Roche cobas e 411: host query and the manual\'s order download', () => {
    const q: QueryRecord = first(decoded('roche-e411-query.txt'), 'Q');
    assert.deepEqual(q.startingRange, ['', '', '0000000387', '587', '0', '2', '', 'S1', 'SC']);
    assert.equal(q.universalTestId, 'ALL');
    assert.equal(q.statusCode, 'A');
    assert.deepEqual(first(decoded('roche-e411-query.txt'), 'H').comments, ['TSREQ', 'REAL']);
    assert.equal(first(decoded('roche-e411-query-manual.txt'), 'Q').statusCode, 'O');
    assert.equal(first(decoded('roche-e411-query-cancel-manual.txt'), 'Q').statusCode, 'A');
    const order: OrderRecord = first(decoded('roche-e411-order-download-manual.txt'), 'O');
    assert.equal(order.specimenId, '000004');
    assert.deepEqual(order.instrumentSpecimenId, ['40', '0', '5', '', 'SAMPLE', 'NORMAL']);
    assert.deepEqual(order.universalTestId, [['', '', '', '10', ''], ['', '', '', '30', '2'], ['', '', '', '40', '']]);
    assert.deepEqual([order.priority, order.actionCode, order.reportType], ['R', 'N', 'Q']);
    const none: OrderRecord = first(decoded('roche-e411-order-download-no-order-manual.txt'), 'O');
    assert.deepEqual([none.universalTestId, none.reportType], ['', 'Z']);
  });

  it('Roche cobas c 111: one record per frame, an M record with repeats', () => {
    const m = decoded('roche-c111-result.txt');
    const o: OrderRecord = first(m, 'O');
    assert.deepEqual(o.instrumentSpecimenId, ['T20 10134GA D28', '', '6']);
    assert.equal(o.priority, 'S');
    const r: ResultRecord = first(m, 'R');
    assert.deepEqual([component(r.universalTestId, 4), r.value, r.units, r.abnormalFlags, r.resultStatus, r.operatorId, r.completedAt], ['413', '40.13', 'g/L', 'N', 'F', '$SYS$', '20230803131700']);
    const mr: ManufacturerRecord = first(m, 'M');
    assert.equal(mr.sequence, '1');
    assert.deepEqual(mr.fields[0], ['RR', 'BM', 'c111', '1']);
    assert.equal((mr.fields[2] as string[][]).length, 18);
    assert.equal(mr.fields[3], '0.018514');
  });

  it('Sysmex XN-550: padded sample number in O-4, flags, and &R& in image paths', () => {
    const m = decoded('sysmex-xn550-result.txt');
    const p: PatientRecord = first(m, 'P');
    assert.deepEqual([p.patientId3, p.name, p.birthdate, p.sex], ['37182', ['', 'Jim', 'Brown'], '19870626', 'M']);
    const o: OrderRecord = first(m, 'O');
    assert.deepEqual(o.instrumentSpecimenId, ['', '', '                    27', 'M']);
    assert.equal(component(o.instrumentSpecimenId, 3).trim(), '27');
    assert.equal((o.universalTestId as string[][]).length, 23);
    const wbc = resultFor(m, 'WBC', 5);
    assert.deepEqual(wbc.universalTestId, ['', '', '', '', 'WBC', '1']);
    assert.deepEqual([wbc.value, wbc.units, wbc.abnormalFlags, wbc.resultStatus, wbc.completedAt], ['8.13', '10*3/uL', 'N', 'F', '20240627135407']);
    assert.deepEqual([resultFor(m, 'EO%', 5).value, resultFor(m, 'EO%', 5).abnormalFlags], ['22.1', 'H']);
    assert.deepEqual([resultFor(m, 'HCT', 5).value, resultFor(m, 'HCT', 5).abnormalFlags], ['22.7', 'L']);
    assert.deepEqual([resultFor(m, 'Eosinophilia', 5).value, resultFor(m, 'Eosinophilia', 5).abnormalFlags], ['', 'A']);
    assert.equal(resultFor(m, 'SCAT_WDF', 5).value, 'PNG\\20240628\\2024_06_27_13_54_27_WDF.PNG');
    assert.equal(resultFor(m, 'DIST_PLT', 5).value, 'PNG\\20240628\\2024_06_27_13_54_27_PLT.PNG');
    assert.equal(results(m).length, 41);
  });

  it('Sysmex XP-100: space-padded values are kept as sent', () => {
    const m = decoded('sysmex-xp100-result.txt');
    assert.deepEqual(first(m, 'O').instrumentSpecimenId, ['', '', '            113', 'A']);
    const wbc = resultFor(m, 'WBC', 5);
    assert.equal(wbc.value, '  5.5');
    assert.equal(wbc.operatorId, ' '.repeat(15));
    assert.equal(wbc.completedAt, '20240723172452');
    assert.equal(resultFor(m, 'RBC', 5).value, ' 2.87');
    assert.deepEqual([resultFor(m, 'MCHC', 5).value, resultFor(m, 'MCHC', 5).abnormalFlags], [' 41.7', 'H']);
  });

  it('Sysmex XN-550 QC session: both records sent under frame number 2 are there', () => {
    const m = decoded('sysmex-xn550-result-framed-session.txt');
    assert.deepEqual(first(m, 'O').instrumentSpecimenId, ['1', '1', '           QC-82151403', 'B']);
    assert.equal(first(m, 'O').actionCode, 'Q');
    assert.deepEqual(
      results(m).filter((r) => r.sequence === '29').map((r) => [component(r.universalTestId, 5), r.value]),
      [
        ['SCAT_WDF', 'PNG\\20181106\\2018_11_06_09_35_QC-82151403_WDF.PNG'],
        ['HGB_WDF', '10.28'],
      ],
    );
  });

  it('HORIBA Pentra XLR: LOINC in the test ID, alarms in C records', () => {
    const m = decoded('horiba-pentra-xlr-result.txt');
    assert.deepEqual(first(m, 'P').name, ['Mohale', 'Rita']);
    assert.deepEqual(first(m, 'O').specimenId, ['S1234', '00', '00']);
    const wbc = resultFor(m, 'WBC', 4);
    assert.deepEqual(wbc.universalTestId, ['', '', '', 'WBC', '804-5', '1']);
    assert.deepEqual([wbc.value, wbc.units, wbc.resultStatus, wbc.operatorId, wbc.completedAt], ['8.5', '1', 'W', 'NNE NNEMT', '20220727121550']);
    const bas = resultFor(m, 'BAS#', 4);
    assert.deepEqual([bas.value, bas.abnormalFlags, bas.resultStatus], ['-----', 'HH', 'X']);
    assert.deepEqual(first(m, 'C').text, ['Alarm_WBC', 'LMNE-', 'BASO+', 'LL', 'NL', 'LN', 'NO', 'SL1']);
  });

  it('HORIBA Pentra 60 log: the garbled units are kept as they are', () => {
    const m = decoded('horiba-pentra60-result-log.txt');
    assert.deepEqual([first(m, 'O').specimenId, first(m, 'O').instrumentSpecimenId], ['17033680', '761']);
    const wbc = resultFor(m, 'WBC', 4);
    assert.deepEqual([wbc.value, wbc.units, wbc.abnormalFlags], ['10.1', '10)/mm)', 'H']);
    assert.deepEqual([resultFor(m, 'MCHC', 4).value, resultFor(m, 'MCHC', 4).abnormalFlags], ['31.4', 'LL']);
  });

  it('HORIBA Yumizen H500/H550: QC with reference ranges and base64 M records', () => {
    const m = decoded('horiba-yumizen-h500-qc-result.txt');
    const h: HeaderRecord = first(m, 'H');
    assert.deepEqual([h.processingId, h.version], ['Q', 'LIS2-A2']);
    assert.deepEqual(first(m, 'O').specimenId, 'PX440N');
    assert.deepEqual(first(m, 'O').specimenDescriptor, ['CTRL', '', 'CTRL MEDIUM']);
    const plt = resultFor(m, 'PLT', 4);
    assert.deepEqual([plt.value, plt.units, plt.referenceRange, plt.abnormalFlags], ['308', '10E3/uL', ['231 - 291', 'REFERENCE_RANGE'], 'N']);
    assert.deepEqual([plt.operatorId, plt.startedAt, plt.completedAt], [['MATYL', '', 'USER'], '20230329110631', '']);
    const histograms = ofType(m, 'M');
    assert.equal(histograms.length, 4);
    assert.equal(histograms[0]?.fields[0], 'HISTOGRAM');
    assert.ok(histograms.some((r) => JSON.stringify(r).length > 26000));
    const h550 = decoded('horiba-yumizen-h550-qc-result.txt');
    assert.deepEqual(first(h550, 'H').delimiters, { field: '|', repeat: '\\', component: '^', escape: '&' });
    assert.deepEqual(ofType(h550, 'M')[2]?.fields[1], [['CLEANER'], ['DILUENT'], ['LYSE']]);
  });

  it('Abbott ARCHITECT: five messages, three R records per assay, L without a code', () => {
    const texts = fixtureMessages(loadFixture('abbott-architect-i-result-multi.txt'));
    assert.equal(texts.length, 5);
    const m = decodeMessage(texts[0] ?? '');
    const o: OrderRecord = first(m, 'O');
    assert.deepEqual([o.specimenId, o.instrumentSpecimenId], ['276056250158121', ['276056250158121', 'U265', '1']]);
    const [f, i, p] = results(m);
    assert.deepEqual(f?.universalTestId, ['', '', '', '580', 'Anti-HBcII', 'UNDILUTED', 'P', '73294BE00', '02130', '', 'F']);
    assert.deepEqual([f?.value, f?.units, f?.resultStatus, f?.operatorId, f?.completedAt, f?.instrumentId], ['0.15', 'S/CO', 'R', ['ADMIN', 'ADMIN'], '20250613101844', 'i1SR52842']);
    assert.deepEqual([component(i?.universalTestId, 11), i?.value], ['I', 'Nonreactive']);
    assert.deepEqual([component(p?.universalTestId, 11), p?.value, p?.units], ['P', '1277', 'RLU']);
    const l: TerminatorRecord = first(m, 'L');
    assert.deepEqual(l, { type: 'L', sequence: '1' });
    assert.deepEqual(
      texts.map((t) => first(decodeMessage(t), 'O').specimenId),
      ['276056250158121', '70225954624I', 'AA5XVA2BT9', 'AA5XVA2BT9', 'CL5X1A30VH'],
    );
    const hbs = results(decodeMessage(texts[3] ?? ''));
    assert.deepEqual(hbs.map((r) => [component(r.universalTestId, 5), component(r.universalTestId, 11), r.value, r.units]), [
      ['Anti-HBs 3', 'F', '2.87', 'mIU/mL'],
      ['Anti-HBs 3', 'P', '3685', 'RLU'],
    ]);
  });

  it('Abbott m2000 and Afinion 2', () => {
    const framed = decoded('abbott-m2000-result-framed.txt');
    assert.deepEqual(first(framed, 'O').specimenId, 'DBS23-02212');
    assert.deepEqual([results(framed)[0]?.value, results(framed)[0]?.units], ['Not detected', 'Copies / mL']);
    assert.deepEqual([results(framed)[2]?.value, results(framed)[2]?.units], ['-1.00', 'cycle number']);
    const log = decoded('abbott-m2000-result.txt');
    assert.equal(results(log)[0]?.value, '< 839');
    assert.equal(ofType(log, 'L').length, 0);
    const afinion = decoded('abbott-afinion2-result.txt');
    assert.deepEqual([first(afinion, 'P').laboratoryPatientId, first(afinion, 'P').sex], ['3643', 'U']);
    assert.deepEqual([first(afinion, 'O').instrumentSpecimenId, first(afinion, 'O').universalTestId], ['5', ['', '', '', 'HbA1c']]);
    const a1c: ResultRecord = first(afinion, 'R');
    assert.deepEqual([a1c.value, a1c.units, a1c.resultStatus, a1c.operatorId, a1c.completedAt], ['5.9', '%', 'F', '3643', '20241206140615']);
  });

  it('Siemens DCA Vantage: albumin, creatinine and their ratio', () => {
    const m = decoded('siemens-dca-vantage-result.txt');
    assert.equal(first(m, 'P').practicePatientId, 'BU24R554');
    assert.deepEqual(first(m, 'O').instrumentSpecimenId, ['660', '0090']);
    const alb = resultFor(m, 'Alb', 4);
    assert.deepEqual([alb.value, alb.units, alb.resultStatus, alb.startedAt], ['63.7', 'mg/L', 'F', '20240820151030']);
    assert.deepEqual([resultFor(m, 'Crt', 4).value, resultFor(m, 'Crt', 4).units], ['230.8', 'mg/dL']);
    assert.deepEqual([resultFor(m, 'Ratio', 4).value, resultFor(m, 'Ratio', 4).units], ['27.6', 'mg/g']);
    assert.deepEqual(first(m, 'C').text, ['1.000', '0.0 mg/L']);
  });

  it('Stago STA Satellite Max: PT, INR and APTT with comment codes', () => {
    const m = decoded('stago-sta-satellite-max-result.txt');
    const orders = ofType(m, 'O');
    assert.deepEqual(orders.map((o) => [o.specimenId, o.instrumentSpecimenId]).slice(0, 3), [
      ['000004782', '226'],
      ['000004782', '227'],
      ['000004782', '651'],
    ]);
    const pt = resultFor(m, 'SPT', 4);
    assert.deepEqual(pt.universalTestId, ['', '', '', 'SPT', 'F', '64']);
    assert.deepEqual([pt.value, pt.units, pt.resultStatus, pt.operatorId, pt.completedAt], ['14.02', 'S', 'F', 'pathof', '20190622150404']);
    assert.deepEqual([resultFor(m, 'SINR', 4).value, resultFor(m, 'SINR', 4).units], ['1.02', 'INR ISI']);
    assert.equal(resultFor(m, 'SAPTT', 4).value, '31.93');
    const c: CommentRecord = first(m, 'C');
    assert.deepEqual([c.source, c.text, c.commentType], ['', ['36', 'Test Co 24 controls are invalid.'], 'I']);
    assert.deepEqual(first(m, 'M').fields, ['SPT', '', '', '', '', '', ['STA-NEO CI PLUS 5', '254169']]);
  });

  it('Cepheid GeneXpert: delimiters H|@^\\ and a result in components 2 and 4-7', () => {
    const m = decoded('cepheid-genexpert-result.txt');
    assert.deepEqual(m.delimiters, { field: '|', repeat: '@', component: '^', escape: '\\' });
    const h: HeaderRecord = first(m, 'H');
    assert.deepEqual([h.messageControlId, h.senderId, h.receiverId, h.processingId, h.version, h.timestamp], [
      'URM-8lT4abZA-06',
      ['.806149 Happy Hospital', 'GeneXpert', '4.8'],
      'HNH-SENAITE',
      'P',
      '1394-97',
      '20250516125515',
    ]);
    assert.deepEqual([first(m, 'O').specimenId, first(m, 'O').universalTestId, first(m, 'O').priority], ['PR25A137', ['', '', '', 'MTB-RIF'], 'R']);
    const mtb: ResultRecord = first(m, 'R');
    assert.deepEqual(mtb.universalTestId, ['', 'MTB-RIF', '', 'Xpert', 'Xpert MTB-RIF Ultra', '4', 'MTB', '']);
    assert.deepEqual([mtb.value, mtb.resultStatus, mtb.operatorId, mtb.startedAt, mtb.completedAt], [['NOT DETECTED', ''], 'F', 'John Doe', '20250514121638', '20250514132103']);
    assert.deepEqual(results(m)[2]?.value, ['', '0.0']);
    assert.equal(results(m).length, 84);
  });

  it('Mindray CL-2000i: message type in H-12, test code in component 1, QC in O-12', () => {
    const m = decoded('mindray-cl2000i-result.txt');
    assert.equal(first(m, 'H').processingId, 'PR');
    const p: PatientRecord = first(m, 'P');
    assert.deepEqual([p.laboratoryPatientId, p.name, p.birthdate, p.sex], ['PATIENT111', ['Smith', '', ''], ['19600315', '45', 'Y'], 'M']);
    const o: OrderRecord = first(m, 'O');
    assert.deepEqual([o.specimenId, o.instrumentSpecimenId, o.requestedAt, o.collectedAt, o.receivedAt, o.specimenDescriptor, o.reportType], [
      ['1', '', ''],
      'SAMPLE123',
      '20090910135300',
      '20090910125300',
      '20130715102431',
      'Urine',
      'F',
    ]);
    const ca125 = resultFor(m, 'CA125', 2);
    assert.deepEqual([ca125.value, ca125.units, ca125.abnormalFlags, ca125.resultStatus, ca125.completedAt], [['10000.000000', '', '', '', ''], 'U/mL', 'N', 'F', '']);
    assert.equal(ca125.startedAt, '20130715102938');
    assert.deepEqual(resultFor(m, 'TPSA', 2).value, ['5547.808063', '', '', '', '']);
    assert.deepEqual(first(decoded('mindray-cl2000i-query.txt'), 'Q').startingRange, ['', 'SAMPLE123']);
    assert.equal(first(decoded('mindray-cl2000i-query-answer-notfound.txt'), 'L').terminationCode, 'I');
    assert.equal(first(decoded('mindray-cl2000i-order-download.txt'), 'O').reportType, 'Q', 'the "stray Q" in test/fixtures/SOURCES.md is O-26 once the PDF wrap is undone');
    const qc = first(decoded('mindray-cl2000i-qc-result.txt'), 'O');
    assert.deepEqual(qc.universalTestId, ['1', 'CA125']);
    assert.deepEqual((qc.actionCode as string[][]).map((r) => [r[1], r[7]]), [
      ['QC1', '10.28'],
      ['QC2', '20.48'],
      ['QC3', '30.25'],
    ]);
    const trace = fixtureMessages(loadFixture('mindray-cl2000i-session-trace.txt')).map((t) => decodeMessage(t));
    assert.deepEqual(trace.map((t) => first(t, 'H').processingId), ['PR', 'PR', 'RQ', 'RQ', 'SA', 'SA']);
    assert.deepEqual(trace[0]?.records, trace[1]?.records, 'one frame or one frame per record: same message');
  });

  it('Bio-Rad IH-Com: blood group, repeats in O-4 and C-3, fields past R-14 kept as extra', () => {
    const m = decoded('biorad-ihcom-bloodtype-result.txt');
    const h: HeaderRecord = first(m, 'H');
    assert.deepEqual([h.senderId, h.senderAddress, h.timestamp], ['Bio-Rad', 'IH v5.2', '20220315194227']);
    const p: PatientRecord = first(m, 'P');
    assert.deepEqual([p.laboratoryPatientId, p.name, p.birthdate, p.sex], ['1010868845', ['Testus', 'Test'], '19400607', 'M']);
    const o: OrderRecord = first(m, 'O');
    assert.deepEqual([o.specimenId, o.instrumentSpecimenId], ['1122206642', [['1122206642', '', '', ''], ['1122206642', '', '', '']]]);
    const antiA = resultFor(m, 'AntiA', 4);
    assert.deepEqual([antiA.value, antiA.units, antiA.resultStatus, antiA.operatorId, antiA.startedAt, antiA.instrumentId], [['40', '', ''], 'C', 'R', ['lalina', ''], '20220311114103', '11']);
    assert.deepEqual(antiA.extra, ['IH-1000', '0300768', 'lalina']);
    assert.deepEqual(resultFor(m, 'Result', 4).value, ['A', 'NEG', 'NEG', 'ccee', 'K-', 'NEG', '', '', '']);
    const c: CommentRecord = first(m, 'C');
    assert.deepEqual(c.source, [['ID-Diluent 2', '', '05761.03.12', '20240131'], ['', '', '', '']]);
    assert.deepEqual(c.extra, ['']);
    const two = decoded('biorad-ihcom-bloodtype-multipatient-result.txt');
    assert.deepEqual(ofType(two, 'P').map((x) => [x.sequence, x.name]), [
      ['1', ['Testus', 'Test']],
      ['1', ['Testis', 'Tost']],
    ]);
  });

  it('Immucor Galileo and NEO: agglutination grades, queries by specimen', () => {
    const galileo = decoded('immucor-galileo-result.txt');
    assert.deepEqual([first(galileo, 'O').specimenId, first(galileo, 'O').specimenDescriptor], ['0651439A', ['Blood', 'Patient']]);
    const antiB = resultFor(galileo, 'Anti-B', 4);
    assert.deepEqual([antiB.value, antiB.resultStatus, antiB.operatorId, antiB.completedAt, antiB.instrumentId], [['3+', '3+', '45'], 'F', 'brentp', '20060306164429', 'M0002']);
    assert.equal(resultFor(galileo, 'ABOD Full Interp', 4).value, 'B Pos');
    assert.equal(resultFor(galileo, 'Screen Interp', 4).value, 'Pos');
    const order = decoded('immucor-galileo-order.txt');
    assert.deepEqual([first(order, 'C').source, first(order, 'C').text], ['L', ['Donor', 'R02460']]);
    assert.equal(first(order, 'L').terminationCode, 'N ', 'the trailing space is in the fixture');
    const queries = ofType(decoded('immucor-neo-query.txt'), 'Q');
    assert.deepEqual(queries.map((q) => [q.startingRange, q.universalTestId]), [1, 2, 3, 4, 5].map((n) => [`VALI20030${n}`, 'ALL']));
    const neo = decoded('immucor-neo-result.txt');
    assert.equal(first(neo, 'O').specimenId, 'VAL99999903');
    const pool = results(neo)[0];
    assert.deepEqual([pool?.value, pool?.instrumentId, pool?.extra], [['0', '0', '8.8'], '5030100389', ['']]);
  });

  it('ERBA EM 200: backquote repeats, a query for two tubes', () => {
    const multi = decoded('erba-em200-query-multitube.txt');
    assert.deepEqual(multi.delimiters, { field: '|', repeat: '`', component: '^', escape: '&' });
    const q: QueryRecord = first(multi, 'Q');
    assert.deepEqual([q.startingRange, q.timeLimits, q.statusCode], [[['', '0000000406'], ['00001001']], 'S', 'O']);
    assert.deepEqual(first(decoded('erba-em200-query.txt'), 'Q').startingRange, ['', '010520182']);
    const session = fixtureMessages(loadFixture('erba-em200-result-session.txt')).map((t) => decodeMessage(t));
    assert.equal(session.length, 2);
    const [glu, cre] = session.map((s) => first(s, 'R'));
    assert.deepEqual(first(session[0] as AstmMessage, 'O').specimenId, ['Asha Singh', '03', '1', '1']);
    assert.deepEqual([component(glu?.universalTestId, 4), glu?.value, glu?.units, glu?.referenceRange, glu?.abnormalFlags, glu?.resultStatus, glu?.completedAt], ['GLU', '115.5', 'mg/dl', ['', 'DEFAULT'], 'H', 'F', '20181120150433']);
    assert.deepEqual([component(cre?.universalTestId, 4), cre?.value, cre?.abnormalFlags], ['CRE', '0.75', 'N']);
  });

  it('EUROIMMUN Analyzer I: decimal commas stay text, one P per sample', () => {
    const m = decoded('euroimmun-analyzer1-result.txt');
    const patients = ofType(m, 'P');
    assert.equal(patients.length, 20);
    assert.equal(patients[1]?.laboratoryPatientId, 'TEST-27-077-5-1');
    const values = results(m).map((r) => r.value);
    assert.deepEqual(values.slice(0, 4), ['>8', '7,41', '>8', '6,77']);
    assert.deepEqual([results(m)[1]?.units, results(m)[1]?.referenceRange], ['Ratio', '']);
    assert.equal(first(m, 'O').requestedAt, '20220218080737');
    assert.equal(results(m).length, 20);
  });

  it('Hologic Panther: viral load results, no L record', () => {
    const m = decoded('hologic-panther-result.txt');
    const orders = ofType(m, 'O');
    assert.deepEqual(orders.map((o) => o.specimenId), ['662047', '1203695', '1203665']);
    assert.deepEqual(orders[0]?.instrumentSpecimenId, ['40ee8544-6076-4046-8dc0-601c18863cd7', '37468']);
    const hiv = resultFor(m, 'HIV-1', 5);
    assert.deepEqual([hiv.value, hiv.units, hiv.resultStatus, hiv.completedAt], ['Not Detected', 'copies/mL', 'F', '20190808052856']);
    const third = results(m).slice(8);
    assert.deepEqual(third.map((r) => r.value), ['59', '15', 'Valid', '1.77']);
    assert.equal(ofType(m, 'L').length, 0);
  });

  it('Phadia ImmunoCAP: sIgE values with empty trailing components', () => {
    const m = decoded('phadia-immunocap-result.txt');
    assert.deepEqual(first(m, 'H').senderId, ['Phadia.Prime', '1.2.0.12371', '4.0']);
    const o: OrderRecord = first(m, 'O');
    assert.deepEqual([o.specimenId, o.instrumentSpecimenId, o.universalTestId], [['B7650020', 'N', '', '0'], 'B7650020', ['', '', '', 't2', 'sIgE', '1']]);
    const t2 = resultFor(m, 't2', 4);
    assert.deepEqual([t2.value, t2.units, t2.resultStatus, t2.completedAt, t2.instrumentId], [['9.34', '', '', '', ''], 'kUA/l', 'F', '20030503124704', 'I1000-1']);
    assert.equal(component(resultFor(m, 't3', 4).value, 1), 'Examine');
    assert.deepEqual([first(m, 'C').source, first(m, 'C').text], ['O', 'Response value in RU 2140']);
  });

  it('SNIBE MAGLUMI X3: password in H-4, three one-result messages', () => {
    const texts = fixtureMessages(loadFixture('snibe-maglumi-x3-result-session.txt'));
    const messages = texts.map((t) => decodeMessage(t));
    const h: HeaderRecord = first(messages[0] as AstmMessage, 'H');
    assert.deepEqual([h.accessPassword, h.senderId, h.receiverId, h.version, h.timestamp], ['PSWD', 'Maglumi X3', 'Lis', 'E1394-97', '20260717']);
    assert.deepEqual(
      messages.map((m) => {
        const r = first(m, 'R');
        return [first(m, 'O').specimenId, component(r.universalTestId, 4), r.value, r.units, r.referenceRange, r.abnormalFlags, r.completedAt];
      }),
      [
        ['PATIENT-REDACTED-1', 'FT3', '5.43', 'pmol/L', '3.08 - 6.468', 'N', '20250320153245'],
        ['PATIENT-REDACTED-1', 'FT4 II', '1.58', 'ng/dL', '0.9 - 1.75', 'N', '20250320152944'],
        ['PATIENT-REDACTED-1', 'TSH II', '2.78', 'uIU/mL', '0.3 - 4.5', 'N', '20250320154408'],
      ],
    );
    assert.equal(first(decoded('snibe-maglumi-x3-result-session-hostid-notlis.txt'), 'H').receiverId, 'NOTLIS');
  });
});
