/**
 * A forward proxy on loopback, as a site's proxy in front of the LIS: it
 * forwards requests written with an absolute URI (http:// targets) and opens
 * CONNECT tunnels (https:// targets), and records what passed through it.
 * It can ask for credentials (407) or refuse everything with a status.
 */
import http, { type IncomingHttpHeaders } from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';

export interface Forwarded {
  method: string;
  /** The request line's target: an absolute URI for a forwarded request. */
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}

export interface Tunnel {
  /** host:port the client asked to be connected to. */
  target: string;
  headers: IncomingHttpHeaders;
  /** Bytes that went through the tunnel from the client (TLS records only, for an https:// LIS). */
  bytesFromClient: number;
}

export class ForwardProxy {
  readonly forwarded: Forwarded[] = [];
  readonly tunnels: Tunnel[] = [];
  /** When set, every request and CONNECT is answered with this status and nothing is forwarded. */
  refuseWith: number | undefined;
  /** When set ("user:password"), requests without this Basic Proxy-Authorization are answered 407. */
  credentials: string | undefined;
  /** Client connections accepted (a kept-alive client reuses them). */
  connections = 0;
  private readonly sockets = new Set<net.Socket>();
  private readonly server = http.createServer((req, res) => this.forward(req, res));
  private port = 0;

  constructor() {
    this.server.on('connect', (req: http.IncomingMessage, client: net.Socket, head: Buffer) => this.tunnel(req, client, head));
    this.server.on('connection', (socket: net.Socket) => {
      this.connections++;
      this.track(socket);
    });
  }

  async start(port = 0): Promise<this> {
    await new Promise<void>((resolve) => this.server.listen(port, '127.0.0.1', resolve));
    this.port = (this.server.address() as AddressInfo).port;
    return this;
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  async stop(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  /** The status to answer instead of passing on, if any. */
  private refusal(headers: IncomingHttpHeaders): number | undefined {
    if (this.refuseWith !== undefined) return this.refuseWith;
    if (this.credentials === undefined) return undefined;
    const expected = `Basic ${Buffer.from(this.credentials).toString('base64')}`;
    return headers['proxy-authorization'] === expected ? undefined : 407;
  }

  private forward(req: http.IncomingMessage, res: http.ServerResponse): void {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (c: string) => (body += c));
    req.on('end', () => {
      this.forwarded.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
      const refused = this.refusal(req.headers);
      if (refused !== undefined) {
        res.writeHead(refused, refused === 407 ? { 'Proxy-Authenticate': 'Basic realm="proxy"' } : {});
        res.end(`refused by the proxy (${refused})`);
        return;
      }
      let target: URL;
      try {
        target = new URL(req.url ?? '');
      } catch {
        res.writeHead(400);
        res.end('a proxy request needs an absolute URI');
        return;
      }
      const headers = { ...req.headers };
      delete headers['proxy-authorization'];
      delete headers['proxy-connection'];
      const upstream = http.request(target, { method: req.method, headers }, (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      });
      upstream.on('error', () => {
        if (!res.headersSent) res.writeHead(502);
        res.end();
      });
      upstream.end(body);
    });
  }

  private tunnel(req: http.IncomingMessage, client: net.Socket, head: Buffer): void {
    const record: Tunnel = { target: req.url ?? '', headers: req.headers, bytesFromClient: 0 };
    this.tunnels.push(record);
    this.track(client);
    const refused = this.refusal(req.headers);
    if (refused !== undefined) {
      const auth = refused === 407 ? 'Proxy-Authenticate: Basic realm="proxy"\r\n' : '';
      client.end(`HTTP/1.1 ${refused} Refused\r\n${auth}Content-Length: 0\r\nConnection: close\r\n\r\n`);
      return;
    }
    const [host, port] = splitHostPort(record.target);
    const upstream = net.connect(port, host, () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length > 0) upstream.write(head);
      client.on('data', (chunk: Buffer) => (record.bytesFromClient += chunk.length));
      client.pipe(upstream);
      upstream.pipe(client);
    });
    this.track(upstream);
    upstream.on('error', () => client.destroy());
    client.on('error', () => upstream.destroy());
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  }

  private track(socket: net.Socket): void {
    this.sockets.add(socket);
    socket.once('close', () => this.sockets.delete(socket));
  }
}

function splitHostPort(target: string): [string, number] {
  const at = target.lastIndexOf(':');
  return [target.slice(0, at).replace(/^\[|\]$/g, ''), Number(target.slice(at + 1))];
}
