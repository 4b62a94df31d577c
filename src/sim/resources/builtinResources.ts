/**
 * The built-in resources behind the `Resource` interface (resource.ts), registered in the
 * order a World creates them and shows them in a WorldSnapshot: the lease store (Redis), the
 * database (PostgreSQL), the destination, the connection pool, and (version 2) the SQS-like
 * message queue (messageQueue.ts). Each adapter wraps the model
 * class unchanged (`Database`, `LeaseStore`, `Destination`, `ConnectionPool`), which the fidelity
 * suite and the tests also use directly; and (version 2) the lock service, etcd (lockService.ts),
 * registered last, idle unless the scenario's lease lives there (`lockService`).
 */
import { sequencesFor, tablesFor } from '../engine/tables';
import { Database, type DatabaseSnapshot, type WaitCycle } from './database';
import { renderReply, renderSql } from './renderSql';
import type { CommittedRows, DbCompletion, DbReply, Row, SqlError, Stmt } from './sqlTypes';
import { LeaseStore } from './leaseStore';
import { renderRedis, renderRedisReply, type RedisCmd, type RedisReply } from './redisTypes';
import { ConnectionPool, type BorrowResult, type PoolSnapshot } from './connectionPool';
import { PoolerResource } from './pooler';
import { Destination, type DestinationSnapshot, type DestinationWrite } from './destination';
import { MessageQueue, queueFor } from './messageQueue';
import { EtcdLockService } from './lockService';
import { NO_COMPLETIONS, registerResource, type Completion, type Execution, type Resource, type ResourceNotice } from './resource';

/** PostgreSQL: callers are session ids; a statement that waits for a lock is answered later. */
export class SqlResource implements Resource<Stmt, DbReply, DatabaseSnapshot> {
  readonly name = 'db';
  readonly traceKind = 'sql';
  constructor(readonly db: Database) {}
  execute(_nowMs: number, session: string, stmt: Stmt): SqlExecution {
    const r = this.db.execute(session, stmt);
    const completions = completionsOf(r.completions);
    return r.committed === undefined ? { reply: r.reply, completions } : { reply: r.reply, completions, committed: r.committed };
  }
  /** Ends a session (disconnect, crash): other sessions' statements it let through. */
  closeSession(session: string): readonly SqlCompletion[] {
    return completionsOf(this.db.closeSession(session));
  }
  /** Cancels the session's waiting statement with `error` (lock_timeout 55P03, cancel 57014): its completion first. */
  cancelWaiting(session: string, error: SqlError): readonly SqlCompletion[] {
    return completionsOf(this.db.cancelWaiting(session, error));
  }
  /**
   * The deadlock check of the session's waiting statement (its `deadlock_timeout` fired; see
   * `Database.checkDeadlock`): `none`, or the cycle found and the completions — on a deadlock the
   * session's own 40P01 first, then the statements its aborted transaction let through.
   */
  checkDeadlock(session: string): { readonly kind: 'none' } | { readonly kind: 'soft' | 'deadlock'; readonly cycle: WaitCycle; readonly completions: readonly SqlCompletion[] } {
    const check = this.db.checkDeadlock(session);
    return check.kind === 'none' ? check : { kind: check.kind, cycle: check.cycle, completions: completionsOf(check.completions) };
  }
  waits(reply: DbReply): boolean {
    return reply.status === 'waits';
  }
  renderCommand(stmt: Stmt): string {
    return renderSql(stmt);
  }
  renderReply(reply: DbReply): string {
    return renderReply(reply);
  }
  snapshot(): DatabaseSnapshot {
    return this.db.snapshot();
  }
  nextWakeMs(): null {
    return null;
  }
  wake(): readonly ResourceNotice[] {
    return NO_COMPLETIONS;
  }
}

/** A statement that finished after waiting, with its committed rows as they stood when it finished (`CommittedRows`). */
export type SqlCompletion = Completion<Stmt, DbReply> & { readonly committed?: CommittedRows };

/** What one statement did (`Execution`), with its committed rows taken before the statements it let through ran. */
export type SqlExecution = Execution<Stmt, DbReply> & { readonly committed?: CommittedRows; readonly completions: readonly SqlCompletion[] };

