// Advisory-lock paths that database.test.ts does not reach: a holder of the shared lock asking for
// the exclusive one while others queue (ProcSleep), a try that fails only because of a queued
// waiter, session- and transaction-level holds of one key kept apart, and the table's own
// contracts (emptied keys disappear, one waiting request per session, grants by session, key order).
// Each multi-session sequence was run on PostgreSQL 15 with one connection per session (the
// replies, and which statement waits, as the comments say).
import {
  acquireAdvisory,
  advisoryLockRows,
  compareText,
  grantQueuedAdvisory,
  heldAdvisoryLocks,
  unlockAdvisory,
  type AdvisoryTable,
} from './advisoryLocks';
import { Database } from './database';
import { renderReply } from './renderSql';
import type { AdvisoryFn, AdvisoryKey, Stmt } from './sqlTypes';

const adv = (fn: AdvisoryFn, key = 1): Stmt => ({ op: 'advisory', fn, key: { kind: 'bigint', key } });
const BEGIN: Stmt = { op: 'begin' };
const COMMIT: Stmt = { op: 'commit' };

function setup(...sessions: string[]): Database {
  const db = new Database([]);
  for (const s of sessions) db.openSession(s);
  return db;
}
const q = (db: Database, s: string, stmt: Stmt): string => renderReply(db.execute(s, stmt).reply);
const held = (db: Database): string[] => db.locks().map((l) => `${l.sessionId} ${l.mode} ${l.granted ? 't' : 'f'}`);

const k1: AdvisoryKey = { kind: 'bigint', key: 1 };
const X = 'ExclusiveLock' as const;
const S = 'ShareLock' as const;

describe('a session that holds the shared lock asks for the exclusive one', () => {
  it('is granted at once, ahead of the exclusive waiter, when no other session holds the key (PostgreSQL 15: A shared, B waits, A exclusive → granted)', () => {
    const db = setup('A', 'B');
    expect(q(db, 'A', adv('pg_advisory_lock_shared'))).toBe('(void)');
    expect(q(db, 'B', adv('pg_advisory_lock'))).toBe('waits (advisory lock 1 held by session A)');
    expect(q(db, 'A', adv('pg_advisory_lock'))).toBe('(void)');
    expect(held(db)).toEqual(['A ExclusiveLock t', 'A ShareLock t', 'B ExclusiveLock f']);
    // A really holds it: dropping the shared hold still leaves B waiting.
    expect(db.execute('A', adv('pg_advisory_unlock_shared')).completions).toEqual([]);
    expect(db.sessionState('B').waiting?.on).toBe('advisory lock 1 held by session A');
  });

  it('the table returns a plain grant and records the exclusive hold', () => {
    const table: AdvisoryTable = {};
    expect(acquireAdvisory(table, k1, { sessionId: 'A', mode: S, scope: 'session' }, true)).toEqual({ granted: true });
    expect(acquireAdvisory(table, k1, { sessionId: 'B', mode: X, scope: 'session' }, true)).toEqual({ granted: false, blockerSession: 'A', reason: 'held' });
    expect(acquireAdvisory(table, k1, { sessionId: 'A', mode: X, scope: 'session' }, true)).toEqual({ granted: true });
    expect(heldAdvisoryLocks(table, 'A').map((h) => `${h.mode} ${h.sessionCount}`)).toEqual(['ExclusiveLock 1', 'ShareLock 1']);
  });

  it('waits when another session also holds it shared, queued before the earlier exclusive waiter, and is granted first when that one unlocks (PostgreSQL 15)', () => {
    const db = setup('A', 'B', 'C');
    expect(q(db, 'A', adv('pg_advisory_lock_shared'))).toBe('(void)');
    expect(q(db, 'B', adv('pg_advisory_lock_shared'))).toBe('(void)');
    expect(q(db, 'C', adv('pg_advisory_lock'))).toMatch(/^waits/);
    expect(q(db, 'A', adv('pg_advisory_lock'))).toBe('waits (advisory lock 1 held by session B)');
    expect(held(db)).toEqual(['A ShareLock t', 'B ShareLock t', 'A ExclusiveLock f', 'C ExclusiveLock f']);
    const r = db.execute('B', adv('pg_advisory_unlock_shared'));
    expect(renderReply(r.reply)).toBe('t');
    expect(r.completions.map((c) => c.sessionId)).toEqual(['A']);
    expect(held(db)).toEqual(['A ExclusiveLock t', 'A ShareLock t', 'C ExclusiveLock f']);
  });

  it('two shared holders that both ask for the exclusive lock deadlock at once: the second gets 40P01 (PostgreSQL 15)', () => {
    const db = setup('A', 'B');
    q(db, 'A', adv('pg_advisory_lock_shared'));
    q(db, 'B', adv('pg_advisory_lock_shared'));
    expect(q(db, 'A', adv('pg_advisory_lock'))).toBe('waits (advisory lock 1 held by session B)');
    expect(db.execute('B', adv('pg_advisory_lock')).reply).toMatchObject({
      status: 'error',
      error: {
        code: '40P01',
        message: 'deadlock detected',
        detail: expect.stringMatching(/^Process B waits for ExclusiveLock on advisory lock \[\w+,0,1,1\]; blocked by process A\.\nProcess A waits for ExclusiveLock/),
      },
    });
  });
});

