/**
 * SELECT / INSERT / UPDATE / DELETE of the simulated PostgreSQL database for one transaction,
 * written so that a statement that must wait can be resumed where it stopped.
 *
 * READ COMMITTED (PostgreSQL docs, "Read Committed Isolation Level"; SELECT "The Locking Clause"):
 * - a statement's candidate rows are those its snapshot (committed data at statement start plus
 *   the transaction's own changes) shows matching the WHERE; rows inserted later are never seen;
 * - UPDATE, DELETE and `SELECT … FOR UPDATE` lock each candidate; a row locked by another
 *   transaction makes the statement wait (`NOWAIT`: 55P03 at once; `SKIP LOCKED`: omit the row);
 *   afterwards the latest version is re-read and the WHERE re-checked (a deleted row drops out, an
 *   `x = x - 1` applies to the new value);
 * - an UPDATE checks CHECK constraints on the version it read before it waits for the row lock,
 *   and again on the re-read version; unique keys are checked after the row is locked;
 * - an INSERT draws serial values, checks NOT NULL/CHECK, then unique keys: a key written by a
 *   transaction still in progress makes it wait (even if that transaction has since deleted the
 *   row or changed its key), then 23505 or success; an UPDATE that changes a key likewise, and
 *   while it waits the row's current key counts as written by the updater.
 *
 * Pure module over plain data: no DOM, no clock, no randomness.
 */
import type { RowState, StmtProgress, TableState, WaitTarget } from './dbTypes';
import { concurrentDeleteError, concurrentUpdateError, rowLockNotAvailable } from './sqlErrors';
import type { Row, SetExpr, SqlError, SqlValue, Stmt } from './sqlTypes';
import {
  addPendingRow,
  buildInsertRow,
  checkUnique,
  constraintError,
  matchesWhere,
  project,
  rowLabel,
  scanOrder,
  visibleVersion,
  writePending,
  type UniqueCheck,
} from './tableStore';

/** The table, transaction and session a statement runs for. */
export interface ExecContext {
  readonly table: TableState;
  readonly txn: number;
  readonly sessionId: string;
  /**
   * REPEATABLE READ / SERIALIZABLE: the transaction's snapshot (a commit sequence number). Rows are
   * read as of it, and a row an UPDATE, DELETE or `FOR UPDATE` finds changed by a transaction that
   * committed after it fails the statement with 40001 (absent = READ COMMITTED).
   */
  readonly snapshot?: number;
  /** SERIALIZABLE: the statement reads the table (its SIREAD lock); an error is the read/write check's 40001. */
  readonly onRead?: () => SqlError | null;
  /** SERIALIZABLE: the statement writes the table; an error is the read/write check's 40001. */
  readonly onWrite?: () => SqlError | null;
}

/** How a statement run ended: a result, an SQL error, or a wait (with where to resume). */
export type Outcome =
  | { readonly kind: 'ok'; readonly tag: string; readonly rows: readonly Row[]; readonly warning?: string }
  | { readonly kind: 'error'; readonly error: SqlError }
  | { readonly kind: 'wait'; readonly target: WaitTarget; readonly progress: StmtProgress | null; readonly on: string; readonly blockerSession: string };

type SelectStmt = Extract<Stmt, { op: 'select' }>;
type InsertStmt = Extract<Stmt, { op: 'insert' }>;
type ScanStmt = Extract<Stmt, { op: 'select' | 'update' | 'delete' }>;
type ScanProgress = Extract<StmtProgress, { kind: 'scan' }>;
type InsertProgress = Extract<StmtProgress, { kind: 'insert' }>;

function ok(tag: string, rows: readonly Row[] = []): Outcome {
  return { kind: 'ok', tag, rows };
}

function fail(error: SqlError): Outcome {
  return { kind: 'error', error };
}

/** Plain SELECT (no locking clause): never waits; reads what the snapshot shows. */
export function runPlainSelect(ctx: ExecContext, stmt: SelectStmt): Outcome {
  const rows: Row[] = [];
  const ssi = ctx.onRead?.() ?? null;
  if (ssi) return fail(ssi);
  for (const { values } of scanOrder(ctx.table, ctx.txn, ctx.snapshot)) {
    if (matchesWhere(values, stmt.where)) rows.push(project(ctx.table.spec, values, stmt.columns));
  }
  return ok(`SELECT ${rows.length}`, rows);
}

function waitForTxn(u: Extract<UniqueCheck, { kind: 'wait' }>, progress: StmtProgress): Outcome {
  return {
    kind: 'wait',
    target: { kind: 'transactionid', txn: u.txn, blockerSession: u.sessionId, description: u.description },
    progress,
    on: `transaction of session ${u.sessionId} (uncommitted ${u.description})`,
    blockerSession: u.sessionId,
  };
}

