import type { FileDialectProfile } from '../types';
import { SAMPLE_NUMBER } from './sample-number';

/**
 * Molecular Devices SoftMax Pro data export as text (SpectraMax readers):
 * `##BLOCKS=`, plate blocks, then one block per group of the protocol, each
 * `Group: <name>`, a header row and one row per well; a sample's first row
 * carries its name and the group's per-sample columns, its replicate wells
 * follow with those cells blank (passed over). The table is the `Samples`
 * group, the value `AdjConc` (the mean concentration times the dilution
 * factor): both are the protocol's names, set by the site's protocol
 * (`Unknowns`, `MeanResult` in SoftMax's own templates). Standards and
 * controls are groups of their own, not read. `Range?` (outside the standard
 * curve) and `Error` (a formula SoftMax could not work out) are no result. SoftMax's "Unicode" export is UTF-16: set encoding to
 * utf16le for it. Sample: Benchling-Open-Source/allotropy
 * tests/parsers/moldev_softmax_pro/testdata/softmaxpro_example_group_with_missing_calc_column.txt (MIT).
 */
export const MOLDEV_SOFTMAX_PRO: FileDialectProfile = {
  id: 'moldev-softmax-pro',
  label: 'Molecular Devices SoftMax Pro (text export, one group)',
  vendor: 'Molecular Devices',
  model: 'SoftMax Pro (SpectraMax)',
  encoding: 'utf8',
  delimiter: 'tab',
  table: { skipRows: 0, startsAfter: 'Group: Samples', header: true, endsAtEmptyRow: true },
  layout: { form: 'row-per-sample', sample: 'Sample', tests: ['AdjConc'] },
  decimalComma: false,
  // `Error`: a formula SoftMax could not work out (no curve to read the wells from).
  noResult: ['Range?', 'Error'],
  sampleNumber: { pattern: SAMPLE_NUMBER },
  qc: [],
};

/**
 * SoftMax Pro's own template names: the unknowns' group `Unknowns` and its
 * `MeanResult` column (the mean of the replicates' results), as the
 * protocols SoftMax ships write them, in the "Unicode" export (UTF-16LE);
 * otherwise as MOLDEV_SOFTMAX_PRO. A protocol that names its group or column
 * otherwise (`UnknownsNoDiln`, `AvgConc`) still needs the site's names in
 * the overrides. Standards and controls are groups of their own, not read.
 * Sample: Benchling-Open-Source/allotropy
 * tests/parsers/moldev_softmax_pro/testdata/MD_SMP_absorbance_endpoint_partial_plate_example01.txt (MIT).
 */
export const MOLDEV_SOFTMAX_PRO_UNKNOWNS: FileDialectProfile = {
  ...MOLDEV_SOFTMAX_PRO,
  id: 'moldev-softmax-pro-unknowns',
  label: 'Molecular Devices SoftMax Pro (Unicode text export, template group Unknowns)',
  encoding: 'utf16le',
  table: { skipRows: 0, startsAfter: 'Group: Unknowns', header: true, endsAtEmptyRow: true },
  layout: { form: 'row-per-sample', sample: 'Sample', tests: ['MeanResult'] },
};

/**
 * SoftMax Pro's "Unicode" export read whole: every `Group:` block but the
 * standard curve's (a group named `Std`, `Standard` or `Standards`, a
 * number after the name allowed: the
 * curve's points are calibrators, no sample's result), each from its own
 * header, the value the group's calculated mean as the protocol names it:
 * `MeanResult` (SoftMax's templates, `MeanResults` in some), `AvgConc` or
 * `AdjConc`, each one the group has a test of its own (layout.someTests; a group with none
 * refuses the file, naming the group: a protocol without a standard curve,
 * whose groups have only `MeanValue`, is MOLDEV_SOFTMAX_PRO_VALUES's).
 * Groups of controls (`Ctrl`, `Controls`, `LOQ`, `QC`, `Positive control`, `PositiveControl`,
 * `Negative control`, `NegativeControl`, a number after the name allowed)
 * and of matrix spikes (`Matrix_Spike_1`: a sample spiked with a known
 * amount, its recovery checked) are QC.
 * Samples: Benchling-Open-Source/allotropy
 * tests/parsers/moldev_softmax_pro/testdata/group_cols_with_int_sample_names.txt (MIT),
 * and MD_SMP_absorbance_endpoint_example01.txt, group_with_partial_rows.txt there.
 */
