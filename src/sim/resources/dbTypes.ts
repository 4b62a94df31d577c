/**
 * State and view types of the simulated PostgreSQL database (`database.ts`).
 *
 * Everything here is plain, JSON-serialisable data: the whole database state is one
 * `DatabaseSnapshot`, which is what `Database.snapshot()` copies out and `Database.fromSnapshot()`
 * copies in. Pure module: no DOM, no clock, no randomness.
 */
import type { AdvisoryKey, IsolationLevel, Row, Stmt, TableSpec } from './sqlTypes';

/** Heavyweight lock modes the model reports (PostgreSQL docs, "Table-Level Lock Modes" names). */
export type LockMode = 'ExclusiveLock' | 'ShareLock';

/** Advisory lock scope: session-level (`pg_advisory_lock`) or transaction-level (`pg_advisory_xact_lock`). */
export type AdvisoryScope = 'session' | 'transaction';

/**
 * One line of the model's lock view returned by `Database.locks()`: who holds and who waits for
 * what, row-lock holders included (the timeline's database lane draws it). It is not `pg_locks`:
 * PostgreSQL's own view is `Database.pgLocks()` (`pgLocks.ts`), which lists no row-lock holder.
 *
 * - `advisory`: one granted line per (key, session, scope, mode) with the stacking `count`, and one
 *   waiting line per queued request (`granted: false`, `scope` = requested scope, no `count`).
 *   `objectDescription` is `advisory 42` (bigint key) or `advisory (1,2)` (int4 pair).
 * - `tuple`: a row lock held by a transaction (`SELECT … FOR UPDATE`, or the row was
 *   inserted/updated/deleted by it), mode `ExclusiveLock`; statements waiting for that row appear
 *   with `granted: false`. `objectDescription` is `items row id=7` (primary key, else all columns).
 * - `transactionid`: an INSERT/UPDATE waiting for the transaction that wrote a conflicting unique
 *   key (`ShareLock`, not granted), paired with that transaction's granted `ExclusiveLock` line.
 *   `objectDescription` names the key: `invoices row order_id=42`.
 *
 * PostgreSQL itself keeps row locks in the tuple header rather than in `pg_locks`; this view lists
 * them so the timeline and the inspector's row-lock table can show who blocks whom (PostgreSQL docs,
 * "pg_locks", "Row-Level Locks").
 */
export interface LockRow {
  readonly locktype: 'advisory' | 'tuple' | 'transactionid';
  readonly objectDescription: string;
  readonly sessionId: string;
  readonly mode: LockMode;
  readonly granted: boolean;
  /** Advisory locks only: session-level or transaction-level. */
  readonly scope?: AdvisoryScope;
  /** Granted advisory locks only: how many times the lock is held at this scope (locks stack). */
  readonly count?: number;
}

/** An advisory lock a session holds, summed per key and mode (see `SessionState`). */
export interface HeldAdvisoryLock {
  /** The key as users write it: `42` or `(1,2)`. */
  readonly key: string;
  /** The key as typed data. */
  readonly advisoryKey: AdvisoryKey;
  /** `advisory 42` or `advisory (1,2)`, as in `LockRow.objectDescription`. */
  readonly description: string;
  readonly mode: LockMode;
  /** Session-level holds (need this many `pg_advisory_unlock` calls). */
  readonly sessionCount: number;
  /** Transaction-level holds (released at COMMIT/ROLLBACK). */
  readonly xactCount: number;
}

/** What one backend session looks like from outside (returned by `Database.sessionState`). */
export interface SessionState {
  readonly sessionId: string;
  /** True inside an explicit transaction block (after BEGIN, until COMMIT/ROLLBACK), aborted or not. */
  readonly inTransaction: boolean;
  /** True when the block is aborted: every statement but COMMIT/ROLLBACK fails with 25P02. */
  readonly aborted: boolean;
  /** The statement this session waits in, or null. `on` is the same text as the `waits` reply. */
  readonly waiting: {
    readonly stmt: Stmt;
    readonly on: string;
    /** Identifies this wait: a statement that is resumed and waits again gets a new one (a new `deadlock_timeout` timer in PostgreSQL). */
    readonly waitId: number;
    readonly blockerSession?: string;
  } | null;
  /** Advisory locks held, ordered like `Database.locks()`. */
  readonly advisoryLocks: readonly HeldAdvisoryLock[];
  /** Row locks held by the session's open transaction, as `items row id=7`. */
  readonly rowLocks: readonly string[];
}

