/**
 * The result journal: every message an analyzer sent, stored before its final
 * ACK, and every batch of results sent to the LIS, followed to its end.
 *
 * A received message is *settled* once each result batch it made has been
 * handed to the LIS sender (or it made none). A batch is written before its
 * request leaves, so a crash mid-request leaves it `sending`, which reads back
 * as `uncertain`: the LIS may or may not have it. Failed and uncertain batches
 * are *held* until an operator resends or discards them.
 */
import { AppendLog, type AppendObserver } from './append-log';
import { resultKeysOf } from './result-key';
import { EntrySchema, type BatchEntry, type BatchState, type ErrorInfo, type Entry, type HandedEntry, type HoldEntry } from './entries';
import { HOLD_BATCH_PREFIX, HoldBook, type HoldAction, type HoldRecord, type NewHold } from './holds';
import { type HandedRecord, type HandedValue, HandedValues } from './handed-values';

export interface JournalOptions {
  file: string;
  /** Finished messages and batches older than this are removed at compaction (patient data is not kept for ever). */
  retentionMs: number;
  now?: () => number;
}

export interface MessageRecord {
  id: string;
  link: string;
  at: number;
  end: string;
  /** Kept in memory only until the message is settled: what a replay needs. */
  data: Buffer | undefined;
  /** Result batches the message made, once translated. */
  parts: number | undefined;
  handed: Set<number>;
  replayed: boolean;
  note: string | undefined;
  /** Set on a repeat of an earlier message: settled at once, never passed on. */
  repeatOf: string | undefined;
  /** Its final ACK never went out. */
  unacked: boolean;
  samples: string[] | undefined;
  /** The samples of each result batch (index = part), when the message node said. */
  partSamples: string[][] | undefined;
  /** The batches that made it stuck (nothing in them for the LIS), when known. */
  stuckParts: Set<number> | undefined;
  /** Why it was given up on after its replay; it is not replayed again by itself. */
  stuck: string | undefined;
  /** Where it came from, when its link said (a file's name and content hash): kept in memory for as long as the record. */
  source: MessageSource | undefined;
}

export type MessageSource = Readonly<Record<string, string | number>>;

/**
 * How a message node notes a message it could not read (`planned(id, 0, NOT_UNDERSTOOD + ': why')`):
 * settled, with nothing for the LIS. A link that can put the message aside (a file into error/) looks for it.
 */
export const NOT_UNDERSTOOD = 'not understood';

/** A message the analyzer may still repeat: its content, and the message a repeat of it repeats. */
export interface RepeatCandidate {
  original: string;
  data: Buffer;
}

export interface BatchRecord extends Omit<BatchEntry, 'e'> {
  state: BatchState;
  updatedAt: number;
  error: ErrorInfo | undefined;
  notSent: boolean;
  warned: boolean;
}

export interface BatchOutcome {
  error?: ErrorInfo;
  notSent?: boolean;
  by?: string;
}

export const HELD_STATES: ReadonlySet<BatchState> = new Set(['failed', 'uncertain']);

/** Results reaching one of their ends as it happens (not when the file is read back): what the day's counts are made of. */
export interface Ending {
  /**
   * Where results first ended (delivered, held for a person, discarded by a person after the LIS refused them), or
   * how a person resolved results held for them (released: sent and delivered; dismissed; evaluated: a control the
   * table did not identify, identified and judged in the QC store). So each result is counted
   * once among delivered, heldForPerson and discarded, and a held one once more when a person resolves it.
   */
  ending: 'delivered' | 'heldForPerson' | 'discarded' | 'released' | 'dismissed' | 'evaluated';
  /** The link node the results came over, when the journal knows it. */
  link: string | undefined;
  results: number;
}
const FINAL_STATES: ReadonlySet<BatchState> = new Set(['delivered', 'discarded']);

