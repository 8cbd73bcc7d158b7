/**
 * The result journal's side of an analyzer-link node (astm-link, hl7-link,
 * folder-link): store each message before its final ACK (lib/journal/LinkStore),
 * replay what never reached the LIS when the flows start, report what is
 * stuck (at start, whenever a replay is given up on, and when test-mapper
 * found nothing for the LIS in a batch), and the operator's
 * admin routes to replay or dismiss a stuck message.
 */
import type { Node, NodeAPI } from 'node-red';
import type { Request, Response } from 'express';
import { isSettled, journalOrigin, LinkStore, type MessageRecord, owedSamples, type PassedOn, type ResultJournal } from '../../lib/journal';
import { capText } from '../../lib/util';
import { LisError, messageOf } from '../../lib/errors';
import { adminUser, answerError, installRoutesOnce } from './admin';
import { checkEveryMs, journalFor, openedJournal } from './journal';
import { periodic } from './periodic';
import { sharedTexts, type StatusReporter, type Texts } from './status';

/** A replayed message not settled this long after its replay is given up on (stuck) and reported. */
const STUCK_AFTER_MS = 60_000;
/** How often that is looked at (a periodic check: nodes/shared/periodic.ts). */
const GIVE_UP_CHECK_MS = 10_000;

/** Deployed link nodes by id, for the admin route that replays a stuck message. */
const replayers = new Map<string, (id: string) => Promise<void>>();

export interface LinkJournal {
  store: LinkStore;
  /** The node is closing: messages being stored finish, and unsettled replays are listed as stuck. */
  close(): Promise<void>;
}

/**
 * Opens the journal for a link node; `passOn` hands a stored (or replayed)
 * message to the flow. Every failure reaches the node's status and Catch nodes.
 */
export function linkJournal(RED: NodeAPI, node: Node, status: StatusReporter, t: Texts, carriesResults: (bytes: Uint8Array) => boolean, passOn: (m: PassedOn) => void): LinkJournal {
  installStuckRoutesOnce(RED);
  const r = sharedTexts(RED, 'runtime');
  const journal = journalFor(RED);
  const store = new LinkStore(
    journal,
    node.id,
    {
      warn: (text) => node.warn(text),
      failed: (err, bytes) => {
        status.failed(err);
        node.error(err, { payload: bytes, error: err.toMsgError() });
      },
    },
    { carriesResults },
  );
  journal.catch((err: unknown) => {
    const e = new LisError(r('journalNotOpened', { reason: messageOf(err) }), { code: 'JOURNAL' });
    status.failed(e);
    node.error(e, { payload: undefined, error: e.toMsgError() });
  });

  let closed = false;
  /**
   * The link's stuck messages, for its status: `n stuck` in red until each is
   * settled (replayed through to the LIS) or dismissed. Only this link's store
   * marks its messages stuck (at start they are read from the journal), so a
   * change of the journal re-checks only these.
   */
  const stuckIds = new Set<string>();
  /** Stuck messages already raised to Catch by this node: each is said once. */
  const reported = new Set<string>();
  let marksSeen = 0;
  const showStuck = (j: ResultJournal): void => {
    for (const id of stuckIds) {
      const m = j.message(id);
      if (!m || isSettled(m)) stuckIds.delete(id);
    }
    status.condition('stuck', stuckIds.size > 0 ? { fill: 'red', shape: 'ring', text: t('stuck', { n: stuckIds.size }) } : undefined);
  };
  let stopWatching: (() => void) | undefined;
  journal.then((j) => {
    if (closed) return;
    for (const m of j.stuck()) if (m.link === node.id && m.stuck !== undefined) stuckIds.add(m.id);
    marksSeen = j.stuckMarks;
    stopWatching = j.onChange(() => {
      // Marked stuck elsewhere (test-mapper: a batch with nothing for the LIS): looked for only when a mark was made.
      if (j.stuckMarks !== marksSeen) {
        marksSeen = j.stuckMarks;
        reportStuck(j.stuck().filter((m) => m.link === node.id && m.stuck !== undefined && !reported.has(m.id)));
      }
      if (stuckIds.size > 0) showStuck(j);
    });
    showStuck(j);
  }, () => undefined);
  /** Each stuck message: a STUCK error with its samples for Catch nodes, and a red status. */
  const reportStuck = (stuck: MessageRecord[]): void => {
    if (stuck.length === 0) return;
    for (const m of stuck) {
      stuckIds.add(m.id);
      if (reported.has(m.id)) continue;
      reported.add(m.id);
      const { owed, others } = owedSamples(m);
      const samples = owed.length ? r('stuckSamples', { count: owed.length, samples: owed.join(', ') }) + (others.length ? r('stuckOthers', { samples: others.join(', ') }) : '') : r('stuckSamplesUnknown');
      const err = new LisError(r('stuck', { id: m.id, at: new Date(m.at).toISOString(), samples, why: m.stuck ?? r('stuckAfterReplay') }), { code: 'STUCK' });
      node.error(err, { payload: { id: m.id, samples: owed, others, receivedAt: new Date(m.at).toISOString() }, error: err.toMsgError() });
    }
    void journal.then(showStuck);
  };
  /** Messages stored before a restart (or redeploy) but never handed to the LIS: processed again. */
  const replay = async (): Promise<void> => {
    if (closed) return;
    // What earlier runs gave up on is said first: it waits for an operator, not for this start.
    reportStuck((await journal).stuck().filter((m) => m.link === node.id && m.stuck !== undefined));
    const n = await store.replay(passOn);
    if (n > 0) {
      node.warn(r('replayed', { count: n }));
      status.show({ fill: 'yellow', shape: 'dot', text: t('replayed', { n }) });
    }
  };
  const onFlowsStarted = () => void replay().catch((err: unknown) => node.error(err));
  RED.events.once('flows:started', onFlowsStarted);
  const giveUps = periodic(async (now) => reportStuck(await store.giveUp(now, STUCK_AFTER_MS, r('stuckLate', { s: STUCK_AFTER_MS / 1000 }))), {
    everyMs: checkEveryMs(RED, GIVE_UP_CHECK_MS),
    onError: (err) => node.warn(messageOf(err)),
  });
  replayers.set(node.id, (id) => store.replayStuck(id, passOn));

  return {
    store,
    async close() {
      closed = true;
      giveUps.stop();
      stopWatching?.();
      RED.events.removeListener('flows:started', onFlowsStarted);
      replayers.delete(node.id);
      // A message being stored finishes first, so the next start finds it in the journal.
      for (const m of await store.close()) {
        node.warn(r('stuckAtStop', { id: m.id, samples: m.samples?.join(', ') || r('samplesUnknown') }));
      }
    },
  };
}

