/**
 * Rules the standard itself sets, which most dialects keep as they are.
 */
import type { QcRule } from './types';

/**
 * LIS2-A2's own QC markers: H-12 processing ID `Q` (quality control message)
 * and O-12 action code `Q` (a QC specimen). A dialect that documents no other
 * marker keeps these, so a QC run marked either way never reaches the LIS as a
 * patient result.
 */
export const LIS2A2_QC_MARKERS: readonly QcRule[] = [
  { record: 'H', field: 'processingId', component: 1, anyOf: ['Q'] },
  { record: 'O', field: 'actionCode', component: 1, anyOf: ['Q'] },
];
