// Rows, constraints and visibility of the simulated tables (tableStore.ts), driven through the
// Database as a session would drive PostgreSQL. Every SQL reply below (SQLSTATE, message, DETAIL,
// row order of a sequential scan, who waits) was read off PostgreSQL 15 with the same statements;
// the throws are the model's programming-error contract (a scenario bug, not an SQL error).
import { Database } from './database';
import type { Stmt, TableSpec } from './sqlTypes';
import { BEGIN, COMMIT, ITEMS, ROLLBACK, dbWith, insInv, invTable, run, setStock } from '../testing/dbFixture';

const all = (table: string, columns?: readonly string[]): Stmt => ({ op: 'select', table, where: {}, ...(columns ? { columns } : {}) });

describe('values and columns: a value that does not fit is a programming error, not an SQL error', () => {
  it('a bigint column takes only safe integers, a text column only strings; NULL fits both; an unknown column throws', () => {
    const db = dbWith([invTable([], true)], 'a');
    expect(() => db.execute('a', { op: 'insert', table: 'inv', values: { id: 1.5, order_id: 1 } })).toThrow('value 1.5 does not fit column inv.id (bigint)');
    expect(() => db.execute('a', { op: 'insert', table: 'inv', values: { id: 2 ** 53, order_id: 1 } })).toThrow(/does not fit column inv\.id \(bigint\)/);
    expect(() => db.execute('a', { op: 'insert', table: 'inv', values: { id: '1', order_id: 1 } })).toThrow('value "1" does not fit column inv.id (bigint)');
    expect(() => db.execute('a', { op: 'insert', table: 'inv', values: { id: 1, note: 7 } })).toThrow('value 7 does not fit column inv.note (text)');
    expect(() => db.execute('a', { op: 'insert', table: 'inv', values: { id: 1, amount: 7 } })).toThrow('table inv has no column amount');
    expect(() => db.execute('a', { op: 'select', table: 'inv', columns: ['id', 'amount'], where: {} })).toThrow('table inv has no column amount');
    // None of those reached the table: the session is not in an aborted block and the table is empty.
    expect(run(db, 'a', { op: 'insert', table: 'inv', values: { id: 1, order_id: null, note: 'x' } })).toBe('INSERT 0 1');
    expect(run(db, 'a', all('inv'))).toBe('SELECT 1 → id=1, order_id=NULL, note=x');
  });

  it('an empty column list selects every column in table order, like SELECT *', () => {
    const db = dbWith([ITEMS], 'a');
    expect(run(db, 'a', { op: 'select', table: 'items', columns: [], where: { id: 2 } })).toBe('SELECT 1 → id=2, stock=5');
    expect(run(db, 'a', { op: 'select', table: 'items', columns: ['stock', 'id'], where: { id: 2 } })).toBe('SELECT 1 → stock=5, id=2');
  });
});

