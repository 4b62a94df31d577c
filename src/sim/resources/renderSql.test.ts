// Tests for the text forms of database traffic. Every SQL string below was also run through
// PostgreSQL 15 (psql) to make sure it parses and means what the model executes.
import { quoteIdent, renderCreateTable, renderLiteral, renderReply, renderSql, renderTableSetup } from './renderSql';
import type { DbReply, Row, Stmt, TableSpec } from './sqlTypes';

describe('renderSql', () => {
  const cases: [Stmt, string][] = [
    [{ op: 'advisory', fn: 'pg_advisory_xact_lock', key: { kind: 'bigint', key: 42 } }, 'SELECT pg_advisory_xact_lock(42)'],
    [{ op: 'advisory', fn: 'pg_try_advisory_lock', key: { kind: 'pair', key1: 1, key2: 2 } }, 'SELECT pg_try_advisory_lock(1, 2)'],
    [{ op: 'advisory', fn: 'pg_advisory_unlock_shared', key: { kind: 'bigint', key: -5 } }, 'SELECT pg_advisory_unlock_shared(-5)'],
    [{ op: 'advisoryUnlockAll' }, 'SELECT pg_advisory_unlock_all()'],
    [{ op: 'begin' }, 'BEGIN'],
    [{ op: 'commit' }, 'COMMIT'],
    [{ op: 'rollback' }, 'ROLLBACK'],
    [{ op: 'select', table: 'invoices', columns: ['id', 'amount'], where: { order_id: 42 } }, 'SELECT id, amount FROM invoices WHERE order_id = 42'],
    [{ op: 'select', table: 'invoices', where: { order_id: 42 } }, 'SELECT * FROM invoices WHERE order_id = 42'],
    [{ op: 'select', table: 'invoices', columns: [], where: {} }, 'SELECT * FROM invoices'],
    [{ op: 'select', table: 'items', columns: ['stock'], where: { id: 7 }, lock: 'forUpdate' }, 'SELECT stock FROM items WHERE id = 7 FOR UPDATE'],
    [{ op: 'select', table: 'items', columns: ['stock'], where: { id: 7 }, lock: 'forUpdateNowait' }, 'SELECT stock FROM items WHERE id = 7 FOR UPDATE NOWAIT'],
    [{ op: 'select', table: 'jobs', where: { status: 'pending' }, lock: 'forUpdateSkipLocked' }, "SELECT * FROM jobs WHERE status = 'pending' FOR UPDATE SKIP LOCKED"],
    [{ op: 'select', table: 'daily_invoices', where: { account_id: 7, period: '2026-11' } }, "SELECT * FROM daily_invoices WHERE account_id = 7 AND period = '2026-11'"],
    [{ op: 'select', table: 'jobs', where: { status: null } }, 'SELECT * FROM jobs WHERE status IS NULL'],
    [
      { op: 'insert', table: 'invoices', values: { order_id: 42, amount: 100 }, onConflictDoNothing: true, returning: ['id'] },
      'INSERT INTO invoices (order_id, amount) VALUES (42, 100) ON CONFLICT DO NOTHING RETURNING id',
    ],
    [{ op: 'insert', table: 'invoices', values: { order_id: 42, amount: 100 } }, 'INSERT INTO invoices (order_id, amount) VALUES (42, 100)'],
    [{ op: 'insert', table: 'notes', values: { body: "it's", author: null } }, "INSERT INTO notes (body, author) VALUES ('it''s', NULL)"],
    [{ op: 'insert', table: 'jobs', values: {}, returning: ['id'] }, 'INSERT INTO jobs DEFAULT VALUES RETURNING id'],
    [{ op: 'update', table: 'items', set: { stock: { column: 'stock', add: -1 } }, where: { id: 7 } }, 'UPDATE items SET stock = stock - 1 WHERE id = 7'],
    [{ op: 'update', table: 'items', set: { stock: { column: 'stock', add: 3 } }, where: { id: 7 }, returning: ['stock'] }, 'UPDATE items SET stock = stock + 3 WHERE id = 7 RETURNING stock'],
    [{ op: 'update', table: 'accounts', set: { balance: 70 }, where: { id: 1 } }, 'UPDATE accounts SET balance = 70 WHERE id = 1'],
    [{ op: 'update', table: 'jobs', set: { status: 'done', worker: 'w1' }, where: { id: 3 } }, "UPDATE jobs SET status = 'done', worker = 'w1' WHERE id = 3"],
    [{ op: 'delete', table: 'jobs', where: { id: 3 } }, 'DELETE FROM jobs WHERE id = 3'],
    [{ op: 'select', table: 'order', columns: ['user', 'Total'], where: { group: 1 } }, 'SELECT "user", "Total" FROM "order" WHERE "group" = 1'],
  ];
  it.each(cases)('%j → %s', (stmt, sql) => {
    expect(renderSql(stmt)).toBe(sql);
  });
});

