/**
 * Which link keeps a serial device that more than one link reads.
 *
 * Node-RED's serial nodes (node-red-node-serialport) open one port per device
 * path and hand every byte read to each serial in node on that path: two links
 * fed from one device both answer the analyzer (doubled ACKs, two order
 * downloads) and both pass its results on (each result twice to the LIS).
 * Exactly one link may keep such a device; every other one refuses the line.
 *
 * The rule, deterministic and said in the refusal: the link already reading the
 * device keeps it (a running link is never cut off by a copy deployed later);
 * among links that began reading it at the same start or deploy, the one first
 * in the flows (tab order, then order on the tab); then the lowest node id.
 */

export interface PortKeeper {
  link: string;
  name: string;
}

/** A device this link reads and another link keeps. */
export interface PortClash {
  device: string;
  keeper: PortKeeper;
}

interface Claim {
  name: string;
  /** The start (generation) at which this link began reading the device. */
  since: number;
  /** The link's place in the flows. */
  order: number;
}

export class PortClaims {
  private generation = 0;
  /** By link, by device. */
  private readonly claims = new Map<string, Map<string, Claim>>();
  private readonly listeners = new Set<() => void>();

  /** The flows (re)started: a device claimed from now on is claimed later than every claim standing. */
  nextGeneration(): void {
    this.generation++;
  }

  /** The devices a link reads now (replacing what it read before); a device it kept reading keeps its age. */
  claim(link: string, name: string, order: number, devices: Iterable<string>): void {
    const before = this.claims.get(link);
    const now = new Map<string, Claim>();
    for (const device of devices) now.set(device, { name, order, since: before?.get(device)?.since ?? this.generation });
    if (now.size === 0 && !before) return;
    if (now.size === 0) this.claims.delete(link);
    else this.claims.set(link, now);
    this.notify();
  }

  /** The link stopped (closed, redeployed, removed). */
  release(link: string): void {
    if (this.claims.delete(link)) this.notify();
  }

  /** The link that keeps a device, when some link reads it. */
  keeper(device: string): PortKeeper | undefined {
    let best: { link: string; claim: Claim } | undefined;
    for (const [link, devices] of this.claims) {
      const claim = devices.get(device);
      if (claim && (!best || before({ link, claim }, best))) best = { link, claim };
    }
    return best && { link: best.link, name: best.claim.name };
  }

  /** The first device (by path) this link reads and another link keeps; undefined when it may read all of its own. */
  clash(link: string): PortClash | undefined {
    const devices = [...(this.claims.get(link)?.keys() ?? [])].sort();
    for (const device of devices) {
      const keeper = this.keeper(device);
      if (keeper && keeper.link !== link) return { device, keeper };
    }
    return undefined;
  }

  /** Called after every change of the claims; returns the unsubscribe. */
  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private notify(): void {
    for (const listener of [...this.listeners]) listener();
  }
}

function before(a: { link: string; claim: Claim }, b: { link: string; claim: Claim }): boolean {
  if (a.claim.since !== b.claim.since) return a.claim.since < b.claim.since;
  if (a.claim.order !== b.claim.order) return a.claim.order < b.claim.order;
  return a.link < b.link;
}