/** A transaction (explicit block or the implicit one of an autocommit statement). */
export interface TxnState {
  /** Transaction number, unique for the life of the database; never reused. */
  readonly id: number;
  /** True after BEGIN; false for the implicit transaction of one autocommit statement. */
  readonly explicit: boolean;
  /**
   * True once a statement failed inside the block: its effects and locks are already released
   * (PostgreSQL aborts at the error, not at ROLLBACK), the block waits for COMMIT/ROLLBACK.
   */
  readonly aborted: boolean;
  /**
   * A real transaction id (xid) has been assigned: PostgreSQL assigns one when the transaction first
   * writes or locks a row, and an UPDATE, DELETE or plain INSERT has one already while it waits
   * (`pg_locks` then shows its `transactionid` ExclusiveLock). Absent = not assigned.
   */
  xidAssigned?: boolean;
  /** Table-level locks its statements took, as `table:mode`, in the order first taken (held until the transaction ends). */
  relationLocks?: string[];
  /** Its isolation level from `BEGIN ISOLATION LEVEL …`; absent = READ COMMITTED. */
  isolation?: IsolationLevel;
  /**
   * REPEATABLE READ / SERIALIZABLE: the snapshot, as the commit sequence number (`commitSeq`) at
   * the transaction's first statement after BEGIN — not at BEGIN (checked on PostgreSQL 15). It
   * sees the row versions committed with a number up to this one. Absent until then.
   */
  snapshot?: number;
}

/**
 * What the SERIALIZABLE check (serializable snapshot isolation, PostgreSQL's predicate.c) keeps
 * of one serializable transaction: the tables it read (its SIREAD locks, table-granular in the
 * model) and wrote, kept after it commits while a concurrent transaction is still open.
 */
export interface SerializableTxn {
  readonly txn: number;
  readonly sessionId: string;
  readonly snapshot: number;
  /** Its commit sequence number once committed; null while open. */
  commitSeq: number | null;
  reads: string[];
  writes: string[];
  /** Another transaction of a read/write cycle committed first: this one's COMMIT fails with 40001. */
  doomed: boolean;
}

/** A backend session (connection). */
export interface SessionRecord {
  readonly id: string;
  txn: TxnState | null;
}

/**
 * One logical row: its committed version, at most one uncommitted change (with the versions that
 * change went through), and the transaction holding its row lock. Invariant: `pending` is set only
 * while `lock` is set, by the same transaction. `committed: null` with a pending value is an
 * uncommitted insert.
 */
export interface RowState {
  /** Stable row number in insertion order (the model's identity of a logical row). */
  readonly rid: number;
  /**
   * Physical position of the committed version (the model's ctid order). A sequential scan
   * visits rows by position; an UPDATE writes its new version after every existing one, so an
   * updated row moves to the end once committed (PostgreSQL heap order, one page, no vacuum).
   */
  pos: number;
  committed: Row | null;
  /**
   * The lock holder's change: `values` is its latest version (`null`: deleted by it), `pos` that
   * version's position, `superseded` the versions it wrote before and has since replaced (UPDATE)
   * or deleted, oldest first. PostgreSQL keeps every version a transaction writes, each with its
   * own index entry, until the transaction ends; another transaction's unique check waits on any of
   * them (`checkUnique`), so the model must remember them even though no statement can read them.
   */
  pending: { values: Row | null; pos: number; superseded: Row[] } | null;
  lock: { readonly txn: number; readonly sessionId: string } | null;
  /** Commit sequence number of the transaction that committed `committed` (absent = 0: before the run). */
  csn?: number;
  /**
   * Earlier committed versions (newest last), kept only while a REPEATABLE READ / SERIALIZABLE
   * snapshot may still need them (a row inserted later has `{ values: null }` first).
   */
  older?: { readonly values: Row | null; readonly csn: number }[];
}

/** One table: its spec, rows in insertion order, and its sequences (last value handed out). */
export interface TableState {
  readonly spec: TableSpec;
  rows: RowState[];
  nextRid: number;
  /** Next physical position for a new row version. */
  nextPos: number;
  /** Serial column → last value (non-transactional, like `nextval`). */
  sequences: Record<string, number>;
}

