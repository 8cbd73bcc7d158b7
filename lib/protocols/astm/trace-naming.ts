/** How ASTM's trace lines name the E1381 control bytes (both framings), for writing and reading them back (lib/trace/framing.ts). */
import { traceNaming } from '../../trace/framing';
import { ACK, CR, ENQ, EOT, ETB, ETX, LF, NAK, STX } from './control';

export const ASTM_NAMING = traceNaming({ STX, ETX, ETB, EOT, ENQ, ACK, NAK, CR, LF });
