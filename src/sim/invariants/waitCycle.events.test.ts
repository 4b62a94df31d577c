// noWaitCycle fed the real start of a cycle and then one hand-made ending: a checker reads event
// data only (types.ts), so each way a cycle can end — every SQLSTATE that fails the waiting
// statement, a COMMIT or ROLLBACK at the instant it goes through or earlier, an etcd acquire, a
// key that changed hands behind the waiter's back — is pinned on the exact event that decides it,
// with the words the finding then says.
import { describe, expect, it } from 'vitest';
import { runScenario } from '../engine/run';
import type { CheckedEvent } from '../engine/trace';
import type { Scenario } from '../scenario/schema';
import { APP_CYCLE_STUCK as CYCLE, appWaitCycle } from '../testing/appWaitCycle';
import { checkTrace } from './index';


/**
 * The appWaitCycle run up to the instant the cycle is found (100 ms: A's SET NX is refused while
 * B's `SELECT … FOR UPDATE` on c2 waits for A's row lock), and B's waiting event (to copy).
 */
function cycleStart(): { readonly events: CheckedEvent[]; readonly bWaits: CheckedEvent; readonly aCommits: CheckedEvent } {
  const r = runScenario({ ...appWaitCycle, mechanism: { ...appWaitCycle.mechanism, acquireTimeoutMs: 3_000 } });
  const events = r.events.filter((e) => e.atMs <= 100).map(({ command: _c, reply: _r, narration: _n, fact: _f, ...data }) => data);
  const bWaits = events.find((e) => e.actor === 'B' && e.data?.t === 'wait')!;
  const aRollback = r.events.find((e) => e.actor === 'A' && e.call?.resource === 'db' && (e.call.command as { op: string }).op === 'rollback')!;
  return { events, bWaits, aCommits: { ...aRollback, call: { ...aRollback.call!, command: { op: 'commit' }, reply: { status: 'ok', tag: 'COMMIT', rows: [] } } } as CheckedEvent };
}

/** The one noWaitCycle finding over `events`: its message and the times and actors of the events it cites. */
function cycleOver(events: readonly CheckedEvent[], scenario: Scenario = appWaitCycle) {
  const found = checkTrace(scenario, events).filter((f) => f.invariant === 'noWaitCycle');
  expect(found).toHaveLength(1);
  return { message: found[0]!.message, cited: found[0]!.eventIds.map((id) => { const e = events.find((x) => x.id === id)!; return `${e.atMs} ${e.actor}`; }) };
}

/** B's waiting statement answered at `atMs` with `reply` (its wait ends). */
function bAnswered(bWaits: CheckedEvent, id: number, atMs: number, reply: object): CheckedEvent {
  return { ...bWaits, id: `e${id}`, atMs, state: 'working', data: { t: 'wait', on: 'db', phase: 'end', sinceMs: 10 }, call: { ...bWaits.call!, reply } } as CheckedEvent;
}

describe('noWaitCycle: the SQLSTATE that failed the waiting statement says what ended the cycle', () => {
  it.each([
    ['57014', 'statement_timeout cancelled B\'s statement (57014)'],
    ['55P03', 'lock_timeout cancelled B\'s wait (55P03)'],
    ['40P01', 'PostgreSQL\'s deadlock check failed B\'s statement (40P01)'],
    ['25P03', 'the server ended B\'s session (idle_in_transaction_session_timeout, 25P03)'],
    // A code with no words of its own is still named, not silently dropped.
    ['XX000', 'B\'s statement failed (XX000)'],
  ])('%s', (code, words) => {
    const { events, bWaits } = cycleStart();
    const c = cycleOver([...events, bAnswered(bWaits, 50, 2_000, { status: 'error', error: { code, message: 'x' } })]);
    expect(c.message).toBe(`${CYCLE}: it lasted until 2 s, when ${words}`);
    expect(c.cited).toEqual(['10 B', '100 A', '2000 B']);
  });
});

