/**
 * The model's PgBouncer (src/sim/resources/pooler.ts) against a real one (Debian's pgbouncer,
 * started by scripts/ensure-services.sh: transaction mode on 127.0.0.1:6432, session mode on
 * 6433, `default_pool_size = 2`, any database). ../shared/semantics.md, "Connection poolers
 * (PgBouncer)".
 *
 * A sequence is a list of statements per client (`c1`, `c2`, …) and client closes. Each statement
 * runs through PgBouncer with `pg_backend_pid()` in the same query, so the server says which
 * backend ran it; the model runs it on the server connection its PoolerResource links (s1, s2, …).
 * Compared at every step: the backend (the model's server ids and the real pids must map one to
 * one over the whole sequence), the reply (`t`, `f`, void) and the WARNING (`you don't own a lock
 * of type ExclusiveLock`); at the end, which backend holds which advisory lock (`pg_locks`). The
 * harness never lets a statement wait: a lock the model says would wait is sent as its try-form,
 * and a client is only given a statement when the model has a server connection for it (a
 * disagreement there would show as a reply that does not come: a 5 s bound fails the sequence).
 * Between sequences the pool is emptied (`KILL` + `RESUME` on PgBouncer's admin console), so each
 * sequence starts with no server connection, as the model does.
 *
 * `idleEnd` (hand-written cases only): the client, inside a transaction, lets
 * `idle_in_transaction_session_timeout` end its server connection's session (`SET LOCAL … = 200ms`,
 * then idle). The model closes that session and calls `PoolerResource.serverEnded`; PgBouncer
 * passes the FATAL on and closes the client ("server conn crashed?"). Compared: the client's next
 * statement finds its connection closed on both sides, and the other clients' routing and locks.
 */
import pg from 'pg';
import { Database } from '../src/sim/resources/database';
import { PoolerResource } from '../src/sim/resources/pooler';
import type { AdvisoryFn, DbReply, Stmt } from '../src/sim/resources/sqlTypes';
import type { PoolerMode } from '../src/sim/scenario/schema';
import { Rng } from '../src/sim/engine/rng';
import { Monitor, newClient, PG_CONFIG } from './pgReal';
import type { CaseResult, Primitive } from './types';
import { runConfirmed, type Flake } from './confirm';

/** PgBouncer's ports (PGBOUNCER_TX_PORT / PGBOUNCER_SESSION_PORT; defaults 6432 and 6433) and its pool size. */
export const PGBOUNCER_CONFIG = {
  host: process.env.PGBOUNCER_HOST ?? '127.0.0.1',
  ports: { transaction: Number(process.env.PGBOUNCER_TX_PORT ?? 6432), session: Number(process.env.PGBOUNCER_SESSION_PORT ?? 6433) } as Record<PoolerMode, number>,
  /** `default_pool_size` of both daemons (scripts/ensure-services.sh). */
  serverConnections: 2,
};

/** One step: a statement of a client, or the client's connection closing. */
export type BouncerOp =
  | { readonly c: string; readonly op: 'begin' | 'commit' | 'rollback' | 'pid' }
  | { readonly c: string; readonly op: 'lock' | 'try' | 'unlock' | 'xact'; readonly key: number }
  | { readonly c: string; readonly op: 'close' }
  | { readonly c: string; readonly op: 'idleEnd' };

export interface BouncerCase {
  readonly name: string;
  readonly mode: PoolerMode;
  readonly ops: readonly BouncerOp[];
}

const primitiveOf = (mode: PoolerMode): Primitive => (mode === 'transaction' ? 'PgBouncer transaction mode' : 'PgBouncer session mode');

