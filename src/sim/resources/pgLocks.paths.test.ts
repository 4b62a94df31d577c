// pg_locks lines the inspector shows that pgLocks.test.ts does not reach: which table and row a
// tuple line is on (two tables, a table without a primary key, a NULL in the row), advisory keys
// held shared by several sessions, and a statement that arrives after a waiter followed the row's
// update chain. Each sequence was run on PostgreSQL 15 and its pg_locks read from a third
// connection (index relations left out); the tuple's (page, tuple) is the row named here.
import { Database } from './database';
import { pgLockLine, type PgLockRow } from './pgLocks';
import { renderReply } from './renderSql';
import type { Stmt, TableSpec } from './sqlTypes';

const items: TableSpec = {
  name: 'items',
  columns: [{ name: 'id', type: 'bigint' }, { name: 'stock', type: 'bigint' }],
  primaryKey: ['id'],
  initialRows: [{ id: 1, stock: 5 }, { id: 2, stock: 5 }],
};
/** `log (k bigint, v text)`: no primary key, no unique constraint. */
const log: TableSpec = {
  name: 'log',
  columns: [{ name: 'k', type: 'bigint' }, { name: 'v', type: 'text' }],
  initialRows: [{ k: 1, v: 'a' }, { k: 2, v: null }],
};

const BEGIN: Stmt = { op: 'begin' };
const COMMIT: Stmt = { op: 'commit' };
const setV = (k: number, v: string): Stmt => ({ op: 'update', table: 'log', set: { v }, where: { k } });
const addStock = (id: number, add: number): Stmt => ({ op: 'update', table: 'items', set: { stock: { column: 'stock', add } }, where: { id } });
const advisory = (fn: 'pg_advisory_lock' | 'pg_advisory_lock_shared', key: number): Stmt => ({ op: 'advisory', fn, key: { kind: 'bigint', key } });

function setup(...sessions: string[]): Database {
  const db = new Database([items, log]);
  for (const s of sessions) db.openSession(s);
  return db;
}
const run = (db: Database, s: string, stmt: Stmt): string => renderReply(db.execute(s, stmt).reply);
const lines = (db: Database, session?: string): string[] => db.pgLocks().filter((l) => session === undefined || l.sessionId === session).map(pgLockLine).sort();
const tuples = (db: Database): PgLockRow[] => db.pgLocks().filter((l) => l.locktype === 'tuple');

