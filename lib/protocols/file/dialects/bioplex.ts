import type { FileDialectProfile } from '../types';
import { SAMPLE_NUMBER } from './sample-number';

/**
 * Bio-Rad Bio-Plex Manager 6 XML export (Bio-Plex 200 and other Luminex-based
 * readers; format bioplex-xml, ../bioplex.ts): one row per measured well and
 * bead region of the run's regions of interest, the sample the Label whose
 * member well it is. The result is the region's median fluorescence (MFI),
 * as the software reports each well's bead region; the test code is the
 * analyte the sample names for that region. Standards, controls and blanks
 * (their kind in the export's Samples) are QC, as luminex.ts treats the
 * xPONENT controls. AcquisitionTime is written in UTC (its trailing Z).
 * Sample: Benchling-Open-Source/allotropy
 * tests/parsers/biorad_bioplex_manager/testdata/bio-rad_bio-plex_manager_example_01.xml (MIT).
 */
export const BIORAD_BIOPLEX_MANAGER: FileDialectProfile = {
  id: 'biorad-bioplex-manager-xml',
  label: 'Bio-Rad Bio-Plex Manager (XML export, median FI)',
  vendor: 'Bio-Rad',
  model: 'Bio-Plex Manager 6 (Bio-Plex 200)',
  format: 'bioplex-xml',
  encoding: 'utf8',
  delimiter: 'tab',
  table: { skipRows: 0, header: true, endsAtEmptyRow: false },
  layout: { form: 'row-per-result', sample: 'Sample', test: 'Analyte', value: 'Median', time: { columns: ['Acquired'], format: 'YYYY-MM-DDTHH:mm:ssZ' } },
  decimalComma: false,
  noResult: [],
  sampleNumber: { pattern: SAMPLE_NUMBER },
  qc: [{ by: 'column', column: 'Type', anyOf: ['Standard', 'Control', 'Blank'] }],
  timeZone: 'UTC',
};