export class ResultJournal {
  private readonly messages = new Map<string, MessageRecord>();
  private readonly batches = new Map<string, BatchRecord>();
  /** Keys of the held batches: held() runs after every send, and must not walk the whole retention period. */
  private readonly heldKeys = new Set<string>();
  /** Keys of the batches whose request is under way (first send or resend): their results count as at the LIS for a replay. */
  private readonly sendingKeys = new Set<string>();
  /** Each result delivered to the LIS (lib/journal/result-key), with the batch that delivered it: what a replay must not send twice. */
  private readonly deliveredResults = new Map<string, string>();
  private readonly log: AppendLog;
  private readonly now: () => number;
  /** Lines found damaged when the file was read (a torn tail after a crash, or edited by hand). */
  readonly damaged = { torn: 0, invalid: 0 };
  /** Invalid lines are still in the file (compaction removes them). */
  private damagedInFile = false;
  private listeners = new Set<() => void>();
  private endingListeners = new Set<(e: Ending) => void>();
  private marked = 0;
  private readonly holdBook = new HoldBook();
  private readonly handedValues = new HandedValues();

  private constructor(private readonly options: JournalOptions) {
    this.log = new AppendLog(options.file);
    this.now = options.now ?? Date.now;
  }

  static async open(options: JournalOptions): Promise<ResultJournal> {
    const journal = new ResultJournal(options);
    const { lines, torn } = await journal.log.open();
    journal.damaged.torn = torn;
    for (const line of lines) journal.load(line);
    journal.holdBook.reopenUnsent();
    // A batch still `sending` belonged to a process that stopped mid-request.
    for (const b of journal.batches.values()) {
      if (b.state === 'sending') b.state = 'uncertain';
      journal.index(b);
    }
    return journal;
  }

  get file(): string {
    return this.log.file;
  }

  /** Group commits so far (the benchmark reports writes per sync). */
  get syncs(): number {
    return this.log.syncs;
  }

  /** Told of each group commit of the file (the metrics); returns the removal. */
  observe(observer: AppendObserver): () => void {
    return this.log.observe(observer);
  }

  /** Called after every change of held batches, and when a message is given up on as stuck or dismissed (status displays). */
  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Told of results delivered, held for a person or dismissed, as it happens; returns the removal. */
  onEnding(listener: (e: Ending) => void): () => void {
    this.endingListeners.add(listener);
    return () => this.endingListeners.delete(listener);
  }

  private ended(e: Ending): void {
    if (e.results > 0) for (const l of this.endingListeners) l(e);
  }

  // --- received messages ---

  /**
   * Resolves once the message is on disk: only then may the analyzer hear the
   * final ACK. A repeat (`repeatOf`) is written settled, in the same line.
   */
  async received(link: string, id: string, bytes: Buffer, end: string, repeatOf?: string, source?: MessageSource): Promise<void> {
    const at = this.now();
    await this.append({ e: 'rx', id, link, at, data: bytes.toString('base64'), end, ...(repeatOf === undefined ? {} : { repeatOf }), ...(source === undefined ? {} : { source: { ...source } }) });
    this.messages.set(id, newMessage({ id, link, at, end, data: bytes, repeatOf, source }));
  }

  /** Every message of `link` the journal holds (within its retention), oldest first: what a link rebuilds its memory from at start. */
  messagesOf(link: string): MessageRecord[] {
    return [...this.messages.values()].filter((m) => m.link === link);
  }

  /**
   * The message was translated into `parts` result batches (0: nothing for the LIS, e.g. a query), about
   * `samples`; `partSamples` names each batch's samples, so a stuck message lists only those it still owes.
   */
  async planned(id: string, parts: number, note?: string, samples?: string[], partSamples?: string[][]): Promise<void> {
    const m = this.messages.get(id);
    if (!m) return;
    m.parts = parts;
    if (note !== undefined) m.note = note;
    if (samples !== undefined && samples.length > 0) m.samples = [...samples];
    const perPart = partSamples !== undefined && partSamples.length === parts && parts > 1 ? partSamples.map((p) => [...p]) : undefined;
    if (perPart) m.partSamples = perPart;
    this.releaseIfSettled(m);
    // A stuck message settled by its translation alone (no results in it): its link's status says so.
    if (m.stuck !== undefined && isSettled(m)) this.emitChange();
    await this.append({ e: 'rxu', id, parts, ...(note !== undefined ? { note } : {}), ...(m.samples ? { samples: m.samples } : {}), ...(perPart ? { partSamples: perPart } : {}) });
  }

  /**
   * The message was handed to the flow again after a restart. Written after it
   * was handed on: a crash in between leaves it due for replay again (the send
   * side's batch keys keep a second delivery from happening), never marked
   * done without having been passed on.
   */
  async replayed(id: string): Promise<void> {
    const m = this.messages.get(id);
    if (!m) return;
    m.replayed = true;
    await this.append({ e: 'rxu', id, replayed: true });
  }

