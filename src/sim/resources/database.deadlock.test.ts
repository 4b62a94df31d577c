// Deadlock detection of the simulated PostgreSQL database (issue 17). Every expected outcome and
// DETAIL shape was checked against PostgreSQL 15 with 2–3 sessions and a per-session
// deadlock_timeout (the server names processes by pid and locks by OID; the model by session id,
// relation name and key — see deadlock.ts).
import { Database, lockInWords, type DeadlockCheck } from './database';
import { advisoryLockTag } from './deadlock';
import { renderReply } from './renderSql';
import type { DbCompletion, Stmt } from './sqlTypes';
import { BEGIN, ITEMS, ROLLBACK, adv, bump, dbWith, forUpdate, insInv, invTable, run } from '../testing/dbFixture';

const inv = invTable();
const setup = (...sessions: string[]): Database => dbWith([ITEMS, inv], ...sessions);

function deadlocked(check: DeadlockCheck): readonly DbCompletion[] {
  if (check.kind !== 'deadlock') throw new Error(`expected a deadlock, got ${check.kind}`);
  return check.completions;
}

describe('Database.checkDeadlock', () => {
  it('two sessions taking two advisory locks in opposite order: the checking one fails with 40P01, the other proceeds', () => {
    const db = setup('a', 'b');
    run(db, 'a', BEGIN);
    run(db, 'b', BEGIN);
    run(db, 'b', adv('pg_advisory_xact_lock', 2));
    run(db, 'a', adv('pg_advisory_xact_lock', 1));
    expect(run(db, 'a', adv('pg_advisory_xact_lock', 2))).toMatch(/^waits/);
    expect(run(db, 'b', adv('pg_advisory_xact_lock', 1))).toMatch(/^waits/);
    const [own, ...others] = deadlocked(db.checkDeadlock('b'));
    expect(own).toMatchObject({ sessionId: 'b', reply: { status: 'error' } });
    const err = own?.reply.status === 'error' ? own.reply.error : null;
    expect(err).toEqual({
      code: '40P01',
      message: 'deadlock detected',
      detail:
        'Process b waits for ExclusiveLock on advisory lock [lockscope,0,1,1]; blocked by process a.\n' +
        'Process a waits for ExclusiveLock on advisory lock [lockscope,0,2,1]; blocked by process b.',
      hint: 'See server log for query details.',
    });
    // The transaction is aborted at the error: its xact lock is released before any ROLLBACK.
    expect(others.map((c) => `${c.sessionId} ${renderReply(c.reply)}`)).toEqual(['a (void)']);
    expect(db.sessionState('b')).toMatchObject({ inTransaction: true, aborted: true, waiting: null, advisoryLocks: [] });
    expect(run(db, 'b', { op: 'select', table: 'items', columns: ['id'], where: {} })).toMatch(/^ERROR 25P02/);
    expect(run(db, 'b', ROLLBACK)).toBe('ROLLBACK');
  });

  it('session-level advisory locks survive the 40P01: the other waiter keeps waiting until they are unlocked', () => {
    const db = setup('a', 'b');
    run(db, 'a', BEGIN);
    run(db, 'b', BEGIN);
    run(db, 'a', adv('pg_advisory_xact_lock', 1));
    run(db, 'b', adv('pg_advisory_lock', 2));
    run(db, 'a', adv('pg_advisory_lock', 2));
    run(db, 'b', adv('pg_advisory_xact_lock', 1));
    expect(deadlocked(db.checkDeadlock('b'))).toHaveLength(1);
    expect(db.sessionState('a').waiting).not.toBeNull();
    run(db, 'b', ROLLBACK);
    expect(db.sessionState('a').waiting).not.toBeNull();
    const r = db.execute('b', { op: 'advisoryUnlockAll' });
    expect(r.completions.map((c) => c.sessionId)).toEqual(['a']);
  });

  it('a check with no cycle changes nothing, and a waiter not on the cycle does not find it', () => {
    const db = setup('a', 'b', 'c');
    run(db, 'a', adv('pg_advisory_lock', 1));
    run(db, 'a', adv('pg_advisory_lock', 3));
    run(db, 'b', adv('pg_advisory_lock', 2));
    run(db, 'c', adv('pg_advisory_lock', 3)); // c → a, not on the cycle below
    expect(db.checkDeadlock('c')).toEqual({ kind: 'none' });
    run(db, 'a', adv('pg_advisory_lock', 2));
    run(db, 'b', adv('pg_advisory_lock', 1));
    expect(db.checkDeadlock('c')).toEqual({ kind: 'none' });
    expect(db.sessionState('c').waiting).not.toBeNull();
    expect(deadlocked(db.checkDeadlock('a'))[0]?.sessionId).toBe('a');
  });

  it('row locks, a tuple-lock queue and a unique-insert wait: the DETAIL follows the cycle from the checker', () => {
    const db = setup('a', 'b', 'c');
    for (const s of ['a', 'b', 'c']) run(db, s, BEGIN);
    run(db, 'a', bump(1));
    run(db, 'c', insInv(1, 7));
    expect(run(db, 'b', forUpdate(1))).toMatch(/^waits/); // holds the tuple lock, waits for a's transaction
    expect(run(db, 'c', bump(1))).toMatch(/^waits/); // waits for the tuple lock b holds
    expect(run(db, 'a', insInv(2, 7))).toMatch(/^waits/); // waits for c's transaction (order_id 7)
    const graph = db.waitForGraph().map((e) => `${e.from}→${e.to} ${e.kind} ${e.mode} ${e.lock}`);
    expect(graph).toEqual([
      'b→a hard ShareLock transaction 1',
      'c→b hard ExclusiveLock tuple (id=1) of relation items of database lockscope',
      'a→c hard ShareLock transaction 3',
    ]);
    const [own, ...others] = deadlocked(db.checkDeadlock('c'));
    expect(own?.reply.status === 'error' && own.reply.error.detail).toBe(
      'Process c waits for ExclusiveLock on tuple (id=1) of relation items of database lockscope; blocked by process b.\n' +
        'Process b waits for ShareLock on transaction 1; blocked by process a.\n' +
        'Process a waits for ShareLock on transaction 3; blocked by process c.',
    );
    // c's row is rolled back at the error: a's insert goes in; b still waits for a.
    expect(others.map((x) => `${x.sessionId} ${renderReply(x.reply)}`)).toEqual(['a INSERT 0 1']);
    expect(db.sessionState('b').waiting).not.toBeNull();
  });

  it('a key-changing UPDATE and DELETE request AccessExclusiveLock on the tuple, a non-key UPDATE ExclusiveLock', () => {
    const db = setup('a', 'b', 'c', 'd');
    run(db, 'a', BEGIN);
    run(db, 'a', bump(1));
    run(db, 'b', bump(1));
    run(db, 'c', { op: 'update', table: 'items', set: { id: 9 }, where: { id: 1 } });
    run(db, 'd', { op: 'delete', table: 'items', where: { id: 1 } });
    expect(db.waitForGraph().map((e) => `${e.from}→${e.to} ${e.kind} ${e.mode}`)).toEqual([
      'b→a hard ShareLock',
      'c→b hard AccessExclusiveLock',
      'd→b hard AccessExclusiveLock',
      'd→c soft AccessExclusiveLock',
    ]);
  });

  it('a cycle only through a waiter queued ahead is soft: the queue is rearranged, the shared request granted, nobody fails', () => {
    const db = setup('a', 'b', 'c');
    run(db, 'a', adv('pg_advisory_lock_shared', 7));
    run(db, 'c', adv('pg_advisory_lock', 8));
    run(db, 'b', adv('pg_advisory_lock', 7)); // b → a (hard)
    run(db, 'c', adv('pg_advisory_lock_shared', 7)); // c → b (soft: queued behind b's exclusive request)
    run(db, 'a', adv('pg_advisory_lock', 8)); // a → c (hard)
    const check = db.checkDeadlock('a');
    expect(check.kind).toBe('soft');
    if (check.kind !== 'soft') return;
    expect(check.cycle.map((e) => `${e.from}→${e.to} ${e.kind}`)).toEqual(['a→c hard', 'c→b soft', 'b→a hard']);
    // PostgreSQL 15: "avoided deadlock … by rearranging queue order"; C's shared lock is granted.
    expect(check.completions.map((x) => `${x.sessionId} ${renderReply(x.reply)}`)).toEqual(['c (void)']);
    expect(db.sessionState('a').waiting).not.toBeNull();
    expect(db.sessionState('b').waiting).not.toBeNull();
    expect(db.execute('c', { op: 'advisoryUnlockAll' }).completions.map((x) => x.sessionId)).toEqual(['a']);
  });

  it('a soft cycle whose reordering meets a hard cycle elsewhere fails the checker, with its own (soft) cycle as DETAIL', () => {
    // Found by the fidelity suite (generated deadlocks, seed 4343): s2 and s1 deadlock with each
    // other; s3's shared request is on a soft cycle through them, and PostgreSQL gives s3 the 40P01.
    const db = setup('s1', 's2', 's3');
    for (const s of ['s1', 's2', 's3']) run(db, s, BEGIN);
    run(db, 's2', adv('pg_advisory_xact_lock', 11));
    run(db, 's1', adv('pg_advisory_xact_lock', 12));
    run(db, 's3', adv('pg_advisory_xact_lock_shared', 12)); // s3 → s1
    run(db, 's1', adv('pg_advisory_xact_lock', 11)); // s1 → s2
    run(db, 's2', adv('pg_advisory_lock', 12)); // s2 → s1 (hard), s2 → s3 (soft: queued behind s3)
    const [own, ...others] = deadlocked(db.checkDeadlock('s3'));
    expect(own?.reply.status === 'error' && own.reply.error.detail).toBe(
      'Process s3 waits for ShareLock on advisory lock [lockscope,0,12,1]; blocked by process s1.\n' +
        'Process s1 waits for ExclusiveLock on advisory lock [lockscope,0,11,1]; blocked by process s2.\n' +
        'Process s2 waits for ExclusiveLock on advisory lock [lockscope,0,12,1]; blocked by process s3.',
    );
    expect(others).toEqual([]);
    expect(db.locks().filter((l) => !l.granted).map((l) => l.sessionId)).toEqual(['s1', 's2']);
  });

  it('an advisory upgrade against a waiter that holds the key too fails at once (ProcSleep early deadlock)', () => {
    const db = setup('a', 'b');
    run(db, 'a', adv('pg_advisory_lock_shared', 7));
    run(db, 'b', adv('pg_advisory_lock_shared', 7));
    expect(run(db, 'b', adv('pg_advisory_lock', 7))).toMatch(/^waits/);
    expect(run(db, 'a', adv('pg_advisory_lock', 7))).toBe(
      'ERROR 40P01 deadlock detected (Process a waits for ExclusiveLock on advisory lock [lockscope,0,7,1]; blocked by process b.\n' +
        'Process b waits for ExclusiveLock on advisory lock [lockscope,0,7,1]; blocked by process a.)',
    );
    // Nothing of a's request stays queued; its session-level shared lock stays, so b still waits.
    expect(db.locks().filter((l) => !l.granted).map((l) => l.sessionId)).toEqual(['b']);
    expect(db.execute('a', adv('pg_advisory_unlock_shared', 7)).completions.map((c) => c.sessionId)).toEqual(['b']);
  });

  it('pair keys and negative bigint keys render as PostgreSQL lock tags', () => {
    const db = setup('a', 'b');
    const pair: Stmt = { op: 'advisory', fn: 'pg_advisory_lock', key: { kind: 'pair', key1: -1, key2: 5 } };
    run(db, 'a', pair);
    run(db, 'b', adv('pg_advisory_lock', -2));
    run(db, 'a', adv('pg_advisory_lock', -2));
    run(db, 'b', pair);
    const err = deadlocked(db.checkDeadlock('a'))[0];
    expect(err?.reply.status === 'error' && err.reply.error.detail).toBe(
      'Process a waits for ExclusiveLock on advisory lock [lockscope,4294967295,4294967294,1]; blocked by process b.\n' +
        'Process b waits for ExclusiveLock on advisory lock [lockscope,4294967295,5,2]; blocked by process a.',
    );
  });

  it('throws for a session that does not wait, and every wait gets its own waitId', () => {
    const db = setup('a', 'b');
    expect(() => db.checkDeadlock('a')).toThrow(/no waiting statement/);
    run(db, 'a', adv('pg_advisory_lock', 1));
    run(db, 'b', adv('pg_advisory_lock', 1));
    const first = db.sessionState('b').waiting?.waitId;
    db.cancelWaiting('b', { code: '57014', message: 'canceling statement due to user request' });
    run(db, 'b', adv('pg_advisory_lock', 1));
    expect(db.sessionState('b').waiting?.waitId).toBeGreaterThan(first ?? Infinity);
  });
});

describe('lockInWords: a DETAIL lock tag as the narration and the inspector say it', () => {
  it('reads advisory keys back (bigint, negative, int4 pair), tuples and transactions', () => {
    expect(lockInWords(advisoryLockTag({ kind: 'bigint', key: 42 }))).toBe('advisory lock 42');
    expect(lockInWords(advisoryLockTag({ kind: 'bigint', key: -5 }))).toBe('advisory lock -5');
    expect(lockInWords(advisoryLockTag({ kind: 'bigint', key: 2 ** 40 + 3 }))).toBe(`advisory lock ${2 ** 40 + 3}`);
    expect(lockInWords(advisoryLockTag({ kind: 'pair', key1: 1, key2: -2 }))).toBe('advisory lock (1,-2)');
    expect(lockInWords('tuple (id=7) of relation items of database lockscope')).toBe('row id=7 of items');
    expect(lockInWords('transaction 12')).toBe('the end of transaction 12');
    expect(lockInWords('relation 5')).toBe('relation 5');
  });
});
