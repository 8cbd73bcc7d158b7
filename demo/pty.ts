/**
 * A pair of pseudo-terminals joined by socat: a serial cable on one machine,
 * for the demo (npm start) and the serial tests.
 * Node-RED's serial nodes open one end; the test's analyzer opens the other.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface PtyPair {
  /** Path Node-RED's serial port config opens. */
  host: string;
  /** Path the analyzer side opens. */
  analyzer: string;
  /** Stops socat and removes the directory that held the two links. */
  stop(): Promise<void>;
}

export async function ptyPair(): Promise<PtyPair> {
  const dir = mkdtempSync(join(tmpdir(), 'lis-pty-'));
  const host = join(dir, 'host');
  const analyzer = join(dir, 'analyzer');
  const child: ChildProcess = spawn('socat', [`pty,raw,echo=0,link=${host}`, `pty,raw,echo=0,link=${analyzer}`], { stdio: 'ignore' });
  const exited = new Promise<void>((resolve) => child.once('close', () => resolve()));
  // A missing socat is reported by the wait below; without a listener the error would be thrown.
  child.once('error', () => undefined);
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null && child.pid !== undefined) child.kill('SIGTERM');
    if (child.pid !== undefined) await exited;
    // socat removes its links on a clean exit; the directory is ours to remove.
    rmSync(dir, { recursive: true, force: true });
  };
  const started = Date.now();
  while (!(existsSync(host) && existsSync(analyzer))) {
    let problem: string | undefined;
    if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) problem = 'socat exited: is it installed? (apt-get install socat)';
    else if (Date.now() - started > 5000) problem = 'socat made no pty pair within 5 s';
    if (problem !== undefined) {
      await stop();
      throw new Error(problem);
    }
    await new Promise((r) => setTimeout(r, 20));
  }
  return { host, analyzer, stop };
}
