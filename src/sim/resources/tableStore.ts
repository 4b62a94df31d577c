/**
 * Tables of the simulated PostgreSQL database: row versions and visibility (READ COMMITTED),
 * NOT NULL / CHECK / UNIQUE checks, and what happens to rows when a transaction ends.
 *
 * Each logical row keeps its committed version plus at most one uncommitted change by the
 * transaction holding its row lock (`RowState`), and the versions that change went through. A
 * statement of transaction T sees T's own pending version, else the committed one (PostgreSQL
 * docs, "Read Committed Isolation Level"); a unique check sees every version another transaction
 * in progress wrote (`checkUnique`).
 *
 * Pure module over plain data: no DOM, no clock, no randomness.
 */
import type { RowState, TableState } from './dbTypes';
import { checkViolation, notNullViolation, uniqueViolation } from './sqlErrors';
import type { Row, SqlError, SqlValue, TableSpec, UniqueSpec, Where } from './sqlTypes';

/** Column names of a table in definition order. */
export function columnNames(spec: TableSpec): string[] {
  return spec.columns.map((c) => c.name);
}

/**
 * Throws Error unless `column` exists in the table and `value` fits its type (`bigint`: a safe
 * integer; `text`: a string; NULL fits both). Such mistakes are programming errors, not SQL errors.
 */
export function assertValue(spec: TableSpec, column: string, value: SqlValue): void {
  const col = spec.columns.find((c) => c.name === column);
  if (!col) throw new Error(`table ${spec.name} has no column ${column}`);
  if (value === null) return;
  const ok = col.type === 'bigint' ? typeof value === 'number' && Number.isSafeInteger(value) : typeof value === 'string';
  if (!ok) throw new Error(`value ${JSON.stringify(value)} does not fit column ${spec.name}.${column} (${col.type})`);
}

/** Throws Error unless every name is a column of the table. */
export function assertColumns(spec: TableSpec, columns: readonly string[]): void {
  for (const c of columns) if (!spec.columns.some((col) => col.name === c)) throw new Error(`table ${spec.name} has no column ${c}`);
}

/** The table's unique constraints in the order PostgreSQL checks them: primary key (`<table>_pkey`) first. */
export function uniqueConstraints(spec: TableSpec): UniqueSpec[] {
  const pk = spec.primaryKey && spec.primaryKey.length > 0 ? [{ name: `${spec.name}_pkey`, columns: spec.primaryKey }] : [];
  return [...pk, ...(spec.unique ?? [])];
}

/**
 * The version transaction `txnId` sees: its own pending change, else the committed version (null =
 * none). With a REPEATABLE READ / SERIALIZABLE `snapshot` (a commit sequence number): the newest
 * committed version numbered up to it (PostgreSQL docs, "Repeatable Read Isolation Level").
 */
export function visibleVersion(row: RowState, txnId: number | null, snapshot?: number): Row | null {
  if (row.pending && row.lock && row.lock.txn === txnId) return row.pending.values;
  if (snapshot === undefined || (row.csn ?? 0) <= snapshot) return row.committed;
  const older = row.older ?? [];
  for (let i = older.length - 1; i >= 0; i--) if (older[i]!.csn <= snapshot) return older[i]!.values;
  return null;
}

/** Equality filter; a NULL in `where` matches NULL (rendered as `IS NULL`). */
export function matchesWhere(values: Row, where: Where): boolean {
  return Object.entries(where).every(([col, v]) => (values[col] ?? null) === v);
}

/** A copy of `values` with the listed columns in that order (all columns in table order when empty/absent). */
export function project(spec: TableSpec, values: Row, columns?: readonly string[]): Row {
  const cols = columns && columns.length > 0 ? columns : columnNames(spec);
  const out: Record<string, SqlValue> = {};
  for (const c of cols) out[c] = values[c] ?? null;
  return out;
}

/** A value as the timeline shows it: NULL as `NULL`, text unquoted. */
export function valueText(v: SqlValue): string {
  return v === null ? 'NULL' : String(v);
}

/** `items row id=7`: the row named by its primary key, else by all its columns. */
export function describeRow(spec: TableSpec, values: Row, columns?: readonly string[]): string {
  const cols = columns ?? (spec.primaryKey && spec.primaryKey.length > 0 ? spec.primaryKey : columnNames(spec));
  return `${spec.name} row ${cols.map((c) => `${c}=${valueText(values[c] ?? null)}`).join(', ')}`;
}

/**
 * The label of a stored row: by its committed version, else its uncommitted insert (the latest
 * version its inserting transaction wrote, or the last one before that transaction deleted it).
 */
export function rowLabel(table: TableState, row: RowState): string {
  return describeRow(table.spec, row.committed ?? row.pending?.values ?? row.pending?.superseded.at(-1) ?? {});
}

