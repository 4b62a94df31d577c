/**
 * A wait cycle through the application is invisible to PostgreSQL's deadlock check, but it is not
 * always for ever: a lease's TTL, `statement_timeout` (57014), `idle_in_transaction_session_timeout`
 * (25P03), a pool's acquire timeout, the lock client giving up, or a crash can end it. The finding
 * says until when the cycle lasted and what ended it, citing that event; while the run has not
 * ended it, it names what the scenario sets that may (../shared/semantics.md, "PostgreSQL advisory
 * locks" and "Server-side timeouts"). Before, every lease cycle said "nothing breaks it", even in
 * a run where statement_timeout broke it three seconds later.
 */
import { runScenario } from '../engine/run';
import type { Scenario } from '../scenario/schema';
import { APP_CYCLE_STUCK as CYCLE, appWaitCycle, waitCycleFindings } from '../testing/appWaitCycle';
import { scenario } from '../presets/build';

/** A waits for B's lease while holding the row lock B's `SELECT … FOR UPDATE` waits for (as waitCycle.test.ts). */
const appCycle = appWaitCycle;
/** The run's one wait-cycle finding, with the events it cites as "ms actor" (the stored trace gives the same finding). */
function cycleOf(s: Scenario) {
  const found = waitCycleFindings(s);
  expect(found).toHaveLength(1);
  return found[0]!;
}

