/**
 * Real PostgreSQL sessions for the fidelity suite: one `pg.Client` per model session, statements
 * sent without awaiting, and a monitor connection that decides when the server has settled —
 * every outstanding statement has either replied or waits for a heavyweight lock (`pg_locks`
 * shows an ungranted lock for that backend). Grants are made by the releasing backend inside the
 * lock manager, so an ungranted line really means "still waiting"; a backend whose lock was granted
 * but which has not run yet has no ungranted line and counts as running. No sleeps decide
 * anything: the settle loop polls until the state is stable, with a generous timeout as a guard.
 */
import pg from 'pg';
import type { DbReply, Row, SqlValue } from '../src/sim/resources/sqlTypes';

export const PG_CONFIG = {
  host: process.env.PGHOST ?? '127.0.0.1',
  port: Number(process.env.PGPORT ?? 5432),
  user: process.env.PGUSER ?? 'postgres',
  database: process.env.PGDATABASE ?? 'test',
};

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
 * `deadlock_timeout` of a case session's statements unless a `deadlockCheck` step is scheduled for
 * the wait: longer than any case lasts, so no timer fires that the case did not ask for.
 */
export const LONG_DEADLOCK_TIMEOUT_MS = 60_000;

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

export function newClient(): pg.Client {
  return new pg.Client({ ...PG_CONFIG, types: TEXT_TYPES, application_name: 'lockscope-fidelity' });
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
  /** The session's current `deadlock_timeout`, ms. */
  deadlockTimeoutMs = LONG_DEADLOCK_TIMEOUT_MS;

  constructor(readonly id: string) {
    this.client = newClient();
    this.client.on('notice', (msg) => {
      if (msg.severity === 'WARNING' && this.pending) this.pending.warnings.push(msg.message ?? '');
      if (msg.severity === 'LOG' && CHECK_LOG.test(msg.message ?? '')) this.checkLogs.push({ text: msg.message ?? '', at: performance.now() });
    });
    // A terminated backend raises an error event on an idle client; it is expected.
    this.client.on('error', () => undefined);
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

/** The monitor connection of a case: lock-wait detection, settle loop, cancel and terminate. */
export class Monitor {
  readonly client = newClient();

  async open(): Promise<void> {
    await this.client.connect();
  }

  /** Pids (of `pids`) that have at least one ungranted lock. */
  async waitingPids(pids: readonly number[]): Promise<Set<number>> {
    if (pids.length === 0) return new Set();
    const r = await this.client.query('SELECT DISTINCT pid FROM pg_locks WHERE NOT granted AND pid = ANY($1::int[])', [pids]);
    return new Set((r.rows as { pid: string }[]).map((x) => Number(x.pid)));
  }

  /**
   * Polls until every in-flight statement of `sessions` has either replied or waits for a lock,
   * and that holds on two consecutive polls. Returns the ids of sessions still waiting.
   * Throws after `timeoutMs` (a statement stuck without a lock wait would be a harness problem).
   */
  async settle(sessions: readonly RealSession[], timeoutMs = 8000): Promise<Set<string>> {
    const start = Date.now();
    let stableRounds = 0;
    let last = '';
    for (;;) {
      const flying = sessions.filter((s) => s.inFlight);
      const waiting = await this.waitingPids(flying.map((s) => s.pid));
      const stillFlying = flying.filter((s) => s.inFlight);
      const allWaiting = stillFlying.every((s) => waiting.has(s.pid));
      const key = stillFlying.map((s) => s.id).join(',');
      if (allWaiting && stillFlying.length === flying.length) {
        stableRounds = key === last ? stableRounds + 1 : 1;
        if (stableRounds >= 2) return new Set(stillFlying.map((s) => s.id));
      } else {
        stableRounds = 0;
      }
      last = key;
      if (Date.now() - start > timeoutMs) {
        throw new Error(`server did not settle within ${timeoutMs} ms (in flight: ${stillFlying.map((s) => s.id).join(', ')}; waiting: ${[...waiting].join(', ')})`);
      }
      await new Promise((r) => setTimeout(r, stillFlying.length > 0 && !allWaiting ? 1 : 2));
    }
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

  /** Ends a backend however it is busy (a waiting backend does not read its socket), then waits until it is gone. */
  async terminate(pid: number): Promise<void> {
    await this.client.query('SELECT pg_terminate_backend($1)', [pid]);
    for (let i = 0; i < 2000; i++) {
      const r = await this.client.query('SELECT 1 FROM pg_stat_activity WHERE pid = $1', [pid]);
      if (r.rowCount === 0) return;
      await new Promise((res) => setTimeout(res, 2));
    }
    throw new Error(`backend ${pid} did not exit`);
  }

  async close(): Promise<void> {
    await this.client.end().catch(() => undefined);
  }
}
