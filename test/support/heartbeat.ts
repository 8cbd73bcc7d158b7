/**
 * How long the event loop was held at once while some work ran: a 5 ms
 * heartbeat, and between two beats the lesser of the time that passed and
 * the CPU time the process used. On a shared, loaded machine a process may
 * wait for a core for half a second with its event loop free; that is the
 * machine, not the code, and costs no CPU: only a gap that both lasted and
 * burned CPU is a loop held by the work. The bench (bench/file-stall.ts)
 * measures the plain gaps.
 */
export async function loopHeld<T>(work: () => Promise<T>): Promise<{ heldMs: number; value: T }> {
  const cpuMs = () => {
    const u = process.cpuUsage();
    return (u.user + u.system) / 1000;
  };
  let wall = performance.now();
  let cpu = cpuMs();
  let held = 0;
  const beat = () => {
    const w = performance.now();
    const c = cpuMs();
    held = Math.max(held, Math.min(w - wall, c - cpu));
    wall = w;
    cpu = c;
  };
  const timer = setInterval(beat, 5);
  try {
    const value = await work();
    beat();
    return { heldMs: held, value };
  } finally {
    clearInterval(timer);
  }
}
