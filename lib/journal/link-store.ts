/**
 * What an analyzer link does with each message it received, around the
 * journal: store it first, only then ACK its final frame and pass it on; NAK
 * it when it cannot be stored; replay, once, what was stored but never handed
 * to the LIS; and recognise the analyzer's repeat of a message whose final ACK
 * never went out. Plain TypeScript: astm-link is the adapter.
 */
import { randomUUID } from 'node:crypto';
import { LisError } from '../lis/errors';
import type { ResultJournal } from './journal';
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
function takeRepeat(key: string, bytes: Uint8Array, now: number): string | undefined {
  const copies = unackedByKey.get(key);
  if (!copies) return undefined;
  const repeatOf = copies.takeRepeat(bytes, now);
  if (copies.size === 0) unackedByKey.delete(key);
  return repeatOf;
}

export class LinkStore {
  private readonly storing = new Set<Promise<void>>();
  /** Copies the replay passes on, which may never have had their final ACK (a stop between the disk and the ACK). */
  private readonly replayedCopies: UnackedCopies;

  constructor(
    private readonly opening: Promise<ResultJournal>,
    /** The link's name in the journal (the astm-link node id). */
    private readonly link: string,
    private readonly events: LinkStoreEvents,
  ) {
    this.replayedCopies = unackedCopiesOf(`${link}/replayed`);
    // Registered as soon as the journal is open, before any message of this start can be stored,
    // so the analyzer's repeat of a replayed message is recognised.
    opening.then((j) => j.toReplay(link).forEach((m) => this.replayedCopies.remember(m.data!, m.id, Date.now()))).catch(() => undefined);
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
    const work = this.opening
      .then(async (j) => {
        await j.received(this.link, journalId, message.bytes, message.end);
        return j;
      })
      .then(
        (j) => this.afterStored(j, session, port, message, journalId, () => passOn({ bytes: message.bytes, astm })),
        (err: unknown) => {
          if (message.held && !port.closedForGood) port.rejectStored(message.id);
          const e = new LisError(
            `message ${message.id} could not be stored in the result journal (${err instanceof Error ? err.message : String(err)}): ${message.held ? 'its last frame was NAKed, so the analyzer sends it again' : 'it was acknowledged already, so it is passed on unstored'}`,
            { code: 'JOURNAL' },
          );
          this.events.failed(e, message.bytes);
          if (!message.held && !port.closedForGood) passOn({ bytes: message.bytes, astm: { messageId: message.id, end: message.end, receivedAt } });
        },
      )
      .finally(() => this.storing.delete(work));
    this.storing.add(work);
  }

  /** Messages stored before the last stop (or redeploy) but never handed to the LIS: passed on again, once. */
  async replay(passOn: (m: PassedOn) => void): Promise<number> {
    const j = await this.opening;
    const due = j.toReplay(this.link);
    for (const m of due) {
      await j.replayed(m.id);
      passOn({ bytes: m.data!, astm: { journalId: m.id, end: m.end, receivedAt: new Date(m.at).toISOString(), replay: true } });
    }
    return due.length;
  }

  /** An operator's decision: a stuck message (replayed, still not settled) is passed on once more. */
  async replayStuck(id: string, passOn: (m: PassedOn) => void): Promise<void> {
    const j = await this.opening;
    const m = j.stuck().find((x) => x.id === id && x.link === this.link);
    if (!m) throw new Error(`message ${id} is not a stuck message of this link`);
    passOn({ bytes: m.data!, astm: { journalId: m.id, end: m.end, receivedAt: new Date(m.at).toISOString(), replay: true } });
  }

  /** Resolves once every message being stored is settled (a closing node waits, so the next start finds them). */
  async settled(): Promise<void> {
    await Promise.allSettled([...this.storing]);
  }

  private afterStored(j: ResultJournal, session: string, port: HeldAck, message: Received, journalId: string, passOn: () => void): void {
    const sessionKey = `${this.link}/${session}`;
    const now = Date.now();
    const repeatOf = takeRepeat(sessionKey, message.bytes, now) ?? this.replayedCopies.takeRepeat(message.bytes, now);
    if (repeatOf !== undefined) {
      if (message.held && port.awaitsStored(message.id)) port.confirmStored(message.id);
      this.events.warn(`message ${message.id} repeats message ${repeatOf}, which was passed on although its final ACK may never have gone out: not passed on again`);
      void j.planned(journalId, 0, `repeat of ${repeatOf}`).catch(() => undefined);
      return;
    }
    if (message.held && !port.awaitsStored(message.id)) {
      // The final ACK can no longer go out: the link closed, or the analyzer ended the transfer (or began
      // another) while the disk was busy. Processed all the same, so nothing is lost if the analyzer never
      // repeats it; a repeat is recognised and not processed twice.
      unackedCopiesOf(sessionKey).remember(message.bytes, journalId, now);
      const why = port.closedForGood ? 'the link closed' : 'the analyzer ended the transfer';
      this.events.warn(`message ${message.id}: ${why} before its final ACK could be sent; it is passed on, and a repeat of it from the analyzer will not be`);
      if (!port.closedForGood) passOn(); // else left unsettled: the next start replays it
      return;
    }
    if (port.closedForGood) return; // already ACKed (no L record): left unsettled, so the next start replays it
    if (message.held) port.confirmStored(message.id);
    passOn();
  }
}