/** Starts an INSERT: builds the row (drawing serial values now), checks NOT NULL/CHECK, then unique keys. */
export function startInsert(ctx: ExecContext, stmt: InsertStmt): Outcome {
  const row = buildInsertRow(ctx.table, stmt.values);
  const bad = constraintError(ctx.table.spec, row);
  return bad ? fail(bad) : continueInsert(ctx, stmt, { kind: 'insert', row });
}

/** Unique check and insertion of an INSERT's row (again after each wait); ON CONFLICT DO NOTHING skips with `INSERT 0 0`. */
export function continueInsert(ctx: ExecContext, stmt: InsertStmt, progress: InsertProgress): Outcome {
  const u = checkUnique(ctx.table, progress.row, ctx.txn);
  if (u.kind === 'wait') return waitForTxn(u, progress);
  if (u.kind === 'exists') {
    // ON CONFLICT under REPEATABLE READ / SERIALIZABLE: a conflicting row the snapshot cannot see is
    // a concurrent update (ExecCheckTupleVisible), checked on PostgreSQL 15.
    if (stmt.onConflictDoNothing) return ctx.snapshot !== undefined && u.csn > ctx.snapshot ? fail(concurrentUpdateError()) : ok('INSERT 0 0');
    // SERIALIZABLE: a duplicate key that a read/write cycle explains is reported as 40001, not 23505
    // (`_bt_check_unique` checks for a serialization conflict first; PostgreSQL 9.6+).
    return fail(ctx.onWrite?.() ?? u.error);
  }
  const ssi = ctx.onWrite?.() ?? null;
  if (ssi) return fail(ssi);
  addPendingRow(ctx.table, progress.row, ctx.txn, ctx.sessionId);
  const returning = stmt.returning && stmt.returning.length > 0 ? [project(ctx.table.spec, progress.row, stmt.returning)] : [];
  return ok('INSERT 0 1', returning);
}

function evalSet(values: Row, expr: SetExpr): SqlValue {
  if (expr === null || typeof expr !== 'object') return expr;
  const base = values[expr.column] ?? null;
  return typeof base === 'number' ? base + expr.add : null;
}

/** The row after an UPDATE's SET list, evaluated against `values`. */
export function applySet(values: Row, set: Readonly<Record<string, SetExpr>>): Row {
  const out: Record<string, SqlValue> = { ...values };
  for (const [col, expr] of Object.entries(set)) out[col] = evalSet(values, expr);
  return out;
}

/** The statement's WHERE: its equalities and, for an UPDATE, its `whereBelow` (`fence < 34`; NULL never matches). */
function matchesScan(values: Row, stmt: ScanStmt): boolean {
  if (!matchesWhere(values, stmt.where)) return false;
  if (stmt.op !== 'update' || !stmt.whereBelow) return true;
  return Object.entries(stmt.whereBelow).every(([col, v]) => {
    const x = values[col] ?? null;
    return typeof x === 'number' && x < v;
  });
}

/** Starts UPDATE / DELETE / SELECT … FOR UPDATE: fixes the candidate rows from the statement's snapshot. */
export function startScan(ctx: ExecContext, stmt: ScanStmt): Outcome {
  const candidates: { rid: number; values: Row }[] = [];
  const ssi = ctx.onRead?.() ?? null;
  if (ssi) return fail(ssi);
  for (const { row, values } of scanOrder(ctx.table, ctx.txn, ctx.snapshot)) {
    if (matchesScan(values, stmt)) candidates.push({ rid: row.rid, values });
  }
  return continueScan(ctx, stmt, { kind: 'scan', candidates, index: 0, retry: false, out: [], count: 0 });
}

/** Processes the remaining candidates (again after each wait), then replies with the tag and rows. */
export function continueScan(ctx: ExecContext, stmt: ScanStmt, p: ScanProgress): Outcome {
  while (p.index < p.candidates.length) {
    const stop = stepRow(ctx, stmt, p);
    if (stop) return stop;
    p.index += 1;
    p.retry = false;
  }
  if (stmt.op === 'select') return ok(`SELECT ${p.out.length}`, p.out);
  return ok(`${stmt.op === 'update' ? 'UPDATE' : 'DELETE'} ${p.count}`, p.out);
}

