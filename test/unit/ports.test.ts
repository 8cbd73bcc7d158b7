/**
 * The tests' port blocks: each process hands out ports only from the block it
 * claimed, two processes never share one, and a port something listens on is
 * never handed out.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import net from 'node:net';
import { join } from 'node:path';
import { BLOCK_SIZE, blockStart, freeListeningPorts } from '../support/ports';

const PORTS = join(__dirname, '..', 'support', 'ports.js');

/** Another process's block start; it keeps its block until `release()`. */
async function otherProcessBlock(): Promise<{ first: number; release(): Promise<void> }> {
  const child = spawn(process.execPath, ['-e', `require(${JSON.stringify(PORTS)}).blockStart().then((p) => { console.log(p); process.stdin.resume(); })`], { stdio: ['pipe', 'pipe', 'inherit'] });
  const first = await new Promise<number>((resolve, reject) => {
    child.stdout.once('data', (d: Buffer) => resolve(Number(d.toString().trim())));
    child.once('exit', (code) => reject(new Error(`the other process exited (${code}) before claiming a block`)));
  });
  return {
    first,
    release: () =>
      new Promise<void>((resolve) => {
        child.once('exit', () => resolve());
        child.stdin.end();
      }),
  };
}

describe('test ports', () => {
  it('hands out distinct ports from its own block, each free', async () => {
    const first = await blockStart();
    const ports = await freeListeningPorts(BLOCK_SIZE - 1);
    assert.equal(new Set(ports).size, BLOCK_SIZE - 1);
    for (const p of ports) assert.ok(p > first && p < first + BLOCK_SIZE, `${p} is outside ${first}-${first + BLOCK_SIZE - 1}`);
  });

  it('gives two processes different blocks', async () => {
    const mine = await blockStart();
    const others = [await otherProcessBlock(), await otherProcessBlock()];
    try {
      assert.equal(new Set([mine, ...others.map((o) => o.first)]).size, 3, `blocks ${mine}, ${others.map((o) => o.first).join(', ')}`);
    } finally {
      await Promise.all(others.map((o) => o.release()));
    }
  });

  it('skips a port of its block that something listens on', async () => {
    const first = await blockStart();
    const busy = [first + 5, first + 6, first + 7];
    const held = await Promise.all(
      busy.map(
        (port) =>
          new Promise<net.Server>((resolve, reject) => {
            const s = net.createServer();
            s.once('error', reject);
            s.listen(port, '127.0.0.1', () => resolve(s));
          }),
      ),
    );
    try {
      // A full turn of the block but for the busy ports: none of them is among it.
      const turn = await freeListeningPorts(BLOCK_SIZE - 1 - busy.length);
      for (const p of turn) assert.ok(!busy.includes(p), `${p} is listened on, yet was handed out`);
    } finally {
      await Promise.all(held.map((s) => new Promise((r) => s.close(r))));
    }
});
});
