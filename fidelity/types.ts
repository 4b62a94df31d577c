/**
 * Shared types of the fidelity suite: operation sequences for PostgreSQL and Redis (etcd's are in
 * etcd.ts), and the
 * outcome of running one sequence against the model and the real server.
 */
import type { Stmt, TableSpec } from '../src/sim/resources/sqlTypes';
import type { RedisCmd } from '../src/sim/resources/redisTypes';

/** The rows of the summary table. */
export type Primitive =
  | 'advisory locks'
  | 'unique inserts'
  | 'row locks'
  | 'transactions'
  | 'sessions & cancel'
  | 'deadlocks'
  /** Every preset's transcript (src/sim/transcript), both variants: its psql steps, then its redis-cli steps. */
  | 'transcript replay (psql)'
  | 'transcript replay (redis-cli)'
  /** Fencing in the database (scenario version 2): nextval as a token source, the conditional UPDATE as the fence. */
  | 'fencing: nextval and fenced UPDATE'
  | 'generated SQL'
  | 'generated deadlocks'
  | 'Redis strings/TTL'
  | 'Redis scripts'
  | 'Redis expiry (timed)'
  /** Lease renewal as clients send it (scenario version 2): plain PEXPIRE on a successor's key, SET that re-acquires after a gap. */
  | 'Redis renewal commands (timed)'
  | 'generated Redis'
  /** REPEATABLE READ / SERIALIZABLE and their 40001s (issue 10). */
  | 'isolation (40001)'
  /** statement_timeout (57014) and idle_in_transaction_session_timeout (FATAL 25P03, the session ended). */
  | 'server timeouts'
  /**
   * Two connections of one client (a helper on a second connection from the application's pool,
   * scenario version 2): PostgreSQL sees two sessions, one waiting for the other's lock, and its
   * deadlock check finds no cycle — the caller waiting for its helper is in the application.
   */
  | 'connection pools (app side)'
  /** Statements routed through a real PgBouncer (fidelity/pgbouncer.ts): which backend ran each, its reply and WARNING, who holds which lock. */
  | 'PgBouncer transaction mode'
  | 'PgBouncer session mode'
  /** The etcd lock service (fidelity/etcd.ts): etcdctl lines and replies, revisions, leases and expiry, hand-written and generated. */
  | 'etcd lock service';

/**
 * One step of a SQL sequence, for session `s`:
 * - `stmt`: run the statement (the server gets exactly `renderSql(stmt)`);
 * - `close`: the session ends however it ends (model `closeSession`; server `pg_terminate_backend`);
 * - `cancel`: cancel the waiting statement (model `cancelWaiting` with 57014 "user request";
 *   server `pg_cancel_backend`);
 * - `statementTimeout`: likewise with `statement_timeout` (57014).
 * - `lockTimeout`: the session's `lock_timeout` fires on its waiting statement (model
 *   `cancelWaiting` with 55P03; server: the session was opened with `SET lock_timeout` and the
 *   harness waits for the error).
 * - `deadlockCheck`: the `deadlock_timeout` timer of the session's waiting statement fires now and
 *   runs PostgreSQL's deadlock check (model `checkDeadlock`; server: the statement was sent with a
 *   short per-session `deadlock_timeout` sized so the timer fires after the steps before this one,
 *   and the harness waits for its outcome: the 40P01 reply, or the `log_lock_waits` LOG message
 *   "still waiting" / "avoided deadlock" the backend sends when the check finds no hard cycle).
 *   At most one per wait, after the session's waiting statement and before its next statement.
 * `expect` (optional) is the rule the case demonstrates: a prefix of the model's rendered reply
 * (`renderReply`), checked as well — a case that no longer shows its rule fails.
 */
export type SqlOp =
  | { readonly s: string; readonly stmt: Stmt; readonly expect?: string }
  | { readonly s: string; readonly close: true }
  | { readonly s: string; readonly cancel: 'userRequest' | 'lockTimeout' | 'statementTimeout'; readonly expect?: string }
  /**
   * The session's `idle_in_transaction_session_timeout` ends it (model `closeSession`, its own reply
   * the FATAL 25P03; server: the session was opened with `SET idle_in_transaction_session_timeout`,
   * and the harness waits for the client's 25P03 error and for the backend to be gone from
   * `pg_stat_activity`). The session's last op.
   */
  | { readonly s: string; readonly idleTimeout: true; readonly expect?: string }
  | { readonly s: string; readonly deadlockCheck: true; readonly expect?: string };

export interface SqlCase {
  readonly name: string;
  readonly primitive: Primitive;
  readonly tables: readonly TableSpec[];
  /** Sequences to create (`CREATE SEQUENCE name START start`), name → the first value nextval returns. Optional. */
  readonly sequences?: Readonly<Record<string, number>>;
  /** Session ids in the order they are opened. */
  readonly sessions: readonly string[];
  /** Extra `SET …` run when a session opens on the real server (e.g. `SET lock_timeout = '300ms'`). */
  readonly sessionSetup?: Readonly<Record<string, readonly string[]>>;
  readonly ops: readonly SqlOp[];
}

/** One Redis command at virtual time `atMs` (mapped 1:1 to real elapsed milliseconds). */
export interface RedisOp {
  readonly atMs: number;
  readonly cmd: RedisCmd;
  /** A prefix of the model's rendered reply (`renderRedisReply`) the case expects. */
  readonly expect?: string;
}

export interface RedisCase {
  readonly name: string;
  readonly primitive: Primitive;
  readonly ops: readonly RedisOp[];
  /**
   * How far (ms) every command stays from any expiry instant, by construction of the case; a run
   * whose measured lateness spread reaches it is inconclusive and retried. Default 50.
   */
  readonly marginMs?: number;
}

/** Result of one sequence. */
export interface CaseResult {
  readonly name: string;
  readonly primitive: Primitive;
  /** 'excluded' = stopped where the model simplifies on purpose (reason given). */
  readonly outcome: 'agree' | 'disagree' | 'excluded';
  /** Human-readable lines: the sequence with the model's and the server's replies. */
  readonly transcript: readonly string[];
  readonly problems: readonly string[];
  readonly excludedBecause?: string;
  /** Set by `runConfirmed` (confirm.ts): how many re-runs reproduced this disagreement. Unset: not re-run. */
  readonly reproducedRuns?: number;
  /** SQL sequences: how many steps compared `pg_locks` (model vs server), and whether one differed. */
  readonly pgLocks?: { readonly steps: number; readonly disagree: boolean };
  /** Transcript replays: the steps compared, and (redis-cli) the steps after a wait for real time, not replayed. */
  readonly steps?: number;
  readonly notReplayed?: number;
  /** Transcript replays: the numbers of the transcript steps the server ran (compared, or done: a `\q`, a cancel), ascending. */
  readonly ranSteps?: readonly number[];
  /** Transcript replays: the numbers of every step of the transcript this replay is for (its psql steps, or its redis-cli steps). */
  readonly stepsOf?: readonly number[];
}
