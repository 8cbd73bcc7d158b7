/**
 * Which control a QC result is of: its material and lot, from the message
 * where the analyzer sends them (the Mindray CL's control fields), else from
 * the analyzer's control table. A result neither names is never judged against
 * a guess: it is held for a person as an unidentified control.
 */
import type { InstrumentResult } from '../lab/types';
import type { ControlRow } from './setup';
import type { Target } from './types';

export interface Identified {
  material: string;
  lot: string;
  /** What the analyzer sent for the control: what a table row names. */
  code: string;
  /** YYYY-MM-DD, when the message or the table says. */
  expiry?: string;
  /** The lot's expiry lies before the result's day. */
  expired: boolean;
  /** The mean and SD the analyzer sent with the result, when it did. */
  target?: Target;
}

export type Identification = { identified: Identified } | { unidentified: string; code: string };

/** What the analyzer sent for the control: its ID, else its name, else what stands in the sample's place. */
export function controlCode(r: InstrumentResult): string {
  return (r.control?.id ?? '').trim() || (r.control?.name ?? '').trim() || r.SampleNumber.trim();
}

/** The row for a code and test: one for that test first, else one for every test. */
export function controlRow(rows: readonly ControlRow[], code: string, test: string): ControlRow | undefined {
  return rows.find((r) => r.code === code && r.test === test) ?? rows.find((r) => r.code === code && (r.test ?? '') === '');
}

export function identifyControl(r: InstrumentResult, rows: readonly ControlRow[], analyzer: string): Identification {
  const code = controlCode(r);
  const day = (r.completedAt ?? '').slice(0, 10);
  const sent = r.control;
  const row = controlRow(rows, code, r.instrumentCode);
  const material = (sent?.level ?? '').trim() || row?.material;
  const lot = (sent?.lot ?? '').trim() || row?.lot;
  if (!material || !lot) {
    const missing = [!material ? 'material (level)' : '', !lot ? 'lot' : ''].filter((x) => x !== '').join(' and ');
    return {
      code,
      unidentified: `control ${JSON.stringify(code)} of ${r.instrumentCode}: the message names no ${missing} and the control table of ${analyzer} has no row for it; add it (control ${JSON.stringify(code)}, its material and lot) in the lis-qc node, deploy, then Evaluate`,
    };
  }
  const expiry = isoDate(sent?.expiry) ?? row?.expiry;
  const out: Identified = { material, lot, code, expired: expiry !== undefined && day !== '' && expiry < day };
  if (expiry !== undefined) out.expiry = expiry;
  const mean = Number(sent?.mean);
  const sd = Number(sent?.sd);
  if (sent?.mean !== undefined && sent.sd !== undefined && Number.isFinite(mean) && Number.isFinite(sd) && sd > 0) out.target = { mean, sd };
  return { identified: out };
}

/** YYYYMMDD or YYYY-MM-DD as YYYY-MM-DD; anything else undefined. */
function isoDate(text: string | undefined): string | undefined {
  const m = /^(\d{4})-?(\d{2})-?(\d{2})/.exec((text ?? '').trim());
  return m ? `${m[1]}-${m[2]}-${m[3]}` : undefined;
}

/** A QC result's value as a number, or why it cannot be judged (a qualitative control). */
export function controlValue(r: InstrumentResult): number | string {
  const text = r.Result.trim().replace(',', '.');
  const v = /^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(text) ? Number(text) : NaN;
  return Number.isFinite(v) ? v : `value ${JSON.stringify(r.Result.slice(0, 40))} of control ${controlCode(r)} ${r.instrumentCode} is not a number: the rules judge numbers only`;
}