/** Once per editor app: by the first link node with a journal, or by the Lab sidebar plugin at start. */
export function installStuckRoutesOnce(RED: NodeAPI): void {
  installRoutesOnce(RED, 'stuck', () => installStuckRoutes(RED));
}

/**
 * A stuck message (stored, replayed after a restart, and still never handed
 * to the LIS, e.g. its tests were not mapped) waits for an operator: replay
 * it once more after fixing the cause, or dismiss it.
 */
function installStuckRoutes(RED: NodeAPI): void {
  const admin = RED.httpAdmin as unknown as { post: (path: string, ...h: unknown[]) => void };
  const withStuck = (act: (journal: ResultJournal, link: string, id: string, req: Request) => Promise<void>) => (req: Request, res: Response) => {
    const id = String(req.params.id);
    journalFor(RED)
      .then(async (journal) => {
        const m = journal.stuck().find((x) => x.id === id);
        if (!m) return answerError(res, 404, `no stuck message ${id}`);
        try {
          await act(journal, m.link, id, req);
          res.json({ id, link: m.link });
        } catch (err) {
          answerError(res, 409, err);
        }
      })
      .catch((err: unknown) => answerError(res, 500, err));
  };
  admin.post(
    '/lis-bridge/stuck/:id/replay',
    RED.auth.needsPermission('lis.write'),
    withStuck(async (journal, link, id, req) => {
      const replay = replayers.get(link);
      if (!replay) throw new Error(`the link node ${link} (astm-link, hl7-link or folder-link) that received message ${id} is not deployed (or its journal is off): deploy it, then replay`);
      await journal.replayAsked(id, adminUser(req));
      await replay(id);
    }),
  );
  admin.post('/lis-bridge/stuck/:id/dismiss', RED.auth.needsPermission('lis.write'), withStuck((journal, _link, id, req) => journal.dismiss(id, adminUser(req))));
}

/**
 * A journaled message's batch none of whose results test-mapper could map
 * never reaches lis-send-results, where a part of a message is marked handed
 * on: its message is marked stuck at once (its link's status, STUCK to Catch,
 * the Lab sidebar), for an operator to map the tests and replay it, or
 * dismiss it. Not replayed by itself after a restart: it would only fail again.
 */
export function markNothingMapped(RED: NodeAPI, node: Node, origin: unknown, reasons: string[]): void {
  const from = journalOrigin(origin);
  if (from === undefined) return;
  const r = sharedTexts(RED, 'runtime');
  const reason = capText(r('nothingForLis', { count: reasons.length, reasons: reasons.join('; ') }), 500);
  openedJournal(RED)
    ?.then((journal) => journal.markStuck(from.message, reason, from.part))
    .catch((err: unknown) => node.warn(r('stuckNotJournaled', { message: from.message, reason: messageOf(err) })));
}
