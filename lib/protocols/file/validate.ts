/**
 * A file dialect's consistency, each problem with the path of its setting (as
 * the dialect and a site's overrides spell it), so the editor shows it next
 * to the field. Built-in dialects meet the same rules (their tests say so).
 */
import type { ProfileIssue } from '../../dialect/overrides';
import { isKnownTimeZone } from '../../lab/timestamp';
import { formatProblem } from './date';
import type { ColumnRef, FileDialectProfile, NamedTest } from './types';
import { BIOPLEX_COLUMNS } from './bioplex';

const ID = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;
/** A plate well as a plate map names it: a row letter (A-Z, AA-AF on a 1536-well plate) and a column number. */
const WELL = /^(?:[A-Z]|A[A-F])[1-9][0-9]?$/;
/** A workbook unpacking to more than this is no results export, whatever a site allows (the runtime's memory is shared). */
const MAX_UNPACKED_MB = 1024;
/** More rows than this cost gigabytes however short they are: a site that needs them splits the export. */
const MAX_ROWS = 5_000_000;

export class FileDialectError extends Error {
  readonly problems: readonly string[];

  constructor(id: string, problems: readonly string[]) {
    super(`file dialect ${JSON.stringify(id)} is not usable: ${problems.join('; ')}`);
    this.name = 'FileDialectError';
    this.problems = problems;
  }
}

/** A regular expression's problem, or undefined when it compiles. */
function regexProblem(source: string): string | undefined {
  try {
    new RegExp(source, 'u');
    return undefined;
  } catch (err) {
    return (err as Error).message;
  }
}

/**
 * The layout's columns still named while the table has no header row: what
 * pointing at a header-less file leaves to be pointed at, one column per
 * click (each of them is also an issue of fileProfileIssues).
 */
export function pendingColumns(p: FileDialectProfile): string[] {
  if (p.table.header) return [];
  const l = p.layout;
  if (l.form === 'plate') return [];
  const named = (path: string, c: ColumnRef | undefined) => (typeof c === 'string' ? [path] : []);
  const time = (l.time?.columns ?? []).flatMap((c, i) => named(`layout.time.columns[${i}]`, c));
  const testColumns = l.form !== 'row-per-result' ? [] : Array.isArray(l.test) ? (l.test as readonly ColumnRef[]).flatMap((c, i) => named(`layout.test[${i}]`, c)) : typeof l.test === 'object' ? [] : named('layout.test', l.test as ColumnRef);
  if (l.form === 'row-per-result') return [...named('layout.sample', l.sample), ...testColumns, ...named('layout.value', l.value), ...named('layout.units', l.units), ...named('layout.flags', l.flags), ...time];
  const tests = l.tests === 'rest' ? ['layout.tests'] : l.tests.flatMap((c, i) => named(`layout.tests[${i}]`, c));
  return [...named('layout.sample', l.sample), ...tests, ...named('layout.assay', l.assay), ...time];
}

