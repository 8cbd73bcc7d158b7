/**
 * What an analyzer link does with each message it received, around the
 * journal: store it first, only then ACK its final frame and pass it on; NAK
 * it when it cannot be stored; replay what was stored but never handed to the
 * LIS; and recognise the analyzer's repeat of a message whose final ACK may
 * never have reached it.
 *
 * Two crashes in a row must not turn a repeat into a second delivery, nor
 * leave a message marked replayed that was never handed on. So a repeat is
 * recognised before it is stored and written as one (in the same journal
 * line); what the analyzer may repeat is rebuilt from the journal at every
 * start, including messages delivered since; and a replayed message is handed
 * on first and marked after. Plain TypeScript: astm-link is the adapter.
 */
import { randomUUID } from 'node:crypto';
import { LisError, messageOf } from '../errors';
import { isSettled, type MessageRecord, type ResultJournal } from './journal';
import { UnackedCopies } from './unacked-copies';

/** The part of a link driver that holds back a final ACK. */
export interface HeldAck {
  readonly closedForGood: boolean;
  awaitsStored(id: string): boolean;
  confirmStored(id: string): void;
  rejectStored(id: string): void;
}

/** A complete message from the link layer. */
export interface Received {
  id: string;
  bytes: Buffer;
  end: string;
  /** Its final ACK waits for confirmStored / rejectStored. */
  held: boolean;
}

/** What goes on to the flow (msg.payload and msg.astm). */
export interface PassedOn {
  bytes: Buffer;
  astm: { messageId?: string; journalId?: string; end: string; receivedAt: string; replay?: true };
}

export interface LinkStoreEvents {
  warn(text: string): void;
  /** The message could not be stored (a JOURNAL error for Catch nodes). */
  failed(err: LisError, bytes: Buffer): void;
}

export interface LinkStoreOptions {
  /**
   * Whether a message carries results, the only messages whose repeat must not
   * be processed twice. Anything else (a host query) is processed again when
   * repeated: answering a query twice is what the analyzer asked for.
   */
  carriesResults: (bytes: Uint8Array) => boolean;
}

/** How long after a message its repeat is expected: well beyond an analyzer's own retry delays. */
export const REPEAT_WINDOW_MS = 15 * 60_000;

/** Where a repeat was recognised, so it can be forgotten once the analyzer heard its ACK. */
interface Recognised {
  original: string;
  copies: UnackedCopies;
}

/** Per link (astm-link node id), kept across redeploys: a repeat may arrive after the node restarted. */
const unackedByKey = new Map<string, UnackedCopies>();
function unackedCopiesOf(key: string): UnackedCopies {
  let copies = unackedByKey.get(key);
  if (!copies) unackedByKey.set(key, (copies = new UnackedCopies()));
  return copies;
}

/**
 * Looks up without creating: TCP analyzers reconnect under new session ids,
 * and an entry per session ever seen would grow for as long as Node-RED runs.
 */
function findIn(key: string, bytes: Uint8Array, now: number): Recognised | undefined {
  const copies = unackedByKey.get(key);
  if (!copies) return undefined;
  const original = copies.find(bytes, now);
  if (copies.size === 0) unackedByKey.delete(key);
  return original === undefined ? undefined : { original, copies };
}

export class LinkStore {
  private readonly storing = new Set<Promise<void>>();
  /**
   * What the analyzer may repeat on any of this link's connections: the
   * journal's candidates as of this start (a crash changes every TCP session),
   * and messages whose connection closed before their final ACK.
   */
  private readonly linkCopies: UnackedCopies;
  /** Messages this start replayed, with when, until they settle or are given up on. */
  private readonly replaying = new Map<string, number>();
  private stopping = false;

  constructor(
    private readonly opening: Promise<ResultJournal>,
    /** The link's name in the journal (the astm-link node id). */
    private readonly link: string,
    private readonly events: LinkStoreEvents,
    private readonly options: LinkStoreOptions,
  ) {
    this.linkCopies = unackedCopiesOf(`${link}/any`);
    // Registered as soon as the journal is open, before any message of this start can be stored.
    opening
      .then((j) => {
        const now = Date.now();
        for (const c of j.repeatCandidates(link, now - REPEAT_WINDOW_MS)) {
          if (options.carriesResults(c.data)) this.linkCopies.remember(c.data, c.original, now);
        }
      })
      .catch(() => undefined);
  }

  /**
   * Stores `message` and then ACKs and passes it on (or, if it cannot be
   * stored, NAKs it). `session` names the line or TCP session, so one
   * analyzer's repeat is never confused with another's message.
   */
  store(session: string, port: HeldAck, message: Received, passOn: (m: PassedOn) => void): void {
    const journalId = randomUUID();
    const receivedAt = new Date().toISOString();
    const astm = { messageId: message.id, journalId, end: message.end, receivedAt };
    const sessionKey = `${this.link}/${session}`;
    let repeat: Recognised | undefined;
    const work = this.opening
      .then(async (j) => {
        // Decided before the line is written, and written in it: a crash can then never leave a repeat
        // looking like a message of its own.
        repeat = this.options.carriesResults(message.bytes) ? this.recognise(sessionKey, message.bytes) : undefined;
        await j.received(this.link, journalId, message.bytes, message.end, repeat?.original);
        return j;
      })
      .then(
        (j) => this.afterStored(j, sessionKey, port, message, journalId, repeat, () => passOn({ bytes: message.bytes, astm })),
        (err: unknown) => {
          if (message.held && !port.closedForGood) port.rejectStored(message.id);
          const e = new LisError(
            `message ${message.id} could not be stored in the result journal (${messageOf(err)}): ${message.held ? 'it was refused (ASTM: its last frame NAKed; HL7: AE), so the analyzer sends it again' : 'it was acknowledged already, so it is passed on unstored'}`,
            { code: 'JOURNAL' },
          );
          this.events.failed(e, message.bytes);
          if (!message.held && !port.closedForGood) passOn({ bytes: message.bytes, astm: { messageId: message.id, end: message.end, receivedAt } });
        },
      )
      // Whatever went wrong after the disk, the flow hears of it: a rejected promise here would take Node-RED down.
      .catch((err: unknown) => this.events.warn(`message ${message.id}: ${messageOf(err)}`))
      .finally(() => this.storing.delete(work));
    this.storing.add(work);
  }

