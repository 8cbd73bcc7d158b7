/**
 * folder-link's runtime (nodes/folder-link.ts reads the settings): the folder
 * watcher (lib/protocols/file) on the result journal, each new file sent with
 * msg.file, the journal's replay of files handed on but never delivered, and
 * what an operator sees: the status, the Lab sidebar row (the health board:
 * protocol "file"), alarms and metrics like every link's.
 */
import type { Node, NodeAPI, NodeStatus } from 'node-red';
import { type FileFacts, type FolderClash, folderReaders, FolderStore, FolderWatcher, type FolderCounts, type FolderOptions, type FolderProblem } from '../../lib/protocols/file';
import { LisError, messageOf } from '../../lib/errors';
import { templateVariable } from './env-template';
import { boardFor } from './health';
import { journalFor } from './journal';
import { linkJournal } from './link-journal';
import { sharedTexts, type StatusReporter } from './status';
import { watchAlarms, type LinkAlarmSettings } from './link-alarms';
import { FILE_MESSAGE_TOPIC, SHARED_NS } from './types';

const NS = '@lis-bridge/node-red-lis-bridge/folder-link';

export function runFolderLink(RED: NodeAPI, node: Node, status: StatusReporter, options: FolderOptions, analyzer: string, alarmSettings: LinkAlarmSettings): void {
  const t = (key: string, vars?: Record<string, string | number>) => RED._(`${NS}:folder-link.${key}`, vars);
  const health = boardFor(RED);
  health.add(node.id, { name: node.name || analyzer || node.id, protocol: 'file' }, Date.now());
  if (analyzer !== '') health.identified(node.id, undefined, { text: analyzer, name: analyzer }, Date.now());
  const clock = (ms: number) => new Date(ms).toLocaleTimeString('sv-SE').slice(0, 5);
  const alarms = watchAlarms(RED, node, alarmSettings, {
    quiet: (vars) => t('alarm.quiet', vars),
    quietStatus: (time) => t('status.quiet', { time }),
    down: (vars) => t('alarm.down', { ...vars, folder: options.folder }),
    downStatus: (time) => t('status.down', { time }),
  });
  let store: FolderStore | undefined;
  let lastFile: { name: string; at: number } | undefined;
  // Totals since first deployed (Prometheus counters never go down): a redeploy goes on from the board's.
  const before = health.link(node.id, Date.now())?.files;
  let duplicates = before?.duplicates ?? 0;
  let errorFiles = before?.errorFiles ?? 0;

  const send = (bytes: Buffer, id: string, facts: FileFacts | undefined, receivedAt: string, replay: boolean): void => {
    const file = { link: node.id, journalId: id, ...(facts ?? {}), ...(analyzer !== '' ? { analyzer } : {}), receivedAt, ...(replay ? { replay: true } : {}) };
    node.send({ payload: bytes, topic: FILE_MESSAGE_TOPIC, file } as never);
  };
  // Files handed on before a restart (or redeploy) and never delivered come back from the journal, with what it kept of them.
  const stored = linkJournal(RED, node, status, sharedTexts(RED, 'link'), () => false, (m) => {
    const id = m.astm.journalId!;
    send(m.bytes, id, store?.facts(id), m.astm.receivedAt, true);
  });
  /** The last problem or duplicate, kept on the status (with the counts) until the next file is taken. */
  let notice: NodeStatus | undefined;
  let counts: FolderCounts = { settling: 0, taken: 0, held: 0, untaken: 0 };
  const show = (): void => {
    const waiting = counts.settling + counts.taken;
    if (notice) return status.show({ ...notice, text: t('status.withCounts', { notice: String(notice.text), waiting }) });
    const last = lastFile ? t('status.last', { name: lastFile.name, time: clock(lastFile.at) }) : t('status.noFile');
    status.show({ fill: counts.held > 0 ? 'yellow' : 'green', shape: 'dot', text: t('status.watching', { waiting, held: counts.held, last }) });
  };
  const raise = (err: LisError, payload: unknown): void => {
    health.error(node.id, undefined, Date.now());
    notice = { fill: 'red', shape: 'ring', text: t('status.failed', { reason: err.code }) };
    show();
    node.error(err, { payload, error: err.toMsgError() });
  };

  // The folder's state and whether another reader keeps it: both are what the transport condition shows.
  let folderDown: NodeStatus | undefined;
  let sharedWith: NodeStatus | undefined;
  const transport = () => status.condition('transport', sharedWith ?? folderDown);
  /** Who reads the folder instead, in words: a link of this flow (named, with its id), or another process. */
  const clashText = (c: FolderClash): string =>
    c.kind === 'link'
      ? t('shared.link', { name: c.holder.label, id: c.holder.id, pattern: c.holder.pattern })
      : c.by === undefined
        ? t('shared.unknownLock')
        : t('shared.process', { host: c.by.host, pid: c.by.pid, since: c.by.since });

  let watcher: FolderWatcher | undefined;
  let closed = false;
  const opened = journalFor(RED).then((j) => {
    if (closed) return;
    store = new FolderStore(j, node.id);
    const reader = { id: node.id, label: node.name || analyzer || node.id, pattern: options.pattern };
    watcher = new FolderWatcher(options, store, {
      file(f) {
        // Stored, and the node closing: the next start replays it from the journal.
        if (closed) return;
        const now = Date.now();
        lastFile = { name: f.facts.name, at: now };
        notice = undefined;
        health.received(node.id, undefined, now);
        health.files(node.id, { lastFile: f.facts.name });
        send(f.bytes, f.id, f.facts, new Date(now).toISOString(), false);
      },
      duplicate(facts, of) {
        health.received(node.id, undefined, Date.now());
        health.files(node.id, { duplicates: ++duplicates });
        node.warn(t('warn.duplicate', { name: facts.name, of: of.name, id: of.id }));
        notice = { fill: 'yellow', shape: 'dot', text: t('status.duplicate', { name: facts.name }) };
        show();
      },
      finished(name, where, reason) {
        if (where !== 'error') return;
        health.files(node.id, { errorFiles: ++errorFiles });
        const err = new LisError(t('error.toError', { name, reason: reason ?? '', folder: options.folder }), { code: 'FILE_ERROR' });
        // The message node said already why it could not read the file (its own Catch error): this only says where it went.
        if (reason?.startsWith('not understood')) node.warn(err.message);
        else raise(err, { name, reason });
      },
      folder(ok, why) {
        health.transport(node.id, undefined, ok ? 'connected' : 'disconnected', Date.now());
        // Folder written as ${ANALYZER_FOLDER} (the examples): the variable is what to change, on the tab.
        const variable = templateVariable(node, 'folder');
        const vars = { folder: options.folder, why: why ?? '', setting: variable ?? 'Folder' };
        const gone = why === undefined || why.includes('ENOENT');
        folderDown = ok ? undefined : { fill: 'red', shape: 'ring', text: t(gone ? 'status.missing' : 'status.unreadable', vars) };
        transport();
        if (!ok) raise(new LisError(t('error.missing', { ...vars, setting: variable === undefined ? 'Folder' : `${variable} (Folder)` }), { code: 'FOLDER_MISSING' }), { folder: options.folder });
      },
      problem(text, code: FolderProblem) {
        raise(new LisError(text, { code }), { folder: options.folder });
      },
      shared(clash) {
        health.transport(node.id, undefined, clash ? 'disconnected' : 'connected', Date.now());
        sharedWith = clash && { fill: 'red', shape: 'ring', text: t('status.shared', { by: clashText(clash) }) };
        transport();
        if (clash) raise(new LisError(t('error.shared', { folder: clash.folder, by: clashText(clash) }), { code: 'FOLDER_SHARED' }), { folder: clash.folder });
      },
      untaken(name, reason) {
        raise(new LisError(reason, { code: 'FILE_NOT_TAKEN' }), { name, folder: options.folder });
      },
      warn: (text) => node.warn(text),
      polled(now) {
        counts = now;
        health.files(node.id, { waiting: now.settling + now.taken, held: now.held, untaken: now.untaken });
        if (!closed) show();
      },
    }, { readers: folderReaders, reader });
    watcher.start();
  });
  opened.catch((err: unknown) => raise(new LisError(RED._(`${SHARED_NS}:common.runtime.journalNotOpened`, { reason: messageOf(err) }), { code: 'JOURNAL' }), undefined));

  node.on('close', (removed: boolean, done: () => void) => {
    closed = true;
    alarms.close();
    health.remove(node.id, removed);
    void Promise.allSettled([opened.then(() => watcher?.close()), stored.close()]).then(() => {
      status.clear();
      done();
    });
  });
}
