/**
 * Generated sequences (fast-check): random interleavings of statements over 2–4 sessions on a
 * small schema (unique key, CHECK, row locks, advisory locks in both key spaces), and random
 * Redis command sequences (untimed with long TTLs, and timed with short TTLs on a 100 ms grid whose
 * expiry instants fall at least 50 ms away from every command).
 *
 * A SQL seed run is a fast-check seed and a number of sequences (`fidelity/seeds.ts`); the
 * advisory keys come from the worker slot that runs it and do not change what is generated.
 * Every disagreement goes through the confirmation rule (`confirm.ts`), also while shrinking, so the
 * shrunk sequence printed is one that disagreed every time, with the step and both answers.
 */
import fc from 'fast-check';
import { Database } from '../src/sim/resources/database';
import { findCycleThrough } from '../src/sim/resources/deadlock';
import type { AdvisoryFn, AdvisoryKey, Stmt, TableSpec } from '../src/sim/resources/sqlTypes';
import type { RedisCmd } from '../src/sim/resources/redisTypes';
import { runSqlCase } from './sqlHarness';
import type Redis from 'ioredis';
import { runRedisCase, newRedis } from './redisHarness';
import { formatDisagreement, formatFlake, runConfirmed, type Flake } from './confirm';
import { deadlockSequenceArb } from './generatedDeadlocks';
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

