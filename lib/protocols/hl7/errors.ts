/**
 * Errors of the HL7 v2 codec. Each names what was wrong and where, with the
 * positions HL7 itself uses (1-based: segment 1 is MSH, OBX-5 is field 5), so
 * an operator can find the place in the analyzer's trace without a debugger.
 */

export interface Hl7Position {
  /** 1-based index of the segment in the message (1 = MSH). */
  segment?: number;
  /** The segment's name, when it could be read. */
  name?: string;
  /** 1-based field number as HL7 counts it (MSH-1 is the field separator). */
  field?: number;
}

export class Hl7Error extends Error {
  readonly segment?: number;
  readonly segmentName?: string;
  readonly field?: number;

  constructor(message: string, at: Hl7Position = {}) {
    super(prefix(at) + message);
    this.name = 'Hl7Error';
    if (at.segment !== undefined) this.segment = at.segment;
    if (at.name !== undefined) this.segmentName = at.name;
    if (at.field !== undefined) this.field = at.field;
  }
}

function prefix(at: Hl7Position): string {
  const where: string[] = [];
  if (at.segment !== undefined) where.push(`segment ${at.segment}${at.name !== undefined ? ` (${at.name})` : ''}`);
  if (at.field !== undefined) where.push(at.name !== undefined ? `${at.name}-${at.field}` : `field ${at.field}`);
  return where.length > 0 ? `HL7 ${where.join(', ')}: ` : 'HL7: ';
}