function completionsOf(list: readonly DbCompletion[]): readonly SqlCompletion[] {
  return list.length === 0 ? NO_COMPLETIONS : list.map((c) => (c.committed === undefined ? { caller: c.sessionId, command: c.stmt, reply: c.reply } : { caller: c.sessionId, command: c.stmt, reply: c.reply, committed: c.committed }));
}

/** Redis: commands never wait; keys expire on their own (a wake-up at the next expiry). */
export class RedisResource implements Resource<RedisCmd, RedisReply, ReturnType<LeaseStore['entries']>> {
  readonly name = 'redis';
  readonly traceKind = 'redis';
  /** Rendered commands, so a retry loop re-sending one command object renders it once. */
  private readonly rendered = new WeakMap<RedisCmd, string>();
  constructor(readonly store: LeaseStore) {}
  execute(nowMs: number, _caller: string, cmd: RedisCmd): Execution<RedisCmd, RedisReply> {
    return { reply: this.store.execute(nowMs, cmd), completions: NO_COMPLETIONS };
  }
  waits(): boolean {
    return false;
  }
  renderCommand(cmd: RedisCmd): string {
    let command = this.rendered.get(cmd);
    if (command === undefined) this.rendered.set(cmd, (command = renderRedis(cmd)));
    return command;
  }
  renderReply(reply: RedisReply): string {
    return renderRedisReply(reply);
  }
  snapshot(nowMs: number): ReturnType<LeaseStore['entries']> {
    return this.store.entries(nowMs);
  }
  nextWakeMs(): number | null {
    return this.store.nextExpiryMs();
  }
  /** Keys whose TTL ran out (Redis "EXPIRE": a key with an expiry is deleted once it is reached). */
  wake(nowMs: number): readonly ResourceNotice[] {
    return this.store.expireDue(nowMs).map((key) => ({
      actor: 'redis',
      kind: 'expiry',
      narration: `${key} expired: its TTL ran out. Whoever believes they own it no longer does, and anyone may take it.`,
      data: { t: 'lease', op: 'expired', key },
    }));
  }
}

/** A destination request: begin a write (upload / API call), finish it, or abort it (the writer died). */
export type DestinationCmd =
  | { readonly op: 'begin'; readonly token: number | null; readonly idempotencyKey: string | null }
  | { readonly op: 'finish'; readonly writeId: number; readonly token: number | null; readonly idempotencyKey: string | null }
  | { readonly op: 'abort'; readonly writeId: number };

/** The file store or external API: callers are worker ids; a write is begun and finished (or aborted) later. The reply is the write itself (live: copy it to keep it). */
export class DestinationResource implements Resource<DestinationCmd, DestinationWrite, DestinationSnapshot> {
  readonly name = 'destination';
  readonly traceKind = 'destination';
  constructor(readonly destination: Destination) {}
  execute(nowMs: number, worker: string, cmd: DestinationCmd): Execution<DestinationCmd, DestinationWrite> {
    const reply = cmd.op === 'begin' ? this.destination.begin(nowMs, worker, cmd.token, cmd.idempotencyKey)
      : cmd.op === 'finish' ? this.destination.finish(nowMs, cmd.writeId) : this.destination.abort(nowMs, cmd.writeId);
    return { reply, completions: NO_COMPLETIONS };
  }
  waits(): boolean {
    return false;
  }
  renderCommand(cmd: DestinationCmd): string {
    return cmd.op === 'abort' ? '' : this.destination.renderRequest(cmd.token, cmd.idempotencyKey);
  }
  renderReply(write: DestinationWrite): string {
    return write.reply;
  }
  snapshot(): DestinationSnapshot {
    return this.destination.snapshot();
  }
  nextWakeMs(): null {
    return null;
  }
  wake(): readonly ResourceNotice[] {
    return NO_COMPLETIONS;
  }
}

/**
 * A pool command: borrow a connection (`pool.connect()`), return one as it is (`client.release()`),
 * or close it for good (`connection.destroy()`, see `discard`). `connect` names the application
 * process whose pool it borrows from (`process`, version 2; absent = the shared pool) and whether
 * a helper borrows a second connection while its caller keeps its own (`helper`).
 */
export type PoolCmd =
  | { readonly op: 'connect'; readonly process?: string; readonly helper?: true }
  | { readonly op: 'release'; readonly connection: string }
  | { readonly op: 'destroy'; readonly connection: string };