describe('unique constraints: the primary key is <table>_pkey, checked first', () => {
  it('a duplicate primary key is 23505 on inv_pkey with its DETAIL; a row that breaks both keys reports the primary key', () => {
    const db = dbWith([invTable([{ id: 1, order_id: 10 }])], 'a');
    expect(run(db, 'a', insInv(1, 11))).toBe('ERROR 23505 duplicate key value violates unique constraint "inv_pkey" (Key (id)=(1) already exists.)');
    expect(run(db, 'a', insInv(1, 10))).toBe('ERROR 23505 duplicate key value violates unique constraint "inv_pkey" (Key (id)=(1) already exists.)');
    expect(run(db, 'a', insInv(2, 10))).toBe('ERROR 23505 duplicate key value violates unique constraint "inv_order_id_key" (Key (order_id)=(10) already exists.)');
  });

  it('an UPDATE that gives a NULL key a value already taken is 23505; NULL keys never conflict with each other', () => {
    const db = dbWith([invTable([{ id: 1, order_id: 10 }, { id: 2, order_id: null }, { id: 3, order_id: null }])], 'a');
    expect(run(db, 'a', { op: 'update', table: 'inv', set: { order_id: 10 }, where: { id: 2 } })).toBe(
      'ERROR 23505 duplicate key value violates unique constraint "inv_order_id_key" (Key (order_id)=(10) already exists.)',
    );
    expect(run(db, 'a', { op: 'update', table: 'inv', set: { order_id: 11 }, where: { id: 2 } })).toBe('UPDATE 1');
    expect(db.committedRows('inv')).toEqual([{ id: 1, order_id: 10 }, { id: 2, order_id: 11 }, { id: 3, order_id: null }]);
  });

  it('a two-column key conflicts when an UPDATE changes only one of its columns into an existing pair', () => {
    const m: TableSpec = {
      name: 'm',
      columns: [{ name: 'id', type: 'bigint' }, { name: 'a', type: 'bigint' }, { name: 'b', type: 'bigint' }],
      primaryKey: ['id'],
      unique: [{ name: 'm_a_b_key', columns: ['a', 'b'] }],
      initialRows: [{ id: 1, a: 1, b: 1 }, { id: 2, a: 1, b: 2 }],
    };
    const db = dbWith([m], 'a');
    expect(run(db, 'a', { op: 'update', table: 'm', set: { b: 1 }, where: { id: 2 } })).toBe('ERROR 23505 duplicate key value violates unique constraint "m_a_b_key" (Key (a, b)=(1, 1) already exists.)');
    expect(run(db, 'a', { op: 'update', table: 'm', set: { a: 2 }, where: { id: 2 } })).toBe('UPDATE 1');
  });

  it('a key another open transaction wrote and then updated away still makes an INSERT wait for it (its old index entry stays)', () => {
    const db = dbWith([invTable()], 'a', 'b');
    run(db, 'b', BEGIN);
    run(db, 'b', insInv(2, 20));
    expect(run(db, 'b', { op: 'update', table: 'inv', set: { order_id: 21 }, where: { id: 2 } })).toBe('UPDATE 1');
    expect(run(db, 'a', insInv(3, 20))).toBe('waits (transaction of session b (uncommitted inv row order_id=20))');
    const done = db.execute('b', COMMIT).completions;
    expect(done.map((c) => `${c.sessionId} ${c.reply.status === 'ok' ? c.reply.tag : c.reply.status}`)).toEqual(['a INSERT 0 1']);
    expect(db.committedRows('inv')).toEqual([{ id: 2, order_id: 21 }, { id: 3, order_id: 20 }]);
  });
});

describe('tables without a primary key', () => {
  const log = (primaryKey?: readonly string[]): TableSpec => ({
    name: 'log',
    columns: [{ name: 'k', type: 'bigint' }, { name: 'v', type: 'text' }],
    ...(primaryKey ? { primaryKey } : {}),
    initialRows: [{ k: 1, v: 'a' }],
  });

  for (const [name, pk] of [['no primaryKey', undefined], ['an empty primaryKey', []]] as const) {
    it(`${name}: duplicate rows are allowed, and a row is named by all its columns`, () => {
      const db = dbWith([log(pk)], 'a', 'b');
      expect(run(db, 'a', { op: 'insert', table: 'log', values: { k: 1, v: 'a' } })).toBe('INSERT 0 1');
      run(db, 'a', BEGIN);
      expect(run(db, 'a', { op: 'update', table: 'log', set: { v: 'b' }, where: { k: 1 } })).toBe('UPDATE 2');
      expect(db.sessionState('a').rowLocks).toEqual(['log row k=1, v=a', 'log row k=1, v=a']);
      expect(run(db, 'b', { op: 'delete', table: 'log', where: { k: 1 } })).toBe('waits (row lock on log row k=1, v=a held by session a)');
      run(db, 'a', COMMIT);
      expect(db.committedRows('log')).toEqual([]);
    });
  }
});

