/**
 * A connection pooler (PgBouncer) between the application's connections (its clients, `c1`, …)
 * and PostgreSQL's backends (its server connections, `s1`, …, each a database session). Source:
 * ../shared/semantics.md, "Connection poolers (PgBouncer)" and "Connection pools and session
 * locks"; PgBouncer's documentation, "Pool modes", `server_reset_query`, `server_round_robin`.
 *
 * - `session` mode: a client is linked to one server connection at its first statement and keeps
 *   it until the client connection closes; then PgBouncer runs `DISCARD ALL` on it (which releases
 *   its session advisory locks) and puts it back — or closes it when it was inside a transaction.
 * - `transaction` mode: a client is linked only while it runs a statement or a transaction; at
 *   COMMIT/ROLLBACK (or after an autocommit statement) the server connection goes back to the
 *   pool as it is — its session state, a session advisory lock included, stays with it, no reset.
 *   A client that dies inside a transaction has its server connection closed (the transaction
 *   rolls back); outside one, it has nothing of PgBouncer's to give back.
 *
 * Idle server connections are handed out last-returned first (PgBouncer's default,
 * `server_round_robin = 0`: LIFO); a client waits in FIFO order when every one is linked.
 */
import { ConnectionPool, type PoolSnapshot } from './connectionPool';
import { NO_COMPLETIONS, type Completion, type Execution, type Resource, type ResourceNotice } from './resource';
import type { PoolerMode } from '../scenario/schema';

/**
 * A pooler command, for a worker (the caller) on behalf of its client connection:
 * `link` a server connection to the client (or wait for one), `unlink` it (back to the pool as it
 * is), `close` the client (it died or was destroyed: `DISCARD ALL` or the server connection closed).
 */
export type PoolerCmd =
  | { readonly op: 'link'; readonly client: string }
  | { readonly op: 'unlink'; readonly client: string }
  | { readonly op: 'close'; readonly client: string };

/** A pooler reply: the server connection linked, the caller's place in the queue, `unlinked`, or what closing the client did to its server connection. */
export type PoolerReply =
  | { readonly status: 'ok'; readonly server: string }
  | { readonly status: 'waits'; readonly position: number }
  | { readonly status: 'unlinked'; readonly server: string }
  | { readonly status: 'discarded'; readonly server: string }
  | { readonly status: 'serverClosed'; readonly server: string; readonly replacement: string }
  | { readonly status: 'none' };

/** What the inspector shows: the mode, each server connection with the client linked to it, and who waits. */
export interface PoolerSnapshot {
  readonly mode: PoolerMode | null;
  readonly servers: readonly { readonly id: string; readonly client: string | null }[];
  readonly waiting: readonly string[];
}

/** The hooks the pooler needs from the database: open a backend session, and whether one is inside a transaction. */
export interface PoolerDatabase {
  openSession(id: string): void;
  inTransaction(id: string): boolean;
}

/**
 * PgBouncer in one pool mode with `serverConnections` backends (opened at once, like
 * `min_pool_size` = `default_pool_size`). Every World has one; with `mode` null (the scenario has
 * no pooler) it has no server connections and is never called.
 */
export class PoolerResource implements Resource<PoolerCmd, PoolerReply, PoolerSnapshot> {
  readonly name = 'pooler';
  readonly traceKind = 'pool';
  private readonly servers: ConnectionPool;
  /** Client connection → its server connection. */
  private readonly links = new Map<string, string>();
  /** Worker → the client it waits for a server connection for. */
  private readonly waitingClient = new Map<string, string>();
  /** Client connection → the server connection whose session the server ended under it (`serverEnded`): PgBouncer closed the client too. */
  private readonly endedUnder = new Map<string, string>();

  constructor(
    readonly mode: PoolerMode | null,
    serverConnections: number,
    private readonly db: PoolerDatabase,
  ) {
    this.servers = new ConnectionPool(serverConnections, (id) => db.openSession(id), 's');
  }

  /** The server connection linked to `client` now, or null. */
  serverOf(client: string): string | null {
    return this.links.get(client) ?? null;
  }

  /** The client linked to `server` now, or null. */
  clientOf(server: string): string | null {
    for (const [c, s] of this.links) if (s === server) return c;
    return null;
  }

  /**
   * Executes a command for `worker`. `link` answers `ok` (already linked or an idle server
   * connection) or `waits`; `unlink` answers at once and may hand the server connection to the
   * first waiting worker (a completion of its `link`). Throws for `close` (see `close`).
   */
  execute(_nowMs: number, worker: string, cmd: PoolerCmd): Execution<PoolerCmd, PoolerReply> {
    if (cmd.op === 'link') {
      const linked = this.links.get(cmd.client);
      if (linked !== undefined) return { reply: { status: 'ok', server: linked }, completions: NO_COMPLETIONS };
      const r = this.servers.borrow(worker);
      if (r.status === 'waits') {
        this.waitingClient.set(worker, cmd.client);
        return { reply: r, completions: NO_COMPLETIONS };
      }
      this.links.set(cmd.client, r.connection);
      return { reply: { status: 'ok', server: r.connection }, completions: NO_COMPLETIONS };
    }
    if (cmd.op === 'close') throw new Error('a client connection is closed with close(), which also ends or resets its server connection\'s session');
    const server = this.links.get(cmd.client);
    if (server === undefined) return { reply: { status: 'none' }, completions: NO_COMPLETIONS };
    this.links.delete(cmd.client);
    return { reply: { status: 'unlinked', server }, completions: this.handoff(this.servers.giveBack(server)) };
  }

