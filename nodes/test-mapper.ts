/**
 * test-mapper: converts test codes between the LIS and one instrument, both
 * directions, with the mapping the operator keeps in the node's dialog.
 */
import type { Node, NodeAPI, NodeDef } from 'node-red';
import { LisError, invalidInput } from '../lib/errors';
import { describeIssues } from '../lib/lis';
import { cleanRow, csvMappingRows, detectDirection, type Direction, mappedRows, type MappingRow, MappingSchema, orderTestsOf, resultItemsOf, toInstrumentTests, toLisResults } from '../lib/mapping';
import { fail } from './shared/lis-request-node';
import { StatusReporter, sharedTexts } from './shared/status';
import { registerMappingRoutes } from './shared/mapping-routes';
import { replayOf } from './shared/replays';
import { markNothingMapped } from './shared/link-journal';
import type { Done, Msg, Send } from './shared/types';

interface Def extends NodeDef {
  lis?: string;
  instrument?: string;
  direction?: 'auto' | Direction;
  unmapped?: 'warn' | 'fail';
  mapping?: unknown;
}

export = function register(RED: NodeAPI): void {
  const r = sharedTexts(RED, 'runtime');
  registerMappingRoutes(RED);

  function TestMapper(this: Node, def: Def) {
    RED.nodes.createNode(this, def);
    const node = this;
    const status = new StatusReporter(RED, node);
    const t = sharedTexts(RED, 'status');
    let rows: MappingRow[] = [];
    const resultsSeen = { mapped: 0, unmapped: 0 };
    let mappingError: LisError | undefined;

    const useMapping = (candidate: unknown, source: string): LisError | undefined => {
      const parsed = MappingSchema.safeParse(candidate ?? []);
      if (!parsed.success) return invalidInput(`${source} mapping is invalid`, describeIssues(parsed.error, 'mapping'));
      rows = parsed.data.map(cleanRow);
      const lisTests = new Set(mappedRows(rows).map((r) => r.lisTestId)).size;
      node.status({ fill: 'green', shape: 'dot', text: t('mapped', { n: lisTests }) });
      return undefined;
    };

    mappingError = useMapping(def.mapping, 'the deployed');
    if (mappingError) {
      status.failed(mappingError);
      node.error(mappingError, { payload: undefined, error: mappingError.toMsgError() });
    }

    node.on('input', (rawMsg, rawSend, rawDone) => {
      const msg = rawMsg as Msg;
      const send = rawSend as Send;
      const done = rawDone as Done;
      try {
        if (msg.topic === 'mapping') {
          // Never `?? []`: an inject node without a payload must not wipe the mapping.
          if (typeof msg.payload !== 'string' && !Array.isArray(msg.payload)) {
            return fail(status, msg, invalidInput('mapping not replaced', ['msg.payload must be an array of mapping rows or CSV text']), done);
          }
          const candidate = typeof msg.payload === 'string' ? csvMappingRows(msg.payload) : msg.payload;
          const err = useMapping(candidate, 'the message');
          if (err) return fail(status, msg, err, done);
          mappingError = undefined;
          return done();
        }
        if (mappingError) return fail(status, msg, mappingError, done);
        const direction = def.direction && def.direction !== 'auto' ? def.direction : detectDirection(msg.payload);
        if (direction === 'toInstrument') toInstrument(msg, send, done);
        else if (direction === 'toLis') toLis(msg, send, done);
        else {
          fail(status, msg, invalidInput('not mapped', ['msg.payload is neither a LIS order (an object with Tests) nor a list of instrument results (items with instrumentCode)']), done);
        }
      } catch (err) {
        fail(status, msg, err, done);
      }
    });

    function toInstrument(msg: Msg, send: Send, done: Done): void {
      const order = msg.payload as Record<string, unknown>;
      const tests = orderTestsOf(order);
      if (!tests) return fail(status, msg, invalidInput('order not mapped', ['msg.payload.Tests must be an array of LIS test IDs']), done);
      const { instrumentTests, unmapped } = toInstrumentTests(tests, rows);
      msg.unmapped = unmapped;
      if (unmapped.length > 0) {
        const text = r('unmappedOrder', { count: unmapped.length, sample: String(order.SampleNumber), tests: unmapped.join(', ') });
        if (def.unmapped === 'fail') {
          return fail(status, msg, new LisError(text, { code: 'UNMAPPED_TESTS', errors: unmapped }), done);
        }
        node.warn(text);
      }
      msg.payload = { ...order, instrumentTests };
      node.status({ fill: unmapped.length ? 'yellow' : 'green', shape: 'dot', text: t('orderMapped', { n: instrumentTests.length, u: unmapped.length }) });
      send([msg, null]);
      done();
    }

    function toLis(msg: Msg, send: Send, done: Done): void {
      const items = resultItemsOf(msg.payload);
      if (!items) return fail(status, msg, invalidInput('results not mapped', ['msg.payload must be an array of instrument results or { results: [...] }']), done);
      const orderedTests = Array.isArray(msg.orderedTests) ? (msg.orderedTests as string[]) : undefined;
      const mapped = toLisResults(items, rows, { orderedTests });
      const replay = replayOf(msg);
      replay?.run.mapped(replay.mark.batch ?? '', mapped.items.length, mapped.rejected);
      let rejectedMsg: Msg | null = null;
      if (mapped.rejected.length > 0) {
        rejectedMsg = RED.util.cloneMessage(msg) as Msg;
        rejectedMsg.payload = mapped.rejected;
        node.warn(r('unmappedResults', { n: mapped.rejected.length, count: items.length, reasons: mapped.rejected.map((x) => x.reason).join('; ') }));
      }
      let mappedMsg: Msg | null = null;
      if (mapped.items.length > 0) {
        mappedMsg = msg;
        msg.payload = mapped.items;
        msg.processedTests = mapped.processedTests;
        msg.processed = mapped.processed;
      }
      // Since the deploy: one file's or message's batches come one sample at a time, and the last one alone said little.
      resultsSeen.mapped += mapped.items.length;
      resultsSeen.unmapped += mapped.rejected.length;
      node.status({ fill: resultsSeen.unmapped > 0 ? 'yellow' : 'green', shape: 'dot', text: t('resultsMapped', { n: resultsSeen.mapped, u: resultsSeen.unmapped }) });
      if (items.length > 0 && mapped.items.length === 0 && !replay) markNothingMapped(RED, node, msg.journal, mapped.rejected.map((x) => x.reason));
      send([mappedMsg, rejectedMsg]);
      done();
    }
  }

  RED.nodes.registerType('test-mapper', TestMapper as never);
};
