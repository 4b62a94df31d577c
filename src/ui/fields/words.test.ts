import { PRESETS, validateScenario } from '../../sim';
import { internalNames } from './internalNames';
import { fieldWords, problemWords } from './words';

/** Every numeric leaf of `o` with its path (`lease.ttlMs`, `workers[0].steps[2].ms`). */
function numericPaths(o: unknown, at = ''): string[] {
  if (typeof o === 'number') return [at];
  if (Array.isArray(o)) return o.flatMap((v, i) => numericPaths(v, `${at}[${i}]`));
  if (o !== null && typeof o === 'object') return Object.entries(o).flatMap(([k, v]) => numericPaths(v, at ? `${at}.${k}` : k));
  return [];
}

function setAt(o: unknown, path: string, v: unknown): unknown {
  const copy = structuredClone(o) as Record<string, unknown>;
  const keys = [...path.matchAll(/([^.[\]]+)|\[(\d+)\]/g)].map((m) => (m[2] !== undefined ? Number(m[2]) : m[1]!));
  let cur = copy as Record<string | number, unknown>;
  for (const k of keys.slice(0, -1)) cur = cur[k] as Record<string | number, unknown>;
  cur[keys.at(-1)!] = v;
  return copy;
}

describe('a problem in the user\'s words (issue 9)', () => {
  it('a lease TTL of 0: the field\'s name, the rule with its unit, and Redis\'s own refusal', () => {
    const w = problemWords('lease.ttlMs', 'must be ≥ 1');
    expect(w.text).toBe('Lease TTL: must be at least 1 ms.');
    expect(w.why).toBe("Redis refuses SET … PX 0 (or a negative TTL): \"ERR invalid expire time in 'set' command\".");
    expect(fieldWords('workers[1].steps[2].ms')).toBe('Step duration (worker 2, step 3)');
  });

  it('a bound that is another field says its value with the unit and the comparison in words (a fault at 500 s in a 90 s run)', () => {
    const s = PRESETS.find((p) => p.id === 'export-lease-expiry')!.withoutFix;
    const r = validateScenario({ ...s, faults: [{ ...s.faults[0]!, atMs: 500_000 }] });
    expect(r.ok).toBe(false);
    const e = r.ok ? null : r.errors.find((x) => x.path === 'faults[0].atMs')!;
    expect(e).toBeTruthy();
    const w = problemWords(e!.path, e!.message);
    expect(w.text).toMatch(/must be at most Horizon \(90000 ms\)/);
    expect(w.text).not.toMatch(/[≤≥<>]/);
  });

  // The sweep: every numeric field of every preset set to 0, -1, 1.5 and null, and every message the
  // validator gives then, worded for the form: no field path, no camelCase name survives.
  it('every validator message over every preset\'s numeric fields reads without internal names', () => {
    let seen = 0;
    for (const p of PRESETS) {
      for (const path of numericPaths(p.withoutFix)) {
        for (const bad of [0, -1, 1.5, null]) {
          const r = validateScenario(setAt(p.withoutFix, path, bad));
          if (r.ok) continue;
          for (const e of r.errors) {
            seen++;
            const w = problemWords(e.path, e.message);
            expect(internalNames(w.text), `${p.id} ${path}=${bad}: ${e.path}: ${e.message} → ${w.text}`).toEqual([]);
            if (w.why) expect(internalNames(w.why)).toEqual([]);
          }
        }
      }
    }
    expect(seen).toBeGreaterThan(500);
  });
});
