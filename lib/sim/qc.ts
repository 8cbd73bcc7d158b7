/**
 * The simulator's control materials: what an analyzer measures when it runs
 * QC. Each level of a control is its own material (an ID, a lot, an expiry),
 * and each test on it has a target mean and SD. A run is one value per level
 * and test, drawn from a normal distribution that is a pure function of
 * (seed, control, test, level, run), so a run can be replayed exactly and
 * tests can predict every value.
 *
 * Faults to rehearse the rules with: a bias (a shift, in SD units, from a
 * given run on), a drift (SD units added per run from that run on) and an
 * imprecision (a factor on the SD). Each value's z-score is taken against
 * the target the analyzer believes in, not the faulty one, as a QC program
 * would see it.
 */
import { findAnalyte, unitInterval, type Analyte } from './analytes';
import { SimulatorError } from './common';

export interface QcFaults {
  /** A shift of the mean in SD units, from run `from` on; default 0. */
  bias?: number;
  /** SD units added per run, from run `from` on (the first shifted run moves by one step); default 0. */
  drift?: number;
  /** The first run (1-based) the bias and the drift act on; default 1. */
  from?: number;
  /** A factor on the SD: 2 draws twice as wide as the target says; default 1. */
  imprecision?: number;
}

export interface QcOptions extends QcFaults {
  /** The control's name, as the analyzer files it (`QUAL2`, `Liquichek`). */
  control: string;
  /** Levels per run: 2 or 3; default 2. */
  levels?: number;
  /** Tests the control is run for; default the simulator's tests. */
  tests?: readonly string[];
  /** The lot of every level; default `LOT` and the control's name. */
  lot?: string;
  /** YYYYMMDD; default 20301231. */
  expiry?: string;
  /** When a control run goes out by itself: after every n samples, or every ms; without it only sendControlRun() sends one. */
  every?: { samples: number } | { ms: number };
}

/** One level of a control: a material of its own, with the control's name. */
export interface ControlMaterial {
  /** The material's ID (`QUAL2-L1`): what analyzers without control fields send in the sample's place. */
  id: string;
  /** The control's name, shared by its levels. */
  name: string;
  /** `L1`, `L2`, `L3`. */
  level: string;
  lot: string;
  /** YYYYMMDD. */
  expiry: string;
}

export interface ControlTarget {
  mean: number;
  sd: number;
  units?: string;
  /** Digits after the decimal point the value is reported with. */
  decimals: number;
}

export interface ControlValue {
  test: string;
  material: ControlMaterial;
  /** As reported, with a decimal point. */
  value: string;
  mean: number;
  sd: number;
  units?: string;
  /** (value - mean) / sd for the reported value, against the model's target. */
  z: number;
}

export interface ControlRun {
  /** 1-based. */
  run: number;
  control: string;
  /** Level by level, test by test within a level. */
  values: ControlValue[];
}

/** Analytes' usual coefficient of variation on control material (a few percent). */
const CV = 0.03;

/**
 * Level targets for an analyte: level 1 in the reference interval, the top
 * level well above it, where commercial controls put their pathological
 * levels; with three, the middle one just above the interval.
 */
function targetOf(analyte: Analyte | undefined, level: number, levels: number): ControlTarget {
  const low = analyte?.low ?? 10;
  const high = analyte?.high ?? 50;
  const span = high - low;
  const at = levels === 2 ? [0.5, 1.8][level - 1]! : [0.5, 1.2, 2.2][level - 1]!;
  const mean = low + span * at;
  const sd = mean * CV;
  // At least ten reporting steps per SD: rounding to the analyte's usual digits would hide a 1 SD shift.
  const decimals = Math.max(analyte?.decimals ?? 2, Math.ceil(-Math.log10(sd / 10)));
  const out: ControlTarget = { mean: round(mean, decimals), sd: round(sd, decimals + 1), decimals };
  if (analyte !== undefined) out.units = analyte.units;
  return out;
}

function round(v: number, decimals: number): number {
  return Number(v.toFixed(decimals));
}

