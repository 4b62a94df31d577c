// Tests for the simulated PostgreSQL database. Expected replies, waits and wake-ups were checked
// against PostgreSQL 15 (two to four psql/pg sessions per case) unless a comment says otherwise.
import { Database } from './database';
import { renderReply } from './renderSql';
import { lockTimeoutError, statementTimeoutError } from './sqlErrors';
import type { AdvisoryFn, DbCompletion, DbResult, Stmt, TableSpec, Where } from './sqlTypes';

const invoices: TableSpec = {
  name: 'invoices',
  columns: [
    { name: 'id', type: 'bigint', serial: true },
    { name: 'order_id', type: 'bigint' },
    { name: 'amount', type: 'bigint' },
  ],
  primaryKey: ['id'],
  unique: [{ name: 'invoices_order_id_key', columns: ['order_id'] }],
};
const items: TableSpec = {
  name: 'items',
  columns: [
    { name: 'id', type: 'bigint' },
    { name: 'stock', type: 'bigint' },
  ],
  primaryKey: ['id'],
  checks: [{ name: 'items_stock_check', column: 'stock', min: 0 }],
  initialRows: [{ id: 7, stock: 1 }],
};
const accounts: TableSpec = {
  name: 'accounts',
  columns: [
    { name: 'id', type: 'bigint' },
    { name: 'balance', type: 'bigint' },
  ],
  primaryKey: ['id'],
  initialRows: [{ id: 1, balance: 100 }],
};
const jobs: TableSpec = {
  name: 'jobs',
  columns: [
    { name: 'id', type: 'bigint', serial: true },
    { name: 'status', type: 'text' },
  ],
  primaryKey: ['id'],
  initialRows: [{ status: 'pending' }, { status: 'pending' }, { status: 'pending' }],
};
const dailyInvoices: TableSpec = {
  name: 'daily_invoices',
  columns: [
    { name: 'account_id', type: 'bigint' },
    { name: 'period', type: 'text' },
  ],
  unique: [{ name: 'daily_invoices_account_id_period_key', columns: ['account_id', 'period'] }],
};

function setup(...sessions: string[]): Database {
  const db = new Database([invoices, items, accounts, jobs, dailyInvoices]);
  for (const s of sessions) db.openSession(s);
  return db;
}

type Key = number | readonly [number, number];
const adv = (fn: AdvisoryFn, key: Key): Stmt => ({
  op: 'advisory',
  fn,
  key: typeof key === 'number' ? { kind: 'bigint', key } : { kind: 'pair', key1: key[0], key2: key[1] },
});
const BEGIN: Stmt = { op: 'begin' };
const COMMIT: Stmt = { op: 'commit' };
const ROLLBACK: Stmt = { op: 'rollback' };
const insertInvoice = (orderId: number, extra: Partial<Extract<Stmt, { op: 'insert' }>> = {}): Stmt => ({
  op: 'insert',
  table: 'invoices',
  values: { order_id: orderId, amount: 100 },
  returning: ['id'],
  ...extra,
});
const select = (table: string, where: Where, extra: Partial<Extract<Stmt, { op: 'select' }>> = {}): Stmt => ({ op: 'select', table, where, ...extra });
const decrementStock: Stmt = { op: 'update', table: 'items', set: { stock: { column: 'stock', add: -1 } }, where: { id: 7 } };

/** Runs statements in order and returns each reply as text. */
function texts(db: Database, steps: readonly (readonly [string, Stmt])[]): string[] {
  return steps.map(([s, stmt]) => renderReply(db.execute(s, stmt).reply));
}
const q = (db: Database, s: string, stmt: Stmt): string => renderReply(db.execute(s, stmt).reply);
const woken = (completions: readonly DbCompletion[]): string[][] => completions.map((c) => [c.sessionId, renderReply(c.reply)]);
const wokenBy = (r: DbResult): string[][] => woken(r.completions);

const NOT_OWNED_X = "WARNING:  you don't own a lock of type ExclusiveLock; f";
const NOT_OWNED_S = "WARNING:  you don't own a lock of type ShareLock; f";

