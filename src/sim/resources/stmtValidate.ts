/**
 * Programming-error checks of typed statements before the simulated database runs them: unknown
 * tables or columns, values that do not fit a column, advisory keys out of range. These throw
 * `Error` (a scenario bug), unlike SQL errors, which are replies.
 *
 * Pure module: no DOM, no clock, no randomness.
 */
import type { TableState } from './dbTypes';
import type { AdvisoryKey, Row, Stmt, Where } from './sqlTypes';
import { assertColumns, assertValue } from './tableStore';

const INT4_MIN = -2147483648;
const INT4_MAX = 2147483647;

function assertKey(key: AdvisoryKey): void {
  const ints = key.kind === 'bigint' ? [key.key] : [key.key1, key.key2];
  const okRange = (v: number): boolean => (key.kind === 'bigint' ? Number.isSafeInteger(v) : Number.isInteger(v) && v >= INT4_MIN && v <= INT4_MAX);
  if (!ints.every(okRange)) throw new Error(`advisory key ${JSON.stringify(key)} is out of range`);
}

function assertRow(table: TableState, values: Row | Where): void {
  for (const [c, v] of Object.entries(values)) assertValue(table.spec, c, v);
}

function tableNamed(tables: readonly TableState[], name: string): TableState {
  const t = tables.find((x) => x.spec.name === name);
  if (!t) throw new Error(`unknown table ${name}`);
  return t;
}

function assertUpdate(table: TableState, stmt: Extract<Stmt, { op: 'update' }>): void {
  for (const [col, expr] of Object.entries(stmt.set)) {
    if (expr !== null && typeof expr === 'object') {
      assertColumns(table.spec, [col, expr.column]);
      const numeric = (c: string): boolean => table.spec.columns.find((x) => x.name === c)?.type === 'bigint';
      if (!numeric(col) || !numeric(expr.column) || !Number.isSafeInteger(expr.add)) throw new Error(`SET ${col} = ${expr.column} + ${expr.add} needs bigint columns`);
    } else {
      assertValue(table.spec, col, expr);
    }
  }
  for (const [col, v] of Object.entries(stmt.whereBelow ?? {})) {
    assertColumns(table.spec, [col]);
    if (table.spec.columns.find((x) => x.name === col)?.type !== 'bigint' || !Number.isSafeInteger(v)) throw new Error(`WHERE ${col} < ${v} needs a bigint column and an integer`);
  }
}

/**
 * Throws Error if `stmt` names an unknown table or column, carries a value that does not fit its
 * column (bigint: safe integer; text: string), or an advisory key out of range (bigint: safe
 * integer; pair: two int4).
 */
export function validateStmt(tables: readonly TableState[], stmt: Stmt): void {
  if (stmt.op === 'advisory') assertKey(stmt.key);
  if (stmt.op !== 'select' && stmt.op !== 'insert' && stmt.op !== 'update' && stmt.op !== 'delete') return;
  const table = tableNamed(tables, stmt.table);
  if (stmt.op !== 'insert') assertRow(table, stmt.where);
  if (stmt.op === 'select') assertColumns(table.spec, stmt.columns ?? []);
  if (stmt.op === 'insert') {
    assertRow(table, stmt.values);
    assertColumns(table.spec, stmt.returning ?? []);
  }
  if (stmt.op === 'update') {
    assertUpdate(table, stmt);
    assertColumns(table.spec, stmt.returning ?? []);
  }
}
