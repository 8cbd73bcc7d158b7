/**
 * Each built-in file dialect's sample export, as its example's test-mapper
 * and the side-by-side test use it: the instrument's own file
 * (test/fixtures/file, SOURCES.md; the allotropy suite's files under
 * test/fixtures/allotropy, named `allotropy/<parser>/<file>`), or, for the
 * generic CSV that has no instrument, a small export in its layout written here;
 * for Bio-Plex Manager, whose one real export holds only standards, a small
 * export in its elements with patient wells (./bioplex.ts).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { BIOPLEX_SAMPLE } from './bioplex';

const ROOT = join(__dirname, '..', '..', '..', 'test', 'fixtures');
const FIXTURES = join(ROOT, 'file');
const ALLOTROPY = 'allotropy/';

/** The file name of each dialect's sample export under test/fixtures/file, or its path under test/fixtures after `allotropy/`. */
export const FILE_SAMPLES: Readonly<Record<string, string>> = {
  'appbio-quantstudio': 'quantstudio-7-flex-results.txt',
  'abbott-m2000rt': 'abbott-m2000rt-results.log',
  'beckman-access-2': 'beckman-access-2-results.csv',
  'thermo-multiskan-go': 'multiskan-go-babesia.csv',
  'thermo-skanit-xlsx': 'skanit-7-varioskan-lux-elisa.xlsx',
  'moldev-softmax-pro': 'softmax-pro-elisa-groups.txt',
  'varian-vista-pro': 'varian-vista-pro-icp.csv',
  'senaite-two-dimension': 'senaite-two-dimension.csv',
  'appbio-quantstudio-design-analysis-xlsx': 'quantstudio-7-pro-diomni-presence-absence.xlsx',
  'appbio-quantstudio-xlsx': `${ALLOTROPY}appbio_quantstudio/appbio_quantstudio_example10.xlsx`,
  'appbio-quantstudio-genotyping': `${ALLOTROPY}appbio_quantstudio/appbio_quantstudio_example03.txt`,
  'appbio-quantstudio-crt-xlsx': `${ALLOTROPY}appbio_quantstudio/appbio_quantstudio_example08.xlsx`,
  'biorad-cfx-maestro': `${ALLOTROPY}cfxmaestro/example01.csv`,
  'agilent-gen5-concentration': `${ALLOTROPY}agilent_gen5/absorbance/endpoint_stdcurve_singleplate.txt`,
  'agilent-gen5-conc-grid': `${ALLOTROPY}agilent_gen5/absorbance/Lowry_Protein_Assay_no_results_matrix.txt`,
  'agilent-gen5-luminescence': `${ALLOTROPY}agilent_gen5/luminescence/endpoint_singleplate.txt`,
  'agilent-gen5-polarization': `${ALLOTROPY}agilent_gen5/fluorescence/endpoint_fluorescence_polarization.txt`,
  'agilent-gen5-normalized': `${ALLOTROPY}agilent_gen5/fluorescence/endpoint_singleplate_filter_withStepLabel_withCalculatedValues.txt`,
  'agilent-gen5-dna': `${ALLOTROPY}agilent_gen5/absorbance/endpoint_pathlength_correct_singleplate.txt`,
  'agilent-gen5-a260': `${ALLOTROPY}agilent_gen5/absorbance/absorbance_error_document_example.txt`,
  'agilent-gen5-dapi-gfp': `${ALLOTROPY}agilent_gen5/fluorescence/endpoint_singleplate.txt`,
  'appbio-absolute-q': `${ALLOTROPY}appbio_absolute_q/Appbio_AbsoluteQ_example01.csv`,
  'appbio-absolute-q-summary': `${ALLOTROPY}appbio_absolute_q/Appbio_AbsoluteQ_summary.csv`,
  'appbio-absolute-q-archive': `${ALLOTROPY}appbio_absolute_q/Appbio_AbsoluteQ_zip_test.zip`,
  'appbio-absolute-q-multichannel': `${ALLOTROPY}appbio_absolute_q/Appbio_AbsoluteQ_multichannel.csv`,
  'qiagen-qiacuity': `${ALLOTROPY}qiacuity_dpcr/qiacuity_dpcr_example04.csv`,
  'qiagen-qiacuity-older': `${ALLOTROPY}qiacuity_dpcr/qiacuity_dpcr_example01.csv`,
  'qiagen-qiacuity-copies': `${ALLOTROPY}qiacuity_dpcr/qiacuity_dpcr_example03.csv`,
  'msd-workbench-csv': `${ALLOTROPY}msd_workbench/msd_workbench_test_2.csv`,
  'msd-workbench-xlsx': `${ALLOTROPY}msd_workbench/test_msd_workbench_xlsx.xlsx`,
  'unchained-lunatic-csv': `${ALLOTROPY}unchained_labs_lunatic_stunner/Demo_A260_dsDNA_Data.csv`,
  'unchained-lunatic-xlsx': `${ALLOTROPY}unchained_labs_lunatic_stunner/2024-07-12_CW288_Plate1.xlsx`,
  'unchained-lunatic-report-csv': `${ALLOTROPY}unchained_labs_lunatic_stunner/Example_Lunatic_Plate_Reader_csv_with_header.csv`,
  'unchained-lunatic-protein-csv': `${ALLOTROPY}unchained_labs_lunatic_stunner/Demo_A280_Protein.csv`,
  'unchained-lunatic-spectrum-csv': `${ALLOTROPY}unchained_labs_lunatic_stunner/spectrum_measurement.csv`,
  'thermo-nanodrop-8000': `${ALLOTROPY}thermo_fisher_nanodrop_8000/Thermo_NanoDrop_8000_example03.txt`,
  'thermo-nanodrop-8000-protein': `${ALLOTROPY}thermo_fisher_nanodrop_8000/Thermo_NanoDrop_8000_example02.txt`,
  'thermo-nanodrop-8000-custom': `${ALLOTROPY}thermo_fisher_nanodrop_8000/Thermo_NanoDrop_mRNA.txt`,
  'thermo-nanodrop-eight': `${ALLOTROPY}thermo_fisher_nanodrop_eight/thermo_nanodrop_eight_example01.txt`,
  'thermo-nanodrop-eight-date-first': `${ALLOTROPY}thermo_fisher_nanodrop_eight/thermo_nanodrop_eight_RNA.txt`,
  'thermo-nanodrop-eight-decimal-comma': `${ALLOTROPY}thermo_fisher_nanodrop_eight/thermo_nanodrop_eight_example02.txt`,
  'thermo-nanodrop-one-csv': `${ALLOTROPY}thermo_fisher_nanodrop_one/dsDNA 7_19_2023 3_27_29 PM.csv`,
  'thermo-nanodrop-one-xlsx': `${ALLOTROPY}thermo_fisher_nanodrop_one/example1.xlsx`,
  'thermo-qubit-4-csv': `${ALLOTROPY}thermo_fisher_qubit4/thermo_fisher_qubit4_example_1.csv`,
  'thermo-qubit-4-xlsx': `${ALLOTROPY}thermo_fisher_qubit4/thermo_fisher_qubit4_example_2.xlsx`,
  'thermo-qubit-flex-csv': `${ALLOTROPY}thermo_fisher_qubit_flex/thermo_fisher_qubit_flex_example_01.csv`,
  'thermo-qubit-flex-xlsx': `${ALLOTROPY}thermo_fisher_qubit_flex/thermo_fisher_qubit_flex_example_02.xlsx`,
  'thermo-genesys-150': `${ALLOTROPY}thermo_fisher_genesys_on_board/Genesys150_ExampleFile_Fixed_10_2_2024_1_57_42_PM.csv`,
  'thermo-visionlite-fixed': `${ALLOTROPY}thermo_fisher_visionlite/Fixed_tab_sep.csv`,
  'thermo-visionlite-quant': `${ALLOTROPY}thermo_fisher_visionlite/Thermo_VISIONlite_example_quant.csv`,
  'thermo-visionlite-fixed-csv': `${ALLOTROPY}thermo_fisher_visionlite/Thermo_VISIONlite_example_multiple_wavelengths_fixed.csv`,
  'thermo-visionlite-fixed-result': `${ALLOTROPY}thermo_fisher_visionlite/Fixed_with_Result_Multi.csv`,
  'moldev-softmax-pro-unknowns': `${ALLOTROPY}moldev_softmax_pro/MD_SMP_absorbance_endpoint_partial_plate_example01.txt`,
  'moldev-softmax-pro-groups': `${ALLOTROPY}moldev_softmax_pro/group_cols_with_int_sample_names.txt`,
  'moldev-softmax-pro-values': `${ALLOTROPY}moldev_softmax_pro/MD_SMP_fluorescence_endpoint_example06.txt`,
  'moldev-softmax-pro-well-conc': `${ALLOTROPY}moldev_softmax_pro/MD_SMP_absorbance_endpoint_partial_plate_example03.txt`,
  'moldev-softmax-pro-groups-utf8': `${ALLOTROPY}moldev_softmax_pro/softmaxpro_example_reduced.txt`,
  'luminex-xponent': `${ALLOTROPY}luminex_xponent/luminex_xPONENT_example02.csv`,
  'luminex-xponent-average': `${ALLOTROPY}luminex_intelliflex/luminex_intelliflex_example_01.csv`,
  'luminex-intelliflex': `${ALLOTROPY}luminex_intelliflex/luminex_intelliflex_single_dataset.csv`,
};

/** The generic CSV's sample: one result per row under the columns the dialect names, one no-result value. */
const GENERIC_CSV_SAMPLE = 'Sample,Test,Result\r\nGX-1001,GLU,5.4\r\nGX-1001,CREA,71\r\nGX-1001,ALT,23\r\nGX-1002,GLU,6.1\r\nGX-1002,CREA,---\r\n';

/** The sample export of `dialect` and a file name for it; undefined for a dialect with none. */
export function fileSample(dialect: string): { name: string; bytes: Buffer } | undefined {
  if (dialect === 'generic-csv') return { name: 'generic-run.csv', bytes: Buffer.from(GENERIC_CSV_SAMPLE, 'utf8') };
  if (dialect === 'biorad-bioplex-manager-xml') return { name: 'bioplex-run.xml', bytes: Buffer.from(BIOPLEX_SAMPLE, 'utf8') };
  const name = FILE_SAMPLES[dialect];
  if (name === undefined) return undefined;
  // The file's own name (a folder-link takes it by its pattern); an allotropy path is read from its folder.
  return name.startsWith(ALLOTROPY) ? { name: name.split('/').pop()!, bytes: readFileSync(join(ROOT, name)) } : { name, bytes: readFileSync(join(FIXTURES, name)) };
}
