/**
 * A value's JSON text as pieces, for an answer too large to stringify in one
 * go without holding the event loop (a preview of a file's every result):
 * arrays and plain objects are walked, everything else is JSON.stringify'd.
 * The pieces joined are JSON.stringify(value) for the plain data it is
 * meant for (no toJSON, no cycles).
 */
export function* jsonPieces(value: unknown): Generator<string, void, void> {
  if (small(value, 2)) {
    yield JSON.stringify(value) ?? 'null';
    return;
  }
  if (Array.isArray(value)) {
    yield '[';
    for (let i = 0; i < value.length; i++) {
      if (i > 0) yield ',';
      const item: unknown = value[i];
      if (item === undefined || typeof item === 'function' || typeof item === 'symbol') yield 'null';
      else yield* jsonPieces(item);
    }
    yield ']';
    return;
  }
  if (value !== null && typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype) {
    yield '{';
    let first = true;
    for (const [key, item] of Object.entries(value)) {
      if (item === undefined || typeof item === 'function' || typeof item === 'symbol') continue;
      yield `${first ? '' : ','}${JSON.stringify(key)}:`;
      first = false;
      yield* jsonPieces(item);
    }
    yield '}';
    return;
  }
  yield JSON.stringify(value) ?? 'null';
}

/** Few enough parts, `depth` deep at most, that one JSON.stringify of it is a piece: a result, a problem. */
function small(value: unknown, depth: number): boolean {
  if (value === null || typeof value !== 'object') return true;
  if (depth === 0) return false;
  if (Array.isArray(value)) return value.length <= 32 && value.every((v) => small(v, depth - 1));
  if (Object.getPrototypeOf(value) !== Object.prototype) return true;
  let n = 0;
  for (const key in value) {
    if (++n > 32 || !small((value as Record<string, unknown>)[key], depth - 1)) return false;
  }
  return true;
}
