import type { FileEncoding } from './encoding';

/**
 * A file dialect: how one instrument's result export reads. It is data (like
 * the ASTM and HL7 profiles): the reader (./read.ts) never branches on an
 * instrument, only on these settings, and a site changes them by overrides.
 */

/** A column: its name in the table's header row (trimmed, exact), or its 1-based position. */
export type ColumnRef = string | number;

/** Fixed-width columns: each width in characters; the last column takes the rest of the line. */
export interface FixedWidths {
  readonly widths: readonly number[];
}

export interface FileTable {
  /** Rows skipped at the top of the file before anything else is looked at. */
  readonly skipRows: number;
  /**
   * The table starts after the first row whose first cell is this text (a section title such as `[Results]`), or
   * whose first cells are these (a title over two cells: `["DataType:", "Net MFI"]`); absent: right after skipRows.
   */
  readonly startsAfter?: string | readonly string[];
  /** Whether the table's first row holds the column names; false: columns are named by position only. */
  readonly header: boolean;
  /** The header row is the first row (from the table's start) whose first cell is this text (`Location`), passing banners and rules of `=`. */
  readonly headerFirstCell?: string;
  /** Whether the table ends at the first empty row (a section of a longer file); false: empty rows are passed over. */
  readonly endsAtEmptyRow: boolean;
  /**
   * A file of several tables, one after another (a table per target, method or plate): each row whose first cell
   * matches this pattern starts one, named by its first group (`^Quantitative analysis of .*\((.+)\)$`: `28S`), and
   * each is read as a table of its own, from its own header, all as one file. table.skipRows applies before the first.
   */
  readonly blocks?: string;
  /** Each line is one quoted field holding a whole delimited row (`"S-1,GLU,5.4"`, HACH DR3900): such a line is cut again inside. */
  readonly quotedLines?: boolean;
}

/** A date and time read from text: `pattern` finds it (its first group, else the whole match), `format` says how it is written. */
export interface DateReading {
  readonly pattern: string;
  /** Tokens YYYY, MM, M, DD, D, HH, H (24 h), hh, h (12 h, with A for AM/PM), mm, ss; any other character is itself. */
  readonly format: string;
}

/** Where a row's completion time is: one column, or several joined with a space (a Date and a Time column), and how it is written. */
export interface TimeColumns {
  readonly columns: readonly ColumnRef[];
  readonly format: string;
}

/**
 * A test named once for the file or the table rather than on each row: in a
 * line above the table (`Test name: 472 ABS`, a section title), in the file's
 * name (`dsDNA 7_19_2023.csv`), each by a pattern (its first group, else the
 * match), in the title of each block of a file of several tables
 * (`from: 'block'`, table.blocks), on a plate the name of the grid line
 * each value is read from (`from: 'line'`, layout.valuesLine), or nowhere in
 * the file: a constant the integrator sets.
 */
export type NamedTest = { readonly from: 'header' | 'name'; readonly pattern: string } | { readonly constant: string } | { readonly from: 'block' } | { readonly from: 'line' };

/** One row per result: a sample, a test and a value on each row. */
export interface RowPerResult {
  readonly form: 'row-per-result';
  readonly sample: ColumnRef;
  /** The test code's column; several columns joined by a space (a program and its analyte: `P656 SiO₂`); or the test named once for the whole file (NamedTest). */
  readonly test: ColumnRef | readonly ColumnRef[] | NamedTest;
  readonly value: ColumnRef;
  /** The value column's header holds its unit (`Conc. [cp/µL]`, `Nucleic Acid(ng/uL)`): every value's unit, when layout.units does not name a column. */
  readonly headerUnits?: boolean;
  readonly units?: ColumnRef;
  readonly flags?: ColumnRef;
  readonly time?: TimeColumns;
  /**
   * The test and value columns repeat along the row, a group per dye or target (`Target`, `Conc.` under FAM, then
   * again under VIC): each column named layout.test starts a group, its value the first column named layout.value
   * after it; one result per group. Both name columns.
   */
  readonly repeats?: boolean;
  /** Column names that say a table is another dialect's (as RowPerSample's notWith). */
  readonly notWith?: readonly string[];
}