/**
 * NOT NULL (primary key columns and serial columns, which `bigserial` declares NOT NULL; the first
 * in column order, as PostgreSQL checks them) then CHECK constraints (ordered by name, as
 * PostgreSQL evaluates them) on a new row version: 23502 / 23514, or null when the row passes. A
 * NULL passes a CHECK.
 */
export function constraintError(spec: TableSpec, values: Row): SqlError | null {
  const rowValues = columnNames(spec).map((c) => values[c] ?? null);
  const nullCol = spec.columns.find((c) => (c.serial === true || (spec.primaryKey ?? []).includes(c.name)) && (values[c.name] ?? null) === null);
  if (nullCol !== undefined) return notNullViolation(spec.name, nullCol.name, rowValues);
  const checks = [...(spec.checks ?? [])].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const check of checks) {
    const v = values[check.column] ?? null;
    if (typeof v === 'number' && v < check.min) return checkViolation(spec.name, check.name, rowValues);
  }
  return null;
}

/** Outcome of a uniqueness check: no conflict, a committed (or own) conflict, or a writer to wait for. */
export type UniqueCheck =
  | { readonly kind: 'ok' }
  /** `csn`: commit number of the conflicting row's version (0 for the transaction's own row or an initial one). */
  | { readonly kind: 'exists'; readonly error: SqlError; readonly csn: number }
  | { readonly kind: 'wait'; readonly txn: number; readonly sessionId: string; readonly description: string };

function conflictIn(table: TableState, c: UniqueSpec, key: readonly SqlValue[], selfRid: number | null, txnId: number): UniqueCheck {
  const hit = (v: Row | null): boolean => v !== null && c.columns.every((col, i) => (v[col] ?? null) === key[i]);
  for (const row of table.rows) {
    if (row.rid === selfRid) continue;
    if (row.pending && row.lock && row.lock.txn !== txnId) {
      // Another transaction in progress inserted, updated or deleted this row: its fate decides.
      // PostgreSQL's check (`_bt_check_unique`, `HeapTupleSatisfiesDirty`) waits for the writer of
      // ANY version with the key whose inserting transaction is still open, however that
      // transaction changed or deleted it afterwards; and for the deleter of a committed version.
      if (hit(row.committed) || row.pending.superseded.some(hit) || hit(row.pending.values)) {
        const keyRow = Object.fromEntries(c.columns.map((col, i) => [col, key[i] ?? null]));
        return { kind: 'wait', txn: row.lock.txn, sessionId: row.lock.sessionId, description: describeRow(table.spec, keyRow, c.columns) };
      }
      continue;
    }
    if (hit(visibleVersion(row, txnId))) return { kind: 'exists', error: uniqueViolation(c.name, c.columns, key), csn: row.lock?.txn === txnId ? 0 : (row.csn ?? 0) };
  }
  return { kind: 'ok' };
}

/**
 * Uniqueness check of a new row version for transaction `txnId` (PostgreSQL docs, "Index
 * Uniqueness Checks"; `_bt_check_unique` in nbtinsert.c): a live committed row or the
 * transaction's own row with the same key → 23505; a row of which another transaction still in
 * progress wrote a version with the key (its latest, one it has since updated away or deleted, or
 * the committed version it updated or deleted) → wait for that transaction. The transaction's own
 * superseded versions never conflict. Keys with a NULL never conflict. For an UPDATE pass the row's `selfRid` and `old` version: constraints
 * whose columns did not change are not re-checked.
 */
export function checkUnique(table: TableState, values: Row, txnId: number, selfRid: number | null = null, old: Row | null = null): UniqueCheck {
  for (const c of uniqueConstraints(table.spec)) {
    const key = c.columns.map((col) => values[col] ?? null);
    if (key.some((v) => v === null)) continue;
    if (old && c.columns.every((col) => (old[col] ?? null) === (values[col] ?? null))) continue;
    const found = conflictIn(table, c, key, selfRid, txnId);
    if (found.kind !== 'ok') return found;
  }
  return { kind: 'ok' };
}

/** Draws the next value of a serial column's sequence (never rolled back, like `nextval`). */
export function nextSerial(table: TableState, column: string): number {
  const next = (table.sequences[column] ?? 0) + 1;
  table.sequences[column] = next;
  return next;
}

/**
 * The full new row of an INSERT in column order: given values, else the next serial value for a
 * serial column, else NULL. An explicit value in a serial column does not advance its sequence.
 */
export function buildInsertRow(table: TableState, values: Row): Row {
  const out: Record<string, SqlValue> = {};
  for (const col of table.spec.columns) {
    if (col.name in values) out[col.name] = values[col.name] ?? null;
    else out[col.name] = col.serial ? nextSerial(table, col.name) : null;
  }
  return out;
}