describe('pg_try_advisory_lock_shared with only shared holders', () => {
  it('fails when an exclusive request is queued, and the table names the queued session as the blocker (PostgreSQL 15: f)', () => {
    const db = setup('A', 'B', 'C');
    q(db, 'A', adv('pg_advisory_lock_shared'));
    expect(q(db, 'B', adv('pg_advisory_lock'))).toMatch(/^waits/);
    expect(q(db, 'C', adv('pg_try_advisory_lock_shared'))).toBe('f');
    const table: AdvisoryTable = {};
    acquireAdvisory(table, k1, { sessionId: 'A', mode: S, scope: 'session' }, true);
    acquireAdvisory(table, k1, { sessionId: 'B', mode: X, scope: 'session' }, true);
    expect(acquireAdvisory(table, k1, { sessionId: 'C', mode: S, scope: 'session' }, false)).toEqual({ granted: false, blockerSession: 'B', reason: 'queued' });
  });

  it('a waiting shared request behind a queued exclusive one is reported as queued behind it', () => {
    const db = setup('A', 'B', 'C');
    q(db, 'A', adv('pg_advisory_lock_shared'));
    q(db, 'B', adv('pg_advisory_lock'));
    expect(q(db, 'C', adv('pg_advisory_lock_shared'))).toBe('waits (advisory lock 1 queued behind session B)');
  });
});

describe('session-level and transaction-level holds of one key', () => {
  it('a transaction-level hold taken over a session-level one ends at COMMIT: one unlock then frees the key (PostgreSQL 15: t, then the other session gets it)', () => {
    const db = setup('A', 'B');
    q(db, 'A', adv('pg_advisory_lock'));
    q(db, 'A', BEGIN);
    q(db, 'A', adv('pg_advisory_xact_lock'));
    q(db, 'A', COMMIT);
    expect(q(db, 'A', adv('pg_advisory_unlock'))).toBe('t');
    expect(q(db, 'B', adv('pg_try_advisory_lock'))).toBe('t');
  });

  it('a session-level hold taken inside a transaction over a transaction-level one outlives COMMIT (PostgreSQL 15: f, then t after the unlock)', () => {
    const db = setup('A', 'B');
    q(db, 'A', BEGIN);
    q(db, 'A', adv('pg_advisory_xact_lock'));
    q(db, 'A', adv('pg_advisory_lock'));
    expect(db.sessionState('A').advisoryLocks.map((h) => [h.sessionCount, h.xactCount])).toEqual([[1, 1]]);
    q(db, 'A', COMMIT);
    expect(q(db, 'B', adv('pg_try_advisory_lock'))).toBe('f');
    expect(q(db, 'A', adv('pg_advisory_unlock'))).toBe('t');
    expect(q(db, 'B', adv('pg_try_advisory_lock'))).toBe('t');
  });
});

describe('the advisory table itself', () => {
  it('a key with no holder and no waiter left is removed from the table', () => {
    const table: AdvisoryTable = {};
    acquireAdvisory(table, k1, { sessionId: 'A', mode: X, scope: 'session' }, true);
    expect(Object.keys(table)).toEqual(['b:1']);
    expect(unlockAdvisory(table, k1, 'A', X)).toBe(true);
    expect(table).toEqual({});
  });

  it('a session that already waits cannot queue a second request', () => {
    const table: AdvisoryTable = {};
    acquireAdvisory(table, k1, { sessionId: 'A', mode: X, scope: 'session' }, true);
    acquireAdvisory(table, k1, { sessionId: 'B', mode: X, scope: 'session' }, true);
    expect(() => acquireAdvisory(table, k1, { sessionId: 'B', mode: X, scope: 'session' }, true)).toThrow('session B already waits for an advisory lock');
    expect(() => acquireAdvisory(table, k1, { sessionId: 'C', mode: X, scope: 'session' }, true)).not.toThrow();
  });

  it('grants the named session its queued request, leaving the others queued', () => {
    const table: AdvisoryTable = {};
    acquireAdvisory(table, k1, { sessionId: 'A', mode: S, scope: 'session' }, true);
    acquireAdvisory(table, k1, { sessionId: 'B', mode: X, scope: 'session' }, true);
    acquireAdvisory(table, k1, { sessionId: 'C', mode: S, scope: 'session' }, true);
    grantQueuedAdvisory(table, k1, 'C');
    expect(advisoryLockRows(table).map((r) => `${r.sessionId} ${r.mode} ${r.granted ? 't' : 'f'}`)).toEqual(['A ShareLock t', 'C ShareLock t', 'B ExclusiveLock f']);
  });

  it('refuses to grant a session that has no queued request, whether the key is in the table or not', () => {
    const table: AdvisoryTable = {};
    expect(() => grantQueuedAdvisory(table, k1, 'A')).toThrow('session A has no queued request for advisory 1');
    acquireAdvisory(table, k1, { sessionId: 'A', mode: X, scope: 'session' }, true);
    expect(() => grantQueuedAdvisory(table, { kind: 'pair', key1: 1, key2: 2 }, 'A')).toThrow('session A has no queued request for advisory (1,2)');
    expect(() => grantQueuedAdvisory(table, k1, 'A')).toThrow('session A has no queued request for advisory 1');
  });

  it('lists pair keys in numeric order after the bigint keys', () => {
    const table: AdvisoryTable = {};
    for (const key of [{ kind: 'pair', key1: 2, key2: 1 }, { kind: 'pair', key1: 1, key2: 5 }, { kind: 'pair', key1: 1, key2: 3 }, { kind: 'bigint', key: 9 }] as const) {
      acquireAdvisory(table, key, { sessionId: 'A', mode: X, scope: 'session' }, true);
    }
    expect(advisoryLockRows(table).map((r) => r.objectDescription)).toEqual(['advisory 9', 'advisory (1,3)', 'advisory (1,5)', 'advisory (2,1)']);
  });

  it('compareText orders by code unit: -1, 1 or 0', () => {
    expect(compareText('a', 'b')).toBe(-1);
    expect(compareText('b', 'a')).toBe(1);
    expect(compareText('B', 'a')).toBe(-1);
    expect(compareText('a', 'a')).toBe(0);
  });
});
