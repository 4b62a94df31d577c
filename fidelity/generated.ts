/**
 * Generated sequences (fast-check): random interleavings of statements over 2–4 sessions on a
 * small schema (unique key, CHECK, row locks, advisory locks in both key spaces), and random
 * Redis command sequences (untimed with long TTLs, and timed with short TTLs on a 100 ms grid whose
 * expiry instants fall at least 50 ms away from every command). Each run prints its seed; a
 * disagreement prints the shrunk sequence with the model's and the server's replies.
 */
import fc from 'fast-check';
import { Database } from '../src/sim/resources/database';
import { findCycleThrough } from '../src/sim/resources/deadlock';
import type { AdvisoryFn, AdvisoryKey, Stmt, TableSpec } from '../src/sim/resources/sqlTypes';
import type { RedisCmd } from '../src/sim/resources/redisTypes';
import { runSqlCase } from './sqlHarness';
import { runRedisCase, newRedis } from './redisHarness';
import type { CaseResult, RedisCase, SqlCase, SqlOp } from './types';

const GEN_INVOICES: TableSpec = {
  name: 'invoices',
  columns: [{ name: 'id', type: 'bigint', serial: true }, { name: 'order_id', type: 'bigint' }, { name: 'amount', type: 'bigint' }],
  primaryKey: ['id'],
  unique: [{ name: 'invoices_order_id_key', columns: ['order_id'] }],
  initialRows: [{ order_id: 1, amount: 10 }],
};
const GEN_ITEMS: TableSpec = {
  name: 'items',
  columns: [{ name: 'id', type: 'bigint' }, { name: 'stock', type: 'bigint' }, { name: 'note', type: 'text' }],
  primaryKey: ['id'],
  checks: [{ name: 'items_stock_check', column: 'stock', min: 0 }],
  initialRows: [{ id: 1, stock: 2, note: 'a' }, { id: 2, stock: 4, note: 'b' }],
};

const ADVISORY_FNS: readonly AdvisoryFn[] = [
  'pg_advisory_lock', 'pg_advisory_lock_shared', 'pg_try_advisory_lock', 'pg_try_advisory_lock_shared',
  'pg_advisory_unlock', 'pg_advisory_unlock_shared', 'pg_advisory_xact_lock', 'pg_advisory_xact_lock_shared',
  'pg_try_advisory_xact_lock', 'pg_try_advisory_xact_lock_shared',
];

/** Advisory keys of one lane (lanes run in parallel against one database, so their keys differ). */
function laneKeys(lane: number): AdvisoryKey[] {
  const base = 1000 + lane * 10;
  return [{ kind: 'bigint', key: base + 1 }, { kind: 'bigint', key: base + 2 }, { kind: 'pair', key1: 0, key2: base + 1 }, { kind: 'pair', key1: base + 1, key2: 2 }];
}

/** Statements over the generated schema; advisory keys are indices into the lane's keys. */
export type GenStmt = { readonly advisory: number; readonly fn: AdvisoryFn } | { readonly stmt: Stmt };