describe('noWaitCycle: what ends a cycle PostgreSQL cannot see', () => {
  it('with no limit set and none reached in the run, it says the deadlock check does not break it, and nothing more', () => {
    expect(cycleOf(appCycle)).toEqual({
      message: `${CYCLE}, so its deadlock check does not break it`,
      cited: ['10 B', '100 A'],
      cycle: [{ from: 'A', to: 'B', on: 'lease', what: 'B\'s lease lease:export' }, { from: 'B', to: 'A', on: 'db', what: 'row lock on accounts row id=1 held by A (session c1), in the database' }],
    });
  });

  it('statement_timeout cancels the waiting statement (57014): the cycle lasted until then, and the cancelled statement is cited', () => {
    const c = cycleOf({ ...appCycle, database: { ...appCycle.database, statementTimeoutMs: 3_000 } });
    expect(c.message).toBe(`${CYCLE}: it lasted until 3.01 s, when statement_timeout cancelled B's statement (57014)`);
    expect(c.cited).toEqual(['10 B', '100 A', '3010 B']);
  });

  it('statement_timeout beyond the run is named as what may end it', () => {
    expect(cycleOf({ ...appCycle, database: { ...appCycle.database, statementTimeoutMs: 20_000 } }).message).toBe(`${CYCLE}, so its deadlock check does not break it; statement_timeout (20 s) may end it, failing a job`);
  });

  it('the lock client gives up at its acquire timeout and rolls back: B\'s statement goes through at that instant', () => {
    const c = cycleOf({ ...appCycle, mechanism: { ...appCycle.mechanism, acquireTimeoutMs: 3_000 } });
    expect(c.message).toBe(`${CYCLE}: it lasted until 3.1 s, when A rolled back, and B's statement went through`);
    expect(c.cited).toEqual(['10 B', '100 A', '3100 B']);
    // Beyond the run, the client's acquire timeout is what may end it.
    expect(cycleOf({ ...appCycle, mechanism: { ...appCycle.mechanism, acquireTimeoutMs: 30_000 } }).message).toBe(`${CYCLE}, so its deadlock check does not break it; A's acquire timeout (30 s) may end it, failing a job`);
    // A client that retries a bounded number of times, not until a timeout, is not said to have one.
    expect(cycleOf({ ...appCycle, client: { ...appCycle.client!, onBusy: 'retry', retries: 100 }, mechanism: { ...appCycle.mechanism, acquireTimeoutMs: 30_000 } }).message).toBe(`${CYCLE}, so its deadlock check does not break it`);
  });

  it('B\'s lease expires (its TTL): the cycle lasted until that instant, not until A\'s next try takes the key', () => {
    const c = cycleOf({ ...appCycle, horizonMs: 40_000 });
    expect(c.message).toBe(`${CYCLE}: it lasted until 30.01 s, when B's lease lease:export expired, so A no longer waited for B`);
    expect(c.cited.slice(0, 2)).toEqual(['10 B', '100 A']);
    expect(c.cited[2]).toMatch(/^30010 /);
  });

  it('whatever frees the key ends the wait for it at that instant, in the words of how the holder lost it', () => {
    const at2s = (kind: 'manualDelete' | 'expireLease'): Scenario => ({ ...appCycle, faults: [{ kind, atMs: 2_000 }] });
    expect(cycleOf(at2s('manualDelete')).message).toBe(`${CYCLE}: it lasted until 2 s, when B's lease lease:export was deleted, so A no longer waited for B`);
    const forced = cycleOf(at2s('expireLease'));
    expect(forced.message).toBe(`${CYCLE}: it lasted until 2 s, when B's lease lease:export was forced to expire, so A no longer waited for B`);
    expect(forced.cited).toEqual(['10 B', '100 A', '2000 fault']);
    // etcd: the lease the key is attached to runs out (its TTL, 10 s here).
    const etcd = cycleOf({ ...appCycle, horizonMs: 20_000, lockService: { kind: 'etcd' }, lease: { ...appCycle.lease, ttlMs: 10_000 } });
    expect(etcd.message).toBe('stuck: wait cycle A→B→A (A waits for B\'s lock lease:export (etcd); B waits for row lock on accounts row id=1 held by A (session c1), in the database); PostgreSQL cannot see the wait outside the database: it lasted until 10.01 s, when B\'s lease lease:export expired, so A no longer waited for B');
  });

  it('a watchdog that keeps renewing the waiting holder\'s lease keeps the cycle: no TTL ends it', () => {
    const c = cycleOf({ ...appCycle, horizonMs: 40_000, mechanism: { ...appCycle.mechanism, renewal: 'compare-and-extend' } });
    expect(c.message).toBe(`${CYCLE}, so its deadlock check does not break it`);
  });

  it('a failover whose replica has the key keeps the holder, and the cycle', () => {
    expect(cycleOf({ ...appCycle, faults: [{ kind: 'failover', atMs: 2_000 }] }).message).toBe(`${CYCLE}, so its deadlock check does not break it`);
  });

  it('idle_in_transaction_session_timeout ends A\'s session (25P03), which releases its row lock', () => {
    const c = cycleOf({ ...appCycle, database: { ...appCycle.database, idleInTransactionSessionTimeoutMs: 2_000 } });
    expect(c.message).toBe(`${CYCLE}: it lasted until 2 s, when the server ended A's session c1 (idle_in_transaction_session_timeout, 25P03), and B's statement went through`);
    expect(c.cited).toEqual(['10 B', '100 A', '2000 B']);
  });

  it('a crash of the lock holder ends its own wait for the lease, and the cycle with it', () => {
    const c = cycleOf({ ...appCycle, faults: [{ kind: 'crash', worker: 'A', atMs: 500, restartAfterMs: null }] });
    expect(c.message).toBe(`${CYCLE}: it lasted until 500 ms, when A crashed`);
    expect(c.cited).toEqual(['10 B', '100 A', '500 A']);
  });

  it('a crash of the waiter for the lease ends its wait', () => {
    const c = cycleOf({ ...appCycle, horizonMs: 40_000, faults: [{ kind: 'crash', worker: 'B', atMs: 500, restartAfterMs: null }] });
    expect(c.message).toBe(`${CYCLE}: it lasted until 500 ms, when B crashed`);
  });
});

