/**
 * Reads a V8 .cpuprofile (node --cpu-prof) and says where the time went:
 * self time per function and per area (this package, each dependency, Node
 * itself, garbage collection, idle).
 */
import { readFileSync } from 'node:fs';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
}

interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

/** A stretch of the process's life, in microseconds of the monotonic clock V8 and process.hrtime share. */
export interface ProfileWindow {
  label: string;
  fromUs: number;
  toUs: number;
  /** When set, only these stretches between fromUs and toUs count (a measurement taken in rounds, between others). */
  spans?: Array<{ fromUs: number; toUs: number }>;
}

/** Now, in the profile's clock. */
export function nowUs(): number {
  return Number(process.hrtime.bigint() / 1000n);
}

export interface ProfileSummary {
  file: string;
  window: string;
  totalMs: number;
  busyMs: number;
  areas: Array<{ area: string; ms: number; pctOfBusy: number }>;
  functions: Array<{ fn: string; where: string; ms: number; pctOfBusy: number }>;
}

function areaOf(url: string, fn: string): string {
  if (url === '') return fn === '(idle)' ? 'idle' : fn === '(garbage collector)' ? 'GC' : fn === '(program)' ? 'V8/program' : 'native';
  if (url.startsWith('node:')) return 'node core';
  const nm = url.lastIndexOf('/node_modules/');
  if (nm >= 0) {
    const rest = url.slice(nm + '/node_modules/'.length).split('/');
    return rest[0]!.startsWith('@') ? `${rest[0]}/${rest[1]}` : rest[0]!;
  }
  const dist = /\/dist\/(lib\/protocols\/[^/]+|lib\/[^/]+|nodes)\//.exec(url);
  if (dist) return `this package: ${dist[1]}`;
  return 'other';
}

function shortPath(url: string): string {
  const nm = url.lastIndexOf('/node_modules/');
  if (nm >= 0) return url.slice(nm + '/node_modules/'.length);
  const dist = url.indexOf('/dist/');
  if (dist >= 0) return url.slice(dist + 1);
  return url.replace(/^file:\/\//, '');
}

export function summarizeProfile(file: string, window?: ProfileWindow, top = 15): ProfileSummary {
  const p = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
  // Sample i was taken at startTime + deltas[0..i] and stands for the time until the next one.
  const at: number[] = [];
  let t = p.startTime;
  for (const d of p.timeDeltas) at.push((t += d));
  const from = window?.fromUs ?? p.startTime;
  const to = window?.toUs ?? p.endTime;
  const byNode = new Map<number, number>();
  let totalMs = 0;
  for (let i = 0; i < p.samples.length; i++) {
    const start = at[i]!;
    const end = i + 1 < at.length ? at[i + 1]! : p.endTime;
    if (start < from || start >= to) continue;
    if (window?.spans && !window.spans.some((s) => start >= s.fromUs && start < s.toUs)) continue;
    const ms = (end - start) / 1000;
    totalMs += ms;
    byNode.set(p.samples[i]!, (byNode.get(p.samples[i]!) ?? 0) + ms);
  }
  const areas = new Map<string, number>();
  const fns = new Map<string, { fn: string; where: string; ms: number }>();
  for (const node of p.nodes) {
    const ms = byNode.get(node.id) ?? 0;
    if (ms === 0) continue;
    const { functionName, url, lineNumber } = node.callFrame;
    const area = areaOf(url, functionName);
    areas.set(area, (areas.get(area) ?? 0) + ms);
    if (area === 'idle') continue;
    const where = url ? `${shortPath(url)}:${lineNumber + 1}` : '';
    const key = `${functionName}@${where}`;
    const entry = fns.get(key) ?? { fn: functionName || '(anonymous)', where, ms: 0 };
    entry.ms += ms;
    fns.set(key, entry);
  }
  const busyMs = totalMs - (areas.get('idle') ?? 0);
  const pct = (ms: number) => (busyMs > 0 ? (ms / busyMs) * 100 : 0);
  return {
    file,
    window: window?.label ?? 'whole run',
    totalMs,
    busyMs,
    areas: [...areas].filter(([a]) => a !== 'idle').map(([area, ms]) => ({ area, ms, pctOfBusy: pct(ms) })).sort((a, b) => b.ms - a.ms),
    functions: [...fns.values()].sort((a, b) => b.ms - a.ms).slice(0, top).map((f) => ({ ...f, pctOfBusy: pct(f.ms) })),
  };
}

export function formatProfile(s: ProfileSummary): string {
  const lines = [`profile of Node-RED in ${s.window} (${s.file})`, `  busy ${(s.busyMs / 1000).toFixed(2)} s of ${(s.totalMs / 1000).toFixed(2)} s`, '  self time by area:'];
  for (const a of s.areas.slice(0, 12)) lines.push(`    ${a.pctOfBusy.toFixed(1).padStart(5)}%  ${a.area}`);
  lines.push('  self time by function:');
  for (const f of s.functions) lines.push(`    ${f.pctOfBusy.toFixed(1).padStart(5)}%  ${f.fn}  ${f.where}`);
  return lines.join('\n');
}