describe('CHECK constraints', () => {
  const c = (checks: TableSpec['checks']): TableSpec => ({
    name: 'c',
    columns: [{ name: 'id', type: 'bigint' }, { name: 'a', type: 'bigint' }, { name: 'b', type: 'bigint' }],
    primaryKey: ['id'],
    checks,
  });

  it('of several failing CHECKs, the first by name is reported, whatever the order they were declared in', () => {
    const zFirst = dbWith([c([{ name: 'c_z_check', column: 'a', min: 0 }, { name: 'c_a_check', column: 'b', min: 0 }])], 's');
    expect(run(zFirst, 's', { op: 'insert', table: 'c', values: { id: 1, a: -1, b: -1 } })).toBe('ERROR 23514 new row for relation "c" violates check constraint "c_a_check" (Failing row contains (1, -1, -1).)');
    const aFirst = dbWith([c([{ name: 'c_a_check', column: 'a', min: 0 }, { name: 'c_z_check', column: 'b', min: 0 }])], 's');
    expect(run(aFirst, 's', { op: 'insert', table: 'c', values: { id: 1, a: -1, b: -1 } })).toBe('ERROR 23514 new row for relation "c" violates check constraint "c_a_check" (Failing row contains (1, -1, -1).)');
    const three = dbWith([c([{ name: 'c_m_check', column: 'a', min: 0 }, { name: 'c_z_check', column: 'b', min: 0 }, { name: 'c_b_check', column: 'b', min: 0 }])], 's');
    expect(run(three, 's', { op: 'insert', table: 'c', values: { id: 1, a: -1, b: -1 } })).toMatch(/violates check constraint "c_b_check"/);
    expect(run(three, 's', { op: 'insert', table: 'c', values: { id: 1, a: -1, b: 0 } })).toMatch(/violates check constraint "c_m_check"/);
  });

  it('a NULL passes a CHECK (n >= 1); 0 fails it with the row in DETAIL', () => {
    const db = dbWith([c([{ name: 'c_a_check', column: 'a', min: 1 }])], 's');
    expect(run(db, 's', { op: 'insert', table: 'c', values: { id: 1, a: null } })).toBe('INSERT 0 1');
    expect(run(db, 's', { op: 'insert', table: 'c', values: { id: 2, a: 0, b: 3 } })).toBe('ERROR 23514 new row for relation "c" violates check constraint "c_a_check" (Failing row contains (2, 0, 3).)');
  });
});

describe('row order of a sequential scan (heap order: a new row version goes after every existing one)', () => {
  it('inserted rows come after the initial ones, in insertion order, and each is the row its key names', () => {
    const db = dbWith([ITEMS], 'a');
    run(db, 'a', { op: 'insert', table: 'items', values: { id: 3, stock: 3 } });
    run(db, 'a', { op: 'insert', table: 'items', values: { id: 4, stock: 4 } });
    expect(run(db, 'a', all('items'))).toBe('SELECT 4 → id=1, stock=5 | id=2, stock=5 | id=3, stock=3 | id=4, stock=4');
    expect(run(db, 'a', setStock(4, 0))).toBe('UPDATE 1');
    expect(run(db, 'a', setStock(3, 1))).toBe('UPDATE 1');
    expect(db.committedRows('items')).toEqual([{ id: 1, stock: 5 }, { id: 2, stock: 5 }, { id: 3, stock: 1 }, { id: 4, stock: 0 }]);
  });

  it('the rows an open transaction inserted are its own, in order, before it commits', () => {
    const db = dbWith([ITEMS], 'a', 'b');
    run(db, 'a', BEGIN);
    run(db, 'a', { op: 'insert', table: 'items', values: { id: 3, stock: 3 } });
    run(db, 'a', { op: 'insert', table: 'items', values: { id: 4, stock: 4 } });
    expect(run(db, 'a', { op: 'update', table: 'items', set: { stock: 9 }, where: { id: 4 } })).toBe('UPDATE 1');
    expect(run(db, 'a', all('items'))).toBe('SELECT 4 → id=1, stock=5 | id=2, stock=5 | id=3, stock=3 | id=4, stock=9');
    expect(run(db, 'b', all('items'))).toBe('SELECT 2 → id=1, stock=5 | id=2, stock=5');
    run(db, 'a', ROLLBACK);
    expect(run(db, 'b', all('items'))).toBe('SELECT 2 → id=1, stock=5 | id=2, stock=5');
  });

  it('inside the transaction that updated it, a row comes last; others still see it in its old place', () => {
    const db = dbWith([ITEMS], 'a', 'b');
    run(db, 'a', BEGIN);
    run(db, 'a', setStock(1, 0));
    expect(run(db, 'a', all('items'))).toBe('SELECT 2 → id=2, stock=5 | id=1, stock=0');
    expect(run(db, 'b', all('items'))).toBe('SELECT 2 → id=1, stock=5 | id=2, stock=5');
    run(db, 'a', COMMIT);
    expect(run(db, 'b', all('items'))).toBe('SELECT 2 → id=2, stock=5 | id=1, stock=0');
  });
});

