/**
 * allotropy's test files as a conformance suite (docs/allotropy-suite.md):
 * each file below read by one built-in file dialect alone, no site
 * overrides, and what it sends (results and QC alike: allotropy's output
 * includes the controls) compared value by value with allotropy's answer
 * (test/fixtures/allotropy/expected.json): the multiset of
 * [SampleNumber, instrumentCode, value] must be allotropy's [sample, test,
 * value] rows. Values are compared as numbers when both sides parse as
 * numbers (`28.300` is allotropy's 28.3: allotropy writes the file's number,
 * it rounds none of these), else as text.
 *
 * Comparison rules, the same for every file:
 * - allotropy writes `N/A` where the file's sample cell is empty (its
 *   placeholder), or an identifier made up from the well (expected.json:
 *   null): compared as the empty sample number;
 * - a control whose value is one of the dialect's no-result words (an NTC's
 *   `Undetermined`: the control's expected outcome) is sent to QC as written;
 *   allotropy writes no value, so no row: each is counted (qcNoResult).
 * Declared differences, each with its reason and counted exactly:
 * - tests: our test code -> allotropy's, where the two name one test
 *   differently (a column name against allotropy's analyte or application);
 * - held: allotropy's rows our dialect holds aside by its documented rules,
 *   by the reason our reader gives (its text after `line <n>: `);
 * - samples: our sample number -> allotropy's, where the two take it from
 *   different columns of the same row (the operator's name against the
 *   software's measurement GUID), the pairs read from the file's own rows;
 * - extra: rows only we send (a result allotropy leaves out), matched by
 *   sample or value;
 * - notRead: allotropy's rows of a table our dialect does not read, by sample.
 * Nothing else may differ.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileLabEvents, fileRows, findFileProfile } from '../../lib/protocols/file';
import type { UnassignedResult } from '../../lib/lab';
import type { FileRow } from '../../lib/protocols/file/table';
import { LEFT_OUT } from './allotropy-left-out';

const DIR = join(__dirname, '..', '..', '..', 'test', 'fixtures', 'allotropy');
type Row = [sample: string | null, test: string | null, value: number | string | null, unit: string | null, well: string | null];
const EXPECTED = JSON.parse(readFileSync(join(DIR, 'expected.json'), 'utf8')) as Record<string, { results?: Row[] }>;
/** Every input file of allotropy's test data for the families in scope (scripts/allotropy-expectations.cjs). */
const INVENTORY = JSON.parse(readFileSync(join(DIR, 'inventory.json'), 'utf8')) as Record<string, { expected: boolean; negative: boolean; samples: number }>;

interface Held {
  /** How many of allotropy's rows are held with this reason. */
  count: number;
  /** The start of the reason our reader gives, after `line <n>: ` (or a pattern it matches, where it names the column). */
  reason: string | RegExp;
  why: string;
  /** The value allotropy writes where the file holds no result (its error document names the cell's text), else the item's own. */
  theirValue?: number | string;
}

interface Entry {
  file: string;
  dialect: string;
  /** Our test code -> allotropy's (null: allotropy names no test). */
  tests?: { map: Readonly<Record<string, string | null>>; why: string };
  held?: Held[];
  /** Controls sent with a no-result word as their value, which allotropy has no row for. */
  qcNoResult?: number;
  /** Our test code -> allotropy's, read from the file: the first named cell of the column `<our code><suffix>`. */
  testNames?: { suffix: string; why: string };
  /** Our sample number's column -> allotropy's, on the same row. */
  samples?: { ours: string; theirs: string; why: string };
  extra?: { count: number; sample?: RegExp; value?: RegExp; why: string };
  notRead?: { count: number; sample: RegExp; why: string };
}

const ASSAY = 'our test is the assay, allotropy names the calculated value';
const APPLICATION = 'our test is the application, allotropy names the calculated value';
const SAMPLE_RULE = 'a label starting with punctuation is a plate mark, not a sample a LIS holds (sample-number.ts)';
/** SoftMax writes `Error` in a group's formula columns it could not work out (no standard curve to read the wells from). */
const SMP_ERROR: Held = { count: 16, reason: 'MeanResult is "Error", a value the dialect reads as no result', why: 'a formula SoftMax could not work out: no result; allotropy writes 0 with an error document', theirValue: 0 };
/** Gen5 writes a concentration off the standard curve `>209.845` or `<0.000`: sent as written (the LIS sees it is out of range). */
const offCurve = (count: number): Pick<Entry, 'extra'> => ({
  extra: { count, value: /^[<>]\d/, why: 'a concentration off the standard curve, written `>x` or `<x`: sent as written (the LIS sees it is out of range); allotropy leaves it out' },
});
const NO_SAMPLE = 'allotropy writes N/A for the empty sample cell; a row without a sample number is held, never sent';
const WAVELENGTH = 'the wavelength column against allotropy\'s wavelength';

/** NanoDrop Eight's exports with a `Sample Id`: allotropy's sample is that GUID, ours the operator's name; one row has none. */
const EIGHT_GUIDS: Pick<Entry, 'samples' | 'held'> = {
    samples: { ours: 'Sample Name', theirs: 'Sample Id', why: 'ours is the operator\'s name, allotropy\'s the measurement GUID' },
    held: [{ count: 1, reason: 'no sample number', why: 'the operator left the row\'s name empty; allotropy names it by the GUID' }],
};