/** One row per sample, a column per test (its test code is the column's name, or `C<n>` without a header). */
export interface RowPerSample {
  readonly form: 'row-per-sample';
  readonly sample: ColumnRef;
  /** The test columns; `rest`: every column after the sample column that no other setting names. */
  readonly tests: readonly ColumnRef[] | 'rest';
  /** With tests `rest`: columns that are no test (a count beside the analytes: `Total Events`). */
  readonly notTests?: readonly ColumnRef[];
  /**
   * With tests `rest`: only the columns whose name this pattern matches are tests, each test code the pattern's first
   * group, else the whole name (`^(.+) AVERAGE MFI$`: the column `R25: RP1 AVERAGE MFI` is test `R25: RP1`, its
   * `MEDIAN` and `COUNT` beside it none): an analyte and a statistic in one header cell.
   */
  readonly testPattern?: string;
  /** Units by test code, when the file does not carry them. */
  readonly units?: Readonly<Record<string, string>>;
  /**
   * Each test column's header holds its unit, split from the test code: the
   * text in the brackets closing the cell (`WBC(10^9/L)`, `Conc. [cp/µL]`), or
   * the cell's second line (`Concentration` over `(ng/ul)`); over layout.units.
   */
  readonly headerUnits?: boolean;
  /**
   * In a file of blocks (table.blocks), each block reads those of layout.tests its header names, at least one: a
   * protocol names the calculated column of each of its groups (`MeanResult` in one, `AvgConc` in another). Without
   * it, every block must have every test column.
   */
  readonly someTests?: boolean;
  /**
   * Column names that say a table is not this dialect's to read: a table whose header names one is refused, naming
   * it. SoftMax's `MeanValue` is a group's mean reading; beside a standard curve's `AvgConc` the group's result is the
   * concentration, which another dialect reads: a dialect of MeanValue would send readings as results.
   */
  readonly notWith?: readonly string[];
  /**
   * A row whose sample cell is empty is a replicate well of the sample named on a row above it, up to the table's
   * end (SoftMax Pro's group tables name a sample on its first well's row only): its values are that sample's.
   */
  readonly replicatesBelow?: boolean;
  /**
   * A column naming each row's assay, part of its test codes: each is the assay's cell, a space, then the test
   * column's code (a genotyping run's `SNP Assay Name` `CYP19_2` and the column `Allele1 Ct`: `CYP19_2 Allele1 Ct`).
   * A row whose assay cell is empty has no test code: its results are held.
   */
  readonly assay?: ColumnRef;
  readonly time?: TimeColumns;
}

/**
 * A plate: a grid of values (rows A-H, columns 1-12, or a 384-well plate's
 * A-P by 1-24) under a row whose first cell names it, and the samples in its
 * wells: a grid of sample labels of the same shape under a title of its own,
 * or a plate map the integrator gives (`wells`), or both; one test. A grid may
 * have a row of column numbers above its rows, and several lines per plate
 * row, each named in its last cell (Gen5 writes a reading, its blank-corrected
 * value and `[Concentration]` for every plate row): `samplesLine` and
 * `valuesLine` say which line is read. A well's name is its row letter and its
 * column number (`C4`); a well no label and no map names is held, never sent
 * under its position.
 */
export interface Plate {
  readonly form: 'plate';
  /** The first cell of the row heading the sample-label grid (`Sample`, Gen5's `Layout`); absent: the file names no samples, `wells` does. */
  readonly samples?: string;
  /** The first cell of the row heading the value grid (`Abs`). */
  readonly values: string;
  /** The test code every value is a result of, or where the file names it once (NamedTest). */
  readonly test: string | NamedTest;
  readonly units?: string;
  /** In a label grid of several lines per plate row, the last cell of the line holding the labels (`Well ID`). */
  readonly samplesLine?: string;
  /**
   * In a value grid of several lines per plate row, the last cell of the line holding the values (`[Concentration]`);
   * several lines (`normDAPI`, `normGFP`: a test each) are each read, with layout.test `{ from: 'line' }`.
   */
  readonly valuesLine?: string | readonly string[];
  /** The plate map the integrator gives: well (`A1`) to sample number, over the label grid's label for that well. */
  readonly wells?: Readonly<Record<string, string>>;
}

