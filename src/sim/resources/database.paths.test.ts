// Paths of the simulated PostgreSQL database that the scenario tests reach only indirectly: the
// committed rows a result carries, replies of transaction control, an explicit isolation level,
// closing a session mid-transaction, sequences, a resumed advisory call and the locks() view of
// several waits. Expectations follow PostgreSQL 15 (see database.test.ts) and the documented
// contracts of DbResult / DbCompletion (sqlTypes.ts).
import { Database } from './database';
import { pgLockLine } from './pgLocks';
import { renderReply } from './renderSql';
import { NO_TRANSACTION_WARNING } from './sqlErrors';
import type { DbCompletion, Stmt } from './sqlTypes';
import { BEGIN, COMMIT, ITEMS, ROLLBACK, adv, bump, dbWith, insInv, invTable, run, setStock } from '../testing/dbFixture';

const inv = invTable([{ id: 1, order_id: 10 }]);
const selectItems: Stmt = { op: 'select', table: 'items', where: {} };
const setup = (...sessions: string[]): Database => dbWith([ITEMS, inv], ...sessions);

const woken = (cs: readonly DbCompletion[]): string[] => cs.map((c) => `${c.sessionId} ${renderReply(c.reply)}`);

describe('committed rows in results (DbResult.committed, DbCompletion.committed)', () => {
  it('an autocommit INSERT or UPDATE carries its own table as committed; a SELECT, a DELETE in a block and BEGIN carry none', () => {
    const db = setup('a');
    expect(db.execute('a', insInv(2, 20)).committed).toEqual({ inv: [{ id: 1, order_id: 10 }, { id: 2, order_id: 20 }] });
    expect(db.execute('a', setStock(1, 9)).committed).toEqual({ items: [{ id: 1, stock: 9 }, { id: 2, stock: 5 }] });
    expect(db.execute('a', selectItems).committed).toBeUndefined();
    expect(db.execute('a', BEGIN).committed).toBeUndefined();
    expect(db.execute('a', { op: 'delete', table: 'inv', where: { id: 2 } }).committed).toBeUndefined();
  });

  it('inside a block an UPDATE carries the committed rows as they still are; COMMIT carries every table', () => {
    const db = setup('a');
    run(db, 'a', BEGIN);
    expect(db.execute('a', setStock(2, 0)).committed).toEqual({ items: [{ id: 1, stock: 5 }, { id: 2, stock: 5 }] });
    expect(db.execute('a', insInv(2, 20)).committed).toEqual({ inv: [{ id: 1, order_id: 10 }] });
    expect(db.execute('a', COMMIT).committed).toEqual({
      items: [{ id: 1, stock: 5 }, { id: 2, stock: 0 }],
      inv: [{ id: 1, order_id: 10 }, { id: 2, order_id: 20 }],
    });
  });

  it('a statement that waits carries none; when it completes, its completion carries its table, taken before the statements it let through', () => {
    const db = setup('a', 'b', 'c');
    run(db, 'a', BEGIN);
    run(db, 'a', insInv(2, 20));
    const waiting = db.execute('b', insInv(3, 20));
    expect(waiting.reply.status).toBe('waits');
    expect(waiting.committed).toBeUndefined();
    run(db, 'c', BEGIN);
    run(db, 'c', setStock(1, 1));
    run(db, 'a', bump(1)); // a waits for c's row lock
    const done = db.execute('c', ROLLBACK);
    expect(done.committed).toBeUndefined();
    expect(done.completions).toHaveLength(1);
    expect(done.completions[0]).toMatchObject({ sessionId: 'a', reply: { status: 'ok', tag: 'UPDATE 1' } });
    expect(done.completions[0]?.committed).toEqual({ items: [{ id: 1, stock: 5 }, { id: 2, stock: 5 }] });
    const afterCommit = db.execute('a', COMMIT);
    expect(woken(afterCommit.completions)).toEqual(['b ERROR 23505 duplicate key value violates unique constraint "inv_order_id_key" (Key (order_id)=(20) already exists.)']);
    // A failed INSERT still carries its table (the rows it may have changed), as they stand after a's COMMIT.
    expect(afterCommit.completions[0]?.committed).toEqual({ inv: [{ id: 1, order_id: 10 }, { id: 2, order_id: 20 }] });
  });

  it('an autocommit UPDATE released by a ROLLBACK carries the rows with its own change', () => {
    const db = setup('a', 'b');
    run(db, 'a', BEGIN);
    run(db, 'a', setStock(1, 1));
    expect(run(db, 'b', bump(1))).toMatch(/^waits/);
    const [b] = db.execute('a', ROLLBACK).completions;
    expect(b?.committed).toEqual({ items: [{ id: 1, stock: 6 }, { id: 2, stock: 5 }] });
  });
});

