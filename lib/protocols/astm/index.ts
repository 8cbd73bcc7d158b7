/** ASTM E1381/E1394: the link, records, dialects and the host. What nodes/ uses of it (lib code imports the files themselves). */
export { isLoneNak } from './control';
export { findProfile, PROFILES } from './dialects';
export { depthIssue } from './dialects/overrides';
export { AstmHost, hostProfile } from './host';
export { linkMachine } from './link-machine';
export { DEFAULT_OPTIONS } from './link/options';
export { readPaste } from './paste';
export { previewSite } from './preview';
export { pointAt, type AstmPointRequest, type PointAnswer } from './point';
export { ASTM_RECENT } from './recent';
export { carriesResults, messageSender, onlyQueries } from './records/peek';
export { ASTM_NAMING } from './trace-naming';
export { E1381_TRACE, RECORDS_TRACE, astmTraceFraming } from './trace-framing';
