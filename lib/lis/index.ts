/** The LIS over HTTP/JSON: the client, its retries and tuning, the push server and the inputs the LIS nodes read. What nodes/ uses of it. */
export { type CallInfo, checkResults, LisClient } from './client';
export { type EndpointName, ENDPOINTS } from './endpoints';
export { Cutoff } from './http-exchange';
export { orderRequestFrom, resultsFrom, testsFilterFrom } from './inputs';
export { type LisObserver } from './observer';
export { type ProxyConfig, resolveProxy } from './proxy';
export { PushServer } from './push-server';
export { type AttemptHooks } from './retry';
export { describeIssues } from './schemas';
export { parseTls, parseTuning } from './tuning';