/** A granted advisory lock: one entry per (session, scope, mode), stacked by `count`. */
export interface AdvisoryHold {
  readonly sessionId: string;
  readonly mode: LockMode;
  readonly scope: AdvisoryScope;
  count: number;
}

/** A queued advisory lock request (at most one per session). */
export interface AdvisoryRequest {
  readonly sessionId: string;
  readonly mode: LockMode;
  readonly scope: AdvisoryScope;
}

/** The lock table entry of one advisory key: holders and its FIFO wait queue. */
export interface AdvisoryEntry {
  readonly key: AdvisoryKey;
  holds: AdvisoryHold[];
  queue: AdvisoryRequest[];
}

/** What a waiting statement waits for. */
export type WaitTarget =
  | { readonly kind: 'advisory'; readonly key: AdvisoryKey; readonly mode: LockMode; readonly scope: AdvisoryScope }
  /** A row lock held by transaction `txn`. */
  | {
      readonly kind: 'tuple'; readonly txn: number; readonly table: string; readonly rid: number;
      /**
       * The waiter came here following the row's update chain (the version it first waited for was
       * replaced by a committed UPDATE) and found the newest version written by transaction `txn`:
       * PostgreSQL then waits for that xid directly, without taking the row's tuple lock
       * (heapam_tuple_lock with TUPLE_LOCK_FLAG_FIND_LAST_VERSION → XactLockTableWait).
       */
      readonly viaUpdateChain?: boolean;
    }
  /** The end of transaction `txn`, which wrote a conflicting unique key (`description` names it). */
  | { readonly kind: 'transactionid'; readonly txn: number; readonly blockerSession: string; readonly description: string };

/** Where an interrupted statement resumes. */
export type StmtProgress =
  /** An INSERT: the row as built (serial values already drawn, so a retry reuses them). */
  | { readonly kind: 'insert'; readonly row: Row }
  /**
   * UPDATE / DELETE / SELECT … FOR UPDATE: the rows that matched the statement's snapshot, the next
   * one to process, whether that one was already checked once, and output gathered so far.
   */
  | {
      readonly kind: 'scan'; readonly candidates: readonly { readonly rid: number; readonly values: Row }[]; index: number; retry: boolean; out: Row[]; count: number;
      /** SELECT … FOR UPDATE waiting for a row: the position of the row's committed version when the wait began. */
      waitedPos?: number;
      /**
       * Set when the row it waited for was meanwhile replaced by a committed UPDATE: PostgreSQL then
       * follows the update chain (heapam's `heap_lock_updated_tuple`), which assigns the locker its
       * xid even if it goes on to wait again or finds no row (`TxnState.xidAssigned`).
       */
      followedUpdate?: boolean;
    };

/** A statement blocked on a lock or on another transaction. */
export interface WaitRecord {
  readonly sessionId: string;
  readonly stmt: Stmt;
  /** Wait start order; waiters are re-run in this order. */
  readonly seq: number;
  readonly target: WaitTarget;
  readonly progress: StmtProgress | null;
  readonly on: string;
  readonly blockerSession?: string;
}

/**
 * The whole database state as plain JSON data: what `Database.snapshot()` returns and
 * `Database.fromSnapshot()` accepts. Treat it as opaque outside `src/sim/resources`.
 */
export interface DatabaseSnapshot {
  readonly version: 2;
  tables: TableState[];
  /** Open sessions in the order they were opened. */
  sessions: SessionRecord[];
  /** Advisory lock table keyed by `advisoryKeyId` (`b:42`, `p:1:2`). */
  advisory: Record<string, AdvisoryEntry>;
  /** Waiting statements in `seq` order. */
  waits: WaitRecord[];
  nextTxnId: number;
  nextSeq: number;
  /** Commits so far (each COMMIT that changed something gets the next number); absent = 0. */
  commitSeq?: number;
  /** SERIALIZABLE transactions the read/write check still needs (absent = none). */
  serializable?: SerializableTxn[];
  /**
   * Sequences by name: `next`, the value the next `nextval` returns, and `logCnt`, how many more
   * values PostgreSQL hands out before it writes WAL for the sequence again (0 for a new one; it
   * logs 32 ahead, `SEQ_LOG_VALS`, and a call that logs assigns its transaction an xid). Optional
   * (absent = none), so a snapshot without sequences is what it was before they existed.
   */
  sequences?: Record<string, { next: number; logCnt: number }>;
}