function stmtArb(): fc.Arbitrary<GenStmt> {
  const order = fc.constantFrom(1, 2, 3);
  const fresh = fc.constantFrom(2, 2, 3);
  const item = fc.constantFrom(1, 1, 2);
  const s = (a: fc.Arbitrary<Stmt>): fc.Arbitrary<GenStmt> => a.map((stmt) => ({ stmt }));
  return fc.oneof(
    { weight: 5, arbitrary: s(fc.constant<Stmt>({ op: 'begin' })) },
    { weight: 3, arbitrary: s(fc.constant<Stmt>({ op: 'commit' })) },
    { weight: 2, arbitrary: s(fc.constant<Stmt>({ op: 'rollback' })) },
    { weight: 6, arbitrary: fc.record({ advisory: fc.integer({ min: 0, max: 3 }), fn: fc.constantFrom(...ADVISORY_FNS) }) },
    { weight: 1, arbitrary: s(fc.constant<Stmt>({ op: 'advisoryUnlockAll' })) },
    {
      weight: 4,
      arbitrary: s(fc.record({ order: fresh, dn: fc.boolean(), ret: fc.boolean() }).map(({ order: o, dn, ret }): Stmt => ({
        op: 'insert', table: 'invoices', values: { order_id: o, amount: 5 }, ...(dn ? { onConflictDoNothing: true } : {}), ...(ret ? { returning: ['id'] } : {}),
      }))),
    },
    { weight: 2, arbitrary: s(order.map((o): Stmt => ({ op: 'select', table: 'invoices', columns: ['order_id'], where: { order_id: o } }))) },
    { weight: 1, arbitrary: s(order.map((o): Stmt => ({ op: 'delete', table: 'invoices', where: { order_id: o } }))) },
    { weight: 1, arbitrary: s(fc.tuple(order, order).map(([a, b2]): Stmt => ({ op: 'update', table: 'invoices', set: { order_id: b2 }, where: { order_id: a } }))) },
    {
      weight: 4,
      arbitrary: s(fc.record({ id: item, d: fc.constantFrom(-1, 1, -1, -2), ret: fc.boolean() }).map(({ id, d, ret }): Stmt => ({
        op: 'update', table: 'items', set: { stock: { column: 'stock', add: d } }, where: { id }, ...(ret ? { returning: ['stock'] } : {}),
      }))),
    },
    { weight: 1, arbitrary: s(fc.record({ id: item, note: fc.constantFrom('x', 'y') }).map(({ id, note }): Stmt => ({ op: 'update', table: 'items', set: { note }, where: { id, note: 'a' } }))) },
    {
      weight: 4,
      arbitrary: s(fc.record({ id: fc.option(item, { nil: undefined }), lock: fc.constantFrom(undefined, 'forUpdate', 'forUpdateNowait', 'forUpdateSkipLocked') }).map(({ id, lock }): Stmt => ({
        op: 'select', table: 'items', columns: ['id', 'stock'], where: id === undefined ? {} : { id }, ...(lock ? { lock: lock as 'forUpdate' } : {}),
      }))),
    },
  );
}

export type GenOp = { readonly s: number; readonly g: GenStmt } | { readonly s: number; readonly special: 'close' | 'cancel' };
export type ScriptItem = GenStmt | { readonly special: 'close' | 'cancel' };

const BEGIN_G: GenStmt = { stmt: { op: 'begin' } };
const unlockOf = (fn: AdvisoryFn): AdvisoryFn | null =>
  fn.includes('xact') || fn.includes('unlock') ? null : fn.includes('shared') ? 'pg_advisory_unlock_shared' : 'pg_advisory_unlock';

/**
 * One session's script: blocks that look like application code (so locks get released and
 * waiters get to proceed) — a transaction of 1–4 statements ended by COMMIT or ROLLBACK, a
 * session-level advisory lock around a few statements with its unlock, or a lone statement — plus
 * the occasional session end or cancel.
 */
const blockArb: fc.Arbitrary<ScriptItem[]> = fc.oneof(
  { weight: 5, arbitrary: fc.record({ body: fc.array(stmtArb(), { minLength: 1, maxLength: 4 }), end: fc.constantFrom<Stmt>({ op: 'commit' }, { op: 'commit' }, { op: 'rollback' }) }).map(({ body, end }) => [BEGIN_G, ...body, { stmt: end }]) },
  {
    weight: 2,
    arbitrary: fc.record({ key: fc.integer({ min: 0, max: 3 }), fn: fc.constantFrom<AdvisoryFn>('pg_advisory_lock', 'pg_advisory_lock_shared', 'pg_try_advisory_lock'), body: fc.array(stmtArb(), { maxLength: 2 }) })
      .map(({ key, fn, body }) => [{ advisory: key, fn }, ...body, { advisory: key, fn: unlockOf(fn) ?? 'pg_advisory_unlock' }]),
  },
  { weight: 3, arbitrary: stmtArb().map((g) => [g]) },
  { weight: 1, arbitrary: fc.constantFrom<'close' | 'cancel'>('close', 'cancel').map((special) => [{ special }]) },
);

