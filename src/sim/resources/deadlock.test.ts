// The wait-for graph of the simulated PostgreSQL database (deadlock.ts): which edges each kind of
// wait has, as PostgreSQL 15's deadlock.c builds them (hard: a conflicting holder; soft: a
// conflicting request queued ahead), and the cycle search over them. The graph decides who fails
// with 40P01 and what its DETAIL says (database.deadlock.test.ts), so every edge matters.
import { Database, lockInWords } from './database';
import { findCycleThrough, sessionsOnHardCycles, type WaitEdge } from './deadlock';
import { renderReply } from './renderSql';
import { BEGIN, COMMIT, ITEMS, adv, bump, dbWith, forUpdate, invTable, run } from '../testing/dbFixture';

// A second table whose unique key is not its primary key, with rows whose rids repeat items' rids.
const inv = invTable([{ id: 1, order_id: 10, note: 'a' }, { id: 2, order_id: 20, note: 'b' }], true);
/** A database whose first session, `idle`, never opens a transaction (it comes first in the session list). */
const setup = (...sessions: string[]): Database => dbWith([ITEMS, inv], 'idle', ...sessions);

function graph(db: Database): string[] {
  return db.waitForGraph().map((e) => `${e.from}→${e.to} ${e.kind} ${e.mode} ${e.lock}`);
}

describe('waitForGraph: advisory locks', () => {
  it('an upgrade from shared to exclusive waits only for the other holder, not for its own shared hold, and is no deadlock', () => {
    const db = setup('a', 'b');
    run(db, 'a', adv('pg_advisory_lock_shared', 7));
    run(db, 'b', adv('pg_advisory_lock_shared', 7));
    expect(run(db, 'a', adv('pg_advisory_lock', 7))).toMatch(/^waits/);
    expect(graph(db)).toEqual(['a→b hard ExclusiveLock advisory lock [lockscope,0,7,1]']);
    expect(db.checkDeadlock('a')).toEqual({ kind: 'none' });
    expect(db.sessionState('a').waiting).not.toBeNull();
  });

  it('one edge per holder, however many holds (session and transaction level) the holder has', () => {
    const db = setup('a', 'b', 'c');
    run(db, 'b', BEGIN);
    run(db, 'b', adv('pg_advisory_lock_shared', 7));
    run(db, 'b', adv('pg_advisory_xact_lock_shared', 7));
    run(db, 'c', adv('pg_advisory_lock_shared', 7));
    expect(run(db, 'a', adv('pg_advisory_lock', 7))).toMatch(/^waits/);
    expect(graph(db)).toEqual([
      'a→b hard ExclusiveLock advisory lock [lockscope,0,7,1]',
      'a→c hard ExclusiveLock advisory lock [lockscope,0,7,1]',
    ]);
  });

  it('a session both holding the key and queued ahead for an upgrade gets a hard and a soft edge', () => {
    const db = setup('a', 'b', 'c');
    run(db, 'b', adv('pg_advisory_lock_shared', 7));
    run(db, 'c', adv('pg_advisory_lock_shared', 7));
    expect(run(db, 'b', adv('pg_advisory_lock', 7))).toMatch(/^waits/); // b → c
    expect(run(db, 'a', adv('pg_advisory_lock', 7))).toMatch(/^waits/);
    expect(graph(db)).toEqual([
      'b→c hard ExclusiveLock advisory lock [lockscope,0,7,1]',
      'a→b hard ExclusiveLock advisory lock [lockscope,0,7,1]',
      'a→c hard ExclusiveLock advisory lock [lockscope,0,7,1]',
      'a→b soft ExclusiveLock advisory lock [lockscope,0,7,1]',
    ]);
  });

  it('soft edges go only to requests queued ahead that conflict: shared waiters do not wait for each other', () => {
    const db = setup('a', 'b', 'c', 'd');
    run(db, 'a', adv('pg_advisory_lock', 7));
    run(db, 'b', adv('pg_advisory_lock_shared', 7));
    run(db, 'c', adv('pg_advisory_lock_shared', 7));
    run(db, 'd', adv('pg_advisory_lock', 7));
    expect(graph(db).map((e) => e.split(' advisory')[0])).toEqual([
      'b→a hard ShareLock',
      'c→a hard ShareLock',
      'd→a hard ExclusiveLock',
      'd→b soft ExclusiveLock',
      'd→c soft ExclusiveLock',
    ]);
  });
});

