// REPEATABLE READ and SERIALIZABLE in the simulated database. Every expected reply below was
// observed on PostgreSQL 15 with two pg sessions running the same statements in the same order
// (the fidelity suite replays them: fidelity/sqlCases.ts, the isolation cases).
import { describe, expect, it } from 'vitest';
import { Database } from './database';
import { renderReply, renderSql } from './renderSql';
import type { DbReply, IsolationLevel, Stmt, TableSpec } from './sqlTypes';

const accounts: TableSpec = { name: 'accounts', columns: [{ name: 'id', type: 'bigint' }, { name: 'balance', type: 'bigint' }], primaryKey: ['id'], initialRows: [{ id: 1, balance: 100 }] };
const jobs: TableSpec = {
  name: 'jobs',
  columns: [{ name: 'id', type: 'bigint', serial: true }, { name: 'job_key', type: 'text' }, { name: 'status', type: 'text' }],
  primaryKey: ['id'],
  unique: [{ name: 'jobs_job_key_key', columns: ['job_key'] }],
};
const invoices: TableSpec = { name: 'invoices', columns: [{ name: 'id', type: 'bigint', serial: true }, { name: 'order_id', type: 'bigint' }, { name: 'amount', type: 'bigint' }], primaryKey: ['id'] };

function db(): Database {
  const d = new Database([accounts, jobs, invoices]);
  d.openSession('A');
  d.openSession('B');
  return d;
}
const begin = (isolation: IsolationLevel): Stmt => ({ op: 'begin', isolation });
const readBalance: Stmt = { op: 'select', table: 'accounts', columns: ['balance'], where: { id: 1 } };
const setBalance = (balance: number): Stmt => ({ op: 'update', table: 'accounts', set: { balance }, where: { id: 1 } });
const readJob: Stmt = { op: 'select', table: 'jobs', columns: ['status'], where: { job_key: 'order-42' } };
const insertJob = (doNothing = false): Stmt => ({ op: 'insert', table: 'jobs', values: { job_key: 'order-42', status: 'done' }, ...(doNothing ? { onConflictDoNothing: true } : {}) });
const readInvoice: Stmt = { op: 'select', table: 'invoices', where: { order_id: 42 } };
const insertInvoice: Stmt = { op: 'insert', table: 'invoices', values: { order_id: 42, amount: 100 } };
const commit: Stmt = { op: 'commit' };
const text = (r: DbReply): string => renderReply(r);

