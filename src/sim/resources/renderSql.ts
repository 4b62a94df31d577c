/**
 * Text forms of the simulated database's traffic: typed statements as the literal SQL a user would
 * type (valid for PostgreSQL 15, and what the fidelity suite sends to a real server), table specs
 * as CREATE TABLE, and replies as the short text the timeline shows.
 *
 * Pure module: no DOM, no clock, no randomness.
 */
import type { DbReply, Row, SetExpr, SqlValue, Stmt, TableSpec, Where } from './sqlTypes';
import { createTableState, valueText } from './tableStore';

/** PostgreSQL 15 keywords that cannot be a bare column or table name (reserved and type/function-name keywords). */
const RESERVED = new Set(
  (
    'all analyse analyze and any array as asc asymmetric authorization binary both case cast check collate collation column ' +
    'concurrently constraint create cross current_catalog current_date current_role current_schema current_time ' +
    'current_timestamp current_user default deferrable desc distinct do else end except false fetch for foreign freeze ' +
    'from full grant group having ilike in initially inner intersect into is isnull join lateral leading left like limit ' +
    'localtime localtimestamp natural not notnull null offset on only or order outer overlaps placing primary references ' +
    'returning right select session_user similar some symmetric table tablesample then to trailing true union unique user ' +
    'using variadic verbose when where window with'
  ).split(' '),
);

/** An identifier as SQL text: bare when it is a plain lower-case name, else double-quoted with `""` escaping. */
export function quoteIdent(name: string): string {
  return /^[a-z_][a-z0-9_]*$/.test(name) && !RESERVED.has(name) ? name : `"${name.replace(/"/g, '""')}"`;
}

/** A value as an SQL literal: integers as digits, text single-quoted with `''` escaping, NULL. */
export function renderLiteral(value: SqlValue): string {
  if (value === null) return 'NULL';
  if (typeof value === 'number') return String(value);
  return `'${value.replace(/'/g, "''")}'`;
}

function columnList(columns: readonly string[]): string {
  return columns.map(quoteIdent).join(', ');
}

/** ` WHERE a = 1 AND b IS NULL` in the object's key order; empty for `{}`. */
function renderWhere(where: Where): string {
  const parts = Object.entries(where).map(([c, v]) => (v === null ? `${quoteIdent(c)} IS NULL` : `${quoteIdent(c)} = ${renderLiteral(v)}`));
  return parts.length > 0 ? ` WHERE ${parts.join(' AND ')}` : '';
}

function renderSetExpr(expr: SetExpr): string {
  if (expr === null || typeof expr !== 'object') return renderLiteral(expr);
  return `${quoteIdent(expr.column)} ${expr.add < 0 ? '-' : '+'} ${Math.abs(expr.add)}`;
}

function renderReturning(returning: readonly string[] | undefined): string {
  return returning && returning.length > 0 ? ` RETURNING ${columnList(returning)}` : '';
}

const LOCK_CLAUSES = { forUpdate: ' FOR UPDATE', forUpdateNowait: ' FOR UPDATE NOWAIT', forUpdateSkipLocked: ' FOR UPDATE SKIP LOCKED' } as const;

function renderInsert(stmt: Extract<Stmt, { op: 'insert' }>): string {
  const cols = Object.keys(stmt.values);
  const body = cols.length > 0 ? ` (${columnList(cols)}) VALUES (${cols.map((c) => renderLiteral(stmt.values[c] ?? null)).join(', ')})` : ' DEFAULT VALUES';
  return `INSERT INTO ${quoteIdent(stmt.table)}${body}${stmt.onConflictDoNothing ? ' ON CONFLICT DO NOTHING' : ''}${renderReturning(stmt.returning)}`;
}

/**
 * The literal SQL of a statement, e.g. `SELECT pg_try_advisory_lock(1, 2)`,
 * `SELECT stock FROM items WHERE id = 7 FOR UPDATE SKIP LOCKED`,
 * `INSERT INTO invoices (order_id, amount) VALUES (42, 100) ON CONFLICT DO NOTHING RETURNING id`,
 * `UPDATE items SET stock = stock - 1 WHERE id = 7`, `UPDATE documents SET body = 'B', fence = 34 WHERE id = 7 AND fence < 34`,
 * `SELECT nextval('fence_seq')`. SELECT with no columns is `SELECT *`; a
 * `returning` list that is empty or absent adds no RETURNING; a NULL in WHERE renders `IS NULL`.
 */
