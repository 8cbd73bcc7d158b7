/**
 * The LIS client's HTTP exchange (lib/lis/http-exchange.ts) against real
 * loopback servers that answer the way a LIS or a proxy in front of it might:
 * compressed although asked not to, in an unknown coding, as a compressed
 * bomb, or cut off in the middle. And what it sends besides the spec's
 * headers, and that no proxy from the environment is used.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import zlib from 'node:zlib';
import { LisError } from '../../lib/errors';
import { UnreadableAnswerError, postExchange } from '../../lib/lis/http-exchange';
import { postJson } from '../../lib/lis/transport';
import { DEFAULT_TUNING, LisClient } from '../../lib/lis/client';

type Answer = (req: http.IncomingMessage, res: http.ServerResponse) => void;

/** A loopback server whose answer each test sets; it keeps the last request's headers. */
class Server {
  answer: Answer = (_req, res) => res.end('{}');
  lastHeaders: http.IncomingHttpHeaders = {};
  /** The connection the last request came on. */
  lastSocket: import('node:net').Socket | undefined;
  requests = 0;
  private readonly server = http.createServer((req, res) => {
    this.requests++;
    this.lastHeaders = req.headers;
    this.lastSocket = req.socket;
    req.resume();
    req.on('end', () => this.answer(req, res));
  });

