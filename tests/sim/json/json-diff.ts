/**
 * The JSON patch (RFC 6902) that turns `before` into `after`, leaf by leaf: what the live ask stream sends when a
 * block other than the answer changes (the 2026-08-04 capture: `replace /web_results/3/snippet`, `add …/chunks/2`,
 * `remove`), so that the sim's stream is read the way the live one is, not as whole blocks sent again. Arrays are
 * compared index by index (the live stream grows and trims them at the end); a value whose type changed is replaced.
 */
export interface SimPatchOp {
  op: 'add' | 'replace' | 'remove';
  path: string;
  value?: unknown;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const pointerKey = (key: string) => key.replace(/~/g, '~0').replace(/\//g, '~1');

export function jsonDiff(before: unknown, after: unknown, path = ''): SimPatchOp[] {
  if (before === after) return [];
  if (Array.isArray(before) && Array.isArray(after)) {
    const both = Math.min(before.length, after.length);
    const ops: SimPatchOp[] = [];
    for (let i = 0; i < both; i++) ops.push(...jsonDiff(before[i], after[i], `${path}/${i}`));
    for (let i = both; i < after.length; i++) ops.push({ op: 'add', path: `${path}/${i}`, value: after[i] });
    // From the end, so that each index still names the item it meant.
    for (let i = before.length - 1; i >= both; i--) ops.push({ op: 'remove', path: `${path}/${i}` });
    return ops;
  }
  if (isObject(before) && isObject(after)) {
    const ops: SimPatchOp[] = [];
    for (const key of Object.keys(before)) if (!Object.hasOwn(after, key)) ops.push({ op: 'remove', path: `${path}/${pointerKey(key)}` });
    for (const [key, value] of Object.entries(after)) {
      ops.push(...(Object.hasOwn(before, key) ? jsonDiff(before[key], value, `${path}/${pointerKey(key)}`) : [{ op: 'add' as const, path: `${path}/${pointerKey(key)}`, value }]));
    }
    return ops;
  }
  return [{ op: 'replace', path, value: after }];
}