describe('noWaitCycle: each way the lease or the session goes ends the cycle, in its own words', () => {
  const at2s = (fault: Scenario['faults'][number], more: Partial<Scenario> = {}) => cycleOf({ ...appCycle, horizonMs: 40_000, faults: [fault], ...more });

  it('idle_in_transaction_session_timeout ends A\'s session (25P03): its row lock goes and B\'s statement goes through', () => {
    // A is idle in its transaction from its read at 0 ms while it retries the lease.
    const c = cycleOf({ ...appCycle, database: { ...appCycle.database, idleInTransactionSessionTimeoutMs: 2_000 } });
    expect(c.message).toBe(`${CYCLE}: it lasted until 2 s, when the server ended A's session c1 (idle_in_transaction_session_timeout, 25P03), and B's statement went through`);
    expect(c.cited).toEqual(['10 B', '100 A', '2000 B']);
  });

  it('an operator deletes the key, or a fault forces its expiry: the cycle ends at that instant, citing it', () => {
    expect(at2s({ kind: 'manualDelete', atMs: 2_000 })).toMatchObject({ message: `${CYCLE}: it lasted until 2 s, when B's lease lease:export was deleted, so A no longer waited for B`, cited: ['10 B', '100 A', '2000 operator'] });
    expect(at2s({ kind: 'expireLease', atMs: 2_000 })).toMatchObject({ message: `${CYCLE}: it lasted until 2 s, when B's lease lease:export was forced to expire, so A no longer waited for B`, cited: ['10 B', '100 A', '2000 fault'] });
  });

  it('a clock jump or a failover (the key B wrote within the replication lag) loses the key with no lease event: the wait ends at A\'s next try, which gets it', () => {
    const gotIt = { message: `${CYCLE}: it lasted until 2.1 s, when A got lease:export`, cited: ['10 B', '100 A', '2100 A'] };
    expect(at2s({ kind: 'clockJump', atMs: 2_000, jumpMs: 40_000 })).toMatchObject(gotIt);
    expect(at2s({ kind: 'failover', atMs: 2_000 }, { lease: { ...appCycle.lease, replicationLagMs: 5_000 } })).toMatchObject(gotIt);
  });

  it('in etcd, the lease running out (10 s TTL) or forced to expire frees the lock', () => {
    const etcd: Partial<Scenario> = { lockService: { kind: 'etcd' }, lease: { ...appCycle.lease, ttlMs: 10_000 } };
    const CYCLE_ETCD = CYCLE.replace('B\'s lease lease:export;', 'B\'s lock lease:export (etcd);');
    expect(cycleOf({ ...appCycle, horizonMs: 40_000, ...etcd })).toMatchObject({ message: `${CYCLE_ETCD}: it lasted until 10.01 s, when B's lease lease:export expired, so A no longer waited for B`, cited: ['10 B', '100 A', '10010 etcd'] });
    expect(at2s({ kind: 'expireLease', atMs: 2_000 }, etcd).cited).toEqual(['10 B', '100 A', '2000 etcd']);
  });
});

