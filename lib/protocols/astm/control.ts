/** The control characters of ASTM E1381 / CLSI LIS1-A, as byte values (ASCII). */

// Plain constants defined here, not a re-export: CommonJS turns `export { X } from` into a getter, and the link
// reads these at every byte (bench section 2: frame -> ACK went from 2 to 10 us through getters).
export const STX = 0x02;
export const ETX = 0x03;
export const EOT = 0x04;
export const ENQ = 0x05;
export const ACK = 0x06;
export const LF = 0x0a;
export const CR = 0x0d;
export const NAK = 0x15;
export const ETB = 0x17;

const NAMES: Record<number, string> = { [STX]: 'STX', [ETX]: 'ETX', [EOT]: 'EOT', [ENQ]: 'ENQ', [ACK]: 'ACK', [LF]: 'LF', [CR]: 'CR', [NAK]: 'NAK', [ETB]: 'ETB' };

/**
 * Bytes in the readable form used in logs and traces, e.g. `<STX>1H|\^&<CR><ETX>A5<CR><LF>`.
 * Other control bytes show as `<0x1B>`; bytes above 0x7E are decoded as latin1.
 */
export function readable(bytes: Uint8Array): string {
  let out = '';
  for (const b of bytes) {
    const name = NAMES[b];
    if (name) out += `<${name}>`;
    else if (b < 0x20 || b === 0x7f) out += `<0x${b.toString(16).toUpperCase().padStart(2, '0')}>`;
    else out += String.fromCharCode(b);
  }
  return out;
}

/**
 * Whether a read or write is a lone NAK: how E1381 refuses a frame (§6.5.1.2),
 * always sent by itself, the sender then waiting. Counted for the link's
 * health; a NAK glued to other bytes in one read is not counted.
 */
export function isLoneNak(bytes: Uint8Array): boolean {
  return bytes.length === 1 && bytes[0] === NAK;
}
