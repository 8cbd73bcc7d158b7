/**
 * Errors of the E1394 record codec. Each names what was wrong and where, so an
 * operator reading a log can find the offending record in the analyzer's trace
 * without a debugger. Positions are 1-based, as the standard numbers them
 * (record 1 is the first record of the message, field 1 is the record type).
 */

// The timestamp error belongs to the protocol-neutral timestamps (lib/lab/timestamp.ts): HL7 reads the same wall-clock form.
export { AstmTimestampError } from '../../../lab/timestamp';

export interface AstmPosition {
  /** 1-based index of the record in the message, when known. */
  record?: number;
  /** 1-based field number (1 = record type, 2 = sequence number ...), when known. */
  field?: number;
}

/** Base class: catch this to catch every codec error. */
export class AstmRecordError extends Error {
  readonly record?: number;
  readonly field?: number;

  constructor(message: string, at: AstmPosition = {}) {
    super(prefix(at) + message);
    this.name = 'AstmRecordError';
    if (at.record !== undefined) this.record = at.record;
    if (at.field !== undefined) this.field = at.field;
  }
}

/** The H record's delimiter definition (or a supplied one) cannot be used. */
export class AstmDelimiterError extends AstmRecordError {
  constructor(message: string, at: AstmPosition = {}) {
    super(message, at);
    this.name = 'AstmDelimiterError';
  }
}

/** Text that cannot be turned into records. */
export class AstmDecodeError extends AstmRecordError {
  constructor(message: string, at: AstmPosition = {}) {
    super(message, at);
    this.name = 'AstmDecodeError';
  }
}

/** A record or message object that cannot be written as ASTM text. */
export class AstmEncodeError extends AstmRecordError {
  constructor(message: string, at: AstmPosition = {}) {
    super(message, at);
    this.name = 'AstmEncodeError';
  }
}

function prefix(at: AstmPosition): string {
  if (at.record !== undefined && at.field !== undefined) return `record ${at.record}, field ${at.field}: `;
  if (at.record !== undefined) return `record ${at.record}: `;
  if (at.field !== undefined) return `field ${at.field}: `;
  return '';
}
