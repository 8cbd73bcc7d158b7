/**
 * The HL7 v2 codec (lib/protocols/hl7): every fixture message round-trips byte for
 * byte, reads value by value where test/fixtures/SOURCES.md says its sample
 * number and test code sit, and the escapes, character sets, delimiters,
 * errors and the builder behave as lib/protocols/hl7 documents.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Hl7Error, Hl7Message, buildHl7, charsetOfMsh18, encodeText, parseHl7, parseHl7Bytes, rawHl7, repeat, views } from '../../lib/protocols/hl7';
import { allHl7Messages, loadHl7Fixture } from '../support/hl7-fixtures';

/** The nth message of a fixture, read from its bytes as a link set to Latin-1 would. */
function fixture(name: string, nth = 1): Hl7Message {
  const m = loadHl7Fixture(name).messages[nth - 1];
  assert.ok(m !== undefined, `${name} has a message ${nth}`);
  return parseHl7Bytes(m.bytes, { charset: 'latin1' });
}

/** `OBX[2]-3.1`: field 3, component 1 of the second OBX (the first when [n] is left out). */
function at(msg: Hl7Message, path: string): string {
  const m = /^([A-Z0-9]{3})(?:\[(\d+)\])?-(\d+)(?:\.(\d+))?(?:\.(\d+))?$/.exec(path);
  assert.ok(m !== null, path);
  const seg = msg.segment(m[1] ?? '', Number(m[2] ?? 1));
  assert.ok(seg !== undefined, `no ${m[1]}[${m[2] ?? 1}]`);
  return seg.field(Number(m[3]), 1, Number(m[4] ?? 1), Number(m[5] ?? 1));
}

describe('HL7 codec: round trip', () => {
  const all = allHl7Messages();

  it('re-encodes every fixture message byte for byte, from its text and from its parse tree', () => {
    assert.equal(all.length, 42);
    for (const m of all) {
      const msg = parseHl7Bytes(m.bytes);
      assert.ok(msg.toBytes().equals(m.bytes), m.id);
      assert.equal(msg.encodeTree(), msg.text, m.id);
      assert.equal(msg.segments.map((s) => s.text + s.end).join(''), msg.text, m.id);
    }
  });

  it('keeps each segment\'s own line end: CR, LF, or none after the last', () => {
    const ends = (name: string) => [...new Set(fixture(name).segments.map((s) => JSON.stringify(s.end)))].join(' ');
    assert.equal(ends('mindray-cl2000i-oru-r01-result.txt'), '"\\r"');
    assert.equal(ends('urit-8030-oru-r01.txt'), '"\\n"');
    assert.equal(ends('edan-i15-oru-r01.txt'), '"\\n" ""');
    assert.equal(ends('roche-cobaspro-oul-r22-e801.txt'), '"\\r" ""');
    assert.equal(fixture('edan-i15-oru-r01.txt').segmentEnd, '\n');
    const crlf = parseHl7('MSH|^~\\&|A\r\nPID|1\r\n');
    assert.deepEqual(crlf.segments.map((s) => s.end), ['\r\n', '\r\n']);
    assert.equal(crlf.toString(), 'MSH|^~\\&|A\r\nPID|1\r\n');
  });
});

