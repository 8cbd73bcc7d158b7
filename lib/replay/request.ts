/**
 * What an operator asks of a replay: captured messages (a paste, in any form
 * lib/protocols/astm/paste reads) or a time range of a link's trace, put through the
 * deployed flow as if the link had just received them, and what may reach the
 * LIS. A replay sends nothing unless asked: `none` (the default) is a dry run,
 * `new` sends only results the LIS never got, `all` sends everything again.
 */
export type SendMode = 'none' | 'new' | 'all';
export const SEND_MODES: readonly SendMode[] = ['none', 'new', 'all'];

export type ReplaySource = { kind: 'paste'; text: string } | { kind: 'trace'; from: number; to: number };

export interface ReplayRequest {
  source: ReplaySource;
  send: SendMode;
}

/**
 * What every message of a replay carries on its way through the flow
 * (msg.astm.replay, msg.hl7.replay): the replay, its mode, which message of
 * the replay it is, and (from the message node on) which result batch.
 * A message replayed after a restart carries `replay: true` instead; that one
 * is the journal's, not an operator's.
 */
export interface ReplayMark {
  id: string;
  mode: SendMode;
  /** 1-based message of the replay. */
  message: number;
  /** `<message>#<part>`: the result batch, set by the message node. */
  batch?: string;
}

export function isReplayMark(value: unknown): value is ReplayMark {
  const v = value as Partial<ReplayMark> | null | undefined;
  return typeof v === 'object' && v !== null && typeof v.id === 'string' && SEND_MODES.includes(v.mode as SendMode) && typeof v.message === 'number';
}

/** The request of a route body `{ text?, from?, to?, send? }`, or what is wrong with it (each problem names the field). */
export function readReplayRequest(body: unknown): { request?: ReplayRequest; problems: string[] } {
  const b = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>;
  const problems: string[] = [];
  const send = b.send === undefined ? 'none' : b.send;
  if (!SEND_MODES.includes(send as SendMode)) problems.push(`send must be one of ${SEND_MODES.map((m) => `"${m}"`).join(', ')} (none: a dry run, the default)`);
  const hasText = typeof b.text === 'string' && b.text.trim() !== '';
  const hasRange = b.from !== undefined || b.to !== undefined;
  if (b.text !== undefined && typeof b.text !== 'string') problems.push('text must be the captured message(s) as text');
  if (hasText && hasRange) problems.push('give either text (a paste) or from/to (a range of the link\'s trace), not both');
  if (!hasText && !hasRange) problems.push('nothing to replay: give text (a paste) or from/to (a range of the link\'s trace, ISO times)');
  let source: ReplaySource | undefined;
  if (hasText && !hasRange) source = { kind: 'paste', text: b.text as string };
  else if (hasRange && !hasText) {
    const from = time(b.from, 'from', problems);
    const to = b.to === undefined ? Date.now() : time(b.to, 'to', problems);
    if (from !== undefined && to !== undefined && from > to) problems.push('from must not be after to');
    if (from !== undefined && to !== undefined) source = { kind: 'trace', from, to };
  }
  if (problems.length > 0 || source === undefined) return { problems };
  return { request: { source, send: send as SendMode }, problems };
}

function time(value: unknown, name: string, problems: string[]): number | undefined {
  const t = typeof value === 'string' ? Date.parse(value) : Number.NaN;
  if (Number.isNaN(t)) {
    problems.push(`${name} must be an ISO time with its zone, e.g. 2026-11-21T09:45:00Z`);
    return undefined;
  }
  return t;
}
