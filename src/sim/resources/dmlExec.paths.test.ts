// SELECT / INSERT / UPDATE / DELETE paths of dmlExec.ts that the other database tests do not pin:
// a WHERE on a plain SELECT, SET of a literal and of NULL + 1, a fencing `whereBelow` over two
// columns, ON CONFLICT DO NOTHING meeting a row the snapshot sees, an empty RETURNING list, the
// CHECK test an UPDATE makes before it waits for a later row's lock, where updated versions go in a
// scan, an UPDATE that waited for a row deleted meanwhile, and SERIALIZABLE's read and write checks
// on UPDATE and DELETE (not on SELECT … FOR UPDATE). Each multi-session sequence was run on
// PostgreSQL 15 with one connection per session, with the replies given in the test names.
import { Database } from './database';
import { runPlainSelect } from './dmlExec';
import { renderReply } from './renderSql';
import type { IsolationLevel, Stmt, TableSpec } from './sqlTypes';
import { createTableState } from './tableStore';

const items: TableSpec = {
  name: 'items',
  columns: [{ name: 'id', type: 'bigint' }, { name: 'stock', type: 'bigint' }],
  primaryKey: ['id'],
  checks: [{ name: 'items_stock_check', column: 'stock', min: 0 }],
  initialRows: [{ id: 1, stock: 20 }, { id: 2, stock: 5 }, { id: 3, stock: 7 }],
};
const jobs: TableSpec = {
  name: 'jobs',
  columns: [{ name: 'id', type: 'bigint' }, { name: 'job_key', type: 'text' }, { name: 'status', type: 'text' }],
  primaryKey: ['id'],
  unique: [{ name: 'jobs_job_key_key', columns: ['job_key'] }],
  initialRows: [{ id: 1, job_key: 'k1', status: 'pending' }],
};
const accounts: TableSpec = { name: 'accounts', columns: [{ name: 'id', type: 'bigint' }, { name: 'balance', type: 'bigint' }], primaryKey: ['id'], initialRows: [{ id: 1, balance: 100 }] };
/** `fences (id, fence, n)`: a fenced resource; row 2 has no fence and no n yet. */
const fences: TableSpec = {
  name: 'fences',
  columns: [{ name: 'id', type: 'bigint' }, { name: 'fence', type: 'bigint' }, { name: 'n', type: 'bigint' }],
  primaryKey: ['id'],
  initialRows: [{ id: 1, fence: 10, n: 7 }, { id: 2, fence: null, n: null }],
};

function setup(...sessions: string[]): Database {
  const db = new Database([items, jobs, accounts, fences]);
  for (const s of sessions) db.openSession(s);
  return db;
}
const q = (db: Database, s: string, stmt: Stmt): string => renderReply(db.execute(s, stmt).reply);
const begin = (isolation?: IsolationLevel): Stmt => (isolation ? { op: 'begin', isolation } : { op: 'begin' });
const COMMIT: Stmt = { op: 'commit' };
const ROLLBACK: Stmt = { op: 'rollback' };

