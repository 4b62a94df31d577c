/**
 * Test support (imported by property tests only, never by the app): fast-check arbitraries for
 * random valid-looking scenarios — a preset (either variant) with a random seed, start times,
 * mechanism switches, replication lag, a PgBouncer in front of the database (session or
 * transaction mode) and faults from each fault kind's own generator. Some
 * generated scenarios fail validation (a fault placed oddly): a property validates first and
 * skips those.
 */
import fc from 'fast-check';
import { PRESETS } from '../presets';
import type { Fault, Mechanism, Scenario } from '../scenario/schema';
import { generateFault } from '../faults/registry';
import { Rng } from '../engine/rng';

/** Any combination of mechanism switches (each one optional). */
export const mechanismArb: fc.Arbitrary<Partial<Mechanism>> = fc.record({
  lock: fc.constantFrom('none', 'advisory-xact', 'advisory-session', 'lease'),
  rowLock: fc.constantFrom('none', 'forUpdate', 'forUpdateNowait', 'forUpdateSkipLocked'),
  uniqueKey: fc.boolean(),
  checkConstraint: fc.boolean(),
  onConflict: fc.constantFrom('error', 'doNothing'),
  release: fc.constantFrom('del', 'compare-and-delete'),
  renewal: fc.constantFrom('none', 'compare-and-extend', 'set', 'set-px', 'pexpire'),
  stopOnRenewFailure: fc.boolean(),
  fencing: fc.boolean(),
  fenceSource: fc.constantFrom('redis-incr', 'db-sequence'),
  idempotencyKey: fc.boolean(),
  jobRecord: fc.boolean(),
  onError: fc.constantFrom('return', 'unlockInFinally', 'discardConnection'),
  acquireTimeoutMs: fc.option(fc.integer({ min: 1, max: 20_000 }), { nil: null }),
  releaseInFinally: fc.boolean(),
}, { requiredKeys: [] }) as fc.Arbitrary<Partial<Mechanism>>;

/** A random fault of a random registered kind, from each kind's own generator (src/sim/faults/registry.ts). */
export function faultArb(s: Scenario): fc.Arbitrary<Fault> {
  return fc.integer({ min: 0, max: 2_147_483_647 }).map((seed) => generateFault(new Rng(seed), s) as Fault);
}

/** A preset with random seed, start times, mechanism switches, lag and up to four extra faults. */
export const scenarioArb: fc.Arbitrary<Scenario> = fc
  .tuple(fc.constantFrom(...PRESETS), fc.boolean())
  .chain(([p, fixed]) => {
    const base = fixed ? p.withFix : p.withoutFix;
    return fc.record({
      seed: fc.integer({ min: 0, max: 2_147_483_647 }),
      mechanism: mechanismArb,
      starts: fc.array(fc.integer({ min: 0, max: 5_000 }), { minLength: base.workers.length, maxLength: base.workers.length }),
      faults: fc.array(faultArb(base), { maxLength: 4 }),
      lag: fc.integer({ min: 0, max: 5_000 }),
      // PgBouncer in front of the database (or the preset's own setting), 1–3 server connections.
      pooler: fc.option(fc.record({ mode: fc.constantFrom('session' as const, 'transaction' as const), serverConnections: fc.integer({ min: 1, max: 3 }) }), { nil: undefined }),
    }).map((r): Scenario => ({
      ...base,
      database: r.pooler === undefined ? base.database : { ...base.database, pooler: r.pooler },
      seed: r.seed,
      mechanism: { ...base.mechanism, ...r.mechanism },
      lease: { ...base.lease, replicationLagMs: r.lag },
      workers: base.workers.map((w, i) => ({ ...w, startMs: r.starts[i]! })),
      faults: [...base.faults, ...r.faults],
    }));
  });

