/**
 * Real PostgreSQL sessions for the fidelity suite: one `pg.Client` per model session, statements
 * sent without awaiting, and a monitor connection that decides when the server has settled —
 * every outstanding statement has either replied or waits for a heavyweight lock.
 *
 * "Waits" needs two independent views to agree: `pg_locks` shows an ungranted lock for the backend
 * AND `pg_stat_activity` shows it `active` with `wait_event_type = 'Lock'`. Grants are made by the
 * releasing backend inside the lock manager, so an ungranted line really means "still waiting"; a
 * backend whose lock was granted but which has not run yet (a loaded machine may not schedule it
 * for many milliseconds) has no ungranted line and counts as running. The settle loop keeps
 * looking until the same answer holds on several consecutive looks spanning a window derived from
 * the measured round trip of the looks (`Monitor.settle`); nothing is decided by sleeping, and a
 * bounded time (`SETTLE_TIMEOUT_MS`) guards against a statement stuck on something that is not a
 * lock.
 *
 * Each run of the suite works in its own database (`createRunDatabase`): advisory locks are per
 * database, so two runs at once (two checkouts, two CI jobs) cannot see each other's locks.
 */
import pg from 'pg';
import type { DbReply, Row, SqlValue } from '../src/sim/resources/sqlTypes';

/**
 * Connection settings from PGHOST/PGPORT/PGUSER/PGDATABASE. `database` is the configured one (the
 * run's database is created through it); `runDatabase`, once set by `createRunDatabase`, is the
 * one every session and monitor of the run connects to.
 */
export const PG_CONFIG: { host: string; port: number; user: string; database: string; runDatabase: string | null } = {
  host: process.env.PGHOST ?? '127.0.0.1',
  port: Number(process.env.PGPORT ?? 5432),
  user: process.env.PGUSER ?? 'postgres',
  database: process.env.PGDATABASE ?? 'test',
  runDatabase: null,
};

/**
 * Longest a settle may take before the harness gives up (a statement that neither replies nor
 * waits for a lock, e.g. stuck on I/O). A bound, not a timing decision: a normal settle ends as
 * soon as the answer is stable.
 */
export const SETTLE_TIMEOUT_MS = 20_000;

/**
 * `deadlock_timeout` of a case session's statements unless a `deadlockCheck` step is scheduled for
 * the wait: longer than any settle can take (PostgreSQL's default, 1 s, could fire during a
 * settle on a loaded machine), so no timer fires that the case did not ask for.
 */
export const LONG_DEADLOCK_TIMEOUT_MS = SETTLE_TIMEOUT_MS * 3;

/**
 * `deadlock_timeout` of the preset replay's sessions (text form): no timer fires there unless the
 * replay sets a statement's timer to the scenario's value because the trace ends its wait with
 * 40P01 (the engine's deadlock check; `presetReplay.ts`).
 */
export const CASE_DEADLOCK_TIMEOUT = `${LONG_DEADLOCK_TIMEOUT_MS}ms`;


/** Every value as the server's text form: the model's values are compared as text too. */
const TEXT_TYPES = { getTypeParser: () => (v: string) => v };

export type RealReply = Exclude<DbReply, { status: 'waits' }>;

/** A finished statement on the real server: its reply and when the backend went idle (server clock, µs text). */
export interface RealDone {
  readonly reply: RealReply;
  /** Client-side arrival order (monotonic counter across all sessions of one case). */
  readonly seq: number;
  /** `pg_stat_activity.state_change` right after it finished, for wake-order comparison. */
  stateChange?: string;
}


/**
 * Session settings of every case session: deadlock timers off in practice, and the
 * `log_lock_waits` LOG lines the backend writes after its deadlock check ("process N still
 * waiting for …", "avoided deadlock …", "detected deadlock …") sent to the client as well, so the
 * harness sees when a check ran (superuser settings: the suite connects as postgres).
 */
export const CASE_SESSION_SETUP: readonly string[] = [
  `SET deadlock_timeout = '${LONG_DEADLOCK_TIMEOUT_MS}ms'`,
  'SET log_lock_waits = on',
  'SET client_min_messages = log',
];

