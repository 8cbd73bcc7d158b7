/**
 * Node status conventions (DESIGN.md): blue ring while waiting on the LIS,
 * yellow ring while retrying, green dot on success with latency, red ring on
 * failure with a short reason, grey for "disabled".
 */
import type { Node, NodeAPI } from 'node-red';
import { LisError } from '../../lib/lis/errors';
import { SHARED_NS } from './types';

export class StatusReporter {
  constructor(
    private readonly RED: NodeAPI,
    private readonly node: Node,
  ) {}

  private t(key: string, vars?: Record<string, string | number>): string {
    return this.RED._(`${SHARED_NS}:common.status.${key}`, vars);
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
    this.node.status({ fill: 'red', shape: 'ring', text: this.t('failed', { reason: shortReason(err) }) });
  }

  noConfig(): void {
    this.node.status({ fill: 'red', shape: 'ring', text: this.t('noConfig') });
  }

  disabled(): void {
    this.node.status({ fill: 'grey', shape: 'ring', text: this.t('disabled') });
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
    case 'ORDER_REFUSED':
      return 'order refused';
  }
}
