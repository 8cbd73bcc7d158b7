/**
 * A TCP relay between Node-RED's tcp in (client) and the analyzer simulator
 * (server) that can hold new connections back: while shut, Node-RED's
 * connection is accepted but not carried on to the analyzer, so the analyzer
 * sees no host and sends nothing; open() connects it through.
 *
 * A crash test uses it to order two things a restart does at once: the
 * journal's replay at start and the analyzer's repeat of a message once it
 * reconnects. Real analyzers reconnect when they do (often seconds later);
 * the gate lets a test choose "after the replay" without depending on how
 * fast Node-RED's tcp in happens to connect.
 */
import net from 'node:net';
import type { AddressInfo } from 'node:net';

export class LineGate {
  private readonly server = net.createServer((socket) => this.accept(socket));
  private shut = false;
  private readonly held = new Set<net.Socket>();
  private readonly sockets = new Set<net.Socket>();
  private port = 0;

  constructor(private readonly target: { host: string; port: number }) {}

  /** Listens on a free loopback port; returns it (Node-RED's tcp in connects there). */
  async start(): Promise<number> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.port = (this.server.address() as AddressInfo).port;
    return this.port;
  }

  get boundPort(): number {
    return this.port;
  }

  /** Connections made from now on wait (connections already through stay up). */
  close(): void {
    this.shut = true;
  }

  /** Lets every waiting connection, and every later one, through to the analyzer. */
  open(): void {
    this.shut = false;
    for (const s of [...this.held]) {
      this.held.delete(s);
      this.relay(s);
    }
  }

  /** Whether a connection is waiting at the gate (Node-RED is up and trying to reach the analyzer). */
  get waiting(): boolean {
    return this.held.size > 0;
  }

  async stop(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private track(s: net.Socket): void {
    this.sockets.add(s);
    s.once('close', () => {
      this.sockets.delete(s);
      this.held.delete(s);
    });
    // Errors end the pair (below); unhandled they would end the test process.
    s.on('error', () => undefined);
  }

  private accept(client: net.Socket): void {
    client.setNoDelay(true);
    client.pause();
    this.track(client);
    if (this.shut) this.held.add(client);
    else this.relay(client);
  }

  private relay(client: net.Socket): void {
    if (client.destroyed) return;
    const upstream = net.connect(this.target.port, this.target.host);
    upstream.setNoDelay(true);
    this.track(upstream);
    // One end gone (Node-RED killed, the simulator stopped): the other goes too, as on a direct connection.
    client.once('close', () => upstream.destroy());
    upstream.once('close', () => client.destroy());
    upstream.once('connect', () => {
      client.pipe(upstream);
      upstream.pipe(client);
      client.resume();
    });
  }
}
