/**
 * Issue 23: no message shape makes parsing or reading it cost more than in
 * proportion to its size. Each case builds a message of N and of 4N items of
 * one adversarial shape (repetitions, components, subcomponents, escapes,
 * segments, frames) and counts the characters the string and Buffer built-ins
 * look at while the message is read as a flow reads it (test/support/
 * work-meter.ts): about 4 times the work when linear, 16 when quadratic. The
 * 39 KB ORU whose NTE-3 held 20,000 repetitions took 8 s this way, as the
 * work of one split of the field per repetition.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { growth } from '../support/work-meter';
import { parseHl7Bytes, Hl7Link, MllpDeframer, frameMllp } from '../../lib/protocols/hl7';
import { hl7LabEventsOf } from '../../lib/protocols/hl7/lab';
import { HL7_IHE_LAW, HL7_ROCHE_COBAS_PRO } from '../../lib/protocols/hl7/dialects';
import { decodeMessage } from '../../lib/protocols/astm/records';
import { toLabEvents } from '../../lib/protocols/astm/lab';
import { GENERIC_LIS2A2 } from '../../lib/protocols/astm/dialects';
import { AstmLink, buildFrame, buildFrames } from '../../lib/protocols/astm/link';
import { fileLabEvents, GENERIC_CSV, THERMO_MULTISKAN_GO, type FileDialectProfile } from '../../lib/protocols/file';

const MAX = 5; // 4N over N: 4 when linear (plus what does not grow), 16 when quadratic

const MSH = 'MSH|^~\\&|cobas pro||Host||20240101120000||OUL^R22^OUL_R22|1|P|2.5.1||||||UNICODE UTF-8\r';
const hl7 = (body: string) => Buffer.from(MSH + body, 'utf8');
const law = (bytes: Buffer) => () => hl7LabEventsOf(bytes, HL7_ROCHE_COBAS_PRO, 'UTC');
const many = (n: number, item: string, sep: string) => Array.from({ length: n }, () => item).join(sep);

/** HL7 shapes: N of something in one message, read as hl7-message reads it. */
const HL7_SHAPES: Record<string, (n: number) => () => unknown> = {
  'NTE-3 repetitions (the 39 KB message of issue 23)': (n) => law(hl7(`SPM|1|S1&BARCODE\rOBR|1\rOBX|1|NM|20490^20490^99ROC||3|mg/L|||||F\rNTE|1||${many(n, 'c', '~')}\r`)),
  'OBX-8 flag repetitions': (n) => law(hl7(`SPM|1|S1&BARCODE\rOBR|1\rOBX|1|NM|20490^20490^99ROC||3|mg/L||${many(n, 'H', '~')}|||F\r`)),
  'supplemental OBX-5 repetitions': (n) => law(hl7(`SPM|1|S1&BARCODE\rOBR|1\rOBX|1|NM|20490^20490^99ROC||3|mg/L|||||F\rOBX|2|CE|S_OTHER^x^99ROC||${many(n, 'v', '~')}\r`)),
  'OBX-5 components': (n) => law(hl7(`SPM|1|S1&BARCODE\rOBR|1\rOBX|1|NM|20490^20490^99ROC||${many(n, 'v', '^')}|${many(n, 'u', '^')}|||||F\r`)),
  'SPM-2 subcomponents, read at every OBX': (n) => law(hl7(`SPM|1|S1&${many(n, 'b', '&')}\rOBR|1\r${many(n / 8, 'OBX|1|NM|20490^20490^99ROC||3|mg/L|||||F', '\r')}\r`)),
  'SPM-2 repetitions, read at every OBX': (n) => law(hl7(`SPM|1|${many(n, 'S1&BARCODE', '~')}\rOBR|1\r${many(n / 8, 'OBX|1|NM|20490^20490^99ROC||3|mg/L|||||F', '\r')}\r`)),
  'escape sequences in one value': (n) => law(hl7(`SPM|1|S1&BARCODE\rOBR|1\rOBX|1|ST|20490^20490^99ROC||${many(n, '\\S\\\\T\\\\X41\\', 'a')}|mg/L|||||F\r`)),
  'lone escape characters': (n) => law(hl7(`SPM|1|S1&BARCODE\rOBR|1\rOBX|1|ST|20490^20490^99ROC||${'\\'.repeat(n)}x\\Z${'y'.repeat(n)}|mg/L|||||F\r`)),
  'segments ending in CR only': (n) => law(hl7(`SPM|1|S1&BARCODE\rOBR|1\r${many(n / 4, 'OBX|1|NM|20490^20490^99ROC||3|mg/L|||||F', '\r')}\r`)),
  'segments ending in LF only': (n) => law(Buffer.from(`${MSH.slice(0, -1)}\nSPM|1|S1&BARCODE\nOBR|1\n${many(n / 4, 'OBX|1|NM|20490^20490^99ROC||3|mg/L|||||F', '\n')}\n`, 'utf8')),
  'NTE segments after one OBX': (n) => law(hl7(`SPM|1|S1&BARCODE\rOBR|1\rOBX|1|NM|20490^20490^99ROC||3|mg/L|||||F\r${many(n / 4, 'NTE|1||comment', '\r')}\r`)),
  'empty fields': (n) => () => parseHl7Bytes(hl7(`OBX${'|'.repeat(n)}\r`)).segment('OBX')!.field(n),
  'IHE LAW query naming a sample with many components': (n) => () => hl7LabEventsOf(Buffer.from(`MSH|^~\\&|A||H||20240101||QBP^Q11^QBP_Q11|1|P|2.5.1\rQPD|x|1|${many(n, 'S', '^')}\r`, 'latin1'), HL7_IHE_LAW, 'UTC'),
};

