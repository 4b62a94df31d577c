// pg_locks as PostgreSQL 15 shows it. Every expectation below was read off a real server (psql /
// pg sessions, `SELECT … FROM pg_locks` from a third connection, index relations left out); the
// fidelity suite compares the same view after every step of its SQL sequences.
import { Database } from './database';
import { pgLockLine } from './pgLocks';
import { renderReply } from './renderSql';
import type { Stmt, TableSpec } from './sqlTypes';

const items: TableSpec = {
  name: 'items',
  columns: [
    { name: 'id', type: 'bigint' },
    { name: 'qty', type: 'bigint' },
    { name: 'sku', type: 'text' },
  ],
  primaryKey: ['id'],
  unique: [{ name: 'items_sku_key', columns: ['sku'] }],
  checks: [{ name: 'items_qty_check', column: 'qty', min: 0 }],
  initialRows: [{ id: 1, qty: 10, sku: 'x' }, { id: 2, qty: 5, sku: 'y' }],
};

const BEGIN: Stmt = { op: 'begin' };
const COMMIT: Stmt = { op: 'commit' };
const ROLLBACK: Stmt = { op: 'rollback' };
const selectAll: Stmt = { op: 'select', table: 'items', where: {} };
const forUpdate = (id: number, lock: 'forUpdate' | 'forUpdateNowait' | 'forUpdateSkipLocked' = 'forUpdate'): Stmt => ({ op: 'select', table: 'items', where: { id }, lock });
const setQty = (id: number, qty: number): Stmt => ({ op: 'update', table: 'items', set: { qty }, where: { id } });
const insert = (id: number, sku: string, onConflictDoNothing = false): Stmt => ({ op: 'insert', table: 'items', values: { id, qty: 1, sku }, ...(onConflictDoNothing ? { onConflictDoNothing } : {}) });
const del = (id: number): Stmt => ({ op: 'delete', table: 'items', where: { id } });
const lock = (key: number, fn: 'pg_advisory_lock' | 'pg_advisory_xact_lock' | 'pg_advisory_lock_shared' = 'pg_advisory_lock'): Stmt => ({ op: 'advisory', fn, key: { kind: 'bigint', key } });

function setup(): Database {
  const db = new Database([items]);
  for (const s of ['A', 'B', 'C']) db.openSession(s);
  return db;
}
const run = (db: Database, s: string, stmt: Stmt): string => renderReply(db.execute(s, stmt).reply);
const lines = (db: Database): string[] => db.pgLocks().map(pgLockLine).sort();

describe('pg_locks: transactions, relations and xids', () => {
  it('BEGIN alone holds the virtualxid; a SELECT adds AccessShareLock on the table; no xid yet', () => {
    const db = setup();
    run(db, 'A', BEGIN);
    expect(lines(db)).toEqual(['A virtualxid own ExclusiveLock t']);
    run(db, 'A', selectAll);
    expect(lines(db)).toEqual(['A relation items AccessShareLock t', 'A virtualxid own ExclusiveLock t']);
  });

  it('SELECT … FOR UPDATE of a row takes RowShareLock and an xid; an uncommitted INSERT shows RowExclusiveLock and its xid, no tuple line', () => {
    const db = setup();
    run(db, 'A', BEGIN);
    run(db, 'A', forUpdate(1));
    run(db, 'B', BEGIN);
    run(db, 'B', insert(3, 'z'));
    expect(lines(db)).toEqual([
      'A relation items RowShareLock t', 'A transactionid own ExclusiveLock t', 'A virtualxid own ExclusiveLock t',
      'B relation items RowExclusiveLock t', 'B transactionid own ExclusiveLock t', 'B virtualxid own ExclusiveLock t',
    ]);
  });

  it('statements that touch no row take their table lock but no xid (UPDATE 0, SELECT … FOR UPDATE 0, DELETE 0, ON CONFLICT DO NOTHING that skips)', () => {
    const db = setup();
    run(db, 'A', BEGIN);
    expect([run(db, 'A', setQty(99, 1)), run(db, 'A', forUpdate(99)), run(db, 'A', del(99)), run(db, 'A', insert(1, 'q', true))]).toEqual(['UPDATE 0', 'SELECT 0', 'DELETE 0', 'INSERT 0 0']);
    expect(lines(db)).toEqual(['A relation items RowExclusiveLock t', 'A relation items RowShareLock t', 'A virtualxid own ExclusiveLock t']);
  });

  it('an aborted block holds nothing at all, not even its virtualxid; COMMIT or an autocommit statement leaves nothing', () => {
    const db = setup();
    run(db, 'A', BEGIN);
    run(db, 'A', forUpdate(1));
    expect(run(db, 'A', setQty(2, -1))).toMatch(/^ERROR 23514/);
    expect(lines(db)).toEqual([]);
    run(db, 'A', ROLLBACK);
    run(db, 'B', setQty(2, 4));
    expect(lines(db)).toEqual([]);
  });
});

