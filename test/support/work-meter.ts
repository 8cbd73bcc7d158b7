/**
 * Counts the work the string, RegExp and Buffer built-ins do while a function
 * runs: characters each call looks at (a split or a regex the whole text, an
 * indexOf the stretch it searched, a slice what it copies, a charCodeAt one).
 * A parser that re-splits a field per repetition, or restarts an indexOf from
 * the start, shows up as work growing with the square of its input, on any
 * machine: the linearity tests compare the count for N and 4N items, never a
 * time. The built-ins are wrapped only while `fn` runs.
 */

type Fn = (this: unknown, ...args: unknown[]) => unknown;

interface Patch {
  owner: object;
  name: string;
  cost: (self: unknown, args: unknown[], result: unknown) => number;
}

const len = (x: unknown): number => (typeof x === 'string' || Buffer.isBuffer(x) || x instanceof Uint8Array ? (x as { length: number }).length : 0);
const from = (x: unknown, n: number): number => (typeof x === 'number' && x > 0 ? Math.min(x, n) : 0);

function searched(self: unknown, args: unknown[], result: unknown): number {
  const n = len(self);
  const start = from(args[1], n);
  return (typeof result === 'number' && result >= 0 ? result - start + len(args[0]) : n - start) + 1;
}

function sliced(self: unknown, args: unknown[], result: unknown): number {
  return len(result) + 1;
}

const whole = (self: unknown): number => len(self) + 1;

const PATCHES: Patch[] = [
  { owner: String.prototype, name: 'split', cost: whole },
  { owner: String.prototype, name: 'indexOf', cost: searched },
  { owner: String.prototype, name: 'lastIndexOf', cost: whole },
  { owner: String.prototype, name: 'includes', cost: (s, a, r) => (r === true ? len(s) / 2 : len(s)) + 1 },
  { owner: String.prototype, name: 'slice', cost: sliced },
  { owner: String.prototype, name: 'substring', cost: sliced },
  { owner: String.prototype, name: 'trim', cost: sliced },
  { owner: String.prototype, name: 'replace', cost: whole },
  { owner: String.prototype, name: 'replaceAll', cost: whole },
  { owner: String.prototype, name: 'toUpperCase', cost: whole },
  { owner: String.prototype, name: 'charCodeAt', cost: () => 1 },
  { owner: String.prototype, name: 'charAt', cost: () => 1 },
  { owner: String.prototype, name: 'startsWith', cost: (s, a) => len(a[0]) + 1 },
  { owner: String.prototype, name: 'endsWith', cost: (s, a) => len(a[0]) + 1 },
  { owner: RegExp.prototype, name: 'test', cost: (s, a) => len(a[0]) + 1 },
  { owner: RegExp.prototype, name: 'exec', cost: (s, a) => len(a[0]) + 1 },
  { owner: Array.prototype, name: 'join', cost: (s) => (Array.isArray(s) ? s.length : 0) + 1 },
  { owner: Uint8Array.prototype, name: 'indexOf', cost: searched },
  { owner: Buffer.prototype, name: 'indexOf', cost: searched },
  { owner: Buffer.prototype, name: 'toString', cost: whole },
  { owner: Buffer.prototype, name: 'subarray', cost: sliced },
  // Joining what arrived so far at every frame is the usual quadratic of a link.
  { owner: Buffer, name: 'concat', cost: sliced },
];

/** The work `fn` made the built-ins do (see above), and what it returned. */
export function measureWork<T>(fn: () => T): { work: number; value: T } {
  let work = 0;
  let depth = 0;
  const saved: Array<{ owner: object; name: string; original: Fn }> = [];
  for (const p of PATCHES) {
    const original = (p.owner as Record<string, Fn>)[p.name];
    if (typeof original !== 'function' || saved.some((s) => s.owner === p.owner && s.name === p.name)) continue;
    saved.push({ owner: p.owner, name: p.name, original });
    const cost = p.cost;
    Object.defineProperty(p.owner, p.name, {
      configurable: true,
      writable: true,
      value: function (this: unknown, ...args: unknown[]) {
        // Built-ins calling each other (Buffer#toString → slice) count once, at the outside.
        depth++;
        try {
          const result = original.apply(this, args);
          if (depth === 1) work += cost(this, args, result);
          return result;
        } finally {
          depth--;
        }
      },
    });
  }
  try {
    const value = fn();
    return { work, value };
  } finally {
    for (const s of saved.reverse()) Object.defineProperty(s.owner, s.name, { configurable: true, writable: true, value: s.original });
  }
}

/** How much more work 4N items take than N: about 4 when linear, 16 when quadratic. */
export function growth(make: (n: number) => () => unknown, n: number): { ratio: number; small: number; large: number } {
  make(n)(); // warm up: first calls compile regexes and load modules
  const small = measureWork(make(n)).work;
  const large = measureWork(make(4 * n)).work;
  return { ratio: large / small, small, large };
}
