/**
 * test-mapper: converts test codes between the LIS and one instrument, both
 * directions, with the mapping the operator keeps in the node's dialog.
 * Results it cannot map are held in the journal for a person (one hold per
 * code, written before the mapped ones go on): the Lab sidebar lists them,
 * and once the code is mapped and deployed a person sends them from there,
 * through this node, exactly once (nodes/shared/hold-routes.ts).
 */
import type { Node, NodeAPI, NodeDef } from 'node-red';
import { LisError, invalidInput, messageOf } from '../lib/errors';
import { describeIssues } from '../lib/lis';
import { cleanRow, csvMappingRows, detectDirection, type Direction, mappedRows, type MappingRow, MappingSchema, orderTestsOf, resultItemsOf, toInstrumentTests, toLisResults } from '../lib/mapping';
import { fail } from './shared/lis-request-node';
import { StatusReporter, sharedTexts } from './shared/status';
import { registerMappingRoutes } from './shared/mapping-routes';
import { replayOf } from './shared/replays';
import { markNothingMapped } from './shared/link-journal';
import { contextOf, holdsFor, journalOrigin, type HoldRecord } from '../lib/journal';
import { journalFor } from './shared/journal';
import { orderGapsFor } from './shared/health';
import { installHoldRoutesOnce, registerHoldSender } from './shared/hold-routes';
import { randomUUID } from 'node:crypto';
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
  installHoldRoutesOnce(RED);

  function TestMapper(this: Node, def: Def) {
    RED.nodes.createNode(this, def);
    const node = this;
    const status = new StatusReporter(RED, node);
    const t = sharedTexts(RED, 'status');
    let rows: MappingRow[] = [];
    const resultsSeen = { mapped: 0, held: 0 };
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
        else if (direction === 'toLis') toLis(msg, send, done).catch((err: unknown) => fail(status, msg, err, done));
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
      if (unmapped.length > 0) {
        // The order goes, but those tests will never come back from this analyzer: said on the node and in the Lab sidebar.
        orderGapsFor(RED).add({ sample: String(order.SampleNumber), tests: unmapped, node: node.id, at: Date.now() });
        node.status({ fill: 'yellow', shape: 'dot', text: t('orderMissingTests', { count: unmapped.length, tests: unmapped.join(', '), sample: String(order.SampleNumber) }) });
      } else node.status({ fill: 'green', shape: 'dot', text: t('orderMapped', { n: instrumentTests.length, u: 0 }) });
      send([msg, null]);
      done();
    }

    async function toLis(msg: Msg, send: Send, done: Done): Promise<void> {
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
        // An operator's replay reports what it could not map; the live flow holds it, before anything goes on.
        if (!replay) await holdRejected(msg, mapped.rejected, mapped.items.length === 0);
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

    /**
     * The results this node could not map, held in the journal for a person:
     * one hold per code, all of the batch's in one line. A batch with nothing
     * mapped ends there (its message is settled: every result has its end).
     * When the journal cannot take them, a journaled batch with nothing mapped
     * is marked stuck instead, and the flow hears of the failure.
     */
    async function holdRejected(msg: Msg, rejected: ReturnType<typeof toLisResults>['rejected'], endsPart: boolean): Promise<void> {
      const origin = journalOrigin(msg.journal);
      try {
        const journal = await journalFor(RED);
        const link = origin ? journal.message(origin.message)?.link : undefined;
        await journal.hold({
          node: node.id,
          ...(link !== undefined ? { link } : {}),
          ...(origin ? { message: origin.message, part: origin.part, endsPart } : {}),
          msg: contextOf(msg as Record<string, unknown>),
          holds: holdsFor(rejected, origin ? `${origin.message}#${origin.part}` : `${node.id}:${randomUUID()}`),
        });
        resultsSeen.held += rejected.length;
      } catch (err) {
        if (endsPart) markNothingMapped(RED, node, msg.journal, rejected.map((x) => x.reason));
        const e = new LisError(r('holdNotJournaled', { count: rejected.length, n: rejected.length, reason: messageOf(err) }), { code: 'JOURNAL' });
        status.failed(e);
        node.error(e, { ...RED.util.cloneMessage(msg), payload: rejected, error: e.toMsgError() });
      }
    }

    /** A person sends a hold: mapped again with the map deployed now, all of it or nothing, then on to the LIS sender under the hold's own batch key. */
    async function sendHold(hold: HoldRecord, by: string): Promise<void> {
      const orderedTests = Array.isArray(hold.msg.orderedTests) ? (hold.msg.orderedTests as string[]) : undefined;
      const mapped = toLisResults(hold.results.map((x) => x.result), rows, { orderedTests });
      if (mapped.rejected.length > 0) {
        throw new LisError(r('holdStillUnmapped', { id: hold.id, reasons: [...new Set(mapped.rejected.map((x) => x.reason))].join('; ') }), { code: 'UNMAPPED_TESTS' });
      }
      const journal = await journalFor(RED);
      await journal.actOnHold(hold.id, 'send', by);
      const msg: Msg = { ...(RED.util.cloneMessage(hold.msg) as Msg), _msgid: RED.util.generateId(), payload: mapped.items, processedTests: mapped.processedTests, processed: mapped.processed, journal: { hold: hold.id, ...(hold.message !== undefined ? { message: hold.message } : {}) } };
      resultsSeen.mapped += mapped.items.length;
      showResults();
      node.send([msg, null]);
    }
    const withdraw = registerHoldSender(node.id, sendHold);
    node.on('close', withdraw);
  }

  RED.nodes.registerType('test-mapper', TestMapper as never);
};