describe('pg_locks: waits for rows and keys', () => {
  it('the first row waiter holds the tuple lock and waits for the holder xid; the next waits for the tuple lock; UPDATE/DELETE have their own xid while waiting', () => {
    const db = setup();
    run(db, 'A', BEGIN);
    run(db, 'A', forUpdate(1));
    expect(run(db, 'C', setQty(1, 9))).toMatch(/^waits/);
    expect(run(db, 'B', del(1))).toMatch(/^waits/);
    expect(lines(db)).toEqual([
      'A relation items RowShareLock t', 'A transactionid own ExclusiveLock t', 'A virtualxid own ExclusiveLock t',
      'B relation items RowExclusiveLock t', 'B transactionid own ExclusiveLock t', 'B tuple items AccessExclusiveLock f', 'B virtualxid own ExclusiveLock t',
      'C relation items RowExclusiveLock t', 'C transactionid of A ShareLock f', 'C transactionid own ExclusiveLock t', 'C tuple items ExclusiveLock t', 'C virtualxid own ExclusiveLock t',
    ]);
  });

  it('a waiting SELECT … FOR UPDATE has no xid of its own until it locks the row; the next waiter then moves up to the tuple lock', () => {
    const db = setup();
    run(db, 'A', BEGIN);
    run(db, 'A', setQty(1, 10));
    run(db, 'B', BEGIN);
    expect(run(db, 'B', forUpdate(1))).toMatch(/^waits/);
    expect(run(db, 'C', del(1))).toMatch(/^waits/);
    expect(lines(db).filter((l) => l.startsWith('B'))).toEqual([
      'B relation items RowShareLock t', 'B transactionid of A ShareLock f', 'B tuple items AccessExclusiveLock t', 'B virtualxid own ExclusiveLock t',
    ]);
    run(db, 'A', ROLLBACK);
    expect(lines(db)).toEqual([
      'B relation items RowShareLock t', 'B transactionid own ExclusiveLock t', 'B virtualxid own ExclusiveLock t',
      'C relation items RowExclusiveLock t', 'C transactionid of B ShareLock f', 'C transactionid own ExclusiveLock t', 'C tuple items AccessExclusiveLock t', 'C virtualxid own ExclusiveLock t',
    ]);
  });

  it('an UPDATE that changes a key column waits with AccessExclusiveLock on the tuple', () => {
    const db = setup();
    run(db, 'A', BEGIN);
    run(db, 'A', forUpdate(2));
    expect(run(db, 'B', { op: 'update', table: 'items', set: { sku: 'w' }, where: { id: 2 } })).toMatch(/^waits/);
    expect(lines(db)).toContain('B tuple items AccessExclusiveLock t');
  });

  it('a unique-key wait is a transactionid ShareLock on the inserter: a plain INSERT has its own xid, ON CONFLICT DO NOTHING does not', () => {
    const db = setup();
    run(db, 'A', BEGIN);
    run(db, 'A', insert(4, 'w'));
    run(db, 'B', BEGIN);
    expect(run(db, 'B', insert(5, 'w'))).toMatch(/^waits/);
    run(db, 'C', BEGIN);
    expect(run(db, 'C', insert(6, 'w', true))).toMatch(/^waits/);
    expect(lines(db).filter((l) => !l.startsWith('A'))).toEqual([
      'B relation items RowExclusiveLock t', 'B transactionid of A ShareLock f', 'B transactionid own ExclusiveLock t', 'B virtualxid own ExclusiveLock t',
      'C relation items RowExclusiveLock t', 'C transactionid of A ShareLock f', 'C virtualxid own ExclusiveLock t',
    ]);
  });
});

