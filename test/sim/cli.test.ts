/**
 * lis-analyzer-sim as integrators run it: a separate process on one end of a
 * socat pty pair (or a TCP connection), a small host from the package's own
 * pieces on the other. It must log every frame readably, exit 0 only when
 * every sample got its order and its results were acknowledged, and stop
 * cleanly on SIGTERM / SIGINT.
 */
import { describe, it, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { NAK } from '../../lib/protocols/astm/control';
import { getProfile } from '../../lib/protocols/astm/dialects';
import { findHl7Profile } from '../../lib/protocols/hl7/dialects';
import { SerialTransport, TcpClientTransport, TcpServerTransport } from '../../lib/sim';
import { parseCliOptions, UsageError } from '../../lib/sim/cli-options';
import { Hl7TestHost } from './support/hl7-host';
import { TestHost } from './support/host';
import { labOrder } from './support/test-host';
import { waitUntil } from '../support/wait';
import { cable } from './support/pty';

const CLI = join(__dirname, '..', '..', 'lib', 'sim', 'cli.js');
const BIN = join(__dirname, '..', '..', '..', 'bin', 'lis-analyzer-sim');

function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env = { ...process.env };
  for (const name of ['ANALYZER_PORT', 'ANALYZER_BAUD', 'ANALYZER_HOST', 'ANALYZER_TCP_PORT']) delete env[name];
  return { ...env, ...extra };
}

interface Finished {
  code: number | null;
  signal: NodeJS.Signals | null;
  out: string;
}

interface Running {
  output: () => string;
  kill: (signal: NodeJS.Signals) => void;
  finished: Promise<Finished>;
}

function start(t: TestContext, args: string[], env = cleanEnv(), file = CLI): Running {
  const child = spawn(process.execPath, [file, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (out += d.toString()));
  const finished = new Promise<Finished>((resolve) => child.once('close', (code, signal) => resolve({ code, signal, out })));
  t.after(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });
  return { output: () => out, kill: (s) => child.kill(s), finished };
}

