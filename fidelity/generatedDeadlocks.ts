/**
 * Generated sequences that are likely to deadlock (issue 17): 2–3 sessions, each running
 * transactions that take two or three resources one after the other — advisory xact locks
 * (exclusive or shared), session-level advisory locks, row locks (UPDATE, `SELECT … FOR UPDATE`,
 * DELETE) and unique inserts — from a pool of 2–3 resources per sequence, in random order, randomly
 * interleaved. The general generator (`sqlSequenceArb`) closes a cycle in about 0.5 % of its
 * sequences; these in about 30 % (fast-check seed 12345: 621 of 2000 run a deadlock check, 36 of
 * them reach a soft cycle). `toSqlCase` adds the `deadlockCheck` steps; the harness compares every
 * 40P01.
 *
 * A separate arbitrary (seed entries with `generator: 'deadlocks'`, summary row `generated
 * deadlocks`) so that the seeds of the general generator keep producing the same sequences.
 */
import fc from 'fast-check';
import type { AdvisoryFn, Stmt } from '../src/sim/resources/sqlTypes';
// Types only: generated.ts imports this module's arbitrary.
import { interleaved, type GenStmt, type ScriptItem, type SqlSequence } from './generated';

/** The resources a sequence fights over. Advisory keys are indices into the lane's keys (`laneKeys` in generated.ts). */
type Resource = { readonly advisory: number } | { readonly item: number } | { readonly order: number };
const RESOURCES: readonly Resource[] = [{ advisory: 0 }, { advisory: 1 }, { item: 1 }, { item: 2 }, { order: 2 }, { order: 3 }];

/** One way of taking a resource (lock mode and scope, or which row-locking statement). */
function takeArb(r: Resource): fc.Arbitrary<GenStmt> {
  if ('advisory' in r) {
    return fc.constantFrom<AdvisoryFn>('pg_advisory_xact_lock', 'pg_advisory_xact_lock', 'pg_advisory_xact_lock_shared', 'pg_advisory_lock').map((fn) => ({ advisory: r.advisory, fn }));
  }
  if ('item' in r) {
    const where = { id: r.item };
    return fc.constantFrom<Stmt>(
      { op: 'update', table: 'items', set: { stock: { column: 'stock', add: 1 } }, where },
      { op: 'update', table: 'items', set: { stock: { column: 'stock', add: 1 } }, where },
      { op: 'select', table: 'items', columns: ['id', 'stock'], where, lock: 'forUpdate' },
      { op: 'delete', table: 'items', where },
    ).map((stmt) => ({ stmt }));
  }
  return fc.constant<GenStmt>({ stmt: { op: 'insert', table: 'invoices', values: { order_id: r.order, amount: 5 }, returning: ['id'] } });
}

const END: readonly Stmt[] = [{ op: 'commit' }, { op: 'commit' }, { op: 'rollback' }];

/**
 * A transaction taking 2–3 resources of the pool in a random order, then COMMIT or ROLLBACK;
 * session-level locks it took are unlocked after it.
 */
function txnArb(pool: readonly Resource[]): fc.Arbitrary<ScriptItem[]> {
  const picks = fc.shuffledSubarray([...pool], { minLength: 2, maxLength: Math.min(3, pool.length) }).chain((rs) => fc.tuple(...rs.map(takeArb)));
  return fc.record({ takes: picks, end: fc.constantFrom(...END) }).map(({ takes, end }) => {
    const unlocks = takes.flatMap((t): GenStmt[] => ('advisory' in t && t.fn === 'pg_advisory_lock' ? [{ advisory: t.advisory, fn: 'pg_advisory_unlock' }] : []));
    return [{ stmt: { op: 'begin' } }, ...takes, { stmt: end }, ...unlocks];
  });
}

/** 2–3 scripts over a pool of 2–3 resources, and an interleaving, as `sqlSequenceArb` builds them. */
export const deadlockSequenceArb: fc.Arbitrary<SqlSequence> = interleaved(fc
  .record({ n: fc.integer({ min: 2, max: 3 }), pool: fc.uniqueArray(fc.constantFrom(...RESOURCES), { minLength: 2, maxLength: 3 }) })
  .chain(({ n, pool }) => fc.array(fc.array(txnArb(pool), { minLength: 1, maxLength: 2 }).map((blocks) => blocks.flat()), { minLength: n, maxLength: n })));
