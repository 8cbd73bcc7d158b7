/**
 * The one check every sample number passes before it is sent to the LIS, as a
 * result's or as a query's, for ASTM and HL7 alike. A result filed
 * under the wrong sample is worse than a result reported unassigned, so a
 * sample number that is evidently not what the analyzer meant is refused,
 * with the reason:
 * - a delimiter of its message arrived raw inside it: the message was split
 *   with other delimiters than its sender meant (`RC-BAD2&BARCODE` read where
 *   `&` is the escape character). A delimiter the sender escaped (ASTM `&E&`,
 *   HL7 `\T\`) is data: the sample number holds that character, is sent to
 *   the LIS as it is, and is escaped again in an order download. Only the
 *   protocol's reader can tell the two apart (it sees the text as it arrived),
 *   so it says which delimiter arrived raw;
 * - it holds a control character (C0, DEL or C1: U+0080-U+009F are what
 *   UTF-8 read as Latin-1 leaves behind);
 * - it holds text that did not decode in the message's character set: U+FFFD
 *   (ASTM read as UTF-8), or any character beyond ASCII in an HL7 message
 *   whose bytes were not the UTF-8 its MSH-18 or link said (lib/protocols/hl7/charset.ts
 *   reads those bytes as Latin-1, so `UTF8BADSAMPLE-Ã(ÿÀ¯í ø` is what an
 *   invalid sequence looks like; the LIS must never be asked for it).
 */

export interface SampleNumberContext {
  /** A delimiter of the message that arrived raw, unescaped, where the sample number was read. */
  rawDelimiter?: string | undefined;
  /** The character set the message was meant to be in, when its bytes were not valid in it (and were read as Latin-1). */
  undecodedFrom?: string;
}

/** Why `sample` must not be sent to the LIS as a sample number, or undefined when it may. */
export function sampleNumberProblem(sample: string, context: SampleNumberContext): string | undefined {
  if (context.rawDelimiter !== undefined) {
    return `the sample number ${JSON.stringify(sample)} holds ${JSON.stringify(context.rawDelimiter)}, a delimiter of its message that arrived unescaped: it is not sent to the LIS as a sample number`;
  }
  for (let i = 0; i < sample.length; i++) {
    const c = sample.charCodeAt(i);
    if (c < 0x20 || (c >= 0x7f && c <= 0x9f)) return `the sample number ${JSON.stringify(sample)} holds the control character U+${hex(c)}: it is not sent to the LIS as a sample number`;
    if (c === 0xfffd) return `the sample number ${JSON.stringify(sample)} holds text that did not decode in the message's character set (U+FFFD): it is not sent to the LIS as a sample number`;
    if (c > 0x7f && context.undecodedFrom !== undefined) {
      return `the sample number ${JSON.stringify(sample)} holds ${JSON.stringify(sample.charAt(i))}, from bytes that are not valid ${context.undecodedFrom} (read as Latin-1): it is not sent to the LIS as a sample number`;
    }
  }
  return undefined;
}

function hex(c: number): string {
  return c.toString(16).toUpperCase().padStart(4, '0');
}
