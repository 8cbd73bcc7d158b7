/**
 * Node-RED as its own process, the way an integrator runs it: `node red.js -u
 * <userDir> -s <userDir>/settings.js`, on a free loopback port. Used by the
 * install and browser tests, the end-to-end and crash runs and the bench.
 *
 * prepare() writes settings.js (and flows.json, when given) once; start()
 * after kill() or stop() brings the same Node-RED back on the same userDir
 * and port (same flows, same journal). Everything it printed is kept, with a
 * line at each start and end, for tests to read and for the diagnostics of a
 * failing one. Every process started here is killed, as a last resort, when
 * the test process exits.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { freePort } from './ports';
import { waitUntil } from './wait';

const live = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of live) {
    try {
      child.kill('SIGKILL');
    } catch {
      // already gone
    }
  }
});

/** Variables the example flows read: never inherited from the environment the tests run in. */
const EXAMPLE_VARS = /^(LIS_|ANALYZER_)/;

/** UTC time of day with ms, marked Z: the lines noted in the output line up with the simulators' logs. */
const stamp = () => `${new Date().toISOString().slice(11, 23)}Z`;

export interface NodeRedOptions {
  userDir: string;
  /**
   * Written as the userDir's flows.json. The previous flows, their
   * credentials and the result journal (lis-bridge/) are removed first: a
   * new flows file starts from nothing. Without it the userDir is left as it is.
   */
  flows?: unknown[];
  /** settings.js entries on top of the defaults (loopback, a free port, flows.json, no telemetry or tours, info logging). */
  settings?: Record<string, unknown>;
  /** JavaScript appended to settings.js, for what JSON cannot hold (adminAuth's tokens() function). */
  settingsCode?: string;
  /** Environment on top of this process's (less the examples' LIS_ and ANALYZER_ variables). */
  env?: Record<string, string>;
  /** Node's options before red.js (the bench's --cpu-prof). */
  nodeArgs?: string[];
  /** Keep only about the last this many characters of output (a long bench run); default all of it. */
  keepOutput?: number;
}

export interface HeldBatch {
  key: string;
  node: string;
  state: 'failed' | 'uncertain';
  samples: string[];
  results: number;
  error: { code: string; message: string } | null;
  notSent: boolean;
}

/** GET /lis-bridge/held: what the journal holds for an operator. */
export interface HeldAnswer {
  batches: HeldBatch[];
  /** `reason` null: replayed at this start and not settled yet (under way), not given up on. */
  stuck: Array<{ id: string; link: string; at: string; parts: number | null; handed: number; note: string | null; reason: string | null }>;
  holds: Array<{ id: string; code: string; kind: string; samples: string[]; results: number; state: string }>;
}

export class NodeRedProcess {
  /** Number of starts so far. */
  lives = 0;
  readonly url: string;
  private child: ChildProcess | undefined;
  private exited: Promise<void> = Promise.resolve();
  private all = '';
  /** The output of the current start only: waitForLog looks at this, so a line from an earlier life does not count. */
  private life = '';

  private constructor(
    readonly userDir: string,
    readonly port: number,
    private readonly opts: NodeRedOptions,
  ) {
    this.url = `http://127.0.0.1:${port}`;
  }

  /** Writes settings.js, and flows.json when given, into the userDir; start() runs Node-RED on them. */
  static async prepare(opts: NodeRedOptions): Promise<NodeRedProcess> {
    const { userDir } = opts;
    const port = await freePort();
    if (opts.flows !== undefined) {
      for (const stale of ['flows.json', 'flows_cred.json', '.flows.json.backup', '.flows_cred.json.backup', 'lis-bridge']) rmSync(join(userDir, stale), { recursive: true, force: true });
      writeFileSync(join(userDir, 'flows.json'), JSON.stringify(opts.flows, null, 2));
    }
    const settings = {
      uiHost: '127.0.0.1',
      uiPort: port,
      flowFile: 'flows.json',
      credentialSecret: 'lis-bridge-test-secret',
      telemetry: { enabled: false },
      editorTheme: { tours: false },
      logging: { console: { level: 'info', metrics: false, audit: false } },
      ...opts.settings,
    };
    writeFileSync(join(userDir, 'settings.js'), `module.exports = ${JSON.stringify(settings, null, 2)};\n${opts.settingsCode ?? ''}\n`);
    return new NodeRedProcess(userDir, port, opts);
  }

  get running(): boolean {
    return this.child !== undefined;
  }

  /** The running process's id (the bench reads /proc/<pid>). */
  get pid(): number {
    if (this.child?.pid === undefined) throw new Error('Node-RED is not running');
    return this.child.pid;
  }

  /** Where the result journal is, unless settings.lisBridge.dir moved it elsewhere. */
  get journalFile(): string {
    return join(this.userDir, 'lis-bridge', 'journal.jsonl');
  }