/** Advisory keys of one worker slot (slots run in parallel against one database, so their keys differ). */
function slotKeys(slot: number): AdvisoryKey[] {
  const base = 1000 + slot * 10;
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

/**
 * Session scripts run in a random interleaving: `order` says which session moves next; then every
 * session finishes its script (waiters must see their blockers finish). Shared by the SQL and the
 * deadlock generators (the same fast-check steps, so a seed draws what it always drew).
 */
export function interleaved(scriptsArb: fc.Arbitrary<ScriptItem[][]>): fc.Arbitrary<SqlSequence> {
  return scriptsArb.chain((scripts) => {
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
    for (let s = 0; s < scripts.length; s++) while ((pc[s] ?? 0) < (scripts[s]?.length ?? 0)) take(s);
    return { sessions: scripts.length, ops };
  });
}

/** 2–4 session scripts and an interleaving (which session moves next). */
export const sqlSequenceArb = interleaved(fc.integer({ min: 2, max: 4 }).chain((n) => fc.array(scriptArb, { minLength: n, maxLength: n })));
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
export function toSqlCase(seq: SqlSequence, slot: number, name: string): SqlCase {
  const ids = Array.from({ length: seq.sessions }, (_, i) => `s${i + 1}`);
  const keys = slotKeys(slot);
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

/** One generated SQL run: `runs` sequences from fast-check seed `seed`. */
export interface SqlSeedRun {
  readonly seed: number;
  readonly runs: number;
  /** Which arbitrary: `general` (`sqlSequenceArb`, the default) or `deadlocks` (`deadlockSequenceArb`, summary row "generated deadlocks"). */
  readonly generator?: 'general' | 'deadlocks';
}

/** One generated Redis run: `untimed` sequences from seed `seed`, `timed` from `seed + 101`. */
export interface RedisSeedRun {
  readonly seed: number;
  readonly untimed: number;
  readonly timed: number;
}

export interface GeneratedReport {
  /** Results of the sequences run before any confirmed disagreement (shrink attempts are not counted). */
  readonly results: CaseResult[];
  /** Printed confirmed disagreements (the shrunk sequence, its differing step and transcript). */
  readonly failures: string[];
  /** Printed flake warnings. */
  readonly flakes: string[];
  /** The entries that found a confirmed disagreement, with its first problem. */
  readonly failing: { readonly kind: 'sql' | 'redis' | 'etcd'; readonly label: string; readonly seed: number; readonly problem: string }[];
}

function emptyReport(): GeneratedReport {
  return { results: [], failures: [], flakes: [], failing: [] };
}

/** Runs one SQL seed entry with the advisory keys of worker `slot`. */
async function runSqlSeed(entry: SqlSeedRun, slot: number): Promise<GeneratedReport> {
  const report = emptyReport();
  const deadlocks = entry.generator === 'deadlocks';
  const label = `generated ${deadlocks ? 'deadlocks' : 'SQL'} seed ${entry.seed}`;
  const arb: fc.Arbitrary<SqlSequence> = deadlocks ? deadlockSequenceArb : sqlSequenceArb;
  const caseOf = (seq: SqlSequence, name: string): SqlCase => {
    const c = toSqlCase(seq, slot, name);
    return deadlocks ? { ...c, primitive: 'generated deadlocks' } : c;
  };
  let n = 0;
  let found: CaseResult | null = null;
  let lastFailing: CaseResult | null = null;
  const prop = fc.asyncProperty(arb, async (seq) => {
    const shrinking = found !== null;
    const k = ++n;
    const { result, flake } = await runConfirmed(() => runSqlCase(caseOf(seq, `${label} #${k}`), `g${slot}`));
    if (!shrinking) {
      report.results.push(result);
      if (flake) report.flakes.push(formatFlake(`${label} #${k}`, flake));
    }
    if (result.outcome === 'disagree') {
      found ??= result;
      lastFailing = result;
      return false;
    }
    return true;
  });
  const details = await fc.check(prop, { seed: entry.seed, numRuns: entry.runs, endOnFailure: false });
  if (details.failed && found && lastFailing) {
    const first = found as CaseResult;
    const shrunk = lastFailing as CaseResult;
    report.failures.push([
      formatDisagreement(`${label}: sequence #${first.name.split('#')[1] ?? '?'} shrunk (path ${details.counterexamplePath ?? '?'}; repeat with FIDELITY_SEED=${entry.seed}: its first lane)`, shrunk),
      `  as first found (unshrunk): ${first.problems[0] ?? ''}`,
    ].join('\n'));
    report.failing.push({ kind: 'sql', label, seed: entry.seed, problem: shrunk.problems[0] ?? '' });
  } else if (details.failed) {
    report.failures.push(`${label}: fast-check failed without a disagreement: ${details.errorInstance ? String(details.errorInstance) : '?'}`);
    report.failing.push({ kind: 'sql', label, seed: entry.seed, problem: 'fast-check error' });
  }
  return report;
}

function merge(into: GeneratedReport, r: GeneratedReport): void {
  into.results.push(...r.results);
  into.failures.push(...r.failures);
  into.flakes.push(...r.flakes);
  into.failing.push(...r.failing);
}

/** Runs SQL seed entries, `parallel` at a time (each worker slot has its own advisory keys and schemas). */
export async function runGeneratedSql(entries: readonly SqlSeedRun[], parallel: number): Promise<GeneratedReport> {
  const report = emptyReport();
  const queue = [...entries];
  await Promise.all(Array.from({ length: Math.max(1, parallel) }, async (_, slot) => {
    for (let e = queue.shift(); e; e = queue.shift()) merge(report, await runSqlSeed(e, slot));
  }));
  return report;
}

/** Runs a Redis case under the confirmation rule on a new connection. */
async function confirmedRedis(c: RedisCase, redis?: Redis): Promise<{ result: CaseResult; flake: Flake | null }> {
  if (redis) return runConfirmed(() => runRedisCase(c, redis));
  const conn = newRedis();
  await conn.connect();
  try {
    return await runConfirmed(() => runRedisCase(c, conn));
  } finally {
    conn.disconnect();
  }
}

/** Untimed sequences: every command at t = 0 with TTLs of a minute or more, so a margin of 30 s. */
const UNTIMED_MARGIN_MS = 30_000;

/** Runs generated Redis sequences: `untimed` sequentially, `timed` concurrently (each with its own key prefix and connection). */
export async function runGeneratedRedis(entry: RedisSeedRun): Promise<GeneratedReport> {
  const report = emptyReport();
  const redis = newRedis();
  await redis.connect();
  try {
    let n = 0;
    let found: CaseResult | null = null;
    let lastFailing: CaseResult | null = null;
    const label = `generated Redis (untimed) seed ${entry.seed}`;
    const d1 = await fc.check(fc.asyncProperty(redisUntimedArb, async (cmds) => {
      const shrinking = found !== null;
      const k = ++n;
      const c: RedisCase = { name: `generated Redis #${k}`, primitive: 'generated Redis', marginMs: UNTIMED_MARGIN_MS, ops: cmds.map((cmd) => ({ atMs: 0, cmd })) };
      const { result, flake } = await confirmedRedis(c, redis);
      if (!shrinking) {
        report.results.push(result);
        if (flake) report.flakes.push(formatFlake(`${label} #${k}`, flake));
      }
      if (result.outcome === 'disagree') {
        found ??= result;
        lastFailing = result;
        return false;
      }
      return true;
    }), { seed: entry.seed, numRuns: entry.untimed });
    if (d1.failed && lastFailing) {
      report.failures.push(formatDisagreement(`${label}, shrunk (path ${d1.counterexamplePath ?? '?'}; repeat with FIDELITY_SEED=${entry.seed})`, lastFailing));
      report.failing.push({ kind: 'redis', label, seed: entry.seed, problem: (lastFailing as CaseResult).problems[0] ?? '' });
    }
    // Timed sequences: sample them with the seed, run them concurrently (each lasts under a second).
    const samples = fc.sample(redisTimedArb, { seed: entry.seed + 101, numRuns: entry.timed });
    const timed = await Promise.all(samples.map((xs, i) =>
      confirmedRedis({ name: `generated timed Redis #${i + 1}`, primitive: 'Redis expiry (timed)', ops: xs.map((x) => ({ atMs: x.slot * 100, cmd: x.cmd })) })));
    for (const { result, flake } of timed) {
      report.results.push(result);
      if (flake) report.flakes.push(formatFlake(`generated timed Redis seed ${entry.seed}: ${result.name}`, flake));
      if (result.outcome === 'disagree') {
        report.failures.push(formatDisagreement(`generated timed Redis seed ${entry.seed}: ${result.name} (sampled with seed ${entry.seed + 101})`, result));
        report.failing.push({ kind: 'redis', label: `generated timed Redis seed ${entry.seed}`, seed: entry.seed, problem: result.problems[0] ?? '' });
      }
    }
  } finally {
    redis.disconnect();
  }
  return report;
}