describe('REPEATABLE READ reads the version its snapshot saw', () => {
  it('after two committed UPDATEs of a row, the snapshot still reads the row as it was before both', () => {
    const db = dbWith([ITEMS], 'a', 'b');
    run(db, 'a', { op: 'begin', isolation: 'repeatable read' });
    expect(run(db, 'a', { op: 'select', table: 'items', where: { id: 1 } })).toBe('SELECT 1 → id=1, stock=5');
    run(db, 'b', setStock(1, 6));
    run(db, 'b', setStock(1, 7));
    expect(run(db, 'a', { op: 'select', table: 'items', where: { id: 1 } })).toBe('SELECT 1 → id=1, stock=5');
    expect(run(db, 'b', { op: 'select', table: 'items', where: { id: 1 } })).toBe('SELECT 1 → id=1, stock=7');
    run(db, 'a', COMMIT);
    expect(run(db, 'a', { op: 'select', table: 'items', where: { id: 1 } })).toBe('SELECT 1 → id=1, stock=7');
  });

  it('a snapshot taken between the two UPDATEs reads the middle version', () => {
    const db = dbWith([ITEMS], 'a', 'b');
    run(db, 'b', setStock(1, 6));
    run(db, 'a', { op: 'begin', isolation: 'repeatable read' });
    run(db, 'a', { op: 'select', table: 'items', where: { id: 2 } });
    run(db, 'b', setStock(1, 7));
    run(db, 'b', setStock(1, 8));
    expect(run(db, 'a', { op: 'select', table: 'items', where: { id: 1 } })).toBe('SELECT 1 → id=1, stock=6');
  });
});

describe('table definitions: a bad spec or initial row is refused when the database is built', () => {
  const base: TableSpec = { name: 't', columns: [{ name: 'id', type: 'bigint' }, { name: 'n', type: 'bigint' }], primaryKey: ['id'] };
  it.each([
    ['a duplicate column', { ...base, columns: [...base.columns, { name: 'n', type: 'text' }] }, 'table t has duplicate columns'],
    ['a text serial column', { ...base, columns: [...base.columns, { name: 's', type: 'text', serial: true }] }, 'serial column t.s must be bigint'],
    ['a primary key on an unknown column', { ...base, primaryKey: ['nope'] }, 'table t has no column nope'],
    ['a unique constraint on an unknown column', { ...base, unique: [{ name: 't_x_key', columns: ['x'] }] }, 'table t has no column x'],
    ['a check on an unknown column', { ...base, checks: [{ name: 't_y_check', column: 'y', min: 0 }] }, 'table t has no column y'],
    ['an initial row with an unknown column', { ...base, initialRows: [{ id: 1, z: 1 }] }, 'table t has no column z'],
    ['an initial row with a NULL key', { ...base, initialRows: [{ n: 1 }] }, 'initial row of t is invalid: null value in column "id" of relation "t" violates not-null constraint'],
    ['two initial rows with one key', { ...base, initialRows: [{ id: 1, n: 1 }, { id: 1, n: 2 }] }, 'initial row of t is invalid: duplicate key value violates unique constraint "t_pkey"'],
    ['an initial row that fails a CHECK', { ...base, checks: [{ name: 't_n_check', column: 'n', min: 0 }], initialRows: [{ id: 1, n: -1 }] }, 'initial row of t is invalid: new row for relation "t" violates check constraint "t_n_check"'],
  ] as [string, TableSpec, string][])('%s', (_name, spec, message) => {
    expect(() => new Database([spec])).toThrow(message);
  });

  it('distinct initial rows are committed as given', () => {
    const db = new Database([{ ...base, unique: [{ name: 't_n_key', columns: ['n'] }], initialRows: [{ id: 1, n: 1 }, { id: 2, n: 2 }, { id: 3, n: null }, { id: 4, n: null }] }]);
    expect(db.committedRows('t')).toEqual([{ id: 1, n: 1 }, { id: 2, n: 2 }, { id: 3, n: null }, { id: 4, n: null }]);
  });
});

