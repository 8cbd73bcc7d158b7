/** A mapping with every shape the test-mapper must handle. */
import type { MappingRow } from '../../lib/mapping/model';

export const ROWS: MappingRow[] = [
  { lisTestId: 'T-GLU', lisCode: 'GLU', lisName: 'Glucose', instrumentCode: 'GLUC' },
  // a panel: two LIS tests run by one instrument test, results per component
  { lisTestId: 'T-WBC', lisCode: 'WBC', lisName: 'White cells', instrumentCode: 'CBC', instrumentSubCode: 'WBC' },
  { lisTestId: 'T-HGB', lisCode: 'HGB', lisName: 'Haemoglobin', instrumentCode: 'CBC', instrumentSubCode: 'HGB' },
  // one LIS test with two instrument components, reported with LIS sub-test codes
  { lisTestId: 'T-LIP', lisCode: 'LIPID', lisName: 'Lipid panel', instrumentCode: 'CHOL', lisSubCode: 'CHOL' },
  { lisTestId: 'T-LIP', lisCode: 'LIPID', lisName: 'Lipid panel', instrumentCode: 'TRIG', lisSubCode: 'TG' },
  // an instrument code shared by two LIS tests: only the order can tell which
  { lisTestId: 'T-CRP', lisCode: 'CRP', lisName: 'CRP', instrumentCode: 'CRP' },
  { lisTestId: 'T-HSCRP', lisCode: 'HSCRP', lisName: 'hs-CRP', instrumentCode: 'CRP' },
  { lisTestId: 'T-NEW', lisCode: 'NEW', lisName: 'Not mapped yet', instrumentCode: '' },
];
