/**
 * Which way a message goes through the test-mapper. The two shapes cannot be
 * confused: an order is an object with a Tests array; results are an array of
 * items each carrying an instrumentCode (or { results: [...] } of them).
 */
export type Direction = 'toInstrument' | 'toLis';

export function detectDirection(payload: unknown): Direction | undefined {
  if (Array.isArray(payload)) return isResultList(payload) ? 'toLis' : undefined;
  if (typeof payload !== 'object' || payload === null) return undefined;
  const p = payload as Record<string, unknown>;
  if (Array.isArray(p.results)) return isResultList(p.results) ? 'toLis' : undefined;
  if (Array.isArray(p.Tests)) return 'toInstrument';
  return undefined;
}

function isResultList(items: unknown[]): boolean {
  return items.length > 0 && items.every((i) => typeof i === 'object' && i !== null && 'instrumentCode' in i);
}