/** Hand-written: the preset's story, and a client's death in each mode. */
export const BOUNCER_CASES: readonly BouncerCase[] = [
  {
    name: 'pooler-session-lock: the unlock lands on another backend, the next client inherits the lock, a third is refused',
    mode: 'transaction',
    ops: [
      { c: 'c1', op: 'lock', key: 42 },
      { c: 'c2', op: 'begin' },
      { c: 'c2', op: 'lock', key: 42 },
      { c: 'c1', op: 'unlock', key: 42 },
      { c: 'c3', op: 'try', key: 42 },
      { c: 'c2', op: 'unlock', key: 42 },
      { c: 'c2', op: 'commit' },
      { c: 'c3', op: 'try', key: 42 },
    ],
  },
  {
    name: 'the fix: pg_advisory_xact_lock in one transaction ends with its COMMIT',
    mode: 'transaction',
    ops: [
      { c: 'c1', op: 'begin' }, { c: 'c1', op: 'xact', key: 42 }, { c: 'c2', op: 'begin' }, { c: 'c2', op: 'try', key: 42 },
      { c: 'c1', op: 'commit' }, { c: 'c2', op: 'xact', key: 42 }, { c: 'c2', op: 'commit' }, { c: 'c3', op: 'try', key: 42 },
    ],
  },
  {
    name: 'transaction mode: a client that closes between transactions leaves its session lock on the backend',
    mode: 'transaction',
    ops: [{ c: 'c1', op: 'lock', key: 7 }, { c: 'c1', op: 'close' }, { c: 'c2', op: 'try', key: 7 }, { c: 'c2', op: 'unlock', key: 7 }],
  },
  {
    // A pooler that keeps a server connection after its client died (issue 10, element 3): only between transactions.
    name: 'transaction mode: a client that closes inside a transaction has its server connection closed, which releases its session lock too',
    mode: 'transaction',
    ops: [
      { c: 'c1', op: 'lock', key: 7 }, { c: 'c1', op: 'begin' }, { c: 'c1', op: 'xact', key: 8 }, { c: 'c1', op: 'close' },
      { c: 'c2', op: 'try', key: 7 }, { c: 'c2', op: 'unlock', key: 7 }, { c: 'c2', op: 'try', key: 8 }, { c: 'c2', op: 'unlock', key: 8 },
    ],
  },
  {
    name: 'transaction mode: idle_in_transaction_session_timeout ends a server connection: PgBouncer closes its client, the locks go, the others get the other backend',
    mode: 'transaction',
    ops: [
      { c: 'c1', op: 'lock', key: 7 }, { c: 'c1', op: 'begin' }, { c: 'c1', op: 'xact', key: 8 }, { c: 'c1', op: 'idleEnd' },
      { c: 'c2', op: 'try', key: 7 }, { c: 'c2', op: 'try', key: 8 }, { c: 'c1', op: 'pid' }, { c: 'c1', op: 'close' },
      { c: 'c3', op: 'begin' }, { c: 'c1', op: 'try', key: 8 }, { c: 'c3', op: 'commit' }, { c: 'c2', op: 'unlock', key: 7 },
    ],
  },
  {
    name: 'session mode: idle_in_transaction_session_timeout ends a client\'s server connection: its next statement finds the connection closed, a new connection gets a new backend',
    mode: 'session',
    ops: [
      { c: 'c1', op: 'lock', key: 42 }, { c: 'c1', op: 'begin' }, { c: 'c2', op: 'try', key: 42 }, { c: 'c1', op: 'idleEnd' },
      { c: 'c2', op: 'try', key: 42 }, { c: 'c1', op: 'try', key: 42 }, { c: 'c1', op: 'close' }, { c: 'c1', op: 'try', key: 42 }, { c: 'c2', op: 'unlock', key: 42 },
    ],
  },
  {
    name: 'session mode: one backend per client; a closing client gets DISCARD ALL, which releases its session lock',
    mode: 'session',
    ops: [
      { c: 'c1', op: 'lock', key: 42 }, { c: 'c2', op: 'try', key: 42 }, { c: 'c1', op: 'pid' }, { c: 'c1', op: 'unlock', key: 42 },
      { c: 'c1', op: 'lock', key: 42 }, { c: 'c1', op: 'close' }, { c: 'c1', op: 'try', key: 42 }, { c: 'c2', op: 'unlock', key: 42 },
    ],
  },
];

/**
 * Random sequences for one pool mode from a seeded generator: 8–20 steps over keys 1 and 2, three
 * clients in transaction mode (two in session mode, where each client keeps a server connection),
 * closes included. Steps the model could only answer by waiting are left out or sent as try-forms
 * at run time (see the module comment).
 */