/** A `log_lock_waits` LOG line reporting that the backend's deadlock check ran. */
const CHECK_LOG = /^process \d+ (still waiting|avoided deadlock|detected deadlock)/;

interface Pending {
  readonly sql: string;
  done: RealDone | null;
  readonly warnings: string[];
}

let arrival = 0;

/** A client of the run's database (the configured one until `createRunDatabase` ran). */
export function newClient(database: string = PG_CONFIG.runDatabase ?? PG_CONFIG.database): pg.Client {
  const { host, port, user } = PG_CONFIG;
  return new pg.Client({ host, port, user, database, types: TEXT_TYPES, application_name: 'lockscope-fidelity' });
}

/**
 * Creates this run's own database, `lockscope_fid_<pid>_<random>`, through a connection to the
 * configured PGDATABASE, and points every later `newClient()` at it. The user needs CREATEDB.
 * Returns its name. Pair with `dropRunDatabase` (also on failure and on SIGINT/SIGTERM).
 */
export async function createRunDatabase(): Promise<string> {
  const name = `lockscope_fid_${process.pid}_${Math.random().toString(36).slice(2, 8)}`;
  const admin = newClient(PG_CONFIG.database);
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end().catch(() => undefined);
  }
  PG_CONFIG.runDatabase = name;
  return name;
}

/**
 * Drops the run's database (`WITH (FORCE)` ends any backend still connected, e.g. after a
 * harness error or an interrupt). Idempotent; never throws — returns the error message, if any.
 */
export async function dropRunDatabase(): Promise<string | null> {
  const name = PG_CONFIG.runDatabase;
  if (name === null) return null;
  const admin = newClient(PG_CONFIG.database);
  try {
    await admin.connect();
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    PG_CONFIG.runDatabase = null;
    return null;
  } catch (e) {
    return `could not drop database ${name}: ${(e as Error).message}`;
  } finally {
    await admin.end().catch(() => undefined);
  }
}

/** One backend session. */
export class RealSession {
  readonly client: pg.Client;
  pid = 0;
  private pending: Pending | null = null;
  closed = false;
  /** `log_lock_waits` lines of the statement in flight that say its deadlock check ran, with arrival time (performance.now()). */
  checkLogs: { readonly text: string; readonly at: number }[] = [];
  /** When the statement in flight was sent (performance.now()). */
  sentAt = 0;
  /** Set by the harness when the server ended this session on its own: the reply the client saw (FATAL 25P03). */
  idleEnded: RealReply | null = null;
  /** The first error the connection raised while idle (a FATAL the server sent before closing it), or null. */
  fatal: { readonly code: string; readonly message: string } | null = null;
  /** The session's current `deadlock_timeout`, ms. */
  deadlockTimeoutMs = LONG_DEADLOCK_TIMEOUT_MS;

  constructor(readonly id: string) {
    this.client = newClient();
    this.client.on('notice', (msg) => {
      if (msg.severity === 'WARNING' && this.pending) this.pending.warnings.push(msg.message ?? '');
      if (msg.severity === 'LOG' && CHECK_LOG.test(msg.message ?? '')) this.checkLogs.push({ text: msg.message ?? '', at: performance.now() });
    });
    // A terminated backend raises an error event on an idle client; it is expected (and kept: a
    // FATAL such as idle_in_transaction_session_timeout's 25P03 is what the client sees).
    this.client.on('error', (err: unknown) => {
      const e = err as { code?: string; message?: string };
      this.fatal ??= { code: e.code ?? '?', message: e.message ?? String(err) };
    });
  }

  async open(setup: readonly string[]): Promise<void> {
    await this.client.connect();
    const r = await this.client.query('SELECT pg_backend_pid() AS pid');
    this.pid = Number((r.rows[0] as { pid: string }).pid);
    for (const sql of setup) await this.client.query(sql);
  }