  /** An operator asked for a stuck message to be replayed: who, on the record (the replay itself follows). */
  async replayAsked(id: string, by: string): Promise<void> {
    if (!this.messages.has(id)) throw new Error(`no message ${id} in the journal`);
    await this.append({ e: 'rxu', id, replayBy: by });
  }

  /** The message's final ACK never went out: remembered across restarts, so its repeat is known. */
  async unacked(id: string): Promise<void> {
    const m = this.messages.get(id);
    if (!m) return;
    m.unacked = true;
    await this.append({ e: 'rxu', id, unacked: true });
  }

  /**
   * Messages of `link` received since `since` that the analyzer may still send
   * again: not settled, replayed after a restart, never ACKed, or themselves
   * repeats. Their repeats must be recognised before they are stored.
   */
  repeatCandidates(link: string, since: number): RepeatCandidate[] {
    const out: RepeatCandidate[] = [];
    for (const m of this.messages.values()) {
      if (m.link !== link || m.data === undefined) continue;
      if (m.at < since) {
        // Past the window no repeat is expected: a settled message's bytes need not stay in memory any longer.
        if (isSettled(m)) m.data = undefined;
        continue;
      }
      if (!isSettled(m) || m.replayed || m.unacked || m.repeatOf !== undefined) out.push({ original: m.repeatOf ?? m.id, data: m.data });
    }
    return out;
  }

  /**
   * Messages of `link` received but not settled, and not given up on: to be
   * processed again. A replay that a crash interrupted is replayed again.
   */
  toReplay(link: string): MessageRecord[] {
    return [...this.messages.values()].filter((m) => m.link === link && m.stuck === undefined && !isSettled(m) && m.data !== undefined);
  }

  /**
   * Gives up on a message that will not reach the LIS by itself (its replay did
   * not get through, or a batch of it had nothing the LIS takes): listed for an
   * operator, not replayed by itself.
   */
  async markStuck(id: string, reason: string, part?: number): Promise<void> {
    const m = this.messages.get(id);
    if (!m || isSettled(m)) return;
    m.stuck = reason;
    if (part !== undefined) (m.stuckParts ??= new Set()).add(part);
    this.marked++;
    this.emitChange();
    await this.append({ e: 'rxu', id, stuck: reason, ...(part !== undefined ? { stuckPart: part } : {}) });
  }

  /** How many times a message was marked stuck: a change listener compares it to know whether to look for new ones. */
  get stuckMarks(): number {
    return this.marked;
  }

  /** Received messages whose results never all reached the LIS sender after a replay (given up on, or replayed by a link no longer there). */
  stuck(): MessageRecord[] {
    return [...this.messages.values()].filter((m) => (m.stuck !== undefined || m.replayed) && !isSettled(m));
  }

  /**
   * What the journal holds that has not reached its end, for a verdict on the whole: messages still on their way
   * (not settled, not stuck) and messages a message node could not read (their results, if any, are unknown). One
   * walk over the messages in memory: for an operator's look, never per message.
   */
  unfinished(): { onTheirWay: number; notUnderstood: number } {
    let onTheirWay = 0;
    let notUnderstood = 0;
    for (const m of this.messages.values()) {
      if (!isSettled(m)) {
        if (m.stuck === undefined && !m.replayed) onTheirWay++;
      } else if (m.note?.startsWith(NOT_UNDERSTOOD)) notUnderstood++;
    }
    return { onTheirWay, notUnderstood };
  }

  /** An operator gives up on a stuck message: it counts as settled, with who decided, and is not listed any more. */
  async dismiss(id: string, by: string): Promise<void> {
    const m = this.messages.get(id);
    if (!m) throw new Error(`no message ${id} in the journal`);
    await this.planned(id, 0, `dismissed by ${by}${m.note ? ` (${m.note})` : ''}`);
    this.emitChange();
  }

  message(id: string): MessageRecord | undefined {
    return this.messages.get(id);
  }

  // --- results held for a person ---

