/**
 * Typed SQL statements and replies of the simulated PostgreSQL database.
 *
 * The model never parses SQL: workers build typed statements, `renderSql` turns each into the
 * literal command a user would type (and that the fidelity suite sends to a real server), and
 * `Database.execute` gives the reply PostgreSQL 15 would give.
 *
 * Pure module: no DOM, no clock, no randomness.
 */

/** A SQL value the model stores: integers, text, or NULL. */
export type SqlValue = number | string | null;

/** A row as column name → value. */
export type Row = Readonly<Record<string, SqlValue>>;

/** A CHECK constraint the model can evaluate: `column >= min` (e.g. `CHECK (stock >= 0)`). */
export interface CheckSpec {
  /** Constraint name as PostgreSQL reports it, e.g. `items_stock_check`. */
  readonly name: string;
  readonly column: string;
  readonly min: number;
}

/** A UNIQUE (or PRIMARY KEY) constraint over one or more columns. */
export interface UniqueSpec {
  /** Constraint/index name as PostgreSQL reports it, e.g. `invoices_order_id_key`. */
  readonly name: string;
  readonly columns: readonly string[];
}

/** Table definition. Column types are `bigint` or `text`; `id` columns may be `bigserial`. */
export interface TableSpec {
  readonly name: string;
  /** Ordered column definitions. `serial: true` means `bigserial` (the model assigns 1, 2, …). */
  readonly columns: readonly { readonly name: string; readonly type: 'bigint' | 'text'; readonly serial?: boolean }[];
  /** Primary key columns (also a unique constraint named `<table>_pkey`). */
  readonly primaryKey?: readonly string[];
  readonly unique?: readonly UniqueSpec[];
  readonly checks?: readonly CheckSpec[];
  /** Rows present before the scenario starts (committed). */
  readonly initialRows?: readonly Row[];
}

/**
 * Advisory lock key: one bigint, or a pair of int4. The two key spaces never overlap
 * (PostgreSQL docs, "Advisory Lock Functions").
 */
export type AdvisoryKey = { readonly kind: 'bigint'; readonly key: number } | { readonly kind: 'pair'; readonly key1: number; readonly key2: number };

/** The advisory lock functions the model implements (PostgreSQL docs, "Advisory Lock Functions"). */
export type AdvisoryFn =
  | 'pg_advisory_lock'
  | 'pg_advisory_lock_shared'
  | 'pg_try_advisory_lock'
  | 'pg_try_advisory_lock_shared'
  | 'pg_advisory_unlock'
  | 'pg_advisory_unlock_shared'
  | 'pg_advisory_xact_lock'
  | 'pg_advisory_xact_lock_shared'
  | 'pg_try_advisory_xact_lock'
  | 'pg_try_advisory_xact_lock_shared';

/** Equality filter: every listed column must equal the value. */
export type Where = Readonly<Record<string, SqlValue>>;

/** An assignment in UPDATE: a literal, or `column + delta` evaluated against the row's current value. */
export type SetExpr = SqlValue | { readonly column: string; readonly add: number };

/**
 * A transaction's isolation level (PostgreSQL docs, "Transaction Isolation"): READ COMMITTED (the
 * default), REPEATABLE READ (one snapshot for the whole transaction, 40001 on a concurrent update)
 * or SERIALIZABLE (REPEATABLE READ plus serializable snapshot isolation's read/write checks).
 */
export type IsolationLevel = 'read committed' | 'repeatable read' | 'serializable';