describe('waitForGraph: row locks', () => {
  it('the tuple-lock queue is per row: waiters for two rows of one transaction, and for rows of two tables with the same position, each wait for the transaction', () => {
    const db = setup('a', 'b', 'c', 'd', 'e');
    run(db, 'a', BEGIN);
    run(db, 'a', bump(1));
    run(db, 'a', bump(2));
    run(db, 'a', { op: 'update', table: 'inv', set: { note: 'x' }, where: { id: 1 } });
    expect(run(db, 'b', forUpdate(1))).toMatch(/^waits/);
    expect(run(db, 'c', forUpdate(2))).toMatch(/^waits/);
    expect(run(db, 'd', { op: 'select', table: 'inv', columns: ['id'], where: { id: 1 }, lock: 'forUpdate' })).toMatch(/^waits/);
    expect(run(db, 'e', bump(2))).toMatch(/^waits/);
    expect(graph(db)).toEqual([
      'b→a hard ShareLock transaction 1',
      'c→a hard ShareLock transaction 1',
      'd→a hard ShareLock transaction 1',
      'e→c hard ExclusiveLock tuple (id=2) of relation items of database lockscope',
    ]);
  });

  it('the tuple lock of a second table names the row by that table\'s key and is AccessExclusiveLock for an UPDATE of its unique (non-primary) key', () => {
    const db = setup('a', 'b', 'c', 'd');
    run(db, 'a', BEGIN);
    run(db, 'a', { op: 'update', table: 'inv', set: { note: 'x' }, where: { id: 2 } });
    expect(run(db, 'b', { op: 'update', table: 'inv', set: { note: 'y' }, where: { id: 2 } })).toMatch(/^waits/);
    expect(run(db, 'c', { op: 'update', table: 'inv', set: { order_id: 21 }, where: { id: 2 } })).toMatch(/^waits/);
    expect(run(db, 'd', { op: 'update', table: 'inv', set: { note: 'z' }, where: { id: 2 } })).toMatch(/^waits/);
    expect(graph(db)).toEqual([
      'b→a hard ShareLock transaction 1',
      'c→b hard AccessExclusiveLock tuple (id=2) of relation inv of database lockscope',
      'd→b hard ExclusiveLock tuple (id=2) of relation inv of database lockscope',
      'd→c soft ExclusiveLock tuple (id=2) of relation inv of database lockscope',
    ]);
  });

  it('the tuple lock names the version the waiters found, not the holder\'s uncommitted new key', () => {
    const db = setup('a', 'b', 'c');
    run(db, 'a', BEGIN);
    run(db, 'a', { op: 'update', table: 'items', set: { id: 20 }, where: { id: 2 } });
    expect(run(db, 'b', forUpdate(2))).toMatch(/^waits/);
    expect(run(db, 'c', bump(2))).toMatch(/^waits/);
    expect(graph(db)).toEqual([
      'b→a hard ShareLock transaction 1',
      'c→b hard ExclusiveLock tuple (id=2) of relation items of database lockscope',
    ]);
  });

  it('an UPDATE that followed the update chain waits for the newest writer\'s transaction outside the tuple-lock queue; a later locker queues on its own', () => {
    // C's committed UPDATE releases A and B; A updates the row again, B follows the chain to A's
    // version and waits for A's xid without the tuple lock (as pg_locks shows: pgLocks.test.ts).
    const db = setup('A', 'B', 'C', 'D', 'E');
    run(db, 'C', BEGIN);
    run(db, 'C', bump(1));
    run(db, 'A', BEGIN);
    run(db, 'B', BEGIN);
    expect(run(db, 'A', bump(1))).toMatch(/^waits/);
    expect(run(db, 'B', bump(1))).toMatch(/^waits/);
    expect(db.execute('C', COMMIT).completions.map((c) => `${c.sessionId} ${renderReply(c.reply)}`)).toEqual(['A UPDATE 1']);
    expect(run(db, 'D', forUpdate(1))).toMatch(/^waits/);
    expect(run(db, 'E', forUpdate(1))).toMatch(/^waits/);
    expect(graph(db)).toEqual([
      'B→A hard ShareLock transaction 2',
      'D→A hard ShareLock transaction 2',
      'E→D hard AccessExclusiveLock tuple (id=1) of relation items of database lockscope',
    ]);
  });
});