const QS = 'appbio_quantstudio/';
const DA = 'appbio_quantstudio_designandanalysis/appbio_quantstudio_designandanalysis_';
const ENTRIES: Entry[] = [
  { file: `${QS}appbio_quantstudio_example06.txt`, dialect: 'appbio-quantstudio' },
  { file: `${QS}example_quantsudio_results_only.txt`, dialect: 'appbio-quantstudio' },
  { file: `${QS}appbio_quantstudio_example04.txt`, dialect: 'appbio-quantstudio', qcNoResult: 4 },
  {
    file: `${QS}appbio_quantstudio_example02.txt`,
    dialect: 'appbio-quantstudio',
    qcNoResult: 8,
    held: [
      { count: 20, reason: 'sample number "(-)" does not match sampleNumber.pattern', why: SAMPLE_RULE },
      { count: 48, reason: 'sample number "(+)" does not match sampleNumber.pattern', why: SAMPLE_RULE },
    ],
  },
  { file: `${QS}appbio_quantstudio_minimal_test02.txt`, dialect: 'appbio-quantstudio' },
  {
    file: `${QS}appbio_quantstudio_example01.txt`,
    dialect: 'appbio-quantstudio',
    extra: { count: 2, sample: /^(15SAMPLE_5\.3|16SAMPLE_6\.1)$/, why: '[Results] has wells A17 and A18, which [Sample Setup] lacks; allotropy lists only Sample Setup\'s wells' },
  },
  { file: `${QS}appbio_quantstudio_example10.xlsx`, dialect: 'appbio-quantstudio-xlsx' },
  { file: `${QS}appbio_quantstudio_example08.xlsx`, dialect: 'appbio-quantstudio-crt-xlsx' },
  { file: `${QS}appbio_quantstudio_example09.xlsx`, dialect: 'appbio-quantstudio-crt-xlsx' },
  { file: `${QS}appbio_quantstudio_minimal_broken_path_calc_doc.txt`, dialect: 'appbio-quantstudio' },
  {
    file: `${QS}appbio_quantstudio_example03.txt`,
    dialect: 'appbio-quantstudio-genotyping',
    qcNoResult: 16,
    tests: { map: { 'CYP19_2 Allele1 Ct': 'CYP19_2-Allele 1', 'CYP19_2 Allele2 Ct': 'CYP19_2-Allele 2' }, why: 'our test is the SNP assay and its Ct column, allotropy\'s the assay and the allele' },
  },
  { file: `${DA}Diomni_v4.3_Presence_Absence.xlsx`, dialect: 'appbio-quantstudio-design-analysis-xlsx', qcNoResult: 4 },
  { file: `${DA}QS1_Standard_Curve_example01.xlsx`, dialect: 'appbio-quantstudio-design-analysis-xlsx', qcNoResult: 4 },
  { file: `${DA}QS7Pro_Presence_and_Absence_example10.xlsx`, dialect: 'appbio-quantstudio-design-analysis-xlsx', qcNoResult: 6 },
  { file: `${DA}QS7Pro_Presence_and_Absence_autoexport.xls`, dialect: 'appbio-quantstudio-design-analysis-xlsx' },
  { file: `${DA}QS3_Relative_Quantification_example02.xlsx`, dialect: 'appbio-quantstudio-design-analysis-xlsx', qcNoResult: 4 },
  { file: `${DA}QS7Pro_Genotyping_example07.xlsx`, dialect: 'appbio-quantstudio-design-analysis-xlsx', qcNoResult: 16 },
  { file: `${DA}QS7Pro_PCR_with_Melt_example09.xlsx`, dialect: 'appbio-quantstudio-design-analysis-xlsx' },
  { file: `${DA}QS7Pro_Relative_Quantification_Biogroup_example12.xlsx`, dialect: 'appbio-quantstudio-design-analysis-xlsx', qcNoResult: 15 },
  { file: `${DA}QS7Pro_Relative_Quantification_example11.xlsx`, dialect: 'appbio-quantstudio-design-analysis-xlsx', qcNoResult: 3 },
  { file: `${DA}QS7Pro_Standard_Curve_example14.xlsx`, dialect: 'appbio-quantstudio-design-analysis-xlsx', qcNoResult: 4 },
  { file: `${DA}QS7_Standard_Curve_example06.xlsx`, dialect: 'appbio-quantstudio-design-analysis-xlsx', qcNoResult: 4 },
  { file: `${DA}no_RQ_values_example1.xlsx`, dialect: 'appbio-quantstudio-design-analysis-xlsx' },
  { file: 'appbio_quantstudio_designandanalysis/appbio_quantstudio_design_quantity_test.xlsx', dialect: 'appbio-quantstudio-design-analysis-xlsx', qcNoResult: 8 },
  // Design & Analysis v1.5.2 exports the desktop software's columns (`Sample Name`, `Target Name`, `CT`).
  { file: 'appbio_quantstudio_designandanalysis/appbio_quantstudio_design_and_analysis_example15_v1.5.2.xlsx', dialect: 'appbio-quantstudio-xlsx' },
  {
    file: 'appbio_quantstudio_designandanalysis/appbio_quantstudio_design_and_analysis_example16_v1.5.2.xlsx',
    dialect: 'appbio-quantstudio-xlsx',
    held: [{ count: 1, reason: 'no sample number', why: NO_SAMPLE }],
  },
  { file: 'cfxmaestro/example01.csv', dialect: 'biorad-cfx-maestro', tests: { map: { FAM: 'N/A', VIC: 'N/A' }, why: 'the plate names no target (Target empty, allotropy: N/A): the test is the fluorophore' } },
  { file: 'appbio_absolute_q/Appbio_AbsoluteQ_example01.csv', dialect: 'appbio-absolute-q' },
  { file: 'appbio_absolute_q/Appbio_AbsoluteQ_example05.csv', dialect: 'appbio-absolute-q' },
  { file: 'appbio_absolute_q/Appbio_AbsoluteQ_summary.csv', dialect: 'appbio-absolute-q-summary' },
  { file: 'appbio_absolute_q/Appbio_AbsoluteQ_zip_test.zip', dialect: 'appbio-absolute-q-archive' },
  { file: 'qiacuity_dpcr/qiacuity_dpcr_example01.csv', dialect: 'qiagen-qiacuity-older' },
  { file: 'qiacuity_dpcr/qiacuity_dpcr_example04.csv', dialect: 'qiagen-qiacuity' },
  {
    file: 'msd_workbench/msd_workbench_test_2.csv',
    dialect: 'msd-workbench-csv',
    tests: { map: { 'Test Assay 1.0': 'Calc. Concentration' }, why: ASSAY },
    held: [{ count: 2, reason: 'Test Assay 1.0 is "NaN", a value the dialect reads as no result', why: 'NaN (off the standard curve) is no result' }],
  },
  {
    file: 'msd_workbench/test_msd_workbench_xlsx.xlsx',
    dialect: 'msd-workbench-xlsx',
    tests: { map: { TEST_ASSAY: 'Calc. Concentration' }, why: ASSAY },
  },
  { file: 'unchained_labs_lunatic_stunner/Demo_A260_dsDNA_Data.csv', dialect: 'unchained-lunatic-csv', tests: { map: { 'A260 dsDNA': 'Concentration' }, why: APPLICATION } },
  { file: 'unchained_labs_lunatic_stunner/2024-07-12_CW288_Plate1.xlsx', dialect: 'unchained-lunatic-xlsx' },
  {
    file: 'unchained_labs_lunatic_stunner/Example_Lunatic_Plate_Reader_csv_with_header.csv',
    dialect: 'unchained-lunatic-report-csv',
    held: [{ count: 1, reason: 'no sample number', why: 'the well\'s Sample name is empty (allotropy: an empty identifier); a row without a sample number is held, never sent' }],
  },
  { file: 'thermo_fisher_nanodrop_8000/Thermo_NanoDrop_8000_example03.txt', dialect: 'thermo-nanodrop-8000' },
  {
    file: 'thermo_fisher_nanodrop_8000/Thermo_NanoDrop_8000_example02.txt',
    dialect: 'thermo-nanodrop-8000-protein',
    tests: { map: { 'conc.': null }, why: 'the protein report names no test: ours is the column, allotropy has none' },
    held: [{ count: 6, reason: 'no sample number', why: NO_SAMPLE }],
  },
  {
    file: 'thermo_fisher_nanodrop_eight/thermo_nanodrop_eight_example01.txt',
    dialect: 'thermo-nanodrop-eight',
    ...EIGHT_GUIDS,
  },
  {
    file: 'thermo_fisher_nanodrop_eight/thermo_nanodrop_eight_RNA.txt',
    dialect: 'thermo-nanodrop-eight-date-first',
    samples: { ours: 'Sample', theirs: 'UID', why: 'ours is the operator\'s name, allotropy\'s the measurement GUID' },
  },
  { file: 'luminex_xponent/luminex_xPONENT_example02.csv', dialect: 'luminex-xponent' },
  { file: 'luminex_intelliflex/luminex_intelliflex_single_dataset.csv', dialect: 'luminex-intelliflex' },
  {
    file: 'luminex_intelliflex/luminex_intelliflex_v2_2.csv',
    dialect: 'luminex-intelliflex',
    testNames: { suffix: ' ANALYTE NAME', why: 'our test is the bead region (`R25: RP1`), allotropy\'s the analyte the region\'s ANALYTE NAME column names (`HPV6`)' },
    held: [{ count: 112, reason: /^R\d+: RP1 is "NaN", a value the dialect reads as no result/, why: 'a well that read no beads: no result; allotropy writes 0 with an error document', theirValue: 0 }],
  },
  {
    file: 'luminex_xponent/luminex_xPONENT_NaN_and_not_reported_values.csv',
    dialect: 'luminex-xponent',
    held: [
      { count: 192, reason: /^analyte\d is "NaN", a value the dialect reads as no result/, why: 'no bead counted: no result; allotropy writes 0 with an error document', theirValue: 0 },
      { count: 95, reason: /^no value for analyte\d \(an empty cell/, why: 'not reported: no result; allotropy writes 0', theirValue: 0 },
    ],
  },
  // The CSV names its application in the file's name, as the export writes it; the workbook in its sheet's name, not read.
  { file: 'thermo_fisher_nanodrop_one/dsDNA 7_19_2023 3_27_29 PM.csv', dialect: 'thermo-nanodrop-one-csv' },
  { file: 'thermo_fisher_nanodrop_one/example1.xlsx', dialect: 'thermo-nanodrop-one-xlsx', tests: { map: { 'Nucleic Acid': 'dsDNA' }, why: 'the application is the sheet\'s name, which the dialect does not read; ours is the column' } },
  { file: 'thermo_fisher_qubit4/thermo_fisher_qubit4_example_1.csv', dialect: 'thermo-qubit-4-csv' },
  { file: 'thermo_fisher_qubit4/thermo_fisher_qubit4_example_2.xlsx', dialect: 'thermo-qubit-4-xlsx' },
  { file: 'thermo_fisher_qubit_flex/thermo_fisher_qubit_flex_example_01.csv', dialect: 'thermo-qubit-flex-csv' },
  { file: 'thermo_fisher_qubit_flex/thermo_fisher_qubit_flex_example_02.xlsx', dialect: 'thermo-qubit-flex-xlsx' },
  { file: 'thermo_fisher_genesys_on_board/Genesys150_ExampleFile_Fixed_10_2_2024_1_57_42_PM.csv', dialect: 'thermo-genesys-150', tests: { map: { Absorbance: 'Abs' }, why: 'the column name against allotropy\'s short name' } },
  { file: 'thermo_fisher_visionlite/Fixed_tab_sep.csv', dialect: 'thermo-visionlite-fixed', tests: { map: { A260: '260nm' }, why: WAVELENGTH } },
  { file: 'thermo_fisher_visionlite/Thermo_VISIONlite_example_quant.csv', dialect: 'thermo-visionlite-quant', tests: { map: { 'Concentration [mg/L]': 'Quant' }, why: 'the column name against allotropy\'s application' } },
  { file: 'thermo_fisher_visionlite/Thermo_VISIONlite_example_fixed.csv', dialect: 'thermo-visionlite-fixed-csv', tests: { map: { '500 nm': '500nm' }, why: WAVELENGTH } },
  { file: 'thermo_fisher_visionlite/Thermo_VISIONlite_example_multiple_wavelengths_fixed.csv', dialect: 'thermo-visionlite-fixed-csv', tests: { map: { '500 nm': '500nm', '600 nm': '600nm' }, why: WAVELENGTH } },
  // The method's Result (its equation over the two wavelengths) is the answer, as allotropy's calculated Result; the absorbances are its inputs.
  { file: 'thermo_fisher_visionlite/Fixed_with_Result_Multi.csv', dialect: 'thermo-visionlite-fixed-result' },
  { file: 'moldev_softmax_pro/MD_SMP_absorbance_endpoint_partial_plate_example01.txt', dialect: 'moldev-softmax-pro-unknowns' },
  { file: 'agilent_gen5/absorbance/endpoint_stdcurve_singleplate.txt', dialect: 'agilent-gen5-concentration' },
  {
    file: 'agilent_gen5/fluorescence/endpoint_singleplate_filter.txt',
    dialect: 'agilent-gen5-concentration',
    extra: { count: 43, value: /^[<>]\d/, why: 'a concentration off the standard curve is written `>209.845` or `<0.000`: sent as written (the LIS sees it is out of range); allotropy leaves it out' },
  },
  {
    file: 'agilent_gen5/absorbance/Lowry_Protein_Assay_no_results_matrix.txt',
    dialect: 'agilent-gen5-conc-grid',
    extra: { count: 2, value: /^[<>]\d/, why: 'the blank standard STD1 below the curve, `<0.000`: sent to QC as written; allotropy leaves it out' },
  },
  { file: 'agilent_gen5/luminescence/endpoint_singleplate.txt', dialect: 'agilent-gen5-luminescence' },
  { file: 'agilent_gen5/absorbance/010307_114129_BNCH654563_stdcurve_singleplate01.txt', dialect: 'agilent-gen5-concentration' },
  { file: 'agilent_gen5/absorbance/endpoint_stdcurve_singleplate_2.txt', dialect: 'agilent-gen5-concentration' },
  { file: 'agilent_gen5/absorbance/Kinetic_Analysis_Mean_Slope_and_Standard_Curve_tab.txt', dialect: 'agilent-gen5-concentration', ...offCurve(23) },
  { file: 'agilent_gen5/fluorescence/alphalisa_test_2.txt', dialect: 'agilent-gen5-concentration', ...offCurve(2) },
  { file: 'agilent_gen5/fluorescence/alphalisa_endpoint_singleplate.txt', dialect: 'agilent-gen5-concentration', qcNoResult: 19, ...offCurve(3) },
  { file: 'agilent_gen5/fluorescence/endpoint_single_plate_example.txt', dialect: 'agilent-gen5-concentration', ...offCurve(5) },
  { file: 'agilent_gen5/fluorescence/Fluorescamine_Protein_Quantitation_no_results_matrix.txt', dialect: 'agilent-gen5-conc-grid', ...offCurve(2) },
  { file: 'agilent_gen5/fluorescence/endpoint_fluorescence_polarization.txt', dialect: 'agilent-gen5-polarization' },
  { file: 'agilent_gen5/fluorescence/endpoint_singleplate_filter_withStepLabel_withCalculatedValues.txt', dialect: 'agilent-gen5-normalized' },
  { file: 'agilent_gen5/fluorescence/endpoint_singleplate_filter_withoutStepLabel_withCalculatedValues.txt', dialect: 'agilent-gen5-normalized' },
  { file: 'agilent_gen5/absorbance/endpoint_pathlength_correct_singleplate.txt', dialect: 'agilent-gen5-dna' },
  { file: 'agilent_gen5/fluorescence/endpoint_singleplate.txt', dialect: 'agilent-gen5-dapi-gfp' },
  {
    file: 'agilent_gen5/absorbance/absorbance_error_document_example.txt',
    dialect: 'agilent-gen5-a260',
    tests: { map: { '260:260': '260nm' }, why: 'our test is the read\'s line name, allotropy\'s its wavelength' },
    held: [{ count: 1, reason: '260:260 is "OVRFLW", a value the dialect reads as no result', why: 'above the reader\'s range: no result; allotropy writes 0 with an error document naming `OVRFLW`', theirValue: 0 }],
  },
  {
    file: 'moldev_softmax_pro/group_with_partial_rows.txt',
    dialect: 'moldev-softmax-pro-groups',
    notRead: { count: 6, sample: /^STD [A-F]$/, why: 'the group `Standards 1`, the standard curve\'s points: calibrators, no sample\'s result' },
  },
  { file: 'moldev_softmax_pro/MD_SMP_absorbance_endpoint_example01.txt', dialect: 'moldev-softmax-pro-groups' },
  {
    file: 'moldev_softmax_pro/group_cols_with_int_sample_names.txt',
    dialect: 'moldev-softmax-pro-groups',
    held: [{ count: 13, reason: 'MeanResult is "Range?", a value the dialect reads as no result', why: 'outside the standard curve: no result; allotropy writes 0 and an error document naming `Range?`', theirValue: 0 }],
  },
  { file: 'moldev_softmax_pro/MD_SMP_absorbance_endpoint_example02.txt', dialect: 'moldev-softmax-pro-groups' },
  { file: 'moldev_softmax_pro/MD_SMP_absorbance_endpoint_partial_plate_example02.txt', dialect: 'moldev-softmax-pro-unknowns' },
  ...[
    'MD_SMP_absorbance_endpoint_partial_plate_example04.txt',
    'MD_SMP_absorbance_endpoint_partial_plate_example05.txt',
    'MD_SMP_fluorescence_endpoint_partial_plate_example01.txt',
    'MD_SMP_fluorescence_endpoint_partial_plate_example02.txt',
    'MD_SMP_luminescence_endpoint_partial_plate_example01.txt',
    'MD_SMP_luminescence_endpoint_partial_plate_example02.txt',
  ].map((f): Entry => ({ file: `moldev_softmax_pro/${f}`, dialect: 'moldev-softmax-pro-unknowns', held: [SMP_ERROR] })),
  { file: 'moldev_softmax_pro/MD_SMP_fluorescence_endpoint_example06.txt', dialect: 'moldev-softmax-pro-values' },
  { file: 'moldev_softmax_pro/MD_SMP_luminescence_endpoint_example08.txt', dialect: 'moldev-softmax-pro-values' },
  {
    file: 'moldev_softmax_pro/MD_SMP_absorbance_endpoint_example04.txt',
    dialect: 'moldev-softmax-pro-values',
    extra: { count: 26, sample: /^(?:SAMPLE_542\d\d|CONTROL_99003|CONTROL_13592)$/, why: 'the third plate\'s groups have no WellPlateName column: allotropy cannot tie them to a plate and leaves them out; each row names its sample, so we send them' },
  },
  ...['MD_SMP_absorbance_endpoint_example05.txt', 'MD_SMP_fluorescence_endpoint_example07.txt', 'MD_SMP_luminescence_endpoint_example09.txt'].map((f): Entry => ({
    file: `moldev_softmax_pro/${f}`,
    dialect: 'moldev-softmax-pro-values',
    extra: { count: 76, sample: /^(?:SAMPLE_|CONTROL_(?!74801$|30249$|85196$|15254$|58602$|38495$))/, why: 'the file\'s `##BLOCKS= 3` counts 3 of its 12 blocks: allotropy reads only those (the first plate and its two control groups); we read every group the file holds' },
  })),
  {
    file: 'moldev_softmax_pro/softmaxpro_example_reduced.txt',
    dialect: 'moldev-softmax-pro-groups-utf8',
    extra: { count: 1, sample: /^01$/, value: /13\.331$/, why: 'the group Control names its mean `MeanResults`: allotropy has it (13.331) under that name, not the MeanResult compared here' },
  },
  {
    file: 'moldev_softmax_pro/MD_SMP_absorbance_endpoint_partial_plate_example03.txt',
    dialect: 'moldev-softmax-pro-well-conc',
    tests: { map: { Concentration: 'Concentration (ng/uL)' }, why: 'our test is the column\'s name with its unit split off (ng/uL), allotropy\'s the whole name' },
  },
  // The same layouts again, as allotropy's other test files of the family write them.
  { file: 'appbio_absolute_q/Appbio_AbsoluteQ_example02.csv', dialect: 'appbio-absolute-q' },
  { file: 'appbio_absolute_q/Appbio_AbsoluteQ_example03.csv', dialect: 'appbio-absolute-q' },
  { file: 'appbio_absolute_q/Appbio_AbsoluteQ_example04.csv', dialect: 'appbio-absolute-q' },
  { file: 'appbio_absolute_q/Appbio_AbsoluteQ_singe2_summary.csv', dialect: 'appbio-absolute-q-summary' },
  { file: 'appbio_absolute_q/Appbio_AbsoluteQ_single1_summary.csv', dialect: 'appbio-absolute-q-summary' },
  // The rows with an empty Channels (partitions positive in no channel, 0.00) are counted not for the LIS (validWhen); allotropy drops them too.
  { file: 'appbio_absolute_q/Appbio_AbsoluteQ_multichannel.csv', dialect: 'appbio-absolute-q-multichannel' },
  { file: 'appbio_quantstudio/appbio_quantstudio_minimal_test04.txt', dialect: 'appbio-quantstudio' },
  { file: 'appbio_quantstudio/appbio_quantstudio_minimal_test07.txt', dialect: 'appbio-quantstudio' },
  { file: 'appbio_quantstudio/appbio_quantstudio_multiple_cal_doc_wells.txt', dialect: 'appbio-quantstudio' },
  { file: 'luminex_xponent/luminex_xPONENT_example02_saved.csv', dialect: 'luminex-xponent' },
  { file: 'luminex_xponent/luminex_xPONENT_example03.csv', dialect: 'luminex-xponent' },
  { file: 'luminex_xponent/luminex_xPONENT_missing_optional_fields.csv', dialect: 'luminex-xponent' },
  {
    file: 'msd_workbench/msd_workbench_test_1.csv',
    dialect: 'msd-workbench-csv',
    tests: { map: { 'Spike (FL.1.5.1)': 'Calc. Concentration', 'Spike (Wuhan)': 'Calc. Concentration' }, why: ASSAY },
  },
  { file: 'qiacuity_dpcr/qiacuity_dpcr_example02.csv', dialect: 'qiagen-qiacuity-older' },
  { file: 'thermo_fisher_qubit_flex/thermo_fisher_qubit_flex_example_03.xlsx', dialect: 'thermo-qubit-flex-xlsx' },
  { file: 'unchained_labs_lunatic_stunner/2024-07-16_CW288_Plate2.xlsx', dialect: 'unchained-lunatic-xlsx' },
  { file: 'unchained_labs_lunatic_stunner/Example_Lunatic_Plate_Reader_csv_no_header.csv', dialect: 'unchained-lunatic-report-csv' },
  { file: 'unchained_labs_lunatic_stunner/Example_Lunatic_Plate_Reader_xlsx_no_header.xlsx', dialect: 'unchained-lunatic-xlsx' },
  { file: 'unchained_labs_lunatic_stunner/Example_Lunatic_Plate_Reader_xlsx_with_header.xlsx', dialect: 'unchained-lunatic-xlsx' },
  { file: 'thermo_fisher_nanodrop_8000/Thermo_NanoDrop_8000_example01.txt', dialect: 'thermo-nanodrop-8000-protein', tests: { map: { 'conc.': null }, why: 'the protein report names no test: ours is the column, allotropy has none' } },
  { file: 'thermo_fisher_nanodrop_8000/Thermo_NanoDrop_8000_example04.txt', dialect: 'thermo-nanodrop-8000' },
  {
    file: 'thermo_fisher_nanodrop_8000/Thermo_NanoDrop_mRNA.txt',
    dialect: 'thermo-nanodrop-8000-custom',
    tests: { map: { 'Conc.': null }, why: 'the custom method names no test: ours is the column, allotropy has none' },
    extra: { count: 1, sample: /^SAMPLE2$/, why: 'SAMPLE2 measured 0.000 mg/ml (A260 and A280 0.000): a result; allotropy writes no concentration when it is 0 (a Python truth test on the value)' },
  },
  { file: 'appbio_quantstudio/appbio_quantstudio_example07.txt', dialect: 'appbio-quantstudio', qcNoResult: 3 },
  { file: 'thermo_fisher_qubit4/thermo_fisher_qubit4_example_3.csv', dialect: 'thermo-qubit-4-csv', held: [{ count: 1, reason: '1x dsDNA High Sensitivity is "Out of range", a value the dialect reads as no result', why: 'outside the assay\'s range: no result; allotropy writes NaN', theirValue: 'NaN' }] },
  { file: 'thermo_fisher_qubit4/thermo_fisher_qubit4_example_4.xlsx', dialect: 'thermo-qubit-4-xlsx', held: [{ count: 1, reason: '1x dsDNA High Sensitivity is "Out of range", a value the dialect reads as no result', why: 'outside the assay\'s range: no result; allotropy writes NaN', theirValue: 'NaN' }] },
  { file: 'qiacuity_dpcr/qiacuity_dpcr_example03.csv', dialect: 'qiagen-qiacuity-copies' },
  { file: 'thermo_fisher_qubit_flex/thermo_fisher_qubit_flex_example_sep_header.csv', dialect: 'thermo-qubit-flex-csv' },
  {
    file: 'unchained_labs_lunatic_stunner/Demo_A280_Protein.csv',
    dialect: 'unchained-lunatic-protein-csv',
    tests: { map: { 'Protein (Turbidity)': 'Concentration' }, why: APPLICATION },
    held: [{ count: 4, reason: 'Protein (Turbidity) is "N/A", a value the dialect reads as no result', why: 'the water blank has no concentration; allotropy writes 0', theirValue: 0 }],
  },
  {
    file: 'unchained_labs_lunatic_stunner/spectrum_measurement.csv',
    dialect: 'unchained-lunatic-spectrum-csv',
    tests: { map: { 'dsDNA (Single point)': 'Concentration' }, why: APPLICATION },
  },
  {
    file: 'thermo_fisher_nanodrop_eight/thermo_nanodrop_eight_example02.txt',
    dialect: 'thermo-nanodrop-eight-decimal-comma',
    ...EIGHT_GUIDS,
  },
  {
    file: 'thermo_fisher_nanodrop_eight/thermo_nanodrop_eight_tab_aligned_header.txt',
    dialect: 'thermo-nanodrop-eight',
    ...EIGHT_GUIDS,
  },
  { file: 'luminex_intelliflex/luminex_intelliflex_example_01.csv', dialect: 'luminex-xponent-average' },
  // Its Samples name 88 member wells more than its Wells measure (the example was cut down): their 1,320 analytes are held, no value, and are no row of allotropy's.
  { file: 'biorad_bioplex_manager/bio-rad_bio-plex_manager_example_01.xml', dialect: 'biorad-bioplex-manager-xml' },
];

const NUMBER = /^[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?$/;
/** One value as compared: a number when it reads as one, else its text. */
const valueKey = (v: string | number | null) => (v === null ? 'null' : NUMBER.test(String(v).trim()) ? `#${Number(v)}` : `"${String(v)}"`);
/** allotropy's sample as compared: its placeholder for an empty cell (`N/A`) and a well's made-up name (null) are the empty sample. */
const theirSample = (s: string | null) => (s === 'N/A' || s === null ? '' : s);
const rowKey = (sample: string | null, test: string | null, value: string | number | null) => JSON.stringify([sample ?? null, test ?? null, valueKey(value)]);

function counts(keys: string[]): Map<string, number> {
  const m = new Map<string, number>();
  for (const k of keys) m.set(k, (m.get(k) ?? 0) + 1);
  return m;
}

/** What one multiset has more of than the other, each key as often as it is over. */
function over(a: Map<string, number>, b: Map<string, number>): string[] {
  return [...a].flatMap(([k, n]) => Array<string>(Math.max(0, n - (b.get(k) ?? 0))).fill(k));
}

function compare(entry: Entry) {
  const profile = findFileProfile(entry.dialect);
  assert.ok(profile, `${entry.dialect} is a built-in`);
  const fileName = entry.file.split('/').pop()!;
  const bytes = readFileSync(join(DIR, entry.file));
  const events = fileLabEvents(bytes, profile, { timeZone: 'UTC', fileName });
  // The file's own cells, for the declarations read from it: cut once, and only for an entry that reads them (a
  // workbook's cells cost as much as its reading).
  let cut: FileRow[] | undefined;
  const cells = () => (cut ??= fileRows(bytes, profile));
  const renames = entry.samples && sampleRenames(cells(), entry.samples.ours, entry.samples.theirs);
  const sampleOf = (ours: string) => {
    if (renames === undefined) return ours;
    const theirs = renames.get(ours);
    assert.ok(theirs, `the row of sample ${JSON.stringify(ours)} has a ${entry.samples!.theirs}`);
    return theirs;
  };
  const map = entry.tests?.map ?? (entry.testNames ? testNamesOf(cells(), entry.testNames.suffix) : {});
  const test = (code: string | undefined) => (code !== undefined && code in map ? map[code]! : (code ?? null));
  const noResult = new Set(profile.noResult.map((w) => w.trim().toLowerCase()));
  const sent: string[] = [];
  const codes = new Set<string>();
  let qcNoResult = 0;
  for (const e of events) {
    if (e.type !== 'results' && e.type !== 'qc') continue;
    for (const r of e.results) {
      codes.add(r.instrumentCode);
      if (e.type === 'qc' && noResult.has(r.Result.trim().toLowerCase())) qcNoResult++;
      else sent.push(rowKey(sampleOf(r.SampleNumber), test(r.instrumentCode), r.Result));
    }
  }
  assert.equal(qcNoResult, entry.qcNoResult ?? 0, 'controls sent with a no-result word');
  // A rename is of a test the dialect sends: one it no longer sends is a stale declaration.
  for (const code of Object.keys(map)) assert.ok(codes.has(code), `renamed test ${JSON.stringify(code)} is sent`);

  const rows = EXPECTED[entry.file]?.results;
  assert.ok(rows && rows.length > 0, `expected.json has rows for ${entry.file}`);
  const expected = counts(rows.map(([s, t, v]) => rowKey(theirSample(s), t, v)));

  // Each declared held reason: allotropy's rows matched to the items held with it, by test and value.
  const items = events.flatMap((e) => (e.type === 'unassigned' ? e.items : []));
  for (const h of entry.held ?? []) {
    const mine = items.filter((i) => {
      const reason = i.reason.replace(/^line \d+: /, '');
      return typeof h.reason === 'string' ? reason.startsWith(h.reason) : h.reason.test(reason);
    });
    let matched = 0;
    for (const i of mine) {
      // A held item keeps the file's text: `-0,914` where the dialect reads a decimal comma.
      const own = profile.decimalComma && i.Result !== undefined ? i.Result.replace(',', '.') : i.Result;
      const k = heldKey({ ...i, ...(own === undefined ? {} : { Result: own }) }, test(i.instrumentCode), rows, h.theirValue, expected);
      if (k !== undefined) {
        expected.set(k, expected.get(k)! - 1);
        matched++;
      }
    }
    assert.equal(matched, h.count, `held "${h.reason}" (${h.why})`);
  }
  const got = counts(sent);
  const parts = (key: string) => JSON.parse(key) as [string | null, string | null, string];
  const x = entry.extra;
  const isExtra = (key: string) => {
    const [sample, , value] = parts(key);
    return x !== undefined && (x.sample === undefined || x.sample.test(sample ?? '')) && (x.value === undefined || x.value.test(value.replace(/^"|"$/g, '')));
  };
  const nr = entry.notRead;
  const isNotRead = (key: string) => nr !== undefined && nr.sample.test(parts(key)[0] ?? '');
  const onlyOurs = over(got, expected);
  const onlyAllotropy = over(expected, got);
  assert.equal(onlyOurs.filter(isExtra).length, x?.count ?? 0, `rows only we send (${x?.why ?? 'none declared'})`);
  assert.equal(onlyAllotropy.filter(isNotRead).length, nr?.count ?? 0, `allotropy's rows not read (${nr?.why ?? 'none declared'})`);
  assert.deepEqual({ onlyOurs: onlyOurs.filter((k) => !isExtra(k)), onlyAllotropy: onlyAllotropy.filter((k) => !isNotRead(k)) }, { onlyOurs: [], onlyAllotropy: [] });
}

/** Each test column's code -> the analyte its `<code><suffix>` column names (its first cell that is not `NaN`). */
function testNamesOf(rows: readonly FileRow[], suffix: string): Record<string, string> {
  const names = rows[0]!.cells;
  const out: Record<string, string> = {};
  names.forEach((name, i) => {
    if (!name.endsWith(suffix)) return;
    const named = rows.slice(1).map((r) => (r.cells[i] ?? '').trim()).find((c) => c !== '' && c !== 'NaN');
    if (named !== undefined) out[name.slice(0, -suffix.length)] = named;
  });
  assert.ok(Object.keys(out).length > 0, `columns named *${suffix}`);
  return out;
}

/** Each row's `ours` cell -> its `theirs` cell, from the rows under the header row that holds both. */
function sampleRenames(rows: readonly FileRow[], ours: string, theirs: string): Map<string, string> {
  const h = rows.findIndex((r) => r.cells.includes(ours) && r.cells.includes(theirs));
  assert.ok(h >= 0, `a header row names ${ours} and ${theirs}`);
  const [o, t] = [rows[h]!.cells.indexOf(ours), rows[h]!.cells.indexOf(theirs)];
  return new Map(rows.slice(h + 1).map((r) => [(r.cells[o] ?? '').trim(), (r.cells[t] ?? '').trim()]));
}

/**
 * The row of allotropy a held item is, among those not matched yet: same test and value, and its sample in the item's
 * text (or the sample empty); of several, the longest sample (`Unknown10`'s text holds `Unknown1` too).
 */
function heldKey(item: UnassignedResult, test: string | null, rows: Row[], theirValue: number | string | undefined, left: Map<string, number>): string | undefined {
  const keyOf = ([s, t, v]: Row) => rowKey(theirSample(s), t, v);
  // A wide row's text, cut before its sample cell, names the sample first (read.ts).
  const names = (s: string) => item.text.includes(s);
  const candidates = rows.filter((r) => {
    const [s, t, v] = r;
    return t === test && valueKey(v) === valueKey(theirValue ?? item.Result ?? null) && (s === 'N/A' || s === null || names(s)) && (left.get(keyOf(r)) ?? 0) > 0;
  });
  const best = candidates.sort((a, b) => (b[0]?.length ?? 0) - (a[0]?.length ?? 0))[0];
  return best && keyOf(best);
}

describe('allotropy test files read by the built-in file dialects, value by value', () => {
  for (const entry of ENTRIES) {
    const declared = [
      ...(entry.samples ? [`samples ${entry.samples.ours} -> ${entry.samples.theirs}: ${entry.samples.why}`] : []),
      ...(entry.tests ? [`tests ${JSON.stringify(entry.tests.map)}: ${entry.tests.why}`] : []),
      ...(entry.testNames ? [`tests named by the file's *${entry.testNames.suffix} columns: ${entry.testNames.why}`] : []),
      ...(entry.extra ? [`${entry.extra.count} only ours: ${entry.extra.why}`] : []),
      ...(entry.notRead ? [`${entry.notRead.count} not read: ${entry.notRead.why}`] : []),
      ...(entry.held ?? []).map((h) => `${h.count} held "${String(h.reason)}": ${h.why}`),
      ...(entry.qcNoResult ? [`${entry.qcNoResult} controls with a no-result value`] : []),
    ];
    it(`${entry.file} in ${entry.dialect}${declared.length ? ` (${declared.join('; ')})` : ''}`, () => compare(entry));
  }

  it('every test file of the families in scope with a per-sample result is read here or left out with its reason', () => {
    const read = new Set(ENTRIES.map((e) => e.file));
    const named = (file: string) => [read.has(file), file in LEFT_OUT].filter(Boolean).length;
    for (const [file, f] of Object.entries(INVENTORY)) {
      const hasResult = f.expected && !f.negative && f.samples > 0;
      assert.equal(named(file), hasResult ? 1 : 0, `${file}: ${hasResult ? 'names samples: read it, or say why not, once' : 'names no sample: nothing to read or leave out'}`);
    }
    for (const file of [...read, ...Object.keys(LEFT_OUT)]) assert.ok(file in INVENTORY, `${file} is one of allotropy's test files in scope`);
    const copied = (dir: string): string[] => readdirSync(join(DIR, dir), { withFileTypes: true }).flatMap((d) => (d.isDirectory() ? copied(join(dir, d.name)) : [join(dir, d.name)]));
    for (const file of copied('').filter((f) => f.includes('/'))) assert.ok(file in INVENTORY, `fixture ${file} is one of allotropy's test files in scope`);
  });

  it('the table names each file once and each dialect is a built-in', () => {
    assert.equal(new Set(ENTRIES.map((e) => e.file)).size, ENTRIES.length);
    for (const e of ENTRIES) assert.ok(findFileProfile(e.dialect), e.dialect);
  });
});
