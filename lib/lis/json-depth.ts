/**
 * Whether a parsed JSON body can be passed through a Node-RED flow. Node-RED
 * copies messages recursively (RED.util.cloneMessage), so a value nested a
 * hundred thousand levels deep overflows the stack after the sender has been
 * told its order was taken. Checked before answering, without recursion: the
 * check must not fail the way the copy does.
 */

/** Far deeper than any order (body, orders, one order, patient, a field: 5 levels), far shallower than a stack. */
export const MAX_JSON_DEPTH = 32;

/** The path of the first value nested deeper than `maxDepth`, or undefined when the whole body fits. */
export function tooDeepAt(value: unknown, maxDepth = MAX_JSON_DEPTH): string | undefined {
  const stack: Array<{ value: unknown; path: string; depth: number }> = [{ value, path: '', depth: 0 }];
  while (stack.length > 0) {
    const { value: v, path, depth } = stack.pop()!;
    if (typeof v !== 'object' || v === null) continue;
    if (depth >= maxDepth) return path || '(the body)';
    if (Array.isArray(v)) v.forEach((item, i) => stack.push({ value: item, path: `${path}[${i}]`, depth: depth + 1 }));
    else for (const [k, item] of Object.entries(v)) stack.push({ value: item, path: path ? `${path}.${k}` : k, depth: depth + 1 });
  }
  return undefined;
}