describe('advisory lock functions (PostgreSQL docs, "Advisory Lock Functions")', () => {
  // [function, reply when free, reply while another session holds it exclusively, … shared]
  const cases: [AdvisoryFn, string, string, string][] = [
    ['pg_advisory_lock', '(void)', 'waits (advisory lock 42 held by session other)', 'waits (advisory lock 42 held by session other)'],
    ['pg_advisory_lock_shared', '(void)', 'waits (advisory lock 42 held by session other)', '(void)'],
    ['pg_try_advisory_lock', 't', 'f', 'f'],
    ['pg_try_advisory_lock_shared', 't', 'f', 't'],
    ['pg_advisory_xact_lock', '(void)', 'waits (advisory lock 42 held by session other)', 'waits (advisory lock 42 held by session other)'],
    ['pg_advisory_xact_lock_shared', '(void)', 'waits (advisory lock 42 held by session other)', '(void)'],
    ['pg_try_advisory_xact_lock', 't', 'f', 'f'],
    ['pg_try_advisory_xact_lock_shared', 't', 'f', 't'],
    ['pg_advisory_unlock', NOT_OWNED_X, NOT_OWNED_X, NOT_OWNED_X],
    ['pg_advisory_unlock_shared', NOT_OWNED_S, NOT_OWNED_S, NOT_OWNED_S],
  ];
  it.each(cases)('%s: free → %s; held exclusive → %s; held shared → %s', (fn, free, heldX, heldS) => {
    expect(q(setup('me'), 'me', adv(fn, 42))).toBe(free);
    for (const [holderFn, expected] of [['pg_advisory_lock', heldX], ['pg_advisory_lock_shared', heldS]] as const) {
      const db = setup('other', 'me');
      db.execute('other', adv(holderFn, 42));
      expect(q(db, 'me', adv(fn, 42))).toBe(expected);
    }
  });

  it('replies with one row named after the function: void as "", booleans as t/f, tag SELECT 1', () => {
    const db = setup('s1');
    expect(db.execute('s1', adv('pg_advisory_lock', 1)).reply).toEqual({ status: 'ok', tag: 'SELECT 1', rows: [{ pg_advisory_lock: '' }] });
    expect(db.execute('s1', adv('pg_try_advisory_lock', 1)).reply).toEqual({ status: 'ok', tag: 'SELECT 1', rows: [{ pg_try_advisory_lock: 't' }] });
    expect(db.execute('s1', { op: 'advisoryUnlockAll' }).reply).toEqual({ status: 'ok', tag: 'SELECT 1', rows: [{ pg_advisory_unlock_all: '' }] });
    expect(db.execute('s1', adv('pg_advisory_unlock', 1)).reply).toEqual({
      status: 'ok',
      tag: 'SELECT 1',
      rows: [{ pg_advisory_unlock: 'f' }],
      warning: "you don't own a lock of type ExclusiveLock",
    });
  });

  it('stacks: three locks need three unlocks; the fourth unlock is f + WARNING', () => {
    const db = setup('s1', 's2');
    expect(texts(db, [['s1', adv('pg_advisory_lock', 7)], ['s1', adv('pg_advisory_lock', 7)], ['s1', adv('pg_advisory_lock', 7)]])).toEqual(['(void)', '(void)', '(void)']);
    expect(db.locks()).toEqual([{ locktype: 'advisory', objectDescription: 'advisory 7', sessionId: 's1', mode: 'ExclusiveLock', granted: true, scope: 'session', count: 3 }]);
    expect(q(db, 's2', adv('pg_advisory_lock', 7))).toBe('waits (advisory lock 7 held by session s1)');
    const unlocks = [1, 2, 3].map(() => db.execute('s1', adv('pg_advisory_unlock', 7)));
    expect(unlocks.map((r) => renderReply(r.reply))).toEqual(['t', 't', 't']);
    expect(unlocks.map(wokenBy)).toEqual([[], [], [['s2', '(void)']]]);
    expect(q(db, 's1', adv('pg_advisory_unlock', 7))).toBe(NOT_OWNED_X);
  });

  it('re-entrancy: a holder gets the lock again at once even with another session queued', () => {
    const db = setup('s1', 's2');
    expect(texts(db, [['s1', adv('pg_advisory_lock', 1)], ['s2', adv('pg_advisory_lock', 1)], ['s1', adv('pg_advisory_lock', 1)], ['s1', adv('pg_try_advisory_lock', 1)]])).toEqual([
      '(void)',
      'waits (advisory lock 1 held by session s1)',
      '(void)',
      't',
    ]);
    db.execute('s1', BEGIN);
    expect(q(db, 's1', adv('pg_advisory_xact_lock', 1))).toBe('(void)');
    expect(db.sessionState('s1').advisoryLocks).toEqual([
      { key: '1', advisoryKey: { kind: 'bigint', key: 1 }, description: 'advisory 1', mode: 'ExclusiveLock', sessionCount: 3, xactCount: 1 },
    ]);
    expect(db.sessionState('s2').waiting?.on).toBe('advisory lock 1 held by session s1');
  });

  it('a session-level lock taken in a transaction that rolls back stays held', () => {
    const db = setup('s1', 's2');
    texts(db, [['s1', BEGIN], ['s1', adv('pg_advisory_lock', 5)], ['s1', ROLLBACK]]);
    expect(q(db, 's2', adv('pg_try_advisory_lock', 5))).toBe('f');
    expect(db.sessionState('s1').advisoryLocks.map((l) => [l.key, l.sessionCount])).toEqual([['5', 1]]);
  });

  it('an unlock inside a transaction that later fails still took effect', () => {
    const db = setup('s1', 's2');
    db.execute('s1', insertInvoice(42));
    expect(texts(db, [['s1', adv('pg_advisory_lock', 6)], ['s1', BEGIN], ['s1', adv('pg_advisory_unlock', 6)], ['s1', insertInvoice(42)], ['s1', ROLLBACK]])).toEqual([
      '(void)',
      'BEGIN',
      't',
      'ERROR 23505 duplicate key value violates unique constraint "invoices_order_id_key" (Key (order_id)=(42) already exists.)',
      'ROLLBACK',
    ]);
    expect(q(db, 's2', adv('pg_try_advisory_lock', 6))).toBe('t');
  });

  it('unlock of a lock held only at transaction level is f + WARNING and leaves it held until COMMIT', () => {
    const db = setup('s1', 's2');
    expect(texts(db, [['s1', BEGIN], ['s1', adv('pg_advisory_xact_lock', 3)], ['s1', adv('pg_advisory_unlock', 3)]])).toEqual(['BEGIN', '(void)', NOT_OWNED_X]);
    expect(q(db, 's2', adv('pg_try_advisory_lock', 3))).toBe('f');
    db.execute('s1', COMMIT);
    expect(q(db, 's2', adv('pg_try_advisory_lock', 3))).toBe('t');
  });

  it('unlock in the other mode is f + WARNING naming that mode', () => {
    const db = setup('s1');
    db.execute('s1', adv('pg_advisory_lock', 3));
    expect(q(db, 's1', adv('pg_advisory_unlock_shared', 3))).toBe(NOT_OWNED_S);
    expect(q(db, 's1', adv('pg_advisory_unlock', 3))).toBe('t');
  });

  it('bigint key 1 and pair (0,1) are different locks', () => {
    const db = setup('s1', 's2');
    db.execute('s1', adv('pg_advisory_lock', 1));
    expect(q(db, 's2', adv('pg_try_advisory_lock', [0, 1]))).toBe('t');
    expect(q(db, 's2', adv('pg_try_advisory_lock', 1))).toBe('f');
    expect(db.locks().map((l) => [l.objectDescription, l.sessionId])).toEqual([
      ['advisory 1', 's1'],
      ['advisory (0,1)', 's2'],
    ]);
  });

  it.each(['COMMIT', 'ROLLBACK'] as const)('a transaction-level lock is released at %s and wakes the waiter', (end) => {
    const db = setup('s1', 's2');
    texts(db, [['s1', BEGIN], ['s1', adv('pg_advisory_xact_lock', 9)]]);
    expect(q(db, 's2', adv('pg_advisory_xact_lock', 9))).toBe('waits (advisory lock 9 held by session s1)');
    const r = db.execute('s1', end === 'COMMIT' ? COMMIT : ROLLBACK);
    expect(renderReply(r.reply)).toBe(end);
    // s2 ran in autocommit: its own transaction-level lock went away as its statement ended.
    expect(wokenBy(r)).toEqual([['s2', '(void)']]);
    expect(db.locks()).toEqual([]);
  });

  it('a failed statement releases the block\'s transaction-level locks at once, not at ROLLBACK', () => {
    const db = setup('s1', 's2');
    db.execute('s1', insertInvoice(42));
    texts(db, [['s1', BEGIN], ['s1', adv('pg_advisory_xact_lock', 7)], ['s2', adv('pg_advisory_xact_lock', 7)]]);
    const r = db.execute('s1', insertInvoice(42));
    expect(r.reply.status).toBe('error');
    expect(wokenBy(r)).toEqual([['s2', '(void)']]);
  });

  it('pg_advisory_xact_lock outside BEGIN is released as soon as its statement ends', () => {
    const db = setup('s1', 's2');
    expect(q(db, 's1', adv('pg_advisory_xact_lock', 9))).toBe('(void)');
    expect(q(db, 's2', adv('pg_try_advisory_xact_lock', 9))).toBe('t');
    expect(db.locks()).toEqual([]);
  });

  it('session end releases every lock and wakes waiters in FIFO order', () => {
    const db = setup('s1', 's2', 's3', 's4');
    expect(texts(db, [['s1', adv('pg_advisory_lock', 11)], ['s1', adv('pg_advisory_lock', 11)], ['s2', adv('pg_advisory_lock', 11)], ['s3', adv('pg_advisory_lock_shared', 11)], ['s4', adv('pg_advisory_lock_shared', 11)]])).toEqual([
      '(void)',
      '(void)',
      'waits (advisory lock 11 held by session s1)',
      'waits (advisory lock 11 held by session s1)',
      'waits (advisory lock 11 held by session s1)',
    ]);
    expect(woken(db.closeSession('s1'))).toEqual([['s2', '(void)']]);
    expect(wokenBy(db.execute('s2', adv('pg_advisory_unlock', 11)))).toEqual([
      ['s3', '(void)'],
      ['s4', '(void)'],
    ]);
  });

  it('pg_advisory_unlock_all drops session-level locks only', () => {
    const db = setup('s1', 's2');
    texts(db, [['s1', adv('pg_advisory_lock', 1)], ['s1', adv('pg_advisory_lock_shared', 2)], ['s1', BEGIN], ['s1', adv('pg_advisory_xact_lock', 3)]]);
    expect(q(db, 's1', { op: 'advisoryUnlockAll' })).toBe('(void)');
    expect(db.sessionState('s1').advisoryLocks.map((l) => l.key)).toEqual(['3']);
    expect(texts(db, [['s2', adv('pg_try_advisory_lock', 1)], ['s2', adv('pg_try_advisory_lock', 2)], ['s2', adv('pg_try_advisory_lock', 3)]])).toEqual(['t', 't', 'f']);
  });

  it('shared holders coexist; an exclusive request queues; later shared requests queue behind it (FIFO)', () => {
    const db = setup('s1', 's2', 's3', 's4');
    expect(texts(db, [['s1', adv('pg_advisory_lock_shared', 2)], ['s2', adv('pg_advisory_lock_shared', 2)], ['s3', adv('pg_advisory_lock', 2)], ['s4', adv('pg_try_advisory_lock_shared', 2)], ['s4', adv('pg_advisory_lock_shared', 2)]])).toEqual([
      '(void)',
      '(void)',
      'waits (advisory lock 2 held by session s1)',
      'f',
      'waits (advisory lock 2 queued behind session s3)',
    ]);
    expect(wokenBy(db.execute('s1', adv('pg_advisory_unlock_shared', 2)))).toEqual([]);
    expect(wokenBy(db.execute('s2', adv('pg_advisory_unlock_shared', 2)))).toEqual([['s3', '(void)']]);
    expect(wokenBy(db.execute('s3', adv('pg_advisory_unlock', 2)))).toEqual([['s4', '(void)']]);
  });

  it('a shared holder asking for exclusive goes ahead of the queued exclusive request', () => {
    const db = setup('s1', 's2', 's4');
    texts(db, [['s1', adv('pg_advisory_lock_shared', 3)], ['s4', adv('pg_advisory_lock_shared', 3)], ['s2', adv('pg_advisory_lock', 3)]]);
    expect(q(db, 's1', adv('pg_advisory_lock', 3))).toBe('waits (advisory lock 3 held by session s4)');
    expect(db.locks().filter((l) => !l.granted).map((l) => l.sessionId)).toEqual(['s1', 's2']);
    expect(wokenBy(db.execute('s4', adv('pg_advisory_unlock_shared', 3)))).toEqual([['s1', '(void)']]);
  });

  it('a shared holder: same mode again at once; pg_try exclusive is f behind a queued exclusive request', () => {
    const db = setup('s1', 's2');
    texts(db, [['s1', adv('pg_advisory_lock_shared', 3)], ['s2', adv('pg_advisory_lock', 3)]]);
    expect(texts(db, [['s1', BEGIN], ['s1', adv('pg_advisory_xact_lock_shared', 3)], ['s1', adv('pg_try_advisory_lock', 3)]])).toEqual(['BEGIN', '(void)', 'f']);
  });

  it('advisory functions in an aborted transaction fail with 25P02 and change nothing', () => {
    const db = setup('s1', 's2');
    db.execute('s1', insertInvoice(1));
    texts(db, [['s1', adv('pg_advisory_lock', 4)], ['s1', BEGIN], ['s1', insertInvoice(1)]]);
    const aborted = 'ERROR 25P02 current transaction is aborted, commands ignored until end of transaction block';
    expect(texts(db, [['s1', adv('pg_advisory_unlock', 4)], ['s1', { op: 'advisoryUnlockAll' }], ['s1', adv('pg_advisory_lock', 8)]])).toEqual([aborted, aborted, aborted]);
    expect(q(db, 's2', adv('pg_try_advisory_lock', 4))).toBe('f');
    expect(q(db, 's2', adv('pg_try_advisory_lock', 8))).toBe('t');
  });
});

