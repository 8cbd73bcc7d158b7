/** ASTM E1381 / CLSI LIS1-A link layer: a pure state machine plus framing helpers. */
export { AstmLink } from './link';
export type { LinkAction, LinkState, MessageEnd } from '../../../link/actions';
export { DEFAULT_OPTIONS, FRAME_OVERHEAD, resolveOptions, type AstmLinkOptions, type LinkRole } from './options';
export { buildFrame, buildFrames, checksum, checksumValue, splitRecords, type BuildOptions, type FrameEnd } from './frame';
export { FrameReader, parseFrame, splitBody, type ParsedFrame, type ReadEvent, type ReadFrame } from './frame-reader';