export function qcProblems(o: QcOptions): string[] {
  const out: string[] = [];
  if (typeof o.control !== 'string' || o.control.trim() === '' || /[\x00-\x1f\x7f|\\^&~]/.test(o.control)) out.push(`qc.control must be a name without delimiters or control characters, got ${JSON.stringify(o.control)}`);
  if (o.levels !== undefined && o.levels !== 2 && o.levels !== 3) out.push(`qc.levels must be 2 or 3, got ${String(o.levels)}`);
  if (o.tests !== undefined && o.tests.length === 0) out.push('qc.tests must name at least one test');
  for (const k of ['bias', 'drift'] as const) if (o[k] !== undefined && !Number.isFinite(o[k])) out.push(`qc.${k} must be a number of SD, got ${String(o[k])}`);
  if (o.from !== undefined && (!Number.isInteger(o.from) || o.from < 1)) out.push(`qc.from must be a run number >= 1, got ${String(o.from)}`);
  if (o.imprecision !== undefined && (!Number.isFinite(o.imprecision) || o.imprecision <= 0)) out.push(`qc.imprecision must be a factor > 0, got ${String(o.imprecision)}`);
  if (o.expiry !== undefined && !/^\d{8}$/.test(o.expiry)) out.push(`qc.expiry must be YYYYMMDD, got ${JSON.stringify(o.expiry)}`);
  const every = o.every;
  if (every !== undefined) {
    if ('samples' in every && (!Number.isInteger(every.samples) || every.samples < 1)) out.push(`qc.every.samples must be a whole number >= 1, got ${String(every.samples)}`);
    if ('ms' in every && (!Number.isFinite(every.ms) || every.ms < 1)) out.push(`qc.every.ms must be a number of ms >= 1, got ${String(every.ms)}`);
  }
  return out;
}

/** A standard normal draw from two seeded uniforms (Box-Muller): the same inputs, the same number. */
function normal(...parts: (string | number)[]): number {
  // 1 - u keeps the logarithm's argument in (0, 1].
  const u1 = 1 - unitInterval(...parts, 'u1');
  const u2 = unitInterval(...parts, 'u2');
  return Math.sqrt(-2 * Math.log(u1)) * Math.cos(2 * Math.PI * u2);
}

export class ControlModel {
  readonly control: string;
  readonly materials: readonly ControlMaterial[];
  readonly tests: readonly string[];
  readonly faults: Required<QcFaults>;
  private readonly seed: string;
  private runs = 0;

  constructor(options: QcOptions, seed: string, defaultTests: readonly string[]) {
    const problems = qcProblems(options);
    if (problems.length > 0) throw new SimulatorError(problems.join('; '));
    this.control = options.control.trim();
    this.seed = seed;
    this.tests = [...(options.tests ?? defaultTests)];
    const levels = options.levels ?? 2;
    const lot = options.lot ?? `LOT${this.control}`;
    const expiry = options.expiry ?? '20301231';
    this.materials = Array.from({ length: levels }, (_, i) => ({ id: `${this.control}-L${i + 1}`, name: this.control, level: `L${i + 1}`, lot, expiry }));
    this.faults = { bias: options.bias ?? 0, drift: options.drift ?? 0, from: options.from ?? 1, imprecision: options.imprecision ?? 1 };
  }

  /** The target mean and SD of a test on a level, as the analyzer's QC program holds them. */
  target(test: string, level: string): ControlTarget {
    const n = this.materials.findIndex((m) => m.level === level);
    if (n < 0) throw new SimulatorError(`control ${this.control} has no level ${level}`);
    return targetOf(findAnalyte(test), n + 1, this.materials.length);
  }

  /** The shift of run k's mean, in SD units: the bias, plus the drift's steps so far, from run `from` on. */
  shiftAt(run: number): number {
    const { bias, drift, from } = this.faults;
    return run < from ? 0 : bias + drift * (run - from + 1);
  }

  /** Run k (1-based): the same k gives the same values, whichever order runs are asked for. */
  runAt(run: number): ControlRun {
    if (!Number.isInteger(run) || run < 1) throw new SimulatorError(`a run number is a whole number >= 1, got ${String(run)}`);
    const shift = this.shiftAt(run);
    const values: ControlValue[] = [];
    for (const material of this.materials) {
      for (const test of this.tests) {
        const t = this.target(test, material.level);
        const drawn = t.mean + t.sd * (shift + this.faults.imprecision * normal(this.seed, 'qc', this.control, test, material.level, run));
        // A concentration is never negative, however wide the imprecision.
        const value = Math.max(0, drawn).toFixed(t.decimals);
        const v: ControlValue = { test, material, value, mean: t.mean, sd: t.sd, z: (Number(value) - t.mean) / t.sd };
        if (t.units !== undefined) v.units = t.units;
        values.push(v);
      }
    }
    return { run, control: this.control, values };
  }

  /** The next run in sequence. */
  next(): ControlRun {
    return this.runAt(++this.runs);
  }

  get runsDone(): number {
    return this.runs;
  }
}

/** A control run as a simulator sent it: the values, and each message's text in the order sent. */
export interface SentControlRun extends ControlRun {
  texts: string[];
}
