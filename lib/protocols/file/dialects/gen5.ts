import type { FileDialectProfile, Plate } from '../types';
import { SAMPLE_NUMBER } from './sample-number';

/** A Gen5 plate: each well named by the `Layout` grid's `Well ID` line, its value one line of the `Results` grid, the test that line's name unless given. */
const resultsLine = (line: string, units?: string, test: string = line): Plate => ({ form: 'plate', samples: 'Layout', samplesLine: 'Well ID', values: 'Results', valuesLine: line, test, ...(units === undefined ? {} : { units }) });

/**
 * Agilent (BioTek) Gen5, a plate read against a standard curve, exported as
 * tab text: the protocol's `Layout` grid names each well (`Well ID`: `STD1`,
 * `BLK`, `SPL1:1`, the sample at its first dilution), the `Results` grid
 * holds three lines per plate row, each named in its last cell (the reading
 * `630nmAbsRead:630`, its blank-corrected value, `[Concentration]`); the
 * concentration from the curve is the result a LIS takes. Both grids have a
 * row of column numbers above their rows. Standards, blanks and controls (`CTL1`) are QC.
 * A protocol without a curve has no `[Concentration]` line: the file is
 * refused naming layout.valuesLine (set it to the reading's own line name).
 * Sample: Benchling-Open-Source/allotropy
 * tests/parsers/agilent_gen5/testdata/absorbance/endpoint_stdcurve_singleplate.txt (MIT).
 */
export const AGILENT_GEN5_CONCENTRATION: FileDialectProfile = {
  id: 'agilent-gen5-concentration',
  label: 'Agilent BioTek Gen5 (plate with a standard curve, tab text)',
  vendor: 'Agilent BioTek',
  model: 'Gen5 (Synergy, Epoch, Cytation readers)',
  encoding: 'utf8',
  delimiter: 'tab',
  table: { skipRows: 0, header: false, endsAtEmptyRow: false },
  layout: resultsLine('[Concentration]'),
  decimalComma: false,
  noResult: ['?????', 'OVRFLW'],
  sampleNumber: { pattern: SAMPLE_NUMBER },
  // Gen5's well types: SPL samples, STD standards, BLK blanks, CTL controls; POS/NEG (POSCON, NEGCON) as protocols name their controls.
  qc: [{ by: 'sample', pattern: '^(?:STD|BLK|CTL|POS|NEG)' }],
};

/**
 * Gen5, a protocol whose curve's concentrations are a grid of their own,
 * titled `Conc` (one line per plate row), below the reading's grid and the
 * curve fit: the `Layout` grid names the wells as in
 * AGILENT_GEN5_CONCENTRATION. A concentration off the curve is written
 * `<0.000` or `>...` and sent as written. Sample: Benchling-Open-Source/allotropy
 * tests/parsers/agilent_gen5/testdata/absorbance/Lowry_Protein_Assay_no_results_matrix.txt (MIT).
 */
export const AGILENT_GEN5_CONC_GRID: FileDialectProfile = {
  ...AGILENT_GEN5_CONCENTRATION,
  id: 'agilent-gen5-conc-grid',
  label: 'Agilent BioTek Gen5 (plate with a Conc grid, tab text)',
  layout: { form: 'plate', samples: 'Layout', samplesLine: 'Well ID', values: 'Conc', test: 'Conc' },
};

/**
 * Gen5, a luminescence endpoint read with no curve: the `Results` grid's
 * line `LUM:Lum` (the read step `LUM`, its data `Lum`) holds each well's
 * light in RLU, the result; a normalised line beside it (`NormLum`) is not
 * read. Positive and negative controls (`POSCON`, `NEGCON`) are QC.
 * Sample: Benchling-Open-Source/allotropy
 * tests/parsers/agilent_gen5/testdata/luminescence/endpoint_singleplate.txt (MIT).
 */
export const AGILENT_GEN5_LUMINESCENCE: FileDialectProfile = {
  ...AGILENT_GEN5_CONCENTRATION,
  id: 'agilent-gen5-luminescence',
  label: 'Agilent BioTek Gen5 (luminescence endpoint, tab text)',
  layout: resultsLine('LUM:Lum', 'RLU', 'Lum'),
};

/**
 * Gen5, a fluorescence polarization endpoint read: the `Results` grid writes
 * per plate row the parallel and perpendicular readings, their intensities
 * and `Polarization` (mP, Gen5's millipolarization), the result a LIS takes.
 * Sample: Benchling-Open-Source/allotropy
 * tests/parsers/agilent_gen5/testdata/fluorescence/endpoint_fluorescence_polarization.txt (MIT).
 */