describe('transaction control replies (psql)', () => {
  it('BEGIN, COMMIT and ROLLBACK reply status ok with their tag and no rows; outside a block with the WARNING', () => {
    const db = setup('a');
    expect(db.execute('a', COMMIT).reply).toEqual({ status: 'ok', tag: 'COMMIT', rows: [], warning: NO_TRANSACTION_WARNING });
    expect(db.execute('a', BEGIN).reply).toEqual({ status: 'ok', tag: 'BEGIN', rows: [] });
    expect(db.execute('a', ROLLBACK).reply).toEqual({ status: 'ok', tag: 'ROLLBACK', rows: [] });
  });
});

describe('an explicit isolation level', () => {
  it('isolationOf: READ COMMITTED outside a block and in a plain or explicit READ COMMITTED block; the block\'s level inside it', () => {
    const db = setup('a');
    expect(db.isolationOf('a')).toBe('read committed');
    run(db, 'a', { op: 'begin', isolation: 'serializable' });
    expect(db.isolationOf('a')).toBe('serializable');
    run(db, 'a', COMMIT);
    expect(db.isolationOf('a')).toBe('read committed');
    run(db, 'a', { op: 'begin', isolation: 'repeatable read' });
    expect(db.isolationOf('a')).toBe('repeatable read');
    run(db, 'a', ROLLBACK);
    run(db, 'a', { op: 'begin', isolation: 'read committed' });
    expect(db.isolationOf('a')).toBe('read committed');
    expect(db.inTransaction('a')).toBe(true);
    run(db, 'a', COMMIT);
    expect(db.inTransaction('a')).toBe(false);
    expect(() => db.isolationOf('nobody')).toThrow(/unknown session/);
  });

  it('BEGIN ISOLATION LEVEL READ COMMITTED takes a new snapshot per statement: it sees a row committed after its first statement', () => {
    const db = setup('a', 'b');
    run(db, 'a', { op: 'begin', isolation: 'read committed' });
    expect(run(db, 'a', { op: 'select', table: 'inv', where: {} })).toBe('SELECT 1 → id=1, order_id=10');
    run(db, 'b', insInv(2, 20));
    expect(run(db, 'a', { op: 'select', table: 'inv', where: {} })).toBe('SELECT 2 → id=1, order_id=10 | id=2, order_id=20');
    // REPEATABLE READ, for contrast, keeps the first statement's snapshot.
    run(db, 'a', COMMIT);
    run(db, 'a', { op: 'begin', isolation: 'repeatable read' });
    run(db, 'a', { op: 'select', table: 'inv', where: {} });
    run(db, 'b', insInv(3, 30));
    expect(run(db, 'a', { op: 'select', table: 'inv', where: { id: 3 } })).toBe('SELECT 0');
  });
});

