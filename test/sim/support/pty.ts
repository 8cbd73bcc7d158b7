/**
 * A serial cable on one machine: two pseudo-terminals joined by socat. The
 * simulator opens one end, the test's host the other, so bytes cross a real
 * tty driver both ways.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface Cable {
  analyzer: string;
  host: string;
  close(): Promise<void>;
}

export async function cable(): Promise<Cable> {
  const dir = mkdtempSync(join(tmpdir(), 'lis-sim-'));
  const analyzer = join(dir, 'analyzer');
  const host = join(dir, 'host');
  const socat = spawn('socat', [`pty,raw,echo=0,link=${analyzer}`, `pty,raw,echo=0,link=${host}`], { stdio: 'ignore' });
  const exited = new Promise<void>((resolve) => socat.once('exit', () => resolve()));
  const spawnError = new Promise<Error>((resolve) => socat.once('error', resolve));
  const started = Date.now();
  while (!(existsSync(analyzer) && existsSync(host))) {
    const failed = await Promise.race([spawnError, new Promise<null>((r) => setTimeout(() => r(null), 20))]);
    if (failed !== null) throw new Error(`socat could not be started (apt-get install socat): ${failed.message}`);
    if (socat.exitCode !== null) throw new Error('socat exited before making the pty pair');
    if (Date.now() - started > 5000) throw new Error('socat made no pty pair within 5 s');
  }
  return {
    analyzer,
    host,
    close: async () => {
      if (socat.exitCode === null) socat.kill('SIGTERM');
      await exited;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
