/** A test flow: one LIS node wired to helper nodes, a catch node, and a lis-config pointing at the stub. */
import type { LisStub } from './lis-stub';
import { ALL_LIS_NODES, helper, nodeModules } from './red';

export const TOKEN = 'tok-3f9a1c-SECRET-never-leak';

/** Fast back-offs so retry tests take milliseconds; the waits are still measured. */
export const FAST = { timeout: 1500, orderAttempts: 3, orderBackoffMs: 30, transientRetries: 2, transientBackoffMs: 40 };

export interface FlowOptions {
  type: string;
  config?: Record<string, unknown>;
  node?: Record<string, unknown>;
  token?: string | undefined;
  /** More credentials of the lis-config (e.g. proxyUsername, proxyPassword). */
  credentials?: Record<string, string>;
  outputs?: number;
}

export async function loadLisFlow(stub: LisStub, opts: FlowOptions): Promise<void> {
  const outputs = opts.outputs ?? 1;
  const outIds = Array.from({ length: outputs }, (_, i) => `out${i + 1}`);
  const flow: Array<Record<string, unknown>> = [
    {
      id: 'cfg',
      type: 'lis-config',
      name: 'test LIS',
      labTestsApiUrl: stub.url('/tests'),
      transactionInfoApiUrl: stub.url('/orders'),
      resultApiUrl: stub.url('/results'),
      orderCompletedApiUrl: stub.url('/processed'),
      ...FAST,
      ...opts.config,
    },
    { id: 'n', type: opts.type, name: 'under test', lis: 'cfg', wires: outIds.map((id) => [id]), ...opts.node },
    ...outIds.map((id) => ({ id, type: 'helper' })),
    { id: 'catcher', type: 'catch', scope: null, uncaught: false, wires: [['caught']] },
    { id: 'caught', type: 'helper' },
  ];
  const token = 'token' in opts ? opts.token : TOKEN;
  const credentials = { ...(token === undefined ? {} : { bearerToken: token }), ...opts.credentials };
  await helper.load(nodeModules(...ALL_LIS_NODES) as never, flow as never, { cfg: credentials } as never);
}

export type Outcome = { port: string; msg: Record<string, unknown> };

/** Sends `payload` into node n and resolves with the first message out of any output or the catch node. */
export function run(payload: unknown, outputs = 1, timeoutMs = 8000): Promise<Outcome> {
  const ports = [...Array.from({ length: outputs }, (_, i) => `out${i + 1}`), 'caught'];
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('no outcome')), timeoutMs);
    for (const port of ports) {
      helper.getNode(port).once('input', (msg: Record<string, unknown>) => {
        clearTimeout(timer);
        resolve({ port, msg });
      });
    }
    helper.getNode('n').receive({ payload } as never);
  });
}
