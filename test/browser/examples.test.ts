/**
 * Every example flow loads in the real editor with every node valid: no
 * "not properly configured" warning on deploy for an integrator who imports one.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { Browser } from 'playwright-core';
import { startNodeRed, type RunningNodeRed } from '../support/node-red-process';
import { launchChromium, openEditor } from '../support/browser';
import { freePort } from '../support/ports';

const ROOT = join(__dirname, '..', '..', '..');
const EXAMPLES = readdirSync(join(ROOT, 'examples')).filter((f) => f.endsWith('.json'));

let red: RunningNodeRed | undefined;
let browser: Browser | undefined;
let userDir: string;

before(async () => {
  userDir = mkdtempSync(join(tmpdir(), 'lis-examples-'));
  // The examples' lis-push-in nodes listen on 8181, which a running demo may hold; here they only need to be valid.
  const pushPort = String(await freePort());
  const flows = EXAMPLES.flatMap((f) => JSON.parse(readFileSync(join(ROOT, 'examples', f), 'utf8')) as Array<{ type: string }>).map((n) =>
    n.type === 'lis-push-in' ? { ...n, localApiPort: pushPort } : n,
  );
  writeFileSync(join(userDir, 'flows.json'), JSON.stringify(flows));
  const serialDir = dirname(require.resolve('node-red-node-serialport/package.json'));
  [red, browser] = await Promise.all([startNodeRed(userDir, { nodesDir: [ROOT, serialDir] }), launchChromium()]);
});

after(async () => {
  await browser?.close();
  await red?.stop();
  rmSync(userDir, { recursive: true, force: true });
});

describe('example flows in the editor', () => {
  it('every node of every example is known and valid', async () => {
    const firstNode = (JSON.parse(readFileSync(join(ROOT, 'examples', EXAMPLES[0]!), 'utf8')) as Array<{ id: string; type: string }>).find((n) => n.type === 'astm-link')!;
    const { page, pageErrors } = await openEditor(browser!, red!.url, firstNode.id);
    const problems = await page.evaluate(() => {
      type N = { id: string; type: string; name?: string; valid?: boolean; validationErrors?: string[]; _def?: unknown };
      const RED = (globalThis as unknown as { RED: { nodes: { eachNode(f: (n: N) => void): void; eachConfig(f: (n: N) => void): void } } }).RED;
      const out: string[] = [];
      const check = (n: N) => {
        if (n.type === 'unknown' || !n._def) out.push(`${n.type} ${n.id}: unknown type`);
        else if (n.valid === false) out.push(`${n.type} ${n.name ?? ''} ${n.id}: ${(n.validationErrors ?? []).join(', ')}`);
      };
      RED.nodes.eachNode(check);
      RED.nodes.eachConfig(check);
      return out;
    });
    assert.deepEqual(problems, []);
    assert.deepEqual(pageErrors, []);
  });
});
