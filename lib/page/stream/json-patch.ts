/**
 * JSON Patch (RFC 6902) as the ask stream uses it: `add` and `replace` on object fields and array
 * indices (`-` appends), `remove`, the empty path for the whole document, `~1`/`~0` escapes. Our own
 * forty lines rather than a library: the stream uses two operations, and the page script's 20 kB
 * budget has no room for one (fast-json-patch is ~4 kB gzip). An operation it cannot apply (a path
 * that is not there, an op it does not know) throws; the stream is then not read (never a guess).
 */
export interface PatchOp {
  op: string;
  path: string;
  value?: unknown;
}

const isContainer = (v: unknown): v is Record<string, unknown> | unknown[] => typeof v === 'object' && v !== null;

/** The document after `ops`, changed in place where it can be (the returned value is the document). */
export function applyPatch(doc: unknown, ops: readonly PatchOp[]): unknown {
  for (const op of ops) doc = applyOne(doc, op);
  return doc;
}

function applyOne(doc: unknown, { op, path, value }: PatchOp): unknown {
  if (typeof path !== 'string' || (path !== '' && !path.startsWith('/'))) throw new Error(`bad patch path ${JSON.stringify(path)}`);
  if (path === '') {
    if (op === 'add' || op === 'replace') return value;
    throw new Error(`cannot ${op} the whole block`);
  }
  const keys = path.slice(1).split('/').map((k) => k.replace(/~1/g, '/').replace(/~0/g, '~'));
  // Never through an object's prototype: a frame is data, not a way to change every object of the page script.
  if (keys.some((k) => k === '__proto__' || k === 'constructor' || k === 'prototype')) throw new Error(`refused patch path ${path}`);
  const last = keys.pop() as string;
  let parent: unknown = doc;
  for (const k of keys) {
    parent = isContainer(parent) ? (parent as Record<string, unknown>)[k] : undefined;
    if (!isContainer(parent)) throw new Error(`no ${path} to ${op}`);
  }
  if (!isContainer(parent)) throw new Error(`no ${path} to ${op}`);
  if (Array.isArray(parent)) {
    const i = last === '-' ? parent.length : /^\d+$/.test(last) ? Number(last) : -1;
    const within = op === 'add' ? i <= parent.length : i < parent.length;
    if (i < 0 || !within) throw new Error(`no ${path} to ${op}`);
    if (op === 'add') parent.splice(i, 0, value);
    else if (op === 'replace') parent[i] = value;
    else if (op === 'remove') parent.splice(i, 1);
    else throw new Error(`unknown patch op ${op}`);
    return doc;
  }
  if (op === 'add' || (op === 'replace' && Object.hasOwn(parent, last))) parent[last] = value;
  else if (op === 'remove' && Object.hasOwn(parent, last)) delete parent[last];
  else throw new Error(op === 'replace' || op === 'remove' ? `no ${path} to ${op}` : `unknown patch op ${op}`);
  return doc;
}