const scriptArb = fc.array(blockArb, { minLength: 1, maxLength: 4 }).map((blocks) => blocks.flat());

/** 2–4 session scripts and an interleaving (which session moves next). */
export const sqlSequenceArb = fc.integer({ min: 2, max: 4 }).chain((n) => fc.array(scriptArb, { minLength: n, maxLength: n })).chain((scripts) => {
  const total = scripts.reduce((sum, x) => sum + x.length, 0);
  return fc.record({ scripts: fc.constant(scripts), order: fc.array(fc.integer({ min: 0, max: scripts.length - 1 }), { minLength: total, maxLength: total }) });
}).map(({ scripts, order }) => {
  const pc = scripts.map(() => 0);
  const ops: GenOp[] = [];
  const take = (s: number): void => {
    const item = scripts[s]?.[pc[s] ?? 0];
    if (!item) return;
    pc[s] = (pc[s] ?? 0) + 1;
    ops.push('special' in item ? { s, special: item.special } : { s, g: item });
  };
  for (const s of order) take(s);
  // Let every session finish its script (waiters must see their blockers finish).
  for (let s = 0; s < scripts.length; s++) while ((pc[s] ?? 0) < (scripts[s]?.length ?? 0)) take(s);
  return { sessions: scripts.length, ops };
});
export type SqlSequence = { sessions: number; ops: GenOp[] };

/**
 * Turns a generated sequence into a runnable case by running the model alone: a session whose
 * statement waits sends nothing more until it returns (its later steps are deferred, as
 * application code blocks on the call); a cancel with nothing waiting is dropped; a closed
 * session sends nothing. Steps of a session still waiting at the end are dropped.
 *
 * Deadlocks: whenever a step leaves a wait cycle, time passes until a deadlock timer fires: the
 * earliest waiter (by wait start) whose wait is on a cycle gets a `deadlockCheck` step — with equal
 * `deadlock_timeout`s its timer is the first to fire while the cycle exists; waiters not on a cycle
 * keep long timers. Repeated until no unchecked wait is on a cycle (a victim's abort may leave
 * another cycle; a soft cycle is checked once and then left, the harness stops comparing there).
 */
export function toSqlCase(seq: SqlSequence, lane: number, name: string): SqlCase {
  const ids = Array.from({ length: seq.sessions }, (_, i) => `s${i + 1}`);
  const keys = laneKeys(lane);
  const db = new Database([GEN_INVOICES, GEN_ITEMS]);
  ids.forEach((id) => db.openSession(id));
  const closed = new Set<string>();
  const deferred = new Map<string, GenOp[]>();
  const ops: SqlOp[] = [];
  const isWaiting = (s: string): boolean => db.sessionState(s).waiting !== null;
  const apply = (op: GenOp): void => {
    const s = ids[op.s] as string;
    if (closed.has(s)) return;
    if (isWaiting(s) && !('special' in op && op.special === 'cancel')) {
      deferred.set(s, [...(deferred.get(s) ?? []), op]);
      return;
    }
    if ('special' in op) {
      if (op.special === 'close') {
        db.closeSession(s);
        closed.add(s);
        ops.push({ s, close: true });
      } else if (isWaiting(s)) {
        db.cancelWaiting(s, { code: '57014', message: 'canceling statement due to user request' });
        ops.push({ s, cancel: 'userRequest' });
      }
      return;
    }
    const stmt: Stmt = 'stmt' in op.g ? op.g.stmt : { op: 'advisory', fn: op.g.fn, key: keys[op.g.advisory] as AdvisoryKey };
    db.execute(s, stmt);
    ops.push({ s, stmt });
  };
  const flush = (): boolean => {
    let progressed = false;
    for (const s of ids) {
      const queue = deferred.get(s);
      while (queue && queue.length > 0 && !closed.has(s) && !isWaiting(s)) {
        apply(queue.shift() as GenOp);
        progressed = true;
      }
    }
    return progressed;
  };
  const checked = new Set<number>();
  /** Fires the timer of the earliest unchecked waiter on a cycle; true if there was one. */
  const breakCycle = (): boolean => {
    const edges = db.waitForGraph();
    const waiters = ids
      .flatMap((s) => {
        const w = closed.has(s) ? null : db.sessionState(s).waiting;
        return w && !checked.has(w.waitId) ? [{ s, waitId: w.waitId }] : [];
      })
      .sort((a, b) => a.waitId - b.waitId);
    const victim = waiters.find((w) => findCycleThrough(edges, w.s, true) !== null);
    if (!victim) return false;
    checked.add(victim.waitId);
    db.checkDeadlock(victim.s);
    ops.push({ s: victim.s, deadlockCheck: true });
    return true;
  };
  const settle = (): void => {
    while (flush() || breakCycle());
  };
  for (const op of seq.ops) {
    settle();
    apply(op);
  }
  settle();
  return { name, primitive: 'generated SQL', tables: [GEN_INVOICES, GEN_ITEMS], sessions: ids, ops };
}

