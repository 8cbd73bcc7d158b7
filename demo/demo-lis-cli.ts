#!/usr/bin/env node
/**
 * Command line of the demo LIS.
 *
 *   node dist/demo/demo-lis-cli.js [serve] [options]   start it; Ctrl-C (SIGINT) or SIGTERM stops it
 *   node dist/demo/demo-lis-cli.js push <sample>       ask a running demo LIS to push that sample's order
 *
 * Flags win over environment variables, which win over defaults.
 */
import { parseArgs } from 'node:util';
import { DEFAULT_HOST, DemoLis } from './demo-lis';

export const DEFAULT_PORT = 3100;

const USAGE = `Demo LIS: the four LIS endpoints of the interface spec, a live page and an order pusher.

Usage:
  demo-lis-cli [serve] [options]
  demo-lis-cli push <sample number> [--url <demo LIS address> | --port <port>] [--prefix <path>]

Options (environment variable in brackets):
  --host <address>          listen address (DEMO_LIS_HOST), default ${DEFAULT_HOST}
  --port <port>             listen port, 0 for any free one (DEMO_LIS_PORT), default ${DEFAULT_PORT}
  --prefix <path>           serve everything below this path, e.g. /lis (DEMO_LIS_PREFIX)
  --token <token>           require Authorization: Bearer <token> on the LIS endpoints (LIS_TOKEN)
  --push-url <url>          lis-push-in address for "Push an order", e.g.
                            http://127.0.0.1:8181/api/getSampleData (LIS_PUSH_URL)
  --push-token <token>      bearer token the push server expects (LIS_PUSH_TOKEN)
  --orderable <IDs>         comma-separated test IDs orders may carry, e.g. T-GLU,T-CREA (DEMO_LIS_ORDERABLE)
  --no-order-pattern <re>   sample numbers with no order, a case-insensitive regular expression
                            (DEMO_LIS_NO_ORDER), default ^NOORDER
  --url <address>           push: the running demo LIS, default http://127.0.0.1:<port><prefix> (DEMO_LIS_URL)
  --quiet                   no line per request
  --help                    this text
`;

class UsageError extends Error {}

function parsePort(text: string, from: string): number {
  const port = Number(text);
  if (!/^\d+$/.test(text.trim()) || port > 65535) throw new UsageError(`${from} must be a port number 0-65535, not ${JSON.stringify(text)}`);
  return port;
}

function read(argv: string[]) {
  return parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      host: { type: 'string' },
      port: { type: 'string' },
      prefix: { type: 'string' },
      token: { type: 'string' },
      'push-url': { type: 'string' },
      'push-token': { type: 'string' },
      orderable: { type: 'string' },
      'no-order-pattern': { type: 'string' },
      url: { type: 'string' },
      quiet: { type: 'boolean' },
      help: { type: 'boolean' },
    },
  });
}
type Values = ReturnType<typeof read>['values'];

function portOf(values: Values, env: NodeJS.ProcessEnv): number {
  if (values.port !== undefined) return parsePort(values.port, '--port');
  if (env.DEMO_LIS_PORT) return parsePort(env.DEMO_LIS_PORT, 'DEMO_LIS_PORT');
  return DEFAULT_PORT;
}

