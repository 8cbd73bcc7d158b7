/**
 * The runtime's link health board (lib/health/link-health): one per editor
 * app, like the admin routes, so two runtimes in one process (tests) keep
 * their links apart. The link and message nodes feed it; the metrics route
 * and the operator's sidebar read it. Held and stuck counts come from the
 * result journal: read before each snapshot, and after the journal's held or
 * stuck messages change while someone watches the board (at most once a
 * second: counting stuck messages walks the journal's memory).
 */
import type { NodeAPI } from 'node-red';
import { type HealthSnapshot, LinkHealthBoard, OrderGaps, queuesByLink } from '../../lib/health';
import type { ResultJournal } from '../../lib/journal';
import { openedJournal, whenJournalOpens } from './journal';

const boards = new WeakMap<object, LinkHealthBoard>();

/** The editor app's board, made on first use. */
export function boardFor(RED: NodeAPI): LinkHealthBoard {
  const app = RED.httpAdmin as unknown as object;
  let board = boards.get(app);
  if (!board) {
    const made = new LinkHealthBoard();
    board = made;
    boards.set(app, made);
    whenJournalOpens(RED, (journal) => {
      watchQueues(made, journal);
      // The day's ends of each link's results, as the journal records them.
      journal.onEnding((e) => {
        if (e.link !== undefined) made.ended(e.link, e.ending, e.results, Date.now());
      });
    });
  }
  return board;
}

const orderGapBooks = new WeakMap<object, OrderGaps>();

/** The editor app's orders sent without some of their tests (lib/health/order-gaps), made on first use. */
export function orderGapsFor(RED: NodeAPI): OrderGaps {
  const app = RED.httpAdmin as unknown as object;
  let gaps = orderGapBooks.get(app);
  if (!gaps) orderGapBooks.set(app, (gaps = new OrderGaps()));
  return gaps;
}

/** The board with held and stuck counts as the journal has them now (when it is open). */
export async function healthSnapshot(RED: NodeAPI, all = false): Promise<HealthSnapshot> {
  const board = boardFor(RED);
  const journal = openedJournal(RED);
  if (journal) setQueues(board, await journal);
  return board.snapshot(Date.now(), all);
}

function watchQueues(board: LinkHealthBoard, journal: ResultJournal): void {
  let timer: NodeJS.Timeout | undefined;
  journal.onChange(() => {
    if (timer || !board.watched) return;
    timer = setTimeout(() => {
      timer = undefined;
      setQueues(board, journal);
    }, 1000);
    timer.unref();
  });
}

function setQueues(board: LinkHealthBoard, journal: ResultJournal): void {
  const counts = queuesByLink(journal);
  for (const node of board.nodes()) board.queues(node, counts.get(node) ?? { held: 0, stuck: 0, waiting: 0 });
}