/** The same through the link: bytes in as one TCP read or many, frames out, ACKs written. */
const LINK_SHAPES: Record<string, (n: number) => () => unknown> = {
  'one message in 1-byte reads': (n) => {
    const frame = frameMllp(hl7(`SPM|1|S1&BARCODE\rOBR|1\rOBX|1|NM|20490^20490^99ROC||${'7'.repeat(n)}|mg/L|||||F\r`));
    const reads = [...frame].map((b) => Buffer.from([b]));
    return () => {
      const link = new Hl7Link({ holdAck: false });
      for (const r of reads) link.receive(r, 0);
    };
  },
  'many small frames in one read': (n) => {
    const wire = Buffer.concat(Array.from({ length: n / 16 }, (_, i) => frameMllp(hl7(`OBR|${i}\r`))));
    return () => new Hl7Link({ holdAck: false }).receive(wire, 0);
  },
  'many frames without VT in one read': (n) => {
    const wire = Buffer.concat(Array.from({ length: n / 16 }, (_, i) => Buffer.concat([hl7(`OBR|${i}\r`), Buffer.from([0x1c, 0x0d])])));
    return () => new MllpDeframer().push(wire);
  },
  'garbage between frames': (n) => {
    const wire = Buffer.concat(Array.from({ length: n / 16 }, (_, i) => Buffer.concat([Buffer.from('xx\x1c\rM'), frameMllp(hl7(`OBR|${i}\r`))])));
    return () => new MllpDeframer().push(wire);
  },
  'a frame that never ends, in 1 KiB reads': (n) => {
    const reads = Array.from({ length: n / 64 }, () => Buffer.alloc(1024, 0x41));
    return () => {
      const d = new MllpDeframer({ maxFrameBytes: 1024 * 1024 });
      d.push(Buffer.from([0x0b]));
      for (const r of reads) d.push(r);
    };
  },
};

const astmMessage = (records: string) => `H|\\^&|||Analyzer\rP|1\rO|1|S1||^^^GLU\r${records}L|1|N\r`;
const astm = (text: string) => () => toLabEvents(decodeMessage(text), GENERIC_LIS2A2, { timeZone: 'UTC' });

const ASTM_SHAPES: Record<string, (n: number) => () => unknown> = {
  'R-7 flag repeats': (n) => astm(astmMessage(`R|1|^^^GLU|5|mg/dL||${many(n, 'H', '\\')}||F\r`)),
  'R-4 components': (n) => astm(astmMessage(`R|1|^^^GLU|${many(n, '5', '^')}|mg/dL||N||F\r`)),
  'O-3 sample repeats': (n) => astm(`H|\\^&|||Analyzer\rP|1\rO|1|${many(n, 'S1', '\\')}||^^^GLU\rR|1|^^^GLU|5\rL|1|N\r`),
  'escape sequences in one value': (n) => astm(astmMessage(`R|1|^^^GLU|${many(n, '&S&&F&&X41&', 'a')}|mg/dL||N||F\r`)),
  'lone escape characters': (n) => astm(astmMessage(`R|1|^^^GLU|${'&'.repeat(n)}x&Z${'y'.repeat(n)}|mg/dL||N||F\r`)),
  'R records': (n) => astm(astmMessage(many(n / 8, 'R|1|^^^GLU|5|mg/dL||N||F', '\r') + '\r')),
  'C records after one R': (n) => astm(astmMessage(`R|1|^^^GLU|5\r${many(n / 8, 'C|1|I|comment|G', '\r')}\r`)),
  'empty fields': (n) => astm(astmMessage(`R|1|^^^GLU|5${'|'.repeat(n)}\r`)),
  'one long record through the link in 1-byte reads': (n) => {
    const frames = buildFrames(Buffer.from(astmMessage(`R|1|^^^GLU|${'7'.repeat(n)}\r`), 'latin1'));
    const reads = [Buffer.from([0x05]), ...frames.flatMap((f) => [...f].map((b) => Buffer.from([b]))), Buffer.from([0x04])];
    return () => {
      const link = new AstmLink({ role: 'computer' });
      let now = 0;
      for (const r of reads) link.receive(r, ++now);
    };
  },
  'one record per end (ETX) frame through the link, as the Pentra XLR and STA Satellite send': (n) => {
    const records = ['H|\\^&|||Analyzer', 'P|1', 'O|1|S1||^^^GLU', ...Array.from({ length: n / 8 }, (_, i) => `R|${i}|^^^GLU|5`), 'L|1|N'];
    const wire = Buffer.concat([Buffer.from([0x05]), ...records.map((r, i) => buildFrame((i + 1) % 8, Buffer.from(`${r}\r`, 'latin1'), 'ETX')), Buffer.from([0x04])]);
    return () => {
      const link = new AstmLink({ role: 'computer' });
      link.receive(wire, 1);
    };
  },
};