describe('noWaitCycle: a wait for a pooled connection, in words', () => {
  it('the shared pool without processes is "the pool"; B waits for a connection A keeps while A waits for B\'s lease', () => {
    const c = cycleOf({ ...appCycle, database: { ...appCycle.database, poolSize: 1 } });
    expect(c.message).toBe('stuck: wait cycle A→B→A (A waits for B\'s lease lease:export; B waits for a connection from the pool (all 1 in use: c1 by A)); PostgreSQL cannot see the wait outside the database, so its deadlock check does not break it');
    expect(c.cycle).toEqual([{ from: 'A', to: 'B', on: 'lease', what: 'B\'s lease lease:export' }, { from: 'B', to: 'A', on: 'pool', what: 'a connection from the pool (all 1 in use: c1 by A)' }]);
    expect(c.cited).toEqual(['10 B', '100 A']);
  });

  it('with processes, the pool of workers that name none is "the shared pool"', () => {
    const s: Scenario = { ...appCycle, database: { ...appCycle.database, poolSize: 1 }, processes: [{ id: 'web-1', poolSize: 1 }], workers: [...appCycle.workers, { id: 'C', startMs: 0, process: 'web-1', steps: [{ do: 'work', ms: 10 }] }] };
    expect(cycleOf(s).message).toBe('stuck: wait cycle A→B→A (A waits for B\'s lease lease:export; B waits for a connection from the shared pool (all 1 in use: c2 by A)); PostgreSQL cannot see the wait outside the database, so its deadlock check does not break it');
  });

  it('a process\'s pool and its acquire timeout: may end it while it lasts, and did end it at 2.01 s', () => {
    const inProc = (acquireTimeoutMs: number): Scenario => ({ ...appCycle, processes: [{ id: 'web-1', poolSize: 1, acquireTimeoutMs }], workers: appCycle.workers.map((w) => ({ ...w, process: 'web-1' })) });
    expect(cycleOf(inProc(2_000)).message).toBe('stuck: wait cycle A→B→A (A waits for B\'s lease lease:export; B waits for a connection from process web-1\'s pool (all 1 in use: c1 by A)); PostgreSQL cannot see the wait outside the database: it lasted until 2.01 s, when B\'s pool acquire timeout fired');
    expect(cycleOf(inProc(20_000)).message).toBe('stuck: wait cycle A→B→A (A waits for B\'s lease lease:export; B waits for a connection from process web-1\'s pool (all 1 in use: c1 by A)); PostgreSQL cannot see the wait outside the database, so its deadlock check does not break it; process web-1\'s acquire timeout (20 s) may end it, failing a job');
  });

  it('the lock client\'s acquire timeout: A rolls back and gives its connection back, and B gets it', () => {
    const giveUp = { ...appCycle.mechanism, acquireTimeoutMs: 3_000 };
    const pool = cycleOf({ ...appCycle, database: { ...appCycle.database, poolSize: 1 }, mechanism: giveUp });
    expect(pool.message).toBe('stuck: wait cycle A→B→A (A waits for B\'s lease lease:export; B waits for a connection from the pool (all 1 in use: c1 by A)); PostgreSQL cannot see the wait outside the database: it lasted until 3.1 s, when B got a connection');
    // Behind PgBouncer in transaction mode the server connection goes back at the ROLLBACK…
    const txn = cycleOf({ ...appCycle, database: { poolSize: 2, pooler: { mode: 'transaction', serverConnections: 1 } }, mechanism: giveUp });
    expect(txn.message).toBe('stuck: wait cycle A→B→A (A waits for B\'s lease lease:export; B waits for a server connection from PgBouncer (all 1 in use: s1 by A)); PostgreSQL cannot see the wait outside the database: it lasted until 3.1 s, when B got a connection');
    // …in session mode when A's client lets go, once its job has ended.
    const session = cycleOf({ ...appCycle, database: { poolSize: 2, pooler: { mode: 'session', serverConnections: 1 } }, mechanism: giveUp });
    expect(session.message).toBe('stuck: wait cycle A→B→A (A waits for B\'s lease lease:export; B waits for a server connection from PgBouncer (all 1 in use: s1 by A)); PostgreSQL cannot see the wait outside the database: it lasted until 3.1 s, when A gave up waiting and ended its job');
  });

  it('behind PgBouncer, a statement waiting for a server connection the lease waiter keeps', () => {
    const c = cycleOf({ ...appCycle, database: { poolSize: 2, pooler: { mode: 'transaction', serverConnections: 1 } } });
    expect(c.message).toBe('stuck: wait cycle A→B→A (A waits for B\'s lease lease:export; B waits for a server connection from PgBouncer (all 1 in use: s1 by A)); PostgreSQL cannot see the wait outside the database, so its deadlock check does not break it');
  });
});