export type FileLayout = RowPerResult | RowPerSample | Plate;

/** A row is a control (QC, kept apart) when its sample name matches a pattern, or a column holds one of some values. */
export type QcRule =
  | { readonly by: 'sample'; readonly pattern: string }
  | { readonly by: 'column'; readonly column: ColumnRef; readonly anyOf: readonly string[] }
  /** In a file of blocks, every row of a block whose title (table.blocks' first group) matches: a group of controls. */
  | { readonly by: 'block'; readonly pattern: string };

export interface FileDialectProfile {
  readonly id: string;
  readonly label: string;
  readonly vendor: string;
  readonly model: string;
  /**
   * `text` (absent: text): a text export, decoded in `encoding` and cut at `delimiter`. `xlsx`: an Excel workbook,
   * one sheet read as cells (./workbook.ts); `encoding` and `delimiter` are then not used. `bioplex-xml`: Bio-Rad
   * Bio-Plex Manager's XML export, decoded in `encoding` and read as a table the reader makes (./bioplex.ts: a header
   * row of its columns, then a row per well and bead region); `delimiter` is then not used.
   */
  readonly format?: 'text' | 'xlsx' | 'bioplex-xml';
  /**
   * The workbook's sheet (format xlsx): its name (exact), its 1-based position, or a list of names, the first of
   * them the workbook has (one software's versions name the results sheet differently); absent: the first sheet.
   */
  readonly sheet?: string | number | readonly string[];
  /** The most a workbook, or an archive's member, may unpack to, in MB (format xlsx, or archive; absent: 50): a larger one is refused unread (a ZIP bomb). */
  readonly maxUnpackedMB?: number;
  /**
   * The file is a ZIP archive of a run's exports: the one member whose name (without its folder) this pattern
   * matches is read, as format says; a file that is no archive, or holds no such member or several, is refused.
   */
  readonly archive?: { readonly member: string };
  /** The most rows a file may have (a text export's lines, a sheet's rows; absent: 500,000): a larger one is refused whole, unread. */
  readonly maxRows?: number;
  /** The file's character set; a UTF-8 or UTF-16LE byte-order mark is read and dropped. */
  /** The text's encoding: utf8, latin1, utf16le, or a legacy code page (./encoding.ts: windows-1250 to -1258, gbk, gb18030, big5, shift_jis). */
  readonly encoding: FileEncoding;
  /** Cells are separated by a character (quoted per RFC 4180) or cut at fixed widths. */
  readonly delimiter: 'comma' | 'semicolon' | 'tab' | FixedWidths;
  readonly table: FileTable;
  readonly layout: FileLayout;
  /** A value written `12,5` is sent as `12.5` (the file's text is kept as rawResult). */
  readonly decimalComma: boolean;
  /** Values that mean "no result" (`Undetermined`, `---`, `N/A`), compared trimmed and ignoring case: never sent, kept as unassigned with the reason. */
  readonly noResult: readonly string[];
  readonly sampleNumber: {
    /** Which part of the sample cell is the sample number (a regular expression: its first group, else the whole match); absent: the whole trimmed cell. */
    readonly take?: string;
    /** What a sample number must look like to be sent (a regular expression the whole number must match); one that does not is kept unassigned with the reason. */
    readonly pattern: string;
  };
  /** Rows that are controls; none: every row is a patient sample. */
  readonly qc: readonly QcRule[];
  /**
   * A patient row is sent only when each of these columns holds one of its values (`Status` is `Valid`), or none of
   * them (`Well` is not `Average`: the export's own summary row); any other row is counted as not for the LIS, with
   * the reason.
   */
  readonly validWhen?: ReadonlyArray<{ readonly column: ColumnRef; readonly anyOf: readonly string[] } | { readonly column: ColumnRef; readonly noneOf: readonly string[] }>;
  /** The run's date and time, for results whose rows carry none: read from the file's text before the table, or from its name. */
  readonly runDate?: DateReading & { readonly from: 'header' | 'name' };
  /** The instrument's IANA zone, when it is not the site's. */
  readonly timeZone?: string;
}
