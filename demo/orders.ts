/**
 * Orders the demo LIS serves (spec 2.2, 2.3). A handful of seeded samples show
 * particular cases; every other sample number gets an order generated from a
 * hash of the number, so a barcode scanned twice (or by two people following
 * the same tutorial) always yields the same patient and tests.
 */
import { createHash } from 'node:crypto';
import { SAMPLE_TYPES, type LisTest, type Order, type Patient, type SampleType } from '../lib/lis/schemas';

/**
 * Deterministic draws from a seed. Each draw hashes the seed with a counter,
 * which needs no PRNG state beyond the counter and gives the same sequence on
 * every platform and Node version.
 */
export class SeededDraws {
  private counter = 0;

  constructor(private readonly seed: string) {}

  /** A number in [0, 1). */
  fraction(): number {
    const digest = createHash('sha256').update(`${this.seed}#${this.counter++}`).digest();
    return digest.readUInt32BE(0) / 2 ** 32;
  }

  /** An integer in [0, n). */
  below(n: number): number {
    return Math.floor(this.fraction() * n);
  }

  pick<T>(items: readonly T[]): T {
    const item = items[this.below(items.length)];
    if (item === undefined) throw new Error('cannot pick from an empty list');
    return item;
  }

  /** Up to `count` distinct items. */
  several<T>(items: readonly T[], count: number): T[] {
    const pool = [...items];
    const out: T[] = [];
    while (out.length < count && pool.length > 0) out.push(pool.splice(this.below(pool.length), 1)[0]!);
    return out;
  }
}

/**
 * A patient as stored (spec 2.3 without Age and AgeUnit, which depend on the
 * day the order is served). Written out rather than derived from Patient:
 * Omit over a loose object's index signature would lose the named fields.
 */
export interface StoredPatient {
  ID: string;
  Name: string;
  Sex: 'M' | 'F' | 'U';
  DateOfBirth?: string;
}

/** A seeded order: everything but TransactionDate (always "now") and the patient's age. */
export interface SeedOrder {
  SampleNumber: string;
  Priority: 'S' | 'R';
  SampleType: SampleType;
  Tests: string[];
  patient: StoredPatient;
}

/** Samples every demo knows, each showing a case worth rehearsing. */
export const DEMO_SEEDS: readonly SeedOrder[] = [
  {
    // Routine chemistry panel.
    SampleNumber: 'S1001',
    Priority: 'R',
    SampleType: 'Serum',
    Tests: ['T-GLU', 'T-CREA', 'T-UREA', 'T-NA', 'T-K'],
    patient: { ID: 'P-100001', Name: 'Maria Rossi', Sex: 'F', DateOfBirth: '19680412' },
  },
  {
    // Stat haematology: one panel test whose results come back as sub-tests.
    SampleNumber: 'S1002',
    Priority: 'S',
    SampleType: 'EDTA',
    Tests: ['T-CBC'],
    patient: { ID: 'P-100002', Name: 'Tomasz Kowalski', Sex: 'M', DateOfBirth: '19551130' },
  },
  {
    // Unidentified emergency patient: Sex U and no birth date (both allowed by spec 2.3).
    SampleNumber: 'S1003',
    Priority: 'S',
    SampleType: 'Plasma',
    Tests: ['T-PT', 'T-INR', 'T-APTT'],
    patient: { ID: 'P-100003', Name: 'Unknown Patient', Sex: 'U' },
  },
  {
    // A child's urine sample.
    SampleNumber: 'S1004',
    Priority: 'R',
    SampleType: 'Urine',
    Tests: ['T-UALB', 'T-UCREA'],
    patient: { ID: 'P-100004', Name: 'Leila Haddad', Sex: 'F', DateOfBirth: '20180607' },
  },
  {
    // A name with an apostrophe and a non-ASCII letter, for displays and ASTM encoders.
    SampleNumber: 'S1005',
    Priority: 'R',
    SampleType: 'Serum',
    Tests: ['T-TSH', 'T-FT4'],
    patient: { ID: 'P-100005', Name: "Siobhán O'Neill", Sex: 'F', DateOfBirth: '19910302' },
  },
];

const FEMALE = ['Amelia', 'Sofia', 'Hanna', 'Olivia', 'Chloe', 'Ingrid', 'Priya', 'Yuki', 'Grace', 'Elena', 'Fatima', 'Nora', 'Aisha', 'Clara', 'Marta', 'Zoe'];
const MALE = ['Liam', 'Noah', 'Mateo', 'Lucas', 'Omar', 'Henrik', 'Arjun', 'Kenji', 'Daniel', 'Samuel', 'Hugo', 'Ethan', 'Youssef', 'Felix', 'Adrian', 'Tariq'];
const UNSPECIFIED = ['Alex', 'Sam', 'Robin', 'Charlie', 'Jordan', 'Kim'];
const FAMILY = [
  'Smith', 'Garcia', 'Novak', 'Okafor', 'Larsen', 'Bianchi', 'Nguyen', 'Fischer', 'Silva', 'Tanaka', 'Murphy', 'Patel',
  'Johansson', 'Dubois', 'Kaya', 'Moreau', 'Andersen', 'Costa', 'Weber', 'Yilmaz', 'Brown', 'Mensah', 'Horvat', 'Lindqvist',
];

