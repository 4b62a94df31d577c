/**
 * Narration follows the reply, never the intent. A worker's event is worded by the *class* of the
 * reply it got — what the command did — and every call site must word every class its resource
 * can answer with (the case objects below have no optional members). So a command that timed out
 * cannot be narrated as if it had run, an `INSERT 0 0` cannot be narrated as a write, and a
 * refused request cannot be narrated as accepted: there is no code path that would say so.
 *
 * Classes:
 * - `ok`: the command did what was asked (`OK`, `(integer) 1`, `INSERT 0 1`, `UPDATE 1`, rows).
 * - `none`: it ran and changed or found nothing (`(nil)`, `(integer) 0`, `INSERT 0 0`, `UPDATE 0`,
 *   `SELECT 0`, a `pg_try_advisory_lock` / `pg_try_advisory_xact_lock` that returns `f`).
 * - `refused`: the server answered but declined (PostgreSQL's `pg_advisory_unlock` false with a
 *   WARNING; a COMMIT of a failed transaction answered `ROLLBACK`). SQL only.
 * - `error`: an error reply (SQLSTATE, Redis `-ERR`).
 * - `timeout`: no reply at all (the client is cut off: `(no reply: connection timed out)`); the
 *   caller cannot know whether the command ran. Redis only here.
 * Sources: PostgreSQL "Command tags" (psql), "Advisory Lock Functions"; Redis "Protocol spec"
 * (RESP replies).
 */
import type { World, WorkerRuntime, ReplyHandler, Narrated } from '../engine/world';
import type { DbReply, Stmt } from '../resources/sqlTypes';
import { REDIS_TIMEOUT_MESSAGE, type RedisCmd, type RedisReply } from '../resources/redisTypes';

/** A reply that did not wait (what SQL narration sees). */
export type SqlDone = Exclude<DbReply, { status: 'waits' }>;
/** An `ok` SQL reply. */
export type SqlOk = Extract<DbReply, { status: 'ok' }>;
/** An `error` SQL reply. */
export type SqlError = Extract<DbReply, { status: 'error' }>;

/** The class of a SQL reply. */
export type SqlClass = 'ok' | 'none' | 'refused' | 'error';
/** The class of a Redis reply. */
export type RedisClass = 'ok' | 'none' | 'error' | 'timeout';

/** Command tags of statements that touched or returned no row. */
const ZERO_ROWS = /^(INSERT 0 0|UPDATE 0|DELETE 0|SELECT 0)$/;

/** The class of a SQL reply to `stmt` (a waiting reply has no class: it is narrated when it ends). */
export function sqlClassOf(stmt: Stmt, r: SqlDone): SqlClass {
  if (r.status === 'error') return 'error';
  if (r.warning !== undefined) return 'refused';
  if (stmt.op === 'commit' && r.tag === 'ROLLBACK') return 'refused';
  if (ZERO_ROWS.test(r.tag)) return 'none';
  // A try-lock that did not get the lock answers `f` and changes nothing (never a WARNING).
  if (stmt.op === 'advisory' && stmt.fn.startsWith('pg_try_') && r.rows[0]?.[stmt.fn] === 'f') return 'none';
  return 'ok';
}

/** The class of a Redis reply (`REDIS_TIMEOUT_MESSAGE` marks the reply the world gives a cut-off client). */
export function redisClassOf(r: RedisReply): RedisClass {
  if (r.kind === 'error') return r.message === REDIS_TIMEOUT_MESSAGE ? 'timeout' : 'error';
  if (r.kind === 'nil') return 'none';
  if (r.kind === 'int' && r.value === 0) return 'none';
  return 'ok';
}

/** Narration of a SQL reply, one sentence per class (all required). */
export interface SqlCases {
  /** Belief and metric updates from the reply (runs before the event, so the event shows them). */
  readonly believe?: (r: SqlDone, c: SqlClass) => void;
  readonly ok: (r: SqlOk) => string;
  readonly none: (r: SqlOk) => string;
  readonly refused: (r: SqlOk) => string;
  readonly error: (r: SqlError) => string;
}

/** Narration of a Redis reply, one per class (all required), optionally with event data. */
export interface RedisCases {
  readonly believe?: (r: RedisReply, c: RedisClass) => void;
  readonly ok: (r: RedisReply) => string | Narrated;
  readonly none: (r: RedisReply) => string | Narrated;
  readonly error: (r: Extract<RedisReply, { kind: 'error' }>) => string | Narrated;
  readonly timeout: () => string | Narrated;
}

/** A reply handler that words a SQL reply to `stmt` by its class. */
export function sqlHandler(stmt: Stmt, cases: SqlCases): ReplyHandler<DbReply, string> {
  const classed = (r: DbReply): [SqlDone, SqlClass] => {
    if (r.status === 'waits') throw new Error('a waiting reply is narrated when the statement ends, not now');
    return [r, sqlClassOf(stmt, r)];
  };
  return {
    believe: cases.believe === undefined ? undefined : (r) => {
      const [done, c] = classed(r);
      cases.believe!(done, c);
    },
    say: (r) => {
      const [done, c] = classed(r);
      if (done.status === 'error') return cases.error(done);
      return cases[c as Exclude<SqlClass, 'error'>](done);
    },
  };
}

/** A reply handler that words a Redis reply by its class. */
export function redisHandler(cases: RedisCases): ReplyHandler<RedisReply> {
  return {
    believe: cases.believe === undefined ? undefined : (r) => cases.believe!(r, redisClassOf(r)),
    say: (r) => {
      const c = redisClassOf(r);
      if (r.kind === 'error') return c === 'timeout' ? cases.timeout() : cases.error(r);
      return cases[c as 'ok' | 'none'](r);
    },
  };
}

/** Runs `stmt` for the worker, worded by the reply's class; `k` continues with the reply. */
export function runSql(world: World, w: WorkerRuntime, stmt: Stmt, cases: SqlCases, k: (r: DbReply) => void): void {
  world.sql(w, stmt, sqlHandler(stmt, { ...cases, believe: (r, c) => {
    // A helper's error aborts nothing of its caller's transaction.
    if (c === 'error' && w.helper === null) forgetAbortedLocks(world, w);
    cases.believe?.(r, c);
  } }), k);
}

/**
 * Any ERROR inside a transaction aborts it, and PostgreSQL releases the transaction's locks at the
 * error, not at the later ROLLBACK (row locks and transaction-level advisory locks; the block stays
 * open, "current transaction is aborted"): the client saw the error, so it no longer believes it
 * holds them. Only a session-level advisory lock its session still holds survives (PostgreSQL
 * "Advisory Locks"; ../shared/semantics.md, "PostgreSQL advisory locks" and "Row locks").
 */
function forgetAbortedLocks(world: World, w: WorkerRuntime): void {
  const b = world.beliefs(w);
  if (!b.holdsLock) return;
  // The database session its statements run on (behind a pooler, the server connection linked to it).
  const session = world.sessionOf(w);
  // A session the server ended (FATAL 25P03) holds nothing any more.
  const sessionLockLeft = world.scenario.mechanism.lock === 'advisory-session' && session !== null && world.db.hasSession(session)
    && world.db.sessionState(session).advisoryLocks.some((l) => l.sessionCount > 0);
  if (!sessionLockLeft) world.send(w, 'BELIEVE', { holdsLock: false });
}

/** Sends a Redis command for the worker (or an actor), worded by the reply's class. Returns the reply. */
export function runRedis(world: World, actor: string, cmd: RedisCmd, cases: RedisCases, w?: WorkerRuntime): RedisReply {
  return world.redis(actor, cmd, redisHandler(cases), w);
}