export const AGILENT_GEN5_POLARIZATION: FileDialectProfile = {
  ...AGILENT_GEN5_CONCENTRATION,
  id: 'agilent-gen5-polarization',
  label: 'Agilent BioTek Gen5 (fluorescence polarization, tab text)',
  layout: resultsLine('Polarization', 'mP'),
};

/**
 * Gen5, a two-filter fluorescence read reduced to `Normalized Data`: the
 * `Results` grid writes per plate row both readings, their blank-corrected
 * values and the protocol's data reductions (`Ratio` and `Delta` compare a
 * well's two readings; `Normalized Data` is its reading through the
 * protocol's normalisation step), in the protocol's order, which varies; `Normalized Data` is
 * the result a LIS takes. Controls (`CTL1`) are QC.
 * Sample: Benchling-Open-Source/allotropy tests/parsers/agilent_gen5/testdata/
 * fluorescence/endpoint_singleplate_filter_withStepLabel_withCalculatedValues.txt (MIT).
 */
export const AGILENT_GEN5_NORMALIZED: FileDialectProfile = {
  ...AGILENT_GEN5_CONCENTRATION,
  id: 'agilent-gen5-normalized',
  label: 'Agilent BioTek Gen5 (Normalized Data, tab text)',
  layout: resultsLine('Normalized Data'),
};

/**
 * Gen5, a nucleic acid read on a UV plate with pathlength correction: the
 * `Results` grid writes per plate row the readings at 977 and 900 nm, the
 * pathlength, 260/280/230, their blank-corrected and pathlength-corrected
 * values, `DNA concentration ng/uL` (the result a LIS takes; the test is
 * that line's name, as Gen5 writes it) and the purity ratios. Blanks (`BLK`)
 * are QC.
 * Sample: Benchling-Open-Source/allotropy
 * tests/parsers/agilent_gen5/testdata/absorbance/endpoint_pathlength_correct_singleplate.txt (MIT).
 */
export const AGILENT_GEN5_DNA: FileDialectProfile = {
  ...AGILENT_GEN5_CONCENTRATION,
  id: 'agilent-gen5-dna',
  label: 'Agilent BioTek Gen5 (DNA concentration, pathlength corrected, tab text)',
  layout: resultsLine('DNA concentration ng/uL', 'ng/uL'),
};

/**
 * Gen5, a two-filter fluorescence read (DAPI and GFP) whose protocol
 * normalises each reading: the `Results` grid's lines `normDAPI` and
 * `normGFP` are two results per well, each its own test (the line's name),
 * a sample's wells its replicates as in every plate. Not `meanNormDAPI` and
 * `meanNormGFP`: the protocol writes a sample's mean in each of its wells,
 * so it would reach the LIS once per well, the same value again. Positive
 * and negative controls (`POS`, `NEG`) are QC.
 * Sample: Benchling-Open-Source/allotropy
 * tests/parsers/agilent_gen5/testdata/fluorescence/endpoint_singleplate.txt (MIT).
 */
export const AGILENT_GEN5_DAPI_GFP: FileDialectProfile = {
  ...AGILENT_GEN5_CONCENTRATION,
  id: 'agilent-gen5-dapi-gfp',
  label: 'Agilent BioTek Gen5 (DAPI and GFP normalised per well, tab text)',
  layout: { form: 'plate', samples: 'Layout', samplesLine: 'Well ID', values: 'Results', valuesLine: ['normDAPI', 'normGFP'], test: { from: 'line' } },
};

/**
 * Gen5, a nucleic acid plate's absorbance at 260 nm as read, no data
 * reduction sent: the `Results` grid's line `260:260` (the read step `260`
 * at its wavelength 260) holds each well's absorbance, the result (the test
 * is the line's name). `OVRFLW` (above the reader's range) is no result.
 * Sample: Benchling-Open-Source/allotropy
 * tests/parsers/agilent_gen5/testdata/absorbance/absorbance_error_document_example.txt (MIT).
 */
export const AGILENT_GEN5_A260: FileDialectProfile = {
  ...AGILENT_GEN5_CONCENTRATION,
  id: 'agilent-gen5-a260',
  label: 'Agilent BioTek Gen5 (absorbance at 260 nm, tab text)',
  layout: resultsLine('260:260'),
};
