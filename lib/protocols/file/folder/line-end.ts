/**
 * Whether a text file ends in the middle of a line: its last line has no line break while its others do. An
 * instrument that pauses mid-line for longer than the settle time leaves such a file, and reading it then would
 * send a value cut short ("25.711" read as "25.7"). Workbooks and other binary files are never judged so: a ZIP
 * (xlsx) or compound (xls) signature, or a NUL byte in 8-bit text, says the file is no text.
 */
const LF = 0x0a;
const CR = 0x0d;
/** How much of the file is looked at for NUL bytes: enough to tell text from binary, linear in nothing more. */
const SNIFF = 4096;

export function endsMidLine(bytes: Buffer): boolean {
  if (bytes.length === 0) return false;
  if (isBinary(bytes)) return false;
  const utf16 = bomOf(bytes);
  if (utf16 !== undefined) {
    if (bytes.length < 4) return false;
    const unit = (at: number) => (utf16 === 'le' ? bytes.readUInt16LE(at) : bytes.readUInt16BE(at));
    const last = unit(bytes.length - 2 - (bytes.length % 2));
    if (last === LF || last === CR) return false;
    // From the end: the scan stops at the last line's start.
    for (let i = bytes.length - 2 - (bytes.length % 2); i >= 2; i -= 2) if (unit(i) === LF || unit(i) === CR) return true;
    return false;
  }
  const last = bytes[bytes.length - 1]!;
  if (last === LF || last === CR) return false;
  // From the end: the scan stops at the last line's start.
  return bytes.lastIndexOf(LF) >= 0 || bytes.lastIndexOf(CR) >= 0;
}

function bomOf(bytes: Buffer): 'le' | 'be' | undefined {
  if (bytes.length >= 2 && bytes[0] === 0xff && bytes[1] === 0xfe) return 'le';
  if (bytes.length >= 2 && bytes[0] === 0xfe && bytes[1] === 0xff) return 'be';
  return undefined;
}

function isBinary(bytes: Buffer): boolean {
  // PK\x03\x04: a ZIP (xlsx); D0 CF 11 E0: an OLE compound file (xls).
  if (bytes.length >= 4 && bytes[0] === 0x50 && bytes[1] === 0x4b && bytes[2] === 0x03 && bytes[3] === 0x04) return true;
  if (bytes.length >= 4 && bytes[0] === 0xd0 && bytes[1] === 0xcf && bytes[2] === 0x11 && bytes[3] === 0xe0) return true;
  if (bomOf(bytes) !== undefined) return false;
  return bytes.subarray(0, SNIFF).includes(0);
}
