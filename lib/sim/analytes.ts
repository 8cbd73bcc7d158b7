/**
 * Realistic results for the simulator: a table of common analytes (adult
 * reference intervals as typical laboratory reports print them, SI units where
 * European labs use them) and a deterministic value for each (sample, test).
 *
 * Values are a pure function of seed, sample number and test code, so a run
 * can be repeated exactly: an end-to-end test can predict every value and a
 * benchmark sends the same bytes each time. Units are plain ASCII ('u' for
 * micro): the records travel as latin1 and most analyzers print 'u' anyway.
 */

export interface Analyte {
  /** The code analyzers and LIS mappings usually use. */
  code: string;
  name: string;
  units: string;
  low: number;
  high: number;
  /** Digits after the decimal point that the analyzer reports. */
  decimals: number;
  /** Other codes or assay names the same analyte goes by. */
  aliases?: readonly string[];
}

const TABLE: readonly Analyte[] = [
  // Clinical chemistry
  { code: 'GLU', name: 'Glucose', units: 'mmol/L', low: 3.9, high: 6.1, decimals: 1, aliases: ['GLUC', 'GLU2'] },
  { code: 'CREA', name: 'Creatinine', units: 'umol/L', low: 45, high: 90, decimals: 0, aliases: ['CRE', 'CREA2', 'CREJ'] },
  { code: 'UREA', name: 'Urea', units: 'mmol/L', low: 2.5, high: 7.8, decimals: 1, aliases: ['BUN'] },
  { code: 'NA', name: 'Sodium', units: 'mmol/L', low: 135, high: 145, decimals: 0 },
  { code: 'K', name: 'Potassium', units: 'mmol/L', low: 3.5, high: 5.1, decimals: 1 },
  { code: 'CL', name: 'Chloride', units: 'mmol/L', low: 98, high: 107, decimals: 0 },
  { code: 'CA', name: 'Calcium', units: 'mmol/L', low: 2.15, high: 2.55, decimals: 2 },
  { code: 'MG', name: 'Magnesium', units: 'mmol/L', low: 0.66, high: 1.07, decimals: 2 },
  { code: 'PHOS', name: 'Phosphate', units: 'mmol/L', low: 0.81, high: 1.45, decimals: 2 },
  { code: 'ALT', name: 'Alanine aminotransferase', units: 'U/L', low: 7, high: 41, decimals: 0, aliases: ['GPT'] },
  { code: 'AST', name: 'Aspartate aminotransferase', units: 'U/L', low: 10, high: 40, decimals: 0, aliases: ['GOT'] },
  { code: 'ALP', name: 'Alkaline phosphatase', units: 'U/L', low: 40, high: 130, decimals: 0 },
  { code: 'GGT', name: 'Gamma-glutamyltransferase', units: 'U/L', low: 8, high: 61, decimals: 0 },
  { code: 'TBIL', name: 'Bilirubin, total', units: 'umol/L', low: 5, high: 21, decimals: 1, aliases: ['BILT'] },
  { code: 'ALB', name: 'Albumin', units: 'g/L', low: 35, high: 52, decimals: 1 },
  { code: 'TP', name: 'Protein, total', units: 'g/L', low: 64, high: 83, decimals: 1 },
  { code: 'CHOL', name: 'Cholesterol', units: 'mmol/L', low: 3.0, high: 5.2, decimals: 2 },
  { code: 'TRIG', name: 'Triglycerides', units: 'mmol/L', low: 0.5, high: 1.7, decimals: 2, aliases: ['TG'] },
  { code: 'HDL', name: 'HDL cholesterol', units: 'mmol/L', low: 1.0, high: 2.2, decimals: 2 },
  { code: 'LDL', name: 'LDL cholesterol', units: 'mmol/L', low: 1.5, high: 3.0, decimals: 2 },
  { code: 'UA', name: 'Uric acid', units: 'umol/L', low: 202, high: 417, decimals: 0 },
  { code: 'CRP', name: 'C-reactive protein', units: 'mg/L', low: 0, high: 5, decimals: 1 },
  { code: 'CK', name: 'Creatine kinase', units: 'U/L', low: 39, high: 308, decimals: 0 },
  { code: 'LDH', name: 'Lactate dehydrogenase', units: 'U/L', low: 135, high: 225, decimals: 0 },
  { code: 'AMY', name: 'Amylase', units: 'U/L', low: 28, high: 100, decimals: 0 },
  { code: 'LIP', name: 'Lipase', units: 'U/L', low: 13, high: 60, decimals: 0 },
  { code: 'FE', name: 'Iron', units: 'umol/L', low: 10, high: 30, decimals: 1 },
  { code: 'HBA1C', name: 'Haemoglobin A1c', units: '%', low: 4.0, high: 5.6, decimals: 1, aliases: ['A1C', 'HbA1c'] },
  // Haematology
  { code: 'WBC', name: 'Leukocytes', units: '10*3/uL', low: 4.0, high: 10.0, decimals: 2 },
  { code: 'RBC', name: 'Erythrocytes', units: '10*6/uL', low: 4.2, high: 5.9, decimals: 2 },
  { code: 'HGB', name: 'Haemoglobin', units: 'g/dL', low: 12.0, high: 17.5, decimals: 1, aliases: ['HB'] },
  { code: 'HCT', name: 'Haematocrit', units: '%', low: 36, high: 52, decimals: 1 },
  { code: 'MCV', name: 'Mean corpuscular volume', units: 'fL', low: 80, high: 100, decimals: 1 },
  { code: 'PLT', name: 'Platelets', units: '10*3/uL', low: 150, high: 400, decimals: 0 },
  // Coagulation
  { code: 'PT', name: 'Prothrombin time', units: 's', low: 11.0, high: 13.5, decimals: 1, aliases: ['SPT'] },
  { code: 'INR', name: 'INR', units: 'INR', low: 0.8, high: 1.2, decimals: 2, aliases: ['SINR'] },
  { code: 'APTT', name: 'Activated partial thromboplastin time', units: 's', low: 25, high: 37, decimals: 1, aliases: ['SAPTT', 'PTT'] },
  { code: 'FIB', name: 'Fibrinogen', units: 'g/L', low: 2.0, high: 4.0, decimals: 2 },
  // Immunoassay
  { code: 'TSH', name: 'Thyrotropin', units: 'mIU/L', low: 0.27, high: 4.2, decimals: 3 },
  { code: 'FT4', name: 'Free thyroxine', units: 'pmol/L', low: 12, high: 22, decimals: 2 },
  { code: 'FT3', name: 'Free triiodothyronine', units: 'pmol/L', low: 3.1, high: 6.8, decimals: 2 },
  { code: 'PSA', name: 'Prostate-specific antigen', units: 'ng/mL', low: 0, high: 4, decimals: 3, aliases: ['TPSA'] },
  { code: 'FER', name: 'Ferritin', units: 'ng/mL', low: 30, high: 400, decimals: 1, aliases: ['FERR'] },
  { code: 'B12', name: 'Vitamin B12', units: 'pg/mL', low: 197, high: 771, decimals: 0 },
  { code: 'TNT', name: 'Troponin T, high sensitive', units: 'ng/L', low: 0, high: 14, decimals: 1, aliases: ['TNTHS'] },
  { code: 'CA125', name: 'Cancer antigen 125', units: 'U/mL', low: 0, high: 35, decimals: 1 },
];