describe('cancelWaiting (lock_timeout 55P03, statement_timeout 57014)', () => {
  it('55P03 aborts the block, leaves session locks held, and 25P02 follows until ROLLBACK', () => {
    const db = setup('s1', 's2', 's3');
    db.execute('s1', adv('pg_advisory_lock', 9));
    texts(db, [['s2', BEGIN], ['s2', adv('pg_advisory_lock', 10)], ['s2', adv('pg_advisory_lock', 9)]]);
    const done = db.cancelWaiting('s2', lockTimeoutError());
    expect(woken(done)).toEqual([['s2', 'ERROR 55P03 canceling statement due to lock timeout']]);
    expect(done[0]?.stmt).toEqual(adv('pg_advisory_lock', 9));
    expect(db.sessionState('s2')).toMatchObject({ inTransaction: true, aborted: true, waiting: null });
    expect(texts(db, [['s2', select('items', {})], ['s2', ROLLBACK], ['s3', adv('pg_try_advisory_lock', 10)]])).toEqual([
      'ERROR 25P02 current transaction is aborted, commands ignored until end of transaction block',
      'ROLLBACK',
      'f',
    ]);
    expect(db.locks().filter((l) => l.objectDescription === 'advisory 9').map((l) => [l.sessionId, l.granted])).toEqual([['s1', true]]);
  });

  it('cancelling a queued request can let the requests behind it through, reported after it', () => {
    const db = setup('s1', 's2', 's3');
    texts(db, [['s1', adv('pg_advisory_lock_shared', 1)], ['s2', adv('pg_advisory_lock', 1)], ['s3', adv('pg_advisory_lock_shared', 1)]]);
    expect(woken(db.cancelWaiting('s2', statementTimeoutError()))).toEqual([
      ['s2', 'ERROR 57014 canceling statement due to statement timeout'],
      ['s3', '(void)'],
    ]);
    // An autocommit statement's failure aborts nothing further: the session is usable at once.
    expect(db.sessionState('s2')).toMatchObject({ inTransaction: false, aborted: false });
  });

  it('cancelling a row-lock wait releases the row locks its statement already took', () => {
    const db = setup('s1', 's2', 's3');
    texts(db, [['s1', BEGIN], ['s1', select('jobs', { id: 2 }, { lock: 'forUpdate' })]]);
    expect(q(db, 's2', select('jobs', { status: 'pending' }, { lock: 'forUpdate', columns: ['id'] }))).toBe('waits (row lock on jobs row id=2 held by session s1)');
    expect(q(db, 's3', select('jobs', { id: 1 }, { lock: 'forUpdateNowait' }))).toBe('ERROR 55P03 could not obtain lock on row in relation "jobs"');
    db.cancelWaiting('s2', lockTimeoutError());
    expect(q(db, 's3', select('jobs', { id: 1 }, { lock: 'forUpdateNowait' }))).toBe('SELECT 1 → id=1, status=pending');
  });

  it('throws when nothing waits', () => {
    const db = setup('s1');
    expect(() => db.cancelWaiting('s1', lockTimeoutError())).toThrow(/no waiting statement/);
  });
});

describe('transactions (READ COMMITTED, autocommit)', () => {
  it('warns for COMMIT/ROLLBACK outside a block and BEGIN inside one', () => {
    const db = setup('s1');
    expect(texts(db, [['s1', COMMIT], ['s1', ROLLBACK], ['s1', BEGIN], ['s1', BEGIN], ['s1', COMMIT]])).toEqual([
      'WARNING:  there is no transaction in progress; COMMIT',
      'WARNING:  there is no transaction in progress; ROLLBACK',
      'BEGIN',
      'WARNING:  there is already a transaction in progress; BEGIN',
      'COMMIT',
    ]);
  });

  it('a failed statement aborts the block: 25P02 for everything (BEGIN too) until COMMIT, which rolls back', () => {
    const db = setup('s1');
    db.execute('s1', insertInvoice(42));
    const aborted = 'ERROR 25P02 current transaction is aborted, commands ignored until end of transaction block';
    expect(texts(db, [['s1', BEGIN], ['s1', insertInvoice(7)], ['s1', insertInvoice(42)], ['s1', select('invoices', {})], ['s1', BEGIN], ['s1', COMMIT]])).toEqual([
      'BEGIN',
      'INSERT 0 1 → id=2',
      'ERROR 23505 duplicate key value violates unique constraint "invoices_order_id_key" (Key (order_id)=(42) already exists.)',
      aborted,
      aborted,
      'ROLLBACK',
    ]);
    expect(db.committedRows('invoices')).toEqual([{ id: 1, order_id: 42, amount: 100 }]);
    expect(q(db, 's1', select('invoices', { order_id: 42 }, { columns: ['id'] }))).toBe('SELECT 1 → id=1');
  });

  it('an error in autocommit fails only that statement', () => {
    const db = setup('s1');
    db.execute('s1', insertInvoice(42));
    expect(q(db, 's1', insertInvoice(42))).toMatch(/^ERROR 23505/);
    expect(db.sessionState('s1')).toMatchObject({ inTransaction: false, aborted: false });
    expect(q(db, 's1', insertInvoice(43))).toBe('INSERT 0 1 → id=3');
  });

  it('a statement sees committed data plus its own changes; others see it after COMMIT', () => {
    const db = setup('s1', 's2');
    texts(db, [['s1', BEGIN], ['s1', insertInvoice(42)], ['s1', { op: 'update', table: 'accounts', set: { balance: 70 }, where: { id: 1 } }]]);
    expect(db.visibleRows('s1', 'invoices')).toEqual([{ id: 1, order_id: 42, amount: 100 }]);
    expect(db.visibleRows('s2', 'invoices')).toEqual([]);
    expect(q(db, 's2', select('accounts', { id: 1 }))).toBe('SELECT 1 → id=1, balance=100');
    expect(db.committedRows('accounts')).toEqual([{ id: 1, balance: 100 }]);
    db.execute('s1', COMMIT);
    expect(db.visibleRows('s2', 'invoices')).toEqual([{ id: 1, order_id: 42, amount: 100 }]);
    expect(q(db, 's2', select('accounts', { id: 1 }, { columns: ['balance'] }))).toBe('SELECT 1 → balance=70');
  });

  it('ROLLBACK discards changes; a serial value is not reused', () => {
    const db = setup('s1');
    expect(texts(db, [['s1', BEGIN], ['s1', insertInvoice(1)], ['s1', { op: 'delete', table: 'jobs', where: { id: 1 } }], ['s1', ROLLBACK], ['s1', insertInvoice(1)]])).toEqual([
      'BEGIN',
      'INSERT 0 1 → id=1',
      'DELETE 1',
      'ROLLBACK',
      'INSERT 0 1 → id=2',
    ]);
    expect(db.committedRows('jobs')).toHaveLength(3);
  });

  it('closeSession rolls back the open block and cancels its waiting statement without reporting it', () => {
    // Matches pg_terminate_backend. A client that merely disconnects mid-wait leaves its backend
    // waiting (holding its locks) until the wait ends, since PostgreSQL only then notices.
    const db = setup('s1', 's2', 's3');
    texts(db, [['s1', BEGIN], ['s1', insertInvoice(42)], ['s2', BEGIN], ['s2', decrementStock], ['s3', adv('pg_advisory_lock', 1)]]);
    expect(q(db, 's1', decrementStock)).toBe('waits (row lock on items row id=7 held by session s2)');
    expect(q(db, 's3', insertInvoice(42))).toBe('waits (transaction of session s1 (uncommitted invoices row order_id=42))');
    expect(woken(db.closeSession('s1'))).toEqual([['s3', 'INSERT 0 1 → id=2']]);
    expect(() => db.sessionState('s1')).toThrow(/unknown session/);
    expect(woken(db.closeSession('s3'))).toEqual([]);
    expect(db.locks().map((l) => [l.locktype, l.sessionId])).toEqual([['tuple', 's2']]);
  });
});

