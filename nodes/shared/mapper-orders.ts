/**
 * test-mapper, LIS -> instrument: an order's LIS tests as the analyzer's codes. Tests with no code are named:
 * warned (or the order refused, with "fail"), on the node's yellow status and in the Lab sidebar's orders sent
 * without some tests, since their results will not come back from this analyzer.
 */
import type { Node, NodeAPI } from 'node-red';
import { LisError, invalidInput } from '../../lib/errors';
import { orderTestsOf, toInstrumentTests, type MappingRow } from '../../lib/mapping';
import { orderGapsFor } from './health';
import { fail } from './lis-request-node';
import { sharedTexts, type StatusReporter } from './status';
import type { Done, Msg, Send } from './types';

export function mapOrder(RED: NodeAPI, node: Node, status: StatusReporter, options: { failOnUnmapped: boolean; rows: readonly MappingRow[] }, msg: Msg, send: Send, done: Done): void {
  const r = sharedTexts(RED, 'runtime');
  const t = sharedTexts(RED, 'status');
    const order = msg.payload as Record<string, unknown>;
    const tests = orderTestsOf(order);
    if (!tests) return fail(status, msg, invalidInput('order not mapped', ['msg.payload.Tests must be an array of LIS test IDs']), done);
    const { instrumentTests, unmapped } = toInstrumentTests(tests, options.rows);
    msg.unmapped = unmapped;
    if (unmapped.length > 0) {
      const text = r('unmappedOrder', { count: unmapped.length, sample: String(order.SampleNumber), tests: unmapped.join(', ') });
      if (options.failOnUnmapped) {
        return fail(status, msg, new LisError(text, { code: 'UNMAPPED_TESTS', errors: unmapped }), done);
      }
      node.warn(text);
    }
    msg.payload = { ...order, instrumentTests };
    if (unmapped.length > 0) {
      // The order goes, but those tests will never come back from this analyzer: said on the node and in the Lab sidebar.
      orderGapsFor(RED).add({ sample: String(order.SampleNumber), tests: unmapped, node: node.id, at: Date.now() });
      node.status({ fill: 'yellow', shape: 'dot', text: t('orderMissingTests', { count: unmapped.length, tests: unmapped.join(', '), sample: String(order.SampleNumber) }) });
    } else node.status({ fill: 'green', shape: 'dot', text: t('orderMapped', { n: instrumentTests.length, u: 0 }) });
    send([msg, null]);
    done();
}