describe('HL7 codec: fixtures value by value', () => {
  it('Mindray CL-2000i: sample in OBR-2, test number in OBX-3, name in OBX-4, units with spaces', () => {
    const msg = fixture('mindray-cl2000i-oru-r01-result.txt');
    assert.equal(at(msg, 'OBR-2'), '12345678');
    assert.equal(at(msg, 'PID-2'), '1001');
    assert.deepEqual(
      msg.all('OBX').map((s) => views.obx(s)).map((o) => [o.code, o.subId, o.value, o.units, o.referenceRange, o.flags, o.resultStatus]),
      [
        ['2', 'TBil', '100', ' umol/L ', '-', ['N'], 'F'],
        ['5', 'ALT', '98.2', ' umol/L ', '-', ['N'], 'F'],
        ['6', 'AST', '26.4', ' umol/L ', '-', ['N'], 'F'],
      ],
    );
    const qc = fixture('mindray-cl2000i-oru-r01-qc.txt');
    assert.equal(views.msh(qc.msh).applicationAckType, '2');
    assert.equal(at(qc, 'OBR-3'), 'AST');
    assert.equal(at(qc, 'OBR-13'), 'QUAL2', 'the PDF wrapped QUA|L2 back together');
    assert.deepEqual([at(qc, 'OBR-20'), at(qc, 'OBR-21')], ['0.137470', ' nkat/L']);
  });

  it('Mindray CL-2000i query and host side: QRD-8, QAK-2, MSA, ERR, DSP', () => {
    const qry = fixture('mindray-cl2000i-qry-q02.txt');
    const qrd = views.qrd(qry.segment('QRD')!);
    assert.deepEqual([qrd.whoSubject, qrd.whatSubject, qrd.resultsLevel], ['0019', 'OTH', 'T']);
    assert.deepEqual([views.qrf(qry.segment('QRF')!).whichDateTimeQualifier, at(qry, 'QRF-8')], ['RCT', 'ALL']);
    assert.equal(views.qak(fixture('mindray-cl2000i-qck-q02-found.txt').segment('QAK')!).responseStatus, 'OK');
    assert.equal(views.qak(fixture('mindray-cl2000i-qck-q02-notfound.txt').segment('QAK')!).responseStatus, 'NF');
    const reject = views.msa(fixture('mindray-cl2000i-ack-r01-reject.txt').segment('MSA')!);
    assert.deepEqual([reject.ackCode, reject.controlId, reject.text, reject.errorCondition], ['AR', '1', 'Application query error', '206']);
    assert.equal(views.err(fixture('mindray-cl2000i-ack-q03.txt').segment('ERR')!).codeAndLocation, '0');
    const dsr = fixture('mindray-cl2000i-dsr-q03-order-download.txt');
    assert.deepEqual(dsr.all('DSP').filter((s) => s.field(3) !== '').map((s) => `${views.dsp(s).setId}=${views.dsp(s).data}`), [
      '1=1212', '2=27', '3=Tommy', '4=19620824000000', '5=M', '6=O', '15=outpatient', '17=own', '21=0019', '22=3', '23=20070301183500', '24=N', '25=1', '26=serum', '29=1', '30=2', '31=5',
    ]);
  });

  it('Mindray BC-6200: sample in OBR-3, LOINC in OBX-3.1, repeated flags, a UTF-8 ‰ read through MSH-18 UNICODE', () => {
    const msg = fixture('mindray-bc6200-oru-r01.txt');
    assert.equal(msg.charset, 'utf8');
    assert.equal(at(msg, 'OBR-3'), '1770190e');
    assert.equal(msg.all('OBX').length, 60);
    const wbc = views.obx(msg.segment('OBX', 11)!);
    assert.deepEqual([wbc.code, wbc.text, wbc.codingSystem, wbc.value, wbc.units, wbc.referenceRange, wbc.flags], ['6690-2', 'WBC', 'LN', '10.42', '10*3/uL', '4.00-10.00', ['H', 'N']]);
    const inr = views.obx(msg.segment('OBX', 54)!);
    assert.deepEqual([inr.text, inr.units], ['InR\u2030', '\u2030']);
    assert.equal(views.obx(msg.segment('OBX', 49)!).value, '****');
  });

  it('Roche LAW: sample in SPM-2 before &BARCODE and in SAC-3, test in OBX-3.1, repeated OBX-5 and OBX-8', () => {
    const e801 = fixture('roche-cobaspro-oul-r22-e801.txt');
    const spm = views.spm(e801.segment('SPM')!);
    assert.deepEqual([spm.specimenId, spm.specimenIdType, spm.specimenType, spm.role], ['140799', 'BARCODE', 'SERPLAS', 'P']);
    assert.deepEqual([views.sac(e801.segment('SAC')!).containerId, views.sac(e801.segment('SAC')!).carrierId, views.sac(e801.segment('SAC')!).positionInCarrier], ['140799', '50036', '1']);
    assert.equal(e801.segment('OBR')!.isNull(2), true);
    const first = views.obx(e801.segment('OBX')!);
    assert.deepEqual([first.code, first.subId, first.value, first.units, first.flags, first.responsibleObserver, first.equipment], ['10020', '1', '112', 'ng/dL', ['N'], 'ADMIN', ['e801', '2037-06', '1']]);
    assert.deepEqual(views.obx(e801.segment('OBX', 5)!).values, ['19132', '19112', '19092']);
    assert.deepEqual(views.inv(e801.segment('INV')!).statuses, ['OK', 'CURRENT']);
    const hba1c = fixture('roche-cobaspro-oul-r22-hba1c-session.log.txt', 2);
    assert.deepEqual([views.spm(hba1c.segment('SPM')!).specimenId, at(hba1c, 'SPM-4'), at(hba1c, 'OBX-5'), at(hba1c, 'OBX-6')], ['577919', 'WB', '5.60', '%']);
    assert.deepEqual(views.obx(hba1c.segment('OBX')!).flags, ['112', '102']);
    const pure = fixture('roche-cobaspure-oul-r22-session.log.txt');
    assert.deepEqual([at(pure, 'OBR-2'), at(pure, 'OBR[5]-4'), at(pure, 'PID-3')], ['130578', '21130', '130578']);
    const manual = fixture('roche-cobaspro-oul-r22-manual.txt');
    assert.deepEqual([at(manual, 'SPM-2'), at(manual, 'OBX-5'), at(manual, 'OBX-6'), at(manual, 'OBX[7]-5')], ['022', '32.2', 'mg/L', '0.300 - 350']);
    assert.equal(views.tq1(manual.segment('TQ1')!).priority, 'R');
  });

  it('Roche cobas pure QC: SPM-11 Q, the control in SPM-2 and INV', () => {
    const qc = fixture('roche-cobaspure-oul-r22-qc.txt');
    assert.deepEqual([views.spm(qc.segment('SPM')!).specimenId, views.spm(qc.segment('SPM')!).specimenIdType, views.spm(qc.segment('SPM')!).role], ['20391', 'CONTROL', 'Q']);
    assert.deepEqual([at(qc, 'INV-1'), at(qc, 'INV-1.2')], ['20391', 'PCCC1']);
    assert.deepEqual([at(qc, 'OBX[5]-3'), at(qc, 'OBX[5]-5'), at(qc, 'OBX[6]-3'), at(qc, 'OBX[6]-5')], ['QC_TARGET', '8.78', 'QC_SD_RANGE', '0.361']);
  });

  it('Roche cobas 6800: sample in SPM-2, test in OBX-3.1 and OBR-4, `""` and `"` flags', () => {
    const hiv = fixture('roche-cobas6800-oul-r22-result.txt');
    assert.deepEqual([at(hiv, 'SPM-2'), views.obr(hiv.segment('OBR')!).serviceCode, views.obr(hiv.segment('OBR')!).serviceText], ['BP23-04444', '70241-5', 'HIV']);
    assert.deepEqual([at(hiv, 'OBX[2]-3.4'), at(hiv, 'OBX[2]-5'), at(hiv, 'OBX[2]-5.3')], ['S_OTHER', '41.47', '37.53']);
    assert.deepEqual([at(hiv, 'OBX[4]-4'), at(hiv, 'OBX[4]-5'), at(hiv, 'OBX[4]-8')], ['1/2', '< Titer min', '""']);
    assert.deepEqual([at(hiv, 'SAC-21'), views.sac(hiv.segment('SAC')!).volumeUnits], ['500', 'uL']);
    const sars = fixture('roche-cobas6800-oul-r22-sarscov2.txt');
    assert.deepEqual([at(sars, 'SPM-2'), at(sars, 'OBX-3'), at(sars, 'OBX-8'), at(sars, 'OBX[4]-8')], ['TBY 7363', 'TGT1', 'NEG', '"']);
    assert.deepEqual(sars.all('INV').slice(0, 2).map((s) => [views.inv(s).substanceId, views.inv(s).expirationDate, views.inv(s).lotNumber]), [
      ['SARS-COV-2', '20230731030000', 'J16959'],
      ['Tip rack', '20231231030000', '322'],
    ]);
  });

  it('Queries: QPD-3 (cobas pro, BA400), a UTF-8 MSH-3, RCP', () => {
    const pro = fixture('roche-cobaspro-qbp-q11.txt');
    assert.deepEqual([views.qpd(pro.segment('QPD')!).queryName, views.qpd(pro.segment('QPD')!).queryTag, views.qpd(pro.segment('QPD')!).specimenId], ['INIBAR', '262', '498100']);
    assert.deepEqual([views.rcp(pro.segment('RCP')!).priority, views.rcp(pro.segment('RCP')!).quantityLimit, views.rcp(pro.segment('RCP')!).responseModality], ['I', '1', 'R']);
    const manual = fixture('roche-cobaspro-qbp-q11-manual.txt');
    assert.deepEqual([views.msh(manual.msh).sendingApplication, at(manual, 'QPD-1'), at(manual, 'QPD-3')], ['cobas\u00ae pro', 'INISEQ', '123']);
    const ba400 = fixture('biosystems-ba400-qbp-q11.txt');
    assert.deepEqual([at(ba400, 'QPD-1'), at(ba400, 'QPD-1.2'), at(ba400, 'QPD-3'), views.msh(ba400.msh).messageProfile], ['WOS', 'Work Order Step', '32971968', 'LAB-27']);
  });

  it('BioSystems BA200: sample in SPM-2, test in OBX-3.1, `\\Z03BC\\` kept as sent; the BA400 ACK', () => {
    const msg = fixture('biosystems-ba200-oul-r22.txt');
    assert.equal(views.spm(msg.segment('SPM')!).specimenId, 'SI APA');
    assert.equal(msg.all('OBX').length, 24);
    const ferritin = views.obx(msg.segment('OBX', 14)!);
    assert.deepEqual([ferritin.code, ferritin.value, ferritin.units, ferritin.flags, ferritin.equipment], ['FERRITIN', '7.29504681', '\\Z03BC\\g/L', ['NONE'], ['A400', '834000237']]);
    assert.deepEqual([at(msg, 'ORC-1'), at(msg, 'ORC-5')], ['OK', 'CM']);
    const ack = views.msa(fixture('biosystems-ba400-ack-r22-host.txt').segment('MSA')!);
    assert.deepEqual([ack.ackCode, ack.controlId], ['AA', 'feed2780-2c65-4a6e-af2f-dc8407228032']);
  });

  it('EDAN i15: sample in OBR-3, analyte in OBX-4, range in two components', () => {
    const msg = fixture('edan-i15-oru-r01.txt');
    assert.equal(at(msg, 'OBR-3'), '20250902001');
    const k = views.obx(msg.segment('OBX', 5)!);
    assert.deepEqual([k.code, k.subId, k.value, k.units, msg.segment('OBX', 5)!.components(7)], ['0', 'K+', '4.0', 'mmol/L', ['3.4', '4.5']]);
    assert.equal(views.obx(msg.segment('OBX', 11)!).subId, 'tHb(est)');
    assert.equal(views.msh(msg.msh).controlId, '');
  });

  it('URIT: sample in OBR-3 (UT-5160) or OBR-2 (8030), name in OBX-3 or OBX-4, an unescaped ^ in the units', () => {
    const ut = fixture('urit-ut5160-oru-r01-manual.txt');
    assert.equal(at(ut, 'OBR-3'), 'BAR101010101');
    const wbc = ut.segment('OBX')!;
    assert.deepEqual([views.obx(wbc).code, views.obx(wbc).value, wbc.rawField(6), views.obx(wbc).units, views.obx(wbc).flags], ['WBC', '110.0', '10^9/L', '10', ['H']]);
    assert.deepEqual([at(ut, 'OBX[25]-2'), at(ut, 'OBX[25]-3'), at(ut, 'OBX[25]-5.4')], ['ED', 'RBCHistogram', 'Base64']);
    const u8030 = fixture('urit-8030-oru-r01.txt');
    assert.deepEqual([at(u8030, 'OBR-2'), at(u8030, 'OBX-3'), at(u8030, 'OBX-4'), at(u8030, 'OBX-5'), at(u8030, 'OBX-6'), at(u8030, 'OBX-7'), at(u8030, 'OBX-8')], ['0000966134', '1', 'GLI', '111', 'mg/dL', '65-99', 'N']);
  });

  it('Siemens CLINITEK: sample in OBR-3, test in OBX-3, NTE comments, an MSH that ends at MSH-12', () => {
    const msg = fixture('siemens-clinitek-status-oru-r01.txt');
    assert.deepEqual([at(msg, 'OBR-3'), at(msg, 'OBR-4'), at(msg, 'PID-3'), at(msg, 'OBX[4]-3'), at(msg, 'OBX[4]-5'), at(msg, 'OBX[8]-6')], ['143', 'Multistix 10 SG', '010820187', 'SG', '<=1.005', 'umol/L']);
    assert.deepEqual([msg.msh.fieldCount, views.msh(msg.msh).version, views.msh(msg.msh).charset], [12, '2.4', '']);
    const qc = fixture('siemens-clinitek-status-oru-r01-qc.txt');
    assert.deepEqual(qc.all('NTE').slice(0, 2).map((s) => views.nte(s).comment), ['QCName:CHEKSTIX', 'QCLevel:NEGATIVE']);
    assert.deepEqual([at(qc, 'OBR-3'), at(qc, 'OBR-15'), at(qc, 'OBR-15.7')], ['184', 'ORH', 'Q']);
  });

  it('Roche status and inventory messages need ACKs too: ESU^U01, INU^U05, the host\'s ACKs', () => {
    const esu = fixture('roche-cobaspro-esu-inu-session.log.txt', 1);
    assert.deepEqual([views.msh(esu.msh).messageCode, views.msh(esu.msh).triggerEvent, views.msh(esu.msh).acceptAckType, views.msh(esu.msh).applicationAckType], ['ESU', 'U01', 'NE', 'AL']);
    assert.equal(fixture('roche-cobaspro-esu-inu-session.log.txt', 3).all('INV').length, 86);
    const ack = fixture('roche-cobaspro-esu-inu-session.log.txt', 4);
    assert.deepEqual([views.msa(ack.segment('MSA')!).ackCode, views.msa(ack.segment('MSA')!).controlId, ack.segments[1]?.end], ['AA', '11', '']);
  });
});

