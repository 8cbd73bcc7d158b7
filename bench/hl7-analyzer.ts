/**
 * Section 4's HL7 analyzer: the least a Mindray CL in HL7 mode does for a host
 * query, as a TCP server the HL7 example's `tcp in` connects to. It writes the
 * manual's QRY^Q02 (test/fixtures/hl7/mindray-cl2000i-qry-q02.txt, with the
 * sample number in QRD-8), notes when the first byte of the host's answer
 * arrives, and acknowledges the DSR^Q03 that carries the order with ACK^Q03
 * (MSA AA), as the analyzer does; the QCK^Q02 before it gets no ACK (Mindray
 * CL Host Interface Manual p.1-8, 1-31).
 *
 * Not the simulator: nothing here but MLLP framing and three segments, so the
 * bench times the host side and not a second HL7 stack.
 */
import net from 'node:net';
import { MllpDeframer, buildHl7, frameMllp, parseHl7Bytes } from '../lib/protocols/hl7';
import { VT } from '../lib/protocols/hl7/mllp';

export interface QueryAnswer {
  /** performance.now() when the first byte of the host's answer (its VT) was read. */
  firstAt: number;
  /** QAK-2 of the QCK^Q02: OK (found) or NF. */
  status: string;
}

export class Hl7QueryAnalyzer {
  private server: net.Server | undefined;
  private socket: net.Socket | undefined;
  private connected: (() => void) | undefined;
  private readonly connection = new Promise<void>((resolve) => (this.connected = resolve));
  private waiting: { firstAt?: number; status?: string; done: (a: QueryAnswer) => void } | undefined;
  private ids = 0;

  async listen(port: number): Promise<void> {
    this.server = net.createServer((socket) => {
      socket.setNoDelay(true);
      this.socket = socket;
      const deframer = new MllpDeframer();
      socket.on('data', (chunk: Buffer) => {
        const at = performance.now();
        if (this.waiting && this.waiting.firstAt === undefined && chunk.includes(VT)) this.waiting.firstAt = at;
        for (const event of deframer.push(chunk)) if (event.kind === 'frame') this.take(event.message);
      });
      socket.on('error', () => undefined);
      this.connected?.();
    });
    await new Promise<void>((resolve, reject) => {
      this.server!.once('error', reject);
      this.server!.listen(port, '127.0.0.1', () => resolve());
    });
  }

  waitConnected(): Promise<void> {
    return this.connection;
  }

  /** Writes the query; resolves once the order (DSR^Q03) was acknowledged, or with the QCK^Q02 of "not found". */
  query(sample: string): Promise<QueryAnswer> {
    if (!this.socket) throw new Error('Node-RED has not connected to the bench analyzer');
    const id = String(++this.ids);
    const now = '20260101120000';
    const text = buildHl7([
      { name: 'MSH', fields: { 7: now, 9: ['QRY', 'Q02'], 10: id, 11: 'P', 12: '2.3.1', 18: 'ASCII' } },
      { name: 'QRD', fields: [now, 'R', 'D', id, '', '', 'RD', sample, 'OTH', '', '', 'T'] },
      { name: 'QRF', fields: ['', '', '', '', '', 'RCT', 'COR', 'ALL', ''] },
    ]);
    const answered = new Promise<QueryAnswer>((done) => (this.waiting = { done }));
    this.socket.write(frameMllp(Buffer.from(text, 'latin1')));
    return answered;
  }

  private take(bytes: Buffer): void {
    const message = parseHl7Bytes(bytes);
    const type = `${message.msh.field(9, 1, 1)}^${message.msh.field(9, 1, 2)}`;
    const waiting = this.waiting;
    if (type === 'QCK^Q02') {
      const status = message.segment('QAK')?.field(2) ?? '';
      if (waiting) waiting.status = status;
      if (status !== 'OK' && waiting) this.finish(waiting);
    } else if (type === 'DSR^Q03') {
      const ack = buildHl7([
        { name: 'MSH', fields: { 7: '20260101120000', 9: ['ACK', 'Q03'], 10: `A${++this.ids}`, 11: 'P', 12: '2.3.1', 18: 'ASCII' } },
        { name: 'MSA', fields: ['AA', message.msh.field(10)] },
      ]);
      this.socket?.write(frameMllp(Buffer.from(ack, 'latin1')));
      if (waiting) this.finish(waiting);
    }
  }

  private finish(waiting: NonNullable<Hl7QueryAnalyzer['waiting']>): void {
    this.waiting = undefined;
    waiting.done({ firstAt: waiting.firstAt ?? performance.now(), status: waiting.status ?? '' });
  }

  async stop(): Promise<void> {
    this.socket?.destroy();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}
