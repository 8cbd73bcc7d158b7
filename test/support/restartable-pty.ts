/**
 * A socat pty pair on fixed paths that can be pulled out and plugged back in:
 * stop() kills socat (both ends vanish, as when a USB serial adapter is
 * unplugged), start() makes a new pair under the same two paths. Node-RED's
 * serial port config and the simulator (SerialTransport reopenMs) reopen them.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { waitUntil } from './wait';

const live = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of live) child.kill('SIGKILL');
});

export class RestartablePty {
  readonly dir = mkdtempSync(join(tmpdir(), 'lis-crash-pty-'));
  /** The end Node-RED's serial port config opens. */
  readonly host = join(this.dir, 'host');
  /** The end the simulator opens. */
  readonly analyzer = join(this.dir, 'analyzer');
  private child: ChildProcess | undefined;
  private exited: Promise<void> = Promise.resolve();

  async start(): Promise<void> {
    if (this.child) throw new Error('socat is already running');
    const child = spawn('socat', [`pty,raw,echo=0,link=${this.host}`, `pty,raw,echo=0,link=${this.analyzer}`], { stdio: 'ignore' });
    live.add(child);
    this.child = child;
    this.exited = new Promise<void>((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) resolve();
      else child.once('exit', () => resolve());
    }).then(() => void live.delete(child));
    let spawnError: Error | undefined;
    child.once('error', (err) => (spawnError = err));
    const made = () => {
      if (existsSync(this.host) && existsSync(this.analyzer)) return true;
      if (spawnError !== undefined || child.exitCode !== null) {
        this.child = undefined;
        throw new Error(`socat did not start (${spawnError?.message ?? `exit ${child.exitCode}`}): is it installed? (apt-get install socat)`);
      }
      return false;
    };
    try {
      await waitUntil(made, 5_000, 'socat to make its pty pair');
    } catch (err) {
      // Still running: it made no pair in time.
      if (this.child === child) await this.stop();
      throw err;
    }
  }

  /** Kills socat: both pty ends vanish (their links are removed). */
  async stop(signal: NodeJS.Signals = 'SIGKILL'): Promise<void> {
    const child = this.child;
    this.child = undefined;
    if (!child) return;
    if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    await this.exited;
    // socat removes its links when it ends cleanly; after SIGKILL they are left dangling.
    rmSync(this.host, { force: true });
    rmSync(this.analyzer, { force: true });
  }

  async remove(): Promise<void> {
    await this.stop('SIGTERM');
    rmSync(this.dir, { recursive: true, force: true });
  }
}