const fileRead = (text: string, profile: FileDialectProfile) => () => fileLabEvents(Buffer.from(text, 'utf8'), profile, { timeZone: 'UTC', fileName: 'run.csv' });
const CSV: FileDialectProfile = { ...GENERIC_CSV, layout: { form: 'row-per-result', sample: 'Sample', test: 'Test', value: 'Result', units: 'Units' }, noResult: ['---'] };
const WIDE: FileDialectProfile = { ...GENERIC_CSV, layout: { form: 'row-per-sample', sample: 1, tests: 'rest' }, noResult: ['ND'] };

/** File shapes: N of something in one export, read as file-message reads it. */
const FILE_SHAPES: Record<string, (n: number) => () => unknown> = {
  'quote-heavy cells (doubled quotes)': (n) => fileRead(`Sample,Test,Result,Units\nS-1,GLU,"${'""'.repeat(n)}",mmol/L\n`, CSV),
  'quoted cells with line ends inside': (n) => fileRead(`Sample,Test,Result,Units\nS-1,GLU,5,"${many(n, 'u', '\r\n')}"\n`, CSV),
  'one long line (a value of N characters)': (n) => fileRead(`Sample,Test,Result,Units\nS-1,GLU,${'7'.repeat(n)},mmol/L\n`, CSV),
  'one long sample cell': (n) => fileRead(`Sample,Test,Result,Units\n${'S'.repeat(n)},GLU,5,mmol/L\n`, { ...CSV, sampleNumber: { take: '^(\\S+)', pattern: '[A-Z]+' }, qc: [{ by: 'sample', pattern: '^Q' }] }),
  'empty cells in one row': (n) => fileRead(`Sample,Test,Result,Units\nS-1,GLU,5${','.repeat(n)}\n`, CSV),
  'many result rows': (n) => fileRead(`Sample,Test,Result,Units\n${many(n / 8, 'S-1,GLU,5,mmol/L', '\n')}\n`, CSV),
  'many no-result rows, each unassigned': (n) => fileRead(`Sample,Test,Result,Units\n${many(n / 8, 'S-1,GLU,---,mmol/L', '\n')}\n`, CSV),
  'a column per test, every cell no result': (n) => fileRead(`ID,${many(n / 4, 'T', ',')}\nP-1,${many(n / 4, 'ND', ',')}\n`, WIDE),
  'a header of N columns, the named one last': (n) => fileRead(`${many(n / 2, 'x', ',')},Sample,Test,Result,Units\n${','.repeat(n / 2)}S-1,GLU,5,mmol/L\n`, CSV),
  'rows before the table': (n) => fileRead(`${many(n / 4, '* note = x', '\n')}\n[Results]\nSample,Test,Result,Units\nS-1,GLU,5,mmol/L\n`, { ...CSV, table: { skipRows: 0, startsAfter: '[Results]', header: true, endsAtEmptyRow: true }, runDate: { from: 'header', pattern: '^\\* Run = (.*)$', format: 'YYYY-MM-DD' } }),
  'fixed widths, one long line': (n) => fileRead(`${'9'.repeat(n)}\n`, { ...GENERIC_CSV, delimiter: { widths: [4, 4, 4] }, table: { skipRows: 0, header: false, endsAtEmptyRow: false }, layout: { form: 'row-per-result', sample: 1, test: 2, value: 3 } }),
  'a plate row of N wells': (n) => fileRead(`Sample;${many(n / 4, '1', ';')}\nA;${many(n / 4, 'S_1', ';')}\n\nAbs;${many(n / 4, '1', ';')}\nA;${many(n / 4, '0,5', ';')}\n`, { ...THERMO_MULTISKAN_GO, encoding: 'utf8' }),
};

function judge(shapes: Record<string, (n: number) => () => unknown>, n: number): void {
  const beyond: string[] = [];
  for (const [name, make] of Object.entries(shapes)) {
    const g = growth(make, n);
    if (!(g.ratio <= MAX)) beyond.push(`${name}: ${g.small} -> ${g.large} characters looked at (x${g.ratio.toFixed(1)})`);
  }
  assert.deepEqual(beyond, [], `work grew faster than the message (limit x${MAX} for 4 times the items)`);
}

describe('parsing and reading is linear in the message whatever its shape (issue 23)', () => {
  it('HL7: parse and every read hl7-message makes', () => judge(HL7_SHAPES, 2000));
  it('HL7: the MLLP link and deframer', () => judge(LINK_SHAPES, 4096));
  it('ASTM: decode and the lab reading', () => judge(ASTM_SHAPES, 2000));
  it('result files: the table and the reading file-message makes (issue 26)', () => judge(FILE_SHAPES, 4000));
});