export function renderSql(stmt: Stmt): string {
  switch (stmt.op) {
    case 'begin':
      return stmt.isolation === undefined ? 'BEGIN' : `BEGIN ISOLATION LEVEL ${stmt.isolation.toUpperCase()}`;
    case 'commit':
      return 'COMMIT';
    case 'rollback':
      return 'ROLLBACK';
    case 'advisory': {
      const k = stmt.key;
      return `SELECT ${stmt.fn}(${k.kind === 'bigint' ? k.key : `${k.key1}, ${k.key2}`})`;
    }
    case 'advisoryUnlockAll':
      return 'SELECT pg_advisory_unlock_all()';
    case 'select': {
      const cols = stmt.columns && stmt.columns.length > 0 ? columnList(stmt.columns) : '*';
      return `SELECT ${cols} FROM ${quoteIdent(stmt.table)}${renderWhere(stmt.where)}${stmt.lock ? LOCK_CLAUSES[stmt.lock] : ''}`;
    }
    case 'insert':
      return renderInsert(stmt);
    case 'update': {
      const sets = Object.entries(stmt.set).map(([c, e]) => `${quoteIdent(c)} = ${renderSetExpr(e)}`);
      const below = Object.entries(stmt.whereBelow ?? {}).map(([c, v]) => `${quoteIdent(c)} < ${renderLiteral(v)}`);
      const where = renderWhere(stmt.where);
      const conds = below.length === 0 ? where : where === '' ? ` WHERE ${below.join(' AND ')}` : `${where} AND ${below.join(' AND ')}`;
      return `UPDATE ${quoteIdent(stmt.table)} SET ${sets.join(', ')}${conds}${renderReturning(stmt.returning)}`;
    }
    case 'nextval':
      return `SELECT nextval(${renderLiteral(stmt.seq)})`;
    case 'delete':
      return `DELETE FROM ${quoteIdent(stmt.table)}${renderWhere(stmt.where)}`;
  }
}

/**
 * `CREATE TABLE` for a spec, on one line: columns (`bigserial` for serial ones), then named
 * constraints — `CONSTRAINT <table>_pkey PRIMARY KEY (…)`, each UNIQUE, each `CHECK (col >= min)` —
 * so PostgreSQL reports the same constraint names as the model.
 */
export function renderCreateTable(spec: TableSpec): string {
  const cols = spec.columns.map((c) => `${quoteIdent(c.name)} ${c.serial ? 'bigserial' : c.type}`);
  const pk = spec.primaryKey && spec.primaryKey.length > 0 ? [`CONSTRAINT ${quoteIdent(`${spec.name}_pkey`)} PRIMARY KEY (${columnList(spec.primaryKey)})`] : [];
  const uniques = (spec.unique ?? []).map((u) => `CONSTRAINT ${quoteIdent(u.name)} UNIQUE (${columnList(u.columns)})`);
  const checks = (spec.checks ?? []).map((c) => `CONSTRAINT ${quoteIdent(c.name)} CHECK (${quoteIdent(c.column)} >= ${c.min})`);
  return `CREATE TABLE ${quoteIdent(spec.name)} (${[...cols, ...pk, ...uniques, ...checks].join(', ')})`;
}

/**
 * Everything that sets a real server up like the model's table: CREATE TABLE, one INSERT per
 * initial row (with the serial values the model assigned), then `setval` for each serial column so
 * the next value matches the model's. Throws Error for a spec the model rejects.
 */
export function renderTableSetup(spec: TableSpec): string[] {
  const table = createTableState(spec);
  const inserts = table.rows.map((r) => renderSql({ op: 'insert', table: spec.name, values: r.committed ?? {} }));
  const setvals = Object.entries(table.sequences).map(
    ([col, last]) => `SELECT setval(pg_get_serial_sequence(${renderLiteral(quoteIdent(spec.name))}, ${renderLiteral(col)}), ${last})`,
  );
  return [renderCreateTable(spec), ...inserts, ...setvals];
}

/** `CREATE SEQUENCE name START start`: the sequences a `Database` was created with (`start` = the first `nextval`). */
export function renderSequenceSetup(name: string, start: number): string {
  return `CREATE SEQUENCE ${quoteIdent(name)} START ${start}`;
}

/** `t` / `f` / `(void)` when the reply is one advisory-function result (one row, one `pg_…` column), else null. */
function functionResult(tag: string, rows: readonly Row[]): string | null {
  const only = rows.length === 1 ? Object.entries(rows[0] ?? {}) : [];
  const [name, value] = only.length === 1 && only[0] ? only[0] : ['', null];
  if (tag !== 'SELECT 1' || !name.startsWith('pg_')) return null;
  return value === '' ? '(void)' : valueText(value);
}

/**
 * The text a user sees for a reply, on one line:
 * - ok: the command tag (`BEGIN`, `INSERT 0 1`, `UPDATE 1`, `SELECT 0`); with rows,
 *   `tag → col=value, col=value | col=value, …` (`SELECT 1 → order_id=42, amount=100`,
 *   `INSERT 0 1 → id=1`; NULL shown as `NULL`); an advisory function result shows just
 *   `t`, `f` or `(void)`; a warning comes first as in psql: `WARNING:  <text>; <result>`;
 * - error: `ERROR <SQLSTATE> <message>` plus ` (<detail>)` when there is one;
 * - waits: `waits (<what it waits for>)`.
 */
export function renderReply(reply: DbReply): string {
  if (reply.status === 'waits') return `waits (${reply.on})`;
  // 25P03 ends the session: PostgreSQL sends it as FATAL, not ERROR.
  if (reply.status === 'error') return `${reply.error.code === '25P03' ? 'FATAL' : 'ERROR'} ${reply.error.code} ${reply.error.message}${reply.error.detail ? ` (${reply.error.detail})` : ''}`;
  const rowsText = reply.rows.map((r) => Object.entries(r).map(([c, v]) => `${c}=${valueText(v)}`).join(', ')).join(' | ');
  const body = functionResult(reply.tag, reply.rows) ?? (reply.rows.length > 0 ? `${reply.tag} → ${rowsText}` : reply.tag);
  return reply.warning ? `WARNING:  ${reply.warning}; ${body}` : body;
}