describe('noWaitCycle: an advisory lock request on the cycle', () => {
  /** A holds advisory lock 42 on c1 and its helper waits for a second connection of a pool of 2; B's `pg_advisory_lock(42)` on c2 waits for A. */
  const helperCycle = (acquireTimeoutMs: number | null): Scenario => scenario({
    id: 'advisory-helper-cycle', title: 'advisory helper cycle', description: 'A keeps c1 and waits for a connection B keeps; B waits for A\'s advisory lock.', lesson: 'locks', horizonMs: 10_000,
    job: { kind: 'external', jobKey: 'nightly' },
    mechanism: { lock: 'advisory-session', jobRecord: true, acquireTimeoutMs },
    database: { poolSize: 2 },
    processes: [{ id: 'p1', poolSize: 2 }],
    workers: [
      { id: 'A', startMs: 0, process: 'p1', steps: [{ do: 'connect' }, { do: 'acquire' }, { do: 'work', ms: 100 }, { do: 'check', helper: true }, { do: 'release' }] },
      { id: 'B', startMs: 10, process: 'p1', steps: [{ do: 'connect' }, { do: 'acquire' }, { do: 'release' }] },
    ],
    invariants: [{ kind: 'noWaitCycle' }],
  });
  const ADVISORY_CYCLE = 'stuck: wait cycle A→B→A (A waits for a second connection from process p1\'s pool for its helper, while it keeps c1 (all 2 in use: c1 by A, c2 by B); B waits for advisory lock 42 held by A (session c1), in the database); PostgreSQL cannot see the wait outside the database';

  it('lock_timeout (the acquire timeout of an advisory lock) is named as what may end it, and said to have ended it when it did', () => {
    expect(cycleOf(helperCycle(null)).message).toBe(`${ADVISORY_CYCLE}, so its deadlock check does not break it`);
    expect(cycleOf(helperCycle(30_000)).message).toBe(`${ADVISORY_CYCLE}, so its deadlock check does not break it; lock_timeout (30 s) may end it, failing a job`);
    const ended = cycleOf(helperCycle(3_000));
    expect(ended.message).toBe(`${ADVISORY_CYCLE}: it lasted until 3.01 s, when lock_timeout cancelled B's wait (55P03)`);
    expect(ended.cited).toEqual(['10 B', '100 A', '3010 B']);
  });
});

describe('noWaitCycle: a lock client that does not wait', () => {
  const withClient = (client: Partial<NonNullable<Scenario['client']>>, etcd = false): Scenario => ({
    ...appWaitCycle,
    client: { ...appWaitCycle.client!, ...client },
    ...(etcd ? { lockService: { kind: 'etcd' as const }, lease: { ...appWaitCycle.lease, ttlMs: 10_000 } } : {}),
  });
  const cycles = (s: Scenario) => runScenario(s).verdict.violations.filter((v) => v.invariant === 'noWaitCycle').map((v) => v.message);

  it.each([false, true])('a client that tries once (skip, or retry with no retries) never waits: no cycle (etcd: %s)', (etcd) => {
    expect(cycles(withClient({ onBusy: 'skip' }, etcd))).toEqual([]);
    expect(cycles(withClient({ onBusy: 'retry', retries: 0 }, etcd))).toEqual([]);
  });

  it('a try that got no reply counts as a try: a refusal on the last one starts no wait', () => {
    // A's first SET NX (100 ms) is cut off by a partition; its second and last (1.1 s) is refused.
    const s = withClient({ onBusy: 'retry', retries: 1 });
    const r = runScenario({ ...s, faults: [{ kind: 'partition', worker: 'A', atMs: 50, durationMs: 500 }] });
    expect(r.events.filter((e) => e.actor === 'A' && (e.command ?? '').startsWith('SET')).map((e) => `${e.atMs} ${e.reply}`)).toEqual(['100 (no reply: connection timed out)', '1100 (nil)']);
    expect(r.verdict.violations.filter((v) => v.invariant === 'noWaitCycle')).toEqual([]);
  });

  it('a client that retries waits between its tries: the cycle lasted until it gave up', () => {
    expect(cycles(withClient({ onBusy: 'retry', retries: 2 }))).toEqual([`${CYCLE}: it lasted until 2.1 s, when A rolled back, and B's statement went through`]);
  });
});

describe('noWaitCycle: the lock in etcd', () => {
  it('a failed acquire transaction waits for the key\'s holder, as a refused SET NX does', () => {
    const c = cycleOf({ ...appCycle, lockService: { kind: 'etcd' }, lease: { ...appCycle.lease, ttlMs: 10_000 } });
    expect(c.message).toBe('stuck: wait cycle A→B→A (A waits for B\'s lock lease:export (etcd); B waits for row lock on accounts row id=1 held by A (session c1), in the database); PostgreSQL cannot see the wait outside the database, so its deadlock check does not break it');
    expect(c.cited).toEqual(['10 B', '100 A']);
  });
});