describe('closeSession in the middle of a transaction', () => {
  it('rolls back its row changes and releases its transaction-level advisory locks: the waiters go on from the committed state', () => {
    const db = setup('a', 'b', 'c');
    run(db, 'a', BEGIN);
    run(db, 'a', setStock(1, 100));
    run(db, 'a', adv('pg_advisory_xact_lock', 5));
    expect(run(db, 'b', bump(1))).toMatch(/^waits/);
    expect(run(db, 'c', adv('pg_advisory_lock', 5))).toMatch(/^waits/);
    expect(woken(db.closeSession('a'))).toEqual(['b UPDATE 1', 'c (void)']);
    expect(db.committedRows('items')).toEqual([{ id: 1, stock: 6 }, { id: 2, stock: 5 }]);
    expect(db.hasSession('a')).toBe(false);
    expect(db.hasSession('b')).toBe(true);
  });

  it('a serializable transaction that closes no longer dooms the one it read against', () => {
    const db = setup('a', 'b');
    for (const s of ['a', 'b']) run(db, s, { op: 'begin', isolation: 'serializable' });
    run(db, 'a', { op: 'select', table: 'inv', where: { order_id: 20 } });
    run(db, 'b', { op: 'select', table: 'inv', where: { order_id: 20 } });
    run(db, 'a', insInv(2, 20));
    db.closeSession('a');
    expect(run(db, 'b', insInv(3, 20))).toBe('INSERT 0 1');
    expect(run(db, 'b', COMMIT)).toBe('COMMIT');
  });
});

describe('SERIALIZABLE: a committed transaction counts while any open serializable transaction is concurrent with it', () => {
  it('a later serializable transaction that began after the COMMIT does not make the earlier reader forget it: its insert still fails with 40001', () => {
    const db = setup('a', 'b', 'd', 'e');
    const serializable: Stmt = { op: 'begin', isolation: 'serializable' };
    const readOrder: Stmt = { op: 'select', table: 'inv', where: { order_id: 20 } };
    for (const s of ['a', 'b']) run(db, s, serializable);
    run(db, 'a', readOrder);
    run(db, 'b', readOrder);
    run(db, 'a', insInv(2, 20));
    expect(run(db, 'a', COMMIT)).toBe('COMMIT');
    // d's snapshot sees a's row (not concurrent with a); e comes and goes (a rollback tidies up).
    run(db, 'd', serializable);
    expect(run(db, 'd', readOrder)).toBe('SELECT 1 → id=2, order_id=20');
    run(db, 'e', serializable);
    run(db, 'e', readOrder);
    run(db, 'e', ROLLBACK);
    expect(run(db, 'b', insInv(3, 30))).toBe(
      'ERROR 40001 could not serialize access due to read/write dependencies among transactions (Reason code: Canceled on identification as a pivot, during write.)',
    );
  });
});

