/**
 * ../shared/cases/worker-named-admin.json (copied here: CI has no ../shared): a worker with the
 * id `admin` plus an admin-script fault. Expected: the id is refused with a clear message naming
 * the field path — for every fault kind's actor (read from the registry) and every resource's
 * name, not only `admin`.
 */
import { z } from 'zod';
import scenarioJson from './worker-named-admin.json';
import { parseScenario } from '../scenario/migrate';
import { reservedActorIds } from '../scenario/validate';
import { faultKinds, registerFaultKind } from '../faults/registry';
import { faultPlacement } from '../scenario/primitives';
import { runScenario } from '../engine/run';
import { PRESETS } from '../presets';

const renamed = (id: string) => ({ ...scenarioJson, workers: scenarioJson.workers.map((w, i) => (i === 0 ? { ...w, id } : w)) });

describe('worker-named-admin.json', () => {
  it('refuses the worker id "admin" with a message naming the path and the fault that uses it', () => {
    const r = parseScenario(scenarioJson);
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.errors).toEqual([{ path: 'workers[0].id', message: '"admin" is reserved for the adminBypass fault; give the worker another id' }]);
  });

  it('the same scenario with the worker renamed runs, and the admin script is its own session: both rows count', () => {
    const r = parseScenario(renamed('A'));
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    const run = runScenario(r.scenario);
    const admin = run.events.filter((e) => e.actor === 'admin');
    expect(admin.some((e) => e.kind === 'sql' && e.command?.startsWith('INSERT INTO invoices'))).toBe(true);
    expect(run.events.filter((e) => e.actor === 'A' && e.kind === 'outcome').at(-1)?.narration).toMatch(/^A is done/);
    expect(run.verdict.held).toBe(false);
    expect(run.verdict.violations.map((v) => v.invariant)).toContain('uniqueBusinessKey');
  });

  it('every fault kind\'s actor and every resource name is reserved, whether or not the scenario has that fault', () => {
    const reserved = reservedActorIds();
    for (const def of faultKinds()) expect(reserved.has(def.actor ?? 'fault')).toBe(true);
    expect([...reserved.keys()]).toEqual(expect.arrayContaining(['admin', 'operator', 'fault', 'redis', 'db', 'pool', 'destination']));
    for (const [id, what] of reserved) {
      const r = parseScenario({ ...renamed(id), faults: [] });
      expect(r.ok).toBe(false);
      if (!r.ok) expect(r.errors).toContainEqual({ path: 'workers[0].id', message: `"${id}" is reserved for ${what}; give the worker another id` });
    }
  });

  it('a fault kind registered later reserves its actor too, and frees it when removed', () => {
    const schema = z.strictObject({ kind: z.literal('robotPoke'), ...faultPlacement, worker: z.string().optional() });
    const remove = registerFaultKind<z.infer<typeof schema>>({
      kind: 'robotPoke', label: 'a robot pokes the database', schema, lane: 'database', actor: 'robot', glyph: 'R',
      describe: () => 'A robot pokes', appliesTo: () => true, generate: () => ({ kind: 'robotPoke', atMs: 0 }), apply: () => 'continue',
    });
    try {
      const r = parseScenario({ ...renamed('robot'), faults: [] });
      expect(r.ok).toBe(false);
      if (!r.ok) expect(r.errors[0]).toEqual({ path: 'workers[0].id', message: '"robot" is reserved for the robotPoke fault; give the worker another id' });
    } finally {
      remove();
    }
    expect(parseScenario({ ...renamed('robot'), faults: [] }).ok).toBe(true);
  });

  it('no preset uses a reserved id', () => {
    const reserved = reservedActorIds();
    for (const p of PRESETS) for (const s of [p.withoutFix, p.withFix]) expect(s.workers.filter((w) => reserved.has(w.id))).toEqual([]);
  });

  it('run without validation, the admin script refuses to take the worker over instead of silently stopping the run', () => {
    const raw = scenarioJson as unknown as Parameters<typeof runScenario>[0];
    expect(() => runScenario(raw)).toThrow(/"admin" is reserved for the adminBypass fault/);
  });
});