describe('unique constraints and concurrent inserts (PostgreSQL docs, "Index Uniqueness Checks")', () => {
  const dup42 = 'ERROR 23505 duplicate key value violates unique constraint "invoices_order_id_key" (Key (order_id)=(42) already exists.)';

  it.each([
    ['COMMIT', dup42, [{ id: 1, order_id: 42, amount: 100 }]],
    ['ROLLBACK', 'INSERT 0 1 → id=2', [{ id: 2, order_id: 42, amount: 100 }]],
  ] as const)('the second inserter waits; after the first one\'s %s it gets %s', (end, outcome, rows) => {
    const db = setup('s1', 's2');
    texts(db, [['s1', BEGIN], ['s1', insertInvoice(42)]]);
    const r = db.execute('s2', insertInvoice(42));
    expect(r.reply).toEqual({ status: 'waits', on: 'transaction of session s1 (uncommitted invoices row order_id=42)', blockerSession: 's1' });
    expect(wokenBy(db.execute('s1', end === 'COMMIT' ? COMMIT : ROLLBACK))).toEqual([['s2', outcome]]);
    expect(db.committedRows('invoices')).toEqual(rows);
  });

  it('a duplicate of a committed row, or of the own transaction\'s row, fails at once', () => {
    const db = setup('s1');
    db.execute('s1', insertInvoice(42));
    expect(q(db, 's1', insertInvoice(42))).toBe(dup42);
    texts(db, [['s1', BEGIN], ['s1', insertInvoice(43)]]);
    expect(q(db, 's1', insertInvoice(43))).toMatch(/^ERROR 23505 .*\(Key \(order_id\)=\(43\) already exists\.\)$/);
  });

  it('reports a multi-column key in the DETAIL', () => {
    const db = setup('s1');
    const row: Stmt = { op: 'insert', table: 'daily_invoices', values: { account_id: 7, period: '2026-11' } };
    expect(q(db, 's1', row)).toBe('INSERT 0 1');
    expect(db.execute('s1', row).reply).toEqual({
      status: 'error',
      error: {
        code: '23505',
        message: 'duplicate key value violates unique constraint "daily_invoices_account_id_period_key"',
        detail: 'Key (account_id, period)=(7, 2026-11) already exists.',
      },
    });
  });

  it('ON CONFLICT DO NOTHING RETURNING waits, then returns no row (INSERT 0 0)', () => {
    const db = setup('s1', 's2');
    texts(db, [['s1', BEGIN], ['s1', insertInvoice(42)]]);
    expect(q(db, 's2', insertInvoice(42, { onConflictDoNothing: true }))).toBe('waits (transaction of session s1 (uncommitted invoices row order_id=42))');
    const done = db.execute('s1', COMMIT).completions;
    expect(done[0]?.reply).toEqual({ status: 'ok', tag: 'INSERT 0 0', rows: [] });
    expect(q(db, 's2', insertInvoice(42, { onConflictDoNothing: true }))).toBe('INSERT 0 0');
    expect(q(db, 's2', insertInvoice(43, { onConflictDoNothing: true }))).toBe('INSERT 0 1 → id=4');
  });

  it('waiters re-run in the order they began to wait: the next one then waits for the first', () => {
    // PostgreSQL wakes both at once and lets them race; the model picks the FIFO interleaving.
    const db = setup('s1', 's2', 's3');
    texts(db, [['s1', BEGIN], ['s1', insertInvoice(42)], ['s2', BEGIN], ['s2', insertInvoice(42)], ['s3', insertInvoice(42, { onConflictDoNothing: true })]]);
    expect(wokenBy(db.execute('s1', ROLLBACK))).toEqual([['s2', 'INSERT 0 1 → id=2']]);
    expect(db.sessionState('s3').waiting?.on).toBe('transaction of session s2 (uncommitted invoices row order_id=42)');
    expect(wokenBy(db.execute('s2', COMMIT))).toEqual([['s3', 'INSERT 0 0']]);
  });

  it('an UPDATE that writes a key another transaction is inserting waits for it, holding its row lock', () => {
    const db = setup('s0', 's1', 's2', 's3');
    db.execute('s0', insertInvoice(1));
    texts(db, [['s1', BEGIN], ['s1', insertInvoice(42)], ['s2', BEGIN]]);
    expect(q(db, 's2', { op: 'update', table: 'invoices', set: { order_id: 42 }, where: { id: 1 } })).toBe('waits (transaction of session s1 (uncommitted invoices row order_id=42))');
    expect(q(db, 's3', select('invoices', { id: 1 }, { lock: 'forUpdateNowait' }))).toBe('ERROR 55P03 could not obtain lock on row in relation "invoices"');
    expect(wokenBy(db.execute('s1', ROLLBACK))).toEqual([['s2', 'UPDATE 1']]);
  });

  it('a row another transaction only locked (FOR UPDATE) conflicts at once; one it deleted makes the insert wait', () => {
    const db = setup('s0', 's1', 's2');
    db.execute('s0', insertInvoice(42));
    texts(db, [['s1', BEGIN], ['s1', select('invoices', { order_id: 42 }, { lock: 'forUpdate' })]]);
    expect(q(db, 's2', insertInvoice(42))).toBe(dup42);
    texts(db, [['s1', { op: 'delete', table: 'invoices', where: { order_id: 42 } }]]);
    expect(q(db, 's2', insertInvoice(42))).toMatch(/^waits/);
    expect(wokenBy(db.execute('s1', ROLLBACK))).toEqual([['s2', dup42]]);
  });

  it('a NULL primary key is a not-null violation; serial values drawn by failed inserts are lost', () => {
    const db = setup('s1');
    expect(q(db, 's1', { op: 'insert', table: 'items', values: { id: null, stock: 1 } })).toBe(
      'ERROR 23502 null value in column "id" of relation "items" violates not-null constraint (Failing row contains (null, 1).)',
    );
    db.execute('s1', insertInvoice(42));
    db.execute('s1', insertInvoice(42));
    expect(q(db, 's1', insertInvoice(43))).toBe('INSERT 0 1 → id=3');
  });
});