const BY_CODE: ReadonlyMap<string, Analyte> = new Map(TABLE.flatMap((a) => [a.code, ...(a.aliases ?? [])].map((c) => [c.toUpperCase(), a] as const)));

/** The analyte a test code (or an analyzer's assay name, e.g. Mindray's) stands for, if the table knows it. */
export function findAnalyte(...names: (string | undefined)[]): Analyte | undefined {
  for (const name of names) {
    const hit = name === undefined ? undefined : BY_CODE.get(name.trim().toUpperCase());
    if (hit) return hit;
  }
  return undefined;
}

export function analyteCodes(): string[] {
  return TABLE.map((a) => a.code);
}

export interface SimulatedValue {
  /** The value as the analyzer prints it, with a decimal point. */
  value: string;
  units?: string;
  low?: string;
  high?: string;
  /** LIS2-A2 R-7 abnormal flag from the reference range: N, L or H; absent when there is no range. */
  flag?: 'N' | 'L' | 'H';
  analyte?: Analyte;
}

/**
 * The value of one test for one sample. About one result in six falls
 * outside the reference range, so flags and the host's handling of abnormal
 * values get exercised without every sample being pathological.
 */
export function simulateValue(seed: string, sample: string, code: string, name?: string): SimulatedValue {
  const analyte = findAnalyte(code, name);
  const where = unitInterval(seed, sample, code, 'where');
  const how = unitInterval(seed, sample, code, 'how');
  if (analyte === undefined) {
    // Unknown test: a plausible positive number, and nothing the simulator
    // would have to invent (units, range, flag).
    return { value: (1 + how * 99).toFixed(2) };
  }
  const { low, high, decimals } = analyte;
  const span = high - low;
  let raw: number;
  // Concentrations are never negative: a low value stays above 30 % of the low
  // limit, and analytes whose interval starts at 0 (CRP, PSA) are never low.
  if (where < 0.08 && low > 0) raw = Math.max(low - span * (0.05 + 0.3 * how), low * 0.3);
  else if (where > 0.91) raw = high + span * (0.05 + 0.8 * how);
  else raw = low + span * how;
  const value = raw.toFixed(decimals);
  const n = Number(value);
  const flag = n < low ? 'L' : n > high ? 'H' : 'N';
  return { value, units: analyte.units, low: low.toFixed(decimals), high: high.toFixed(decimals), flag, analyte };
}

/**
 * A number in [0, 1) from its inputs: FNV-1a over the parts, then the
 * murmur3 finaliser so that neighbouring sample numbers (S001, S002) do not
 * give neighbouring values.
 */
export function unitInterval(...parts: (string | number)[]): number {
  let h = 0x811c9dc5;
  for (const part of parts) {
    const text = String(part);
    for (let i = 0; i < text.length; i++) {
      h ^= text.charCodeAt(i);
      h = Math.imul(h, 0x01000193);
    }
    h ^= 0x1f; // a separator, so ('ab','c') and ('a','bc') differ
    h = Math.imul(h, 0x01000193);
  }
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return (h >>> 0) / 0x1_0000_0000;
}

/** A seeded stream of numbers in [0, 1), for decisions that are not tied to a sample (which frames to corrupt). */
export function randomStream(seed: string, purpose: string): () => number {
  let n = 0;
  return () => unitInterval(seed, purpose, n++);
}
