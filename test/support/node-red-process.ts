/**
 * Node-RED as its own process, the way an integrator runs it: `node red.js -u <userDir>`.
 * Output is kept so tests can read what Node-RED logged.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { freePort } from './ports';

export interface RunningNodeRed {
  url: string;
  output: () => string;
  stop: () => Promise<void>;
}

export async function startNodeRed(userDir: string, extraSettings: Record<string, unknown> = {}): Promise<RunningNodeRed> {
  const port = await freePort();
  const settings = {
    uiHost: '127.0.0.1',
    uiPort: port,
    flowFile: 'flows.json',
    credentialSecret: 'install-test-secret',
    telemetry: { enabled: false },
    editorTheme: { tours: false },
    logging: { console: { level: 'info', metrics: false, audit: false } },
    ...extraSettings,
  };
  const settingsFile = join(userDir, 'settings.js');
  writeFileSync(settingsFile, `module.exports = ${JSON.stringify(settings, null, 2)};\n`);
  const redJs = require.resolve('node-red/red.js');
  const child: ChildProcess = spawn(process.execPath, [redJs, '-u', userDir, '-s', settingsFile], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));

  const started = Date.now();
  while (!/Started flows/.test(out)) {
    if (child.exitCode !== null) throw new Error(`Node-RED exited early:\n${out}`);
    if (Date.now() - started > 60000) {
      child.kill('SIGKILL');
      throw new Error(`Node-RED did not start within 60 s:\n${out}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    url: `http://127.0.0.1:${port}`,
    output: () => out,
    stop: async () => {
      if (child.exitCode === null) child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 10000);
      await exited;
      clearTimeout(timer);
    },
  };
}
