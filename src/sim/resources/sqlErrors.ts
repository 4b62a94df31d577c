/**
 * The PostgreSQL 15 errors and warnings the simulated database raises, worded exactly as the
 * server words them (checked against PostgreSQL 15; SQLSTATEs from "PostgreSQL Error Codes").
 *
 * Pure module: no DOM, no clock, no randomness.
 */
import type { SqlError, SqlValue } from './sqlTypes';

/** WARNING of COMMIT/ROLLBACK outside a transaction block (SQLSTATE 25P01; xact.c). */
export const NO_TRANSACTION_WARNING = 'there is no transaction in progress';

/** WARNING of BEGIN inside a transaction block (SQLSTATE 25001; xact.c). */
export const ALREADY_IN_TRANSACTION_WARNING = 'there is already a transaction in progress';

/**
 * WARNING of `pg_advisory_unlock*` when the session holds no session-level lock of that mode on
 * the key (PostgreSQL docs, "Advisory Lock Functions"; lock.c LockRelease).
 */
export function notOwnedWarning(mode: 'ExclusiveLock' | 'ShareLock'): string {
  return `you don't own a lock of type ${mode}`;
}

/** How a value appears inside DETAIL texts: NULL as `null`, text unquoted. */
function detailValue(value: SqlValue): string {
  return value === null ? 'null' : String(value);
}

/** 25P02 in_failed_sql_transaction: any statement but COMMIT/ROLLBACK in an aborted block. */
export function inFailedTransaction(): SqlError {
  return { code: '25P02', message: 'current transaction is aborted, commands ignored until end of transaction block' };
}

/**
 * 23505 unique_violation (PostgreSQL docs, "Index Uniqueness Checks"), e.g. message
 * `duplicate key value violates unique constraint "invoices_order_id_key"`, detail
 * `Key (account_id, period)=(7, 2026-11) already exists.`
 */
export function uniqueViolation(constraint: string, columns: readonly string[], values: readonly SqlValue[]): SqlError {
  return {
    code: '23505',
    message: `duplicate key value violates unique constraint "${constraint}"`,
    detail: `Key (${columns.join(', ')})=(${values.map(detailValue).join(', ')}) already exists.`,
  };
}

/** 23514 check_violation; `row` is the new row in column order (DETAIL `Failing row contains (7, -1).`). */
export function checkViolation(table: string, constraint: string, row: readonly SqlValue[]): SqlError {
  return {
    code: '23514',
    message: `new row for relation "${table}" violates check constraint "${constraint}"`,
    detail: `Failing row contains (${row.map(detailValue).join(', ')}).`,
  };
}

/** 23502 not_null_violation (primary key columns are NOT NULL). */
export function notNullViolation(table: string, column: string, row: readonly SqlValue[]): SqlError {
  return {
    code: '23502',
    message: `null value in column "${column}" of relation "${table}" violates not-null constraint`,
    detail: `Failing row contains (${row.map(detailValue).join(', ')}).`,
  };
}

/** 55P03 lock_not_available from `FOR UPDATE NOWAIT` (PostgreSQL docs, SELECT "The Locking Clause"). */
export function rowLockNotAvailable(table: string): SqlError {
  return { code: '55P03', message: `could not obtain lock on row in relation "${table}"` };
}

/** 55P03 raised when `lock_timeout` cancels a waiting statement (PostgreSQL docs, "Client Connection Defaults"). */
export function lockTimeoutError(): SqlError {
  return { code: '55P03', message: 'canceling statement due to lock timeout' };
}

/** 57014 query_canceled raised when `statement_timeout` cancels a statement. */
export function statementTimeoutError(): SqlError {
  return { code: '57014', message: 'canceling statement due to statement timeout' };
}

/**
 * 40001 serialization_failure of REPEATABLE READ and SERIALIZABLE when the row an UPDATE, DELETE or
 * `SELECT … FOR UPDATE` would change or lock was changed by a transaction that committed after this
 * transaction's snapshot, or when `ON CONFLICT` meets a row the snapshot cannot see (heapam.c,
 * nodeModifyTable.c; checked on PostgreSQL 15). The transaction becomes aborted.
 */
export function concurrentUpdateError(): SqlError {
  return { code: '40001', message: 'could not serialize access due to concurrent update' };
}

/**
 * 40001 serialization_failure of REPEATABLE READ and SERIALIZABLE when the row an UPDATE, DELETE or
 * `SELECT … FOR UPDATE` would change or lock was deleted by a transaction that committed after this
 * transaction's snapshot (heapam's TM_Deleted; checked on PostgreSQL 15 with an UPDATE that waited
 * for the deleting transaction). The transaction becomes aborted.
 */
export function concurrentDeleteError(): SqlError {
  return { code: '40001', message: 'could not serialize access due to concurrent delete' };
}

/**
 * 40001 serialization_failure of SERIALIZABLE's read/write dependency check (predicate.c; checked
 * on PostgreSQL 15): `during` is `write` (the statement that closed a cycle with a committed
 * transaction fails); for a transaction doomed when the other side of a cycle committed first,
 * `conflict out checking` (its next read of a table), `conflict in checking` (its next write) or
 * `commit attempt` (its COMMIT). HINT `The transaction might succeed if retried.` (not part of the reply text).
 */
export function readWriteDependencyError(during: 'write' | 'commit attempt' | 'conflict in checking' | 'conflict out checking'): SqlError {
  return {
    code: '40001',
    message: 'could not serialize access due to read/write dependencies among transactions',
    detail: `Reason code: Canceled on identification as a pivot, during ${during}.`,
    hint: 'The transaction might succeed if retried.',
  };
}

/**
 * FATAL 25P03 idle_in_transaction_session_timeout (postgres.c; checked on PostgreSQL 15): the server
 * ends a session that stayed idle inside a transaction longer than the setting; the transaction
 * rolls back and every lock of the session, session-level advisory locks included, is released.
 * The client learns it at its next statement: the connection is closed.
 */
export function idleInTransactionTimeoutError(): SqlError {
  return { code: '25P03', message: 'terminating connection due to idle-in-transaction timeout', detail: 'server closed the connection unexpectedly' };
}

/**
 * 40P01 deadlock_detected (deadlock.c DeadLockReport; checked on PostgreSQL 15): message
 * `deadlock detected`, DETAIL one line per member of the cycle starting at the failing backend
 * (`Process 29526 waits for ExclusiveLock on advisory lock [115862,0,1,1]; blocked by process
 * 29524.`; see `deadlock.ts` for how the model names processes and locks), HINT `See server log
 * for query details.`
 */
export function deadlockDetected(detail: string): SqlError {
  return { code: '40P01', message: 'deadlock detected', detail, hint: 'See server log for query details.' };
}
