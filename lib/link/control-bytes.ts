/**
 * The ASCII control bytes analyzer links frame their messages with: E1381
 * (STX ... ETX/ETB, ENQ, ACK, NAK, EOT) and MLLP (VT ... FS CR). Named here,
 * beside the link, so the trace can read any protocol's bytes without
 * importing a protocol.
 */
export const STX = 0x02;
export const ETX = 0x03;
export const EOT = 0x04;
export const ENQ = 0x05;
export const ACK = 0x06;
export const LF = 0x0a;
export const VT = 0x0b;
export const CR = 0x0d;
export const NAK = 0x15;
export const ETB = 0x17;
export const FS = 0x1c;
