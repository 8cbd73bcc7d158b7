/**
 * file-message: an instrument's result file (from folder-link) read into lab
 * events in a file dialect (lib/protocols/file), through the same
 * analyzer-message node as astm-message and hl7-message
 * (nodes/shared/message-node.ts), so test-mapper and the LIS nodes take its
 * results unchanged.
 *
 * Input: msg.payload (Buffer, or the file's text) and msg.file { name, path, size, mtime, hash }.
 * Outputs: 1 patient results (one msg per sample), 2 QC, unassigned and other, and
 * what a file from folder-link brought again (lib/protocols/file/corrections.ts):
 * values delivered before from its earlier version (topic "repeated", not sent
 * again) and changed ones (topic "correction", held for a person).
 * A file the dialect cannot read: node.error(err, msg) naming the line, the
 * column and the setting to change; red status.
 */
import type { Node, NodeAPI, NodeDef } from 'node-red';
import { FileHost, fileHostSettings, isCodePage, siftFileResults } from '../lib/protocols/file';
import { LisError, messageOf } from '../lib/errors';
import { contextOf } from '../lib/journal';
import { installDialectRoutes } from './shared/dialect-routes';
import { messageNodeProfile, qcNodeOf, runMessageNode } from './shared/message-node';
import { StatusReporter } from './shared/status';
import type { Msg } from './shared/types';

interface Def extends NodeDef {
  dialect?: string;
  /** JSON of what this site changes of the file dialect (lib/protocols/file/overrides.ts); stored with the flow. */
  dialectOverrides?: string;
  timeZone?: string;
  /** The analyzer's lis-qc node, when its QC is kept in the bridge. */
  qc?: string;
}

/** The topic a file message may carry; one with a Buffer payload and msg.file is taken whatever its topic. */
const FILE_MESSAGE_TOPIC = 'file:message';

const fileOf = (msg: Msg) => msg.file as { name?: unknown } | undefined;

/** settings.js lisBridge.workbookHeapMB: the most heap a workbook's reader (a worker thread) may take; absent or not a positive number: the package's cap. */
function workbookHeapMB(RED: NodeAPI): number | undefined {
  const value = (RED.settings as unknown as { lisBridge?: { workbookHeapMB?: unknown } }).lisBridge?.workbookHeapMB;
  return typeof value === 'number' && value > 0 ? value : undefined;
}

export = function register(RED: NodeAPI): void {
  installDialectRoutes(RED);

  function FileMessageNode(this: Node, def: Def) {
    RED.nodes.createNode(this, def);
    const node = this;
    const status = new StatusReporter(RED, node);
    const site = messageNodeProfile(RED, node, status, def, 'generic-csv', fileHostSettings);
    if (site === undefined) return;
    const { profile, timeZone } = site;
    const host = new FileHost<Msg>(
      profile,
      timeZone,
      (msg) => {
        const name = fileOf(msg)?.name;
        return typeof name === 'string' ? name : undefined;
      },
      workbookHeapMB(RED),
    );
    // Node-RED's own file-in node gives text unless told otherwise: a file's text is taken as its bytes in the dialect's
    // encoding. A legacy code page cannot be written back (and file-in decoded the bytes as UTF-8 already): refused.
    const encoding = profile.encoding;
    node.on('input', (msg) => {
      if (typeof msg.payload !== 'string' || typeof (msg as Msg).file !== 'object' || (msg as Msg).file === null) return;
      if (isCodePage(encoding)) {
        node.error(`the file arrived as text, and the dialect reads ${encoding} bytes: set the file-in node to "a single Buffer object" (folder-link passes bytes)`, msg);
        msg.payload = undefined;
      } else msg.payload = Buffer.from(msg.payload, encoding);
    });
    runMessageNode(RED, node, status, host, {
      message: FILE_MESSAGE_TOPIC,
      send: 'file:send',
      about: 'file',
      isMessage: (msg) => Buffer.isBuffer(msg.payload) && typeof msg.file === 'object' && msg.file !== null,
      outputs: [1, 3],
      countsFiles: true,
      qc: qcNodeOf(RED, def.qc),
      // A file from a folder-link is set against what that link handed on before: corrections, not duplicates.
      sift: async (journal, read, msg, journalId) => {
        const file = (msg.file ?? {}) as { link?: unknown; name?: unknown };
        if (typeof file.link !== 'string' || typeof file.name !== 'string' || !Buffer.isBuffer(msg.payload)) return read;
        try {
          return await siftFileResults(journal, read, { link: file.link, message: journalId, name: file.name, bytes: msg.payload, node: node.id, context: contextOf(msg as Record<string, unknown>) });
        } catch (err) {
          // Not noted: nothing of the file went on, and it is replayed from the journal at the next start.
          throw new LisError(`${file.name}: its results could not be set against those delivered before (${messageOf(err)}): nothing of it was sent`, { code: 'JOURNAL' });
        }
      },
    });
  }

  RED.nodes.registerType('file-message', FileMessageNode as never);
};