async function serve(values: Values, env: NodeJS.ProcessEnv): Promise<void> {
  const port = portOf(values, env);
  const orderable = (values.orderable ?? env.DEMO_LIS_ORDERABLE)
    ?.split(',')
    .map((id) => id.trim())
    .filter(Boolean);
  const pattern = values['no-order-pattern'] ?? env.DEMO_LIS_NO_ORDER;
  let noOrderPattern: RegExp | undefined;
  try {
    noOrderPattern = pattern ? new RegExp(pattern, 'i') : undefined;
  } catch (err) {
    throw new UsageError(`--no-order-pattern: ${(err as Error).message}`);
  }
  const lis = new DemoLis({
    token: values.token ?? env.LIS_TOKEN,
    pushUrl: values['push-url'] ?? env.LIS_PUSH_URL,
    pushToken: values['push-token'] ?? env.LIS_PUSH_TOKEN,
    orderableTests: orderable && orderable.length > 0 ? orderable : undefined,
    ...(noOrderPattern ? { noOrderPattern } : {}),
    ...(values.quiet ? {} : { log: (line: string) => console.log(line) }),
  });
  const host = values.host ?? env.DEMO_LIS_HOST ?? DEFAULT_HOST;
  await lis.start({ host, port, pathPrefix: values.prefix ?? env.DEMO_LIS_PREFIX ?? '' });
  if (!/^(127\.|::1$|localhost$)/.test(host)) {
    // The page, api/state and push are never behind the token: fine on loopback, not on a network.
    console.warn(`warning: listening on ${host}; the page, api/state and push are open to anyone who can reach it`);
  }

  const state = lis.state();
  const endpoints = lis.endpointUrls();
  console.log(`Demo LIS running: open ${lis.url('/')}`);
  console.log(`  LabTestsAPI URL         ${endpoints.tests}`);
  console.log(`  TransactionInfoAPI URL  ${endpoints.orders}`);
  console.log(`  ResultAPI URL           ${endpoints.results}`);
  console.log(`  OrderCompletedAPI URL   ${endpoints.processed}`);
  // Say whether a token is needed, never which.
  console.log(`  Bearer Token            ${state.tokenRequired ? 'required' : 'not required'}`);
  console.log(`  Push orders to          ${state.pushUrl ?? 'not configured (--push-url)'}`);
  console.log('Stop with Ctrl-C.');

  let stopping = false;
  const shutdown = (signal: NodeJS.Signals) => {
    if (stopping) {
      // A second Ctrl-C means "now".
      process.exit(130);
    }
    stopping = true;
    console.log(`${signal}: stopping`);
    // Only fires if something keeps the process alive after stop(); unref'd so it never delays a clean exit.
    setTimeout(() => {
      console.error('did not stop within 5 s; exiting');
      process.exit(1);
    }, 5000).unref();
    lis.stop().then(
      () => console.log('stopped'),
      (err: unknown) => {
        console.error(`stop failed: ${(err as Error).message}`);
        process.exitCode = 1;
      },
    );
  };
  process.once('SIGINT', shutdown);
  process.once('SIGTERM', shutdown);
}

async function push(sample: string | undefined, values: Values, env: NodeJS.ProcessEnv): Promise<void> {
  if (!sample) throw new UsageError('push needs a sample number: demo-lis-cli push S2001');
  const prefix = (values.prefix ?? env.DEMO_LIS_PREFIX ?? '').replace(/\/+$/, '');
  const base = (values.url ?? env.DEMO_LIS_URL ?? `http://127.0.0.1:${portOf(values, env)}${prefix}`).replace(/\/+$/, '');
  let res: Response;
  try {
    res = await fetch(`${base}/push`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ SampleNumber: sample }),
      signal: AbortSignal.timeout(20000),
    });
  } catch (err) {
    const cause: unknown = err instanceof Error ? err.cause : undefined;
    throw new Error(`no demo LIS answered at ${base} (${cause instanceof Error ? cause.message : String(err)}); start it first`);
  }
  const text = await res.text();
  let shown = text;
  try {
    shown = JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    // Not JSON: show it as it came.
  }
  console.log(`HTTP ${res.status}`);
  console.log(shown);
  if (!res.ok) process.exitCode = 1;
}

export async function main(argv: string[], env: NodeJS.ProcessEnv): Promise<void> {
  let parsed: ReturnType<typeof read>;
  try {
    parsed = read(argv);
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  const { values, positionals } = parsed;
  if (values.help) {
    console.log(USAGE);
    return;
  }
  const [command = 'serve', ...rest] = positionals;
  if (command === 'serve' && rest.length === 0) return serve(values, env);
  if (command === 'push' && rest.length <= 1) return push(rest[0], values, env);
  throw new UsageError(`unknown command: ${positionals.join(' ')}`);
}

if (require.main === module) {
  main(process.argv.slice(2), process.env).catch((err: unknown) => {
    if (err instanceof UsageError) {
      console.error(`${err.message}\n\n${USAGE}`);
      process.exitCode = 2;
    } else {
      console.error((err as Error).message);
      process.exitCode = 1;
    }
  });
}