describe('plain statements (READ COMMITTED, one session)', () => {
  it('a plain SELECT returns only the rows its WHERE matches', () => {
    const db = setup('A');
    expect(db.execute('A', { op: 'select', table: 'items', columns: ['stock'], where: { id: 2 } }).reply).toEqual({ status: 'ok', tag: 'SELECT 1', rows: [{ stock: 5 }] });
    expect(q(db, 'A', { op: 'select', table: 'items', columns: ['id'], where: { id: 9 } })).toBe('SELECT 0');
  });

  it('SET to a literal stores the literal', () => {
    const db = setup('A');
    expect(q(db, 'A', { op: 'update', table: 'jobs', set: { status: 'done' }, where: { id: 1 } })).toBe('UPDATE 1');
    expect(db.committedRows('jobs')).toEqual([{ id: 1, job_key: 'k1', status: 'done' }]);
  });

  it('SET n = n + 1 on a NULL leaves NULL (NULL + 1 is NULL)', () => {
    const db = setup('A');
    expect(q(db, 'A', { op: 'update', table: 'fences', set: { n: { column: 'n', add: 1 } }, where: { id: 2 } })).toBe('UPDATE 1');
    expect(db.committedRows('fences')).toEqual([{ id: 1, fence: 10, n: 7 }, { id: 2, fence: null, n: null }]);
  });

  it('SET n = NULL writes NULL (PostgreSQL 15: UPDATE 1, n is null)', () => {
    const db = setup('A');
    expect(q(db, 'A', { op: 'update', table: 'fences', set: { n: null }, where: { id: 1 } })).toBe('UPDATE 1');
    expect(db.committedRows('fences')).toEqual([{ id: 1, fence: 10, n: null }, { id: 2, fence: null, n: null }]);
  });

  it('DELETE removes the matching row', () => {
    const db = setup('A');
    expect(q(db, 'A', { op: 'delete', table: 'items', where: { id: 2 } })).toBe('DELETE 1');
    expect(db.committedRows('items').map((r) => r.id)).toEqual([1, 3]);
  });

  it('a fenced UPDATE (`fence < 34 AND n < x`) changes the row only when every bound holds; a NULL fence never matches', () => {
    const db = setup('A');
    const fenced = (n: number, id = 1): Stmt => ({ op: 'update', table: 'fences', set: { fence: 34 }, where: { id }, whereBelow: { fence: 34, n } });
    expect(q(db, 'A', fenced(5))).toBe('UPDATE 0');
    expect(q(db, 'A', fenced(8, 2))).toBe('UPDATE 0');
    expect(q(db, 'A', fenced(8))).toBe('UPDATE 1');
    expect(db.committedRows('fences')[0]).toEqual({ id: 1, fence: 34, n: 7 });
  });

  it('an empty RETURNING list returns no row, for INSERT and for UPDATE', () => {
    const db = setup('A');
    expect(db.execute('A', { op: 'insert', table: 'accounts', values: { id: 2, balance: 5 }, returning: [] }).reply).toEqual({ status: 'ok', tag: 'INSERT 0 1', rows: [] });
    expect(db.execute('A', { op: 'update', table: 'accounts', set: { balance: 6 }, where: { id: 2 }, returning: [] }).reply).toEqual({ status: 'ok', tag: 'UPDATE 1', rows: [] });
    expect(db.execute('A', { op: 'update', table: 'accounts', set: { balance: 7 }, where: { id: 2 }, returning: ['balance'] }).reply).toEqual({ status: 'ok', tag: 'UPDATE 1', rows: [{ balance: 7 }] });
  });

  it('updated rows come last in a scan, in the order they were updated (PostgreSQL 15: update 1, update 2, select → 3, 1, 2)', () => {
    const db = setup('A');
    q(db, 'A', { op: 'update', table: 'items', set: { stock: { column: 'stock', add: 1 } }, where: { id: 1 } });
    q(db, 'A', { op: 'update', table: 'items', set: { stock: { column: 'stock', add: 1 } }, where: { id: 2 } });
    expect(q(db, 'A', { op: 'select', table: 'items', columns: ['id'], where: {} })).toBe('SELECT 3 → id=3 | id=1 | id=2');
  });
});

describe('runPlainSelect', () => {
  it('replies an ok outcome with the tag and the projected rows', () => {
    expect(runPlainSelect({ table: createTableState(items), txn: 1, sessionId: 'A' }, { op: 'select', table: 'items', columns: ['stock'], where: { id: 3 } })).toEqual({
      kind: 'ok',
      tag: 'SELECT 1',
      rows: [{ stock: 7 }],
    });
  });
});

describe('an UPDATE that waited for a row another transaction deletes and commits', () => {
  const waitForDelete = (isolation?: IsolationLevel): Database => {
    const db = setup('A', 'B');
    if (isolation) {
      q(db, 'B', begin(isolation));
      expect(q(db, 'B', { op: 'select', table: 'items', columns: ['id'], where: { id: 3 } })).toBe('SELECT 1 → id=3');
    }
    q(db, 'A', begin());
    expect(q(db, 'A', { op: 'delete', table: 'items', where: { id: 3 } })).toBe('DELETE 1');
    expect(q(db, 'B', { op: 'update', table: 'items', set: { stock: 0 }, where: { id: 3 } })).toMatch(/^waits/);
    return db;
  };

  it('READ COMMITTED: the row drops out, UPDATE 0 (PostgreSQL 15)', () => {
    const db = waitForDelete();
    expect(db.execute('A', COMMIT).completions.map((c) => [c.sessionId, renderReply(c.reply)])).toEqual([['B', 'UPDATE 0']]);
  });

  it('REPEATABLE READ: 40001 concurrent delete, not update (PostgreSQL 15)', () => {
    const db = waitForDelete('repeatable read');
    expect(db.execute('A', COMMIT).completions.map((c) => [c.sessionId, renderReply(c.reply)])).toEqual([['B', 'ERROR 40001 could not serialize access due to concurrent delete']]);
  });
});