describe('pg_locks: the row of a tuple line', () => {
  it('a row of a table without a primary key is named by all its columns, a NULL as NULL; the first waiter holds the tuple lock, the next waits for it', () => {
    const db = setup('A', 'B', 'C');
    run(db, 'A', BEGIN);
    expect(run(db, 'A', setV(2, 'b'))).toBe('UPDATE 1');
    expect(run(db, 'B', setV(2, 'c'))).toMatch(/^waits/);
    expect(run(db, 'C', { op: 'delete', table: 'log', where: { k: 2 } })).toMatch(/^waits/);
    expect(lines(db)).toEqual([
      'A relation log RowExclusiveLock t', 'A transactionid own ExclusiveLock t', 'A virtualxid own ExclusiveLock t',
      'B relation log RowExclusiveLock t', 'B transactionid of A ShareLock f', 'B transactionid own ExclusiveLock t', 'B tuple log ExclusiveLock t', 'B virtualxid own ExclusiveLock t',
      'C relation log RowExclusiveLock t', 'C transactionid own ExclusiveLock t', 'C tuple log AccessExclusiveLock f', 'C virtualxid own ExclusiveLock t',
    ]);
    expect(tuples(db)).toEqual([
      { locktype: 'tuple', sessionId: 'B', mode: 'ExclusiveLock', granted: true, relation: 'log', row: 'k=2,v=NULL' },
      { locktype: 'tuple', sessionId: 'C', mode: 'AccessExclusiveLock', granted: false, relation: 'log', row: 'k=2,v=NULL' },
    ]);
  });

  it('a row of a table with a primary key is named by its key, in the table the statement waits on', () => {
    const db = setup('A', 'B', 'C', 'D');
    run(db, 'A', BEGIN);
    expect(run(db, 'A', { op: 'select', table: 'items', columns: ['id'], where: { id: 2 }, lock: 'forUpdate' })).toBe('SELECT 1 → id=2');
    run(db, 'C', BEGIN);
    expect(run(db, 'C', setV(1, 'x'))).toBe('UPDATE 1');
    expect(run(db, 'B', addStock(2, -1))).toMatch(/^waits/);
    expect(run(db, 'D', setV(1, 'y'))).toMatch(/^waits/);
    expect(tuples(db)).toEqual([
      { locktype: 'tuple', sessionId: 'B', mode: 'ExclusiveLock', granted: true, relation: 'items', row: 'id=2' },
      { locktype: 'tuple', sessionId: 'D', mode: 'ExclusiveLock', granted: true, relation: 'log', row: 'k=1,v=a' },
    ]);
    expect(lines(db, 'B')).toEqual(['B relation items RowExclusiveLock t', 'B transactionid of A ShareLock f', 'B transactionid own ExclusiveLock t', 'B tuple items ExclusiveLock t', 'B virtualxid own ExclusiveLock t']);
    expect(lines(db, 'D')).toEqual(['D relation log RowExclusiveLock t', 'D transactionid of C ShareLock f', 'D transactionid own ExclusiveLock t', 'D tuple log ExclusiveLock t', 'D virtualxid own ExclusiveLock t']);
  });
});

describe('pg_locks: a statement after a waiter that followed the update chain', () => {
  it('the chain follower waits for the new holder without the tuple lock, so a later UPDATE of the row takes the tuple lock and waits for the same xid', () => {
    // C updates, A and B wait, C commits: A updates the new version, B follows the chain and waits
    // for A. Then D updates the row. On PostgreSQL 15 (5 runs of 6; in the other, B won the race for
    // the new version) D holds the tuple lock and waits for A's xid, and B holds no tuple lock.
    const db = setup('A', 'B', 'C', 'D');
    run(db, 'C', BEGIN);
    run(db, 'C', addStock(1, 1));
    run(db, 'A', BEGIN);
    run(db, 'B', BEGIN);
    expect(run(db, 'A', addStock(1, -1))).toMatch(/^waits/);
    expect(run(db, 'B', addStock(1, -1))).toMatch(/^waits/);
    run(db, 'C', COMMIT);
    run(db, 'D', BEGIN);
    expect(run(db, 'D', addStock(1, -1))).toMatch(/^waits/);
    expect(lines(db).filter((l) => !l.includes(' virtualxid ') && !l.includes(' relation '))).toEqual([
      'A transactionid own ExclusiveLock t',
      'B transactionid of A ShareLock f', 'B transactionid own ExclusiveLock t',
      'D transactionid of A ShareLock f', 'D transactionid own ExclusiveLock t', 'D tuple items ExclusiveLock t',
    ]);
  });
});

describe('pg_locks: advisory keys held by several sessions', () => {
  it('each holder of a shared key has its own granted line; an exclusive request queued behind them has a line not granted', () => {
    const db = setup('E', 'F', 'G');
    expect(run(db, 'E', advisory('pg_advisory_lock_shared', 7))).toBe('(void)');
    expect(run(db, 'F', advisory('pg_advisory_lock_shared', 7))).toBe('(void)');
    expect(run(db, 'G', advisory('pg_advisory_lock', 7))).toMatch(/^waits/);
    expect(lines(db)).toEqual(['E advisory 7 ShareLock t', 'F advisory 7 ShareLock t', 'G advisory 7 ExclusiveLock f', 'G virtualxid own ExclusiveLock t']);
  });
});