describe('HL7 codec: escapes, delimiters, character sets', () => {
  it('resolves \\F\\ \\S\\ \\T\\ \\R\\ \\E\\ and \\X..\\, keeps \\Z..\\ \\H\\ \\N\\ \\.br\\ verbatim, and splits subcomponents', () => {
    const msg = parseHl7('MSH|^~\\&|A\rOBX|1|ST|X||a\\F\\b\\S\\c\\T\\d\\R\\e\\E\\f\\X0D0A\\g\\Z03BC\\h\\H\\i\\N\\j\\.br\\k\\l|p&q^r~s\r');
    const obx = msg.segment('OBX')!;
    assert.equal(obx.field(5), 'a|b^c&d~e\\f\r\ng\\Z03BC\\h\\H\\i\\N\\j\\.br\\k\\l');
    assert.deepEqual([obx.field(6, 1, 1, 1), obx.field(6, 1, 1, 2), obx.field(6, 1, 2), obx.field(6, 2), obx.field(6, 3), obx.field(9)], ['p', 'q', 'r', 's', '', '']);
    assert.equal(msg.toString(), msg.encodeTree());
  });

  it('reads \\X..\\ in the message\'s character set', () => {
    const text = 'MSH|^~\\&|A||||||ORU^R01|1|P|2.5.1||||||UNICODE UTF-8\rNTE|1||caf\\XC3A9\\\r';
    assert.equal(parseHl7Bytes(Buffer.from(text, 'latin1')).segment('NTE')!.field(3), 'caf\u00e9');
    assert.equal(parseHl7(text).segment('NTE')!.field(3), 'caf\u00c3\u00a9', 'text without a character set reads \\X..\\ as Latin-1');
  });

  it('reads any delimiters MSH declares; an MSH-2 of fewer than four characters, or an incoherent one, is refused naming MSH-2 (issue 23)', () => {
    const odd = parseHl7('MSH#*!$%#A#B###20240101##ORU*R01#1#P#2.5.1\rOBX#1#ST#X*Y##v1!v2$S$#u%s\r');
    assert.deepEqual(odd.delimiters, { field: '#', component: '*', repetition: '!', escape: '$', subcomponent: '%' });
    assert.deepEqual([at(odd, 'MSH-9.2'), at(odd, 'OBX-3.2'), odd.segment('OBX')!.fieldAll(5), at(odd, 'OBX-6.1.2'), at(odd, 'MSH-1'), at(odd, 'MSH-2')], ['R01', 'Y', ['v1', 'v2*'], 's', '#', '*!$%']);
    for (const msh2 of ['^~&', '^~', '^', '^~\\', '^~\\^', '^~\\&&', '^~\\&A', '^~\\& ', '^~\\&#!']) {
      assert.throws(
        () => parseHl7(`MSH|${msh2}|LAW||LIS||20240101||OUL^R22|1|P|2.5.1\rSPM|1|RC-BAD2&BARCODE\r`),
        (err: unknown) => err instanceof Hl7Error && err.segmentName === 'MSH' && err.field === 2 && /MSH/.test(err.message),
        JSON.stringify(msh2),
      );
    }
    const truncation = parseHl7('MSH|^~\\&#|A||||||ORU^R01|1|P|2.7\rOBX|1|ST|X||a&b\r');
    assert.deepEqual(truncation.delimiters, { field: '|', component: '^', repetition: '~', escape: '\\', subcomponent: '&' });
    assert.equal(at(truncation, 'MSH-2'), '^~\\&#');
  });

  it('normalises MSH-18 as the captures and table 0211 spell it', () => {
    const cases: [string, string | undefined][] = [
      ['ASCII', 'ascii'],
      ['UNICODE', 'utf8'],
      ['UNICODE UTF-8', 'utf8'],
      ['UTF-8', 'utf8'],
      ['8859/1', 'latin1'],
      ['ISO-8859-1', 'latin1'],
      ['ISO_IR 100', 'latin1'],
      ['latin1', 'latin1'],
      ['', undefined],
      ['8859/15', undefined],
      ['UNICODE UTF-16', undefined],
    ];
    for (const [value, charset] of cases) assert.equal(charsetOfMsh18(value), charset, value);
  });

  it('never corrupts a non-ASCII name: Latin-1 and UTF-8 read and written back byte for byte', () => {
    const msh = (charset: string) => `MSH|^~\\&|A||||||ORU^R01|1|P|2.5.1||||||${charset}\r`;
    const latin = Buffer.from(`${msh('8859/1')}PID|1||7||M\u00fcller^Ren\u00e9\r`, 'latin1');
    const utf8 = Buffer.from(`${msh('UNICODE UTF-8')}PID|1||7||M\u00fcller^Ren\u00e9\r`, 'utf8');
    for (const [bytes, charset] of [[latin, 'latin1'], [utf8, 'utf8']] as const) {
      const msg = parseHl7Bytes(bytes, { charset: 'ascii' });
      assert.deepEqual([msg.charset, views.pid(msg.segment('PID')!).familyName, views.pid(msg.segment('PID')!).givenName], [charset, 'M\u00fcller', 'Ren\u00e9']);
      assert.ok(msg.toBytes().equals(bytes));
    }
    // A Latin-1 name in a message that says UTF-8: read as Latin-1, reported, bytes kept.
    const lying = Buffer.from(`${msh('UNICODE UTF-8')}PID|1||7||M\u00fcller\r`, 'latin1');
    const msg = parseHl7Bytes(lying);
    assert.deepEqual([msg.charset, msg.fellBackFrom, views.pid(msg.segment('PID')!).familyName], ['latin1', 'utf8', 'M\u00fcller']);
    assert.ok(msg.toBytes().equals(lying));
    // An 'ascii' link keeps high bytes (Latin-1) instead of stripping their top bit; the link's setting wins when MSH-18 is ignored.
    const noMsh18 = Buffer.from('MSH|^~\\&|A\rPID|1||7||M\u00fcller\r', 'latin1');
    assert.equal(views.pid(parseHl7Bytes(noMsh18, { charset: 'ascii' }).segment('PID')!).familyName, 'M\u00fcller');
    assert.equal(parseHl7Bytes(utf8, { charset: 'latin1', useMsh18: false }).charset, 'latin1');
  });
});

