/** HL7 v2: the message codec and MLLP framing (docs/architecture.md, "HL7 v2"), and what nodes/ uses of the protocol (its dialects, host, paste reader, recent-message kinds). */
export { Hl7Error, type Hl7Position } from './errors';
export { DEFAULT_DELIMITERS, type Hl7Delimiters, encodingCharacters, readDelimiters } from './delimiters';
export { escapeHl7, unescapeHl7 } from './escape';
export { HL7_CHARSETS, type Hl7Charset, type DecodedText, charsetOfMsh18, decodeText, encodeText } from './charset';
export { DEFAULT_MAX_MESSAGE_LENGTH, Hl7Message, Hl7Segment, type ParseOptions, type BytesOptions, parseHl7, parseHl7Bytes, statedCharset } from './message';
export { buildHl7, rawHl7, repeat, type BuildOptions, type Hl7Component, type Hl7FieldValue, type Hl7Repetition, type Hl7SegmentSpec } from './build';
export * as views from './views';
export { DEFAULT_MAX_FRAME_BYTES, type DeframerOptions, type DiscardReason, MllpDeframer, type MllpEvent, frameMllp, readable } from './mllp';
export { type AckCode, type AckProblem, ERROR_CODES, buildAck, beforeV25, controlIdSource, hl7Time } from './ack';
export { type AckPlan, ackPlan, enhancedMode, failurePlan, isQuery } from './ack-plan';
export { RecentControlIds, contentHash, controlKey } from './recent-ids';
export { DEFAULT_HL7_LINK, Hl7Link, type Hl7LinkOptions, LINK_CHARSETS, type LinkCharset } from './link-machine';
export { hl7CarriesResults, hl7IsQuery, hl7Sender, isNegativeAck } from './peek';
export { HL7_PROFILES, findHl7Profile, hl7OverridesOf, hl7SiteDialectOf, hl7SiteProfile, type Hl7DialectProfile } from './dialects';
export { Hl7Host, hl7HostProfile } from './host';
export { readHl7Capture } from './paste';
export { previewHl7Site } from './preview';
export { HL7_RECENT } from './recent';
