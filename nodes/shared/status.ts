/**
 * Node status conventions (docs/design-notes.md): blue ring while waiting on the LIS,
 * yellow ring while retrying, green dot on success with latency, red ring on
 * failure with a short reason, grey for "disabled".
 */
import type { Node, NodeAPI, NodeStatus } from 'node-red';
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
    // A text with singular and plural forms (key_one, key_other): i18next picks the form by `count`, so it
    // translates each time. Such texts are rare (a replay, a pushed order), never on every frame.
    if (vars !== undefined && typeof vars.count === 'number') return RED._(`${SHARED_NS}:common.${group}.${key}`, vars);
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

/**
 * What waits for an operator or a repair, shown whatever else the node
 * reports until it is resolved: a dead transport, a link alarm, stuck
 * messages, held batches. A red one goes before a yellow one; among equals,
 * this order: a dead line stops every result still to come and names what
 * to repair now, so it goes before the results already stuck (still counted
 * in the Lab sidebar, and shown again once the line is back); stuck messages
 * (results that never reached the LIS) go before held batches (which the
 * LIS may have).
 */
export const CONDITIONS = ['transport', 'alarm', 'stuck', 'held'] as const;
export type Condition = (typeof CONDITIONS)[number];

interface Shown {
  conditions: Map<Condition, NodeStatus>;
  /** The last thing the node did (idle, busy, a message's failure): shown when no condition stands. */
  activity: NodeStatus;
}

/** Per node, shared by every StatusReporter of it (lis-send-results has two). */
const shownByNode = new WeakMap<Node, Shown>();

function shownOf(node: Node): Shown {
  let s = shownByNode.get(node);
  if (!s) shownByNode.set(node, (s = { conditions: new Map(), activity: {} }));
  return s;
}

const severity = (s: NodeStatus): number => (s.fill === 'red' ? 0 : s.fill === 'yellow' ? 1 : 2);

/** The condition to show: the most severe, then the first in CONDITIONS. */
export function topCondition(conditions: ReadonlyMap<Condition, NodeStatus>): NodeStatus | undefined {
  let top: NodeStatus | undefined;
  for (const c of CONDITIONS) {
    const s = conditions.get(c);
    if (s && (!top || severity(s) < severity(top))) top = s;
  }
  return top;
}

/** Writes the node's status as its conditions and its last activity compose it (every status write goes through here). */
function render(node: Node, s: Shown): void {
  node.status(topCondition(s.conditions) ?? s.activity);
}

/** The node did something (idle, busy, failed a message): shown unless a condition stands. */
export function showActivity(node: Node, status: NodeStatus): void {
  const s = shownOf(node);
  s.activity = status;
  render(node, s);
}

/** A condition raised (a status) or resolved (undefined); the status is written again only when what it shows changes. */
export function setCondition(node: Node, which: Condition, status: NodeStatus | undefined): void {
  const s = shownOf(node);
  const before = topCondition(s.conditions);
  if (status) s.conditions.set(which, status);
  else if (!s.conditions.delete(which)) return;
  const after = topCondition(s.conditions);
  if (after !== before || status === after) render(node, s);
}

/** The node closes: nothing is left for a redeployed node of the same object (the test helper reuses none, Node-RED neither). */
export function clearStatus(node: Node): void {
  shownByNode.delete(node);
  node.status({});
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
    this.show({ fill: 'blue', shape: 'ring', text: this.t('waiting') });
  }

  retrying(attempt: number, maxAttempts: number): void {
    this.show({ fill: 'yellow', shape: 'ring', text: this.t('retrying', { n: attempt + 1, max: maxAttempts }) });
  }

  ok(elapsedMs: number): void {
    this.show({ fill: 'green', shape: 'dot', text: this.t('ok', { ms: elapsedMs }) });
  }

  failed(err: unknown): void {
    this.show(settingStatus(this.t, err) ?? { fill: 'red', shape: 'ring', text: this.t('failed', { reason: shortReason(err) }) });
  }

  noConfig(): void {
    this.show({ fill: 'red', shape: 'ring', text: this.t('noConfig') });
  }

  disabled(): void {
    this.show({ fill: 'grey', shape: 'ring', text: this.t('disabled') });
  }

  /** Results waiting for an operator: yellow, or red once one is older than the warning age; kept over what the node does next. */
  held(count: number, overdue: boolean): void {
    this.condition('held', { fill: overdue ? 'red' : 'yellow', shape: 'ring', text: this.t('held', { n: count }) });
  }

  /** The last held batch was resent or discarded: said, instead of leaving "1 held" up. */
  noneHeld(): void {
    // One write: the condition's end shows this, not the last request's "ok" first.
    shownOf(this.node).conditions.delete('held');
    this.show({ fill: 'green', shape: 'dot', text: this.t('noneHeld') });
  }

  /** What the node does: shown unless a condition stands (a node's every status goes through here or condition()). */
  show(status: NodeStatus): void {
    showActivity(this.node, status);
  }

  /** A condition that stays on the status until resolved (undefined). */
  condition(which: Condition, status: NodeStatus | undefined): void {
    setCondition(this.node, which, status);
  }

  clear(): void {
    clearStatus(this.node);
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
    case 'PORT_SHARED':
      return 'serial port shared';
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
    case 'FOLDER_MISSING':
      return 'no folder';
    case 'FILE_ERROR':
      return 'file to error/';
    case 'FILE_CHANGED':
      return 'file changed';
    case 'FILE_NOT_MOVED':
      return 'file not moved';
    case 'FILE_GREW_AFTER_MOVE':
      return 'file grew in done/';
    case 'FILE_NOT_TAKEN':
      return 'file not taken';
    case 'FOLDER_SHARED':
      return 'folder read by another';
  }
}
