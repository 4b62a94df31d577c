/**
 * Field paths as the validator writes them (`workers[0].steps[2].ms`), and immutable get/set on
 * parsed JSON by path: the form and the JSON view edit the same plain object.
 */

/** A path: object keys and array indices. */
export type Path = readonly (string | number)[];

/** `workers[0].steps[2].ms` → ['workers', 0, 'steps', 2, 'ms']. */
export function parsePath(p: string): Path {
  const out: (string | number)[] = [];
  for (const m of p.matchAll(/([^.[\]]+)|\[(\d+)\]/g)) out.push(m[2] !== undefined ? Number(m[2]) : m[1]!);
  return out;
}

/** The value at a path (undefined when any step is missing). */
export function getIn(o: unknown, p: Path): unknown {
  let cur: unknown = o;
  for (const k of p) {
    if (cur === null || typeof cur !== 'object') return undefined;
    if (!Object.prototype.hasOwnProperty.call(cur, k)) return undefined;
    cur = (cur as Record<string | number, unknown>)[k];
  }
  return cur;
}

/** A copy with the value at `p` replaced (undefined removes an object key). Creates missing containers. */
export function setIn(o: unknown, p: Path, v: unknown): unknown {
  if (p.length === 0) return v;
  const [k, ...rest] = p as [string | number, ...(string | number)[]];
  if (typeof k === 'number') {
    const arr = Array.isArray(o) ? [...(o as unknown[])] : [];
    arr[k] = setIn(arr[k], rest, v);
    return arr;
  }
  const obj: Record<string, unknown> = o !== null && typeof o === 'object' && !Array.isArray(o) ? { ...(o as Record<string, unknown>) } : {};
  const next = setIn(obj[k], rest, v);
  if (next === undefined) delete obj[k];
  else obj[k] = next;
  return obj;
}

/** A DOM id for a field path. */
export function fieldId(path: string): string {
  return `ed-${path.replace(/[^A-Za-z0-9]+/g, '-')}`;
}