export function generateBouncerCases(mode: PoolerMode, seed: number, count: number): BouncerCase[] {
  const rng = new Rng(seed);
  const clients = mode === 'transaction' ? ['c1', 'c2', 'c3'] : ['c1', 'c2'];
  const kinds = ['begin', 'commit', 'rollback', 'pid', 'lock', 'lock', 'try', 'unlock', 'unlock', 'xact', 'close'] as const;
  return Array.from({ length: count }, (_, i) => {
    const n = rng.int(8, 20);
    const ops: BouncerOp[] = [];
    for (let j = 0; j < n; j++) {
      const c = clients[rng.int(0, clients.length - 1)]!;
      const op = kinds[rng.int(0, kinds.length - 1)]!;
      ops.push(op === 'lock' || op === 'try' || op === 'unlock' || op === 'xact' ? { c, op, key: rng.int(1, 2) } : { c, op });
    }
    return { name: `generated ${mode} #${i + 1} (seed ${seed})`, mode, ops };
  });
}

/** The statement(s) of an op, for the model; `fn` of an advisory op. */
function stmtsOf(op: BouncerOp): Stmt[] {
  switch (op.op) {
    case 'begin': return [{ op: 'begin' }];
    case 'commit': return [{ op: 'commit' }];
    case 'rollback': return [{ op: 'rollback' }];
    case 'pid': case 'close': case 'idleEnd': return [];
    default: return [{ op: 'advisory', fn: fnOf(op.op), key: { kind: 'bigint', key: op.key } }];
  }
}

function fnOf(op: 'lock' | 'try' | 'unlock' | 'xact'): AdvisoryFn {
  return op === 'lock' ? 'pg_advisory_lock' : op === 'try' ? 'pg_try_advisory_lock' : op === 'unlock' ? 'pg_advisory_unlock' : 'pg_advisory_xact_lock';
}

/** The one query PgBouncer gets for an op: the statement with `pg_backend_pid()` in the same round trip (so on the same backend). */
function sqlOf(op: BouncerOp): string {
  const pid = 'SELECT pg_backend_pid()::text AS pid';
  switch (op.op) {
    case 'begin': return `BEGIN; ${pid}`;
    case 'commit': return `${pid}; COMMIT`;
    case 'rollback': return `${pid}; ROLLBACK`;
    case 'pid': return pid;
    case 'close': return '';
    case 'idleEnd': return `SET LOCAL idle_in_transaction_session_timeout = '${IDLE_END_MS}ms'; ${pid}`;
    default: return `SELECT pg_backend_pid()::text AS pid, ${fnOf(op.op)}(${op.key})::text AS r`;
  }
}

/** The `idle_in_transaction_session_timeout` an `idleEnd` step sets for its transaction (ms). */
const IDLE_END_MS = 200;

/** What one step showed: the backend, the reply and the WARNING, in comparable words. */
interface Seen {
  readonly backend: string;
  readonly reply: string;
  readonly warning: string;
}

function modelReply(r: DbReply | null): { reply: string; warning: string } {
  if (r === null) return { reply: '', warning: '' };
  if (r.status === 'error') return { reply: `ERROR ${r.error.code}`, warning: '' };
  if (r.status === 'waits') return { reply: 'waits', warning: '' };
  const row = r.rows[0];
  const v = row === undefined ? '' : Object.values(row)[0];
  return { reply: v === null || v === undefined ? '' : String(v), warning: r.warning ?? '' };
}

/** The model side of one case: PgBouncer's routing and PostgreSQL's advisory locks. */
class ModelBouncer {
  readonly db = new Database([]);
  readonly pooler: PoolerResource;
  constructor(readonly mode: PoolerMode) {
    this.pooler = new PoolerResource(mode, PGBOUNCER_CONFIG.serverConnections, { openSession: (id) => this.db.openSession(id), inTransaction: (id) => this.db.inTransaction(id) });
  }
  /** Whether the client can run a statement now without waiting for a server connection. */
  canRun(client: string): boolean {
    return this.pooler.serverOf(client) !== null || this.pooler.snapshot().servers.some((s) => s.client === null);
  }
  /** Whether a lock on `key` by `client`'s server connection would wait: another server connection holds it. */
  wouldWait(server: string, key: number): boolean {
    return this.pooler.snapshot().servers.some((s) => s.id !== server && this.db.sessionState(s.id).advisoryLocks.some((l) => l.key === String(key)));
  }
  link(client: string): string {
    const r = this.pooler.execute(0, client, { op: 'link', client }).reply;
    if (r.status !== 'ok') throw new Error(`model: ${client} got no server connection`);
    return r.server;
  }
  /** After a statement: in transaction mode a server connection out of its transaction goes back. */
  after(client: string): void {
    const server = this.pooler.serverOf(client);
    if (this.mode === 'transaction' && server !== null && !this.db.inTransaction(server)) this.pooler.execute(0, client, { op: 'unlink', client });
  }
  close(client: string): string {
    return this.pooler.close(client, (id) => void this.db.closeSession(id)).reply.status;
  }
  /** The server ends the session of `client`'s server connection (idle_in_transaction_session_timeout); PgBouncer closes the client. */
  idleEnd(client: string): string {
    const server = this.pooler.serverOf(client);
    if (server === null) throw new Error(`model: ${client} has no server connection to end`);
    this.db.closeSession(server);
    this.pooler.serverEnded(server);
    return server;
  }
  /** `<server> <key>` for every advisory lock held, sorted. */
  held(): string[] {
    return this.pooler.snapshot().servers.flatMap((s) => this.db.sessionState(s.id).advisoryLocks.filter((l) => l.sessionCount + l.xactCount > 0).map((l) => `${s.id} ${l.key}`)).sort();
  }
}