  /**
   * Holds results for a person, all of a batch's holds in one line. With
   * `endsPart` (nothing else of the batch goes on to the LIS) the batch counts
   * as handed on. False, and nothing written, when these holds exist already:
   * the same batch translated again after a restart.
   */
  async hold(entry: NewHold): Promise<boolean> {
    const line: HoldEntry = { e: 'hold', at: this.now(), ...entry };
    const added = this.holdBook.add(line);
    if (added.length === 0) return false;
    const ends = entry.endsPart === true && entry.message !== undefined && entry.part !== undefined && !this.messages.get(entry.message)?.handed.has(entry.part);
    if (ends) this.markHanded(entry.message, entry.part);
    try {
      await this.append(line);
    } catch (err) {
      // Not on disk: the caller must not count these results as held.
      this.holdBook.drop(new Set(added.map((h) => h.id)));
      if (ends) this.messages.get(entry.message!)?.handed.delete(entry.part!);
      throw err;
    }
    this.emitChange();
    for (const h of added) this.ended({ ending: 'heldForPerson', link: h.link, results: h.results.length });
    return true;
  }

  /** Holds waiting for a person, oldest first. */
  holds(): HoldRecord[] {
    return this.holdBook.waiting();
  }

  heldResults(id: string): HoldRecord | undefined {
    return this.holdBook.get(id);
  }

  /** A person sends an open hold (its batch `hold:<id>` follows) or dismisses it; on the record with who and why. */
  async actOnHold(id: string, action: HoldAction, by: string, note?: string): Promise<void> {
    const h = this.holdBook.get(id);
    if (!h) throw new Error(`no held results ${id} in the journal`);
    if (h.state !== 'open') throw new Error(`held results ${id} are ${h.state === 'sending' ? 'being sent' : h.state} already`);
    const at = this.now();
    // Evaluating ends the hold at once, its results leaving memory: counted before.
    const count = h.results.length;
    this.holdBook.acted(id, action, by, at, note);
    this.emitChange();
    await this.append({ e: 'holdu', id, at, action, by, ...(note !== undefined ? { note } : {}) });
    if (action === 'dismiss') this.ended({ ending: 'dismissed', link: h.link, results: h.results.length });
    if (action === 'evaluate') this.ended({ ending: 'evaluated', link: h.link, results: count });
    if (action === 'send' && h.kind === 'correction') await this.correctionSent(h);
  }

  /** A sent correction's values are what the LIS has now: a later version of the file is compared with them. */
  private async correctionSent(h: HoldRecord): Promise<void> {
    if (h.link === undefined || h.message === undefined) return;
    const values: HandedValue[] = [];
    let name = '';
    for (const r of h.results) {
      const item = r.result as { SampleNumber?: unknown; instrumentCode?: unknown; instrumentSubCode?: unknown; Result?: unknown };
      if (r.correction === undefined || typeof item.SampleNumber !== 'string' || typeof item.instrumentCode !== 'string' || typeof item.Result !== 'string') continue;
      name = r.correction.file;
      values.push({ sample: item.SampleNumber, code: item.instrumentCode, ...(typeof item.instrumentSubCode === 'string' && item.instrumentSubCode !== '' ? { sub: item.instrumentSubCode } : {}), n: r.correction.n, value: item.Result });
    }
    if (values.length > 0) await this.handed({ link: h.link, message: h.message, name, via: 'correction', hold: h.id, values });
  }

  // --- values handed on, per sample and test (lib/journal/handed-values.ts) ---

  /**
   * Values a link handed on (or, `repeated`, did not send again), noted before the batch goes on. False, and
   * nothing written, when the line exists already: the same message translated again after a restart.
   */
  async handed(entry: Omit<HandedEntry, 'e' | 'at'>): Promise<boolean> {
    const line: HandedEntry = { e: 'val', at: this.now(), ...entry };
    const before = line.values.map((v) => this.handedValues.get(line.link, v));
    if (!this.handedValues.apply(line)) return false;
    const ends = line.endsPart === true && line.part !== undefined && !this.messages.get(line.message)?.handed.has(line.part);
    if (ends) this.markHanded(line.message, line.part);
    try {
      await this.append(line);
    } catch (err) {
      this.handedValues.undo(line, before);
      if (ends) this.messages.get(line.message)?.handed.delete(line.part!);
      throw err;
    }
    return true;
  }

  /** What `link` handed on last for a sample, test and replicate, when the journal still has it. */
  handedValue(link: string, v: Pick<HandedValue, 'sample' | 'code' | 'sub' | 'n'>): HandedRecord | undefined {
    return this.handedValues.get(link, v);
  }