describe('pg_locks: a SELECT … FOR UPDATE that follows an update chain gets its xid (heap_lock_updated_tuple; found by the fidelity suite, seed 4342)', () => {
  // The holder C runs `holder`, A and B wait with SELECT … FOR UPDATE, C commits: A locks the row,
  // B waits for A. Read off PostgreSQL 15 for each holder statement.
  const cases: [string, Stmt, string[]][] = [
    ['a holder that only locked the row: B has no xid yet', forUpdate(1), ['B transactionid of A ShareLock f', 'B tuple items AccessExclusiveLock t']],
    ['a holder that updated the row (even to the same values): B has its xid while it waits', { op: 'update', table: 'items', set: { qty: { column: 'qty', add: 0 } }, where: { id: 1 } }, ['B transactionid of A ShareLock f', 'B transactionid own ExclusiveLock t', 'B tuple items AccessExclusiveLock t']],
  ];
  for (const [name, holder, bLines] of cases) {
    it(name, () => {
      const db = setup();
      run(db, 'C', BEGIN);
      run(db, 'C', holder);
      run(db, 'A', BEGIN);
      run(db, 'B', BEGIN);
      expect(run(db, 'A', forUpdate(1))).toMatch(/^waits/);
      expect(run(db, 'B', forUpdate(1))).toMatch(/^waits/);
      run(db, 'C', COMMIT);
      expect(lines(db).filter((l) => l.startsWith('B') && !l.includes('relation') && !l.includes('virtualxid'))).toEqual(bLines);
      expect(lines(db)).toContain('A transactionid own ExclusiveLock t');
    });
  }

  it('a holder that deleted the row: both find no row and have no xid', () => {
    const db = setup();
    run(db, 'C', BEGIN);
    run(db, 'C', del(1));
    run(db, 'A', BEGIN);
    expect(run(db, 'A', forUpdate(1))).toMatch(/^waits/);
    run(db, 'C', COMMIT);
    expect(lines(db)).toEqual(['A relation items RowShareLock t', 'A virtualxid own ExclusiveLock t']);
  });

  it('a row updated so that it no longer matches: SELECT 0, yet the xid is assigned', () => {
    const db = setup();
    run(db, 'C', BEGIN);
    run(db, 'C', setQty(1, 0));
    run(db, 'A', BEGIN);
    expect(run(db, 'A', { op: 'select', table: 'items', where: { id: 1, qty: 10 }, lock: 'forUpdate' })).toMatch(/^waits/);
    const done = db.execute('C', COMMIT).completions.map((c) => renderReply(c.reply));
    expect(done).toEqual(['SELECT 0']);
    expect(lines(db)).toEqual(['A relation items RowShareLock t', 'A transactionid own ExclusiveLock t', 'A virtualxid own ExclusiveLock t']);
  });
});