export const MOLDEV_SOFTMAX_PRO_GROUPS: FileDialectProfile = {
  ...MOLDEV_SOFTMAX_PRO,
  id: 'moldev-softmax-pro-groups',
  label: 'Molecular Devices SoftMax Pro (Unicode text export, every group)',
  encoding: 'utf16le',
  table: { skipRows: 0, blocks: '^Group: (?!(?:Std|Standards?)(?: \\d+)?$)(.+)$', header: true, endsAtEmptyRow: true },
  layout: { form: 'row-per-sample', sample: 'Sample', tests: ['MeanResult', 'AvgConc', 'AdjConc', 'MeanResults'], someTests: true },
  qc: [{ by: 'block', pattern: '^(?:Ctrl|Controls?|LOQ|QC|Positive ?[Cc]ontrol|Negative ?[Cc]ontrol|Matrix_Spike(?:_\\d+)?)(?: \\d+)?$' }],
};

/**
 * The same export read whole as MOLDEV_SOFTMAX_PRO_GROUPS does, from a
 * protocol without a standard curve: each group's value its `MeanValue`, the
 * mean of its wells' values (every group must have it; one without refuses
 * the file, naming the group). Groups of controls are QC as there. A group
 * with a curve's concentration (`MeanResult` beside `MeanValue`) is
 * MOLDEV_SOFTMAX_PRO_GROUPS's: such a group refuses the file (layout.notWith),
 * rather than its mean reading sent as a result.
 * Sample: Benchling-Open-Source/allotropy
 * tests/parsers/moldev_softmax_pro/testdata/MD_SMP_fluorescence_endpoint_example06.txt (MIT).
 */
export const MOLDEV_SOFTMAX_PRO_VALUES: FileDialectProfile = {
  ...MOLDEV_SOFTMAX_PRO_GROUPS,
  id: 'moldev-softmax-pro-values',
  label: 'Molecular Devices SoftMax Pro (no standard curve: each group\'s MeanValue, Unicode text export)',
  // A group with a curve's result: moldev-softmax-pro-groups reads it, never its mean reading.
  layout: { form: 'row-per-sample', sample: 'Sample', tests: ['MeanValue'], notWith: ['MeanResult', 'AvgConc', 'AdjConc', 'MeanResults'] },
};

/**
 * MOLDEV_SOFTMAX_PRO_GROUPS for the export SoftMax writes in 8-bit text
 * rather than "Unicode" (UTF-16): read as UTF-8 (its ASCII the same).
 * Sample: Benchling-Open-Source/allotropy
 * tests/parsers/moldev_softmax_pro/testdata/softmaxpro_example_reduced.txt (MIT).
 */
export const MOLDEV_SOFTMAX_PRO_GROUPS_UTF8: FileDialectProfile = {
  ...MOLDEV_SOFTMAX_PRO_GROUPS,
  id: 'moldev-softmax-pro-groups-utf8',
  label: 'Molecular Devices SoftMax Pro (UTF-8 text export, every group)',
  encoding: 'utf8',
};

/**
 * SoftMax Pro's "Unicode" export of a nucleic-acid quantitation protocol
 * (a micro-volume plate: `Group: 0.5mm_2uL`), read whole as
 * MOLDEV_SOFTMAX_PRO_GROUPS reads its groups: the group has no mean, each
 * well its own `Concentration (ng/uL)` (A260 times the concentration factor
 * and the dilution), so each well is a result of its sample, the sample
 * named on its first well's row only (layout.replicatesBelow); the unit is
 * split from the column's name. `Range` (`R` above 1000 ng/µL) is not read.
 * Sample: Benchling-Open-Source/allotropy
 * tests/parsers/moldev_softmax_pro/testdata/MD_SMP_absorbance_endpoint_partial_plate_example03.txt (MIT).
 */
export const MOLDEV_SOFTMAX_PRO_WELL_CONC: FileDialectProfile = {
  ...MOLDEV_SOFTMAX_PRO_GROUPS,
  id: 'moldev-softmax-pro-well-conc',
  label: 'Molecular Devices SoftMax Pro (Unicode text export, each well\'s Concentration (ng/uL))',
  layout: { form: 'row-per-sample', sample: 'Sample', tests: ['Concentration (ng/uL)'], headerUnits: true, replicatesBelow: true },
};