  /** Open corrections of `link` (their new values), to hold no second one for a value a person has yet to decide. */
  openCorrections(link: string): HoldRecord[] {
    return this.holdBook.waiting().filter((h) => h.kind === 'correction' && h.link === link);
  }

  // --- batches sent to the LIS ---

  batch(key: string): BatchRecord | undefined {
    return this.batches.get(key);
  }

  /** Written before the request leaves; also marks the message part handed over. */
  async beginSend(entry: Omit<BatchEntry, 'e' | 'at'>): Promise<void> {
    if (this.batches.has(entry.key)) throw new Error(`batch ${entry.key} is already in the journal`);
    const at = this.now();
    const line: BatchEntry = { e: 'tx', at, ...entry };
    const record: BatchRecord = { ...entry, at, state: 'sending', updatedAt: at, error: undefined, notSent: false, warned: false };
    this.batches.set(entry.key, record);
    // Indexed in this same tick, before any await: a replay deciding next must see these results in flight.
    this.index(record);
    this.markHanded(entry.message, entry.part);
    this.holdBook.batchWritten(entry.key, at);
    try {
      await this.append(line);
    } catch (err) {
      // Not on disk: nothing was sent, so forget it and let the caller refuse the message.
      this.batches.delete(entry.key);
      this.sendingKeys.delete(entry.key);
      if (entry.message !== undefined && entry.part !== undefined) this.messages.get(entry.message)?.handed.delete(entry.part);
      throw err;
    }
  }

  /** A held batch is being sent again: `sending` until the answer, `uncertain` after a crash. */
  async resending(key: string, by: string): Promise<void> {
    await this.settle(key, 'sending', { by });
  }

  async settle(key: string, state: BatchState, outcome: BatchOutcome = {}): Promise<void> {
    const b = this.batches.get(key);
    if (!b) throw new Error(`no batch ${key} in the journal`);
    const at = this.now();
    b.state = state;
    this.index(b);
    b.updatedAt = at;
    b.error = outcome.error;
    b.notSent = outcome.notSent === true;
    // The age warning is raised once per batch: a failed resend (auto-resend retries every
    // few seconds) must not re-arm it, here or, through the line below, after a restart.
    this.noteDelivered(b);
    if (state === 'delivered' || state === 'discarded') {
      const fromHold = key.startsWith(HOLD_BATCH_PREFIX);
      const ending = state === 'delivered' ? (fromHold ? 'released' : 'delivered') : fromHold ? 'dismissed' : 'discarded';
      this.ended({ ending, link: this.linkOf(b), results: Array.isArray(b.body) ? b.body.length : 0 });
    }
    forgetContentIfFinal(b);
    this.emitChange();
    await this.append({ e: 'txu', key, at, state, ...(outcome.error ? { error: outcome.error } : {}), ...(outcome.notSent ? { notSent: true } : {}), ...(outcome.by ? { by: outcome.by } : {}), ...(b.warned ? { warned: true } : {}) });
  }

  /** Remembers that the age warning was raised for a batch, so a restart does not raise it again. */
  async warned(key: string): Promise<void> {
    const b = this.batches.get(key);
    if (!b || b.warned) return;
    b.warned = true;
    await this.append({ e: 'txu', key, at: b.updatedAt, state: b.state, ...(b.error ? { error: b.error } : {}), ...(b.notSent ? { notSent: true } : {}), warned: true });
  }

  /** Failed and uncertain batches, oldest first; of one sender node when `node` is given. */
  held(node?: string): BatchRecord[] {
    const out: BatchRecord[] = [];
    for (const key of this.heldKeys) {
      const b = this.batches.get(key)!;
      if (node === undefined || b.node === node) out.push(b);
    }
    return out.sort((a, b) => a.at - b.at);
  }

  /**
   * Whether the LIS holds a result (lib/journal/result-key): `delivered` by a
   * delivered batch, `sending` in a batch whose request is under way (it will
   * have it, or the batch ends held), `held` in a failed or uncertain batch (it
   * may have it; the operator decides that batch on its own), undefined when
   * never sent or only in discarded batches.
   */
  resultSeen(key: string): 'delivered' | 'sending' | 'held' | undefined {
    if (this.deliveredResults.has(key)) return 'delivered';
    for (const k of this.sendingKeys) if (resultKeysOf(this.batches.get(k)?.body).includes(key)) return 'sending';
    for (const k of this.heldKeys) if (resultKeysOf(this.batches.get(k)?.body).includes(key)) return 'held';
    return undefined;
  }