  /** Sends a statement without waiting for its reply. */
  send(sql: string): void {
    if (this.pending && !this.pending.done) throw new Error(`real session ${this.id} already has a statement in flight`);
    const p: Pending = { sql, done: null, warnings: [] };
    this.pending = p;
    this.checkLogs = [];
    this.sentAt = performance.now();
    this.client.query({ text: sql }).then(
      (res) => {
        const rows = (res.rows as Record<string, string | null>[]).map((r) => ({ ...r }) as Row);
        const tag = commandTag(res);
        const reply: RealReply = p.warnings.length > 0 ? { status: 'ok', tag, rows, warning: p.warnings.join('; ') } : { status: 'ok', tag, rows };
        p.done = { reply, seq: ++arrival };
      },
      (err: unknown) => {
        const e = err as { code?: string; message?: string; detail?: string; hint?: string };
        const error = {
          code: e.code ?? '?',
          message: e.message ?? String(err),
          ...(e.detail ? { detail: e.detail } : {}),
          ...(e.hint ? { hint: e.hint } : {}),
        };
        p.done = { reply: { status: 'error', error }, seq: ++arrival };
      },
    );
  }

  /** Sets the session's `deadlock_timeout` (between statements) unless it already has that value. */
  async setDeadlockTimeout(ms: number): Promise<void> {
    if (ms === this.deadlockTimeoutMs) return;
    await this.client.query(`SET deadlock_timeout = '${Math.round(ms)}ms'`);
    this.deadlockTimeoutMs = ms;
  }

  /** True while a statement was sent and has not replied. */
  get inFlight(): boolean {
    return this.pending !== null && this.pending.done === null;
  }

  /** The finished statement not yet collected, if any (collecting clears it). */
  takeDone(): RealDone | null {
    if (!this.pending || !this.pending.done) return null;
    const d = this.pending.done;
    this.pending = null;
    return d;
  }

  peekDone(): RealDone | null {
    return this.pending?.done ?? null;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.client.end().catch(() => undefined);
  }
}

function commandTag(res: pg.QueryResult): string {
  const cmd = res.command;
  if (cmd === 'INSERT') return `INSERT ${res.oid ?? 0} ${res.rowCount ?? 0}`;
  if (cmd === 'SELECT' || cmd === 'UPDATE' || cmd === 'DELETE') return `${cmd} ${res.rowCount ?? 0}`;
  return cmd;
}

/** A model value as the server prints it (bigint digits, text as is, NULL as null). */
export function textOf(v: SqlValue): string | null {
  return v === null ? null : String(v);
}

/** What one look at the server says about one backend. */
export interface BackendLook {
  /** `pg_locks` has an ungranted lock of this backend. */
  readonly ungranted: boolean;
  /** `pg_stat_activity.state` (`active`, `idle`, `idle in transaction`, …; null once gone). */
  readonly state: string | null;
  /** `pg_stat_activity.wait_event_type` (`Lock` while it sleeps on a heavyweight lock). */
  readonly waitEventType: string | null;
}

/** Both views agree that the backend sleeps on a heavyweight lock. */
export function isLockWait(l: BackendLook | undefined): boolean {
  return l !== undefined && l.ungranted && l.state === 'active' && l.waitEventType === 'Lock';
}

/** The outcome of `Monitor.settle`: sessions still waiting, and whom each waits for. */
export interface Settled {
  /** Ids of the sessions whose statement waits for a lock. */
  readonly waiting: Set<string>;
  /** Per waiting session: the session ids (or `pid N` for a backend outside the case) it waits for. */
  readonly blockedBy: Map<string, string[]>;
  /** Looks taken and the time the settle took (ms), for the run's statistics. */
  readonly looks: number;
  readonly elapsedMs: number;
}

/** Settle statistics of the run: the slowest settle and look, to print with the summary. */
export const SETTLE_STATS = { settles: 0, looks: 0, maxSettleMs: 0, maxLookMs: 0 };

/** The monitor connection of a case: lock-wait detection, settle loop, cancel and terminate. */
export class Monitor {
  readonly client = newClient();

  async open(): Promise<void> {
    await this.client.connect();
  }