/**
 * A pool reply: the connection, the caller's place in the queue, `released` for a return, `closed`
 * for a destroy, or `timeout` for a `connect` the pool gave up on after its acquire timeout
 * (node-postgres: `Error: timeout exceeded when trying to connect`).
 */
export type PoolReply = BorrowResult | { readonly status: 'released' } | { readonly status: 'closed' } | { readonly status: 'timeout' };

const CONNECT: PoolCmd = { op: 'connect' };

/**
 * The application's connection pools: callers are worker ids; a borrower waits (FIFO) when every
 * connection of its pool is lent out. `pool` is the shared one (`database.poolSize`); with
 * `processes` (version 2) each process has its own (`processPools`), and a connection goes back to
 * the pool it came from.
 */
export class PoolResource implements Resource<PoolCmd, PoolReply, PoolSnapshot> {
  readonly name = 'pool';
  readonly traceKind = 'pool';
  constructor(readonly pool: ConnectionPool, readonly processPools: ReadonlyMap<string, ConnectionPool> = new Map()) {}
  execute(_nowMs: number, worker: string, cmd: PoolCmd): Execution<PoolCmd, PoolReply> {
    if (cmd.op === 'connect') return { reply: this.poolFor(cmd.process).borrow(worker), completions: NO_COMPLETIONS };
    if (cmd.op === 'destroy') throw new Error('a connection is destroyed with discard(), which also closes its database session');
    const pool = this.poolOf(cmd.connection);
    const handoff = pool.giveBack(cmd.connection);
    return { reply: RELEASED, completions: handoff ? [{ caller: handoff.worker, command: this.connectOf(pool), reply: { status: 'ok', connection: handoff.connection } }] : NO_COMPLETIONS };
  }
  /** Closes a connection for good (its session ends); its pool opens a replacement, handed to a waiter if any. */
  discard(connection: string, closeSession: (id: string) => void): readonly Completion<PoolCmd, PoolReply>[] {
    const pool = this.poolOf(connection);
    const handoff = pool.discard(connection, closeSession);
    return handoff ? [{ caller: handoff.worker, command: this.connectOf(pool), reply: { status: 'ok', connection: handoff.connection } }] : NO_COMPLETIONS;
  }
  /** The worker stops waiting for a connection (it crashed, or its acquire timeout fired). */
  cancelWait(worker: string): void {
    this.pool.cancelWait(worker);
    for (const p of this.processPools.values()) p.cancelWait(worker);
  }
  /** The pool of `process` (absent: the shared pool). Throws for a process the scenario does not have. */
  poolFor(process: string | undefined): ConnectionPool {
    if (process === undefined) return this.pool;
    const p = this.processPools.get(process);
    if (p === undefined) throw new Error(`no process "${process}" in this scenario's processes`);
    return p;
  }
  /** The process whose pool `connection` belongs to (undefined: the shared pool). */
  processOf(connection: string): string | undefined {
    for (const [id, p] of this.processPools) if (p.has(connection)) return id;
    return undefined;
  }
  waits(reply: PoolReply): boolean {
    return reply.status === 'waits';
  }
  renderCommand(cmd: PoolCmd): string {
    return cmd.op === 'connect' ? 'pool.connect()' : cmd.op === 'release' ? 'client.release()' : 'connection.destroy()';
  }
  renderReply(reply: PoolReply): string {
    switch (reply.status) {
      case 'ok': return reply.connection;
      case 'waits': return 'waits (pool exhausted)';
      case 'closed': return 'closed';
      case 'timeout': return 'Error: timeout exceeded when trying to connect';
      case 'released': return 'ok';
    }
  }
  /** The shared pool's snapshot; with processes, every pool's connections (each with its `process`) and waiters. */
  snapshot(): PoolSnapshot {
    if (this.processPools.size === 0) return this.pool.snapshot();
    const connections: PoolSnapshot['connections'][number][] = [];
    const waiting: string[] = [];
    for (const [process, p] of this.processPools) {
      const s = p.snapshot();
      connections.push(...s.connections.map((c) => ({ ...c, process })));
      waiting.push(...s.waiting);
    }
    const shared = this.pool.snapshot();
    return { connections: [...connections, ...shared.connections], waiting: [...waiting, ...shared.waiting] };
  }
  nextWakeMs(): null {
    return null;
  }
  wake(): readonly ResourceNotice[] {
    return NO_COMPLETIONS;
  }

