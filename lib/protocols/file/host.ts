/**
 * The computer's side of a file-exporting instrument, in the shape of the
 * ASTM and HL7 hosts (lib/conversation/message-host.ts), so the message node,
 * the mapping and the LIS nodes take its results unchanged: a file read into
 * one result batch per sample, and QC, unassigned and other kept aside.
 * Nothing is ever sent back to a file instrument: its conversation downloads
 * no orders and answers no queries.
 */
import { pasteBytes } from './encoding';
import type { SettingFault } from '../../settings/unresolved';
import { HostConversation } from '../../conversation/host-conversation';
import { timeZoneProblem, type HostOutput, type MessageHost, type ReadMessage } from '../../conversation/message-host';
import { siteHostProfile } from '../../dialect/overrides';
import { siteFileProfile } from './overrides';
import type { LabEvent } from '../../lab/types';
import { fileLabEvents, fileLabEventsInSlices } from './read';
import type { FileDialectProfile } from './types';

export class FileHost<C> implements MessageHost<C> {
  readonly conversation: HostConversation<C>;
  readonly id: string;
  readonly label: string;

  /** `nameOf` gives a file's name from the message it came in (a run date may be read from it); `workbookHeapMB`, the most heap a workbook's reader gets. */
  constructor(
    readonly dialect: FileDialectProfile,
    private readonly timeZone: string,
    private readonly nameOf: (context: C) => string | undefined,
    private readonly workbookHeapMB?: number,
  ) {
    this.id = dialect.id;
    this.label = dialect.label;
    const nothing = () => {
      throw new Error(`a ${dialect.label} takes no orders: it exports result files only`);
    };
    this.conversation = new HostConversation<C>(
      { id: dialect.id, label: dialect.label, queryDeadlineMs: 1000, acceptsUnsolicitedOrders: false, canDownload: false, anonymousNoInformation: false },
      { order: nothing, noInformation: nothing },
    );
  }

  read(bytes: Buffer, _link: string, _now: number, context: C): ReadMessage<C> {
    return outputsOf<C>(fileLabEvents(bytes, this.dialect, { timeZone: this.timeZone, fileName: this.nameOf(context) }));
  }

  async readInSlices(bytes: Buffer, _link: string, _now: number, context: C, _replay: boolean, signal: AbortSignal): Promise<ReadMessage<C>> {
    return outputsOf<C>(await fileLabEventsInSlices(bytes, this.dialect, { timeZone: this.timeZone, fileName: this.nameOf(context), signal, workbookHeapMB: this.workbookHeapMB }));
  }

  /** A file analyzer is never written to; text as bytes, where a caller asks, as a paste would be read. */
  bytes(text: string): Buffer {
    return pasteBytes(text, this.dialect);
  }
}

/** A file's events as the message node's outputs: a result batch per sample, and QC, unassigned and other aside. */
function outputsOf<C>(events: LabEvent[]): ReadMessage<C> {
  const outputs: HostOutput<C>[] = [];
  const samples: string[] = [];
  let parts = 0;
  for (const event of events) {
    switch (event.type) {
      case 'results':
        samples.push(event.results[0]!.SampleNumber);
        outputs.push({ type: 'results', results: event.results, problems: event.problems, orderedTests: [], part: parts++ });
        break;
      case 'qc':
        outputs.push({ type: 'aside', topic: 'qc', payload: event.results, count: event.results.length, reasons: event.problems });
        break;
      case 'unassigned':
        outputs.push({ type: 'aside', topic: 'unassigned', payload: event.items, count: event.items.length, reasons: event.items.map((i) => i.reason) });
        break;
      case 'other':
        outputs.push({ type: 'aside', topic: 'other', payload: { kind: event.kind, reason: event.reason }, count: 0, reasons: [event.reason] });
        break;
      case 'query':
        break; // a file holds no queries
    }
  }
  return { outputs, parts, samples };
}

/** What file-message runs with: the site's dialect, or every reason it cannot, each naming the setting at fault. */
export function fileHostSettings(settings: { dialect: string; overrides?: unknown; timeZone: string }): { profile: FileDialectProfile; problems: [] } | { profile?: undefined; problems: SettingFault[] } {
  return siteHostProfile(siteFileProfile({ base: settings.dialect, overrides: settings.overrides }), timeZoneProblem(settings.timeZone));
}