  // --- upkeep ---

  /**
   * Drops finished messages and batches past the retention time, and damaged
   * lines. Returns whether the file was rewritten: with nothing to drop (the
   * usual start) it is not read a second time.
   */
  async compact(): Promise<boolean> {
    const cutoff = this.now() - this.options.retentionMs;
    const dropMessages = new Set<string>();
    for (const m of this.messages.values()) if (isSettled(m) && m.at < cutoff) dropMessages.add(m.id);
    const dropBatches = new Set<string>();
    for (const b of this.batches.values()) if (FINAL_STATES.has(b.state) && b.updatedAt < cutoff) dropBatches.add(b.key);
    // Open holds stay however old: they wait for a person.
    const dropHolds = this.holdBook.endedBefore(cutoff);
    const messageKept = (id: string) => this.messages.has(id) && !dropMessages.has(id);
    const dropValues = this.handedValues.droppable(cutoff, messageKept);
    if (dropMessages.size === 0 && dropBatches.size === 0 && dropHolds.size === 0 && !dropValues && !this.damagedInFile) return false;
    await this.log.compact((line) => {
      const entry = parse(line);
      if (!entry) return false;
      if (entry.e === 'rx' || entry.e === 'rxu') return !dropMessages.has(entry.id);
      // A line's holds go together: kept while one of them is still known and not dropped now.
      if (entry.e === 'hold') return entry.holds.some((h) => this.holdBook.has(h.id) && !dropHolds.has(h.id));
      if (entry.e === 'holdu') return !dropHolds.has(entry.id);
      if (entry.e === 'val') return entry.at >= cutoff || messageKept(entry.message);
      return !dropBatches.has(entry.key);
    });
    dropMessages.forEach((id) => this.messages.delete(id));
    dropBatches.forEach((key) => this.batches.delete(key));
    this.holdBook.drop(dropHolds);
    this.handedValues.drop(cutoff, messageKept);
    for (const [result, key] of this.deliveredResults) if (dropBatches.has(key)) this.deliveredResults.delete(result);
    this.damagedInFile = false;
    return true;
  }

  get sizeBytes(): number {
    return this.log.size;
  }

  close(): Promise<void> {
    this.listeners.clear();
    return this.log.close();
  }

  private append(entry: Entry): Promise<void> {
    return this.log.append(JSON.stringify(entry));
  }

  private markHanded(id: string | undefined, part: number | undefined): void {
    if (id === undefined || part === undefined) return;
    const m = this.messages.get(id);
    if (!m) return;
    m.handed.add(part);
    this.releaseIfSettled(m);
  }

  /** A settled message's bytes leave memory, unless the analyzer may repeat it (rare: crashes and lost ACKs). */
  private releaseIfSettled(m: MessageRecord): void {
    if (isSettled(m) && !m.replayed && !m.unacked && m.repeatOf === undefined) m.data = undefined;
  }

  /** The link a batch's results came over: its message's, or its hold's. */
  private linkOf(b: BatchRecord): string | undefined {
    if (b.message !== undefined) return this.messages.get(b.message)?.link;
    return b.key.startsWith(HOLD_BATCH_PREFIX) ? this.holdBook.get(b.key.slice(HOLD_BATCH_PREFIX.length))?.link : undefined;
  }

  /** Read before a delivered batch's content leaves memory. */
  private noteDelivered(b: BatchRecord): void {
    if (b.state !== 'delivered') return;
    for (const key of resultKeysOf(b.body)) this.deliveredResults.set(key, b.key);
  }

  private index(b: BatchRecord): void {
    if (HELD_STATES.has(b.state)) this.heldKeys.add(b.key);
    else this.heldKeys.delete(b.key);
    if (b.state === 'sending') this.sendingKeys.add(b.key);
    else this.sendingKeys.delete(b.key);
  }

  private emitChange(): void {
    for (const l of this.listeners) l();
  }

