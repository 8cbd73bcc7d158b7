/**
 * A line monitor's two-way log (quidel-sofia2-result-monitor-log.txt): one
 * line per transmission,
 *
 *   [1136.463]  Client 0060: [STX]1H|\^&|||Sofia^25045805|...[CR][ETX]D9[CR][LF]
 *
 * `Client` is the analyzer, `Server` the host; the four digits count the bytes
 * sent, which is checked here against the decoded line; control characters
 * are bracketed names. The monitor writes its own remarks as a `*` after the
 * time and `  *text` after the data (`*Bad checksum`), and pads some lines
 * with spaces; those are dropped. The text between the names is the file's
 * UTF-8, turned back into the bytes that were sent.
 */

const LINE = /^\[\d+\.\d{3}\](\*?) +(Client|Server) (\d{4}): (.*?)(?: {2}\*([^*]*))? *$/;
const NAMES: Readonly<Record<string, number>> = { ENQ: 0x05, ACK: 0x06, NAK: 0x15, STX: 0x02, ETX: 0x03, ETB: 0x17, EOT: 0x04, CR: 0x0d, LF: 0x0a };

export interface MonitorLine {
  from: 'Client' | 'Server';
  bytes: Buffer;
  /** The monitor's remark on this transmission, when it made one. */
  note?: string;
}

export function monitorLog(text: string, fail: (message: string) => never): MonitorLine[] {
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  return lines.map((line, n) => {
    const m = LINE.exec(line);
    if (m === null) return fail(`line ${n + 1} is not "[time]  Client|Server NNNN: data"`);
    const [, flagged, from, count, data, note] = m;
    const out: number[] = [];
    for (const piece of (data ?? '').split(/(\[[A-Z]{2,3}\])/)) {
      if (piece === '') continue;
      const name = /^\[([A-Z]{2,3})\]$/.exec(piece)?.[1];
      const byte = name === undefined ? undefined : NAMES[name];
      if (name !== undefined && byte === undefined) fail(`line ${n + 1}: unknown token ${piece}`);
      if (byte !== undefined) out.push(byte);
      else out.push(...Buffer.from(piece, 'utf8'));
    }
    if (out.length !== Number(count)) fail(`line ${n + 1}: ${out.length} bytes, the monitor counted ${count}`);
    if ((flagged === '*') !== (note !== undefined)) fail(`line ${n + 1}: a remark mark without a remark, or the reverse`);
    return { from: from as MonitorLine['from'], bytes: Buffer.from(out), ...(note === undefined ? {} : { note }) };
  });
}
