/**
 * ASTM E1394 / CLSI LIS2-A2 record codec: message text <-> typed records.
 * Plain TypeScript with no I/O; the link layer (lib/protocols/astm/link) supplies the
 * text of complete messages and takes encoded text back.
 */
export { DEFAULT_DELIMITERS, checkDelimiters, isHeaderText, readHeaderDelimiters, type Delimiters } from './delimiters';
export { AstmDecodeError, AstmDelimiterError, AstmEncodeError, AstmRecordError, AstmTimestampError, type AstmPosition } from './errors';
export { escapeText, holdsRawEscape, unescapeText } from './escape';
export { carriesResults, messageSender, type Sender } from './peek';
export { COMMENT_FIELDS, HEADER_FIELDS, ORDER_FIELDS, PATIENT_FIELDS, QUERY_FIELDS, RESULT_FIELDS, TERMINATOR_FIELDS } from './fields';
export { decodeMessage, encodeMessage, splitMessages, type AstmMessage, type DecodeOptions } from './message';
export { arrivedComponent, decodeRecord, encodeRecord } from './record';
export { formatAstmTimestamp, isKnownTimeZone, parseAstmDate, parseAstmTimestamp, type Disambiguation, type ParseTimestampOptions } from '../../../lab/timestamp';
export type {
  AstmRecord,
  CommentRecord,
  HeaderRecord,
  ManufacturerRecord,
  OrderRecord,
  PatientRecord,
  QueryRecord,
  RawRecord,
  RecordType,
  ResultRecord,
  ScientificRecord,
  TerminatorRecord,
} from './types';
export { component, decodeValue, encodeValue, repeatsOf, type AstmValue } from './value';