describe('snapshots and serializable conflicts between transactions that are not concurrent', () => {
  const serializable: Stmt = { op: 'begin', isolation: 'serializable' };
  const readOrder = (order: number): Stmt => ({ op: 'select', table: 'inv', where: { order_id: order } });

  it('a REPEATABLE READ snapshot keeps reading the old version after a READ COMMITTED session commits a change', () => {
    const db = setup('a', 'd');
    run(db, 'd', { op: 'begin', isolation: 'repeatable read' });
    expect(run(db, 'd', { op: 'select', table: 'items', where: { id: 1 } })).toBe('SELECT 1 → id=1, stock=5');
    expect(run(db, 'a', setStock(1, 7))).toBe('UPDATE 1');
    expect(run(db, 'd', { op: 'select', table: 'items', where: { id: 1 } })).toBe('SELECT 1 → id=1, stock=5');
    run(db, 'd', COMMIT);
    expect(run(db, 'd', { op: 'select', table: 'items', where: { id: 1 } })).toBe('SELECT 1 → id=1, stock=7');
  });

  it('SERIALIZABLE: a transaction whose snapshot already saw the other\'s COMMIT reads and writes the same table without 40001', () => {
    const db = setup('a', 'b', 'c');
    // c stays open from before a's COMMIT, so a's reads and writes still count.
    run(db, 'c', serializable);
    run(db, 'c', { op: 'select', table: 'items', where: { id: 1 } });
    run(db, 'a', serializable);
    run(db, 'a', readOrder(20));
    run(db, 'a', insInv(2, 20));
    expect(run(db, 'a', COMMIT)).toBe('COMMIT');
    run(db, 'b', serializable);
    expect(run(db, 'b', readOrder(30))).toBe('SELECT 0');
    expect(run(db, 'b', insInv(3, 30))).toBe('INSERT 0 1');
    expect(run(db, 'b', COMMIT)).toBe('COMMIT');
    expect(run(db, 'c', COMMIT)).toBe('COMMIT');
  });

  it('REPEATABLE READ allows the write skew that SERIALIZABLE refuses: both check-then-insert transactions commit', () => {
    const db = setup('a', 'b');
    for (const s of ['a', 'b']) run(db, s, { op: 'begin', isolation: 'repeatable read' });
    run(db, 'a', readOrder(20));
    run(db, 'b', readOrder(20));
    run(db, 'a', insInv(2, 21));
    expect(run(db, 'a', COMMIT)).toBe('COMMIT');
    expect(run(db, 'b', insInv(3, 22))).toBe('INSERT 0 1');
    expect(run(db, 'b', COMMIT)).toBe('COMMIT');
  });

  it('a doomed SERIALIZABLE transaction still rolls back cleanly: ROLLBACK replies ROLLBACK, and COMMIT after a failed statement replies ROLLBACK', () => {
    const doomed = (): Database => {
      const db = setup('a', 'b');
      for (const s of ['a', 'b']) run(db, s, serializable);
      run(db, 'a', readOrder(20));
      run(db, 'b', readOrder(20));
      run(db, 'a', insInv(2, 20));
      run(db, 'b', insInv(3, 30));
      expect(run(db, 'a', COMMIT)).toBe('COMMIT');
      return db;
    };
    expect(run(doomed(), 'b', ROLLBACK)).toBe('ROLLBACK');
    const db = doomed();
    expect(run(db, 'b', readOrder(20))).toMatch(/^ERROR 40001 /);
    expect(run(db, 'b', COMMIT)).toBe('ROLLBACK');
  });
});

describe('sequences (CREATE SEQUENCE … START, nextval)', () => {
  it('the constructor rejects a start that is not a positive safe integer', () => {
    for (const start of [0, -1, 1.5, 2 ** 53, Number.NaN]) {
      expect(() => new Database([], { s: start })).toThrow(`sequence s: start must be a positive integer, got ${start}`);
    }
    expect(new Database([], { s: 1, t: Number.MAX_SAFE_INTEGER }).sequenceNext('t')).toBe(Number.MAX_SAFE_INTEGER);
  });

  it('sequenceNext is undefined for an unknown sequence, with and without sequences; nextval replies SELECT 1 with the value', () => {
    expect(new Database([]).sequenceNext('s')).toBeUndefined();
    const db = new Database([], { s: 5 });
    expect(db.sequenceNext('nope')).toBeUndefined();
    db.openSession('a');
    expect(db.execute('a', { op: 'nextval', seq: 's' }).reply).toEqual({ status: 'ok', tag: 'SELECT 1', rows: [{ nextval: 5 }] });
    expect(db.sequenceNext('s')).toBe(6);
    const none = new Database([]);
    none.openSession('a');
    expect(none.execute('a', { op: 'nextval', seq: 's' }).reply).toEqual({ status: 'error', error: { code: '42P01', message: 'relation "s" does not exist' } });
  });

  it('nextval takes an xid when it WAL-logs 32 values ahead: the first call and the 34th, not those between (sequence.c SEQ_LOG_VALS)', () => {
    const db = new Database([], { s: 1 });
    db.openSession('a');
    const xidAfterNextval = (): boolean => {
      run(db, 'a', BEGIN);
      run(db, 'a', { op: 'nextval', seq: 's' });
      const has = db.pgLocks().map(pgLockLine).includes('a transactionid own ExclusiveLock t');
      run(db, 'a', COMMIT);
      return has;
    };
    expect(xidAfterNextval()).toBe(true); // value 1
    expect(xidAfterNextval()).toBe(false); // value 2
    for (let i = 3; i <= 33; i += 1) run(db, 'a', { op: 'nextval', seq: 's' });
    expect(xidAfterNextval()).toBe(true); // value 34
    expect(xidAfterNextval()).toBe(false);
  });
});