describe('serial columns (bigserial)', () => {
  const ser = (initialRows: TableSpec['initialRows']): TableSpec => ({
    name: 'ser',
    columns: [{ name: 'id', type: 'bigint', serial: true }, { name: 'n', type: 'bigint' }],
    primaryKey: ['id'],
    initialRows,
  });
  const insertReturningId = (n: number): Stmt => ({ op: 'insert', table: 'ser', values: { n }, returning: ['id'] });

  it('an initial row with an explicit id moves the sequence past it (as setval does); a row without one draws the next value', () => {
    const db = dbWith([ser([{ id: 5, n: 100 }, { n: 7 }])], 'a');
    expect(db.committedRows('ser')).toEqual([{ id: 5, n: 100 }, { id: 6, n: 7 }]);
    expect(run(db, 'a', insertReturningId(1))).toBe('INSERT 0 1 → id=7');
  });

  it('a lower explicit id after a higher one does not move the sequence back', () => {
    const db = dbWith([ser([{ id: 9, n: 1 }, { id: 3, n: 2 }])], 'a');
    expect(run(db, 'a', insertReturningId(1))).toBe('INSERT 0 1 → id=10');
  });

  it('without initial rows the sequence starts at 1; a value drawn by a rolled-back INSERT is not given again', () => {
    const db = dbWith([ser(undefined)], 'a');
    run(db, 'a', BEGIN);
    expect(run(db, 'a', insertReturningId(1))).toBe('INSERT 0 1 → id=1');
    run(db, 'a', ROLLBACK);
    expect(run(db, 'a', insertReturningId(1))).toBe('INSERT 0 1 → id=2');
  });

  it('a bigserial column is NOT NULL: an explicit NULL is 23502, and the first NULL column in table order is named (not the primary key order)', () => {
    const serNotPk: TableSpec = { name: 'ser', columns: [{ name: 'id', type: 'bigint' }, { name: 'seq', type: 'bigint', serial: true }], primaryKey: ['id'] };
    const db = dbWith([serNotPk, { name: 't', columns: [{ name: 'a', type: 'bigint' }, { name: 'b', type: 'bigint' }], primaryKey: ['b', 'a'] }], 'a');
    expect(run(db, 'a', { op: 'insert', table: 'ser', values: { id: 1, seq: null } })).toBe('ERROR 23502 null value in column "seq" of relation "ser" violates not-null constraint (Failing row contains (1, null).)');
    expect(run(db, 'a', { op: 'insert', table: 'ser', values: { id: 1 } })).toBe('INSERT 0 1');
    expect(run(db, 'a', { op: 'insert', table: 't', values: { a: null, b: null } })).toBe('ERROR 23502 null value in column "a" of relation "t" violates not-null constraint (Failing row contains (null, null).)');
  });
});
