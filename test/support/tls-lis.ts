/**
 * HTTPS to the LIS in tests: a throwaway certificate authority and server
 * certificates made by the openssl command line (the caller removes `dir`
 * when done), and a LIS over HTTPS on loopback.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import https from 'node:https';
import type { IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { anOrder } from './lis-stub';

export interface Pki {
  dir: string;
  caFile: string;
  /** Certificate for 127.0.0.1 and localhost, signed by the CA. */
  server: { key: string; cert: string };
  /** Signed by the same CA, but for lis.example only. */
  otherHost: { key: string; cert: string };
}

function openssl(dir: string, args: string[]): void {
  try {
    execFileSync('openssl', args, { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] });
  } catch (err) {
    const e = err as { code?: string; stderr?: Buffer; message: string };
    if (e.code === 'ENOENT') {
      throw new Error('the openssl command line is needed by the TLS tests but was not found on PATH: install it (Debian: apt-get install openssl)');
    }
    throw new Error(`openssl ${args.join(' ')} failed: ${e.stderr?.toString() || e.message}`);
  }
}

export function makePki(): Pki {
  const dir = mkdtempSync(join(tmpdir(), 'lis-tls-'));
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
  openssl(dir, ['req', '-x509', ...ec, '-keyout', 'ca.key', '-out', 'ca.pem', '-days', '2', '-subj', '/CN=lis-bridge test CA',
    '-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign,cRLSign']);
  const leaf = (name: string, san: string) => {
    writeFileSync(join(dir, `${name}.ext`), `subjectAltName=${san}\nbasicConstraints=CA:FALSE\nkeyUsage=digitalSignature\nextendedKeyUsage=serverAuth\n`);
    openssl(dir, ['req', ...ec, '-keyout', `${name}.key`, '-out', `${name}.csr`, '-subj', `/CN=${name}`]);
    openssl(dir, ['x509', '-req', '-in', `${name}.csr`, '-CA', 'ca.pem', '-CAkey', 'ca.key', '-CAcreateserial', '-out', `${name}.pem`,
      '-days', '2', '-extfile', `${name}.ext`]);
    return { key: readFileSync(join(dir, `${name}.key`), 'utf8'), cert: readFileSync(join(dir, `${name}.pem`), 'utf8') };
  };
  return {
    dir,
    caFile: join(dir, 'ca.pem'),
    server: leaf('server', 'IP:127.0.0.1,DNS:localhost'),
    otherHost: leaf('other', 'DNS:lis.example'),
  };
}

export interface Seen {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

/** A LIS over HTTPS answering every order request with the order asked for. */
export class TlsLis {
  readonly requests: Seen[] = [];
  /** TLS handshakes the server saw fail (the client refusing the certificate). */
  handshakeFailures = 0;
  private readonly server: https.Server;
  private port = 0;

  constructor(identity: { key: string; cert: string }) {
    this.server = https.createServer(identity, (req, res) => {
      let body = '';
      req.setEncoding('utf8');
      req.on('data', (c: string) => (body += c));
      req.on('end', () => {
        this.requests.push({ path: req.url ?? '', headers: req.headers, body });
        const sample = (JSON.parse(body || '{}') as { SampleNumber?: string }).SampleNumber ?? '';
        res.setHeader('Content-Type', 'application/json');
        res.end(JSON.stringify({ status: 'success', order: anOrder(sample) }));
      });
    });
    this.server.on('tlsClientError', () => this.handshakeFailures++);
  }

  async start(): Promise<this> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.port = (this.server.address() as AddressInfo).port;
    return this;
  }

  url(path: string, host = '127.0.0.1'): string {
    return `https://${host}:${this.port}${path}`;
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