describe('HL7 codec: errors name the place', () => {
  const fails = (text: string, pattern: RegExp, at: { segment?: number; field?: number }) =>
    assert.throws(
      () => parseHl7(text),
      (e: unknown) => e instanceof Hl7Error && pattern.test(e.message) && e.segment === at.segment && e.field === at.field,
      text.slice(0, 30),
    );

  it('refuses a text without MSH, bad delimiters, a bad segment name, an empty segment and an oversized message', () => {
    fails('PID|1\r', /^HL7 segment 1: the message does not start with an MSH segment \(it starts "PID\|1\\r"\)/, { segment: 1 });
    fails('', /does not start with an MSH segment/, { segment: 1 });
    fails('MSHA^~\\&|', /segment 1 \(MSH\), MSH-1: MSH-1 \(the field separator\) is "A"/, { segment: 1, field: 1 });
    fails('MSH|^^\\&|', /MSH-2: MSH-1 and MSH-2 declare "\|\^\^\\\\&": each delimiter must be a different character/, { segment: 1, field: 2 });
    fails('MSH||A|', /MSH-2: MSH-2 \(encoding characters\) is "": HL7 needs all four/, { segment: 1, field: 2 });
    fails('MSH|^~\\&|A\rPID|1\rOB|1\r', /^HL7 segment 3: "OB\|1" does not start with a segment name/, { segment: 3 });
    fails('MSH|^~\\&|A\rPID|1\rOBX_1\r', /^HL7 segment 3 \(OBX\): "OBX_1" does not start with a segment name \(3 letters or digits, then "\|"\)/, { segment: 3 });
    fails('MSH|^~\\&|A\r \r', /segment 2: " " does not start/, { segment: 2 });
    assert.throws(() => parseHl7(`MSH|^~\\&|${'x'.repeat(100)}`, { maxLength: 50 }), /the message is 109 characters, more than the 50 allowed/);
    assert.throws(() => parseHl7Bytes(Buffer.alloc(60, 0x41), { maxLength: 50 }), /the message is 60 bytes, more than the 50 allowed/);
  });
});