describe('findCycleThrough and sessionsOnHardCycles', () => {
  const e = (from: string, to: string, kind: 'hard' | 'soft'): WaitEdge => ({ from, to, kind, mode: 'ExclusiveLock', lock: 'advisory lock [lockscope,0,1,1]' });
  const path = (c: readonly WaitEdge[] | null): string | null => (c ? c.map((x) => `${x.from}→${x.to}`).join(' ') : null);

  it('a cycle through a soft edge counts only when soft edges are allowed', () => {
    const edges = [e('a', 'b', 'hard'), e('b', 'a', 'soft')];
    expect(findCycleThrough(edges, 'a', false)).toBeNull();
    expect(path(findCycleThrough(edges, 'a', true))).toBe('a→b b→a');
  });

  it('the hard-only search skips a soft branch and finds the hard cycle behind it', () => {
    const edges = [e('a', 'b', 'hard'), e('b', 'c', 'soft'), e('c', 'a', 'hard'), e('b', 'd', 'hard'), e('d', 'a', 'hard')];
    expect(path(findCycleThrough(edges, 'a', false))).toBe('a→b b→d d→a');
    expect(path(findCycleThrough(edges, 'a', true))).toBe('a→b b→c c→a');
  });

  it('sessionsOnHardCycles: every session on a cycle of hard edges, sorted; not those only waiting for one, nor those on soft cycles', () => {
    const edges = [e('s2', 's1', 'hard'), e('s3', 's1', 'hard'), e('s1', 's2', 'hard'), e('x', 'y', 'hard'), e('y', 'x', 'soft'), e('s2', 'x', 'hard')];
    expect(sessionsOnHardCycles(edges)).toEqual(['s1', 's2']);
    expect(sessionsOnHardCycles([e('a', 'b', 'soft'), e('b', 'a', 'hard')])).toEqual([]);
    expect(sessionsOnHardCycles([])).toEqual([]);
  });
});

describe('lockInWords translates whole lock tags only', () => {
  it('leaves other PostgreSQL lock tags, and text that merely contains a tag, as they are', () => {
    for (const tag of [
      'speculative token 3 of transaction 745',
      'virtual transaction 4/12',
      'transaction 7 of subtransaction 2',
      'advisory lock [lockscope,0,1,1] and more',
      'the advisory lock [lockscope,0,1,1]',
      'a tuple (id=1) of relation items of database lockscope',
    ]) {
      expect(lockInWords(tag)).toBe(tag);
    }
  });
});

describe('rearranging advisory wait queues (DeadLockCheckRecurse)', () => {
  it('only the soft edge is reversed: a holder\'s upgrade queued ahead stays ahead of the checker and is granted first', () => {
    // Run on PostgreSQL 15 with c's deadlock_timeout 1.5 s and the others' 60 s: no 40P01, b gets
    // its shared lock 8 (moved ahead of Z's exclusive request); when b then unlocks 7, a's upgrade
    // to exclusive is granted and c keeps waiting.
    const db = setup('a', 'b', 'c', 'Z', 'H');
    run(db, 'a', adv('pg_advisory_lock_shared', 7));
    run(db, 'b', adv('pg_advisory_lock_shared', 7));
    run(db, 'c', adv('pg_advisory_lock', 9));
    run(db, 'H', adv('pg_advisory_lock_shared', 8));
    run(db, 'a', adv('pg_advisory_lock', 7)); // a → b (hard): an upgrade
    run(db, 'c', adv('pg_advisory_lock', 7)); // c → a, c → b (hard), c → a (soft: a's upgrade is queued ahead)
    run(db, 'Z', adv('pg_advisory_lock', 8)); // Z → H (hard)
    run(db, 'b', adv('pg_advisory_lock_shared', 8)); // b → Z (soft)
    run(db, 'H', adv('pg_advisory_lock', 9)); // H → c (hard)
    const check = db.checkDeadlock('c');
    expect(check.kind).toBe('soft');
    if (check.kind !== 'soft') return;
    expect(check.cycle.map((e) => `${e.from}→${e.to} ${e.kind}`)).toEqual(['c→a hard', 'a→b hard', 'b→Z soft', 'Z→H hard', 'H→c hard']);
    expect(check.completions.map((x) => `${x.sessionId} ${renderReply(x.reply)}`)).toEqual(['b (void)']);
    expect(db.locks().filter((l) => l.objectDescription === 'advisory 7' && !l.granted).map((l) => l.sessionId)).toEqual(['a', 'c']);
    expect(db.execute('b', adv('pg_advisory_unlock_shared', 7)).completions.map((x) => `${x.sessionId} ${renderReply(x.reply)}`)).toEqual(['a (void)']);
    expect(db.sessionState('c').waiting).not.toBeNull();
  });
});

