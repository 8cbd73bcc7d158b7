/**
 * test-mapper: test codes between the LIS and one instrument, both ways, with the rows of the analyzer's test map
 * (lis-test-map, shared by its test-mappers) or, in a flow saved before test maps, its own. Orders:
 * nodes/shared/mapper-orders.ts; results it cannot map are held for a person: nodes/shared/mapper-holds.ts.
 */
import type { Node, NodeAPI, NodeDef } from 'node-red';
import { invalidInput } from '../lib/errors';
import { csvMappingRows, detectDirection, type Direction, mappedRows, type MappingRow, resultItemsOf, toLisResults } from '../lib/mapping';
import { fail } from './shared/lis-request-node';
import { StatusReporter, sharedTexts } from './shared/status';
import { registerMappingRoutes } from './shared/mapping-routes';
import { replayOf } from './shared/replays';
import { installHoldRoutesOnce } from './shared/hold-routes';
import { installTestMapRoutesOnce } from './shared/test-map-routes';
import { mapperHolds } from './shared/mapper-holds';
import { mapOrder } from './shared/mapper-orders';
import { mapperRows } from './shared/mapper-rows';
import type { Done, Msg, Send } from './shared/types';

interface Def extends NodeDef {
  lis?: string;
  map?: string;
  instrument?: string;
  direction?: 'auto' | Direction;
  unmapped?: 'warn' | 'fail';
  mapping?: unknown;
}

export = function register(RED: NodeAPI): void {
  const r = sharedTexts(RED, 'runtime');
  registerMappingRoutes(RED);
  installHoldRoutesOnce(RED);
  installTestMapRoutesOnce(RED);

  function TestMapper(this: Node, def: Def) {
    RED.nodes.createNode(this, def);
    const node = this;
    const status = new StatusReporter(RED, node);
    const t = sharedTexts(RED, 'status');
    const resultsSeen = { mapped: 0, held: 0 };
    const showMapped = (now: readonly MappingRow[]) => node.status({ fill: 'green', shape: 'dot', text: t('mapped', { n: new Set(mappedRows(now).map((x) => x.lisTestId)).size }) });
    const table = mapperRows(RED, node, def, showMapped);
    const rows = table.rows;
    Object.assign(node, { mappingRows: rows });
    let mappingError = table.deployError;
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
          const err = table.replace(candidate);
          if (err) return fail(status, msg, err, done);
          mappingError = undefined;
          return done();
        }
        if (mappingError) return fail(status, msg, mappingError, done);
        const direction = def.direction && def.direction !== 'auto' ? def.direction : detectDirection(msg.payload);
        if (direction === 'toInstrument') mapOrder(RED, node, status, { failOnUnmapped: def.unmapped === 'fail', rows: rows() }, msg, send, done);
        else if (direction === 'toLis') toLis(msg, send, done).catch((err: unknown) => fail(status, msg, err, done));
        else {
          fail(status, msg, invalidInput('not mapped', ['msg.payload is neither a LIS order (an object with Tests) nor a list of instrument results (items with instrumentCode)']), done);
        }
      } catch (err) {
        fail(status, msg, err, done);
      }
    });

    async function toLis(msg: Msg, send: Send, done: Done): Promise<void> {
      const items = resultItemsOf(msg.payload);
      if (!items) return fail(status, msg, invalidInput('results not mapped', ['msg.payload must be an array of instrument results or { results: [...] }']), done);
      const orderedTests = Array.isArray(msg.orderedTests) ? (msg.orderedTests as string[]) : undefined;
      const mapped = toLisResults(items, rows(), { orderedTests });
      const replay = replayOf(msg);
      replay?.run.mapped(replay.mark.batch ?? '', mapped.items.length, mapped.rejected);
      let rejectedMsg: Msg | null = null;
      if (mapped.rejected.length > 0) {
        rejectedMsg = RED.util.cloneMessage(msg) as Msg;
        rejectedMsg.payload = mapped.rejected;
        node.warn(r('unmappedResults', { n: mapped.rejected.length, count: items.length, reasons: mapped.rejected.map((x) => x.reason).join('; ') }));
        // An operator's replay reports what it could not map; the live flow holds it, before anything goes on.
        if (!replay) await holds.hold(msg, mapped.rejected, mapped.items.length === 0);
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
      showResults();
      send([mappedMsg, rejectedMsg]);
      done();
    }

    function showResults(): void {
      node.status({ fill: resultsSeen.held > 0 ? 'yellow' : 'green', shape: 'dot', text: t('resultsMapped', { n: resultsSeen.mapped, h: resultsSeen.held }) });
    }

    // Held results: written before the rest of a batch goes on, sent by a person once mapped (nodes/shared/mapper-holds.ts).
    const holds = mapperHolds(RED, node, status, {
      rows,
      held: (n) => (resultsSeen.held += n),
      sent: (n) => {
        resultsSeen.mapped += n;
        showResults();
      },
    });
  }

  RED.nodes.registerType('test-mapper', TestMapper as never);
};