describe('HL7 builder', () => {
  it('writes segments from field arrays and numbered fields, escaping every text, CR after each segment', () => {
    const text = buildHl7([
      { name: 'MSH', fields: { 3: 'LIS', 5: 'cobas pro', 7: '20240101120000', 9: ['ACK', 'R22', 'ACK'], 10: '56', 11: 'P', 12: '2.5.1' } },
      { name: 'MSA', fields: ['AE', '56', 'bad | value ^ with & delimiters ~ and \\ escape\rand a CR'] },
      { name: 'SPM', fields: [1, [['140799', 'BARCODE']], null, ['SERPLAS', '', '99ROC']].map((v) => (typeof v === 'number' ? String(v) : v)) },
      { name: 'OBX', fields: { 5: repeat('19132', '19112'), 8: rawHl7('N^^HL70078'), 10: '' } },
    ]);
    assert.equal(
      text,
      'MSH|^~\\&|LIS||cobas pro||20240101120000||ACK^R22^ACK|56|P|2.5.1\r' +
        'MSA|AE|56|bad \\F\\ value \\S\\ with \\T\\ delimiters \\R\\ and \\E\\ escape\\X0D\\and a CR\r' +
        'SPM|1|140799&BARCODE||SERPLAS^^99ROC\r' +
        'OBX|||||19132~19112|||N^^HL70078||\r',
    );
    const back = parseHl7(text);
    assert.equal(views.msa(back.segment('MSA')!).text, 'bad | value ^ with & delimiters ~ and \\ escape\rand a CR');
    assert.deepEqual([views.spm(back.segment('SPM')!).specimenId, views.obx(back.segment('OBX')!).values, back.segment('OBX')!.fieldCount], ['140799', ['19132', '19112'], 10]);
    assert.ok(encodeText(text, 'utf8').equals(Buffer.from(text, 'latin1')));
  });

  it('refuses what it cannot write: no MSH first, MSH-1/2 given, a bad segment name, incomplete delimiters', () => {
    assert.throws(() => buildHl7([{ name: 'PID', fields: [] }]), /HL7 segment 1: a message starts with its MSH segment/);
    assert.throws(() => buildHl7([{ name: 'MSH', fields: ['|'] }]), /segment 1 \(MSH\), MSH-1: MSH-1 and MSH-2 are written from the delimiters/);
    assert.throws(() => buildHl7([{ name: 'MSH', fields: {} }, { name: 'obx', fields: [] }]), /HL7 segment 2: "obx" is not a segment name/);
    assert.throws(() => buildHl7([{ name: 'MSH', fields: {} }], { delimiters: { field: '|', component: '^' } }), /all five delimiters/);
    assert.equal(buildHl7([{ name: 'MSH', fields: { 3: 'a#b' } }], { delimiters: { field: '#', component: '*', repetition: '!', escape: '$', subcomponent: '%' } }), 'MSH#*!$%#a$F$b\r');
  });
});
