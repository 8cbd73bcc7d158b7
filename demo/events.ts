/**
 * Server-Sent Events for the demo page (GET /events): one named event per
 * recorded request or push, its data the record as JSON. SSE rather than
 * WebSocket because it is plain HTTP that node:http and every browser speak
 * without a library, and the page only ever listens.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';

export class EventHub {
  private readonly clients = new Set<ServerResponse>();
  private heartbeat: NodeJS.Timeout | undefined;

  /** `heartbeatMs`: how often a comment line is sent so proxies and browsers keep idle streams open. */
  constructor(private readonly heartbeatMs = 15000) {}

  get clientCount(): number {
    return this.clients.size;
  }

  attach(req: IncomingMessage, res: ServerResponse): void {
    res.writeHead(200, {
      'Content-Type': 'text/event-stream; charset=utf-8',
      'Cache-Control': 'no-store',
      Connection: 'keep-alive',
    });
    // Tell the browser to reconnect quickly after a restart of the demo LIS.
    res.write('retry: 2000\n: connected\n\n');
    this.clients.add(res);
    const detach = () => {
      this.clients.delete(res);
      if (this.clients.size === 0) this.stopHeartbeat();
    };
    req.on('close', detach);
    res.on('close', detach);
    if (!this.heartbeat) {
      this.heartbeat = setInterval(() => this.send(': keep-alive\n\n'), this.heartbeatMs);
      // Never the reason the process stays alive.
      this.heartbeat.unref();
    }
  }

  /** `event` must be a plain word; JSON.stringify never emits a line break, so the data fits one `data:` line. */
  publish(event: string, data: unknown): void {
    this.send(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
  }

  /** Ends every stream (on stop), so the server can close. */
  close(): void {
    this.stopHeartbeat();
    for (const res of this.clients) res.end();
    this.clients.clear();
  }

  private send(frame: string): void {
    for (const res of this.clients) {
      if (!res.writableEnded) res.write(frame);
    }
  }

  private stopHeartbeat(): void {
    if (this.heartbeat) clearInterval(this.heartbeat);
    this.heartbeat = undefined;
  }
}
