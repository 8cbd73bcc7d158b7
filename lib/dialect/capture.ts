/**
 * Shaping a dialect by pointing (docs/architecture.md, "Dialects as data"):
 * the dialect editor draws a captured message as clickable text, the
 * integrator clicks a value and says what it is, and the protocol's point.ts
 * writes the override that reads it from there. What is protocol-neutral
 * lives here: the drawn capture, the roles, the answer's shapes, and how many
 * results a change of dialect changed.
 */
import { checkpoints, runAtOnce, type Steps } from '../util/slices';

/** What a clicked value may be said to be. */
export const POINT_ROLES = ['sampleNumber', 'testCode', 'value', 'units'] as const;
export type PointRole = (typeof POINT_ROLES)[number];
/**
 * A file's table may hold a flags column of its own (messages carry flags
 * where the standard puts them), and a file's line can be said to be where
 * its table starts: its header row, or (a file without one) its first result.
 */
export const FILE_POINT_ROLES = [...POINT_ROLES, 'flags', 'headerRow', 'firstRow'] as const;
export type FilePointRole = (typeof FILE_POINT_ROLES)[number];

/** What the editor asks of a protocol's pointAt: what a clicked value is, on the site's dialect and the capture. */
export interface PointRequest {
  base: string;
  overrides?: unknown;
  text: string;
  timeZone: string;
  role: PointRole;
  /** A token's place from the capture... */
  place?: unknown;
  /** ...or a value clicked in the decoded table, looked up in the capture (in `message` only, when given). */
  value?: string;
  message?: number;
}

/**
 * One piece of a line: a field, component or repetition (a place the
 * protocol can read), or a separator (no place). `text` is the text as
 * received, escapes and padding kept; the editor draws it as text, never as HTML.
 */
export interface CaptureToken {
  text: string;
  /** Opaque to everyone but the protocol's point.ts. */
  place?: Record<string, unknown>;
}

/** A line is an ASTM record, an HL7 segment or a file row; `label` names it (`R 4`, `OBX 2`). */
export interface CaptureLine {
  label: string;
  tokens: CaptureToken[];
}

export interface Capture {
  messages: Array<{ lines: CaptureLine[] }>;
  /** Set when lines or tokens were left out (see CAPTURE_LIMITS). */
  truncated?: true;
}

/** A pasted capture can be megabytes; the dialog draws the start of it. */
export const CAPTURE_LIMITS = { linesPerMessage: 200, tokens: 2000 } as const;

/** One place a value clicked in the decoded table was found at, for the editor to ask which. */
export interface PointChoice {
  place: Record<string, unknown>;
  /** `O-4 (instrumentSpecimenId), message 1, record 3`. */
  label: string;
}

/** A result as previews show it, for counting what a change of dialect changed. */
export interface ComparedResult {
  message: number;
  record: number;
  /** HL7 results are told apart by segment index within the message as well. */
  index?: number;
  sampleNumber: string;
  testCode: string;
  subCode?: string;
  value: string;
  units?: string;
  flags?: readonly string[];
}

/**
 * How many results differ between two previews of the same capture: added,
 * lost, or read with another sample number, code, value, units or flags.
 */
export function changedResults(before: readonly ComparedResult[], after: readonly ComparedResult[]): number {
  return runAtOnce(changedResultSteps(before, after));
}

/** The same with a checkpoint every few hundred results (lib/util/slices.ts), for a file's hundreds of thousands. */
export function* changedResultSteps(before: readonly ComparedResult[], after: readonly ComparedResult[]): Steps<number> {
  const key = (r: ComparedResult) => `${r.message}:${r.record}:${r.index ?? ''}`;
  const seen = (r: ComparedResult) => JSON.stringify([r.sampleNumber, r.testCode, r.subCode ?? '', r.value, r.units ?? '', r.flags ?? []]);
  const groups = new Map<string, { was: string[]; now: string[] }>();
  const group = (k: string) => groups.get(k) ?? groups.set(k, { was: [], now: [] }).get(k)!;
  const tick = checkpoints();
  for (const r of before) {
    group(key(r)).was.push(seen(r));
    if (tick()) yield;
  }
  for (const r of after) {
    group(key(r)).now.push(seen(r));
    if (tick()) yield;
  }
  let changed = 0;
  for (const { was, now } of groups.values()) {
    // A record read twice (an R naming two tests) is matched value by value, not by order.
    let same = 0;
    const left = [...was];
    for (const s of now) {
      const at = left.indexOf(s);
      if (at >= 0) {
        left.splice(at, 1);
        same++;
      }
    }
    changed += Math.max(was.length, now.length) - same;
    if (tick()) yield;
  }
  return changed;
}

/** A place of the capture and its text with escapes resolved, as point.ts looks values up. */
export interface CapturePiece<Place> {
  place: Place;
  text: string;
}

/**
 * Where a value clicked in the decoded table is in the capture, among the
 * places a setting can read `roleName` from (`readable`): one place, or the
 * choices to ask about (the same setting met at several records is one
 * choice, `key` says which are the same), or why none.
 */
export function findValue<Place extends object>(
  pieces: readonly CapturePiece<Place>[],
  value: string,
  roleName: string,
  readable: (p: CapturePiece<Place>) => boolean,
  key: (p: Place) => string,
  label: (p: Place) => string,
): { piece: CapturePiece<Place> } | { choices: PointChoice[] } | { refused: string } {
  const wanted = value.trim();
  const found = pieces.filter((p) => p.text.trim() === wanted);
  const distinct = new Map<string, CapturePiece<Place>>();
  for (const p of found.filter(readable)) if (!distinct.has(key(p.place))) distinct.set(key(p.place), p);
  const list = [...distinct.values()];
  if (list.length === 1 && list[0] !== undefined) return { piece: list[0] };
  if (list.length > 1) return { choices: list.map((p) => ({ place: { ...p.place } as Record<string, unknown>, label: label(p.place) })) };
  if (found.length === 0) return { refused: `${JSON.stringify(wanted)} is not in the capture` };
  return { refused: `${JSON.stringify(wanted)} is at ${found.map((p) => label(p.place)).join(', ')}, where no setting reads a ${roleName}` };
}

export const ROLE_NAMES: Readonly<Record<PointRole, string>> = { sampleNumber: 'sample number', testCode: 'test code', value: 'value', units: 'units' };