describe('a unique check waits on every version an open transaction wrote (fidelity seed 1475034870, issue 16)', () => {
  // PostgreSQL's _bt_check_unique meets one index entry per row version and, through
  // HeapTupleSatisfiesDirty, waits for a version's inserting transaction while it is in progress,
  // whatever that transaction did to the version afterwards. Checked on PostgreSQL 15.
  const dup = (k: number): string => `ERROR 23505 duplicate key value violates unique constraint "invoices_order_id_key" (Key (order_id)=(${k}) already exists.)`;
  const waitsOn = (k: number): string => `waits (transaction of session s2 (uncommitted invoices row order_id=${k}))`;
  const setOrder = (from: number, to: number): Stmt => ({ op: 'update', table: 'invoices', set: { order_id: to }, where: { order_id: from } });
  const del = (k: number): Stmt => ({ op: 'delete', table: 'invoices', where: { order_id: k } });
  const end = (e: 'COMMIT' | 'ROLLBACK'): Stmt => (e === 'COMMIT' ? COMMIT : ROLLBACK);

  it.each(['COMMIT', 'ROLLBACK'] as const)('inserted then deleted: an insert of the key waits, then succeeds after %s', (e) => {
    const db = setup('s1', 's2');
    expect(texts(db, [['s2', BEGIN], ['s2', insertInvoice(2)], ['s2', del(2)], ['s1', BEGIN]])).toEqual(['BEGIN', 'INSERT 0 1 → id=1', 'DELETE 1', 'BEGIN']);
    expect(q(db, 's1', insertInvoice(2))).toBe(waitsOn(2));
    // A wait on s2's transaction id: s1 asks for ShareLock on it, s2 holds it exclusively.
    expect(db.locks().filter((l) => l.locktype === 'transactionid')).toEqual([
      { locktype: 'transactionid', objectDescription: 'invoices row order_id=2', sessionId: 's2', mode: 'ExclusiveLock', granted: true },
      { locktype: 'transactionid', objectDescription: 'invoices row order_id=2', sessionId: 's1', mode: 'ShareLock', granted: false },
    ]);
    expect(db.sessionState('s1').waiting).toEqual({ stmt: insertInvoice(2), on: 'transaction of session s2 (uncommitted invoices row order_id=2)', waitId: expect.any(Number) as number, blockerSession: 's2' });
    expect(wokenBy(db.execute('s2', end(e)))).toEqual([['s1', 'INSERT 0 1 → id=2']]);
    expect(q(db, 's1', COMMIT)).toBe('COMMIT');
    expect(db.committedRows('invoices')).toEqual([{ id: 2, order_id: 2, amount: 100 }]);
  });

  it.each([
    ['COMMIT', dup(3)],
    ['ROLLBACK', 'INSERT 0 1 → id=3'],
  ] as const)('inserted then its key updated: both the old and the new key wait; after %s the new key gives %s', (e, newKey) => {
    const db = setup('s1', 's2', 's3');
    expect(texts(db, [['s2', BEGIN], ['s2', insertInvoice(2)], ['s2', setOrder(2, 3)]])).toEqual(['BEGIN', 'INSERT 0 1 → id=1', 'UPDATE 1']);
    expect(q(db, 's1', insertInvoice(2))).toBe(waitsOn(2));
    expect(q(db, 's3', insertInvoice(3))).toBe(waitsOn(3));
    expect(wokenBy(db.execute('s2', end(e)))).toEqual([['s1', 'INSERT 0 1 → id=2'], ['s3', newKey]]);
  });

  it.each(['COMMIT', 'ROLLBACK'] as const)('a committed key updated away and back: both keys wait; after %s the key it left is free, its own is taken', (e) => {
    const db = setup('s0', 's1', 's2', 's3');
    db.execute('s0', insertInvoice(1));
    expect(texts(db, [['s2', BEGIN], ['s2', setOrder(1, 2)], ['s2', setOrder(2, 1)]])).toEqual(['BEGIN', 'UPDATE 1', 'UPDATE 1']);
    expect(q(db, 's1', insertInvoice(2))).toBe(waitsOn(2));
    expect(q(db, 's3', insertInvoice(1))).toBe(waitsOn(1));
    expect(wokenBy(db.execute('s2', end(e)))).toEqual([['s1', 'INSERT 0 1 → id=2'], ['s3', dup(1)]]);
  });

  it('a key a committed row passed through (a → b → c) still waits', () => {
    const db = setup('s0', 's1', 's2');
    db.execute('s0', insertInvoice(1));
    texts(db, [['s2', BEGIN], ['s2', setOrder(1, 2)], ['s2', setOrder(2, 3)]]);
    expect(q(db, 's1', insertInvoice(2))).toBe(waitsOn(2));
    expect(q(db, 's0', insertInvoice(4))).toBe('INSERT 0 1 → id=3');
    expect(wokenBy(db.execute('s2', ROLLBACK))).toEqual([['s1', 'INSERT 0 1 → id=2']]);
  });

  it('ON CONFLICT DO NOTHING waits the same way, then inserts or skips', () => {
    const db = setup('s0', 's1', 's2');
    db.execute('s0', insertInvoice(1));
    texts(db, [['s2', BEGIN], ['s2', insertInvoice(5)], ['s2', del(5)]]);
    expect(q(db, 's1', insertInvoice(5, { onConflictDoNothing: true }))).toBe(waitsOn(5));
    expect(wokenBy(db.execute('s2', COMMIT))).toEqual([['s1', 'INSERT 0 1 → id=3']]);
    texts(db, [['s2', BEGIN], ['s2', setOrder(1, 6)], ['s2', setOrder(6, 1)]]);
    expect(q(db, 's1', insertInvoice(1, { onConflictDoNothing: true }))).toBe(waitsOn(1));
    expect(wokenBy(db.execute('s2', COMMIT))).toEqual([['s1', 'INSERT 0 0']]);
  });

  it.each(['COMMIT', 'ROLLBACK'] as const)('an UPDATE onto a key inserted and deleted by an open transaction waits, then updates after %s', (e) => {
    const db = setup('s0', 's1', 's2');
    db.execute('s0', insertInvoice(1));
    texts(db, [['s2', BEGIN], ['s2', insertInvoice(2)], ['s2', del(2)], ['s1', BEGIN]]);
    expect(q(db, 's1', setOrder(1, 2))).toBe(waitsOn(2));
    expect(db.sessionState('s1').rowLocks).toEqual(['invoices row id=1']);
    expect(wokenBy(db.execute('s2', end(e)))).toEqual([['s1', 'UPDATE 1']]);
    expect(q(db, 's1', COMMIT)).toBe('COMMIT');
    expect(db.committedRows('invoices')).toEqual([{ id: 1, order_id: 2, amount: 100 }]);
  });

  it('a key inserted, deleted and inserted again by the open transaction: the waiter gets 23505 after COMMIT', () => {
    const db = setup('s1', 's2');
    texts(db, [['s2', BEGIN], ['s2', insertInvoice(2)], ['s2', del(2)]]);
    expect(q(db, 's2', insertInvoice(2))).toBe('INSERT 0 1 → id=2');
    expect(q(db, 's1', insertInvoice(2))).toBe(waitsOn(2));
    expect(wokenBy(db.execute('s2', COMMIT))).toEqual([['s1', dup(2)]]);
  });

  it.each([
    ['COMMIT', [['s1', dup(2)], ['s3', dup(1)]], [], [{ id: 1, order_id: 1, amount: 100 }, { id: 2, order_id: 2, amount: 100 }]],
    ['ROLLBACK', [['s1', 'UPDATE 1']], [['s3', 'INSERT 0 1 → id=3']], [{ id: 1, order_id: 2, amount: 100 }, { id: 3, order_id: 1, amount: 100 }]],
  ] as const)('while a key-changing UPDATE waits, its old key waits for the updater (s2 %s)', (e, afterEnd, afterUpdaterCommit, rows) => {
    // PostgreSQL writes the new version before it waits, so the old one has the updater as xmax.
    const db = setup('s0', 's1', 's2', 's3', 's4');
    db.execute('s0', insertInvoice(1));
    texts(db, [['s2', BEGIN], ['s2', insertInvoice(2)], ['s1', BEGIN]]);
    expect(q(db, 's1', setOrder(1, 2))).toBe(waitsOn(2));
    expect(q(db, 's3', insertInvoice(1))).toBe('waits (transaction of session s1 (uncommitted invoices row order_id=1))');
    expect(q(db, 's4', select('invoices', { order_id: 1 }, { lock: 'forUpdateNowait' }))).toBe('ERROR 55P03 could not obtain lock on row in relation "invoices"');
    expect(db.visibleRows('s1', 'invoices')).toEqual([{ id: 1, order_id: 1, amount: 100 }]);
    expect(wokenBy(db.execute('s2', end(e)))).toEqual(afterEnd);
    expect(wokenBy(db.execute('s1', COMMIT))).toEqual(afterUpdaterCommit);
    expect(db.committedRows('invoices')).toEqual(rows);
  });

  it('the own transaction\'s deleted or updated-away versions never conflict', () => {
    const db = setup('s0', 's1');
    db.execute('s0', insertInvoice(1));
    expect(texts(db, [
      ['s1', BEGIN], ['s1', insertInvoice(2)], ['s1', del(2)], ['s1', insertInvoice(2)],
      ['s1', setOrder(2, 3)], ['s1', insertInvoice(2)], ['s1', setOrder(1, 4)], ['s1', insertInvoice(1)], ['s1', COMMIT],
    ])).toEqual(['BEGIN', 'INSERT 0 1 → id=2', 'DELETE 1', 'INSERT 0 1 → id=3', 'UPDATE 1', 'INSERT 0 1 → id=4', 'UPDATE 1', 'INSERT 0 1 → id=5', 'COMMIT']);
  });

  it('the row an open transaction inserted and deleted keeps its label and goes at the transaction\'s end', () => {
    const db = setup('s1', 's2');
    texts(db, [['s2', BEGIN], ['s2', insertInvoice(2)], ['s2', del(2)]]);
    expect(db.sessionState('s2').rowLocks).toEqual(['invoices row id=1']);
    expect(db.visibleRows('s2', 'invoices')).toEqual([]);
    db.execute('s2', COMMIT);
    expect(db.sessionState('s2').rowLocks).toEqual([]);
    expect(q(db, 's1', insertInvoice(2))).toBe('INSERT 0 1 → id=2');
  });

  it('a snapshot keeps the superseded versions: the restored database still waits on them', () => {
    const db = setup('s1', 's2');
    texts(db, [['s2', BEGIN], ['s2', insertInvoice(2)], ['s2', setOrder(2, 3)]]);
    const restored = Database.fromSnapshot(db.snapshot());
    expect(q(restored, 's1', insertInvoice(2))).toBe(waitsOn(2));
    expect(wokenBy(restored.execute('s2', ROLLBACK))).toEqual([['s1', 'INSERT 0 1 → id=2']]);
  });
});