describe('isolation levels (PostgreSQL 15)', () => {
  it('renders BEGIN ISOLATION LEVEL …', () => {
    expect(renderSql(begin('serializable'))).toBe('BEGIN ISOLATION LEVEL SERIALIZABLE');
    expect(renderSql(begin('repeatable read'))).toBe('BEGIN ISOLATION LEVEL REPEATABLE READ');
    expect(renderSql({ op: 'begin' })).toBe('BEGIN');
  });

  it('REPEATABLE READ: an UPDATE of a row a transaction changed and committed after the snapshot waits, then fails with 40001; later statements get 25P02', () => {
    const d = db();
    d.execute('A', begin('repeatable read'));
    d.execute('A', readBalance);
    d.execute('B', begin('repeatable read'));
    d.execute('B', readBalance);
    expect(text(d.execute('A', setBalance(90)).reply)).toBe('UPDATE 1');
    expect(d.execute('B', setBalance(80)).reply.status).toBe('waits');
    const { completions } = d.execute('A', commit);
    expect(completions.map((c) => text(c.reply))).toEqual(['ERROR 40001 could not serialize access due to concurrent update']);
    expect(d.execute('B', { op: 'select', table: 'accounts', where: { id: 1 } }).reply).toMatchObject({ status: 'error', error: { code: '25P02' } });
    expect(text(d.execute('B', commit).reply)).toBe('ROLLBACK');
    expect(d.committedRows('accounts')).toEqual([{ id: 1, balance: 90 }]);
  });

  it('REPEATABLE READ: reads keep the snapshot; SELECT … FOR UPDATE of the changed row fails with 40001', () => {
    const d = db();
    d.execute('A', begin('repeatable read'));
    d.execute('B', begin('repeatable read'));
    d.execute('B', readBalance);
    d.execute('A', setBalance(90));
    d.execute('A', commit);
    expect(d.execute('B', readBalance).reply).toMatchObject({ status: 'ok', rows: [{ balance: 100 }] });
    expect(text(d.execute('B', { ...readBalance, lock: 'forUpdate' } as Stmt).reply)).toBe('ERROR 40001 could not serialize access due to concurrent update');
  });

  it('REPEATABLE READ: the snapshot is taken by the first statement, not by BEGIN', () => {
    const d = db();
    d.execute('B', begin('repeatable read'));
    expect(text(d.execute('A', setBalance(90)).reply)).toBe('UPDATE 1');
    expect(text(d.execute('B', setBalance(80)).reply)).toBe('UPDATE 1');
    expect(text(d.execute('B', commit).reply)).toBe('COMMIT');
  });

  it('READ COMMITTED (the default) loses the update instead', () => {
    const d = db();
    d.execute('A', { op: 'begin' });
    d.execute('A', readBalance);
    d.execute('B', { op: 'begin' });
    d.execute('B', readBalance);
    d.execute('A', setBalance(90));
    expect(d.execute('B', setBalance(80)).reply.status).toBe('waits');
    expect(d.execute('A', commit).completions.map((c) => text(c.reply))).toEqual(['UPDATE 1']);
  });

  it('SERIALIZABLE check-then-insert without a unique key: both insert; the first COMMIT wins, the second fails at COMMIT', () => {
    for (const first of ['A', 'B'] as const) {
      const second = first === 'A' ? 'B' : 'A';
      const d = db();
      d.execute('A', begin('serializable'));
      d.execute('B', begin('serializable'));
      expect(text(d.execute('A', readInvoice).reply)).toBe('SELECT 0');
      expect(text(d.execute('B', readInvoice).reply)).toBe('SELECT 0');
      expect(text(d.execute('A', insertInvoice).reply)).toBe('INSERT 0 1');
      expect(text(d.execute('B', insertInvoice).reply)).toBe('INSERT 0 1');
      expect(text(d.execute(first, commit).reply)).toBe('COMMIT');
      expect(text(d.execute(second, commit).reply)).toBe('ERROR 40001 could not serialize access due to read/write dependencies among transactions (Reason code: Canceled on identification as a pivot, during commit attempt.)');
      expect(d.committedRows('invoices')).toHaveLength(1);
      expect(d.inTransaction(second)).toBe(false);
    }
  });

  it('SERIALIZABLE: an insert after the other side committed fails at once with 40001 (during write)', () => {
    const d = db();
    d.execute('A', begin('serializable'));
    d.execute('B', begin('serializable'));
    d.execute('A', readInvoice);
    d.execute('B', readInvoice);
    d.execute('A', insertInvoice);
    d.execute('A', commit);
    expect(text(d.execute('B', insertInvoice).reply)).toBe('ERROR 40001 could not serialize access due to read/write dependencies among transactions (Reason code: Canceled on identification as a pivot, during write.)');
    expect(text(d.execute('B', commit).reply)).toBe('ROLLBACK');
  });

  it('SERIALIZABLE with a unique key: the waiting insert gets 40001, not 23505 — but 23505 when it had not read first', () => {
    const d = db();
    d.execute('A', begin('serializable'));
    d.execute('B', begin('serializable'));
    d.execute('A', readJob);
    d.execute('B', readJob);
    d.execute('A', insertJob());
    expect(d.execute('B', insertJob()).reply.status).toBe('waits');
    expect(d.execute('A', commit).completions.map((c) => c.reply)).toMatchObject([{ status: 'error', error: { code: '40001', message: 'could not serialize access due to read/write dependencies among transactions' } }]);

    const e = db();
    e.execute('A', begin('serializable'));
    e.execute('B', begin('serializable'));
    e.execute('A', readJob);
    e.execute('A', insertJob());
    e.execute('B', { op: 'advisory', fn: 'pg_try_advisory_lock', key: { kind: 'bigint', key: 1 } });
    e.execute('A', commit);
    expect(e.execute('B', insertJob()).reply).toMatchObject({ status: 'error', error: { code: '23505' } });
  });

  it('ON CONFLICT DO NOTHING under REPEATABLE READ or SERIALIZABLE meets a row its snapshot cannot see: 40001 concurrent update', () => {
    for (const level of ['repeatable read', 'serializable'] as const) {
      const d = db();
      d.execute('A', begin(level));
      d.execute('B', begin(level));
      d.execute('A', readJob);
      d.execute('B', readJob);
      d.execute('A', insertJob());
      d.execute('A', commit);
      expect(text(d.execute('B', insertJob(true)).reply)).toBe('ERROR 40001 could not serialize access due to concurrent update');
    }
  });

  it('SERIALIZABLE read-modify-write: the concurrent-update check comes first (40001 concurrent update)', () => {
    const d = db();
    d.execute('A', begin('serializable'));
    d.execute('B', begin('serializable'));
    d.execute('A', readBalance);
    d.execute('B', readBalance);
    d.execute('A', setBalance(90));
    d.execute('A', commit);
    expect(text(d.execute('B', setBalance(80)).reply)).toBe('ERROR 40001 could not serialize access due to concurrent update');
  });
});