describe('identifiers and literals', () => {
  it.each([
    ['invoices', 'invoices'],
    ['order_id', 'order_id'],
    ['order', '"order"'],
    ['Amount', '"Amount"'],
    ['two words', '"two words"'],
    ['a"b', '"a""b"'],
  ])('quoteIdent(%s) = %s', (name, sql) => {
    expect(quoteIdent(name)).toBe(sql);
  });

  it.each([
    [42, '42'],
    [-1, '-1'],
    ['2026-11', "'2026-11'"],
    ["O'Brien", "'O''Brien'"],
    [null, 'NULL'],
  ] as const)('renderLiteral(%j) = %s', (value, sql) => {
    expect(renderLiteral(value)).toBe(sql);
  });
});

describe('renderCreateTable / renderTableSetup', () => {
  const invoices: TableSpec = {
    name: 'invoices',
    columns: [
      { name: 'id', type: 'bigint', serial: true },
      { name: 'order_id', type: 'bigint' },
      { name: 'amount', type: 'bigint' },
      { name: 'note', type: 'text' },
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
  };

  it('names every constraint as the spec does', () => {
    expect(renderCreateTable(invoices)).toBe(
      'CREATE TABLE invoices (id bigserial, order_id bigint, amount bigint, note text, CONSTRAINT invoices_pkey PRIMARY KEY (id), CONSTRAINT invoices_order_id_key UNIQUE (order_id))',
    );
    expect(renderCreateTable(items)).toBe('CREATE TABLE items (id bigint, stock bigint, CONSTRAINT items_pkey PRIMARY KEY (id), CONSTRAINT items_stock_check CHECK (stock >= 0))');
    expect(
      renderCreateTable({
        name: 'daily_invoices',
        columns: [
          { name: 'account_id', type: 'bigint' },
          { name: 'period', type: 'text' },
        ],
        unique: [{ name: 'daily_invoices_account_id_period_key', columns: ['account_id', 'period'] }],
      }),
    ).toBe('CREATE TABLE daily_invoices (account_id bigint, period text, CONSTRAINT daily_invoices_account_id_period_key UNIQUE (account_id, period))');
  });

  it('sets a server up with the initial rows and moves each sequence past them', () => {
    expect(renderTableSetup({ ...invoices, initialRows: [{ order_id: 1, amount: 5 }, { id: 10, order_id: 2, amount: 7, note: 'x' }] })).toEqual([
      renderCreateTable(invoices),
      'INSERT INTO invoices (id, order_id, amount, note) VALUES (1, 1, 5, NULL)',
      "INSERT INTO invoices (id, order_id, amount, note) VALUES (10, 2, 7, 'x')",
      "SELECT setval(pg_get_serial_sequence('invoices', 'id'), 10)",
    ]);
    expect(renderTableSetup(items)).toEqual([renderCreateTable(items)]);
  });
});

describe('renderReply', () => {
  const cases: [string, DbReply, string][] = [
    ['void function', { status: 'ok', tag: 'SELECT 1', rows: [{ pg_advisory_lock: '' }] }, '(void)'],
    ['boolean true', { status: 'ok', tag: 'SELECT 1', rows: [{ pg_try_advisory_lock: 't' }] }, 't'],
    ['boolean false', { status: 'ok', tag: 'SELECT 1', rows: [{ pg_try_advisory_lock_shared: 'f' }] }, 'f'],
    [
      'warning first',
      { status: 'ok', tag: 'SELECT 1', rows: [{ pg_advisory_unlock: 'f' }], warning: "you don't own a lock of type ExclusiveLock" },
      "WARNING:  you don't own a lock of type ExclusiveLock; f",
    ],
    ['tag only', { status: 'ok', tag: 'BEGIN', rows: [] }, 'BEGIN'],
    ['warning with tag', { status: 'ok', tag: 'COMMIT', rows: [], warning: 'there is no transaction in progress' }, 'WARNING:  there is no transaction in progress; COMMIT'],
    ['insert', { status: 'ok', tag: 'INSERT 0 1', rows: [] }, 'INSERT 0 1'],
    ['insert returning', { status: 'ok', tag: 'INSERT 0 1', rows: [{ id: 1 }] }, 'INSERT 0 1 → id=1'],
    ['select one row', { status: 'ok', tag: 'SELECT 1', rows: [{ order_id: 42, amount: 100 }] }, 'SELECT 1 → order_id=42, amount=100'],
    ['select two rows', { status: 'ok', tag: 'SELECT 2', rows: [{ id: 1, note: null }, { id: 2, note: 'x' }] }, 'SELECT 2 → id=1, note=NULL | id=2, note=x'],
    ['select nothing', { status: 'ok', tag: 'SELECT 0', rows: [] }, 'SELECT 0'],
    ['update', { status: 'ok', tag: 'UPDATE 1', rows: [] }, 'UPDATE 1'],
    [
      'error with detail',
      {
        status: 'error',
        error: { code: '23505', message: 'duplicate key value violates unique constraint "invoices_order_id_key"', detail: 'Key (order_id)=(42) already exists.' },
      },
      'ERROR 23505 duplicate key value violates unique constraint "invoices_order_id_key" (Key (order_id)=(42) already exists.)',
    ],
    ['error without detail', { status: 'error', error: { code: '55P03', message: 'canceling statement due to lock timeout' } }, 'ERROR 55P03 canceling statement due to lock timeout'],
    ['waits', { status: 'waits', on: 'advisory lock 42 held by session s1', blockerSession: 's1' }, 'waits (advisory lock 42 held by session s1)'],
  ];
  it.each(cases)('%s', (_name, reply, text) => {
    expect(renderReply(reply)).toBe(text);
  });
});

describe('edges of the text forms', () => {
  it('SET col = col + 0, an empty RETURNING list and a table without a primary key', () => {
    expect(renderSql({ op: 'update', table: 'items', set: { stock: { column: 'stock', add: 0 } }, where: { id: 7 }, returning: [] })).toBe('UPDATE items SET stock = stock + 0 WHERE id = 7');
    expect(renderSql({ op: 'insert', table: 'jobs', values: { status: 'done' }, returning: [] })).toBe("INSERT INTO jobs (status) VALUES ('done')");
    expect(renderCreateTable({ name: 'log', columns: [{ name: 'line', type: 'text' }], primaryKey: [] })).toBe('CREATE TABLE log (line text)');
  });

  it('only a single pg_ column of a SELECT 1 reads as a function result', () => {
    const ok = (tag: string, rows: Row[]): DbReply => ({ status: 'ok', tag, rows });
    expect(renderReply(ok('SELECT 1', [{ pg_try_advisory_lock: 't' }]))).toBe('t');
    expect(renderReply(ok('SELECT 1', [{ pg_advisory_lock: '' }]))).toBe('(void)');
    expect(renderReply(ok('SELECT 1', [{ id: 1 }]))).toBe('SELECT 1 → id=1');
    expect(renderReply(ok('SELECT 1', [{ pg_a: 't', pg_b: 'f' }]))).toBe('SELECT 1 → pg_a=t, pg_b=f');
    expect(renderReply(ok('SELECT 2', [{ pg_a: 1 }, { pg_a: 2 }]))).toBe('SELECT 2 → pg_a=1 | pg_a=2');
    expect(renderReply(ok('INSERT 0 1', [{ pg_x: 5 }]))).toBe('INSERT 0 1 → pg_x=5');
  });
});
