/**
 * An application-side connection pool. Connections keep their database session (and so any
 * session-level advisory lock) between borrowers: returning a connection does not reset it, as
 * with PgBouncer in transaction mode without `server_reset_query_always` (semantics.md,
 * "Connection pools and session locks"). Idle connections are handed out last-returned first;
 * borrowers wait in FIFO order when every connection is lent.
 */

/** One pooled connection: its id doubles as the database session id. */
export interface PooledConnection {
  readonly id: string;
  /** Worker currently borrowing it, or null when idle. */
  borrower: string | null;
}

/** Result of a borrow: a connection now, or a place in the wait queue. */
export type BorrowResult = { readonly status: 'ok'; readonly connection: string } | { readonly status: 'waits'; readonly position: number };

/** A hand-over: a returned or new connection given to the first waiting borrower. */
export interface Handoff {
  readonly worker: string;
  readonly connection: string;
}

/** Plain data copy for inspection. */
export interface PoolSnapshot {
  /** `process`: the application process whose pool the connection belongs to (only in a scenario with `processes`). */
  readonly connections: readonly { readonly id: string; readonly borrower: string | null; readonly process?: string }[];
  readonly waiting: readonly string[];
}

/** A connection-id counter several pools share, so that their ids (`c1`, `c2`, …) never collide: each new connection takes `next`. */
export interface IdCounter {
  next: number;
}

/** The pool. `openSession`/`closeSession` create and end the database session of a connection. */
export class ConnectionPool {
  private readonly connections: PooledConnection[] = [];
  private idle: string[] = [];
  private readonly waiters: string[] = [];

  /**
   * @param size number of connections (opened at once, like a pool with min = max).
   * @param openSession called with a new connection's id to open its database session.
   * @param prefix the ids' prefix: `c` (c1, c2, …) for the application's pool, `s` for a pooler's server connections.
   * @param ids the counter the ids are numbered from (default: this pool's own, from 1); pools that share one never reuse an id.
   */
  constructor(
    readonly size: number,
    private readonly openSession: (id: string) => void,
    private readonly prefix = 'c',
    private readonly ids: IdCounter = { next: 1 },
  ) {
    for (let i = 0; i < size; i++) this.openNew();
    this.idle.reverse(); // the first borrower gets c1
  }

  /** Borrow a connection for `worker`: the most recently returned idle one, or wait (FIFO). */
  borrow(worker: string): BorrowResult {
    const id = this.idle.pop();
    if (id !== undefined) {
      this.conn(id).borrower = worker;
      return { status: 'ok', connection: id };
    }
    this.waiters.push(worker);
    return { status: 'waits', position: this.waiters.length };
  }

  /** Return a connection as it is (session state kept). Returns the hand-over if someone was waiting. */
  giveBack(id: string): Handoff | null {
    const c = this.conn(id);
    c.borrower = null;
    return this.handToWaiterOrIdle(id);
  }

  /**
   * Close a connection (its session ends) and open a fresh one in its place. Returns the hand-over
   * of the new one, if any. With no one waiting, the new one is idle: handed out next (`first`,
   * the application pool's default), or only when every other idle one is taken (`last`: a pooler
   * that opens server connections lazily, as PgBouncer does, hands out an idle one before opening one).
   */
  discard(id: string, closeSession: (id: string) => void, replacement: 'first' | 'last' = 'first'): Handoff | null {
    const index = this.connections.findIndex((c) => c.id === id);
    if (index < 0) throw new Error(`no connection ${id}`);
    this.connections.splice(index, 1);
    this.idle = this.idle.filter((x) => x !== id);
    closeSession(id);
    const fresh = this.openNew(false);
    if (replacement === 'last' && this.waiters.length === 0) {
      this.idle.unshift(fresh);
      return null;
    }
    return this.handToWaiterOrIdle(fresh);
  }

  /** Stop waiting (the waiter crashed). */
  cancelWait(worker: string): void {
    const i = this.waiters.indexOf(worker);
    if (i >= 0) this.waiters.splice(i, 1);
  }

  /** The worker borrowing `id`, or null. */
  borrowerOf(id: string): string | null {
    return this.conn(id).borrower;
  }

  /** Whether `id` is one of this pool's connections now. */
  has(id: string): boolean {
    return this.connections.some((c) => c.id === id);
  }

  /** Whether `worker` waits in this pool's queue. */
  isWaiting(worker: string): boolean {
    return this.waiters.includes(worker);
  }

  snapshot(): PoolSnapshot {
    return { connections: this.connections.map((c) => ({ id: c.id, borrower: c.borrower })), waiting: [...this.waiters] };
  }

  private handToWaiterOrIdle(id: string): Handoff | null {
    const worker = this.waiters.shift();
    if (worker === undefined) {
      this.idle.push(id);
      return null;
    }
    this.conn(id).borrower = worker;
    return { worker, connection: id };
  }

  private openNew(toIdle = true): string {
    const id = `${this.prefix}${this.ids.next++}`;
    this.connections.push({ id, borrower: null });
    this.openSession(id);
    if (toIdle) this.idle.push(id);
    return id;
  }

  private conn(id: string): PooledConnection {
    const c = this.connections.find((x) => x.id === id);
    if (!c) throw new Error(`no connection ${id}`);
    return c;
  }
}