describe('row locks (SELECT "The Locking Clause")', () => {
  it('FOR UPDATE waits for the writer, then re-reads the row', () => {
    const db = setup('s1', 's2');
    texts(db, [['s1', BEGIN], ['s1', decrementStock]]);
    expect(q(db, 's2', select('items', { id: 7 }, { columns: ['stock'], lock: 'forUpdate' }))).toBe('waits (row lock on items row id=7 held by session s1)');
    expect(wokenBy(db.execute('s1', COMMIT))).toEqual([['s2', 'SELECT 1 → stock=0']]);
  });

  it('after the wait the WHERE is re-checked: a changed or deleted row drops out', () => {
    const db = setup('s1', 's2', 's3');
    texts(db, [['s1', BEGIN], ['s1', decrementStock], ['s2', select('items', { id: 7, stock: 1 }, { lock: 'forUpdate' })]]);
    texts(db, [['s3', BEGIN], ['s3', { op: 'delete', table: 'jobs', where: { id: 1 } }], ['s1', select('jobs', { id: 1 }, { lock: 'forUpdate' })]]);
    expect(wokenBy(db.execute('s3', COMMIT))).toEqual([['s1', 'SELECT 0']]);
    expect(wokenBy(db.execute('s1', COMMIT))).toEqual([['s2', 'SELECT 0']]);
  });

  it('rows inserted after the statement started are not seen, even after it waited', () => {
    const db = setup('s1', 's2', 's3');
    texts(db, [['s1', BEGIN], ['s1', { op: 'update', table: 'jobs', set: { status: 'pending' }, where: { id: 1 } }]]);
    expect(q(db, 's2', select('jobs', { status: 'pending' }, { columns: ['id'], lock: 'forUpdate' }))).toMatch(/^waits/);
    db.execute('s3', { op: 'insert', table: 'jobs', values: { status: 'pending' } });
    expect(wokenBy(db.execute('s1', COMMIT))).toEqual([['s2', 'SELECT 3 → id=1 | id=2 | id=3']]);
  });

  it('NOWAIT fails at once with 55P03', () => {
    const db = setup('s1', 's2');
    texts(db, [['s1', BEGIN], ['s1', select('items', { id: 7 }, { lock: 'forUpdate' })]]);
    expect(db.execute('s2', select('items', { id: 7 }, { lock: 'forUpdateNowait' })).reply).toEqual({
      status: 'error',
      error: { code: '55P03', message: 'could not obtain lock on row in relation "items"' },
    });
  });

  it('SKIP LOCKED silently omits rows it cannot lock now (also rows being deleted)', () => {
    const db = setup('s1', 's2');
    texts(db, [['s1', BEGIN], ['s1', select('jobs', { id: 1 }, { lock: 'forUpdate' })], ['s1', { op: 'delete', table: 'jobs', where: { id: 3 } }]]);
    expect(q(db, 's2', select('jobs', { status: 'pending' }, { columns: ['id'], lock: 'forUpdateSkipLocked' }))).toBe('SELECT 1 → id=2');
    expect(q(db, 's2', select('jobs', { status: 'pending' }, { columns: ['id'] }))).toBe('SELECT 3 → id=1 | id=2 | id=3');
  });

  it('UPDATE and DELETE wait for each other in FIFO order', () => {
    const db = setup('s1', 's2', 's3');
    texts(db, [['s1', BEGIN], ['s1', select('items', { id: 7 }, { lock: 'forUpdate' })], ['s2', { op: 'update', table: 'items', set: { stock: 0 }, where: { id: 7 } }], ['s3', { op: 'delete', table: 'items', where: { id: 7 } }]]);
    expect(db.locks()).toEqual([
      { locktype: 'tuple', objectDescription: 'items row id=7', sessionId: 's1', mode: 'ExclusiveLock', granted: true },
      { locktype: 'tuple', objectDescription: 'items row id=7', sessionId: 's2', mode: 'ExclusiveLock', granted: false },
      { locktype: 'tuple', objectDescription: 'items row id=7', sessionId: 's3', mode: 'ExclusiveLock', granted: false },
    ]);
    expect(wokenBy(db.execute('s1', COMMIT))).toEqual([
      ['s2', 'UPDATE 1'],
      ['s3', 'DELETE 1'],
    ]);
    expect(db.committedRows('items')).toEqual([]);
  });

  it('lost update: two read-modify-write transactions with a literal SET', () => {
    const db = setup('s1', 's2');
    const read = select('accounts', { id: 1 }, { columns: ['balance'] });
    expect(texts(db, [['s1', BEGIN], ['s1', read], ['s2', BEGIN], ['s2', read]])).toEqual(['BEGIN', 'SELECT 1 → balance=100', 'BEGIN', 'SELECT 1 → balance=100']);
    db.execute('s1', { op: 'update', table: 'accounts', set: { balance: 70 }, where: { id: 1 } });
    expect(q(db, 's2', { op: 'update', table: 'accounts', set: { balance: 80 }, where: { id: 1 } })).toMatch(/^waits/);
    expect(wokenBy(db.execute('s1', COMMIT))).toEqual([['s2', 'UPDATE 1']]);
    db.execute('s2', COMMIT);
    expect(db.committedRows('accounts')).toEqual([{ id: 1, balance: 80 }]);
  });

  it('an UPDATE with balance = balance - x applies to the value committed while it waited', () => {
    const db = setup('s1', 's2');
    texts(db, [['s1', BEGIN], ['s1', { op: 'update', table: 'accounts', set: { balance: { column: 'balance', add: -30 } }, where: { id: 1 } }]]);
    db.execute('s2', { op: 'update', table: 'accounts', set: { balance: { column: 'balance', add: -20 } }, where: { id: 1 }, returning: ['balance'] });
    expect(wokenBy(db.execute('s1', COMMIT))).toEqual([['s2', 'UPDATE 1 → balance=50']]);
  });

  it('CHECK fails after the wait: stock = stock - 1 on the re-read row gives 23514', () => {
    const db = setup('s1', 's2');
    texts(db, [['s1', BEGIN], ['s1', decrementStock]]);
    expect(q(db, 's2', decrementStock)).toBe('waits (row lock on items row id=7 held by session s1)');
    const done = db.execute('s1', COMMIT).completions;
    expect(done[0]?.reply).toEqual({
      status: 'error',
      error: { code: '23514', message: 'new row for relation "items" violates check constraint "items_stock_check"', detail: 'Failing row contains (7, -1).' },
    });
    expect(db.committedRows('items')).toEqual([{ id: 7, stock: 0 }]);
  });

  it('CHECK is evaluated on the version read before waiting, so it can fail without waiting', () => {
    const db = setup('s0', 's1', 's2');
    db.execute('s0', decrementStock);
    texts(db, [['s1', BEGIN], ['s1', { op: 'update', table: 'items', set: { stock: 5 }, where: { id: 7 } }]]);
    expect(q(db, 's2', decrementStock)).toBe('ERROR 23514 new row for relation "items" violates check constraint "items_stock_check" (Failing row contains (7, -1).)');
  });
});

