/** How the HL7 link's trace lines name the MLLP bytes (`<VT>MSH|…<CR>…<FS><CR>`), for writing and reading them back (lib/trace/framing.ts). */
import { traceNaming } from '../../trace/framing';
import { CR, FS, VT } from './mllp';

export const MLLP_NAMING = traceNaming({ VT, FS, CR, LF: 0x0a });
