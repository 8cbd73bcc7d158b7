/**
 * The protocols the dialect editor serves (docs/dialect editor contract): each
 * gives its built-in dialects for the picker, a built-in profile as JSON, and
 * the preview of a site's dialect on a paste. The functions live in
 * lib/protocols/<p>; this registry only dispatches on the request's
 * `protocol` ('astm' when none is given, as before there were others).
 */
import { findProfile, pointAt, previewSite, PROFILES } from '../../lib/protocols/astm';
import { findHl7Profile, HL7_PROFILES, pointAtHl7, previewHl7Site } from '../../lib/protocols/hl7';
import { FILE_PROFILES, findFileProfile, pointFileAtInSlices, previewFileSiteInSlices } from '../../lib/protocols/file';
import { FILE_POINT_ROLES, POINT_ROLES, type FilePointRole, type PointRequest } from '../../lib/dialect';

export interface DialectProtocol {
  /** The built-in dialects, as the picker lists and describes them. */
  builtIns(): unknown[];
  profile(id: string): unknown;
  /**
   * `{ issues, overrides, paste, preview }` for a site's dialect and a paste (lib/dialect/preview.ts); `fileName`,
   * the name of a pasted export, is read only by protocols that take a run date from it.
   */
  preview(site: { base: string; overrides?: unknown }, capture: string | undefined, timeZone: string, fileName?: string): unknown;
  /** Pointing (lib/protocols/<p>/point.ts; absent: the protocol offers none, and the route says so): `{ overrides, changed, setting, place, preview, issues }`, `{ choices }` or `{ refused }`. */
  point?(request: PointRequest): unknown;
  /** What a clicked value may be said to be in this protocol's pointing. */
  roles: readonly string[];
  /** The protocol reads a file loaded in the dialog as its bytes (`bytes`, instead of a pasted text); others refuse them. */
  files?: true;
}

/** A protocol that reads loaded files: its preview and pointing take the bytes too. */
export interface FileDialectProtocol extends DialectProtocol {
  /** A file may be megabytes: its preview and pointing are read in slices (a workbook in a worker thread) and answer later. */
  preview(site: { base: string; overrides?: unknown }, capture: string | Buffer | undefined, timeZone: string, fileName?: string): Promise<unknown>;
  point(request: Omit<PointRequest, 'role'> & { role: FilePointRole; bytes?: Buffer; fileName?: string }): Promise<unknown>;
  files: true;
}

const FILE: FileDialectProtocol = {
  builtIns: () => FILE_PROFILES.map((p) => ({ id: p.id, label: p.label, vendor: p.vendor, model: p.model, layout: p.layout.form, delimiter: p.format === 'xlsx' ? 'xlsx workbook' : p.format === 'bioplex-xml' ? 'Bio-Plex XML' : typeof p.delimiter === 'string' ? p.delimiter : 'fixed widths' })),
  profile: findFileProfile,
  preview: previewFileSiteInSlices,
  point: pointFileAtInSlices,
  roles: FILE_POINT_ROLES,
  files: true,
};

const PROTOCOLS: Readonly<Record<string, DialectProtocol>> = {
  astm: {
    builtIns: () => PROFILES.map((p) => ({ id: p.id, label: p.label, vendor: p.vendor, model: p.model, transport: p.transport, queryDeadlineMs: p.queryDeadlineMs, orders: p.order !== undefined })),
    profile: findProfile,
    preview: previewSite,
    point: pointAt,
    roles: POINT_ROLES,
  },
  hl7: {
    builtIns: () => HL7_PROFILES.map((p) => ({ id: p.id, label: p.label, vendor: p.vendor, model: p.model, versions: p.versions, queryDeadlineMs: p.queryDeadlineMs, queries: p.query !== undefined, orders: p.answer !== undefined })),
    profile: findHl7Profile,
    preview: previewHl7Site,
    point: pointAtHl7,
    roles: POINT_ROLES,
  },
  file: FILE,
};

export const DIALECT_PROTOCOL_NAMES = Object.keys(PROTOCOLS);

/** The protocol a request names (absent or empty: 'astm'), or undefined for one the package does not have. */
export function dialectProtocol(name: unknown): DialectProtocol | undefined {
  if (name === undefined || name === '') return PROTOCOLS.astm;
  return typeof name === 'string' && Object.hasOwn(PROTOCOLS, name) ? PROTOCOLS[name] : undefined;
}

/** Whether a protocol reads a file loaded in the dialog (its bytes), not only a paste. */
export function readsFiles(protocol: DialectProtocol): protocol is FileDialectProtocol {
  return protocol.files === true;
}