describe('the transaction id (pg_locks transactionid line)', () => {
  it('a transaction that locks one row of one of several tables gets its xid', () => {
    const db = setup('a');
    run(db, 'a', BEGIN);
    run(db, 'a', { op: 'select', table: 'inv', columns: ['id'], where: { id: 1 }, lock: 'forUpdate' });
    expect(db.pgLocks().map(pgLockLine)).toContain('a transactionid own ExclusiveLock t');
  });
});

describe('a resumed advisory call', () => {
  it('replies with one row named after the function that waited', () => {
    const db = setup('a', 'b', 'c');
    run(db, 'a', adv('pg_advisory_lock', 1));
    run(db, 'b', BEGIN);
    expect(run(db, 'b', adv('pg_advisory_xact_lock', 1))).toMatch(/^waits/);
    expect(run(db, 'c', adv('pg_advisory_lock_shared', 1))).toMatch(/^waits/);
    const done = db.execute('a', adv('pg_advisory_unlock', 1)).completions;
    expect(done.map((c) => [c.sessionId, c.reply])).toEqual([['b', { status: 'ok', tag: 'SELECT 1', rows: [{ pg_advisory_xact_lock: '' }] }]]);
    expect(db.execute('b', COMMIT).completions.map((c) => [c.sessionId, c.reply])).toEqual([['c', { status: 'ok', tag: 'SELECT 1', rows: [{ pg_advisory_lock_shared: '' }] }]]);
  });
});

describe('locks() with several waits', () => {
  it('tuple lines per row: each waiter is listed under the row it waits for, not under another row or table with the same position', () => {
    const db = setup('a', 'b', 'c');
    run(db, 'a', BEGIN);
    run(db, 'a', bump(1));
    run(db, 'a', bump(2));
    run(db, 'a', { op: 'update', table: 'inv', set: { order_id: 11 }, where: { id: 1 } });
    run(db, 'b', bump(2));
    run(db, 'c', { op: 'delete', table: 'inv', where: { id: 1 } });
    expect(db.locks().map((l) => `${l.locktype} ${l.objectDescription} ${l.sessionId} ${l.granted ? 'granted' : 'waiting'}`)).toEqual([
      'tuple items row id=1 a granted',
      'tuple items row id=2 a granted',
      'tuple items row id=2 b waiting',
      'tuple inv row id=1 a granted',
      'tuple inv row id=1 c waiting',
    ]);
  });

  it('transaction waits: grouped by key (sorted), one holder line per key and blocker, waiters in wait order; row waits are not among them', () => {
    const db = setup('a', 'b', 'c', 'd', 'e');
    run(db, 'a', BEGIN);
    run(db, 'a', insInv(2, 90));
    run(db, 'a', insInv(3, 30));
    run(db, 'a', bump(1));
    expect(run(db, 'b', insInv(4, 90))).toMatch(/^waits/);
    expect(run(db, 'c', insInv(5, 30))).toMatch(/^waits/);
    expect(run(db, 'd', insInv(6, 90))).toMatch(/^waits/);
    expect(run(db, 'e', bump(1))).toMatch(/^waits/);
    expect(db.locks().map((l) => `${l.locktype} ${l.objectDescription} ${l.sessionId} ${l.mode} ${l.granted ? 'granted' : 'waiting'}`)).toEqual([
      'tuple items row id=1 a ExclusiveLock granted',
      'tuple items row id=1 e ExclusiveLock waiting',
      'tuple inv row id=2 a ExclusiveLock granted',
      'tuple inv row id=3 a ExclusiveLock granted',
      'transactionid inv row order_id=30 a ExclusiveLock granted',
      'transactionid inv row order_id=30 c ShareLock waiting',
      'transactionid inv row order_id=90 a ExclusiveLock granted',
      'transactionid inv row order_id=90 b ShareLock waiting',
      'transactionid inv row order_id=90 d ShareLock waiting',
    ]);
  });
});
