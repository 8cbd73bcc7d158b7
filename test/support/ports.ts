import { readFileSync } from 'node:fs';
import net from 'node:net';

/** A loopback port that was free a moment ago. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
  });
}

/**
 * `count` loopback ports, all free at once and outside the system's ephemeral
 * range (/proc/sys/net/ipv4/ip_local_port_range): a port picked by listen(0)
 * and released can be handed to the next outgoing connection or listen(0)
 * before the server meant for it binds, which made one of 43 lis-push-in
 * servers fail now and then when a whole Node-RED of examples started.
 */
export async function freeListeningPorts(count: number): Promise<number[]> {
  const [low] = ephemeralRange();
  const ceiling = Math.min(low, 65_536) - 1;
  const floor = 10_000;
  const held: net.Server[] = [];
  const ports: number[] = [];
  let candidate = floor + Math.floor(Math.random() * Math.max(1, ceiling - floor - count * 4));
  try {
    while (ports.length < count && candidate <= ceiling) {
      const server = await listenOn(candidate);
      if (server) {
        held.push(server);
        ports.push(candidate);
      }
      candidate++;
    }
  } finally {
    await Promise.all(held.map((s) => new Promise((r) => s.close(r))));
  }
  if (ports.length < count) throw new Error(`only ${ports.length} of ${count} loopback ports below ${ceiling + 1} were free`);
  return ports;
}

function ephemeralRange(): [number, number] {
  try {
    const [a, b] = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/).map(Number);
    if (Number.isInteger(a) && Number.isInteger(b)) return [a!, b!];
  } catch {
    // Not Linux: the IANA dynamic range.
  }
  return [49_152, 65_535];
}

function listenOn(port: number): Promise<net.Server | undefined> {
  return new Promise((resolve) => {
    const s = net.createServer();
    s.once('error', () => resolve(undefined));
    s.listen(port, '127.0.0.1', () => resolve(s));
  });
}