describe('the 40P01 DETAIL when the checker is on a hard cycle and, found first, a soft one', () => {
  // PostgreSQL 15's DeadLockCheck reports the first cycle FindLockCycle meets over hard AND soft
  // edges (deadlock.c: "Call FindLockCycle one more time, to record the correct deadlockDetails[]
  // for the basic state with no rearrangements"). Run on PostgreSQL 15 with a's deadlock_timeout
  // 1.5 s and the others' 60 s: a gets the DETAIL below (b → c → a, c's shared request queued
  // behind a's), c then gets its lock. The model used to name the hard cycle b → d → a.
  it('names the first cycle over all edges, as PostgreSQL does', () => {
    const db = setup('a', 'b', 'c', 'd');
    run(db, 'b', adv('pg_advisory_lock_shared', 1));
    run(db, 'c', adv('pg_advisory_lock_shared', 2));
    run(db, 'd', adv('pg_advisory_lock_shared', 2));
    run(db, 'a', adv('pg_advisory_lock', 3));
    run(db, 'a', adv('pg_advisory_lock', 1)); // a → b (hard)
    run(db, 'c', adv('pg_advisory_lock_shared', 1)); // c → a (soft: queued behind a's exclusive request)
    run(db, 'd', adv('pg_advisory_lock', 3)); // d → a (hard)
    run(db, 'b', adv('pg_advisory_lock', 2)); // b → c, b → d (hard)
    const check = db.checkDeadlock('a');
    expect(check.kind).toBe('deadlock');
    if (check.kind !== 'deadlock') return;
    const [own, ...others] = check.completions;
    expect(own?.reply.status === 'error' && own.reply.error.detail).toBe(
      'Process a waits for ExclusiveLock on advisory lock [lockscope,0,1,1]; blocked by process b.\n' +
        'Process b waits for ExclusiveLock on advisory lock [lockscope,0,2,1]; blocked by process c.\n' +
        'Process c waits for ShareLock on advisory lock [lockscope,0,1,1]; blocked by process a.',
    );
    expect(others.map((c) => `${c.sessionId} ${renderReply(c.reply)}`)).toEqual(['c (void)']);
  });
});

describe('a soft cycle whose first reordering meets a hard cycle elsewhere, and whose second reordering resolves it', () => {
  // PostgreSQL 15's DeadLockCheckRecurse tries the next soft edge when a reordering leads to a
  // hard cycle (TestConfiguration returns -1 for that configuration only). Run on PostgreSQL 15
  // with X's deadlock_timeout 1.5 s and the others' 60 s: no 40P01, X keeps waiting, T is granted
  // its shared lock 2 (T's request moved ahead of X's). The model used to give up at the first
  // hard cycle and fail X. (R and Q deadlock each other; their own timers find that.)
  it('avoids the deadlock by moving T ahead of X, as PostgreSQL does', () => {
    const db = setup('X', 'P', 'R', 'Q', 'T');
    run(db, 'Q', adv('pg_advisory_lock_shared', 1));
    run(db, 'T', adv('pg_advisory_lock_shared', 1));
    run(db, 'P', adv('pg_advisory_lock_shared', 2));
    run(db, 'R', adv('pg_advisory_lock', 3));
    run(db, 'R', adv('pg_advisory_lock', 1)); // R → Q, R → T (hard)
    run(db, 'P', adv('pg_advisory_lock_shared', 1)); // P → R (soft)
    run(db, 'Q', adv('pg_advisory_lock', 3)); // Q → R (hard): R and Q deadlock each other
    run(db, 'X', adv('pg_advisory_lock', 2)); // X → P (hard)
    run(db, 'T', adv('pg_advisory_lock_shared', 2)); // T → X (soft)
    const check = db.checkDeadlock('X');
    expect(check.kind).toBe('soft');
    if (check.kind !== 'soft') return;
    expect(check.completions.map((c) => `${c.sessionId} ${renderReply(c.reply)}`)).toEqual(['T (void)']);
    expect(db.sessionState('X').waiting).not.toBeNull();
  });
});