/** A client connection to PgBouncer, with the notices (WARNINGs) of its last query. */
class RealClient {
  private client: pg.Client | null = null;
  notices: string[] = [];
  /** Whether the connection has failed or ended (PgBouncer closed it). */
  broken = false;
  constructor(private readonly port: number) {}
  async query(sql: string): Promise<pg.QueryResult[]> {
    if (this.client === null) {
      const c = new pg.Client({ host: PGBOUNCER_CONFIG.host, port: this.port, user: PG_CONFIG.user, database: PG_CONFIG.runDatabase ?? PG_CONFIG.database });
      c.on('notice', (n) => this.notices.push(`${n.severity ?? 'NOTICE'}:  ${n.message}`));
      c.on('error', () => { this.broken = true; });
      c.on('end', () => { this.broken = true; });
      this.broken = false;
      await c.connect();
      this.client = c;
    }
    this.notices = [];
    const client = this.client;
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error('no reply within 5 s (the server waits where the model does not)')), 5000);
    });
    try {
      const r = await Promise.race([client.query(sql), timeout]);
      return Array.isArray(r) ? r : [r];
    } finally {
      clearTimeout(timer);
    }
  }
  /** Waits until PgBouncer has closed this connection (at most `timeoutMs`); true if it did. */
  async awaitBroken(timeoutMs = 5000): Promise<boolean> {
    const until = Date.now() + timeoutMs;
    while (!this.broken && Date.now() < until) await new Promise((res) => setTimeout(res, 10));
    return this.broken;
  }
  async close(): Promise<void> {
    const c = this.client;
    this.client = null;
    if (c !== null) await c.end().catch(() => undefined);
  }
}

/** PgBouncer's admin console on `port` (database `pgbouncer`). */
async function admin(port: number, sql: string): Promise<pg.QueryResult> {
  const c = new pg.Client({ host: PGBOUNCER_CONFIG.host, port, user: PG_CONFIG.user, database: 'pgbouncer' });
  await c.connect();
  try {
    return await c.query(sql);
  } finally {
    await c.end().catch(() => undefined);
  }
}

/** Empties PgBouncer's pool of the run's database (every server connection closed), so the next case starts with none. */
async function resetPool(port: number): Promise<void> {
  const db = PG_CONFIG.runDatabase ?? PG_CONFIG.database;
  await admin(port, `KILL ${db}`).catch(() => undefined);
  await admin(port, `RESUME ${db}`).catch(() => undefined);
}

/** Waits until PgBouncer has finished resetting released server connections (no server `used` or `tested`), at most 3 s. */
async function settlePool(port: number): Promise<void> {
  const db = PG_CONFIG.runDatabase ?? PG_CONFIG.database;
  const until = Date.now() + 3000;
  while (Date.now() < until) {
    const r = await admin(port, 'SHOW SERVERS');
    const busy = r.rows.filter((x: Record<string, unknown>) => x.database === db && (x.state === 'used' || x.state === 'tested' || x.state === 'new'));
    if (busy.length === 0) return;
    await new Promise((res) => setTimeout(res, 20));
  }
}

/**
 * Waits until no other backend holds an advisory lock in the run's database, at most `timeoutMs`;
 * returns the locks still held then (empty when the table is clean). PgBouncer's `KILL` closes
 * its server connections at once, but each PostgreSQL backend releases its session locks only
 * when it notices the closed socket and exits, a few milliseconds later on a loaded machine: a
 * case started before that saw the previous case's lock (`pg_try_advisory_lock(1)` → f where
 * the model, starting from an empty lock table, said t). PostgreSQL docs, "Advisory Locks":
 * session-level locks are held until released or the session ends.
 */
