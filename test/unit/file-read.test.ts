/**
 * Reading a result file (lib/protocols/file/read.ts) in each layout, encoding
 * and delimiter a file dialect can name: what is sent, what is kept apart as
 * QC, and what is never sent (no result, no sample number, a sample number
 * that does not decode cleanly), each with its reason; and the files a
 * dialect cannot read, with the line, the column and the setting to change.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { fileLabEvents, FileReadError, GENERIC_CSV, type FileDialectProfile } from '../../lib/protocols/file';
import { rowsOf } from '../../lib/protocols/file/table';
import { readDateTime } from '../../lib/protocols/file/date';
import type { InstrumentResult, LabEvent, UnassignedResult } from '../../lib/lab';

const dialect = (over: Partial<FileDialectProfile>): FileDialectProfile => ({ ...GENERIC_CSV, ...over });
const read = (text: string | Buffer, p: FileDialectProfile, fileName?: string) => fileLabEvents(Buffer.isBuffer(text) ? text : Buffer.from(text, 'utf8'), p, { timeZone: 'Europe/Berlin', fileName });
const results = (events: LabEvent[]) => events.flatMap((e) => (e.type === 'results' ? e.results : []));
const qc = (events: LabEvent[]) => events.flatMap((e) => (e.type === 'qc' ? e.results : []));
const unassigned = (events: LabEvent[]): UnassignedResult[] => events.flatMap((e) => (e.type === 'unassigned' ? e.items : []));
const brief = (rs: InstrumentResult[]) => rs.map((r) => [r.SampleNumber, r.instrumentCode, r.Result]);

describe('file reading: one row per result', () => {
  const csv = ['Sample,Test,Result,Units,Flag,Type', 'S-1,GLU,5.4,mmol/L,,Samp', 'S-1,CRE,71,umol/L,H,Samp', 'S-2,GLU,N/A,mmol/L,,Samp', 'QC-L1,GLU,3.1,mmol/L,,QC', ',,,,,', 'S-2,CRE,---,umol/L,,Samp', 'S  3,GLU,6.0,mmol/L,,Samp', 'S 4,GLU,6.2,mmol/L,,Samp', ',GLU,7.0,mmol/L,,Samp'].join('\r\n');
  const p = dialect({ layout: { form: 'row-per-result', sample: 'Sample', test: 'Test', value: 'Result', units: 'Units', flags: 'Flag' }, qc: [{ by: 'column', column: 'Type', anyOf: ['QC'] }] });

  it('sends one batch per sample with units and flags, QC apart, and never sends a no-result value or a sample number the pattern refuses', () => {
    const events = read(csv, p);
    assert.deepEqual(
      events.map((e) => e.type),
      ['results', 'results', 'qc', 'unassigned'],
    );
    // A sample number of words joined by single spaces is one (`S 4`); two spaces in a row are not (`S  3`).
    assert.deepEqual(brief(results(events)), [
      ['S-1', 'GLU', '5.4'],
      ['S-1', 'CRE', '71'],
      ['S 4', 'GLU', '6.2'],
    ]);
    assert.deepEqual(results(events).map((r) => [r.units, r.flags, r.record]), [
      ['mmol/L', undefined, 2],
      ['umol/L', ['H'], 3],
      ['mmol/L', undefined, 9],
    ]);
    assert.deepEqual(brief(qc(events)), [['QC-L1', 'GLU', '3.1']]);
    assert.deepEqual(
      unassigned(events).map((u) => [u.record, u.reason, u.instrumentCode, u.Result]),
      [
        [4, 'line 4: GLU is "N/A", a value the dialect reads as no result (noResult): not sent', 'GLU', 'N/A'],
        [7, 'line 7: CRE is "---", a value the dialect reads as no result (noResult): not sent', 'CRE', '---'],
        [8, 'line 8: sample number "S  3" does not match sampleNumber.pattern (a letter or digit first, then words joined by single spaces): not sent', 'GLU', '6.0'],
        [10, 'line 10: no sample number: not sent', 'GLU', '7.0'],
      ],
    );
    assert.equal(unassigned(events)[0]!.text, 'S-2,GLU,N/A,mmol/L,,Samp');
  });

  it('compares no-result values trimmed and ignoring case', () => {
    const events = read('Sample,Test,Result\nS-1,GLU,  undetermined \n', dialect({ noResult: ['Undetermined'] }));
    assert.equal(results(events).length, 0);
    assert.match(unassigned(events)[0]!.reason, /GLU is "undetermined", a value the dialect reads as no result/);
  });

  it('takes the sample number from part of the cell, and refuses a cell the pattern does not find one in', () => {
    const p2 = dialect({ sampleNumber: { take: '^([^*]+)', pattern: 'A\\d{11}' } });
    const events = read('Sample,Test,Result\n"A00035524001*Bank2  ",Mn,0.0083\n*nothing,Mn,1\nA123*short,Mn,2\n', p2);
    assert.deepEqual(brief(results(events)), [['A00035524001', 'Mn', '0.0083']]);
    assert.deepEqual(
      unassigned(events).map((u) => u.reason),
      ['line 3: sample "*nothing" holds no sample number as sampleNumber.take reads it: not sent', 'line 4: sample number "A123" does not match sampleNumber.pattern "A\\\\d{11}": not sent'],
    );
  });

  it('reads a decimal comma as a point and keeps the text as written', () => {
    const events = read('Sample;Test;Result\nS-1;GLU;5,4\nS-1;TXT;1,2,3\nS-1;CRP;<0,5\nS-1;PLT;1.234,5\n', dialect({ delimiter: 'semicolon', decimalComma: true }));
    assert.deepEqual(results(events).map((r) => [r.Result, r.rawResult]), [
      ['5.4', '5,4'],
      ['1,2,3', undefined],
      ['<0.5', '<0,5'],
      ['1.234,5', undefined],
    ]);
  });

  it('keeps a result whose time is not in the format, with its raw time and a problem', () => {
    const p2 = dialect({ layout: { form: 'row-per-result', sample: 'Sample', test: 'Test', value: 'Result', time: { columns: ['Date', 'Time'], format: 'DD/MM/YYYY HH:mm:ss' } } });
    const events = read('Sample,Test,Result,Date,Time\nS-1,GLU,5,08/02/2016,14:22:31\nS-2,GLU,6,2016-02-08,14:22\n', p2);
    assert.deepEqual(results(events).map((r) => [r.completedAt, r.completedAtRaw]), [
      ['2016-02-08T13:22:31.000Z', '08/02/2016 14:22:31'],
      [undefined, '2016-02-08 14:22'],
    ]);
    const first = events[0] as Extract<LabEvent, { type: 'results' }>;
    assert.deepEqual(first.problems, ['line 3: time "2016-02-08 14:22" is not written as layout.time.format "DD/MM/YYYY HH:mm:ss"']);
  });

  it('sends a patient row only when validWhen holds, and finds the header row past a banner by its first cell', () => {
    const text = ['== Results ==', '=================', 'Well\tSample\tTest\tResult\tStatus', 'A1\tS-1\tHIV\t213 cp/mL\tValid', 'A2\tS-2\tHIV\t40 cp/mL\tInvalid', 'A3\tS-3\tHIV\tNot detected\tValid'].join('\n');
    const p2 = dialect({ delimiter: 'tab', table: { skipRows: 0, startsAfter: '== Results ==', header: true, headerFirstCell: 'Well', endsAtEmptyRow: true }, validWhen: [{ column: 'Status', anyOf: ['Valid'] }] });
    const events = read(text, p2);
    assert.deepEqual(brief(results(events)), [
      ['S-1', 'HIV', '213 cp/mL'],
      ['S-3', 'HIV', 'Not detected'],
    ]);
    assert.deepEqual(unassigned(events).map((u) => u.reason), ['line 5: Status is "Invalid", not one of validWhen[0].anyOf ["Valid"]: not sent']);
    assert.throws(() => read(text, { ...p2, table: { ...p2.table, headerFirstCell: 'Position' } }), /no row after line 1 starts with "Position" \(table\.headerFirstCell\)/);
  });

  it('names columns by position when the table has no header row', () => {
    const events = read('S-1|GLU|5\n'.replaceAll('|', ','), dialect({ table: { skipRows: 0, header: false, endsAtEmptyRow: false }, layout: { form: 'row-per-result', sample: 1, test: 2, value: 3 } }));
    assert.deepEqual(brief(results(events)), [['S-1', 'GLU', '5']]);
  });

  it('skips rows, starts after a section title and ends at the first empty row', () => {
    const text = ['Instrument X', '* Run = 1', '[Setup]', 'a\tb', '', '[Results]', 'Sample\tTarget\tCt', 'S-1\tN1\t22.5', 'S-2\tN1\t24.0', '', '[Other]', 'S-9\tN1\t1'].join('\n');
    const p2 = dialect({ delimiter: 'tab', table: { skipRows: 2, startsAfter: '[Results]', header: true, endsAtEmptyRow: true }, layout: { form: 'row-per-result', sample: 'Sample', test: 'Target', value: 'Ct' } });
    assert.deepEqual(brief(results(read(text, p2))), [
      ['S-1', 'N1', '22.5'],
      ['S-2', 'N1', '24.0'],
    ]);
  });
});

describe('file reading: other layouts', () => {
  it('one row per sample, a column per test: "rest", blank cells kept as no result (not for the LIS, with why), units by test', () => {
    const p = dialect({ layout: { form: 'row-per-sample', sample: 'ID', tests: 'rest', units: { Na: 'mmol/L' } }, noResult: ['ND'] });
    const events = read('ID,Na,K,Cl\nP-1,140,4.1,\nP-2,ND,,99\n', p);
    assert.deepEqual(results(events).map((r) => [r.SampleNumber, r.instrumentCode, r.Result, r.units]), [
      ['P-1', 'Na', '140', 'mmol/L'],
      ['P-1', 'K', '4.1', undefined],
      ['P-2', 'Cl', '99', undefined],
    ]);
    assert.deepEqual(unassigned(events).map((u) => [u.reason, u.notForLis]), [
      ['line 3: Na is "ND", a value the dialect reads as no result (noResult): not sent', true],
      ['line 3: no value for K (an empty cell, read as no result): not sent', true],
      // Kept once its column showed a value (line 3): a column empty in every row would be no test of the file.
      ['line 2: no value for Cl (an empty cell, read as no result): not sent', true],
    ]);
    // A column and a row empty throughout are no results: a test not run in this file, a closing row.
    const closing = read('ID,Na,K,end\nP-1,140,,\nP-2,141,4.0,\nlast,,,\n', p);
    assert.deepEqual(unassigned(closing).map((u) => u.reason), ['line 2: no value for K (an empty cell, read as no result): not sent']);
  });

  it('one row per sample with the test columns listed, and QC rows by a sample-name pattern', () => {
    const p = dialect({ layout: { form: 'row-per-sample', sample: 1, tests: ['K', 4] }, qc: [{ by: 'sample', pattern: '^CTRL' }] });
    const events = read('ID,Na,K,Cl\nP-1,140,4.1,101\nCTRL-1,130,3.0,90\n', p);
    assert.deepEqual(brief(results(events)), [
      ['P-1', 'K', '4.1'],
      ['P-1', 'Cl', '101'],
    ]);
    assert.deepEqual(brief(qc(events)), [
      ['CTRL-1', 'K', '3.0'],
      ['CTRL-1', 'Cl', '90'],
    ]);
  });

  it('a plate: the label grid and the value grid matched by row letter and column', () => {
    const p = dialect({ delimiter: 'semicolon', decimalComma: true, table: { skipRows: 0, header: false, endsAtEmptyRow: false }, layout: { form: 'plate', samples: 'Sample', values: 'Abs', test: 'OD450' }, sampleNumber: { take: '^\\S+', pattern: '[A-Za-z0-9_-]+' }, qc: [{ by: 'sample', pattern: '^Bl_' }] });
    const text = ['Plate 1;;;', 'Sample;1;2;3', 'A;Un_1 1/1;Bl_1;', 'B;Un_2 1/1;;', ';;;', 'Abs;1;2;3', 'A;0,11;0,05;0,99', 'B;0,22;;'].join('\r');
    const events = read(text, p);
    assert.deepEqual(results(events).map((r) => [r.SampleNumber, r.instrumentCode, r.Result, r.rawResult]), [
      ['Un_1', 'OD450', '0.11', '0,11'],
      ['Un_2', 'OD450', '0.22', '0,22'],
    ]);
    assert.deepEqual(brief(qc(events)), [['Bl_1', 'OD450', '0.05']]);
    // A value in a well with no label is never sent.
    assert.deepEqual(unassigned(events).map((u) => u.reason), ['line 7: well A3 names no sample (no label in the file, and layout.wells does not name it): not sent']);
  });

  it('a plate well with a sample and no value (no amplification, say) is kept as no result, with why; an empty well is nothing', () => {
    const p = dialect({ delimiter: 'semicolon', table: { skipRows: 0, header: false, endsAtEmptyRow: false }, layout: { form: 'plate', samples: 'Sample', values: 'Cp', test: 'HBV' }, sampleNumber: { pattern: '[A-Za-z0-9_-]+' } });
    const text = ['Sample;1;2;3', 'A;S-1;S-2;', ';;;', 'Cp;1;2;3', 'A;31.2;;'].join('\r');
    const events = read(text, p);
    assert.deepEqual(brief(results(events)), [['S-1', 'HBV', '31.2']]);
    assert.deepEqual(unassigned(events).map((u) => [u.reason, u.notForLis, u.instrumentCode]), [['line 5: no value for HBV (an empty cell, read as no result): not sent', true, 'HBV']]);
  });

  it('fixed widths: the last column takes the rest of the line', () => {
    const p = dialect({ delimiter: { widths: [8, 6, 8, 10] }, table: { skipRows: 1, header: false, endsAtEmptyRow: false }, layout: { form: 'row-per-result', sample: 1, test: 2, value: 3, units: 4 } });
    const events = read('SAMPLE  TEST  VALUE   UNITS\n12345   GLU   5.40    mmol/L\n12346   HBA1C 6.1     %\n', p);
    assert.deepEqual(results(events).map((r) => [r.SampleNumber, r.instrumentCode, r.Result, r.rawResult, r.units]), [
      ['12345', 'GLU', '5.40', '5.40    ', 'mmol/L'],
      ['12346', 'HBA1C', '6.1', '6.1     ', '%'],
    ]);
  });
});

describe('file reading: RFC 4180 quoting, line ends and encodings', () => {
  it('a quoted cell holds the delimiter, a doubled quote and a line end; lines are counted in the file', () => {
    const rows = rowsOf('a,"b,1","say ""hi""","two\r\nlines"\r\nnext,"",x""y\rlast', 'comma');
    assert.deepEqual(rows, [
      { line: 1, cells: ['a', 'b,1', 'say "hi"', 'two\r\nlines'] },
      { line: 3, cells: ['next', '', 'x""y'] },
      { line: 4, cells: ['last'] },
    ]);
    assert.deepEqual(rowsOf('"unterminated,\nstill', 'comma'), [{ line: 1, cells: ['unterminated,\nstill'] }]);
    assert.deepEqual(rowsOf('a,b,\n', 'comma'), [{ line: 1, cells: ['a', 'b', ''] }]);
    assert.deepEqual(rowsOf('', 'comma'), []);
  });

  it('reads Latin-1, UTF-8 with a byte-order mark and UTF-16LE with a byte-order mark alike', () => {
    const text = 'Sample,Test,Result,Units\nS-1,Pb,0.5,µg/dL\n';
    const p = dialect({ layout: { form: 'row-per-result', sample: 'Sample', test: 'Test', value: 'Result', units: 'Units' } });
    for (const [encoding, bytes] of [
      ['latin1', Buffer.from(text, 'latin1')],
      ['utf8', Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(text, 'utf8')])],
      ['utf16le', Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')])],
    ] as const) {
      const events = read(bytes, { ...p, encoding });
      assert.deepEqual(results(events).map((r) => [r.SampleNumber, r.instrumentCode, r.Result, r.units]), [['S-1', 'Pb', '0.5', 'µg/dL']], encoding);
    }
  });
});

describe('file reading: the run date', () => {
  it('from the text before the table, for results whose rows carry no time', () => {
    const p = dialect({ delimiter: 'tab', table: { skipRows: 0, startsAfter: '[Results]', header: true, endsAtEmptyRow: true }, runDate: { from: 'header', pattern: '^\\* Run End = (.+)$', format: 'YYYY-MM-DD hh:mm:ss A' } });
    const events = read('* Run End = 2024-03-31 01:30:00 PM CEST\n[Results]\nSample\tTest\tResult\nS-1\tN1\t21.0\n', p);
    assert.deepEqual(results(events).map((r) => [r.completedAt, r.completedAtRaw]), [['2024-03-31T11:30:00.000Z', '2024-03-31 01:30:00 PM CEST']]);
  });

  it('from the file name', () => {
    const p = dialect({ runDate: { from: 'name', pattern: '_(\\d{8}_\\d{4})\\.csv$', format: 'YYYYMMDD_HHmm' } });
    const events = read('Sample,Test,Result\nS-1,GLU,5\n', p, 'run_20240105_0930.csv');
    assert.equal(results(events)[0]!.completedAt, '2024-01-05T08:30:00.000Z');
  });

  it('not found: the results are sent without a time, and the batch says why', () => {
    const p = dialect({ runDate: { from: 'name', pattern: '(\\d{8})', format: 'YYYYMMDD' } });
    const events = read('Sample,Test,Result\nS-1,GLU,5\n', p, 'export.csv');
    assert.equal(results(events)[0]!.completedAt, undefined);
    assert.deepEqual((events[0] as Extract<LabEvent, { type: 'results' }>).problems, ['the file name "export.csv" does not match runDate.pattern: results carry no run date']);
  });

  it('the date reader: 12-hour clock, one-digit parts, trailing zone text ignored, wrong text refused', () => {
    assert.equal(readDateTime('9/23/2016 11:54:59 AM', 'M/D/YYYY h:mm:ss A'), '20160923115459');
    assert.equal(readDateTime('9/23/2016 12:05:00 AM', 'M/D/YYYY h:mm:ss A'), '20160923000500');
    assert.equal(readDateTime('9/23/2016 12:05:00 PM', 'M/D/YYYY h:mm:ss A'), '20160923120500');
    assert.equal(readDateTime('2010-10-01 01:44:54 AM EDT', 'YYYY-MM-DD HH:mm:ss'), '20101001014454');
    assert.equal(readDateTime('2010/10/01', 'YYYY-MM-DD'), undefined);
    assert.equal(readDateTime('9/23/2016 13:05:00 PM', 'M/D/YYYY h:mm:ss A'), undefined);
  });

  it('a date that is no date on the calendar: the result is kept without a time, and the batch says why', () => {
    const p = dialect({ layout: { form: 'row-per-result', sample: 'Sample', test: 'Test', value: 'Result', time: { columns: ['When'], format: 'DD/MM/YYYY' } } });
    const events = read('Sample,Test,Result,When\nS-1,GLU,5,31/02/2024\n', p);
    assert.equal(results(events)[0]!.completedAt, undefined);
    assert.match((events[0] as Extract<LabEvent, { type: 'results' }>).problems[0]!, /time "31\/02\/2024" is not written as layout\.time\.format/);
  });
});

describe('file reading: files the dialect cannot read', () => {
  it('a column the dialect names that the header lacks: the line, the names found and the setting', () => {
    assert.throws(
      () => read('Sample,Test,Value\nS-1,GLU,5\n', GENERIC_CSV),
      (err: unknown) => err instanceof FileReadError && err.line === 1 && err.setting === 'layout.value' && /^line 1: no column "Result" \(layout\.value\); the column names on line 1 are "Sample", "Test", "Value"; set layout\.value to one of them$/.test(err.message),
    );
  });

  it('a section that is not in the file, and a file that ends before its header row', () => {
    assert.throws(() => read('a,b\n', dialect({ table: { skipRows: 0, startsAfter: '[Results]', header: true, endsAtEmptyRow: true } })), /no row starts with "\[Results\]" \(table\.startsAfter\)/);
    assert.throws(() => read('', GENERIC_CSV), /the file ends before its table's header row/);
  });

  it('a second grid or section of the name the dialect reads (a second plate or wavelength) refuses the file, rather than sending the first alone', () => {
    const plate = dialect({ delimiter: 'semicolon', table: { skipRows: 0, header: false, endsAtEmptyRow: false }, layout: { form: 'plate', samples: 'Sample', values: 'Abs', test: 'Abs' } });
    const one = ['Plate 1', 'Sample;1;2', 'A;S1;S2', '', 'Abs;1;2', 'A;0.1;0.2'];
    assert.equal(results(read(one.join('\n'), plate)).length, 2);
    assert.throws(
      () => read([...one, '', 'Wavelength 2', 'Abs;1;2', 'A;0.3;0.4'].join('\n'), plate),
      (err: unknown) => err instanceof FileReadError && err.line === 9 && err.setting === 'layout.values' && /^line 9: a second grid starts with "Abs" \(layout\.values\), after the one on line 5 \(two plates or two wavelengths in one file\?\); the dialect reads one, and the other's results would not be sent: export each on its own file$/.test(err.message),
    );
    assert.throws(() => read([...one, '', 'Plate 2', 'Sample;1;2', 'A;S3;S4'].join('\n'), plate), (err: unknown) => err instanceof FileReadError && err.line === 9 && err.setting === 'layout.samples');
    const groups = dialect({ delimiter: 'tab', table: { skipRows: 0, startsAfter: 'Group: Unknowns', header: true, endsAtEmptyRow: true } });
    const group = ['Group: Unknowns', 'Sample\tTest\tResult', 'S-1\tGLU\t5', ''];
    assert.equal(results(read(group.join('\n'), groups)).length, 1);
    assert.throws(
      () => read([...group, ...group].join('\n'), groups),
      (err: unknown) => err instanceof FileReadError && err.line === 5 && err.setting === 'table.startsAfter' && /a second section starts with "Group: Unknowns" \(table\.startsAfter\), after the one on line 1 \(one per plate\?\)/.test(err.message),
    );
  });

  it('quotes no more than 80 characters of the file in a reason: a credentials file read as a table shows its start, never its secrets', () => {
    const secret = 'hunter2-do-not-log';
    const line = `db_host=records.lab.local,db_user=lis_bridge_service_account,db_port=5432,db_password=${secret}`;
    assert.throws(
      () => read(`${line}\napi_token=${secret}\n`, GENERIC_CSV),
      (err: unknown) => {
        const message = (err as Error).message;
        assert.ok(!message.includes(secret), message);
        const quoted = [...message.matchAll(/"([^"]*)"/g)].map((m) => m[1]!.replace(/…$/, '')).filter((q) => line.includes(q));
        assert.ok(quoted.join('').length <= 80, `at most 80 characters of the file: ${message}`);
        assert.match(message, /^line 1: no column "Sample" \(layout\.sample\); the column names on line 1 are "db_host=records\.lab\.local", .*…"; set layout\.sample to one of them$/);
        return true;
      },
    );
    const long = 'X'.repeat(500);
    const kept = unassigned(read(`Sample,Test,Result\nS-1,${long},${long}\n`, dialect({ noResult: [long] })));
    assert.equal(kept.length, 1);
    assert.ok(kept[0]!.reason.split('X').length - 1 <= 80, kept[0]!.reason);
  });

  it('a table without rows: an other event that says so', () => {
    assert.deepEqual(read('Sample,Test,Result\n', GENERIC_CSV), [{ type: 'other', kind: 'empty-message', reason: 'no result rows in the file (0 rows read from its table)' }]);
  });
});

describe('file reading: bytes that are no text export', () => {
  it('a workbook or a UTF-16 file read as another encoding is refused naming what it is and the setting', () => {
    const workbook = Buffer.concat([Buffer.from([0x50, 0x4b, 0x03, 0x04]), Buffer.alloc(60)]);
    // A workbook under a text dialect: the setting to change is format (xlsx), not the encoding.
    assert.throws(() => read(workbook, GENERIC_CSV), (err: unknown) => err instanceof FileReadError && err.setting === 'format' && /ZIP archive \(an Excel \.xlsx workbook\?\) and the dialect reads text \(format text\): set format to xlsx \(and sheet\), or archive\.member to read one text file inside/.test(err.message));
    assert.throws(() => read(Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]), GENERIC_CSV), /Excel 97-2003 workbook \(\.xls\)/);
    const utf16 = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('Sample,Test,Result\nS-1,GLU,5\n', 'utf16le')]);
    assert.throws(() => read(utf16, GENERIC_CSV), /UTF-16 byte-order mark but the dialect reads utf8: set encoding to utf16le/);
    assert.equal(results(read(utf16, { ...GENERIC_CSV, encoding: 'utf16le' })).length, 1);
    // The reverse: an 8-bit export under a UTF-16 dialect would read as CJK characters; UTF-16 without its mark is read.
    const UTF16 = { ...GENERIC_CSV, encoding: 'utf16le' as const };
    assert.throws(() => read(Buffer.from('Sample,Test,Result\nS-1,GLU,5\n', 'latin1'), UTF16), (err: unknown) => err instanceof FileReadError && err.setting === 'encoding' && /^the file is not UTF-16 text \(no zero byte in its first 4 KB.*set encoding to utf8 or latin1/.test(err.message));
    assert.equal(results(read(Buffer.from('Sample,Test,Result\nS-1,GLU,5\n', 'utf16le'), UTF16)).length, 1);
  });
});
