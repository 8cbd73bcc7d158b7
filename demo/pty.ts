/**
 * A pair of pseudo-terminals joined by socat: a serial cable on one machine,
 * for the demo (npm start) and the serial tests.
 * Node-RED's serial nodes open one end; the test's analyzer opens the other.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface PtyPair {
  /** Path Node-RED's serial port config opens. */
  host: string;
  /** Path the analyzer side opens. */
  analyzer: string;
  stop(): Promise<void>;
}

export async function ptyPair(): Promise<PtyPair> {
  const dir = mkdtempSync(join(tmpdir(), 'lis-pty-'));
  const host = join(dir, 'host');
  const analyzer = join(dir, 'analyzer');
  const child: ChildProcess = spawn('socat', [`pty,raw,echo=0,link=${host}`, `pty,raw,echo=0,link=${analyzer}`], { stdio: 'ignore' });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const started = Date.now();
  while (!(existsSync(host) && existsSync(analyzer))) {
    if (child.exitCode !== null) throw new Error('socat exited: is it installed? (apt-get install socat)');
    if (Date.now() - started > 5000) throw new Error('socat made no pty pair within 5 s');
    await new Promise((r) => setTimeout(r, 20));
  }
  return {
    host,
    analyzer,
    stop: async () => {
      if (child.exitCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}