/** Generated orders draw their patient from this many people, so some patients come back with a second sample. */
export const PATIENT_POOL = 997;

/** Birth dates are counted back from this fixed day, so a patient's birth date never changes. */
const BIRTH_REFERENCE_UTC = Date.UTC(2025, 0, 1);
const DAY_MS = 86400000;

/** The patient with this pool index: the same index gives the same person on every run. */
export function poolPatient(index: number): StoredPatient {
  const d = new SeededDraws(`patient:${index}`);
  const sexRoll = d.fraction();
  const Sex = sexRoll < 0.04 ? 'U' : sexRoll < 0.52 ? 'F' : 'M';
  const given = d.pick(Sex === 'F' ? FEMALE : Sex === 'M' ? MALE : UNSPECIFIED);
  const patient: StoredPatient = { ID: `P-${200000 + index}`, Name: `${given} ${d.pick(FAMILY)}`, Sex };
  // A few patients have no birth date on record (optional in spec 2.3).
  if (d.fraction() < 0.03) return patient;
  const band = d.fraction();
  const ageDays = band < 0.05 ? d.below(365) : band < 0.15 ? 365 + d.below(17 * 365) : 18 * 365 + d.below(77 * 365);
  patient.DateOfBirth = formatDay(new Date(BIRTH_REFERENCE_UTC - ageDays * DAY_MS), true);
  return patient;
}

/**
 * Tests only one sex can be ordered for, by catalog code. Catalogs without
 * these codes are unaffected.
 */
const ONLY_FOR_SEX: Readonly<Record<string, 'M' | 'F'>> = { PSA: 'M', HCG: 'F' };

function suits(test: LisTest, sex: string): boolean {
  const only = ONLY_FOR_SEX[test.Code];
  return only === undefined || sex === 'U' || only === sex;
}

/** The spec's sample type for a catalog test; a test without a known Type is drawn as "Other". */
export function sampleTypeOf(test: LisTest): SampleType {
  const type = test.Type;
  return (SAMPLE_TYPES as readonly string[]).includes(type ?? '') ? (type as SampleType) : 'Other';
}

/**
 * 2 to 5 tests sharing one sample type, as one tube on one analyzer would
 * carry. Picking a first test and taking its type weights the types by how
 * many tests they have, as in a real lab's workload.
 */
function drawTests(d: SeededDraws, orderable: readonly LisTest[], sex: string): { SampleType: SampleType; Tests: string[] } {
  const fitting = orderable.filter((t) => suits(t, sex));
  const pool = fitting.length > 0 ? fitting : orderable;
  const SampleType = sampleTypeOf(d.pick(pool));
  const sameTube = pool.filter((t) => sampleTypeOf(t) === SampleType);
  const chosen = new Set(d.several(sameTube, 2 + d.below(4)));
  // Catalog order reads better than draw order on screens and in logs.
  return { SampleType, Tests: sameTube.filter((t) => chosen.has(t)).map((t) => t.ID) };
}

export type OrderSource = 'seeded' | 'generated';
export type OrderLookup = { found: false } | { found: true; source: OrderSource; order: Order };

export interface OrderBookOptions {
  catalog: readonly LisTest[];
  /** Test IDs generated orders may use; every ID must be in the catalog. Default: the whole catalog. */
  orderableTests?: readonly string[] | undefined;
  /**
   * Test IDs for the samples whose number starts with a prefix (the longest
   * that fits), instead of orderableTests: npm start's HL7 analyzer numbers its
   * samples apart and gets only the tests its flow maps.
   */
  orderableByPrefix?: Readonly<Record<string, readonly string[]>> | undefined;
  /** Sample numbers the LIS has no order for. */
  noOrderPattern: RegExp;
  seeds?: readonly SeedOrder[];
}

export class OrderBook {
  /** The catalog tests orders may carry. */
  readonly orderable: readonly LisTest[];
  private readonly noOrder: RegExp;
  private readonly seeds = new Map<string, SeedOrder>();

  /** Per sample number prefix, longest first. */
  private readonly byPrefix: ReadonlyArray<{ prefix: string; tests: readonly LisTest[] }>;

  constructor(options: OrderBookOptions) {
    const { catalog, orderableTests } = options;
    this.orderable = orderableTests === undefined ? catalog : catalogTests(catalog, orderableTests, 'orderableTests');
    this.byPrefix = Object.entries(options.orderableByPrefix ?? {})
      .map(([prefix, ids]) => ({ prefix, tests: catalogTests(catalog, ids, `orderableByPrefix[${JSON.stringify(prefix)}]`) }))
      .sort((a, b) => b.prefix.length - a.prefix.length);
    // A global or sticky RegExp remembers its last match position between test() calls; drop those flags.
    this.noOrder = new RegExp(options.noOrderPattern.source, options.noOrderPattern.flags.replace(/[gy]/g, ''));
    for (const seed of options.seeds ?? DEMO_SEEDS) this.seeds.set(seed.SampleNumber, seed);
  }

