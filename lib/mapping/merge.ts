/**
 * Folding the per-node tables of an older flow (one test-mapper for queries, one for
 * results, one for pushed orders, each with its own copy) into one test map whose
 * rows say which way they work. For each LIS test and each way, the tables that
 * work that way either agree on the rows for it (merged, and the merged rows keep
 * their ways) or differ: then each version is shown, with the tables that hold it,
 * for the integrator to choose. Nothing is dropped without being shown.
 */
import type { MappingRow, RowUse } from './model';

export interface MapperTable {
  /** The test-mapper's id and what the integrator knows it by. */
  node: string;
  name: string;
  direction: 'toInstrument' | 'toLis' | 'auto';
  rows: readonly MappingRow[];
}

export interface MergeOption {
  /** The tables (test-mapper ids) holding this version. */
  nodes: string[];
  /** The version's rows for the test, that way; none: the test is not mapped there. */
  rows: MappingRow[];
}

export interface MergeDifference {
  id: string;
  way: RowUse;
  lisTestId: string;
  lisName: string;
  options: MergeOption[];
}

export interface MergePlan {
  /** The merged rows, for the tests where the tables agree (differences not yet chosen are left out). */
  rows: MappingRow[];
  differences: MergeDifference[];
  /** What applyMerge needs besides the choices. */
  settled: Record<RowUse, Map<string, string[]>>;
  rowsByKey: Map<string, MappingRow>;
  order: string[];
  /** Per LIS test, the first row any table has for it (mapped or not): its catalog fields. */
  firstRow: Map<string, MappingRow>;
  unconstrained: RowUse[];
}

const WAYS: RowUse[] = ['orders', 'results'];

function covers(direction: MapperTable['direction'], way: RowUse): boolean {
  return direction === 'auto' || (way === 'orders' ? direction === 'toInstrument' : direction === 'toLis');
}

/** What makes two rows the same pairing: the LIS test, the instrument's code and sub-code, the LIS sub-code, the value map. */
function rowKey(r: MappingRow): string {
  const values = r.values ? JSON.stringify([...r.values].sort((a, b) => (a.text < b.text ? -1 : a.text > b.text ? 1 : 0))) : '';
  return JSON.stringify([r.lisTestId, r.instrumentCode, r.instrumentSubCode ?? '', r.lisSubCode ?? '', values]);
}

/** The same pairing in two tables, with each table's note kept (joined), so no note is lost unseen. */
function withNote(kept: MappingRow | undefined, row: MappingRow): MappingRow {
  if (!kept) return row;
  if (row.note === undefined || kept.note === row.note) return kept;
  const notes = kept.note === undefined ? [row.note] : [...new Set([...kept.note.split(' / '), row.note])];
  return { ...kept, note: notes.join(' / ') };
}

export function planMerge(tables: readonly MapperTable[]): MergePlan {
  const rowsByKey = new Map<string, MappingRow>();
  const order: string[] = [];
  const firstRow = new Map<string, MappingRow>();
  for (const t of tables) {
    for (const r of t.rows) {
      if (!firstRow.has(r.lisTestId)) {
        firstRow.set(r.lisTestId, r);
        order.push(r.lisTestId);
      }
      if (r.instrumentCode !== '') rowsByKey.set(rowKey(r), withNote(rowsByKey.get(rowKey(r)), r));
    }
  }
  const settled: MergePlan['settled'] = { orders: new Map(), results: new Map() };
  const differences: MergeDifference[] = [];
  const unconstrained = WAYS.filter((way) => !tables.some((t) => covers(t.direction, way)));
  for (const way of WAYS) {
    const ofWay = tables.filter((t) => covers(t.direction, way));
    if (ofWay.length === 0) continue;
    for (const id of order) {
      const versions = new Map<string, MergeOption>();
      for (const t of ofWay) {
        const rows = t.rows.filter((r) => r.lisTestId === id && r.instrumentCode !== '' && (r.use === undefined || r.use === way));
        const keys = [...new Set(rows.map(rowKey))].sort();
        const v = JSON.stringify(keys);
        const option = versions.get(v) ?? { nodes: [], rows: keys.map((k) => rowsByKey.get(k)!) };
        option.nodes.push(t.node);
        versions.set(v, option);
      }
      const options = [...versions.values()];
      if (options.length === 1) settled[way].set(id, options[0]!.rows.map(rowKey));
      else differences.push({ id: `${way}:${id}`, way, lisTestId: id, lisName: firstRow.get(id)?.lisName ?? '', options });
    }
  }
  const plan: MergePlan = { rows: [], differences, settled, rowsByKey, order, firstRow, unconstrained };
  plan.rows = assemble(plan, settled);
  return plan;
}

/** The one map: the settled rows with each difference decided by its chosen option (an index into its options). */
export function applyMerge(plan: MergePlan, choices: Readonly<Record<string, number>>): MappingRow[] {
  const chosen: MergePlan['settled'] = { orders: new Map(plan.settled.orders), results: new Map(plan.settled.results) };
  const missing: string[] = [];
  for (const d of plan.differences) {
    const option = d.options[choices[d.id] ?? -1];
    if (!option) missing.push(`${d.lisTestId} (${d.way})`);
    else chosen[d.way].set(d.lisTestId, option.rows.map(rowKey));
  }
  if (missing.length > 0) throw new Error(`choose a version for ${missing.join(', ')}: the tables differ there`);
  return assemble(plan, chosen);
}

function assemble(plan: MergePlan, chosen: MergePlan['settled']): MappingRow[] {
  const undecided = new Set(plan.differences.map((d) => `${d.way}:${d.lisTestId}`));
  const out: MappingRow[] = [];
  for (const id of plan.order) {
    const keys: string[] = [];
    for (const way of WAYS) for (const k of chosen[way].get(id) ?? []) if (!keys.includes(k)) keys.push(k);
    for (const k of keys) {
      const row: MappingRow = { ...plan.rowsByKey.get(k)! };
      delete row.use;
      const ways = WAYS.filter((w) => plan.unconstrained.includes(w) || (chosen[w].get(id) ?? []).includes(k));
      const merged: MappingRow = ways.length === 1 ? { ...row, use: ways[0]! } : row;
      out.push(merged);
    }
    // A catalog row no table maps is kept unmapped, so the test stays in the map to be filled in.
    if (keys.length === 0 && !WAYS.some((w) => undecided.has(`${w}:${id}`))) {
      const first = plan.firstRow.get(id)!;
      const row: MappingRow = { lisTestId: first.lisTestId, lisCode: first.lisCode, lisName: first.lisName, instrumentCode: '' };
      if (first.lisType !== undefined) row.lisType = first.lisType;
      if (first.stale) row.stale = true;
      out.push(row);
    }
  }
  return out;
}