async function awaitNoAdvisoryLocks(timeoutMs = 5000): Promise<string[]> {
  const start = Date.now();
  for (let looks = 1; ; looks++) {
    const held = await realHeld();
    if (held.length === 0 || Date.now() >= start + timeoutMs) {
      if (looks > 1) {
        BOUNCER_STATS.waited++;
        BOUNCER_STATS.maxWaitMs = Math.max(BOUNCER_STATS.maxWaitMs, Date.now() - start);
      }
      return held;
    }
    await new Promise((res) => setTimeout(res, 10));
  }
}

/**
 * Waits until backend `pid` has left `pg_stat_activity` (`Monitor.awaitExit`; it has released its
 * locks by then). A client that closes mid-transaction or holding a session lock in transaction mode
 * makes PgBouncer close its server connection; the backend exits a moment later, and the next
 * step must not see its locks (a flake on a loaded machine: `pg_try_advisory_lock(2)` → f).
 * @throws Error when it is still there after SETTLE_TIMEOUT_MS (Monitor.awaitExit).
 */
async function awaitBackendExit(pid: number): Promise<void> {
  const monitor = new Monitor();
  await monitor.open();
  try {
    const start = Date.now();
    const gone = (await monitor.client.query('SELECT 1 FROM pg_stat_activity WHERE pid = $1', [pid])).rowCount === 0;
    if (gone) return;
    await monitor.awaitExit([pid]);
    BOUNCER_STATS.waited++;
    BOUNCER_STATS.maxWaitMs = Math.max(BOUNCER_STATS.maxWaitMs, Date.now() - start);
  } finally {
    await monitor.close();
  }
}

/** How often a PgBouncer case had to wait for a closed server connection's backend to exit (the previous case's, or one closed mid-case), and the longest wait (ms). */
export const BOUNCER_STATS = { waited: 0, maxWaitMs: 0 };

/** Advisory locks granted in the run's database: `<pid> <key>`, sorted. */
async function realHeld(): Promise<string[]> {
  const c = newClient();
  await c.connect();
  try {
    const r = await c.query("SELECT pid::text AS pid, objid::text AS key FROM pg_locks WHERE locktype = 'advisory' AND granted AND database = (SELECT oid FROM pg_database WHERE datname = current_database()) AND pid <> pg_backend_pid()");
    // One row per lock per scope: the model's list has one per key per session too (both scopes summed).
    return [...new Set(r.rows.map((x: { pid: string; key: string }) => `${x.pid} ${x.key}`))].sort();
  } finally {
    await c.end().catch(() => undefined);
  }
}