  /**
   * Messages stored before the last stop (or redeploy) but never handed to the
   * LIS: passed on again. Each is marked replayed only after it was handed on,
   * so a crash during the replay replays it again at the next start.
   */
  async replay(passOn: (m: PassedOn) => void, now = Date.now()): Promise<number> {
    const j = await this.opening;
    const due = j.toReplay(this.link).filter((m) => !this.replaying.has(m.id));
    const marks: Promise<void>[] = [];
    for (const m of due) {
      this.replaying.set(m.id, now);
      passOn({ bytes: m.data!, astm: { journalId: m.id, end: m.end, receivedAt: new Date(m.at).toISOString(), replay: true } });
      // Queued at once, so the mark is in the file before any batch the flow journals for the message.
      marks.push(j.replayed(m.id));
    }
    await Promise.all(marks);
    return due.length;
  }

  /** An operator's decision: a stuck message (replayed, still not settled) is passed on once more. */
  async replayStuck(id: string, passOn: (m: PassedOn) => void): Promise<void> {
    const j = await this.opening;
    const m = j.stuck().find((x) => x.id === id && x.link === this.link);
    if (!m) throw new Error(`message ${id} is not a stuck message of this link`);
    passOn({ bytes: m.data!, astm: { journalId: m.id, end: m.end, receivedAt: new Date(m.at).toISOString(), replay: true } });
  }

  /**
   * Replayed messages still not settled `afterMs` after their replay are given
   * up on: marked stuck in the journal (not replayed again by themselves) and
   * returned, for the operator to be told. A crash before this point leaves
   * them to be replayed again instead.
   */
  async giveUp(now: number, afterMs: number, reason: string): Promise<MessageRecord[]> {
    if (this.replaying.size === 0) return [];
    const j = await this.opening;
    const out: MessageRecord[] = [];
    for (const [id, at] of [...this.replaying]) {
      const m = j.message(id);
      if (!m || isSettled(m)) this.replaying.delete(id);
      else if (now - at >= afterMs) {
        this.replaying.delete(id);
        await j.markStuck(id, reason);
        out.push(m);
      }
    }
    return out;
  }

  /** Resolves once every message being stored is settled (a closing node waits, so the next start finds them). */
  async settled(): Promise<void> {
    await Promise.allSettled([...this.storing]);
  }

  /**
   * The node is stopping (redeploy or a clean shutdown): messages being stored
   * are left for the next start, and replayed ones that have still not reached
   * the LIS are given up on (returned), so a start does not replay them in a loop.
   */
  async close(now = Date.now()): Promise<MessageRecord[]> {
    this.stopping = true;
    await this.settled();
    return this.giveUp(now, 0, 'its replay had not reached the LIS when the flow stopped');
  }

  private recognise(sessionKey: string, bytes: Uint8Array): Recognised | undefined {
    const now = Date.now();
    const found = findIn(sessionKey, bytes, now);
    if (found) return found;
    const original = this.linkCopies.find(bytes, now);
    return original === undefined ? undefined : { original, copies: this.linkCopies };
  }

  private async afterStored(j: ResultJournal, sessionKey: string, port: HeldAck, message: Received, journalId: string, repeat: Recognised | undefined, passOn: () => void): Promise<void> {
    if (repeat) {
      if (message.held && port.awaitsStored(message.id)) {
        port.confirmStored(message.id);
        // The analyzer hears this ACK: it will not send the message again.
        repeat.copies.forget(message.bytes);
      }
      this.events.warn(`message ${message.id} repeats message ${repeat.original}, which was passed on although its final ACK may never have reached the analyzer: not passed on again`);
      return;
    }
    if (message.held && !port.awaitsStored(message.id)) {
      if (this.stopping) return; // the node is closing: left unsettled, so the next start replays it
      // The final ACK can no longer go out: the connection closed, or the analyzer ended the transfer
      // (or began another) while the disk was busy. Processed all the same, so nothing is lost if the
      // analyzer never repeats it; a repeat is recognised and not processed twice, on a new connection
      // too when this one closed, and after a restart (the journal remembers it was never ACKed).
      if (this.options.carriesResults(message.bytes)) {
        (port.closedForGood ? this.linkCopies : unackedCopiesOf(sessionKey)).remember(message.bytes, journalId, Date.now());
        await j.unacked(journalId).catch((err: unknown) => this.events.warn(`message ${message.id}: could not note in the journal that its final ACK never went out (${messageOf(err)})`));
      }
      const why = port.closedForGood ? 'the connection closed' : 'the analyzer ended the transfer';
      this.events.warn(`message ${message.id}: ${why} before its final ACK could be sent; it is passed on, and a repeat of it from the analyzer will not be`);
      passOn();
      return;
    }
    if (this.stopping) return; // the node is closing: left unsettled, so the next start replays it
    if (message.held) port.confirmStored(message.id);
    passOn();
  }
}
