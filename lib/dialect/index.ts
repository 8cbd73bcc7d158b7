/** Dialects as data, whatever the protocol: a site's overrides of a built-in profile, merged, diffed and checked with the path of each setting. */
export { applyOverrides, depthIssue, mergeOverrides, overridesOf, readOverrides, siteHostProfile, siteOverrides, type OverrideRules, type ProfileIssue, type ProfileOverrides, type SiteDialect, type SiteDialectResult } from './overrides';
export { formatPath } from './paths';
export { emptyPreview, previewEvents, previewSiteOf, type Preview, type PreviewAt, type PreviewProtocol, type PreviewQuery, type PreviewResult, type PreviewUnassigned, type SitePreview } from './preview';
export { CAPTURE_LIMITS, FILE_POINT_ROLES, POINT_ROLES, ROLE_NAMES, changedResults, changedResultSteps, findValue, type Capture, type CapturePiece, type CaptureLine, type CaptureToken, type ComparedResult, type PointChoice, type FilePointRole, type PointRequest, type PointRole } from './capture';
