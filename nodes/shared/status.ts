/**
 * Node status conventions (docs/design-notes.md): blue ring while waiting on the LIS,
 * yellow ring while retrying, green dot on success with latency, red ring on
 * failure with a short reason, grey for "disabled".
 */
import type { Node, NodeAPI } from 'node-red';
import { LisError } from '../../lib/errors';
import { SHARED_NS } from './types';
import { settingStatus } from './setting-status';

export type Texts = (key: string, vars?: Record<string, string | number>) => string;

/**
 * The shared texts of one group of the lis-config catalog: statuses, and the
 * runtime's warnings and errors (group `runtime`). Each template
 * is translated once and filled in here: statuses change on every message, and
 * translating each time showed as a tenth of Node-RED's CPU at scale (npm run bench).
 */
export function sharedTexts(RED: NodeAPI, group: 'status' | 'link' | 'message' | 'runtime'): Texts {
  const templates = new Map<string, string[]>();
  return (key, vars) => {
    let parts = templates.get(key);
    if (parts === undefined) {
      parts = RED._(`${SHARED_NS}:common.${group}.${key}`).split(PLACEHOLDER);
      templates.set(key, parts);
    }
    return fill(parts, vars);
  };
}

/** `__name__` in a catalog text; split on it, the names are at the odd places. */
const PLACEHOLDER = /__(\w+)__/;

/** A template split on its placeholders, filled in: a placeholder without a value stays as written. */
function fill(parts: readonly string[], vars: Record<string, string | number> | undefined): string {
  if (parts.length === 1) return parts[0]!;
  let out = parts[0]!;
  for (let i = 1; i < parts.length; i += 2) {
    const name = parts[i]!;
    out += (vars !== undefined && name in vars ? String(vars[name]) : `__${name}__`) + parts[i + 1]!;
  }
  return out;
}

export class StatusReporter {
  private readonly t: Texts;

  constructor(
    RED: NodeAPI,
    /** The node it shows the status of (a failure names it in a replay's report). */
    readonly node: Node,
  ) {
    this.t = sharedTexts(RED, 'status');
  }

  waiting(): void {
    this.node.status({ fill: 'blue', shape: 'ring', text: this.t('waiting') });
  }

  retrying(attempt: number, maxAttempts: number): void {
    this.node.status({ fill: 'yellow', shape: 'ring', text: this.t('retrying', { n: attempt + 1, max: maxAttempts }) });
  }

  ok(elapsedMs: number): void {
    this.node.status({ fill: 'green', shape: 'dot', text: this.t('ok', { ms: elapsedMs }) });
  }

  failed(err: unknown): void {
    this.node.status(settingStatus(this.t, err) ?? { fill: 'red', shape: 'ring', text: this.t('failed', { reason: shortReason(err) }) });
  }

  noConfig(): void {
    this.node.status({ fill: 'red', shape: 'ring', text: this.t('noConfig') });
  }

  disabled(): void {
    this.node.status({ fill: 'grey', shape: 'ring', text: this.t('disabled') });
  }

  /** Results waiting for an operator: yellow, or red once one is older than the warning age. */
  held(count: number, overdue: boolean): void {
    this.node.status({ fill: overdue ? 'red' : 'yellow', shape: 'ring', text: this.t('held', { n: count }) });
  }

  noneHeld(): void {
    this.node.status({ fill: 'green', shape: 'dot', text: this.t('noneHeld') });
  }

  clear(): void {
    this.node.status({});
  }
}

/** A few words for the status line; the full text goes to the error. */
export function shortReason(err: unknown): string {
  if (!(err instanceof LisError)) return 'error';
  switch (err.code) {
    case 'HTTP_STATUS':
    case 'REDIRECT':
      return String(err.status);
    case 'TIMEOUT':
      return 'timeout';
    case 'NETWORK':
      return 'unreachable';
    case 'INVALID_RESPONSE':
      return 'bad answer';
    case 'SAMPLE_MISMATCH':
      return 'wrong sample';
    case 'INVALID_INPUT':
      return 'bad input';
    case 'NOT_CONFIGURED':
    case 'INVALID_URL':
      return 'config';
    case 'CANCELLED':
      return 'cancelled';
    case 'UNMAPPED_TESTS':
      return 'unmapped';
    case 'SEND_FAILED':
      return 'not accepted';
    case 'CONNECTION_CLOSED':
      return 'connection closed';
    case 'NOT_CONNECTED':
      return 'not connected';
    case 'UNKNOWN_ANALYZER':
      return 'unknown analyzer';
    case 'AMBIGUOUS_ANALYZER':
      return 'which analyzer?';
    case 'NO_SESSION':
      return 'no session';
    case 'TRANSPORT_MISMATCH':
      return 'set Transport to TCP';
    case 'PORT_MISSING':
      return 'no serial port';
    case 'ORDER_REFUSED':
      return 'order refused';
    case 'JOURNAL':
      return 'journal';
    case 'HELD':
      return 'held';
    case 'STUCK':
      return 'stuck';
    case 'LINK_QUIET':
      return 'quiet';
    case 'LINK_DOWN':
      return 'down';
  }
}