  /**
   * The client connection closes (its process died, or it was destroyed). Its server connection, if
   * linked: inside a transaction, PgBouncer closes it (`closeSession`; a new backend takes its
   * place); otherwise `DISCARD ALL` (`closeSession` then a fresh session under the same id: the
   * backend stays, its session state goes) and it goes back to the pool. `closeSession` is the
   * World's, so that the statements the ended session let through reach their workers.
   */
  close(client: string, closeSession: (id: string) => void): Execution<PoolerCmd, PoolerReply> {
    // PgBouncer had closed it already (`serverEnded`): nothing of its is left to reset.
    if (this.endedUnder.delete(client)) return { reply: { status: 'none' }, completions: NO_COMPLETIONS };
    const server = this.links.get(client);
    if (server === undefined) return { reply: { status: 'none' }, completions: NO_COMPLETIONS };
    this.links.delete(client);
    if (this.db.inTransaction(server)) {
      // PgBouncer opens server connections only when none is idle: the replacement comes last.
      const h = this.servers.discard(server, closeSession, 'last');
      return { reply: { status: 'serverClosed', server, replacement: h?.connection ?? this.newest() }, completions: this.handoff(h) };
    }
    closeSession(server);
    this.db.openSession(server);
    return { reply: { status: 'discarded', server }, completions: this.handoff(this.servers.giveBack(server)) };
  }

  /**
   * PostgreSQL ended server connection `server`'s session (FATAL, e.g. 25P03 from
   * `idle_in_transaction_session_timeout`; the caller has closed the session already). PgBouncer
   * passes the FATAL on to the client linked to it and closes that client connection too
   * (`server conn crashed?`), drops the server connection and opens another in its place (handed
   * to the first waiting client, if any). Checked against PgBouncer 1.18 in transaction and
   * session mode: the client's next statement finds its connection closed. Returns the client
   * (null if none was linked) and the replacement's id.
   */
  serverEnded(server: string): { readonly client: string | null; readonly replacement: string; readonly completions: readonly Completion<PoolerCmd, PoolerReply>[] } {
    const client = this.clientOf(server);
    if (client !== null) {
      this.links.delete(client);
      this.endedUnder.set(client, server);
    }
    const h = this.servers.discard(server, () => undefined, 'last');
    return { client, replacement: h?.connection ?? this.newest(), completions: this.handoff(h) };
  }

  /** The server connection whose end closed client connection `client` (`serverEnded`), until the client is closed; else null. */
  endedServerOf(client: string): string | null {
    return this.endedUnder.get(client) ?? null;
  }

  /** A worker stops waiting for a server connection (it crashed). */
  cancelWait(worker: string): void {
    this.servers.cancelWait(worker);
    this.waitingClient.delete(worker);
  }

  waits(reply: PoolerReply): boolean {
    return reply.status === 'waits';
  }

  /** PgBouncer sends nothing for a link or an unlink (it routes the client's next statement); closing a client sends `DISCARD ALL` (session mode) or closes the backend. */
  renderCommand(cmd: PoolerCmd): string {
    return cmd.op === 'close' ? (this.mode === 'session' ? 'DISCARD ALL' : '') : '';
  }

  renderReply(reply: PoolerReply): string {
    switch (reply.status) {
      case 'ok': return `server connection ${reply.server}`;
      case 'waits': return 'waits (no idle server connection)';
      case 'unlinked': return `${reply.server} back to the pool`;
      case 'discarded': return 'DISCARD ALL';
      case 'serverClosed': return `${reply.server} closed; ${reply.replacement} opened`;
      case 'none': return '';
    }
  }

  snapshot(): PoolerSnapshot {
    const s: PoolSnapshot = this.servers.snapshot();
    return {
      mode: this.mode,
      servers: s.connections.map((c) => ({ id: c.id, client: this.clientOf(c.id) })),
      waiting: s.waiting,
    };
  }

  nextWakeMs(): null {
    return null;
  }

  wake(): readonly ResourceNotice[] {
    return NO_COMPLETIONS;
  }

  private newest(): string {
    const all = this.servers.snapshot().connections;
    return all[all.length - 1]!.id;
  }

  private handoff(h: { readonly worker: string; readonly connection: string } | null): readonly Completion<PoolerCmd, PoolerReply>[] {
    if (h === null) return NO_COMPLETIONS;
    const client = this.waitingClient.get(h.worker);
    this.waitingClient.delete(h.worker);
    if (client === undefined) throw new Error(`worker ${h.worker} waited for a server connection without a client`);
    this.links.set(client, h.connection);
    return [{ caller: h.worker, command: { op: 'link', client }, reply: { status: 'ok', server: h.connection } }];
  }
}