describe('noWaitCycle: a COMMIT or ROLLBACK lets the waiter through only at its own instant', () => {
  const through = { status: 'ok', tag: 'SELECT 1', rows: [{ balance: 100 }] };

  it('A\'s ROLLBACK at 2 s and B\'s statement at 2 s: A rolled back, and B\'s statement went through', () => {
    const { events, bWaits, aCommits } = cycleStart();
    const rollback = { ...aCommits, id: 'e50', atMs: 2_000, call: { ...aCommits.call!, command: { op: 'rollback' }, reply: { status: 'ok', tag: 'ROLLBACK', rows: [] } } } as CheckedEvent;
    expect(cycleOver([...events, rollback, bAnswered(bWaits, 51, 2_000, through)]).message).toBe(`${CYCLE}: it lasted until 2 s, when A rolled back, and B's statement went through`);
  });

  it('A\'s COMMIT at 2 s: A committed', () => {
    const { events, bWaits, aCommits } = cycleStart();
    expect(cycleOver([...events, { ...aCommits, id: 'e50', atMs: 2_000 }, bAnswered(bWaits, 51, 2_000, through)]).message).toBe(`${CYCLE}: it lasted until 2 s, when A committed, and B's statement went through`);
  });

  it('a COMMIT one millisecond earlier, or one that failed, is not what let B through', () => {
    const { events, bWaits, aCommits } = cycleStart();
    const plain = `${CYCLE}: it lasted until 2 s, when B's statement went through`;
    expect(cycleOver([...events, { ...aCommits, id: 'e50', atMs: 1_999 }, bAnswered(bWaits, 51, 2_000, through)]).message).toBe(plain);
    const failed = { ...aCommits, id: 'e50', atMs: 2_000, call: { ...aCommits.call!, reply: { status: 'error', error: { code: '40001', message: 'x' } } } } as CheckedEvent;
    expect(cycleOver([...events, failed, bAnswered(bWaits, 51, 2_000, through)]).message).toBe(plain);
    // Nor another worker's COMMIT at that instant: B waited for A.
    expect(cycleOver([...events, { ...aCommits, id: 'e50', atMs: 2_000, actor: 'C' }, bAnswered(bWaits, 51, 2_000, through)]).message).toBe(plain);
  });
});

describe('noWaitCycle: a lease wait ends when the waiter gets the key', () => {
  it('an etcd acquire transaction that succeeds: A got the key', () => {
    const { events } = cycleStart();
    const aGets = { id: 'e50', atMs: 2_000, actor: 'A', kind: 'etcd', state: 'holding', call: { resource: 'etcd', caller: 'A', command: { op: 'txnAcquire', key: 'lease:export', value: 'a', lease: '1' }, reply: { op: 'txnAcquire', revision: 3, succeeded: true, kv: null } } } as CheckedEvent;
    expect(cycleOver([...events, aGets]).message).toBe(`${CYCLE}: it lasted until 2 s, when A got lease:export`);
    // A failed one keeps the wait (and the cycle open).
    const refused = { ...aGets, call: { ...aGets.call!, reply: { op: 'txnAcquire', revision: 3, succeeded: false, kv: null } } } as CheckedEvent;
    expect(cycleOver([...events, refused]).message).toBe(`${CYCLE}, so its deadlock check does not break it`);
  });

  it('a Redis SET NX that succeeds: A got the key; a plain SET (no NX) that succeeds is not A taking the lock', () => {
    const { events } = cycleStart();
    const aSet = (nx: boolean) => ({ id: 'e50', atMs: 2_000, actor: 'A', kind: 'redis', state: 'holding', call: { resource: 'redis', caller: 'A', command: { op: 'SET', key: 'lease:export', value: 'a', pxMs: 30_000, ...(nx ? { nx: true } : {}) }, reply: { kind: 'ok' } } }) as CheckedEvent;
    expect(cycleOver([...events, aSet(true)]).message).toBe(`${CYCLE}: it lasted until 2 s, when A got lease:export`);
    expect(cycleOver([...events, aSet(false)]).message).toBe(`${CYCLE}, so its deadlock check does not break it`);
  });

  it('a key that changed hands behind the waiter\'s back (lost without an event, taken by C) ends A\'s wait for B when C frees it', () => {
    const { events } = cycleStart();
    const lease = (id: number, atMs: number, op: 'acquired' | 'released') => ({ id: `e${id}`, atMs, actor: 'C', kind: 'redis', data: { t: 'lease', op, key: 'lease:export', worker: 'C' } }) as CheckedEvent;
    // A waited for B (its belief), but the key it tried was freed: that is what ended the wait.
    expect(cycleOver([...events, lease(50, 2_000, 'acquired'), lease(51, 2_500, 'released')]).message).toBe(`${CYCLE}: it lasted until 2.5 s, when C's lease lease:export was released, so A no longer waited for B`);
  });
});

