/**
 * Test support (imported by property tests only, never by the app): fast-check arbitraries for
 * random valid-looking scenarios — a preset (either variant) with a random seed, start times,
 * mechanism switches, replication lag, the database server's timeouts, isolation level and 40001 retries, a PgBouncer in front of the database (session or
 * transaction mode), a third of the time a connection topology (the workers in one or two
 * processes with a small pool each, some SQL steps run by a helper on a second connection), the
 * lease in etcd instead of Redis (`lockService`), half of the time another destination (a file store or
 * an API, checking fencing tokens and idempotency keys or not) and faults from each fault kind's own generator. Some
 * generated scenarios fail validation (a fault placed oddly): a property validates first and
 * skips those.
 */
import fc from 'fast-check';
import { PRESETS } from '../presets';
import type { Fault, Mechanism, Scenario } from '../scenario/schema';
import { generateFault } from '../faults/registry';
import { Rng } from '../engine/rng';
import { ttlSecondsOf } from '../resources/lockService';

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

/**
 * The database server's settings (each optional, absent most of the time as in the presets):
 * `deadlock_timeout`, `statement_timeout`, `idle_in_transaction_session_timeout` (short enough to
 * end a session during a preset's `work` step), the isolation level and the framework's 40001
 * retries. Without them no random scenario meets a session the server has ended.
 */
export const databaseSettingsArb: fc.Arbitrary<Partial<Scenario['database']>> = fc.record({
  deadlockTimeoutMs: fc.integer({ min: 1, max: 3_000 }),
  statementTimeoutMs: fc.integer({ min: 1, max: 5_000 }),
  idleInTransactionSessionTimeoutMs: fc.integer({ min: 1, max: 5_000 }),
  isolation: fc.constantFrom('read committed', 'repeatable read', 'serializable'),
  serializationRetries: fc.integer({ min: 1, max: 3 }),
}, { requiredKeys: [] }).map((r) => Object.fromEntries(Object.entries(r).filter(([, v]) => v !== undefined)) as Partial<Scenario['database']>);

/** Random connection topology (scenario version 2): how many processes, their pools, which worker goes where, which steps a helper runs. */
export interface TopologyDraw {
  readonly processes: number;
  readonly sizes: readonly number[];
  readonly acquireTimeoutMs: number | undefined;
  readonly assign: readonly number[];
  readonly helpers: readonly boolean[];
}

/** A topology a third of the time, else none (the scenario as it was). */
export const topologyArb: fc.Arbitrary<TopologyDraw | undefined> = fc.oneof(
  { arbitrary: fc.constant(undefined), weight: 2 },
  {
    arbitrary: fc.record({
      processes: fc.integer({ min: 1, max: 2 }),
      sizes: fc.array(fc.integer({ min: 1, max: 3 }), { minLength: 2, maxLength: 2 }),
      acquireTimeoutMs: fc.option(fc.integer({ min: 500, max: 5_000 }), { nil: undefined }),
      assign: fc.array(fc.integer({ min: 0, max: 1 }), { minLength: 16, maxLength: 16 }),
      helpers: fc.array(fc.boolean(), { minLength: 40, maxLength: 40 }),
    }),
    weight: 1,
  },
);

/** Steps a helper may run for this scenario's job (the rules `validate.ts` enforces). */
function helperAllowed(s: Scenario, step: Scenario['workers'][number]['steps'][number]): boolean {
  switch (step.do) {
    case 'record': case 'enqueue': return true;
    case 'effect': return s.job.kind !== 'external';
    case 'read': return s.job.kind === 'debit' || s.job.kind === 'reserve';
    case 'check': return s.job.kind === 'insertOnce' || s.mechanism.jobRecord;
    default: return false;
  }
}

/** The scenario with the drawn topology: processes `p1`, `p2`, each worker in one, eligible steps (about half) run by a helper. */
export function withTopology(s: Scenario, t: TopologyDraw | undefined): Scenario {
  if (t === undefined) return s;
  const processes = Array.from({ length: t.processes }, (_, i) => ({ id: `p${i + 1}`, poolSize: t.sizes[i]!, ...(t.acquireTimeoutMs === undefined ? {} : { acquireTimeoutMs: t.acquireTimeoutMs }) }));
  let k = 0;
  return {
    ...s,
    processes,
    workers: s.workers.map((w, i) => ({
      ...w,
      process: `p${(t.assign[i % t.assign.length]! % t.processes) + 1}`,
      steps: w.steps.map((st) => (helperAllowed(s, st) && t.helpers[k++ % t.helpers.length] ? { ...st, helper: true } : st)) as typeof w.steps,
    })),
  };
}

/**
 * The scenario with its lease in etcd (`lockService: { kind: 'etcd' }`), made valid for it: the
 * TTL rounded up to whole seconds, a Redis-only renewal (`set`, `set-px`, `pexpire`) made a
 * keep-alive, a Redis INCR token made the grant's revision, the key one etcdctl takes unquoted,
 * Redis failovers and clock jumps left out.
 */
export function leaseInEtcd(s: Scenario): Scenario {
  const m = s.mechanism;
  const redisOnly = m.renewal === 'set' || m.renewal === 'set-px' || m.renewal === 'pexpire';
  return {
    ...s,
    lockService: { kind: 'etcd' },
    lease: { ...s.lease, key: s.lease.key.replace(/[^A-Za-z0-9_:./-]/g, '-'), ttlMs: ttlSecondsOf(s.lease.ttlMs) * 1000 },
    mechanism: { ...m, renewal: redisOnly ? 'compare-and-extend' : m.renewal, fenceSource: m.fenceSource === 'db-sequence' ? 'db-sequence' : 'lock-service-revision' },
    faults: s.faults.filter((f) => f.kind !== 'failover' && f.kind !== 'clockJump'),
  };
}

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
      dbSettings: databaseSettingsArb,
      // PgBouncer in front of the database (or the preset's own setting), 1–3 server connections.
      pooler: fc.option(fc.record({ mode: fc.constantFrom('session' as const, 'transaction' as const), serverConnections: fc.integer({ min: 1, max: 3 }) }), { nil: undefined }),
      topology: topologyArb,
      // One scenario in four keeps its lease in etcd.
      etcd: fc.integer({ min: 0, max: 3 }).map((n) => n === 0),
      // Half of them keep the preset's destination; the others get a file store or an API that may check tokens and keys.
      destination: fc.option(fc.record({ kind: fc.constantFrom('file' as const, 'api' as const), checksFencing: fc.boolean(), honoursIdempotencyKeys: fc.boolean() }), { nil: undefined }),
    }).map((r): Scenario => {
      const s: Scenario = withTopology({
        ...base,
        destination: r.destination === undefined ? base.destination : { ...base.destination, ...r.destination },
        database: { ...base.database, ...r.dbSettings, ...(r.pooler === undefined ? {} : { pooler: r.pooler }) },
        seed: r.seed,
        mechanism: { ...base.mechanism, ...r.mechanism },
        lease: { ...base.lease, replicationLagMs: r.lag },
        workers: base.workers.map((w, i) => ({ ...w, startMs: r.starts[i]! })),
        faults: [...base.faults, ...r.faults],
      }, r.topology);
      return r.etcd ? leaseInEtcd(s) : s;
    });
  });

