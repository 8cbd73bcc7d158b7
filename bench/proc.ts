/**
 * CPU time and resident memory of another process, read from /proc the way
 * pidusage does: utime + stime of /proc/<pid>/stat in clock ticks, VmRSS of
 * /proc/<pid>/status in kB.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

let ticksPerSecond: number | undefined;

function clockTicks(): number {
  if (ticksPerSecond === undefined) {
    try {
      ticksPerSecond = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
    } catch {
      ticksPerSecond = 100;
    }
  }
  return ticksPerSecond;
}

/** User + system CPU seconds the process has used so far. */
export function cpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // The command name (field 2) is in parentheses and may hold spaces: count fields after its ')'.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // fields[0] is field 3 (state); utime is field 14, stime field 15.
  const utime = Number(fields[11]);
  const stime = Number(fields[12]);
  return (utime + stime) / clockTicks();
}

/** Resident set size in MiB. */
export function rssMiB(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const m = /^VmRSS:\s+(\d+)\s+kB/m.exec(status);
  return m ? Number(m[1]) / 1024 : Number.NaN;
}

/** Samples a process's RSS every `everyMs` until stopped; keeps the largest. */
export class RssSampler {
  private timer: NodeJS.Timeout | undefined;
  max = 0;
  last = 0;

  constructor(
    private readonly pid: number,
    everyMs = 100,
  ) {
    this.sample();
    this.timer = setInterval(() => this.sample(), everyMs);
  }

  private sample(): void {
    try {
      this.last = rssMiB(this.pid);
      if (this.last > this.max) this.max = this.last;
    } catch {
      // the process is gone
    }
  }

  stop(): void {
    this.sample();
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }
}

/**
 * Time the process's main thread (the event loop) has spent runnable but
 * waiting for a CPU, in ms: the second field of /proc/<pid>/schedstat. A
 * busy 2-core machine shows up here, not in the process's own CPU time.
 */
export function runQueueWaitMs(pid: number): number {
  try {
    const fields = readFileSync(`/proc/${pid}/schedstat`, 'utf8').trim().split(/\s+/);
    return Number(fields[1]) / 1e6;
  } catch {
    return Number.NaN;
  }
}

/** CPU and scheduling of a process over a stretch of time. */
export class ProcessWindow {
  private readonly cpu0: number;
  private readonly wait0: number;
  private readonly t0 = performance.now();

  constructor(private readonly pid: number) {
    this.cpu0 = cpuSeconds(pid);
    this.wait0 = runQueueWaitMs(pid);
  }

  end(): { seconds: number; cpuSeconds: number; cpuPercentOfOneCore: number; runQueueWaitMs: number } {
    const seconds = (performance.now() - this.t0) / 1000;
    const cpu = cpuSeconds(this.pid) - this.cpu0;
    return { seconds, cpuSeconds: cpu, cpuPercentOfOneCore: (cpu / seconds) * 100, runQueueWaitMs: runQueueWaitMs(this.pid) - this.wait0 };
  }
}

/** Load average over the last minute (other engineers' tests share this machine). */
export function machineLoad(): { loadAverage1m: number } {
  try {
    return { loadAverage1m: Number(readFileSync('/proc/loadavg', 'utf8').split(' ')[0]) };
  } catch {
    return { loadAverage1m: Number.NaN };
  }
}

/** The file system a path is on, as `df -T` names it (e.g. "ext4 on /dev/vda"): fsync costs depend on it. */
export function filesystemOf(path: string): { type: string; device: string; mountedOn: string } {
  try {
    const lines = execFileSync('df', ['-PT', path], { encoding: 'utf8' }).trim().split('\n');
    const f = lines[lines.length - 1]!.split(/\s+/);
    return { device: f[0] ?? 'unknown', type: f[1] ?? 'unknown', mountedOn: f[f.length - 1] ?? 'unknown' };
  } catch {
    return { device: 'unknown', type: 'unknown', mountedOn: 'unknown' };
  }
}