describe('views and snapshots', () => {
  it('locks() lists advisory, tuple and transaction-id lines, deterministically ordered', () => {
    const db = setup('a', 'b', 'c');
    texts(db, [
      ['b', adv('pg_advisory_lock', [1, 2])],
      ['a', BEGIN],
      ['a', adv('pg_advisory_xact_lock_shared', 10)],
      ['a', adv('pg_advisory_lock', 10)],
      ['c', adv('pg_advisory_lock', 10)],
      ['a', insertInvoice(42)],
      ['b', insertInvoice(42)],
      ['a', decrementStock],
    ]);
    expect(db.locks()).toEqual([
      { locktype: 'advisory', objectDescription: 'advisory 10', sessionId: 'a', mode: 'ExclusiveLock', granted: true, scope: 'session', count: 1 },
      { locktype: 'advisory', objectDescription: 'advisory 10', sessionId: 'a', mode: 'ShareLock', granted: true, scope: 'transaction', count: 1 },
      { locktype: 'advisory', objectDescription: 'advisory 10', sessionId: 'c', mode: 'ExclusiveLock', granted: false, scope: 'session' },
      { locktype: 'advisory', objectDescription: 'advisory (1,2)', sessionId: 'b', mode: 'ExclusiveLock', granted: true, scope: 'session', count: 1 },
      { locktype: 'tuple', objectDescription: 'invoices row id=1', sessionId: 'a', mode: 'ExclusiveLock', granted: true },
      { locktype: 'tuple', objectDescription: 'items row id=7', sessionId: 'a', mode: 'ExclusiveLock', granted: true },
      { locktype: 'transactionid', objectDescription: 'invoices row order_id=42', sessionId: 'a', mode: 'ExclusiveLock', granted: true },
      { locktype: 'transactionid', objectDescription: 'invoices row order_id=42', sessionId: 'b', mode: 'ShareLock', granted: false },
    ]);
    expect(db.sessionState('a')).toEqual({
      sessionId: 'a',
      inTransaction: true,
      aborted: false,
      waiting: null,
      advisoryLocks: [
        { key: '10', advisoryKey: { kind: 'bigint', key: 10 }, description: 'advisory 10', mode: 'ExclusiveLock', sessionCount: 1, xactCount: 0 },
        { key: '10', advisoryKey: { kind: 'bigint', key: 10 }, description: 'advisory 10', mode: 'ShareLock', sessionCount: 0, xactCount: 1 },
      ],
      rowLocks: ['invoices row id=1', 'items row id=7'],
    });
    expect(db.sessionState('c').waiting).toEqual({ stmt: adv('pg_advisory_lock', 10), on: 'advisory lock 10 held by session a', waitId: expect.any(Number) as number, blockerSession: 'a' });
  });

  it('snapshot is JSON data; fromSnapshot continues exactly like the original and stays independent', () => {
    const db = setup('s1', 's2', 's3');
    texts(db, [['s1', BEGIN], ['s1', insertInvoice(42)], ['s1', decrementStock], ['s2', insertInvoice(42)], ['s3', decrementStock], ['s1', adv('pg_advisory_lock', 1)]]);
    const snap = db.snapshot();
    expect(JSON.parse(JSON.stringify(snap))).toEqual(snap);
    const copy = Database.fromSnapshot(snap);
    expect(copy.locks()).toEqual(db.locks());
    const a = db.execute('s1', COMMIT);
    expect(db.snapshot()).not.toEqual(snap);
    snap.sessions = [];
    const b = copy.execute('s1', COMMIT);
    expect(b).toEqual(a);
    expect(wokenBy(b)).toEqual([
      ['s2', 'ERROR 23505 duplicate key value violates unique constraint "invoices_order_id_key" (Key (order_id)=(42) already exists.)'],
      ['s3', 'ERROR 23514 new row for relation "items" violates check constraint "items_stock_check" (Failing row contains (7, -1).)'],
    ]);
    expect(copy.snapshot()).toEqual(db.snapshot());
  });
});