  private poolOf(connection: string): ConnectionPool {
    for (const p of this.processPools.values()) if (p.has(connection)) return p;
    return this.pool;
  }

  private connectOf(pool: ConnectionPool): PoolCmd {
    for (const [process, p] of this.processPools) if (p === pool) return { op: 'connect', process };
    return CONNECT;
  }
}

const RELEASED: PoolReply = { status: 'released' };

registerResource<RedisResource>({
  name: 'redis',
  create(scenario) {
    // The fencing counter starts at fenceStart (already replicated), so the first token is fenceStart + 1.
    const L = scenario.lease;
    const fence = L.fenceStart > 0 ? [{ key: L.fenceKey, value: String(L.fenceStart), expiresAtServerMs: null }] : [];
    return new RedisResource(LeaseStore.fromSnapshot({ version: 1, replicationLagMs: L.replicationLagMs, lastNowMs: null, serverClockOffsetMs: 0, keys: fence, replicaKeys: fence, pendingWrites: [] }));
  },
  snapshotFields: (r, nowMs) => ({ leases: r.snapshot(nowMs) }),
});

registerResource<SqlResource>({
  name: 'db',
  create: (scenario) => new SqlResource(new Database(tablesFor(scenario), sequencesFor(scenario))),
  snapshotFields(r, _nowMs, scenario) {
    const tables: Record<string, Row[]> = {};
    for (const { name } of tablesFor(scenario)) tables[name] = r.db.committedRows(name);
    return { tables, locks: r.db.locks(), pgLocks: r.db.pgLocks(), waitFor: r.db.waitForGraph() };
  },
});

registerResource<DestinationResource>({
  name: 'destination',
  create: (scenario) => new DestinationResource(new Destination(scenario.destination)),
  snapshotFields: (r) => ({ destination: r.snapshot() }),
});

registerResource<PoolResource>({
  name: 'pool',
  create: (scenario, host) => {
    const db = host.resource<SqlResource>('db').db;
    // Behind a pooler the application's connections are PgBouncer's clients, not database sessions.
    const behindPooler = scenario.database.pooler !== undefined;
    const open = (id: string) => (behindPooler ? undefined : db.openSession(id));
    if (scenario.processes === undefined) return new PoolResource(new ConnectionPool(scenario.database.poolSize, open));
    // Each process's pool, then the shared one (only if some worker names no process), numbered c1, c2, … across them.
    const ids = { next: 1 };
    const processPools = new Map(scenario.processes.map((p) => [p.id, new ConnectionPool(p.poolSize, open, 'c', ids)] as const));
    const sharedSize = scenario.workers.some((w) => w.process === undefined) ? scenario.database.poolSize : 0;
    return new PoolResource(new ConnectionPool(sharedSize, open, 'c', ids), processPools);
  },
  snapshotFields: (r) => ({ pool: r.snapshot() }),
});

registerResource<PoolerResource>({
  name: 'pooler',
  create: (scenario, host) => {
    const db = host.resource<SqlResource>('db').db;
    const p = scenario.database.pooler;
    return new PoolerResource(p?.mode ?? null, p?.serverConnections ?? 0, {
      openSession: (id) => db.openSession(id),
      inTransaction: (id) => db.inTransaction(id),
    });
  },
  // Only a scenario with a pooler has its field (snapshots of the others stay as they were).
  snapshotFields: (r) => (r.mode === null ? {} : { pooler: r.snapshot() }),
});

registerResource<MessageQueue>({
  name: 'queue',
  create: (scenario) => queueFor(scenario),
  // Only a scenario with an SQS-like queue shows it (the others' snapshots stay as they were).
  snapshotFields: (r, nowMs, scenario) => (scenario.queue?.kind === 'sqs' ? { queue: r.snapshot(nowMs) } : {}),
});

registerResource<EtcdLockService>({
  name: 'etcd',
  // The store's revision before the run: lease.fenceStart (a fresh etcd is at revision 1).
  create: (scenario) => new EtcdLockService(Math.max(1, scenario.lease.fenceStart)),
  // Only a scenario whose lease lives in etcd shows it (the others' snapshots stay as they were).
  snapshotFields: (r, nowMs, scenario) => (scenario.lockService !== undefined ? { lockService: r.snapshot(nowMs) } : {}),
});
