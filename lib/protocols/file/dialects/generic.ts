import type { FileDialectProfile } from '../types';
import { SAMPLE_NUMBER } from './sample-number';

/** The starting point for a CSV with a header row and one result per row: name the columns in the overrides. */
export const GENERIC_CSV: FileDialectProfile = {
  id: 'generic-csv',
  label: 'Generic CSV, one result per row',
  vendor: 'Generic',
  model: 'CSV export',
  encoding: 'utf8',
  delimiter: 'comma',
  table: { skipRows: 0, header: true, endsAtEmptyRow: false },
  layout: { form: 'row-per-result', sample: 'Sample', test: 'Test', value: 'Result' },
  decimalComma: false,
  noResult: ['---', 'N/A', 'No Value', 'Undetermined'],
  sampleNumber: { pattern: SAMPLE_NUMBER },
  qc: [],
};

/**
 * SENAITE's generic "two dimension" import: one row per sample, a column per
 * test named in the header, `-----` and `ND` for no result, closed by an
 * `end` column and an `end` row. Source: senaite/senaite.core
 * src/senaite/core/exportimport/instruments/generic/samples/2dimension.csv.
 */
export const SENAITE_TWO_DIMENSION: FileDialectProfile = {
  id: 'senaite-two-dimension',
  label: 'Two-dimension CSV (a column per test, SENAITE generic)',
  vendor: 'Generic',
  model: 'Two-dimension CSV',
  encoding: 'utf8',
  delimiter: 'comma',
  table: { skipRows: 0, header: true, endsAtEmptyRow: false },
  layout: { form: 'row-per-sample', sample: 1, tests: 'rest' },
  decimalComma: false,
  noResult: ['-----', 'ND'],
  // `end` closes the table: no sample number, and the pattern refuses it if a value stood there.
  sampleNumber: { pattern: `(?!end$)${SAMPLE_NUMBER}` },
  qc: [],
};