/** A typed SQL statement. */
export type Stmt =
  /** `BEGIN`, or `BEGIN ISOLATION LEVEL …` when `isolation` is given (absent = the session default, READ COMMITTED). */
  | { readonly op: 'begin'; readonly isolation?: IsolationLevel }
  | { readonly op: 'commit' }
  | { readonly op: 'rollback' }
  | { readonly op: 'advisory'; readonly fn: AdvisoryFn; readonly key: AdvisoryKey }
  | { readonly op: 'advisoryUnlockAll' }
  | {
      readonly op: 'select';
      readonly table: string;
      /** Columns to return; empty or missing = `*`. */
      readonly columns?: readonly string[];
      readonly where: Where;
      /** Row locking clause (PostgreSQL docs, SELECT "The Locking Clause"). */
      readonly lock?: 'forUpdate' | 'forUpdateNowait' | 'forUpdateSkipLocked';
    }
  | {
      readonly op: 'insert';
      readonly table: string;
      readonly values: Row;
      /** `ON CONFLICT DO NOTHING` (waits like a plain insert, then inserts or skips). */
      readonly onConflictDoNothing?: boolean;
      readonly returning?: readonly string[];
    }
  | {
      readonly op: 'update';
      readonly table: string;
      readonly set: Readonly<Record<string, SetExpr>>;
      readonly where: Where;
      /**
       * Extra conditions `AND column < value` after `where` (a fenced write: `AND fence < 34`); a
       * NULL column never matches, as in SQL. Optional; absent = none.
       */
      readonly whereBelow?: Readonly<Record<string, number>>;
      readonly returning?: readonly string[];
    }
  /**
   * `SELECT nextval('seq')`: the sequence's next value. Not transactional (PostgreSQL docs,
   * "Sequence Manipulation Functions": a value handed out is never returned again, even if the
   * transaction that took it rolls back). The reply is `SELECT 1` with one row `{ nextval: n }`.
   */
  | { readonly op: 'nextval'; readonly seq: string }
  | { readonly op: 'delete'; readonly table: string; readonly where: Where };

/** A PostgreSQL error as the server reports it. */
export interface SqlError {
  /** SQLSTATE, e.g. `23505` unique_violation, `55P03` lock_not_available, `25P02` in_failed_sql_transaction. */
  readonly code: string;
  readonly message: string;
  readonly detail?: string;
  /** HINT line, when the server gives one (40P01: `See server log for query details.`). Not part of `renderReply`. */
  readonly hint?: string;
}

/** The reply to one statement, or the fact that it waits. */
export type DbReply =
  | {
      readonly status: 'ok';
      /** Command tag as psql prints it: `BEGIN`, `COMMIT`, `ROLLBACK`, `INSERT 0 1`, `UPDATE 1`, `SELECT 1`, `DELETE 0`. */
      readonly tag: string;
      readonly rows: readonly Row[];
      /** A WARNING raised by the statement (e.g. unlock of an unheld advisory lock). */
      readonly warning?: string;
    }
  | { readonly status: 'error'; readonly error: SqlError }
  /** The statement blocks; `on` says what it waits for in words (e.g. "advisory lock 42 held by session s1"). */
  | { readonly status: 'waits'; readonly on: string; readonly blockerSession?: string };

/** A statement that had been waiting and has now finished (or failed). */
export interface DbCompletion {
  readonly sessionId: string;
  readonly stmt: Stmt;
  readonly reply: Exclude<DbReply, { status: 'waits' }>;
  /** The committed rows right after this statement ran, before any statement it let through (see `CommittedRows`). */
  readonly committed?: CommittedRows;
}

/**
 * Committed rows by table, of the tables a statement may change — an INSERT's or UPDATE's own
 * table (autocommit), every table for a COMMIT — taken the moment the statement finished. A COMMIT
 * releases row locks and the statements waiting on them run at once (PostgreSQL wakes them when
 * the lock goes); rows taken after those ran would credit this statement with their writes,
 * which the trace tells only in the events after it.
 */
export type CommittedRows = Readonly<Record<string, readonly Row[]>>;

/** Result of `Database.execute`: this session's reply, plus other sessions' statements it unblocked. */
export interface DbResult {
  readonly reply: DbReply;
  /** Waiting statements of other sessions that finished as a consequence, in the order PostgreSQL wakes them. */
  readonly completions: readonly DbCompletion[];
  /** This statement's committed rows, taken before the statements it let through ran (absent while it waits, and for statements that change no rows). */
  readonly committed?: CommittedRows;
}