function waitForRow(ctx: ExecContext, row: RowState, holder: NonNullable<RowState['lock']>, p: ScanProgress, viaUpdateChain: boolean): Outcome {
  p.retry = true;
  p.waitedPos = row.pos;
  return {
    kind: 'wait',
    target: { kind: 'tuple', txn: holder.txn, table: ctx.table.spec.name, rid: row.rid, ...(viaUpdateChain ? { viaUpdateChain } : {}) },
    progress: p,
    on: `row lock on ${rowLabel(ctx.table, row)} held by session ${holder.sessionId}`,
    blockerSession: holder.sessionId,
  };
}

/** One candidate: lock it or wait, re-read and re-check it, apply the statement. Returns null to go on. */
function stepRow(ctx: ExecContext, stmt: ScanStmt, p: ScanProgress): Outcome | null {
  const cand = p.candidates[p.index];
  if (!cand) return null;
  if (stmt.op === 'update' && !p.retry) {
    const bad = constraintError(ctx.table.spec, applySet(cand.values, stmt.set));
    if (bad) return fail(bad);
  }
  const row = ctx.table.rows.find((r) => r.rid === cand.rid);
  // REPEATABLE READ: a row of the snapshot that a committed transaction has since deleted
  // ("concurrent delete", not "update": heapam's TM_Deleted).
  if (!row) return ctx.snapshot !== undefined ? fail(concurrentDeleteError()) : null;
  // Resumed after the version it waited for was replaced by a committed UPDATE: it follows the
  // update chain (see ScanProgress.followedUpdate and the tuple WaitTarget's viaUpdateChain).
  const chain = p.retry && p.waitedPos !== undefined && row.committed !== null && row.pos !== p.waitedPos;
  if (chain) p.followedUpdate = true;
  p.waitedPos = undefined;
  if (row.lock && row.lock.txn !== ctx.txn) {
    const lockClause = stmt.op === 'select' ? stmt.lock : undefined;
    if (lockClause === 'forUpdateNowait') return fail(rowLockNotAvailable(ctx.table.spec.name));
    if (lockClause === 'forUpdateSkipLocked') return null;
    // An UPDATE or DELETE that followed the chain to a version another open transaction wrote waits
    // for that xid without a tuple lock; SELECT … FOR UPDATE still holds the tuple lock of the version
    // it first waited for (it waits inside heap_lock_updated_tuple).
    return waitForRow(ctx, row, row.lock, p, chain && row.pending !== null && stmt.op !== 'select');
  }
  // REPEATABLE READ / SERIALIZABLE: the row was changed by a transaction that committed after the
  // snapshot (heapam's TM_Updated under IsolationUsesXactSnapshot), checked on PostgreSQL 15.
  if (ctx.snapshot !== undefined && row.lock?.txn !== ctx.txn && (row.csn ?? 0) > ctx.snapshot) return fail(concurrentUpdateError());
  const current = visibleVersion(row, ctx.txn);
  // Re-checked on the version it finally sees (PostgreSQL re-evaluates the WHERE clause on the updated row).
  if (!current || !matchesScan(current, stmt)) return null;
  return applyToRow(ctx, stmt, p, row, current);
}

function applyToRow(ctx: ExecContext, stmt: ScanStmt, p: ScanProgress, row: RowState, current: Row): Outcome | null {
  const spec = ctx.table.spec;
  if (stmt.op !== 'select') {
    const ssi = ctx.onWrite?.() ?? null;
    if (ssi) return fail(ssi);
  }
  if (stmt.op === 'update') {
    const next = applySet(current, stmt.set);
    const bad = constraintError(spec, next);
    if (bad) return fail(bad);
    row.lock = row.lock ?? { txn: ctx.txn, sessionId: ctx.sessionId };
    const u = checkUnique(ctx.table, next, ctx.txn, row.rid, current);
    if (u.kind === 'exists') return fail(u.error);
    if (u.kind === 'wait') {
      // PostgreSQL has already written the new version and waits before adding its key to the
      // unique index: the version it replaces now has this transaction as its updater (another
      // transaction's unique check on that version's key waits for this one), while the new key
      // conflicts with nobody yet. The model records that as an unchanged pending version.
      if (!row.pending) writePending(row, current, row.pos);
      p.retry = true;
      return waitForTxn(u, p);
    }
    // The new version goes after every existing one (a second UPDATE in the same transaction writes yet another).
    writePending(row, next, ctx.table.nextPos++);
    if (stmt.returning && stmt.returning.length > 0) p.out.push(project(spec, next, stmt.returning));
  } else {
    row.lock = row.lock ?? { txn: ctx.txn, sessionId: ctx.sessionId };
    if (stmt.op === 'delete') writePending(row, null, row.pos);
    else p.out.push(project(spec, current, stmt.columns));
  }
  p.count += 1;
  return null;
}