describe('noWaitCycle: only what the cycle waits for counts', () => {
  it('another key freed leaves A waiting for B\'s lease (the cycle goes on)', () => {
    const { events } = cycleStart();
    const other = (id: number, atMs: number, op: 'acquired' | 'released' | 'deleted' | 'expired') => ({ id: `e${id}`, atMs, actor: 'C', kind: 'redis', data: { t: 'lease', op, key: 'lease:other', worker: 'C' } }) as CheckedEvent;
    for (const op of ['released', 'deleted', 'expired'] as const) {
      expect(cycleOver([...events, other(50, 2_000, 'acquired'), other(51, 2_500, op)]).message, op).toBe(`${CYCLE}, so its deadlock check does not break it`);
    }
  });

  it('statement_timeout is named as what may end a cycle only when one of its waits is in the database', () => {
    const c = runScenario({ ...appWaitCycle, database: { ...appWaitCycle.database, poolSize: 1, statementTimeoutMs: 20_000 } });
    const [f] = c.verdict.violations.filter((v) => v.invariant === 'noWaitCycle');
    // A lease wait and a pool wait: no statement waits, so no statement_timeout can end it.
    expect(f!.message).toBe('stuck: wait cycle A→B→A (A waits for B\'s lease lease:export; B waits for a connection from the pool (all 1 in use: c1 by A)); PostgreSQL cannot see the wait outside the database, so its deadlock check does not break it');
  });

  it('a pool wait is stuck only when every holder of the pool is: one connection kept by a worker that is busy, not waiting, is no cycle', () => {
    // C holds the pool's second connection for 3 s of work; B waits for a connection from 10 ms.
    const c: Scenario['workers'][number] = { id: 'C', startMs: 0, amount: 1, steps: [{ do: 'begin' }, { do: 'work', ms: 3_000 }, { do: 'commit' }] };
    const s: Scenario = { ...appWaitCycle, database: { ...appWaitCycle.database, poolSize: 2 }, workers: [...appWaitCycle.workers, c] };
    const r = runScenario(s);
    expect(r.events.some((e) => e.actor === 'B' && e.data?.t === 'wait' && e.data.on === 'pool' && e.atMs === 10)).toBe(true);
    const found = r.verdict.violations.filter((v) => v.invariant === 'noWaitCycle');
    // Once C commits and gives c2 back, B gets it and its SELECT … FOR UPDATE waits for A's row lock: that is the cycle, from 3 s on.
    expect(found.map((f) => f.message)).toEqual([`stuck: wait cycle A→B→A (A waits for B's lease lease:export; B waits for row lock on accounts row id=1 held by A (session c1), in the database); PostgreSQL cannot see the wait outside the database, so its deadlock check does not break it`]);
    // It cites A's refused SET (100 ms) and B's statement that waits (3 s), found then: nothing before 3 s was a cycle.
    expect(found[0]!.eventIds.map((id) => { const e = r.events.find((x) => x.id === id)!; return `${e.atMs} ${e.actor}`; })).toEqual(['100 A', '3000 B']);
  });
});

describe('noWaitCycle: a waiter that now waits for someone else', () => {
  it('B\'s key lost without an event and C\'s renewal recorded: A\'s next refused SET NX waits for C, which ends the cycle through B, in those words', () => {
    const { events } = cycleStart();
    const cRenews = { id: 'e50', atMs: 2_000, actor: 'C', kind: 'redis', data: { t: 'lease', op: 'renewed', key: 'lease:export', worker: 'C' } } as CheckedEvent;
    const aRefused = { ...events.find((e) => e.actor === 'A' && e.atMs === 100)!, id: 'e51', atMs: 2_100 };
    const c = cycleOver([...events, cRenews, aRefused]);
    expect(c.message).toBe(`${CYCLE}: it lasted until 2.1 s, when A waited for C's lease lease:export instead`);
    expect(c.cited).toEqual(['10 B', '100 A', '2100 A']);
  });
});
