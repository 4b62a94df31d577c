// The database as a fencing-token source and as the fenced resource (semantics.md, "Fencing beyond
// a Redis counter"): `nextval` is not transactional, and `UPDATE … WHERE id = $id AND fence < $token`
// updates 0 rows for a stale token. Replies checked on PostgreSQL 15 by fidelity/sqlCases.ts.
import { Database } from './database';
import { renderReply, renderSql } from './renderSql';
import type { Stmt, TableSpec } from './sqlTypes';

const documents: TableSpec = {
  name: 'documents',
  columns: [{ name: 'id', type: 'bigint' }, { name: 'body', type: 'text' }, { name: 'fence', type: 'bigint' }],
  primaryKey: ['id'],
  initialRows: [{ id: 7, body: 'v0', fence: 0 }],
};
const fenced = (body: string, token: number, conditional = true): Stmt => ({
  op: 'update', table: 'documents', set: { body, fence: token }, where: { id: 7 }, ...(conditional ? { whereBelow: { fence: token } } : {}),
});
const NEXTVAL: Stmt = { op: 'nextval', seq: 'fence_seq' };

function db(): Database {
  const d = new Database([documents], { fence_seq: 33 });
  d.openSession('s1');
  d.openSession('s2');
  return d;
}
const reply = (d: Database, s: string, stmt: Stmt): string => renderReply(d.execute(s, stmt).reply);

describe('conditional UPDATE … AND fence < $token', () => {
  it('renders the literal fenced write', () => {
    expect(renderSql(fenced('B', 34))).toBe("UPDATE documents SET body = 'B', fence = 34 WHERE id = 7 AND fence < 34");
    expect(renderSql(fenced('A', 33, false))).toBe("UPDATE documents SET body = 'A', fence = 33 WHERE id = 7");
  });

  it('a higher token updates the row; a lower or equal one updates 0 rows and leaves it as it is', () => {
    const d = db();
    expect(reply(d, 's1', fenced('B', 34))).toBe('UPDATE 1');
    expect(reply(d, 's2', fenced('A', 33))).toBe('UPDATE 0');
    expect(reply(d, 's2', fenced('A', 34))).toBe('UPDATE 0');
    expect(d.committedRows('documents')).toEqual([{ id: 7, body: 'B', fence: 34 }]);
  });

  it('the unconditional UPDATE of a stale holder overwrites the newer row', () => {
    const d = db();
    d.execute('s1', fenced('B', 34));
    expect(reply(d, 's2', fenced('A', 33, false))).toBe('UPDATE 1');
    expect(d.committedRows('documents')).toEqual([{ id: 7, body: 'A', fence: 33 }]);
  });

  it('a waiter re-checks the condition on the row the holder committed (0 rows once a higher token is in)', () => {
    const d = db();
    d.execute('s1', { op: 'begin' });
    d.execute('s1', fenced('B', 34));
    expect(d.execute('s2', fenced('A', 33)).reply.status).toBe('waits');
    const done = d.execute('s1', { op: 'commit' });
    expect(done.completions.map((c) => renderReply(c.reply))).toEqual(['UPDATE 0']);
  });

  it('NULL never matches fence < $token', () => {
    const d = new Database([{ ...documents, initialRows: [{ id: 7, body: 'v0', fence: null }] }]);
    d.openSession('s1');
    expect(reply(d, 's1', fenced('B', 34))).toBe('UPDATE 0');
  });
});

describe("nextval('fence_seq') is not transactional", () => {
  it('renders the literal call and returns the sequence values in order', () => {
    expect(renderSql(NEXTVAL)).toBe("SELECT nextval('fence_seq')");
    const d = db();
    expect(d.execute('s1', NEXTVAL).reply).toEqual({ status: 'ok', tag: 'SELECT 1', rows: [{ nextval: 33 }] });
    expect(d.execute('s2', NEXTVAL).reply).toEqual({ status: 'ok', tag: 'SELECT 1', rows: [{ nextval: 34 }] });
  });

  it('a value taken in a transaction that rolls back is not handed out again', () => {
    const d = db();
    d.execute('s1', { op: 'begin' });
    expect(d.execute('s1', NEXTVAL).reply).toMatchObject({ rows: [{ nextval: 33 }] });
    d.execute('s1', { op: 'rollback' });
    expect(d.execute('s2', NEXTVAL).reply).toMatchObject({ rows: [{ nextval: 34 }] });
    expect(d.sequenceNext('fence_seq')).toBe(35);
  });

  it('holds RowExclusiveLock on the sequence until the transaction ends; the first call takes an xid (it WAL-logs)', () => {
    const d = db();
    d.execute('s1', { op: 'begin' });
    d.execute('s1', NEXTVAL);
    expect(d.pgLocks().filter((l) => l.sessionId === 's1').map((l) => `${l.locktype}:${l.relation ?? ''}:${l.mode}`).sort()).toEqual([
      'relation:fence_seq:RowExclusiveLock', 'transactionid::ExclusiveLock', 'virtualxid::ExclusiveLock',
    ]);
    d.execute('s1', { op: 'commit' });
    d.execute('s1', { op: 'begin' });
    d.execute('s1', NEXTVAL);
    expect(d.pgLocks().some((l) => l.sessionId === 's1' && l.locktype === 'transactionid')).toBe(false);
  });

  it('an unknown sequence is 42P01 and aborts the transaction', () => {
    const d = db();
    d.execute('s1', { op: 'begin' });
    expect(reply(d, 's1', { op: 'nextval', seq: 'nope' })).toBe('ERROR 42P01 relation "nope" does not exist');
    expect(d.sessionState('s1').aborted).toBe(true);
  });
});