describe('pg_locks: waiters released by a committed UPDATE, the first one taking the row again (read off PostgreSQL 15)', () => {
  const decrement: Stmt = { op: 'update', table: 'items', set: { qty: { column: 'qty', add: -1 } }, where: { id: 1 } };
  const cases: [string, Stmt, Stmt, string[]][] = [
    ['UPDATE then UPDATE: the second waits for the first xid without a tuple lock', decrement, decrement, ['B transactionid of A ShareLock f', 'B transactionid own ExclusiveLock t']],
    ['FOR UPDATE then UPDATE: the newest version is only locked, so the UPDATE takes its tuple lock', forUpdate(1), decrement, ['B transactionid of A ShareLock f', 'B transactionid own ExclusiveLock t', 'B tuple items ExclusiveLock t']],
    ['UPDATE then FOR UPDATE: the locker keeps the tuple lock of the version it first waited for', decrement, forUpdate(1), ['B transactionid of A ShareLock f', 'B transactionid own ExclusiveLock t', 'B tuple items AccessExclusiveLock t']],
  ];
  for (const [name, first, second, bLines] of cases) {
    it(name, () => {
      const db = setup();
      run(db, 'C', BEGIN);
      run(db, 'C', { op: 'update', table: 'items', set: { qty: { column: 'qty', add: 1 } }, where: { id: 1 } });
      run(db, 'A', BEGIN);
      run(db, 'B', BEGIN);
      expect(run(db, 'A', first)).toMatch(/^waits/);
      expect(run(db, 'B', second)).toMatch(/^waits/);
      run(db, 'C', COMMIT);
      expect(lines(db).filter((l) => l.startsWith('B') && !l.includes('relation') && !l.includes('virtualxid'))).toEqual(bLines);
    });
  }
});

describe('pg_locks: advisory locks', () => {
  it('one line per key, session and mode, whatever the scope and the count; a waiting autocommit call holds its virtualxid', () => {
    const db = setup();
    run(db, 'A', lock(42));
    run(db, 'A', BEGIN);
    run(db, 'A', lock(42, 'pg_advisory_xact_lock'));
    run(db, 'A', lock(42, 'pg_advisory_xact_lock'));
    run(db, 'A', lock(7, 'pg_advisory_lock_shared'));
    expect(run(db, 'B', lock(42))).toMatch(/^waits/);
    expect(lines(db)).toEqual([
      'A advisory 42 ExclusiveLock t', 'A advisory 7 ShareLock t', 'A virtualxid own ExclusiveLock t',
      'B advisory 42 ExclusiveLock f', 'B virtualxid own ExclusiveLock t',
    ]);
    run(db, 'A', COMMIT);
    expect(lines(db)).toEqual(['A advisory 42 ExclusiveLock t', 'A advisory 7 ShareLock t', 'B advisory 42 ExclusiveLock f', 'B virtualxid own ExclusiveLock t']);
  });
});

describe('pg_locks over every preset (both variants), at every event', () => {
  it('a tuple line or a transactionid ShareLock belongs to a waiting session; a transaction id comes with its virtualxid', async () => {
    const { PRESETS, runScenario } = await import('../index');
    let checked = 0;
    for (const p of PRESETS) {
      for (const scenario of [p.withoutFix, p.withFix]) {
        const run = runScenario(scenario, { captureSnapshots: true });
        for (const snap of run.snapshots ?? []) {
          const waiting = new Set(snap.locks.filter((l) => !l.granted).map((l) => l.sessionId));
          for (const l of snap.pgLocks) {
            checked += 1;
            if (l.locktype === 'tuple' || (l.locktype === 'transactionid' && l.mode === 'ShareLock')) expect(waiting.has(l.sessionId), `${p.id}: ${pgLockLine(l)}`).toBe(true);
            if (l.locktype === 'transactionid' && l.mode === 'ExclusiveLock') {
              expect(snap.pgLocks.some((v) => v.locktype === 'virtualxid' && v.sessionId === l.sessionId), `${p.id}: xid without virtualxid`).toBe(true);
            }
          }
        }
      }
    }
    expect(checked).toBeGreaterThan(100);
  });
});
