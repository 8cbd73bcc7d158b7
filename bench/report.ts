/**
 * What a bench run produced: figures (one row of the table each), the goals
 * they are held to, and the raw details kept in results.json. Which figures
 * quick mode judges, and against what, is bench/limits.ts.
 */
import { fmt } from './stats';

export interface Goal {
  /** e.g. "> 0.95" */
  text: string;
  met: boolean;
}

export interface Figure {
  /** Stable identifier, the key in results.json and bench/limits.ts. */
  key: string;
  /** Section number and name, e.g. "2 link layer". */
  section: string;
  label: string;
  /** null: the figure could not be measured (see note). */
  value: number | null;
  unit: string;
  goal?: Goal;
  note?: string;
}

export class Report {
  readonly figures: Figure[] = [];
  readonly details: Record<string, unknown> = {};
  /** Lines printed under the table (what a label's asterisk means); each once. */
  readonly footnotes: string[] = [];

  add(figure: Figure): Figure {
    this.figures.push(figure);
    return figure;
  }

  notAvailable(section: string, key: string, label: string, reason: string): void {
    this.add({ key, section, label, value: null, unit: '', note: `not available: ${reason}` });
  }

  footnote(text: string): void {
    if (!this.footnotes.includes(text)) this.footnotes.push(text);
  }

  detail(key: string, value: unknown): void {
    this.details[key] = value;
  }

  get(key: string): Figure | undefined {
    return this.figures.find((f) => f.key === key);
  }

  /** The one table `npm run bench` prints. */
  table(): string {
    const rows: string[][] = [['#', 'figure', 'value', 'goal']];
    let previous = '';
    for (const f of this.figures) {
      const section = f.section === previous ? '' : f.section;
      previous = f.section;
      const value = f.value === null ? (f.note ?? 'not available') : `${fmt(f.value)}${f.unit ? ` ${f.unit}` : ''}`;
      const goal = f.goal ? `${f.goal.text}: ${f.goal.met ? 'met' : 'MISSED'}` : '';
      rows.push([section, f.label, value, goal]);
    }
    const widths = rows[0]!.map((_, c) => Math.max(...rows.map((r) => r[c]!.length)));
    const line = (r: string[]) => r.map((cell, c) => (c === 2 && rows.indexOf(r) > 0 && /^[-\d]/.test(cell) ? cell.padStart(widths[c]!) : cell.padEnd(widths[c]!))).join(' | ').trimEnd();
    const rule = widths.map((w) => '-'.repeat(w)).join('-+-');
    return [line(rows[0]!), rule, ...rows.slice(1).map(line), ...(this.footnotes.length > 0 ? ['', ...this.footnotes] : [])].join('\n');
  }
}