/** Stores a row inserted by transaction `txn` of session `sessionId` (uncommitted, locked by it). */
export function addPendingRow(table: TableState, values: Row, txn: number, sessionId: string): void {
  const pos = table.nextPos++;
  table.rows.push({ rid: table.nextRid, pos, committed: null, pending: { values, pos, superseded: [] }, lock: { txn, sessionId } });
  table.nextRid += 1;
}

/**
 * Records a new version of a row written by its lock holder (UPDATE: `values`; DELETE: `null`) at
 * position `pos`. The holder's previous uncommitted version, if any, is kept in `superseded`: its
 * index entry stays until the transaction ends (see `checkUnique`).
 */
export function writePending(row: RowState, values: Row | null, pos: number): void {
  const before = row.pending;
  const superseded = before ? [...before.superseded, ...(before.values ? [before.values] : [])] : [];
  row.pending = { values, pos, superseded };
}

/**
 * Ends transaction `txnId` in every table: on commit its pending versions become the committed
 * ones, on rollback they are dropped; its row locks are released either way; rows left with no
 * version (committed deletes, rolled-back inserts) disappear.
 */
export function endTxnRows(tables: readonly TableState[], txnId: number, commit: boolean, commitSeq?: number, keepHistory = false): void {
  for (const table of tables) {
    const kept: RowState[] = [];
    for (const row of table.rows) {
      if (row.lock?.txn === txnId) {
        if (commit && row.pending) {
          // A REPEATABLE READ snapshot taken before this commit still reads the version it replaces.
          if (keepHistory) (row.older ??= []).push({ values: row.committed, csn: row.csn ?? 0 });
          else delete row.older;
          row.committed = row.pending.values;
          row.pos = row.pending.pos;
          if (commitSeq !== undefined) row.csn = commitSeq;
        }
        row.pending = null;
        row.lock = null;
      }
      if (row.committed !== null || row.pending !== null) kept.push(row);
    }
    table.rows = kept;
  }
}

function assertSpec(spec: TableSpec): void {
  const names = columnNames(spec);
  if (new Set(names).size !== names.length) throw new Error(`table ${spec.name} has duplicate columns`);
  for (const col of spec.columns) if (col.serial && col.type !== 'bigint') throw new Error(`serial column ${spec.name}.${col.name} must be bigint`);
  assertColumns(spec, spec.primaryKey ?? []);
  for (const u of spec.unique ?? []) assertColumns(spec, u.columns);
  assertColumns(spec, (spec.checks ?? []).map((c) => c.column));
}

/**
 * Builds a table with its initial rows committed. Serial columns missing from an initial row are
 * drawn from the sequence; explicit serial values move the sequence past them (the setup SQL from
 * `renderTableSetup` does the same with `setval`). Throws Error for a bad spec or an initial row
 * that violates a constraint.
 */
export function createTableState(spec: TableSpec): TableState {
  assertSpec(spec);
  const table: TableState = { spec, rows: [], nextRid: 1, nextPos: 1, sequences: {} };
  for (const initial of spec.initialRows ?? []) {
    for (const [c, v] of Object.entries(initial)) assertValue(spec, c, v);
    const values = buildInsertRow(table, initial);
    for (const col of spec.columns) {
      const v = values[col.name];
      if (col.serial && typeof v === 'number') table.sequences[col.name] = Math.max(table.sequences[col.name] ?? 0, v);
    }
    const bad = constraintError(spec, values) ?? (() => {
      const u = checkUnique(table, values, 0);
      return u.kind === 'exists' ? u.error : null;
    })();
    if (bad) throw new Error(`initial row of ${spec.name} is invalid: ${bad.message}`);
    table.rows.push({ rid: table.nextRid, pos: table.nextPos++, committed: values, pending: null, lock: null });
    table.nextRid += 1;
  }
  return table;
}

/**
 * The rows transaction `txnId` can see, in the order a sequential scan visits them: by the
 * physical position of the version it sees (its own pending version, else the committed one).
 * Source: PostgreSQL heap storage — a new row version is written after the existing ones.
 */
export function scanOrder(table: TableState, txnId: number, snapshot?: number): { row: RowState; values: Row }[] {
  const out: { row: RowState; values: Row; pos: number }[] = [];
  for (const row of table.rows) {
    const own = row.pending !== null && row.lock !== null && row.lock.txn === txnId;
    const values = own ? row.pending!.values : visibleVersion(row, txnId, snapshot);
    if (values) out.push({ row, values, pos: own ? row.pending!.pos : row.pos });
  }
  out.sort((a, b) => a.pos - b.pos);
  return out;
}
