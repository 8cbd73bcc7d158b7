/**
 * Which acknowledgements a received message gets (HL7 v2.5.1 2.9.2 and
 * 2.9.3; tables 0008 and 0155).
 *
 * Original mode (MSH-15 and MSH-16 both empty, or holding something outside
 * table 0155, like the `0`/`2` result/QC marker the Mindray CL sends in
 * MSH-16): an AA once the message is stored.
 *
 * Enhanced mode (MSH-15 or MSH-16 holds AL, NE, ER or SU; the other one empty
 * counts as NE): the accept (commit) ACK means "safely stored", so CA goes out
 * once the journal stored it, when MSH-15 is AL or SU. The application ACK is
 * AA at the same moment, when MSH-16 is AL or SU: what the host's application
 * does with a message (decoding, the LIS) runs after the link and apart from
 * it, and a failure there is held and retried in the bridge (the journal, the
 * held batches), not something the analyzer can resend its way out of. The
 * cobas pure and pro (MSH-15 NE, MSH-16 AL) get AA, as their logged hosts
 * answered (test/fixtures/SOURCES.md).
 *
 * A query (QRY, QBP) is answered by its response (QCK^Q02 / DSR^Q03, RSP^K11),
 * which the flow writes once the LIS answered; the link adds no AA of its own,
 * which the Mindray CL would take for that response. Its CA (enhanced mode)
 * still goes out once it is stored.
 *
 * Errors: a message that could not be stored gets AE (CE when MSH-15 asks for
 * commit ACKs on errors), so the analyzer sends it again; one that cannot be
 * taken at all gets AR (CR). An analyzer that asked for no ACK on errors
 * (MSH-15 and MSH-16 NE or SU) gets none, and the flow is warned instead.
 */
import type { AckCode } from './ack';
import type { Hl7Segment } from './message';

const TABLE_0155 = new Set(['AL', 'NE', 'ER', 'SU']);
const QUERIES = new Set(['QRY', 'QBP']);

export interface AckPlan {
  codes: AckCode[];
  /** Why nothing is written, when nothing is and the analyzer should have been told. */
  silent?: string;
}

/** Whether the message's answer is a query response the flow writes (no AA from the link). */
export function isQuery(msh: Hl7Segment): boolean {
  return QUERIES.has(msh.field(9));
}

/** Enhanced mode's two ack types, or undefined in original mode. */
export function enhancedMode(msh: Hl7Segment): { accept: string; application: string } | undefined {
  const accept = msh.field(15).toUpperCase();
  const application = msh.field(16).toUpperCase();
  if (!TABLE_0155.has(accept) && !TABLE_0155.has(application)) return undefined;
  return { accept: TABLE_0155.has(accept) ? accept : 'NE', application: TABLE_0155.has(application) ? application : 'NE' };
}

/** The acknowledgements of a message the journal stored (or that is passed on unstored, with the journal off). */
export function ackPlan(msh: Hl7Segment): AckPlan {
  const query = isQuery(msh);
  const mode = enhancedMode(msh);
  if (!mode) return { codes: query ? [] : ['AA'] };
  const codes: AckCode[] = [];
  if (mode.accept === 'AL' || mode.accept === 'SU') codes.push('CA');
  if (!query && (mode.application === 'AL' || mode.application === 'SU')) codes.push('AA');
  return { codes };
}

/** The acknowledgement of a message that could not be stored ('store') or cannot be taken ('reject'). */
export function failurePlan(msh: Hl7Segment, kind: 'store' | 'reject' = 'store'): AckPlan {
  const mode = enhancedMode(msh);
  if (!mode) return { codes: [kind === 'store' ? 'AE' : 'AR'] };
  if (mode.accept === 'AL' || mode.accept === 'ER') return { codes: [kind === 'store' ? 'CE' : 'CR'] };
  if (mode.application === 'AL' || mode.application === 'ER') return { codes: [kind === 'store' ? 'AE' : 'AR'] };
  return { codes: [], silent: `the analyzer asked for no acknowledgement of errors (MSH-15 ${mode.accept}, MSH-16 ${mode.application}), so it is not told of this one` };
}
