/**
 * Loopback ports for the tests that cannot collide across processes.
 *
 * Test files run several at once, and two suites may run side by side on one
 * machine (two clones, two TMPDIRs). A port picked by listen(0) and released
 * ("free a moment ago") can be picked again by another process before the
 * server meant for it binds. So each test process claims a block of ports of
 * its own, below the system's ephemeral range (which the kernel hands to
 * outgoing connections and listen(0)), and hands out only ports from it.
 *
 * The claim is a listening socket on the block's first port, kept for the
 * life of the process: binding is atomic and machine-wide, and the kernel
 * releases it when the process ends, however it ends, so there is no lock
 * file to go stale. Within its block a process hands ports out in turn and
 * skips one that something still listens on.
 */
import { readFileSync } from 'node:fs';
import net from 'node:net';

/** Ports per block, the claiming one included. */
export const BLOCK_SIZE = 200;
/** The lowest port a block starts at: above the well-known and common service ports. */
const FLOOR = 10_000;

interface Block {
  first: number;
  /** The claim, kept open (unref'd) until the process exits. */
  claim: net.Server;
  /** The offset (1 .. BLOCK_SIZE - 1) handed out next. */
  next: number;
}

let block: Promise<Block> | undefined;

/** A loopback port of this process's own block that nothing listens on now, not handed out by this process since its last turn. */
export async function freePort(): Promise<number> {
  const [port] = await freeListeningPorts(1);
  return port!;
}

/** `count` such ports, distinct. */
export async function freeListeningPorts(count: number): Promise<number[]> {
  if (count > BLOCK_SIZE - 1) throw new Error(`a test process has ${BLOCK_SIZE - 1} ports; ${count} were asked for at once`);
  const b = await ownBlock();
  const ports: number[] = [];
  for (let tried = 0; ports.length < count; tried++) {
    if (tried >= BLOCK_SIZE - 1) throw new Error(`only ${ports.length} of ${count} ports in this process's block ${b.first}-${b.first + BLOCK_SIZE - 1} are free`);
    const port = b.first + b.next;
    b.next = b.next === BLOCK_SIZE - 1 ? 1 : b.next + 1;
    if (await isFree(port)) ports.push(port);
  }
  return ports;
}

/** The first port of the block this process claimed (for diagnostics). */
export async function blockStart(): Promise<number> {
  return (await ownBlock()).first;
}

function ownBlock(): Promise<Block> {
  block ??= claimBlock().catch((err: unknown) => {
    block = undefined;
    throw err;
  });
  return block;
}

async function claimBlock(): Promise<Block> {
  const [ephemeralLow] = ephemeralRange();
  const blocks = Math.floor((Math.min(ephemeralLow, 65_536) - FLOOR) / BLOCK_SIZE);
  if (blocks < 1) throw new Error(`no room for a block of ${BLOCK_SIZE} test ports between ${FLOOR} and the ephemeral range (${ephemeralLow})`);
  // Start at a block picked by the process id, so processes started together try different blocks first.
  const start = process.pid % blocks;
  for (let i = 0; i < blocks; i++) {
    const first = FLOOR + ((start + i) % blocks) * BLOCK_SIZE;
    const claim = await listenOn(first);
    if (claim) {
      claim.unref();
      return { first, claim, next: 1 };
    }
  }
  throw new Error(`every one of the ${blocks} blocks of ${BLOCK_SIZE} test ports from ${FLOOR} is claimed by another process`);
}

async function isFree(port: number): Promise<boolean> {
  const server = await listenOn(port);
  if (!server) return false;
  await new Promise((resolve) => server.close(resolve));
  return true;
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