export function fileProfileIssues(p: FileDialectProfile): ProfileIssue[] {
  const out: ProfileIssue[] = [];
  const add = (path: string, message: string) => out.push({ path, message: `${path}: ${message}` });
  const regex = (path: string, source: string) => {
    const problem = regexProblem(source);
    if (problem !== undefined) add(path, `not a regular expression (${problem})`);
  };
  const column = (path: string, c: ColumnRef) => {
    if (typeof c === 'number' && c < 1) add(path, `a column position counts from 1, got ${c}`);
    if (typeof c === 'string' && c.trim() === '') add(path, 'a column name must not be empty');
    if (typeof c === 'string' && !p.table.header) add(path, `names a column ${JSON.stringify(c)}, and the table has no header row (table.header false): give its position (1, 2, ...), or point at a value of it`);
  };
  const namedTest = (t: NamedTest) => {
    if ('constant' in t) {
      if (t.constant.trim() === '') add('layout.test.constant', 'name the test every value is a result of');
    } else if (t.from === 'block') {
      if (p.table.blocks === undefined) add('layout.test.from', 'names the test by each block\'s title: it needs table.blocks');
    } else if (t.from === 'line') {
      if (p.layout.form !== 'plate' || p.layout.valuesLine === undefined) add('layout.test.from', 'names the test by the grid line each value is read from: it needs a plate with layout.valuesLine');
    } else regex('layout.test.pattern', t.pattern);
  };
  const format = (path: string, f: string) => {
    const problem = formatProblem(f);
    if (problem !== undefined) add(path, problem);
  };

  if (!ID.test(p.id)) add('id', `${JSON.stringify(p.id)} must be lower-case words joined by '-'`);
  for (const key of ['label', 'vendor', 'model'] as const) if (p[key].trim() === '') add(key, 'must not be empty');
  if (p.timeZone !== undefined && !isKnownTimeZone(p.timeZone)) add('timeZone', `${JSON.stringify(p.timeZone)} is not a known IANA zone`);
  const xlsx = p.format === 'xlsx';
  if (p.sheet !== undefined && !xlsx) add('sheet', 'names a workbook sheet: it needs format xlsx');
  if (typeof p.sheet === 'number' && p.sheet < 1) add('sheet', `a sheet position counts from 1, got ${p.sheet}`);
  if (typeof p.sheet === 'string' && p.sheet.trim() === '') add('sheet', 'a sheet name must not be empty');
  if (Array.isArray(p.sheet)) {
    if (p.sheet.length === 0) add('sheet', 'list at least one sheet name');
    (p.sheet as readonly string[]).forEach((n, i) => {
      if (n.trim() === '') add(`sheet[${i}]`, 'a sheet name must not be empty');
    });
  }
  if (p.maxUnpackedMB !== undefined && !xlsx && p.archive === undefined) add('maxUnpackedMB', 'bounds a workbook or an archive\'s member: it needs format xlsx or archive');
  if (p.archive !== undefined) regex('archive.member', p.archive.member);
  if (p.maxUnpackedMB !== undefined && !(p.maxUnpackedMB >= 1 && p.maxUnpackedMB <= MAX_UNPACKED_MB)) add('maxUnpackedMB', `must be from 1 to ${MAX_UNPACKED_MB} (MB), got ${p.maxUnpackedMB}`);
  if (p.maxRows !== undefined && !(p.maxRows >= 1 && p.maxRows <= MAX_ROWS)) add('maxRows', `must be from 1 to ${MAX_ROWS.toLocaleString('en-US')} (rows), got ${p.maxRows}`);
  if (typeof p.delimiter === 'object') {
    if (p.delimiter.widths.length === 0) add('delimiter.widths', 'list at least one column width');
    p.delimiter.widths.forEach((w, i) => {
      if (w < 1) add(`delimiter.widths[${i}]`, `a width is at least 1 character, got ${w}`);
    });
  }
  if (p.table.skipRows < 0) add('table.skipRows', `must be 0 or more, got ${p.table.skipRows}`);
  if (p.table.headerFirstCell !== undefined && !p.table.header) add('table.headerFirstCell', 'names the header row: it needs table.header true');
  if (p.table.blocks !== undefined) {
    regex('table.blocks', p.table.blocks);
    if (p.table.startsAfter !== undefined) add('table.startsAfter', 'a file of blocks starts a table at each block\'s title (table.blocks): leave startsAfter out');
    if (p.layout.form === 'plate') add('table.blocks', 'a plate\'s grids are found by their titles (layout.values, layout.samples): blocks are for tables');
  }
  if (p.format === 'bioplex-xml') {
    // The reader makes the table: a header row of its columns first, then a row per well and bead region.
    const t = p.table;
    if (!t.header || t.skipRows !== 0 || t.startsAfter !== undefined || t.headerFirstCell !== undefined || t.blocks !== undefined || t.quotedLines) add('table', `format bioplex-xml makes the table itself (a header row ${BIOPLEX_COLUMNS.join(', ')}, then a row per well and bead region): keep table.header true and skipRows 0, and leave startsAfter, headerFirstCell, blocks and quotedLines out`);
    if (p.layout.form === 'plate') add('layout.form', 'format bioplex-xml reads a table of a row per well and bead region: row-per-result (or row-per-sample), not plate');
    const known = new Set<ColumnRef>(BIOPLEX_COLUMNS);
    const named = p.layout.form === 'row-per-result' ? ([['layout.sample', p.layout.sample], ['layout.test', p.layout.test], ['layout.value', p.layout.value], ['layout.units', p.layout.units], ['layout.flags', p.layout.flags]] as const) : [];
    for (const [path, c] of named) if (typeof c === 'string' && !known.has(c)) add(path, `${JSON.stringify(c)} is no column of format bioplex-xml's table: its columns are ${BIOPLEX_COLUMNS.join(', ')}`);
  }
  if (p.table.quotedLines && (xlsx || typeof p.delimiter !== 'string')) add('table.quotedLines', 'cuts a quoted line again at the delimiter: it needs a text file cut at commas, semicolons or tabs');
  if (p.table.headerFirstCell !== undefined && p.table.headerFirstCell.trim() === '') add('table.headerFirstCell', 'must not be empty');
  if (Array.isArray(p.table.startsAfter) && (p.table.startsAfter.length === 0 || p.table.startsAfter.every((c) => c.trim() === ''))) add('table.startsAfter', 'name the section title\'s cells, or one text for its first cell');
  const l = p.layout;
  if (l.form === 'row-per-result') {
    column('layout.sample', l.sample);
    if (Array.isArray(l.test)) {
      if (l.test.length === 0) add('layout.test', 'list the columns the test code is made of, or name one');
      (l.test as readonly ColumnRef[]).forEach((c, i) => column(`layout.test[${i}]`, c));
    } else if (typeof l.test === 'object') namedTest(l.test as NamedTest);
    else column('layout.test', l.test);
    if (l.headerUnits && !p.table.header) add('layout.headerUnits', 'reads the unit from the value column\'s header: it needs table.header true');
    column('layout.value', l.value);
    if (l.repeats && (typeof l.test !== 'string' || typeof l.value !== 'string' || !p.table.header)) add('layout.repeats', 'finds each group by the names of its test and value columns: name both (layout.test, layout.value) and keep table.header true');
    if (l.units !== undefined) column('layout.units', l.units);
    if (l.flags !== undefined) column('layout.flags', l.flags);
  } else if (l.form === 'row-per-sample') {
    column('layout.sample', l.sample);
    if (l.tests === 'rest' && !p.table.header) add('layout.tests', '"rest" takes the test codes from the column names: it needs table.header true');
    if (l.headerUnits && !p.table.header) add('layout.headerUnits', 'reads the units from the test columns\' header cells: it needs table.header true');
    if (l.notTests !== undefined) {
      if (l.tests !== 'rest') add('layout.notTests', 'leaves columns out of tests "rest": with a list of tests, list only the test columns');
      l.notTests.forEach((c, i) => column(`layout.notTests[${i}]`, c));
    }
    if (l.testPattern !== undefined) {
      regex('layout.testPattern', l.testPattern);
      if (l.tests !== 'rest') add('layout.testPattern', 'picks the test columns of tests "rest" by their names: with a list of tests, list only the test columns');
    }
    if (l.replicatesBelow && !p.table.endsAtEmptyRow) add('layout.replicatesBelow', 'gives a row without a sample the sample above it, up to the table\'s end: it needs table.endsAtEmptyRow true, or the rows of what follows the table would be read as its last sample\'s');
    if (l.assay !== undefined) {
      column('layout.assay', l.assay);
      if (l.tests !== 'rest' && l.tests.some((t) => String(t) === String(l.assay))) add('layout.assay', 'names the column of each row\'s assay, part of its test codes: it is not one of layout.tests');
    }
    if (l.someTests && (l.tests === 'rest' || p.table.blocks === undefined)) add('layout.someTests', 'lets each block of a file of blocks (table.blocks) read those of the listed layout.tests it has: it needs both');
    if (l.tests !== 'rest') {
      if (l.tests.length === 0) add('layout.tests', 'list at least one test column');
      l.tests.forEach((c, i) => column(`layout.tests[${i}]`, c));
    }
  } else {
    if (l.samples !== undefined && l.samples.trim() === '') add('layout.samples', 'name the first cell of the row above the sample names');
    if (l.samples === undefined && (l.wells === undefined || Object.keys(l.wells).length === 0)) add('layout.wells', 'a plate without a grid of sample labels (layout.samples) is read only with a plate map naming its wells: a well\'s position is never a sample number');
    if (l.values.trim() === '') add('layout.values', 'name the first cell of the row above the values');
    if (typeof l.test === 'object') namedTest(l.test);
    else if (l.test.trim() === '') add('layout.test', 'name the test the values are results of');
    if (l.samplesLine !== undefined && l.samples === undefined) add('layout.samplesLine', 'names a line of the label grid: it needs layout.samples');
    if (l.samplesLine !== undefined && l.samplesLine.trim() === '') add('layout.samplesLine', 'name the last cell of the grid line to read, or leave it out');
    const lines = typeof l.valuesLine === 'string' ? [l.valuesLine] : (l.valuesLine ?? []);
    if (Array.isArray(l.valuesLine) && lines.length === 0) add('layout.valuesLine', 'name the last cell of each grid line to read, or leave it out');
    if (lines.some((line) => line.trim() === '')) add('layout.valuesLine', 'name the last cell of the grid line to read, or leave it out');
    if (new Set(lines.map((line) => line.trim())).size < lines.length) add('layout.valuesLine', 'names a line twice: each line is read once');
    // Several lines under one test code would send two measures as one test.
    const byLine = typeof l.test === 'object' && 'from' in l.test && l.test.from === 'line';
    if (lines.length > 1 && !byLine) add('layout.valuesLine', 'reads several lines, a test each: set layout.test to { "from": "line" } (each value\'s test its line\'s name)');
    for (const [well, sample] of Object.entries(l.wells ?? {})) {
      if (!WELL.test(well)) add(`layout.wells.${well}`, `${JSON.stringify(well)} is not a well: a row letter and a column number (A1, H12, P24)`);
      if (sample.trim() === '') add(`layout.wells.${well}`, 'name the sample in the well, or leave the well out');
    }
  }
  if (l.form !== 'plate' && l.time !== undefined) {
    if (l.time.columns.length === 0) add('layout.time.columns', 'list at least one column');
    l.time.columns.forEach((c, i) => column(`layout.time.columns[${i}]`, c));
    format('layout.time.format', l.time.format);
  }
  p.noResult.forEach((v, i) => {
    if (v.trim() === '') add(`noResult[${i}]`, 'an empty cell is no value already; list only the texts that mean "no result"');
  });
  if (p.sampleNumber.take !== undefined) regex('sampleNumber.take', p.sampleNumber.take);
  regex('sampleNumber.pattern', p.sampleNumber.pattern);
  p.qc.forEach((rule, i) => {
    if (rule.by === 'sample') regex(`qc[${i}].pattern`, rule.pattern);
    else if (rule.by === 'block') {
      regex(`qc[${i}].pattern`, rule.pattern);
      if (p.table.blocks === undefined) add(`qc[${i}].by`, 'marks the blocks whose title matches as controls: it needs table.blocks');
    } else {
      column(`qc[${i}].column`, rule.column);
      if (rule.anyOf.length === 0) add(`qc[${i}].anyOf`, 'list at least one value');
    }
  });
  if (l.form !== 'plate' && l.notWith !== undefined) {
    if (l.notWith.length === 0 || l.notWith.some((c) => c.trim() === '')) add('layout.notWith', 'name the columns whose table this dialect does not read, each a column name');
    const reads = l.form === 'row-per-result' ? [l.sample, l.value, ...(Array.isArray(l.test) ? l.test : typeof l.test === 'object' ? [] : [l.test])] : [l.sample, ...(l.tests === 'rest' ? [] : l.tests)];
    if (l.notWith.some((c) => reads.map(String).includes(c.trim()))) add('layout.notWith', 'names a column this dialect reads (its sample, test or value): a table with it would always be refused');
  }
  (p.validWhen ?? []).forEach((rule, i) => {
    column(`validWhen[${i}].column`, rule.column);
    const [key, values] = 'anyOf' in rule ? ['anyOf', rule.anyOf] : ['noneOf', rule.noneOf];
    if (values.length === 0) add(`validWhen[${i}].${key}`, 'list at least one value');
  });
  if (p.layout.form === 'plate' && p.validWhen !== undefined) add('validWhen', 'a plate has no columns to check: leave validWhen out');
  if (p.runDate !== undefined) {
    regex('runDate.pattern', p.runDate.pattern);
    format('runDate.format', p.runDate.format);
  }
  return out;
}

export function fileProfileProblems(p: FileDialectProfile): string[] {
  return fileProfileIssues(p).map((i) => i.message);
}
