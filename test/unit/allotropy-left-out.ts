/**
 * allotropy's test files of the families in scope whose expected output names real samples, but which the
 * conformance suite does not read, each with its reason (docs/allotropy-suite.md). Files whose expected output names
 * no sample (wells only), has no expected JSON in the snapshot, or that allotropy must refuse, are left out by
 * test/fixtures/allotropy/inventory.json itself and need no line here.
 */
const KINETIC = 'kinetic or spectral data only: no endpoint result per sample';
const NO_CT = "allotropy's output holds no Ct for it, only the reporter's amplification data";
const LAYOUT_LABELS = "the plate's layout labels (Un0001, Sample X1, Standard S1) name wells, not samples a LIS holds";
const STUNNER = 'Stunner: dynamic light scattering and A280 of protein formulations, research, out of scope (its A280 column reads with unchained-lunatic-xlsx and a site\'s layout.tests)';

export const LEFT_OUT: Readonly<Record<string, string>> = {
  'appbio_absolute_q/Appbio_AbsoluteQ_fluorescence_columns.csv': "per-partition fluorescence, no concentration: allotropy writes -0.0 with an error document for every row",
  'appbio_quantstudio/appbio_quantstudio_example05.txt': NO_CT,
  'appbio_quantstudio/appbio_quantstudio_minimal_missing_results.txt': NO_CT,
  'appbio_quantstudio/appbio_quantstudio_minimal_test01.txt': NO_CT,
  'appbio_quantstudio/appbio_quantstudio_minimal_test03.txt': NO_CT,
  'appbio_quantstudio_designandanalysis/appbio_quantstudio_designandanalysis_QS7Pro_Genotyping_missing_stage_number.xlsx':
    "QS7Pro_Genotyping_example07 (in the suite) without its stage number, the same 192 wells: read right by appbio-quantstudio-design-analysis-xlsx when tried (allotropy's 160 Cts all sent, with 16 controls Undetermined to QC), not copied to keep the fixtures near 20 MB (1.1 MB)",
  'bmg_labtech_smart_control/fluorescence_endpoint_example2.xlsx': LAYOUT_LABELS,
  'bmg_labtech_smart_control/fluroescence_endpoint_example1.xlsx': LAYOUT_LABELS,
  'thermo_skanit/multi-plate_example01.xlsx': LAYOUT_LABELS,
  'thermo_skanit/skanit_data.xlsx': LAYOUT_LABELS,
  'thermo_skanit/skanit_different_plate_pattern.xlsx': LAYOUT_LABELS,
  'moldev_softmax_pro/softmaxpro_example_group_with_missing_calc_column.txt': "allotropy's output has no group of samples for it: nothing to compare",
  'moldev_softmax_pro/spectrum_data.txt': KINETIC,
  'moldev_softmax_pro/spectramax340_kinetic_partial_plate.txt': "a kinetic read whose group's Result cells are empty (the curve has no points); allotropy's values are each well's kinetic reduction",
  'thermo_fisher_visionlite/Thermo_VISIONlite_example_scan.csv': KINETIC,
  'unchained_labs_lunatic_stunner/Unchained_Labs_Stunner_example01.xlsx': STUNNER,
  'unchained_labs_lunatic_stunner/Unchained_Labs_Stunner_example02.xlsx': STUNNER,
  'unchained_labs_lunatic_stunner/Unchained_Labs_Stunner_example03.xlsx': STUNNER,
};