  /**
   * One look: per pid (of `pids`), `pg_locks` and `pg_stat_activity` in one statement (one scan of
   * the lock table). A pid that has gone is absent from the map.
   */
  async look(pids: readonly number[]): Promise<Map<number, BackendLook>> {
    if (pids.length === 0) return new Map();
    const r = await this.client.query(
      `SELECT a.pid, a.state, a.wait_event_type, a.pid IN (SELECT l.pid FROM pg_locks l WHERE NOT l.granted) AS ungranted
         FROM pg_stat_activity a WHERE a.pid = ANY($1::int[])`,
      [pids],
    );
    return new Map((r.rows as { pid: string; state: string | null; wait_event_type: string | null; ungranted: string }[]).map((x) => [
      Number(x.pid),
      { ungranted: x.ungranted === 't', state: x.state, waitEventType: x.wait_event_type },
    ]));
  }

  /** `pg_blocking_pids()` of each pid: the backends it waits for (diagnostics for the transcript). */
  async blockers(pids: readonly number[]): Promise<Map<number, number[]>> {
    if (pids.length === 0) return new Map();
    const r = await this.client.query("SELECT pid, array_to_string(pg_blocking_pids(pid), ',') AS b FROM unnest($1::int[]) AS pid", [pids]);
    return new Map((r.rows as { pid: string; b: string | null }[]).map((x) => [Number(x.pid), x.b ? x.b.split(',').map(Number) : []]));
  }

  /** Pids (of `pids`) that wait for a lock, per `isLockWait`. */
  async waitingPids(pids: readonly number[]): Promise<Set<number>> {
    const looks = await this.look(pids);
    return new Set([...looks].filter(([, l]) => isLockWait(l)).map(([pid]) => pid));
  }

  /**
   * Polls until every in-flight statement of `sessions` has either replied or waits for a lock
   * (`isLockWait`: both views agree), and that same answer holds on `MIN_STABLE_LOOKS` (2) consecutive
   * looks spanning at least the slowest look of this settle (the window grows with the machine's
   * measured lateness). Any statement that replies in between restarts the count. Then asks whom
   * each waiter waits for (`blockers`, for the transcript). Throws after `timeoutMs`.
   *
   * Why this is a safe decision: locks are granted by the releasing backend inside the lock
   * manager, and a backend releases locks only while it runs a statement (in flight here) or ends;
   * so once every in-flight statement sleeps on an ungranted lock, nothing on the server can change
   * until the harness sends the next step. Repeated looks only guard against reading the two views
   * mid-change.
   */
  async settle(sessions: readonly RealSession[], timeoutMs = SETTLE_TIMEOUT_MS): Promise<Settled> {
    const MIN_STABLE_LOOKS = 2;
    const start = performance.now();
    const byPid = new Map(sessions.map((s) => [s.pid, s.id]));
    let stableSince = 0;
    let stableLooks = 0;
    let last = '';
    let looks = 0;
    let slowestLook = 0;
    for (;;) {
      const flying = sessions.filter((s) => s.inFlight);
      if (flying.length === 0) {
        // Every statement has replied: nothing on the server is left to change by itself.
        SETTLE_STATS.settles += 1;
        return { waiting: new Set(), blockedBy: new Map(), looks, elapsedMs: performance.now() - start };
      }
      const t0 = performance.now();
      const seen = await this.look(flying.map((s) => s.pid));
      const t1 = performance.now();
      looks += 1;
      slowestLook = Math.max(slowestLook, t1 - t0);
      const stillFlying = flying.filter((s) => s.inFlight);
      const allWaiting = stillFlying.length === flying.length && stillFlying.every((s) => isLockWait(seen.get(s.pid)));
      const key = stillFlying.map((s) => s.id).join(',');
      if (allWaiting) {
        if (key === last && stableLooks > 0) stableLooks += 1;
        else {
          stableLooks = 1;
          stableSince = t0;
        }
        if (stableLooks >= MIN_STABLE_LOOKS && t1 - stableSince >= slowestLook) {
          const found = await this.blockers(stillFlying.map((s) => s.pid));
          const blockedBy = new Map(stillFlying.map((s) => [s.id, (found.get(s.pid) ?? []).map((b) => byPid.get(b) ?? `pid ${b}`).sort()]));
          const elapsedMs = performance.now() - start;
          SETTLE_STATS.settles += 1;
          SETTLE_STATS.looks += looks;
          SETTLE_STATS.maxSettleMs = Math.max(SETTLE_STATS.maxSettleMs, elapsedMs);
          SETTLE_STATS.maxLookMs = Math.max(SETTLE_STATS.maxLookMs, slowestLook);
          return { waiting: new Set(stillFlying.map((s) => s.id)), blockedBy, looks, elapsedMs };
        }
      } else {
        stableLooks = 0;
      }
      last = key;
      if (t1 - start > timeoutMs) {
        const states = stillFlying.map((s) => {
          const l = seen.get(s.pid);
          return `${s.id}: ${l ? `${l.state ?? '?'}, wait ${l.waitEventType ?? 'none'}, ungranted ${l.ungranted}` : 'gone'}`;
        });
        throw new Error(`server did not settle within ${timeoutMs} ms (in flight: ${states.join('; ') || 'none'})`);
      }
      // Yield briefly (the next look is the decision, not the sleep).
      await new Promise((r) => setTimeout(r, 1));
    }
  }