describe('programming errors throw', () => {
  it.each<[string, (db: Database) => unknown, RegExp]>([
    ['unknown session', (db) => db.execute('nobody', BEGIN), /unknown session nobody/],
    ['duplicate session', (db) => db.openSession('s1'), /already exists/],
    ['unknown table', (db) => db.execute('s1', select('nope', {})), /unknown table nope/],
    ['unknown column', (db) => db.execute('s1', select('items', { colour: 'red' })), /no column colour/],
    ['unknown RETURNING column', (db) => db.execute('s1', insertInvoice(1, { returning: ['nope'] })), /no column nope/],
    ['value of the wrong type', (db) => db.execute('s1', { op: 'insert', table: 'items', values: { id: 'seven' } }), /does not fit/],
    ['int4 pair out of range', (db) => db.execute('s1', adv('pg_advisory_lock', [2 ** 31, 0])), /out of range/],
    ['unknown table in committedRows', (db) => db.committedRows('nope'), /unknown table/],
    ['bigint key not a safe integer', (db) => db.execute('s1', adv('pg_advisory_lock', 2 ** 53)), /advisory key \{"kind":"bigint","key":9007199254740992\} is out of range/],
    ['int4 pair below range', (db) => db.execute('s1', adv('pg_advisory_lock', [0, -(2 ** 31) - 1])), /out of range/],
    ['text in a bigint column of WHERE', (db) => db.execute('s1', select('items', { id: 'seven' })), /value "seven" does not fit column items\.id \(bigint\)/],
    ['number in a text column', (db) => db.execute('s1', { op: 'insert', table: 'jobs', values: { status: 1 } }), /value 1 does not fit column jobs\.status \(text\)/],
    ['unknown SELECT column', (db) => db.execute('s1', select('items', {}, { columns: ['colour'] })), /table items has no column colour/],
    ['unknown UPDATE column', (db) => db.execute('s1', { op: 'update', table: 'items', set: { colour: 1 }, where: { id: 7 } }), /table items has no column colour/],
    ['unknown column in UPDATE … WHERE', (db) => db.execute('s1', { op: 'update', table: 'items', set: { stock: 1 }, where: { colour: 1 } }), /no column colour/],
    ['unknown UPDATE RETURNING column', (db) => db.execute('s1', { ...decrementStock, returning: ['colour'] } as Stmt), /no column colour/],
    ['SET col = col + n on a text column', (db) => db.execute('s1', { op: 'update', table: 'jobs', set: { status: { column: 'status', add: 1 } }, where: { id: 1 } }), /SET status = status \+ 1 needs bigint columns/],
    ['SET col = other + n from a text column', (db) => db.execute('s1', { op: 'update', table: 'jobs', set: { id: { column: 'status', add: 1 } }, where: { id: 1 } }), /SET id = status \+ 1 needs bigint columns/],
    ['SET col = col + a fraction', (db) => db.execute('s1', { op: 'update', table: 'items', set: { stock: { column: 'stock', add: 0.5 } }, where: { id: 7 } }), /needs bigint columns/],
    ['SET col = unknown + n', (db) => db.execute('s1', { op: 'update', table: 'items', set: { stock: { column: 'colour', add: 1 } }, where: { id: 7 } }), /no column colour/],
  ])('%s', (_name, act, message) => {
    expect(() => act(setup('s1'))).toThrow(message);
  });

  it('accepts the edges of every range: int4 pair ends, the largest safe bigint key, NULL in any column', () => {
    const db = setup('s1');
    expect(q(db, 's1', adv('pg_advisory_lock', [2 ** 31 - 1, -(2 ** 31)]))).toBe('(void)');
    expect(q(db, 's1', adv('pg_advisory_lock', 2 ** 53 - 1))).toBe('(void)');
    expect(q(db, 's1', adv('pg_advisory_lock', -(2 ** 53 - 1)))).toBe('(void)');
    expect(q(db, 's1', { op: 'insert', table: 'daily_invoices', values: { account_id: null, period: null } })).toBe('INSERT 0 1');
  });

  it('a session that already waits cannot run another statement', () => {
    const db = setup('s1', 's2');
    db.execute('s1', adv('pg_advisory_lock', 1));
    db.execute('s2', adv('pg_advisory_lock', 1));
    expect(() => db.execute('s2', COMMIT)).toThrow(/already has a waiting statement/);
  });

  it('a table spec with an invalid initial row is rejected', () => {
    expect(() => new Database([{ ...items, initialRows: [{ id: 1, stock: -1 }] }])).toThrow(/items_stock_check/);
    expect(() => new Database([items, items])).toThrow(/duplicate table/);
  });
});

describe('scan order follows physical row order (found by the fidelity suite, seed 747020795)', () => {
  it('a full-table FOR UPDATE visits an updated row last, so it locks row 8 before waiting on row 7', () => {
    const db = new Database([{ ...items, checks: [], initialRows: [{ id: 7, stock: 1 }, { id: 8, stock: 1 }] }]);
    for (const s of ['s1', 's2', 's3']) db.openSession(s);
    const inc7: Stmt = { op: 'update', table: 'items', set: { stock: { column: 'stock', add: 1 } }, where: { id: 7 } };
    expect(q(db, 's1', inc7)).toBe('UPDATE 1'); // autocommit: row 7's new version now sits after row 8
    q(db, 's2', BEGIN);
    expect(q(db, 's2', inc7)).toBe('UPDATE 1');
    q(db, 's3', BEGIN);
    expect(q(db, 's3', { op: 'select', table: 'items', columns: ['id'], where: {}, lock: 'forUpdate' })).toMatch(/^waits/);
    // s3 already holds row 8, so s1's update of row 8 waits, as on PostgreSQL 15.
    expect(q(db, 's1', { op: 'update', table: 'items', set: { stock: 0 }, where: { id: 8 } })).toMatch(/^waits/);
  });

  it('a plain SELECT returns rows in physical order too', () => {
    const db = new Database([{ ...items, checks: [], initialRows: [{ id: 7, stock: 1 }, { id: 8, stock: 1 }] }]);
    db.openSession('s1');
    q(db, 's1', { op: 'update', table: 'items', set: { stock: 5 }, where: { id: 7 } });
    expect(db.execute('s1', { op: 'select', table: 'items', columns: ['id'], where: {} }).reply).toMatchObject({ rows: [{ id: 8 }, { id: 7 }] });
  });
});

describe('locks(): the pg_locks view of advisory locks', () => {
  it('lists bigint keys first then pairs, numerically; holds by session, scope and mode; then waiters', () => {
    const db = setup('s1', 's2', 's3');
    const steps: [string, Stmt][] = [
      ['s2', adv('pg_advisory_lock', 5)],
      ['s1', adv('pg_advisory_lock', 1)],
      ['s1', adv('pg_advisory_lock', [2, 1])],
      ['s1', adv('pg_advisory_lock', [1, 9])],
      ['s2', adv('pg_advisory_lock_shared', [1, 3])],
      ['s1', adv('pg_advisory_lock_shared', [1, 3])],
      ['s1', BEGIN],
      ['s1', adv('pg_advisory_xact_lock_shared', [1, 3])],
      ['s1', adv('pg_advisory_lock', 5)],
      ['s3', adv('pg_try_advisory_lock', 5)],
    ];
    expect(texts(db, steps)).toEqual(['(void)', '(void)', '(void)', '(void)', '(void)', '(void)', 'BEGIN', '(void)', 'waits (advisory lock 5 held by session s2)', 'f']);
    const row = (objectDescription: string, sessionId: string, mode: string, scope: string, count?: number) =>
      ({ locktype: 'advisory', objectDescription, sessionId, mode, granted: count !== undefined, scope, ...(count !== undefined ? { count } : {}) });
    expect(db.locks()).toEqual([
      row('advisory 1', 's1', 'ExclusiveLock', 'session', 1),
      row('advisory 5', 's2', 'ExclusiveLock', 'session', 1),
      row('advisory 5', 's1', 'ExclusiveLock', 'session'),
      row('advisory (1,3)', 's1', 'ShareLock', 'session', 1),
      row('advisory (1,3)', 's1', 'ShareLock', 'transaction', 1),
      row('advisory (1,3)', 's2', 'ShareLock', 'session', 1),
      row('advisory (1,9)', 's1', 'ExclusiveLock', 'session', 1),
      row('advisory (2,1)', 's1', 'ExclusiveLock', 'session', 1),
    ]);
  });
});

describe('edges', () => {
  it('a failing row shows NULL as null in the detail (NOT NULL is checked before CHECK, as PostgreSQL does)', () => {
    const db = setup('s1');
    expect(q(db, 's1', { op: 'insert', table: 'items', values: { stock: -1 } })).toBe(
      'ERROR 23502 null value in column "id" of relation "items" violates not-null constraint (Failing row contains (null, -1).)',
    );
  });

  it('restores only version-2 snapshots', () => {
    const snap = setup('s1').snapshot();
    expect(Database.fromSnapshot(snap).snapshot()).toEqual(snap);
    expect(() => Database.fromSnapshot({ ...snap, version: 1 } as unknown as typeof snap)).toThrow('unsupported database snapshot version 1');
  });
});

describe('unique keys with NULL', () => {
  it('rows whose key has a NULL never conflict (NULLs are distinct), committed or not', () => {
    const db = setup('s1', 's2');
    const ins = (accountId: number | null, period: string | null): Stmt => ({ op: 'insert', table: 'daily_invoices', values: { account_id: accountId, period } });
    expect(texts(db, [['s1', BEGIN], ['s1', ins(7, null)], ['s2', ins(7, null)], ['s2', ins(null, '2026-11')], ['s1', COMMIT], ['s1', ins(7, null)]])).toEqual([
      'BEGIN', 'INSERT 0 1', 'INSERT 0 1', 'INSERT 0 1', 'COMMIT', 'INSERT 0 1',
    ]);
    expect(db.committedRows('daily_invoices')).toHaveLength(4);
    expect(q(db, 's2', ins(7, '2026-11'))).toBe('INSERT 0 1');
    expect(q(db, 's2', ins(7, '2026-11'))).toBe('ERROR 23505 duplicate key value violates unique constraint "daily_invoices_account_id_period_key" (Key (account_id, period)=(7, 2026-11) already exists.)');
  });
});
