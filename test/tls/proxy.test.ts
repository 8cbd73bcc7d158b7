/**
 * LIS requests through the proxy a lis-config names, against a real forward
 * proxy on loopback (test/support/forward-proxy.ts): an http:// LIS is
 * forwarded (absolute-URI requests), an https:// LIS is reached through a
 * CONNECT tunnel with its certificate checked as without a proxy. A proxy that
 * is down or refuses, a proxy address the config cannot use, and the direct
 * path when no proxy is set (the environment's proxies ignored).
 */
import { after, afterEach, before, beforeEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { LisClient, DEFAULT_TUNING, type LisSettings } from '../../lib/lis/client';
import { LisError } from '../../lib/errors';
import { resolveProxy } from '../../lib/lis/proxy';
import { ForwardProxy } from '../support/forward-proxy';
import { LisStub, anOrder } from '../support/lis-stub';
import { freePort } from '../support/ports';
import { helper } from '../support/red';
import { TOKEN, loadLisFlow, run } from '../support/lis-flow';
import { TlsLis, makePki, type Pki } from '../support/tls-lis';

const FAST_RETRIES = { timeoutMs: 3000, orderAttempts: 3, orderBackoffMs: 10, transientRetries: 2, transientBackoffMs: 10 };

let pki: Pki;
let proxy: ForwardProxy;
let stub: LisStub;
let tlsLis: TlsLis;
before(async () => {
  pki = makePki();
  stub = await new LisStub().start();
  tlsLis = await new TlsLis(pki.server).start();
});
after(async () => {
  await stub.stop();
  await tlsLis.stop();
  if (pki) rmSync(pki.dir, { recursive: true, force: true });
});
beforeEach(async () => {
  proxy = await new ForwardProxy().start();
  stub.requests.length = 0;
  tlsLis.requests.length = 0;
  stub.handle('/orders', (req) => ({ body: { status: 'success', order: anOrder((req.json as { SampleNumber: string }).SampleNumber) } }));
});
afterEach(() => proxy.stop());

function client(orders: string, extra: Partial<LisSettings> = {}): LisClient {
  return new LisClient({ ...DEFAULT_TUNING, ...FAST_RETRIES, urls: { TransactionInfoAPI: orders }, env: () => undefined, bearerToken: TOKEN, ...extra });
}

async function failure(p: Promise<unknown>): Promise<LisError> {
  try {
    await p;
  } catch (err) {
    assert.ok(err instanceof LisError, String(err));
    return err;
  }
  assert.fail('the request did not fail');
}

async function withClient<T>(c: LisClient, use: (c: LisClient) => Promise<T>): Promise<T> {
  try {
    return await use(c);
  } finally {
    c.close();
  }
}

describe('an http:// LIS through the configured proxy', () => {
  it('is forwarded with an absolute URI, its headers intact, the Bearer token not made proxy credentials', async () => {
    const out = await withClient(client(stub.url('/orders'), { proxy: { url: proxy.url } }), (c) => c.getOrder('P1', {}));
    assert.equal(out.kind, 'order');
    assert.equal(proxy.forwarded.length, 1);
    const passed = proxy.forwarded[0]!;
    assert.equal(passed.method, 'POST');
    assert.equal(passed.url, stub.url('/orders'), 'the request line holds the whole address');
    assert.equal(passed.headers['proxy-authorization'], undefined);
    assert.equal(proxy.tunnels.length, 0);
    assert.equal(stub.requests.length, 1);
    const at = stub.requests[0]!.headers;
    assert.equal(at.authorization, `Bearer ${TOKEN}`);
    assert.equal(at['x-expected-sample'], 'P1');
    assert.equal(at['accept-encoding'], 'identity');
    assert.equal(at['user-agent'], '@lis-bridge/node-red-lis-bridge');
    assert.equal(at['content-type'], 'application/json');
    assert.match(String(at['x-request-id']), /^[0-9a-f-]{36}$/);
    assert.equal(at.host, new URL(stub.url('/')).host, 'Host names the LIS, not the proxy');
    assert.deepEqual(stub.requests[0]!.json, { SampleNumber: 'P1' });
  });

  it('sends the configured proxy credentials as Proxy-Authorization, and is refused (407, HTTP_STATUS) without them', async () => {
    proxy.credentials = 'ward 7:pa:ss@word';
    const out = await withClient(client(stub.url('/orders'), { proxy: { url: proxy.url, username: 'ward 7', password: 'pa:ss@word' } }), (c) => c.getOrder('P2', {}));
    assert.equal(out.kind, 'order');
    assert.equal(proxy.forwarded[0]!.headers['proxy-authorization'], `Basic ${Buffer.from('ward 7:pa:ss@word').toString('base64')}`);
    assert.equal(stub.requests[0]!.headers.authorization, `Bearer ${TOKEN}`);

    const err = await failure(withClient(client(stub.url('/orders'), { proxy: { url: proxy.url } }), (c) => c.getOrder('P3', {})));
    assert.equal(err.code, 'HTTP_STATUS');
    assert.equal(err.status, 407);
    assert.match(err.message, /"Proxy user" and "Proxy password"/);
    assert.equal(stub.requests.length, 1, 'the refused request never reached the LIS');
  });

  it('keeps its connection to the proxy alive between requests', async () => {
    await withClient(client(stub.url('/orders'), { proxy: { url: proxy.url } }), async (c) => {
      await c.getOrder('P4', {});
      await c.getOrder('P5', {});
    });
    assert.equal(proxy.forwarded.length, 2);
    assert.equal(proxy.connections, 1);
  });
});

describe('an https:// LIS through the configured proxy', () => {
  it('goes through a CONNECT tunnel: the proxy sees the host and port only, the certificate is checked with the CA file', async () => {
    const out = await withClient(client(tlsLis.url('/orders'), { proxy: { url: proxy.url }, caFile: pki.caFile }), async (c) => {
      const first = await c.getOrder('T1', {});
      await c.getOrder('T2', {});
      return first;
    });
    assert.equal(out.kind, 'order');
    assert.equal(proxy.forwarded.length, 0, 'nothing in plain through the proxy');
    assert.equal(proxy.tunnels.length, 1, 'one tunnel, kept alive for both requests');
    const tunnel = proxy.tunnels[0]!;
    assert.equal(tunnel.target, new URL(tlsLis.url('/')).host);
    assert.equal(tunnel.headers['proxy-authorization'], undefined);
    assert.equal(tunnel.headers.authorization, undefined, 'the Bearer token is not on the CONNECT');
    assert.ok(tunnel.bytesFromClient > 0);
    assert.equal(tlsLis.requests.length, 2);
    assert.equal(tlsLis.requests[0]!.headers.authorization, `Bearer ${TOKEN}`);
    assert.equal(tlsLis.requests[0]!.headers['user-agent'], '@lis-bridge/node-red-lis-bridge');
    assert.equal(tlsLis.requests[0]!.headers['proxy-authorization'], undefined);
  });

  it('sends the proxy credentials on the CONNECT only', async () => {
    proxy.credentials = 'lab:secret';
    const out = await withClient(client(tlsLis.url('/orders'), { proxy: { url: proxy.url, username: 'lab', password: 'secret' }, caFile: pki.caFile }), (c) => c.getOrder('T3', {}));
    assert.equal(out.kind, 'order');
    assert.equal(proxy.tunnels[0]!.headers['proxy-authorization'], `Basic ${Buffer.from('lab:secret').toString('base64')}`);
    assert.equal(tlsLis.requests[0]!.headers['proxy-authorization'], undefined);
  });

  it('still refuses a certificate from an unknown authority, with the certificate advice, never retried', async () => {
    const err = await failure(withClient(client(tlsLis.url('/orders'), { proxy: { url: proxy.url } }), (c) => c.getOrder('T4', {})));
    assert.equal(err.code, 'NETWORK');
    assert.match(err.message, /certificate problem/);
    assert.equal(err.attempts, 1);
    assert.equal(tlsLis.requests.length, 0);
  });

  it('a proxy that refuses the tunnel fails the request as NETWORK, known not sent, naming the proxy; 407 says what to set', async () => {
    proxy.refuseWith = 403;
    const https = (extra: Partial<LisSettings> = {}) => client(tlsLis.url('/orders'), { proxy: { url: proxy.url }, caFile: pki.caFile, ...extra });
    const err = await failure(withClient(https(), (c) => c.getOrder('T5', {})));
    assert.equal(err.code, 'NETWORK', err.message);
    assert.equal(err.status, 403);
    assert.equal(err.notSent, true);
    assert.equal(err.retry, undefined);
    assert.match(err.message, /proxy refused the tunnel to the LIS \(403/);
    proxy.refuseWith = 502;
    const busy = await failure(withClient(https(), (c) => c.getOrder('T6', {})));
    assert.equal(busy.retry, 'transient', 'a proxy that cannot reach the LIS now may later');
    assert.equal(busy.attempts, 3);
    proxy.refuseWith = undefined;
    proxy.credentials = 'lab:secret';
    const asked = await failure(withClient(https(), (c) => c.getOrder('T7', {})));
    assert.equal(asked.status, 407);
    assert.match(asked.message, /"Proxy user" and "Proxy password"/);
    assert.equal(tlsLis.requests.length, 0);
  });
});

describe('a proxy that is down', () => {
  for (const scheme of ['http', 'https'] as const) {
    it(`fails an ${scheme}:// request as a NETWORK error, transient and known not sent, retried where the endpoint allows`, async () => {
      const down = `http://127.0.0.1:${await freePort()}`;
      const orders = scheme === 'http' ? stub.url('/orders') : tlsLis.url('/orders');
      const err = await failure(withClient(client(orders, { proxy: { url: down }, caFile: pki.caFile }), (c) => c.getOrder('D1', {})));
      assert.equal(err.code, 'NETWORK', err.message);
      assert.match(err.message, /ECONNREFUSED/);
      assert.equal(err.retry, 'transient');
      assert.equal(err.notSent, true);
      assert.equal(err.attempts, 3);
    });
  }
});

describe('no proxy configured', () => {
  it('goes straight to the LIS, http:// and https://, whatever HTTP_PROXY, HTTPS_PROXY and ALL_PROXY say', async () => {
    const names = ['HTTP_PROXY', 'http_proxy', 'HTTPS_PROXY', 'https_proxy', 'ALL_PROXY', 'all_proxy', 'NO_PROXY', 'no_proxy'];
    const saved = Object.fromEntries(names.map((k) => [k, process.env[k]]));
    for (const k of names) process.env[k] = k.toLowerCase().startsWith('no') ? '' : proxy.url;
    try {
      await withClient(client(stub.url('/orders'), { proxy: { url: '' } }), (c) => c.getOrder('N1', {}));
      await withClient(client(tlsLis.url('/orders'), { caFile: pki.caFile }), (c) => c.getOrder('N2', {}));
    } finally {
      for (const [k, v] of Object.entries(saved)) {
        if (v === undefined) delete process.env[k];
        else process.env[k] = v;
      }
    }
    assert.equal(stub.requests.length, 1);
    assert.equal(tlsLis.requests.length, 1);
    assert.equal(proxy.connections, 0, 'the proxy saw nothing');
  });
});

describe('the Proxy URL setting', () => {
  const env = (name: string) => ({ SITE_PROXY: 'http://10.1.2.3:3128' })[name];
  const refused = (url: string, why: RegExp) =>
    assert.throws(() => resolveProxy({ url }, env), (err: unknown) => err instanceof LisError && err.code === 'NOT_CONFIGURED' && why.test(err.message) && /Proxy URL/.test(err.message));

  it('takes http://host:port, or ${VAR}; empty means direct', () => {
    assert.equal(resolveProxy({ url: '' }, env), undefined);
    assert.equal(resolveProxy(undefined, env), undefined);
    assert.deepEqual(resolveProxy({ url: ' http://proxy.hospital.local:3128/ ', username: 'u', password: 'p' }, env), { url: 'http://proxy.hospital.local:3128', username: 'u', password: 'p' });
    assert.deepEqual(resolveProxy({ url: '${SITE_PROXY}' }, env), { url: 'http://10.1.2.3:3128' });
  });

  it('refuses credentials in the address, another scheme, a path, an unset variable, and says what to do', () => {
    refused('http://user:pw@proxy:3128', /Proxy user/);
    refused('https://proxy:3128', /http:\/\//);
    refused('socks5://proxy:1080', /http:\/\//);
    refused('http://proxy:3128/path', /without a path/);
    refused('${NO_SUCH_PROXY}', /NO_SUCH_PROXY/);
    refused('not a url', /not a valid URL/);
  });

  it('makes a lis-config with an unusable Proxy URL invalid, naming it', () => {
    assert.throws(() => client(stub.url('/orders'), { proxy: { url: 'http://u:secret@proxy:3128' } }), (err: unknown) => err instanceof LisError && !err.message.includes('secret'));
  });
});

describe('the proxy in a deployed lis-config (Node-RED)', () => {
  beforeEach(() => helper.startServer());
  afterEach(async () => {
    await helper.unload();
    await helper.stopServer();
  });

  it('carries lis-get-order through the proxy with the credentials from the credentials store', async () => {
    proxy.credentials = 'site:pw';
    await loadLisFlow(stub, { type: 'lis-get-order', config: { proxyUrl: proxy.url }, credentials: { proxyUsername: 'site', proxyPassword: 'pw' }, outputs: 2 });
    const { port, msg } = await run('R1', 2);
    assert.equal(port, 'out1', JSON.stringify(msg.error));
    assert.deepEqual(msg.payload, anOrder('R1'));
    assert.equal(proxy.forwarded.length, 1);
    assert.equal(stub.requests.length, 1);
  });

  it('reports a Proxy URL holding a password as a config error that does not repeat the password', async () => {
    await loadLisFlow(stub, { type: 'lis-get-order', config: { proxyUrl: 'http://site:hunter2@127.0.0.1:3128' }, outputs: 2 });
    const errors = (helper.getNode('cfg') as unknown as { error: { args: unknown[][] } }).error.args.map((a) => String(a[0]));
    assert.ok(errors.some((m) => m.includes('is invalid') && m.includes('Proxy URL')), errors.join('\n'));
    assert.ok(errors.every((m) => !m.includes('hunter2')));
    const { port, msg } = await run('R2', 2);
    assert.equal(port, 'caught');
    assert.equal((msg.error as { code?: string }).code, 'NOT_CONFIGURED');
    assert.equal(stub.requests.length, 0);
  });
});
