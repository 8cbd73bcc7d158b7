import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { PushServer } from '../../lib/lis/push-server';
import { anOrder } from '../support/lis-stub';

describe('PushServer', () => {
  it('answers 500 with the error body when accepting the orders fails, and stays up', async () => {
    let calls = 0;
    const server = new PushServer({
      host: '127.0.0.1',
      port: 0,
      bodyLimit: 100000,
      onOrders: () => {
        calls++;
        if (calls === 1) throw new Error('downstream broke');
      },
    });
    const port = await server.listen();
    try {
      const post = () =>
        fetch(`http://127.0.0.1:${port}/api/getSampleData`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ order: anOrder('X1') }) });
      const res = await post();
      assert.equal(res.status, 500);
      const body = (await res.json()) as { message: string; errors: string[] };
      assert.match(body.message, /internal/);
      assert.deepEqual(body.errors, ['downstream broke']);
      assert.equal((await post()).status, 200);
    } finally {
      await server.close();
    }
  });
});