// ---- Redis ----

const rKey = fc.constantFrom('k1', 'k2', 'fence');
// Counters stay far below 2^53: the model's integer replies are JS numbers (documented in redisTypes.ts).
const rVal = fc.constantFrom('A', 'B', '5', '-3', '05');

function redisCmdArb(ttls: readonly number[], pexpires: readonly number[]): fc.Arbitrary<RedisCmd> {
  return fc.oneof(
    {
      weight: 5,
      arbitrary: fc.record({ key: rKey, value: rVal, cond: fc.constantFrom(undefined, 'nx', 'xx'), ttl: fc.constantFrom(undefined, 'keep', ...ttls) }).map(({ key, value, cond, ttl }): RedisCmd => ({
        op: 'SET', key, value, ...(cond === 'nx' ? { nx: true } : cond === 'xx' ? { xx: true } : {}),
        ...(ttl === 'keep' ? { keepTtl: true } : typeof ttl === 'number' ? { pxMs: ttl } : {}),
      })),
    },
    { weight: 2, arbitrary: rKey.map((key): RedisCmd => ({ op: 'GET', key })) },
    { weight: 1, arbitrary: fc.uniqueArray(rKey, { minLength: 1, maxLength: 2 }).map((keys): RedisCmd => ({ op: 'DEL', keys })) },
    { weight: 2, arbitrary: fc.record({ key: rKey, ms: fc.constantFrom(...pexpires) }).map(({ key, ms }): RedisCmd => ({ op: 'PEXPIRE', key, ms })) },
    { weight: 2, arbitrary: rKey.map((key): RedisCmd => ({ op: 'PTTL', key })) },
    { weight: 2, arbitrary: rKey.map((key): RedisCmd => ({ op: 'INCR', key })) },
    { weight: 2, arbitrary: fc.record({ key: rKey, token: rVal }).map(({ key, token }): RedisCmd => ({ op: 'COMPARE_AND_DELETE', key, token })) },
    { weight: 2, arbitrary: fc.record({ key: rKey, token: rVal, ms: fc.constantFrom(...pexpires) }).map(({ key, token, ms }): RedisCmd => ({ op: 'COMPARE_AND_EXTEND', key, token, ms })) },
  );
}

/** Untimed: every command at t = 0 with TTLs of a minute or more (time plays no part). */
export const redisUntimedArb = fc.array(redisCmdArb([60_000, 120_000, 0], [90_000, 0, -1]), { minLength: 2, maxLength: 20 });

/** Timed: commands on a 100 ms grid (0–800 ms); TTLs and PEXPIRE values end at x50 ms, so no command is within 50 ms of an expiry. */
export const redisTimedArb = fc.array(fc.record({ slot: fc.integer({ min: 0, max: 8 }), cmd: redisCmdArb([150, 250, 450], [150, 350, 0]) }), { minLength: 2, maxLength: 14 })
  .map((xs) => [...xs].sort((a, b) => a.slot - b.slot));

// ---- running ----

export interface GeneratedReport {
  readonly results: CaseResult[];
  readonly failures: string[];
}