  /** True when the LIS has no order for this sample number (the "no information" case). */
  hasNoOrder(sampleNumber: string): boolean {
    return this.noOrder.test(sampleNumber);
  }

  /**
   * The order for a sample: seeded or generated, TransactionDate = `now`, the
   * SampleNumber exactly as asked. Seeded orders keep only the tests that are
   * orderable; one left with none gets generated tests (and its patient).
   */
  lookup(sampleNumber: string, now: Date): OrderLookup {
    if (this.hasNoOrder(sampleNumber)) return { found: false };
    const seed = this.seeds.get(sampleNumber);
    const orderable = this.byPrefix.find((p) => sampleNumber.startsWith(p.prefix))?.tests ?? this.orderable;
    const orderableIds = new Set(orderable.map((t) => t.ID));
    const seededTests = seed?.Tests.filter((id) => orderableIds.has(id)) ?? [];
    if (seed && seededTests.length > 0) {
      return { found: true, source: 'seeded', order: this.build(sampleNumber, now, seed.patient, seed.Priority, seed.SampleType, seededTests) };
    }
    const d = new SeededDraws(`order:${sampleNumber}`);
    const patient = seed?.patient ?? poolPatient(d.below(PATIENT_POOL));
    const Priority = seed?.Priority ?? (d.fraction() < 0.15 ? 'S' : 'R');
    const { SampleType, Tests } = drawTests(d, orderable, patient.Sex);
    return { found: true, source: seed ? 'seeded' : 'generated', order: this.build(sampleNumber, now, patient, Priority, SampleType, Tests) };
  }

  private build(SampleNumber: string, now: Date, stored: StoredPatient, Priority: 'S' | 'R', SampleType: SampleType, Tests: string[]): Order {
    const patient: Patient = { ...stored };
    const age = stored.DateOfBirth ? ageOn(stored.DateOfBirth, now) : undefined;
    if (age) Object.assign(patient, age);
    return { SampleNumber, TransactionDate: formatTransactionDate(now), Priority, SampleType, Tests: [...Tests], patient };
  }
}

/** The catalog's tests with these IDs, in catalog order; every ID must be there, and at least one. */
function catalogTests(catalog: readonly LisTest[], ids: readonly string[], what: string): LisTest[] {
  const known = new Set(catalog.map((t) => t.ID));
  const unknown = ids.filter((id) => !known.has(id));
  if (unknown.length > 0) throw new Error(`${what} names tests that are not in the catalog: ${unknown.join(', ')}`);
  const wanted = new Set(ids);
  const tests = catalog.filter((t) => wanted.has(t.ID));
  if (tests.length === 0) throw new Error(`${what} must name at least one catalog test`);
  return tests;
}

/**
 * Age on `now`'s local day, in the unit a lab report uses: days under a
 * month, months under two years, years after. Undefined for a birth date
 * after today (a wrong clock), since a negative age helps nobody.
 */
export function ageOn(dateOfBirth: string, now: Date): { Age: string; AgeUnit: 'Y' | 'M' | 'D' } | undefined {
  const m = /^(\d{4})(\d{2})(\d{2})$/.exec(dateOfBirth);
  if (!m) return undefined;
  const [by, bm, bd] = [+m[1]!, +m[2]!, +m[3]!];
  const [ty, tm, td] = [now.getFullYear(), now.getMonth() + 1, now.getDate()];
  const days = Math.round((Date.UTC(ty, tm - 1, td) - Date.UTC(by, bm - 1, bd)) / DAY_MS);
  if (days < 0) return undefined;
  const months = (ty - by) * 12 + (tm - bm) - (td < bd ? 1 : 0);
  if (months < 1) return { Age: String(days), AgeUnit: 'D' };
  if (months < 24) return { Age: String(months), AgeUnit: 'M' };
  return { Age: String(Math.floor(months / 12)), AgeUnit: 'Y' };
}

const two = (n: number) => String(n).padStart(2, '0');

/** yyyymmdd of a date, in UTC or in local time. */
function formatDay(d: Date, utc: boolean): string {
  return utc
    ? `${d.getUTCFullYear()}${two(d.getUTCMonth() + 1)}${two(d.getUTCDate())}`
    : `${d.getFullYear()}${two(d.getMonth() + 1)}${two(d.getDate())}`;
}

/**
 * Spec 2.2 TransactionDate, yyyymmddHHMMSS. The spec names no time zone; a LIS
 * writes its own wall-clock time, so local time it is.
 */
export function formatTransactionDate(d: Date): string {
  return `${formatDay(d, false)}${two(d.getHours())}${two(d.getMinutes())}${two(d.getSeconds())}`;
}