describe('a doomed SERIALIZABLE transaction (PostgreSQL 15)', () => {
  function doomed(): Database {
    const d = db();
    d.execute('A', begin('serializable'));
    d.execute('B', begin('serializable'));
    d.execute('A', readInvoice);
    d.execute('B', readInvoice);
    d.execute('A', insertInvoice);
    d.execute('B', insertInvoice);
    d.execute('A', commit);
    return d;
  }
  it('fails its next read of any table (conflict out checking), its next write (conflict in checking); a statement that reads no table passes', () => {
    expect(doomed().execute('B', readBalance).reply).toMatchObject({ status: 'error', error: { code: '40001', detail: 'Reason code: Canceled on identification as a pivot, during conflict out checking.' } });
    expect(doomed().execute('B', { ...insertInvoice, values: { order_id: 43, amount: 100 } } as Stmt).reply).toMatchObject({ status: 'error', error: { code: '40001', detail: 'Reason code: Canceled on identification as a pivot, during conflict in checking.' } });
    const d = doomed();
    expect(text(d.execute('B', { op: 'advisory', fn: 'pg_try_advisory_lock', key: { kind: 'bigint', key: 1 } }).reply)).toBe('t');
    expect(d.execute('B', commit).reply).toMatchObject({ status: 'error', error: { code: '40001' } });
  });

  it('two different keys of one small table conflict too (PostgreSQL locks the index page they share; the model, the table)', () => {
    const d = db();
    d.execute('A', begin('serializable'));
    d.execute('B', begin('serializable'));
    d.execute('A', { op: 'select', table: 'jobs', columns: ['status'], where: { job_key: 'charge-A' } });
    d.execute('B', { op: 'select', table: 'jobs', columns: ['status'], where: { job_key: 'charge-B' } });
    d.execute('A', { op: 'insert', table: 'jobs', values: { job_key: 'charge-A', status: 'done' }, onConflictDoNothing: true });
    d.execute('A', commit);
    expect(d.execute('B', { op: 'insert', table: 'jobs', values: { job_key: 'charge-B', status: 'done' }, onConflictDoNothing: true }).reply).toMatchObject({ status: 'error', error: { code: '40001', detail: 'Reason code: Canceled on identification as a pivot, during write.' } });
  });
});
