/** The built-in file dialects. Adding one: its file (every value with its source), its sample file in test/fixtures/file, a line here. */
import { deepFreeze } from '../../../util/freeze';
import type { FileDialectProfile } from '../types';
import { ABBOTT_M2000RT } from './abbott-m2000rt';
import { BECKMAN_ACCESS_2 } from './beckman-access';
import { GENERIC_CSV, SENAITE_TWO_DIMENSION } from './generic';
import { THERMO_MULTISKAN_GO } from './multiskan';
import { APPBIO_QUANTSTUDIO } from './quantstudio';
import { APPBIO_QUANTSTUDIO_DA_XLSX } from './quantstudio-xlsx';
import { THERMO_SKANIT_XLSX } from './skanit-xlsx';
import { MOLDEV_SOFTMAX_PRO } from './softmax-pro';
import { VARIAN_VISTA_PRO } from './varian';

export { ABBOTT_M2000RT, APPBIO_QUANTSTUDIO, APPBIO_QUANTSTUDIO_DA_XLSX, BECKMAN_ACCESS_2, GENERIC_CSV, MOLDEV_SOFTMAX_PRO, SENAITE_TWO_DIMENSION, THERMO_MULTISKAN_GO, THERMO_SKANIT_XLSX, VARIAN_VISTA_PRO };

/** Every built-in file dialect, the generic one first; frozen (shared data, never edited in place). */
export const FILE_PROFILES: readonly FileDialectProfile[] = deepFreeze([GENERIC_CSV, APPBIO_QUANTSTUDIO, APPBIO_QUANTSTUDIO_DA_XLSX, ABBOTT_M2000RT, THERMO_MULTISKAN_GO, THERMO_SKANIT_XLSX, MOLDEV_SOFTMAX_PRO, VARIAN_VISTA_PRO, BECKMAN_ACCESS_2, SENAITE_TWO_DIMENSION]);

export function findFileProfile(id: string): FileDialectProfile | undefined {
  return FILE_PROFILES.find((p) => p.id === id);
}