  /**
   * Starts Node-RED and resolves once it started its flows, or, when
   * `killedOnPurpose()` says so, once it died of a kill a test sent while it
   * was still starting (the crash runs aim kills at the journal's replay,
   * which runs as the flows start). Any other failure kills it and throws
   * with the tail of its log.
   */
  async start(timeoutMs = 60_000, opts: { killedOnPurpose?: () => boolean } = {}): Promise<void> {
    if (this.child) throw new Error('Node-RED is already running');
    this.lives++;
    this.life = '';
    this.note(`=== start ${this.lives} at ${stamp()} ===`);
    const base = Object.fromEntries(Object.entries(process.env).filter(([k]) => !EXAMPLE_VARS.test(k)));
    const args = [...(this.opts.nodeArgs ?? []), require.resolve('node-red/red.js'), '-u', this.userDir, '-s', join(this.userDir, 'settings.js')];
    const child = spawn(process.execPath, args, { env: { ...base, ...this.opts.env }, stdio: ['ignore', 'pipe', 'pipe'] });
    live.add(child);
    this.child = child;
    this.exited = new Promise<void>((resolve) => child.once('exit', () => resolve())).then(() => {
      live.delete(child);
      if (this.child === child) this.child = undefined;
    });
    const keep = this.opts.keepOutput;
    const onData = (d: Buffer) => {
      const text = d.toString();
      this.all += text;
      this.life += text;
      // Trimmed in large steps, not on every chunk, so keeping a bounded log costs next to nothing.
      if (keep !== undefined && this.all.length > keep * 2) this.all = this.all.slice(-keep);
      if (keep !== undefined && this.life.length > keep * 2) this.life = this.life.slice(-keep);
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    try {
      await this.waitForLog(/Started flows/, timeoutMs);
    } catch (err) {
      if (opts.killedOnPurpose?.()) {
        await this.exited;
        this.note(`=== killed (SIGKILL) while starting, at ${stamp()} ===`);
        return;
      }
      await this.kill();
      throw new Error(`${(err as Error).message}\n--- Node-RED log ---\n${this.tail(60)}`);
    }
  }

  /** Waits for `pattern` in the output of the current life. */
  async waitForLog(pattern: RegExp, timeoutMs: number): Promise<void> {
    const logged = () => {
      if (pattern.test(this.life)) return true;
      if (!this.child) throw new Error(`Node-RED exited while waiting for ${pattern}`);
      return false;
    };
    await waitUntil(logged, timeoutMs, `Node-RED to log ${pattern}`, 20);
  }

  /** Sends SIGKILL at once, from inside a callback that must not wait (kill() waits for the exit). */
  killNow(): void {
    this.child?.kill('SIGKILL');
  }

  /** SIGKILL: no close handlers, no flushing, the journal as the kernel has it. */
  async kill(): Promise<void> {
    const child = this.child;
    if (!child) return;
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await this.exited;
    this.note(`=== killed (SIGKILL) at ${stamp()} ===`);
  }

  /** SIGTERM, as a service manager stops it (nodes close, a --cpu-prof profile is written); SIGKILL after `graceMs`. */
  async stop(graceMs = 10_000): Promise<void> {
    const child = this.child;
    if (!child) return;
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
    await this.exited;
    clearTimeout(timer);
    this.note(`=== stopped at ${stamp()} ===`);
  }

  /** Everything printed, every life, with the start and end lines. */
  output(): string {
    return this.all;
  }

  tail(lines: number): string {
    return this.all.split('\n').slice(-lines).join('\n');
  }

  private note(line: string): void {
    this.all += `${line}\n`;
  }

  // ----- the admin API -----

  async held(): Promise<HeldAnswer> {
    const res = await fetch(`${this.url}/lis-bridge/held`);
    if (!res.ok) throw new Error(`GET /lis-bridge/held: ${res.status} ${await res.text()}`);
    return (await res.json()) as HeldAnswer;
  }

  /** Presses inject node `id`'s button. Right after a deploy it answers 404 until the node is started again: pressed again until it answers. */
  async inject(id: string, timeoutMs = 10_000): Promise<void> {
    const pressed = async () => {
      const res = await fetch(`${this.url}/inject/${id}`, { method: 'POST' });
      if (res.status !== 200 && res.status !== 404) throw new Error(`inject ${id} answered ${res.status}: ${await res.text()}`);
      return res.status === 200;
    };
    await waitUntil(pressed, timeoutMs, `inject ${id} to answer (404 until the deployed node is started)`, 100);
  }

  /** A full deploy of the flows as they are: every node is stopped and started again. */
  async redeploy(): Promise<void> {
    const got = await fetch(`${this.url}/flows`, { headers: { 'Node-RED-API-Version': 'v2' } });
    if (!got.ok) throw new Error(`GET /flows: ${got.status}`);
    const { flows, rev } = (await got.json()) as { flows: unknown[]; rev: string };
    const res = await fetch(`${this.url}/flows`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'Node-RED-API-Version': 'v2', 'Node-RED-Deployment-Type': 'full' },
      body: JSON.stringify({ flows, rev }),
    });
    if (!res.ok) throw new Error(`POST /flows (full deploy): ${res.status} ${await res.text()}`);
  }
}

/** prepare() and start() in one: Node-RED running its flows. */
export async function startNodeRed(opts: NodeRedOptions): Promise<NodeRedProcess> {
  const red = await NodeRedProcess.prepare(opts);
  await red.start();
  return red;
}
