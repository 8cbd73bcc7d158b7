/**
 * HTTPS to the LIS against a real TLS server on loopback, with a throwaway
 * certificate authority made by the openssl command line for each run.
 */
import { after, afterEach, before, beforeEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { LisClient, DEFAULT_TUNING, type LisSettings } from '../../lib/lis/client';
import { LisError } from '../../lib/errors';
import { anOrder, type LisStub } from '../support/lis-stub';
import { helper } from '../support/red';
import { TOKEN, loadLisFlow, run } from '../support/lis-flow';
import { TlsLis, makePki, type Pki } from '../support/tls-lis';

const FAST_RETRIES = { timeoutMs: 3000, orderAttempts: 3, orderBackoffMs: 10, transientRetries: 2, transientBackoffMs: 10 };
/** Words that would send an operator towards switching verification off. */
const DISABLING_ADVICE = /rejectUnauthorized|allowUntrusted|untrusted certificates|disable|NODE_TLS_REJECT_UNAUTHORIZED/i;

let pki: Pki;
before(() => {
  pki = makePki();
});
after(() => {
  if (pki) rmSync(pki.dir, { recursive: true, force: true });
});

function client(lis: TlsLis, extra: Partial<LisSettings> = {}, host = '127.0.0.1'): LisClient {
  return new LisClient({
    ...DEFAULT_TUNING,
    ...FAST_RETRIES,
    urls: { TransactionInfoAPI: lis.url('/orders', host) },
    env: () => undefined,
    bearerToken: TOKEN,
    ...extra,
  });
}

async function certificateFailure(c: LisClient, lis: TlsLis, code: RegExp): Promise<LisError> {
  let caught: unknown;
  try {
    await c.getOrder('S1', {});
  } catch (err) {
    caught = err;
  } finally {
    c.close();
  }
  assert.ok(caught instanceof LisError, `expected a LisError, got ${String(caught)}`);
  assert.equal(caught.code, 'NETWORK');
  assert.equal(caught.retry, undefined, 'a certificate failure is not transient');
  assert.equal(caught.attempts ?? 1, 1);
  assert.match(caught.message, /certificate problem/);
  assert.match(caught.message, code);
  assert.doesNotMatch(caught.message, DISABLING_ADVICE);
  assert.equal(lis.requests.length, 0, 'no HTTP request got through');
  // Give the server a moment to see any further handshake a retry would have made.
  await new Promise((r) => setTimeout(r, 100));
  assert.ok(lis.handshakeFailures <= 1, `the server saw ${lis.handshakeFailures} handshakes`);
  return caught;
}

describe('HTTPS to the LIS (LisClient)', () => {
  let lis: TlsLis;
  beforeEach(async () => {
    lis = await new TlsLis(pki.server).start();
  });
  afterEach(async () => {
    await lis.stop();
  });

  it('refuses a certificate from an unknown authority, says so and what to do, and does not retry', async () => {
    const err = await certificateFailure(client(lis), lis, /UNABLE_TO_VERIFY_LEAF_SIGNATURE|SELF_SIGNED_CERT_IN_CHAIN|UNABLE_TO_GET_ISSUER_CERT/);
    assert.match(err.message, /CA file/);
    assert.ok(!err.message.includes(TOKEN));
  });

  it('trusts the configured CA file, for 127.0.0.1 and localhost, and the headers arrive', async () => {
    for (const host of ['127.0.0.1', 'localhost']) {
      const c = client(lis, { caFile: pki.caFile }, host);
      try {
        const out = await c.getOrder('S7', {});
        assert.equal(out.kind, 'order');
        assert.equal(out.info.attempts, 1);
      } finally {
        c.close();
      }
    }
    assert.equal(lis.requests.length, 2);
    const [req] = lis.requests;
    assert.equal(req!.headers.authorization, `Bearer ${TOKEN}`);
    assert.equal(req!.headers['x-expected-sample'], 'S7');
    assert.match(String(req!.headers['x-request-id']), /^[0-9a-f-]{36}$/);
    assert.deepEqual(JSON.parse(req!.body), { SampleNumber: 'S7' });
  });

  it('takes an address typed with capitals in its scheme (HTTPS://) as HTTPS', async () => {
    const c = new LisClient({ ...DEFAULT_TUNING, ...FAST_RETRIES, urls: { TransactionInfoAPI: lis.url('/orders').replace('https://', 'HTTPS://') }, env: () => undefined, bearerToken: TOKEN, caFile: pki.caFile });
    try {
      const out = await c.getOrder('S8', {});
      assert.equal(out.kind, 'order');
    } finally {
      c.close();
    }
  });

  it('refuses a certificate for another host name even from the configured authority', async () => {
    const other = await new TlsLis(pki.otherHost).start();
    try {
      const err = await certificateFailure(client(other, { caFile: pki.caFile }), other, /ERR_TLS_CERT_ALTNAME_INVALID/);
      assert.match(err.message, /host/);
    } finally {
      await other.stop();
    }
  });

  it('makes a missing or non-PEM CA file a configuration error naming the file', () => {
    const missing = join(pki.dir, 'no-such-ca.pem');
    assert.throws(() => client(lis, { caFile: missing }), (err: unknown) => {
      assert.ok(err instanceof LisError);
      assert.equal(err.code, 'NOT_CONFIGURED');
      assert.ok(err.message.includes(missing), err.message);
      return true;
    });
    const notPem = join(pki.dir, 'server.ext');
    assert.throws(() => client(lis, { caFile: notPem }), (err: unknown) => err instanceof LisError && err.message.includes(notPem));
  });

  it('skips verification only with allowUntrustedCertificates', async () => {
    const c = client(lis, { allowUntrustedCertificates: true });
    try {
      assert.equal(c.verifiesCertificates, false);
      const out = await c.getOrder('S2', {});
      assert.equal(out.kind, 'order');
    } finally {
      c.close();
    }
    assert.equal(lis.requests.length, 1);
  });
});

describe('HTTPS to the LIS (lis-get-order in Node-RED)', () => {
  let lis: TlsLis;
  beforeEach(async () => {
    lis = await new TlsLis(pki.server).start();
    await helper.startServer();
  });
  afterEach(async () => {
    await helper.unload();
    await helper.stopServer();
    await lis.stop();
  });

  const load = (config: Record<string, unknown>) =>
    loadLisFlow({ url: (p: string) => lis.url(p) } as unknown as LisStub, {
      type: 'lis-get-order',
      config: { timeout: 3000, transientBackoffMs: 10, orderBackoffMs: 10, ...config },
      outputs: 2,
    });

  const warnings = (id: string) => (helper.getNode(id) as unknown as { warn: { args: unknown[][] } }).warn.args.map((a) => String(a[0]));
  const errors = (id: string) => (helper.getNode(id) as unknown as { error: { args: unknown[][] } }).error.args.map((a) => String(a[0]));

  it('fails with the certificate message, once, without a CA file', async () => {
    await load({});
    const { port, msg } = await run('S1', 2);
    assert.equal(port, 'caught');
    const error = msg.error as { code?: string; message?: string };
    assert.equal(error.code, 'NETWORK');
    assert.match(String(error.message), /certificate problem/);
    assert.match(String(error.message), /CA file/);
    assert.doesNotMatch(String(error.message), DISABLING_ADVICE);
    await new Promise((r) => setTimeout(r, 100));
    assert.equal(lis.requests.length, 0);
    assert.ok(lis.handshakeFailures <= 1, `the server saw ${lis.handshakeFailures} handshakes`);
    assert.deepEqual(warnings('cfg'), []);
  });

  it('gets the order with the CA file, headers included', async () => {
    await load({ caFile: pki.caFile });
    const { port, msg } = await run('S9', 2);
    assert.equal(port, 'out1');
    assert.deepEqual(msg.payload, anOrder('S9'));
    assert.equal(lis.requests.length, 1);
    assert.equal(lis.requests[0]!.headers.authorization, `Bearer ${TOKEN}`);
    assert.equal(lis.requests[0]!.headers['x-expected-sample'], 'S9');
  });

  it('reports a missing CA file as a config error naming it', async () => {
    const missing = join(pki.dir, 'gone', 'ca.pem');
    await load({ caFile: missing });
    assert.ok(errors('cfg').some((m) => m.includes('is invalid') && m.includes(missing)), errors('cfg').join('\n'));
    const { port, msg } = await run('S1', 2);
    assert.equal(port, 'caught');
    const error = msg.error as { code?: string; message?: string };
    assert.equal(error.code, 'NOT_CONFIGURED');
    assert.ok(String(error.message).includes(missing), String(error.message));
    assert.equal(lis.requests.length, 0);
  });

  it('accepts any certificate with allowUntrustedCertificates, and warns at start naming the users', async () => {
    await load({ allowUntrustedCertificates: true });
    const warned = warnings('cfg');
    assert.equal(warned.length, 1, warned.join('\n'));
    assert.match(warned[0]!, /certificate verification is OFF/);
    assert.match(warned[0]!, /lis-get-order "under test"/);
    const { port } = await run('S3', 2);
    assert.equal(port, 'out1');
    assert.equal(lis.requests.length, 1);
  });
});