  private load(line: string): void {
    const entry = parse(line);
    if (!entry) {
      this.damaged.invalid++;
      this.damagedInFile = true;
      return;
    }
    switch (entry.e) {
      case 'rx':
        this.messages.set(entry.id, newMessage({ id: entry.id, link: entry.link, at: entry.at, end: entry.end, data: Buffer.from(entry.data, 'base64'), repeatOf: entry.repeatOf, source: entry.source }));
        break;
      case 'rxu': {
        const m = this.messages.get(entry.id);
        if (!m) break;
        if (entry.parts !== undefined) m.parts = entry.parts;
        if (entry.replayed) m.replayed = true;
        if (entry.unacked) m.unacked = true;
        if (entry.stuck !== undefined) m.stuck = entry.stuck;
        if (entry.stuckPart !== undefined) (m.stuckParts ??= new Set()).add(entry.stuckPart);
        if (entry.samples !== undefined) m.samples = entry.samples;
        if (entry.partSamples !== undefined) m.partSamples = entry.partSamples;
        if (entry.note !== undefined) m.note = entry.note;
        this.releaseIfSettled(m);
        break;
      }
      case 'tx': {
        const { e: _e, ...rest } = entry;
        this.batches.set(entry.key, { ...rest, state: 'sending', updatedAt: entry.at, error: undefined, notSent: false, warned: false });
        this.markHanded(entry.message, entry.part);
        this.holdBook.batchWritten(entry.key, entry.at);
        break;
      }
      case 'txu': {
        const b = this.batches.get(entry.key);
        if (!b) break;
        b.state = entry.state;
        b.updatedAt = entry.at;
        b.error = entry.error;
        b.notSent = entry.notSent === true;
        b.warned = entry.warned === true;
        this.noteDelivered(b);
        forgetContentIfFinal(b);
        break;
      }
      case 'hold':
        if (this.holdBook.add(entry).length > 0 && entry.endsPart === true) this.markHanded(entry.message, entry.part);
        break;
      case 'holdu':
        this.holdBook.acted(entry.id, entry.action, entry.by, entry.at, entry.note);
        break;
      case 'val':
        if (this.handedValues.apply(entry) && entry.endsPart === true) this.markHanded(entry.message, entry.part);
        break;
    }
  }
}

/**
 * A delivered or discarded batch is never sent again: its results stay in the
 * file (until the retention time) but not in memory, which would otherwise
 * grow with every batch of the retention period.
 */
function forgetContentIfFinal(b: BatchRecord): void {
  if (!FINAL_STATES.has(b.state)) return;
  b.body = undefined;
  b.msg = {};
}

function newMessage(init: { id: string; link: string; at: number; end: string; data: Buffer; repeatOf: string | undefined; source: MessageSource | undefined }): MessageRecord {
  const repeat = init.repeatOf !== undefined;
  return { ...init, parts: repeat ? 0 : undefined, handed: new Set(), replayed: false, note: repeat ? `repeat of ${init.repeatOf}` : undefined, unacked: false, samples: undefined, partSamples: undefined, stuckParts: undefined, stuck: undefined };
}

/**
 * What a stuck message still owes the LIS: the samples of the batches that made it stuck, or of every batch not
 * handed on when that is not known (`owed`), and its other samples, whose batches went on to the LIS sender
 * (`others`). Without per-batch samples, every sample is owed.
 */
export function owedSamples(m: MessageRecord): { owed: string[]; others: string[] } {
  if (m.partSamples === undefined) return { owed: m.samples ?? [], others: [] };
  const stuck = m.stuckParts !== undefined ? [...m.stuckParts].filter((p) => !m.handed.has(p)) : [];
  const owedParts = new Set(stuck.length > 0 ? stuck : m.partSamples.map((_, p) => p).filter((p) => !m.handed.has(p)));
  const owed = new Set<string>();
  const others = new Set<string>();
  m.partSamples.forEach((samples, part) => samples.forEach((s) => (owedParts.has(part) ? owed : others).add(s)));
  owed.forEach((s) => others.delete(s));
  return { owed: [...owed], others: [...others] };
}

/** Each result batch the message made has reached the LIS sender (or it made none). */
export function isSettled(m: MessageRecord): boolean {
  return m.parts !== undefined && m.handed.size >= m.parts;
}

function parse(line: string): Entry | undefined {
  try {
    const r = EntrySchema.safeParse(JSON.parse(line));
    return r.success ? r.data : undefined;
  } catch {
    return undefined;
  }
}