describe('ON CONFLICT DO NOTHING meeting a committed row', () => {
  it('READ COMMITTED: skipped, INSERT 0 0', () => {
    const db = setup('A');
    expect(q(db, 'A', { op: 'insert', table: 'jobs', values: { id: 3, job_key: 'k1', status: 'y' }, onConflictDoNothing: true })).toBe('INSERT 0 0');
  });

  it('REPEATABLE READ, a row its snapshot sees: skipped (PostgreSQL 15: INSERT 0 0), unlike a row committed after the snapshot (40001)', () => {
    const db = setup('A', 'B');
    q(db, 'A', { op: 'update', table: 'jobs', set: { status: 'seen' }, where: { id: 1 } });
    q(db, 'B', begin('repeatable read'));
    expect(q(db, 'B', { op: 'select', table: 'items', columns: ['id'], where: { id: 3 } })).toBe('SELECT 1 → id=3');
    q(db, 'A', { op: 'insert', table: 'jobs', values: { id: 2, job_key: 'k2', status: 'x' } });
    expect(q(db, 'B', { op: 'insert', table: 'jobs', values: { id: 3, job_key: 'k1', status: 'y' }, onConflictDoNothing: true })).toBe('INSERT 0 0');
    expect(q(db, 'B', { op: 'insert', table: 'jobs', values: { id: 4, job_key: 'k2', status: 'y' }, onConflictDoNothing: true })).toBe('ERROR 40001 could not serialize access due to concurrent update');
  });
});

describe('an UPDATE over several rows, one locked by another transaction', () => {
  it('fails the CHECK on the version it read at once, without waiting for the lock (PostgreSQL 15: 23514 while the other transaction is open)', () => {
    const db = setup('A', 'B');
    q(db, 'A', begin());
    expect(q(db, 'A', { op: 'update', table: 'items', set: { stock: { column: 'stock', add: 0 } }, where: { id: 2 } })).toBe('UPDATE 1');
    expect(db.execute('B', { op: 'update', table: 'items', set: { stock: { column: 'stock', add: -10 } }, where: {} }).reply).toMatchObject({
      status: 'error',
      error: { code: '23514', message: 'new row for relation "items" violates check constraint "items_stock_check"' },
    });
    q(db, 'A', ROLLBACK);
  });
});

describe('SERIALIZABLE checks of an UPDATE', () => {
  /** A and B read different tables; A writes what B read and commits. */
  function skew(): Database {
    const db = setup('A', 'B');
    q(db, 'A', begin('serializable'));
    q(db, 'B', begin('serializable'));
    expect(q(db, 'A', { op: 'select', table: 'accounts', columns: ['balance'], where: { id: 1 } })).toBe('SELECT 1 → balance=100');
    expect(q(db, 'B', { op: 'select', table: 'jobs', columns: ['status'], where: { id: 1 } })).toBe('SELECT 1 → status=pending');
    expect(q(db, 'A', { op: 'update', table: 'jobs', set: { status: 'x' }, where: { id: 1 } })).toBe('UPDATE 1');
    expect(q(db, 'A', COMMIT)).toBe('COMMIT');
    return db;
  }

  it('B then updating what A read fails during write (PostgreSQL 15: 40001, pivot, during write)', () => {
    expect(renderReply(skew().execute('B', { op: 'update', table: 'accounts', set: { balance: 90 }, where: { id: 1 } }).reply)).toBe(
      'ERROR 40001 could not serialize access due to read/write dependencies among transactions (Reason code: Canceled on identification as a pivot, during write.)',
    );
  });

  it('B deleting what A read fails the same way, with the HINT PostgreSQL sends (psql: "HINT:  The transaction might succeed if retried.")', () => {
    expect(skew().execute('B', { op: 'delete', table: 'accounts', where: { id: 1 } }).reply).toMatchObject({
      status: 'error',
      error: { code: '40001', hint: 'The transaction might succeed if retried.' },
    });
  });

  it('B locking it with SELECT … FOR UPDATE is not a write: it succeeds, and so does COMMIT (PostgreSQL 15)', () => {
    const db = skew();
    expect(q(db, 'B', { op: 'select', table: 'accounts', columns: ['balance'], where: { id: 1 }, lock: 'forUpdate' })).toBe('SELECT 1 → balance=100');
    expect(q(db, 'B', COMMIT)).toBe('COMMIT');
  });

  it('a doomed pivot\'s UPDATE fails at its read (PostgreSQL 15: 40001, during conflict out checking)', () => {
    const db = setup('A', 'B');
    q(db, 'A', begin('serializable'));
    q(db, 'B', begin('serializable'));
    const read: Stmt = { op: 'select', table: 'jobs', columns: ['id'], where: { job_key: 'k42' } };
    const insert: Stmt = { op: 'insert', table: 'jobs', values: { id: 42, job_key: null, status: 'new' } };
    q(db, 'A', read);
    q(db, 'B', read);
    expect(q(db, 'A', insert)).toBe('INSERT 0 1');
    expect(q(db, 'B', { ...insert, values: { id: 43, job_key: null, status: 'new' } } as Stmt)).toBe('INSERT 0 1');
    q(db, 'A', COMMIT);
    expect(renderReply(db.execute('B', { op: 'update', table: 'accounts', set: { balance: 90 }, where: { id: 1 } }).reply)).toBe(
      'ERROR 40001 could not serialize access due to read/write dependencies among transactions (Reason code: Canceled on identification as a pivot, during conflict out checking.)',
    );
  });
});
