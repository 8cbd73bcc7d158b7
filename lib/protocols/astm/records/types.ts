/**
 * The decoded shape of each record. Every named field is optional: a property
 * is present exactly when the record had that field (`L|1` has no
 * terminationCode, `L|1|` has terminationCode ''), which is what lets the
 * encoder write the record back with the same number of fields.
 */
import type { Delimiters } from './delimiters';
import type { COMMENT_FIELDS, FREE_FIELDS, HEADER_FIELDS, ORDER_FIELDS, PATIENT_FIELDS, QUERY_FIELDS, RESULT_FIELDS, TERMINATOR_FIELDS } from './fields';
import type { AstmValue } from './value';

type Named<Names extends readonly string[]> = { [K in Names[number]]?: AstmValue };

interface Extras {
  /** Fields after the last one the standard defines, kept in order (never dropped). */
  extra?: AstmValue[];
  /**
   * The record's exact text, present only when it is not what the encoder would
   * write from the named fields (an escape character the standard does not
   * allow, for example). The encoder sends it unchanged while the named fields
   * still decode from it, and ignores it once they were edited.
   */
  verbatim?: string;
}

export interface HeaderRecord extends Named<typeof HEADER_FIELDS>, Extras {
  type: 'H';
  /** Field 2: the delimiters this H declares for itself and the records after it. */
  delimiters: Delimiters;
}
export interface PatientRecord extends Named<typeof PATIENT_FIELDS>, Extras {
  type: 'P';
}
export interface OrderRecord extends Named<typeof ORDER_FIELDS>, Extras {
  type: 'O';
}
export interface ResultRecord extends Named<typeof RESULT_FIELDS>, Extras {
  type: 'R';
}
export interface CommentRecord extends Named<typeof COMMENT_FIELDS>, Extras {
  type: 'C';
}
export interface QueryRecord extends Named<typeof QUERY_FIELDS>, Extras {
  type: 'Q';
}
export interface TerminatorRecord extends Named<typeof TERMINATOR_FIELDS>, Extras {
  type: 'L';
}
/** M: manufacturer information. Its fields are the vendor's own. */
export interface ManufacturerRecord extends Named<typeof FREE_FIELDS>, Pick<Extras, 'verbatim'> {
  type: 'M';
  /** Fields 3 onwards. */
  fields: AstmValue[];
}
/** S: scientific record, kept as plain fields. */
export interface ScientificRecord extends Named<typeof FREE_FIELDS>, Pick<Extras, 'verbatim'> {
  type: 'S';
  /** Fields 3 onwards. */
  fields: AstmValue[];
}
/** A record of a type this codec does not know (a vendor's own letter), kept as its text. */
export interface RawRecord {
  type: 'raw';
  /** The record exactly as received, without its CR; escapes are not resolved. */
  text: string;
}

export type AstmRecord =
  | HeaderRecord
  | PatientRecord
  | OrderRecord
  | ResultRecord
  | CommentRecord
  | QueryRecord
  | TerminatorRecord
  | ManufacturerRecord
  | ScientificRecord
  | RawRecord;

export type RecordType = AstmRecord['type'];