/** Runs one case against the model and the real PgBouncer; compares routing, replies, WARNINGs and who holds which lock. */
export async function runBouncerCase(c: BouncerCase): Promise<CaseResult> {
  const port = PGBOUNCER_CONFIG.ports[c.mode];
  const model = new ModelBouncer(c.mode);
  const clients = new Map<string, RealClient>();
  const real = (id: string): RealClient => {
    let r = clients.get(id);
    if (r === undefined) clients.set(id, (r = new RealClient(port)));
    return r;
  };
  const pidOf = new Map<string, string>();
  const serverOf = new Map<string, string>();
  const transcript: string[] = [];
  const problems: string[] = [];
  /** The model's server id ↔ the real pid, one to one over the whole case. */
  const map = (server: string, pid: string): string | null => {
    const p = pidOf.get(server);
    const s = serverOf.get(pid);
    if (p === undefined && s === undefined) {
      pidOf.set(server, pid);
      serverOf.set(pid, server);
      return null;
    }
    if (p === pid && s === server) return null;
    return `the model ran it on ${server}${p !== undefined ? ` (pid ${p} so far)` : ''}, the server on pid ${pid}${s !== undefined ? ` (the model's ${s} so far)` : ''}`;
  };
  await resetPool(port);
  const leftOver = await awaitNoAdvisoryLocks();
  if (leftOver.length > 0) throw new Error(`PgBouncer case "${c.name}": advisory locks of closed server connections still held 5 s after KILL (${leftOver.join(', ')}); the case needs an empty lock table to start`);
  try {
    for (const [i, step] of c.ops.entries()) {
      if (step.op === 'close') {
        const linked = model.pooler.serverOf(step.c);
        const closedBefore = model.pooler.endedServerOf(step.c) !== null;
        const r = model.close(step.c);
        await real(step.c).close();
        await settlePool(port);
        // PgBouncer closed the server connection: its backend releases its locks only as it exits.
        const pid = linked === null ? undefined : pidOf.get(linked);
        if (r === 'serverClosed' && pid !== undefined) await awaitBackendExit(Number(pid));
        transcript.push(`${i + 1}. ${step.c} closes → model: ${r === 'discarded' ? 'DISCARD ALL on its server connection' : r === 'serverClosed' ? 'server connection closed' : closedBefore ? 'PgBouncer had closed it already' : 'no server connection linked'}`);
        continue;
      }
      if (step.op === 'idleEnd') {
        const inTx = model.pooler.serverOf(step.c) !== null && model.db.inTransaction(model.pooler.serverOf(step.c)!);
        if (!inTx || model.pooler.endedServerOf(step.c) !== null) {
          transcript.push(`${i + 1}. ${step.c} idleEnd: left out (not in a transaction)`);
          continue;
        }
        const client = real(step.c);
        const results = await client.query(sqlOf(step));
        const pid = String(results.find((x) => x.rows[0]?.pid !== undefined)?.rows[0]?.pid ?? '?');
        const server = model.idleEnd(step.c);
        const routing = map(server, pid);
        if (routing !== null) problems.push(`step ${i + 1} (${step.c} idleEnd): ${routing}`);
        // The server ends the backend after the timeout; PgBouncer then closes the client.
        await awaitBackendExit(Number(pid));
        const closed = await client.awaitBroken();
        await settlePool(port);
        transcript.push(`${i + 1}. ${step.c} ${sqlOf(step)}, then idle → model: ${server}'s session ended, ${step.c} closed; server: pid ${pid} ended, ${step.c} ${closed ? 'closed by PgBouncer' : 'still open'}`);
        if (!closed) problems.push(`step ${i + 1} (${step.c} idleEnd): PgBouncer did not close the client connection whose server connection ended; the model closes it`);
        continue;
      }
      if (model.pooler.endedServerOf(step.c) !== null) {
        // The model's client connection was closed with its server connection: any statement finds it closed.
        let answered = false;
        try {
          await real(step.c).query(sqlOf(step));
          answered = true;
        } catch { /* the connection is closed, as the model says */ }
        transcript.push(`${i + 1}. ${step.c} ${sqlOf(step)} → model: connection closed; server: ${answered ? 'answered' : 'connection closed'}`);
        if (answered) problems.push(`step ${i + 1} (${step.c} ${step.op}): the model finds the connection closed, the server answered`);
        continue;
      }
      if (!model.canRun(step.c)) {
        transcript.push(`${i + 1}. ${step.c} ${step.op}: left out (every server connection is linked to another client; it would wait)`);
        continue;
      }
      const inTxn = model.pooler.serverOf(step.c) !== null && model.db.inTransaction(model.pooler.serverOf(step.c)!);
      if ((step.op === 'begin' && inTxn) || ((step.op === 'commit' || step.op === 'rollback' || step.op === 'xact') && !inTxn)) {
        transcript.push(`${i + 1}. ${step.c} ${step.op}: left out (${inTxn ? 'already in a transaction' : 'not in a transaction'})`);
        continue;
      }
      const server = model.link(step.c);
      let op: BouncerOp = step;
      if ((step.op === 'lock' || step.op === 'xact') && model.wouldWait(server, step.key)) op = { c: step.c, op: 'try', key: step.key };
      let last: DbReply | null = null;
      for (const s of stmtsOf(op)) {
        const r = model.db.execute(server, s);
        last = r.reply;
      }
      const m = modelReply(op.op === 'lock' || op.op === 'try' || op.op === 'unlock' || op.op === 'xact' ? last : null);
      model.after(step.c);
      const client = real(step.c);
      let seen: Seen;
      try {
        const results = await client.query(sqlOf(op));
        const row = results.find((x) => x.rows[0]?.pid !== undefined)?.rows[0] as { pid: string; r?: string | null } | undefined;
        // A boolean cast to text reads 'true' / 'false'; psql (and the model) print t / f.
        const r = row?.r === 'true' ? 't' : row?.r === 'false' ? 'f' : (row?.r ?? '');
        seen = { backend: row?.pid ?? '?', reply: op.op === 'lock' || op.op === 'try' || op.op === 'unlock' || op.op === 'xact' ? r : '', warning: client.notices.filter((n) => n.startsWith('WARNING')).join('; ') };
      } catch (e) {
        problems.push(`step ${i + 1} (${step.c} ${op.op}): the server answered ${(e as Error).message}`);
        transcript.push(`${i + 1}. ${step.c} ${sqlOf(op)} → model ${server} ${m.reply}; server: ${(e as Error).message}`);
        break;
      }
      const modelWarning = m.warning === '' ? '' : `WARNING:  ${m.warning}`;
      transcript.push(`${i + 1}. ${step.c} ${sqlOf(op)} → model ${server} '${m.reply}'${modelWarning ? ` + ${modelWarning}` : ''}; server pid ${seen.backend} '${seen.reply}'${seen.warning ? ` + ${seen.warning}` : ''}`);
      const routing = map(server, seen.backend);
      if (routing !== null) problems.push(`step ${i + 1} (${step.c} ${op.op}): ${routing}`);
      if (m.reply !== seen.reply) problems.push(`step ${i + 1} (${step.c} ${op.op}): model replied '${m.reply}', the server '${seen.reply}'`);
      if (modelWarning !== seen.warning) problems.push(`step ${i + 1} (${step.c} ${op.op}): model warned '${modelWarning}', the server '${seen.warning}'`);
    }
    const held = model.held();
    const realLocks = (await realHeld()).map((x) => {
      const [pid, key] = x.split(' ');
      return `${serverOf.get(pid!) ?? `pid ${pid}`} ${key}`;
    }).sort();
    transcript.push(`end: advisory locks held — model [${held.join(', ')}], server [${realLocks.join(', ')}]`);
    if (JSON.stringify(held) !== JSON.stringify(realLocks)) problems.push(`at the end the model holds [${held.join(', ')}], the server [${realLocks.join(', ')}]`);
  } finally {
    for (const r of clients.values()) await r.close();
    await resetPool(port);
  }
  return { name: c.name, primitive: primitiveOf(c.mode), outcome: problems.length === 0 ? 'agree' : 'disagree', transcript, problems };
}

/** Whether both PgBouncer daemons answer; the problems otherwise. */
export async function checkPgBouncer(): Promise<string[]> {
  const problems: string[] = [];
  for (const mode of ['transaction', 'session'] as const) {
    const port = PGBOUNCER_CONFIG.ports[mode];
    try {
      const r = await admin(port, 'SHOW CONFIG');
      const poolMode = r.rows.find((x: { key: string }) => x.key === 'pool_mode')?.value;
      const size = r.rows.find((x: { key: string }) => x.key === 'default_pool_size')?.value;
      if (poolMode !== mode || Number(size) !== PGBOUNCER_CONFIG.serverConnections) problems.push(`PgBouncer at ${PGBOUNCER_CONFIG.host}:${port} runs pool_mode = ${poolMode}, default_pool_size = ${size}; the suite needs ${mode} and ${PGBOUNCER_CONFIG.serverConnections}`);
      else console.log(`PgBouncer (${mode} mode, ${size} server connections) at ${PGBOUNCER_CONFIG.host}:${port}`);
    } catch (e) {
      problems.push(`PgBouncer (${mode} mode) does not answer at ${PGBOUNCER_CONFIG.host}:${port}: ${(e as Error).message}`);
    }
  }
  return problems;
}

/**
 * Every PgBouncer case: the hand-written ones, then `perMode` generated sequences per pool mode
 * (seed `seed`), one at a time (they share the daemons' pools), each under the confirmation rule
 * of confirm.ts (a disagreement counts only when two re-runs reproduce it).
 */
export async function runPgBouncerFidelity(seed: number, perMode: number): Promise<{ result: CaseResult; flake: Flake | null }[]> {
  const cases = [...BOUNCER_CASES, ...generateBouncerCases('transaction', seed, perMode), ...generateBouncerCases('session', seed + 1, perMode)];
  const results: { result: CaseResult; flake: Flake | null }[] = [];
  for (const c of cases) results.push(await runConfirmed(() => runBouncerCase(c)));
  return results;
}
