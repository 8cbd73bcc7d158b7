/** The per-test set-up every node test shares: a fresh loopback LIS stand-in and Node-RED test runtime. */
import { afterEach, beforeEach } from 'node:test';
import { LisStub } from './lis-stub';
import { helper } from './red';

export function useLisStub(): { readonly stub: LisStub } {
  const ctx = {} as { stub: LisStub };
  beforeEach(async () => {
    ctx.stub = await new LisStub().start();
    await helper.startServer();
  });
  afterEach(async () => {
    await helper.unload();
    await helper.stopServer();
    await ctx.stub.stop();
  });
  return ctx;
}