  /** Waits (bounded) until `s` has replied — after a cancel or a lock_timeout the waiter must answer. */
  async awaitReply(s: RealSession, timeoutMs = SETTLE_TIMEOUT_MS): Promise<void> {
    const deadline = performance.now() + timeoutMs;
    while (s.inFlight && performance.now() < deadline) await new Promise((r) => setTimeout(r, 2));
  }

  /** `pg_stat_activity.state_change` per pid (text, microseconds). */
  async stateChanges(pids: readonly number[]): Promise<Map<number, string>> {
    if (pids.length === 0) return new Map();
    const r = await this.client.query(
      "SELECT pid, to_char(state_change, 'YYYY-MM-DD HH24:MI:SS.US') AS t FROM pg_stat_activity WHERE pid = ANY($1::int[])",
      [pids],
    );
    return new Map((r.rows as { pid: string; t: string }[]).map((x) => [Number(x.pid), x.t]));
  }

  async cancel(pid: number): Promise<void> {
    await this.client.query('SELECT pg_cancel_backend($1)', [pid]);
  }

  /** Whether the backend still exists (`pg_stat_activity` has a row for it): the server-side view of a session the server ended. */
  async backendAlive(pid: number): Promise<boolean> {
    const r = await this.client.query('SELECT 1 FROM pg_stat_activity WHERE pid = $1', [pid]);
    return (r.rowCount ?? 0) > 0;
  }

  /** Ends a backend however it is busy (a waiting backend does not read its socket), then waits until it is gone. */
  /**
   * Waits until every backend of `pids` has left `pg_stat_activity`, at most SETTLE_TIMEOUT_MS.
   * A closed client's backend exits (and releases its session-level advisory locks) a moment
   * after the socket closes; the next case, using the same advisory keys, must not see them.
   * A backend clears its `pg_stat_activity` entry after releasing its locks (PostgreSQL's
   * shutdown order: ShutdownPostgres → LockReleaseAll, then the backend-status hook).
   * @throws Error when one is still there after the timeout.
   */
  async awaitExit(pids: readonly number[]): Promise<void> {
    if (pids.length === 0) return;
    const deadline = performance.now() + SETTLE_TIMEOUT_MS;
    for (;;) {
      const r = await this.client.query('SELECT pid FROM pg_stat_activity WHERE pid = ANY($1::int[])', [pids]);
      if (r.rowCount === 0) return;
      if (performance.now() >= deadline) throw new Error(`backends ${r.rows.map((x: { pid: number }) => x.pid).join(', ')} did not exit within ${SETTLE_TIMEOUT_MS} ms of their clients closing`);
      await new Promise((res) => setTimeout(res, 2));
    }
  }

  async terminate(pid: number): Promise<void> {
    await this.client.query('SELECT pg_terminate_backend($1)', [pid]);
    const deadline = performance.now() + SETTLE_TIMEOUT_MS;
    while (performance.now() < deadline) {
      const r = await this.client.query('SELECT 1 FROM pg_stat_activity WHERE pid = $1', [pid]);
      if (r.rowCount === 0) return;
      await new Promise((res) => setTimeout(res, 2));
    }
    throw new Error(`backend ${pid} did not exit within ${SETTLE_TIMEOUT_MS} ms`);
  }

  async close(): Promise<void> {
    await this.client.end().catch(() => undefined);
  }
}