async function within<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} took more than ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([p, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** A host on the far pty of a fresh socat pair, answering from `orders`. */
async function serialHost(t: TestContext, dialect: string, orders: ReturnType<typeof labOrder>[], options: { silent?: boolean } = {}) {
  const line = await cable();
  const host = new TestHost({ profile: getProfile(dialect), transport: new SerialTransport(line.host), orders, ...options });
  await host.start();
  t.after(async () => {
    await host.stop();
    await line.close();
  });
  return { line, host };
}

const ISO = '\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{3}Z';

describe('lis-analyzer-sim over a serial line', () => {
  for (const dialect of ['generic-lis2a2', 'roche-cobas-e411', 'mindray-cl']) {
    it(`${dialect}: runs the samples, logs readable frames, exits 0`, async (t) => {
      const { line, host } = await serialHost(t, dialect, [labOrder('S1', ['GLU', 'CREA']), labOrder('S2', ['TSH'])]);
      const run = start(t, ['--dialect', dialect, '--serial', line.analyzer, '--samples', 'S1,S2', '--interval', '300', '--analysis-ms', '30', '--tz', 'Europe/Berlin', '--seed', '5']);
      const done = await within(run.finished, 15000, 'the run');
      assert.equal(done.code, 0, done.out);
      assert.match(done.out, new RegExp(`^${ISO} → <ENQ>$`, 'm'), 'ENQ sent, with a timestamp and an arrow');
      assert.match(done.out, new RegExp(`^${ISO} ← <ACK>$`, 'm'), 'ACK received');
      assert.match(done.out, /→ <STX>1H\|\\\^&.*<CR>Q\|1\|.*S1.*<ETX>[0-9A-F]{2}<CR><LF>$/m, 'the query frame in readable form');
      assert.match(done.out, /← <STX>1H\|\\\^&.*<CR>O\|1\|.*S1.*<ETX>[0-9A-F]{2}<CR><LF>$/m, 'the download frame');
      assert.match(done.out, /^Summary: 2 sample\(s\), 2 ok, 0 failed$/m);
      assert.match(done.out, /messages sent 4, acknowledged 4, failed 0, received 2/);
      // Each ENQ and EOT sent is counted, not only the frames: as many as the log shows (an ENQ that met the host's
      // own ENQ, a contention a loaded machine makes likelier, is sent again, and counted again).
      const sent = (c: string) => done.out.split('\n').filter((l) => new RegExp(`^${ISO} → <${c}>$`).test(l)).length;
      const counted = /^ {2}control characters out \d+ \(ENQ (\d+), EOT (\d+), ACK \d+\), in \d+ \(/m.exec(done.out);
      assert.ok(counted, 'the control characters line');
      assert.deepEqual([Number(counted[1]), Number(counted[2])], [sent('ENQ'), sent('EOT')], 'the ENQs and EOTs sent are counted, not only the frames');
      assert.ok(sent('ENQ') >= 4 && sent('EOT') >= 4, 'four transfers at least');
      assert.match(done.out, /S1: ok \(order GLU,CREA; results GLU=[\d.]+ mmol\/L.*; acknowledged\)/);
      await waitUntil(() => host.results.length === 3, 3000, () => `three results at the host\n${host.trace()}`);
      assert.deepEqual(
        host.results.map((r) => [r.SampleNumber, r.instrumentCode]),
        [
          ['S1', 'GLU'],
          ['S1', 'CREA'],
          ['S2', 'TSH'],
        ],
      );
    });
  }

  it('exits non-zero when a sample gets no order', async (t) => {
    const { line } = await serialHost(t, 'generic-lis2a2', [labOrder('S1', ['GLU'])]);
    const run = start(t, ['--dialect', 'generic-lis2a2', '--serial', line.analyzer, '--samples', 'S1,NOPE', '--interval', '200', '--analysis-ms', '0', '--quiet']);
    const done = await within(run.finished, 15000, 'the run');
    assert.equal(done.code, 1, done.out);
    assert.match(done.out, /^Summary: 2 sample\(s\), 1 ok, 1 failed$/m);
    assert.match(done.out, /NOPE: FAILED \(no order at the host\)/);
    assert.doesNotMatch(done.out, /<ENQ>/, '--quiet logs no frames');
  });

  it('takes the port from ANALYZER_PORT, names samples from --count/--prefix, and injects faults on request', async (t) => {
    const { line, host } = await serialHost(t, 'generic-lis2a2', [labOrder('E001', ['K']), labOrder('E002', ['NA'])]);
    const run = start(t, ['--dialect', 'generic-lis2a2', '--count', '2', '--prefix', 'E', '--interval', '300', '--analysis-ms', '0', '--corrupt-checksum', '1'], cleanEnv({ ANALYZER_PORT: line.analyzer, ANALYZER_BAUD: '19200' }));
    const done = await within(run.finished, 15000, 'the run');
    assert.equal(done.code, 0, done.out);
    assert.match(done.out, /serial .*analyzer 19200 8N1/);
    assert.match(done.out, /! corruptChecksum: frame 1 sent with a wrong checksum/);
    assert.ok(host.written().includes(NAK), 'the host NAKed the corrupted frame');
    assert.match(done.out, /E001: ok/);
    assert.match(done.out, /E002: ok/);
  });

  it('stops cleanly on SIGTERM, with a summary', async (t) => {
    const { line, host } = await serialHost(t, 'roche-cobas-e411', [], { silent: true });
    const run = start(t, ['--dialect', 'roche-cobas-e411', '--serial', line.analyzer, '--samples', 'S1,S2', '--query-timeout-ms', '60000']);
    await waitUntil(() => host.queries.length === 1, 10000, () => `the query at the host\n${run.output()}`);
    run.kill('SIGTERM');
    const done = await within(run.finished, 5000, 'stopping');
    assert.equal(done.code, 143, done.out);
    assert.match(done.out, /SIGTERM: stopping/);
    assert.match(done.out, /^Summary: 2 sample\(s\), 0 ok, 1 failed, 1 not run \(stopped\)$/m);
    assert.match(done.out, /S1: FAILED \(the simulator was stopped\)/);
  });
});

describe('lis-analyzer-sim over TCP', () => {
  it('connects to ANALYZER_HOST:ANALYZER_TCP_PORT', async (t) => {
    const server = new TcpServerTransport(0);
    const host = new TestHost({ profile: getProfile('mindray-cl'), transport: server, orders: [labOrder('M1', ['TSH'])] });
    await host.start();
    t.after(() => host.stop());
    const run = start(t, ['--dialect', 'mindray-cl', '--samples', 'M1', '--analysis-ms', '0'], cleanEnv({ ANALYZER_HOST: '127.0.0.1', ANALYZER_TCP_PORT: String(server.boundPort) }));
    const done = await within(run.finished, 15000, 'the run');
    assert.equal(done.code, 0, done.out);
    assert.match(done.out, /tcp client to 127\.0\.0\.1:\d+/);
  });

  it('stops on SIGINT while it listens for a host that never comes', async (t) => {
    const run = start(t, ['--dialect', 'generic-lis2a2', '--listen', '0', '--samples', 'S1']);
    await waitUntil(() => /waiting for the host to connect/.test(run.output()), 10000, () => `the listening line\n${run.output()}`);
    run.kill('SIGINT');
    const done = await within(run.finished, 5000, 'stopping');
    assert.equal(done.code, 130, done.out);
    assert.match(done.out, /S1: FAILED/);
  });
});

describe('lis-analyzer-sim command line', () => {
  it('the bin launcher runs the built CLI', async () => {
    assert.match(readFileSync(BIN, 'utf8'), /^#!\/usr\/bin\/env node\n/);
    const { code, stdout } = await new Promise<{ code: number; stdout: string }>((resolve) =>
      execFile(process.execPath, [BIN, '--help'], { env: cleanEnv(), timeout: 10000 }, (err, stdout) => resolve({ code: err ? Number(err.code ?? 1) : 0, stdout })),
    );
    assert.equal(code, 0);
    assert.match(stdout, /^lis-analyzer-sim: plays one analyzer/);
    assert.match(stdout, /--corrupt-checksum/);
  });

  it('a usage error exits 2', async (t) => {
    const done = await within(start(t, ['--dialect', 'generic-lis2a2', '--samples', 'S1']).finished, 10000, 'the run');
    assert.equal(done.code, 2);
    assert.match(done.out, /no line given: use --serial, --tcp or --listen/);
  });

  it('parses samples, lines, environment and misbehaviour', () => {
    const env = cleanEnv();
    const c = parseCliOptions(['--dialect', 'mindray-cl', '--count', '3', '--prefix', 'Q', '--tcp', 'lab-host:5100', '--drop-ack', '2', '--contend', '--split-records', 'record', '--pause-ms', '100', '--unordered-result', 'auto'], env);
    assert.deepEqual(c.samples, ['Q001', 'Q002', 'Q003']);
    assert.deepEqual(c.transport, { kind: 'tcp', host: 'lab-host', port: 5100 });
    assert.deepEqual(c.misbehaviour, { dropAck: 2, contend: 1, splitRecords: 'record', pauseMs: 100, unorderedResult: true });
    const serial = parseCliOptions(['--dialect', 'generic-lis2a2', '--samples', 'A, B', '--baud', '4800'], { ...env, ANALYZER_PORT: '/dev/ttyUSB0', ANALYZER_BAUD: '1200' });
    assert.deepEqual(serial.samples, ['A', 'B']);
    assert.deepEqual(serial.transport, { kind: 'serial', path: '/dev/ttyUSB0', settings: { baudRate: 9600, dataBits: 8, parity: 'none', stopBits: 1 }, baudRate: 4800 });
    assert.deepEqual(parseCliOptions(['--dialect', 'generic-lis2a2', '--samples', 'A', '--listen', '0.0.0.0:5000'], env).transport, { kind: 'listen', port: 5000, host: '0.0.0.0' });
    assert.equal(parseCliOptions(['--dialect', 'generic-lis2a2', '--samples', 'A', '--serial', '/x', '--corrupt-checksum', '0.1'], env).misbehaviour.corruptChecksum, 0.1);
    const bad: [string[], RegExp][] = [
      [['--samples', 'A', '--serial', '/x'], /--dialect is required/],
      [['--dialect', 'generic-lis2a2', '--serial', '/x', '--tcp', 'h:1', '--samples', 'A'], /one of --serial, --tcp and --listen/],
      [['--dialect', 'generic-lis2a2', '--serial', '/x'], /no samples given/],
      [['--dialect', 'generic-lis2a2', '--serial', '/x', '--samples', 'A', '--count', '2'], /--samples or --count, not both/],
      [['--dialect', 'generic-lis2a2', '--tcp', 'nohost', '--samples', 'A'], /--tcp must be host:port/],
      [['--dialect', 'generic-lis2a2', '--serial', '/x', '--samples', 'A', '--interval', 'soon'], /--interval must be a whole number/],
      [['--dialect', 'generic-lis2a2', '--serial', '/x', '--samples', 'A', '--frobnicate'], /Unknown option/],
    ];
    for (const [args, error] of bad) assert.throws(() => parseCliOptions(args, env), (err: unknown) => err instanceof UsageError && error.test(err.message));
  });
});

describe('lis-analyzer-sim playing an HL7 dialect over TCP', () => {
  async function hl7Host(t: TestContext, dialect: string, orders: ReturnType<typeof labOrder>[]) {
    const line = new TcpServerTransport(0);
    const host = new Hl7TestHost({ profile: findHl7Profile(dialect)!, transport: line, orders });
    await host.start();
    t.after(() => host.stop());
    return { host, port: line.boundPort };
  }

  it('mindray-cl-hl7 (detected as HL7): logs each message readably, one line per sample, a summary with AE/AR, exits 0', async (t) => {
    const { host, port } = await hl7Host(t, 'mindray-cl-hl7', [labOrder('0019', ['1', '2'])]);
    const run = start(t, ['--dialect', 'mindray-cl-hl7', '--tcp', `127.0.0.1:${port}`, '--samples', '0019', '--analysis-ms', '0', '--tz', 'Europe/Berlin', '--qc', 'QUAL2', '--tests', 'AST', '--junk', '1']);
    const done = await within(run.finished, 15000, 'the run');
    assert.equal(done.code, 0, done.out);
    assert.match(done.out, new RegExp(`^${ISO} → #noise<FS><CR><LF><VT>MSH\\|\\^~\\\\&\\|\\|\\|\\|\\|\\d{14}\\|\\|QRY\\^Q02\\|1\\|P\\|2\\.3\\.1\\|.*<CR>QRD\\|.*\\|0019\\|OTH\\|.*<FS><CR>$`, 'm'), 'the query, junk first');
    assert.match(done.out, /← <VT>MSH\|[^\n]*\|DSR\^Q03\|[^\n]*<CR>DSP\|29\|\|1\^\^\^\|\|\|<CR>[^\n]*<FS><CR>$/m, 'the download');
    assert.match(done.out, /→ <VT>MSH\|[^\n]*\|ACK\^Q03\|[^\n]*<CR>MSA\|AA\|[^\n]*<FS><CR>$/m, 'its ACK^Q03');
    assert.match(done.out, /! junk: 9 bytes outside any frame before frame 1/);
    assert.match(done.out, /0019: ok \(order 1,2; results 1=[\d.]+, 2=[\d.]+; acknowledged\)/);
    assert.match(done.out, /QC QUAL2 run 1: AST L1=[\d.]+ U\/L \(z [+-]\d+\.\d\d\), AST L2=[\d.]+ U\/L \(z [+-]\d+\.\d\d\) acknowledged/);
    assert.match(done.out, /^Summary: 1 sample\(s\), 1 ok, 0 failed$/m);
    assert.match(done.out, /messages sent 3, acknowledged 3, failed 0, received 4; frames out 4, in 4/);
    assert.match(done.out, /AE received 0, AR received 0; ACKs sent for the host's messages 1/);
    assert.deepEqual(host.discarded.map((d) => d.reason), ['outside-frame']);
    assert.deepEqual(host.qc.map((q) => [q.SampleNumber, q.control?.level]), [['QUAL2', 'L1'], ['QUAL2', 'L2']]);
  });

  it('ihe-law, listening, with the host connecting: exits 1 when a sample is not found', async (t) => {
    const run = start(t, ['--protocol', 'hl7', '--dialect', 'ihe-law', '--listen', '0', '--samples', 'S1,NOPE', '--interval', '0', '--analysis-ms', '0', '--quiet']);
    await waitUntil(() => /listening on port \d+/.test(run.output()), 10000, () => `the simulator listening\n${run.output()}`);
    const port = Number(/listening on port (\d+)/.exec(run.output())![1]);
    const host = new Hl7TestHost({ profile: findHl7Profile('ihe-law')!, transport: new TcpClientTransport('127.0.0.1', port), orders: [labOrder('S1', ['GLU'])] });
    await host.start();
    t.after(() => host.stop());
    const done = await within(run.finished, 15000, 'the run');
    assert.equal(done.code, 1, done.out);
    assert.match(done.out, /S1: ok/);
    assert.match(done.out, /NOPE: FAILED \(no order at the host\)/);
    assert.equal(host.results.length, 1);
  });

  it('parses the HL7 options and refuses the ASTM-only ones', () => {
    const env = cleanEnv();
    const c = parseCliOptions(['--dialect', 'roche-cobas-pro', '--tcp', 'h:1', '--samples', 'A', '--ack-timeout-ms', '500', '--retries', '1', '--missing-start', '0.5', '--junk', '2', '--split-writes', '8', '--no-ack', '1', '--error-ack', '2', '--drop-ack', '3', '--drop-results-ack', '2', '--unordered-result', 'K'], env);
    assert.equal(c.protocol, 'hl7');
    assert.deepEqual(c.hl7, { misbehaviour: { missingStart: 0.5, junk: 2, splitWrites: 8, noAck: 1, errorAck: 2, dropAck: 3, dropResultsAck: 2, unorderedResult: 'K' }, ackTimeoutMs: 500, retries: 1 });
    assert.equal(parseCliOptions(['--dialect', 'mindray-cl', '--tcp', 'h:1', '--samples', 'A'], env).protocol, 'astm');
    const bad: [string[], RegExp][] = [
      [['--dialect', 'ihe-law', '--serial', '/x', '--samples', 'A'], /--serial is an ASTM option/],
      [['--dialect', 'ihe-law', '--tcp', 'h:1', '--samples', 'A', '--corrupt-checksum', '1'], /--corrupt-checksum is an ASTM option/],
      [['--dialect', 'mindray-cl', '--tcp', 'h:1', '--samples', 'A', '--no-ack', '1'], /--no-ack is an HL7 option; mindray-cl is an ASTM dialect/],
      [['--dialect', 'mindray-cl', '--tcp', 'h:1', '--samples', 'A', '--drop-results-ack', '1'], /--drop-results-ack is an HL7 option/],
      [['--protocol', 'hl7', '--dialect', 'mindray-cl', '--tcp', 'h:1', '--samples', 'A'], /unknown HL7 dialect "mindray-cl"/],
      [['--protocol', 'x', '--dialect', 'ihe-law', '--tcp', 'h:1', '--samples', 'A'], /--protocol must be astm or hl7/],
    ];
    for (const [args, error] of bad) assert.throws(() => parseCliOptions(args, env), (err: unknown) => err instanceof UsageError && error.test(err.message));
  });
});

describe('lis-analyzer-sim control runs', () => {
  it('parses --qc and its details for both protocols', () => {
    const env = cleanEnv();
    const line = ['--tcp', 'h:1', '--samples', 'A'];
    assert.deepEqual(parseCliOptions(['--dialect', 'roche-cobas-e411', ...line, '--qc', 'PCCC', '--qc-levels', '3', '--qc-every', '10', '--qc-bias', '1.5', '--qc-bias-from', '4', '--qc-drift=-0.1', '--qc-imprecision', '2'], env).qc, {
      control: 'PCCC',
      levels: 3,
      every: { samples: 10 },
      bias: 1.5,
      from: 4,
      drift: -0.1,
      imprecision: 2,
    });
    assert.deepEqual(parseCliOptions(['--dialect', 'ihe-law', ...line, '--qc', 'QUAL2', '--qc-every', '500ms'], env).qc, { control: 'QUAL2', every: { ms: 500 } });
    assert.equal(parseCliOptions(['--dialect', 'generic-lis2a2', ...line], env).qc, undefined);
    const bad: [string[], RegExp][] = [
      [['--dialect', 'edan-h30', ...line, '--qc', 'Q'], /--qc: dialect edan-h30 has no QC marker/],
      [['--dialect', 'generic-lis2a2', ...line, '--qc-bias', '1'], /--qc-bias needs --qc <control>/],
      [['--dialect', 'generic-lis2a2', ...line, '--qc', 'Q', '--qc-levels', '4'], /--qc-levels must be 2 or 3, not "4"/],
      [['--dialect', 'generic-lis2a2', ...line, '--qc', 'Q', '--qc-every', 'often'], /--qc-every must be a number of samples \(e\.g\. 10\) or of ms \(e\.g\. 500ms\)/],
      [['--dialect', 'generic-lis2a2', ...line, '--qc', 'Q', '--qc-every', '0ms'], /--qc-every must be/],
      [['--dialect', 'generic-lis2a2', ...line, '--qc', 'Q', '--qc-bias', 'much'], /--qc-bias must be a number of SD/],
      [['--dialect', 'generic-lis2a2', ...line, '--qc', 'Q', '--qc-bias-from', '0'], /--qc-bias-from \(a run number\) must be a whole number >= 1/],
      [['--dialect', 'generic-lis2a2', ...line, '--qc', 'Q', '--qc-imprecision', '0'], /--qc-imprecision must be a factor on the SD above 0/],
      [['--dialect', 'generic-lis2a2', ...line, '--qc', 'A|B'], /--qc must be a control name without delimiters/],
    ];
    for (const [args, error] of bad) assert.throws(() => parseCliOptions(args, env), (err: unknown) => err instanceof UsageError && error.test(err.message));
  });

  it('ASTM roche-cobas-e411 with --qc-every 1 and a bias: a run after each sample, z-scores logged, the host reads QC', async (t) => {
    const line = new TcpServerTransport(0);
    const host = new TestHost({ profile: getProfile('roche-cobas-e411'), transport: line, orders: [labOrder('S1', ['GLU']), labOrder('S2', ['GLU'])] });
    await host.start();
    t.after(() => host.stop());
    const run = start(t, ['--dialect', 'roche-cobas-e411', '--tcp', `127.0.0.1:${line.boundPort}`, '--samples', 'S1,S2', '--interval', '0', '--analysis-ms', '0', '--tests', 'GLU', '--quiet', '--qc', 'PCCC', '--qc-every', '1', '--qc-bias', '3']);
    const done = await within(run.finished, 20000, 'the run');
    assert.equal(done.code, 0, done.out);
    assert.match(done.out, /QC PCCC run 1: GLU L1=[\d.]+ mmol\/L \(z \+\d\.\d\d\), GLU L2=/);
    assert.match(done.out, /QC PCCC run 2: /);
    assert.match(done.out, /QC PCCC: 2 control run\(s\) acknowledged/);
    const qc = host.events.flatMap((e) => (e.type === 'qc' ? e.results : []));
    assert.deepEqual(qc.map((q) => q.SampleNumber), ['PCCC-L1', 'PCCC-L2', 'PCCC-L1', 'PCCC-L2']);
  });
});