  async start(): Promise<this> {
    // Idle connections stay open a minute on this side: a connection that closes sooner was closed by the client.
    this.server.keepAliveTimeout = 60_000;
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return this;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/api/orders`;
  }

  stop(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

const lis = new Server();
const proxy = new Server();
before(async () => {
  await lis.start();
  await proxy.start();
});
after(async () => {
  await lis.stop();
  await proxy.stop();
});

const ORDER = JSON.stringify({ status: 'success', order: { SampleNumber: 'S1' } });

function client(): LisClient {
  return new LisClient({ ...DEFAULT_TUNING, orderBackoffMs: 10, transientBackoffMs: 10, urls: { TransactionInfoAPI: lis.url }, env: () => undefined });
}

function exchange(maxBytes = 1e6) {
  return postExchange({ url: lis.url, body: Buffer.from('{"SampleNumber":"S1"}'), headers: { 'Content-Type': 'application/json' }, signal: new AbortController().signal, maxBytes });
}

function encoded(coding: string, text: string | Buffer): Answer {
  const bytes = coding === 'gzip' ? zlib.gzipSync(text) : coding === 'deflate' ? zlib.deflateSync(text) : zlib.brotliCompressSync(text);
  return (_req, res) => {
    res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Encoding': coding });
    res.end(bytes);
  };
}

async function failure(p: Promise<unknown>): Promise<Error & { code?: string }> {
  try {
    await p;
  } catch (err) {
    return err as Error & { code?: string };
  }
  assert.fail('the exchange did not fail');
}

describe('HTTP exchange with the LIS', () => {
  it('asks for an uncompressed answer and names itself', async () => {
    lis.answer = (_req, res) => res.end(ORDER);
    const got = await exchange();
    assert.equal(got.text, ORDER);
    assert.equal(got.status, 200);
    assert.equal(lis.lastHeaders['accept-encoding'], 'identity');
    assert.equal(lis.lastHeaders['user-agent'], '@lis-bridge/node-red-lis-bridge');
    assert.equal(lis.lastHeaders['content-length'], String('{"SampleNumber":"S1"}'.length));
    assert.equal(lis.lastHeaders['content-type'], 'application/json');
  });

  for (const coding of ['gzip', 'deflate', 'br']) {
    it(`reads an answer compressed with ${coding} anyway`, async () => {
      lis.answer = encoded(coding, ORDER);
      assert.equal((await exchange()).text, ORDER);
    });
  }

  it('refuses a compressed bomb by its decompressed size, as INVALID_RESPONSE', async () => {
    lis.answer = encoded('gzip', Buffer.alloc(20 * 1024 * 1024, 0x20));
    const err = await failure(exchange(1e6));
    assert.ok(err instanceof UnreadableAnswerError, String(err));
    assert.match(err.message, /larger than 1000000 bytes/);

    const viaClient = await failure(postJson({ endpoint: 'TransactionInfoAPI', url: lis.url, body: {}, timeoutMs: 10_000, maxResponseBytes: 1e6 }));
    assert.ok(viaClient instanceof LisError);
    assert.equal(viaClient.code, 'INVALID_RESPONSE');
  });

  it('an answer in a coding it cannot read: its status stands, its body is unreadable and named; an order from it is INVALID_RESPONSE', async () => {
    lis.answer = (_req, res) => {
      res.writeHead(200, { 'Content-Encoding': 'compress' });
      res.end('x');
    };
    const out = await postJson({ endpoint: 'TransactionInfoAPI', url: lis.url, body: {}, timeoutMs: 10_000, maxResponseBytes: 1e6 });
    assert.equal(out.status, 200);
    assert.equal(out.json, undefined);
    assert.match(String(out.jsonError), /Content-Encoding "compress"/);
    const err = await failure(client().getOrder('S1', {}));
    assert.ok(err instanceof LisError);
    assert.equal(err.code, 'INVALID_RESPONSE');
    assert.match(err.message, /compress/);
  });

  it('a corrupt compressed answer: the status stands, the body is reported as not decompressible', async () => {
    lis.answer = (_req, res) => {
      res.writeHead(200, { 'Content-Encoding': 'gzip' });
      res.end(Buffer.from('not gzip at all'));
    };
    const out = await postJson({ endpoint: 'TransactionInfoAPI', url: lis.url, body: {}, timeoutMs: 10_000, maxResponseBytes: 1e6 });
    assert.equal(out.status, 200);
    assert.match(String(out.jsonError), /could not be decompressed/);
  });

  it('an empty answer marked as compressed is an empty answer, and raw deflate is read as deflate', async () => {
    lis.answer = (_req, res) => {
      res.writeHead(204, { 'Content-Encoding': 'gzip' });
      res.end();
    };
    const empty = await exchange();
    assert.equal(empty.status, 204);
    assert.equal(empty.text, '');
    assert.equal(empty.unreadable, undefined);
    lis.answer = (_req, res) => {
      res.writeHead(200, { 'Content-Encoding': 'deflate' });
      res.end(zlib.deflateRawSync(ORDER));
    };
    assert.equal((await exchange()).text, ORDER);
  });

  it('drops a byte-order mark before the JSON, as .NET servers send it', async () => {
    lis.answer = (_req, res) => {
      res.setHeader('Content-Type', 'application/json; charset=utf-8');
      res.end(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(ORDER)]));
    };
    const out = await postJson({ endpoint: 'TransactionInfoAPI', url: lis.url, body: {}, timeoutMs: 10_000, maxResponseBytes: 1e6 });
    assert.deepEqual(out.json, JSON.parse(ORDER));
  });

  it('never takes half a body for the whole: an answer cut off is a failure, not retried (the LIS acted on the request)', async () => {
    lis.answer = (_req, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': '500' });
      res.write(ORDER.slice(0, 20));
      setTimeout(() => res.socket?.destroy(), 20);
    };
    const cut = await failure(exchange());
    assert.equal(cut.code, 'ERR_BAD_RESPONSE');
    const err = await failure(client().getOrder('S1', {}));
    assert.ok(err instanceof LisError);
    assert.equal(err.code, 'NETWORK');
    assert.match(err.message, /aborted its answer/);
    assert.equal(err.retry, undefined);
    assert.equal(err.attempts, 1);
  });

  it('a connection that ends without any answer (here a 101 to a POST) fails within the request, never leaves the caller waiting', async () => {
    lis.answer = (_req, res) => {
      res.socket?.write('HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: x\r\n\r\n');
    };
    let timer: NodeJS.Timeout | undefined;
    const waiting = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error('still waiting 5 s after a 2 s deadline')), 5_000)));
    const err = await failure(Promise.race([postJson({ endpoint: 'ResultAPI', url: lis.url, body: {}, timeoutMs: 2_000, maxResponseBytes: 1e6 }), waiting]).finally(() => clearTimeout(timer)));
    assert.ok(err instanceof LisError);
    assert.equal(err.code, 'NETWORK', err.message);
    assert.notEqual(err.notSent, true, 'the request reached the LIS');
  });

  it('sends the Bearer token as Authorization even when the address carries user:password; without a token those go as Basic', async () => {
    lis.answer = (_req, res) => res.end(ORDER);
    const withUser = lis.url.replace('http://', 'http://ward%207:pa%40ss@');
    const out = await postJson({ endpoint: 'TransactionInfoAPI', url: withUser, body: {}, bearerToken: 'tok-1', timeoutMs: 10_000, maxResponseBytes: 1e6 });
    assert.equal(out.status, 200);
    assert.equal(lis.lastHeaders.authorization, 'Bearer tok-1');
    await postJson({ endpoint: 'TransactionInfoAPI', url: withUser, body: {}, timeoutMs: 10_000, maxResponseBytes: 1e6 });
    assert.equal(lis.lastHeaders.authorization, `Basic ${Buffer.from('ward 7:pa@ss').toString('base64')}`);
  });

  it('an address the HTTP client refuses (another scheme) is INVALID_URL, known not sent', async () => {
    const before = lis.requests;
    const err = await failure(postJson({ endpoint: 'TransactionInfoAPI', url: lis.url.replace('http://', 'ftp://'), body: {}, timeoutMs: 10_000, maxResponseBytes: 1e6 }));
    assert.equal(lis.requests, before);
    assert.ok(err instanceof LisError, String(err));
    assert.equal(err.code, 'INVALID_URL', err.message);
    assert.equal(err.notSent, true);
  });

  it('takes no proxy from the environment: patient data goes to the LIS only', async () => {
    const saved = { HTTP_PROXY: process.env.HTTP_PROXY, http_proxy: process.env.http_proxy };
    const proxied = new URL(proxy.url).origin;
    process.env.HTTP_PROXY = proxied;
    process.env.http_proxy = proxied;
    try {
      lis.answer = (_req, res) => res.end(ORDER);
      const before = { lis: lis.requests, proxy: proxy.requests };
      assert.equal((await exchange()).text, ORDER);
      assert.equal(lis.requests, before.lis + 1);
      assert.equal(proxy.requests, before.proxy);
    } finally {
      for (const [k, v] of Object.entries(saved)) {
        if (v === undefined) delete process.env[k];
        else process.env[k] = v;
      }
    }
  });

  it('a client closed while a request is in flight (a redeploy) lets it finish, then keeps no connection; it still works after', async () => {
    const client = new LisClient({ ...DEFAULT_TUNING, urls: { LabTestsAPI: lis.url }, env: () => undefined });
    lis.answer = (_req, res) => setTimeout(() => res.end(JSON.stringify({ status: 'success', tests: [] })), 150);
    const pending = client.getTests({});
    setImmediate(() => client.close());
    const answer = await pending;
    assert.deepEqual(answer.tests, []);
    const used = lis.lastSocket!;
    // Well before the 5 s an idle connection is kept otherwise.
    const closed = used.destroyed || (await new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => resolve(false), 2_000);
      used.once('close', () => {
        clearTimeout(timer);
        resolve(true);
      });
    }));
    assert.ok(closed, 'the connection is not kept once its request is done');
    assert.deepEqual((await client.getTests({})).tests, []);
  });

  it("closes an idle connection before the LIS's announced keep-alive time runs out, so no request goes out on a connection the LIS is dropping", async () => {
    const client = new LisClient({ ...DEFAULT_TUNING, urls: { LabTestsAPI: lis.url }, env: () => undefined });
    // The LIS keeps idle connections 2 s and says so; it would not close this one itself for a minute.
    lis.answer = (_req, res) => {
      res.setHeader('Keep-Alive', 'timeout=2');
      res.end(JSON.stringify({ status: 'success', tests: [] }));
    };
    assert.deepEqual((await client.getTests({})).tests, []);
    const used = lis.lastSocket!;
    const closed = await new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => resolve(false), 4_000);
      used.once('close', () => {
        clearTimeout(timer);
        resolve(true);
      });
    });
    assert.ok(closed, 'the client closed the idle connection within 4 s (1 s before the announced 2 s)');
    client.close();
  });
});
