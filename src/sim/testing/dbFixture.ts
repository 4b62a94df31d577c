/**
 * Test support (imported by the Database unit tests only, never by the app): two small tables and
 * the statements those tests send to `Database` directly, without a World — `items` (id, stock;
 * rows 1 and 2 with stock 5) and `inv` (id, order_id with the unique constraint
 * `inv_order_id_key`, and optionally a text `note`).
 */
import { Database } from '../resources/database';
import { renderReply } from '../resources/renderSql';
import type { AdvisoryFn, Stmt, TableSpec } from '../resources/sqlTypes';

/** `items (id bigint primary key, stock bigint)` with rows (1, 5) and (2, 5). */
export const ITEMS: TableSpec = {
  name: 'items',
  columns: [{ name: 'id', type: 'bigint' }, { name: 'stock', type: 'bigint' }],
  primaryKey: ['id'],
  initialRows: [{ id: 1, stock: 5 }, { id: 2, stock: 5 }],
};

/**
 * `inv (id bigint primary key, order_id bigint unique [inv_order_id_key][, note text])` with
 * `initialRows` (none by default). `note` adds the text column.
 */
export function invTable(initialRows: TableSpec['initialRows'] = [], note = false): TableSpec {
  return {
    name: 'inv',
    columns: [{ name: 'id', type: 'bigint' }, { name: 'order_id', type: 'bigint' }, ...(note ? [{ name: 'note', type: 'text' } as const] : [])],
    primaryKey: ['id'],
    unique: [{ name: 'inv_order_id_key', columns: ['order_id'] }],
    ...(initialRows === undefined || initialRows.length === 0 ? {} : { initialRows }),
  };
}

export const BEGIN: Stmt = { op: 'begin' };
export const COMMIT: Stmt = { op: 'commit' };
export const ROLLBACK: Stmt = { op: 'rollback' };
/** `SELECT <fn>(<key>)` on a bigint key. */
export const adv = (fn: AdvisoryFn, key: number): Stmt => ({ op: 'advisory', fn, key: { kind: 'bigint', key } });
/** `UPDATE items SET stock = stock + 1 WHERE id = <id>`. */
export const bump = (id: number): Stmt => ({ op: 'update', table: 'items', set: { stock: { column: 'stock', add: 1 } }, where: { id } });
/** `UPDATE items SET stock = <stock> WHERE id = <id>`. */
export const setStock = (id: number, stock: number): Stmt => ({ op: 'update', table: 'items', set: { stock }, where: { id } });
/** `SELECT id FROM items WHERE id = <id> FOR UPDATE`. */
export const forUpdate = (id: number): Stmt => ({ op: 'select', table: 'items', columns: ['id'], where: { id }, lock: 'forUpdate' });
/** `INSERT INTO inv (id, order_id) VALUES (<id>, <order>)`. */
export const insInv = (id: number, order: number): Stmt => ({ op: 'insert', table: 'inv', values: { id, order_id: order } });

/** A Database with `tables` and a session open for each of `sessions`, in that order. */
export function dbWith(tables: readonly TableSpec[], ...sessions: string[]): Database {
  const db = new Database([...tables]);
  for (const s of sessions) db.openSession(s);
  return db;
}

/** Runs `stmt` on session `s` (virtual time 0) and returns the reply as psql shows it. */
export function run(db: Database, s: string, stmt: Stmt): string {
  return renderReply(db.execute(s, stmt).reply);
}
