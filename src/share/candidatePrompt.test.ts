/** The candidate's prompt says only what the scenario's data says (issue 12). */
import { describe, expect, it } from 'vitest';
import { DEFAULT_CLIENT, PRESETS, findPreset, parseScenario, relevantSwitches, runScenario, type Scenario } from '../sim';
import { NO_MECHANISM } from '../sim/presets/build';
import { candidatePrompt, candidateScenario } from './candidatePrompt';

describe("the candidate's prompt", () => {
  it('unsafe-release: names no file its job never writes (it said "writing exports/2026-11-30.csv", a leftover default)', () => {
    const s = findPreset('unsafe-release')!.withoutFix;
    const p = candidatePrompt(s);
    expect(p.title).toBe('Interview: 3 workers running job rebuild-index');
    expect(p.description).not.toContain(s.destination.target);
  });

  it('for every preset: the destination is named only when some worker has an effect step', () => {
    for (const pr of PRESETS) for (const s of [pr.withoutFix, pr.withFix]) {
      if (s.job.kind !== 'external') continue;
      const effect = s.workers.some((w) => w.steps.some((st) => st.do === 'effect'));
      const p = candidatePrompt(s);
      expect(p.title.includes(s.destination.target), `${pr.id}`).toBe(effect);
    }
  });
});

/** A scenario's leaves: [path, value]. */
function leaves(o: unknown, path: string[] = []): [string[], unknown][] {
  if (o !== null && typeof o === 'object') return Object.entries(o as object).flatMap(([k, v]) => leaves(v, [...path, k]));
  return [[path, o]];
}
function withLeaf(s: Scenario, path: readonly string[], v: unknown): unknown {
  const c = structuredClone(s) as unknown as Record<string, unknown>;
  let x = c;
  for (const k of path.slice(0, -1)) x = x[k] as Record<string, unknown>;
  x[path.at(-1)!] = v;
  return c;
}
const hashOf = (s: Scenario) => runScenario(s).traceHash;

/**
 * What may stay in a candidate's file unread by its run, and why (by path, indices as N). A field
 * its run reads shows in the trace; one it does not read is the kind that could carry the answer
 * unseen (export-lease-expiry's counter prepared at 32 for the fix), so each must be either
 * neutral — the value one rule gives every scenario — or the system the prompt describes.
 */
const UNREAD: Record<string, { neutral: (v: unknown, s: Scenario) => boolean } | 'the system'> = {
  'lease.fenceKey': { neutral: (v, s) => v === `fence:${s.lease.key.replace(/^lease:/, '')}` },
  'lease.fenceStart': { neutral: (v) => v === 0 },
  // Every switch field the panel does not show keeps the value every preset starts from.
  ...Object.fromEntries(Object.entries(NO_MECHANISM).map(([k, d]) => [`mechanism.${k}`, { neutral: (v: unknown) => v === d }])),
  'destination.checksFencing': { neutral: (v) => v === false },
  'destination.honoursIdempotencyKeys': { neutral: (v) => v === false },
  ...Object.fromEntries(Object.entries(DEFAULT_CLIENT).map(([k, d]) => [`client.${k}`, { neutral: (v: unknown) => v === d }])),
  // The system the prompt and the editor describe, mechanism aside: how long the run may last, its
  // seed, the pool, the job, the destination, the lease's key and timings, the steps and invariants.
  horizonMs: 'the system', seed: 'the system', 'database.poolSize': 'the system', 'database.pooler.serverConnections': 'the system', 'queue.maxEmptyReceives': 'the system',
  // The advisory lock's key is no switch: which lock, not whether.
  'mechanism.advisoryKey': 'the system', 'job.jobKey': 'the system', 'destination.target': 'the system', 'destination.kind': 'the system',
  'lease.key': 'the system', 'lease.ttlMs': 'the system', 'lease.retryEveryMs': 'the system', 'lease.renewEveryMs': 'the system', 'lease.replicationLagMs': 'the system',
  'workers.N.steps.N.ms': 'the system', 'workers.N.amount': 'the system', 'invariants.N.harmless': 'the system', 'invariants.N.maxWaitMs': 'the system', 'invariants.N.withinMs': 'the system',
};

describe("every field of a candidate's scenario (their link, file, editor and transcript)", () => {
  it.each(PRESETS.map((p) => [p.id, p] as const))('%s: a field the starting run does not read is neutral or the system the prompt describes (the answer is in no unread field)', (_id, p) => {
    const c = candidateScenario(p.withoutFix);
    const h = hashOf(c);
    const shownBySwitch = (path: readonly string[], alt: unknown) => {
      const r = parseScenario(withLeaf(c, path, alt));
      return r.ok && relevantSwitches(c).some((d) => JSON.stringify([d.get(c), d.facts?.(c).text]) !== JSON.stringify([d.get(r.scenario), d.facts?.(r.scenario).text]));
    };
    for (const [path, v] of leaves(c)) {
      const key = path.join('.');
      if (key === 'title' || key === 'description' || key === 'lesson' || key === 'version') continue;
      const alt = typeof v === 'number' ? v + 1 : typeof v === 'string' ? `${v}x` : typeof v === 'boolean' ? !v : null;
      if (alt === null) continue;
      const r = parseScenario(withLeaf(c, path, alt));
      if (!r.ok || hashOf(r.scenario) !== h) continue;
      // Unread by the run. The mechanism panel shows it (a switch's value or facts), or:
      if (shownBySwitch(path, alt)) continue;
      const rule = UNREAD[key.replace(/\.\d+(?=\.|$)/g, '.N')];
      expect(rule, `${p.id}: ${key} = ${JSON.stringify(v)} is unread by the run, and nothing says it may stay`).toBeDefined();
      if (rule && rule !== 'the system') expect(rule.neutral(v, c), `${p.id}: ${key} = ${JSON.stringify(v)} is unread by the run and not the neutral value`).toBe(true);
    }
  });

  it("export-lease-expiry: the fencing counter its fix uses is not prepared in the candidate's scenario (32, seeded in Redis), and the run is the same", () => {
    const p = findPreset('export-lease-expiry')!;
    const c = candidateScenario(p.withoutFix);
    expect(p.withoutFix.lease.fenceStart).toBe(32);
    expect(c.lease).toMatchObject({ fenceKey: 'fence:export', fenceStart: 0 });
    expect(hashOf(c)).toBe(hashOf(p.withoutFix));
    // A starting design that takes tokens keeps its counter: the trace shows it (INCR fence:export → 33).
    const f = candidateScenario(findPreset('fence-ignored')!.withoutFix);
    expect(f.lease.fenceStart).toBe(32);
  });
});