function printFailure(kind: string, seed: number, details: fc.RunDetails<unknown>, result: CaseResult | null): string {
  const lines = [
    `${kind}: DISAGREEMENT (seed ${seed}, path ${details.counterexamplePath ?? '?'}; rerun with FIDELITY_SEED=${seed})`,
    `  shrunk sequence and replies:`,
    ...(result ? result.transcript.map((l) => `    ${l}`) : []),
    ...(result ? result.problems.map((p) => `  ✗ ${p}`) : []),
  ];
  return lines.join('\n');
}

/** Runs `numRuns` generated SQL sequences across `lanes` parallel lanes (each its own advisory keys and schemas). */
export async function runGeneratedSql(seed: number, numRuns: number, lanes: number): Promise<GeneratedReport> {
  const results: CaseResult[] = [];
  const failures: string[] = [];
  const perLane = Math.ceil(numRuns / lanes);
  await Promise.all(Array.from({ length: lanes }, async (_, lane) => {
    let last: CaseResult | null = null;
    let n = 0;
    const prop = fc.asyncProperty(sqlSequenceArb, async (seq) => {
      const r = await runSqlCase(toSqlCase(seq, lane, `generated SQL lane ${lane} #${++n}`), `g${lane}`);
      last = r;
      if (n <= perLane) results.push(r);
      return r.outcome !== 'disagree';
    });
    const details = await fc.check(prop, { seed: seed + lane, numRuns: perLane, endOnFailure: false });
    if (details.failed) {
      // Re-run the shrunk counterexample to print its transcript.
      const seq = (details.counterexample as [SqlSequence] | null)?.[0];
      last = seq ? await runSqlCase(toSqlCase(seq, lane, 'shrunk'), `g${lane}`) : last;
      failures.push(printFailure(`generated SQL lane ${lane}`, seed + lane, details as fc.RunDetails<unknown>, last));
    }
  }));
  return { results, failures };
}

/** Runs generated Redis sequences: `untimed` sequentially, `timed` concurrently (each with its own key prefix and connection). */
export async function runGeneratedRedis(seed: number, untimed: number, timed: number): Promise<GeneratedReport> {
  const results: CaseResult[] = [];
  const failures: string[] = [];
  const redis = newRedis();
  await redis.connect();
  try {
    let n = 0;
    const d1 = await fc.check(fc.asyncProperty(redisUntimedArb, async (cmds) => {
      const c: RedisCase = { name: `generated Redis #${++n}`, primitive: 'generated Redis', ops: cmds.map((cmd) => ({ atMs: 0, cmd })) };
      const r = await runRedisCase(c, redis);
      if (n <= untimed) results.push(r);
      return r.outcome !== 'disagree';
    }), { seed, numRuns: untimed });
    if (d1.failed) {
      const cmds = (d1.counterexample as [RedisCmd[]] | null)?.[0] ?? [];
      const r = await runRedisCase({ name: 'shrunk', primitive: 'generated Redis', ops: cmds.map((cmd) => ({ atMs: 0, cmd })) }, redis);
      failures.push(printFailure('generated Redis (untimed)', seed, d1 as fc.RunDetails<unknown>, r));
    }
    // Timed sequences: sample them with the seed, run them concurrently (each lasts under a second).
    const samples = fc.sample(redisTimedArb, { seed: seed + 101, numRuns: timed });
    const timedResults = await Promise.all(samples.map(async (xs, i) => {
      const conn = newRedis();
      await conn.connect();
      try {
        return await runRedisCase({ name: `generated timed Redis #${i + 1}`, primitive: 'Redis expiry (timed)', ops: xs.map((x) => ({ atMs: x.slot * 100, cmd: x.cmd })) }, conn);
      } finally {
        conn.disconnect();
      }
    }));
    results.push(...timedResults);
    for (const r of timedResults.filter((x) => x.outcome === 'disagree')) {
      failures.push([`generated timed Redis: DISAGREEMENT in ${r.name} (seed ${seed + 101})`, ...r.transcript.map((l) => `    ${l}`), ...r.problems.map((p) => `  ✗ ${p}`)].join('\n'));
    }
  } finally {
    redis.disconnect();
  }
  return { results, failures };
}
