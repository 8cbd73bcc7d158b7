/** Operator replays of captured traffic: the request, the run, its report and each node's decision. What nodes/ uses of it. */
export { decideReplay, resentCount } from './decision';
export { KeptReports, REPLAY_LIMITS, sizeText } from './report-budget';
export { isReplayMark, readReplayRequest, type ReplayMark } from './request';
export { ReplayRun } from './run';
