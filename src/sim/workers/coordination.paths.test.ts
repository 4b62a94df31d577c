// The less travelled paths of coordination.ts (advisory locks and the Redis lease): what a worker
// says, believes and sends when a lock request fails for another reason than lock_timeout, when a
// grant reaches a paused worker, when a try-lock or an unlock returns false, and for every reply a
// lease command can get — an error (a Redis that answers `LOADING`: it is loading its dataset after
// a restart and refuses every command), no reply (a partition), 0, or someone else's key.
// Each test asserts the sentences, times and beliefs a user would see (semantics.md, "Redis leases", "PostgreSQL advisory locks",
// "Connection poolers (PgBouncer)"; Redis docs SET, PEXPIRE, INCR; PostgreSQL "Advisory Lock Functions").
import { afterEach, describe, expect, it, vi } from 'vitest';
import { scenario, steps } from '../presets/build';
import { findPreset } from '../presets';
import { runScenario, type RunResult } from '../engine/run';
import { World } from '../engine/world';
import { LeaseStore } from '../resources/leaseStore';
import type { RedisCmd } from '../resources/redisTypes';
import type { Mechanism, Scenario } from '../scenario/schema';
import type { TraceEvent } from '../engine/trace';

type Worker = Scenario['workers'][number];
type Parts = { mechanism?: Partial<Mechanism>; client?: Partial<Scenario['client']>; database?: Scenario['database']; lease?: Scenario['lease']; faults?: Scenario['faults']; job?: Scenario['job'] };

/** A scenario of an external job with `workers` and the parts given (Redis lease: the small `LEASE` unless given). */
const build = (parts: Parts, workers: Worker[]): Scenario => scenario({
  id: 'paths', title: 'paths', description: 'coordination paths', lesson: 'locks', horizonMs: 60_000,
  job: parts.job ?? { kind: 'external', jobKey: 'nightly' },
  mechanism: parts.mechanism, client: parts.client, database: parts.database, faults: parts.faults,
  lease: parts.lease ?? LEASE,
  workers,
  invariants: [{ kind: 'mutualExclusion' }],
});
/** A lease of 10 s, renewed every 3 s, retried every 1 s; the fencing counter at 32. */
const LEASE: Scenario['lease'] = { key: 'lease:x', fenceKey: 'fence:x', fenceStart: 32, ttlMs: 10_000, retryEveryMs: 1_000, renewEveryMs: 3_000, replicationLagMs: 0 };
const SESSION: Partial<Mechanism> = { lock: 'advisory-session' };

/** `actor`'s events as `time command → reply | narration` (a step or outcome by its kind). */
const said = (r: RunResult, actor: string): string[] =>
  r.events.filter((e) => e.actor === actor).map((e) => `${e.atMs} ${e.command ?? e.kind}${e.reply === undefined ? '' : ` → ${e.reply}`} | ${e.narration}`);
/** The first event of `actor` whose command starts with `prefix` (fails the test when there is none). */
function sent(r: RunResult, actor: string, prefix: string, nth = 0): TraceEvent {
  const e = r.events.filter((x) => x.actor === actor && (x.command ?? '').startsWith(prefix))[nth];
  if (e === undefined) throw new Error(`${actor} sent no command starting with "${prefix}" (#${nth})`);
  return e;
}
const commands = (r: RunResult, actor: string, prefix: string) => r.events.filter((e) => e.actor === actor && (e.command ?? '').startsWith(prefix));
const outcomes = (r: RunResult, actor: string) => r.events.filter((e) => e.actor === actor && e.kind === 'outcome').map((e) => `${e.atMs} ${e.narration}`);

/** The reply of a Redis that is loading its dataset (after a restart): every command is refused. */
const LOADING = 'LOADING Redis is loading the dataset in memory';
/** From `fromMs` on, Redis answers `op` with LOADING; every other command runs as usual. */
function redisRefuses(op: RedisCmd['op'], fromMs = 0): void {
  const execute = LeaseStore.prototype.execute;
  vi.spyOn(LeaseStore.prototype, 'execute').mockImplementation(function (this: LeaseStore, nowMs: number, cmd: RedisCmd) {
    return cmd.op === op && nowMs >= fromMs ? { kind: 'error', message: LOADING } : execute.call(this, nowMs, cmd);
  });
}
afterEach(() => vi.restoreAllMocks());

/** The idle-in-transaction limit of 2 s: a worker that opens a transaction and works 5 s finds its connection closed. */
const IDLE_2S: Scenario['database'] = { poolSize: 4, idleInTransactionSessionTimeoutMs: 2_000 };
const CLOSED = 'terminating connection due to idle-in-transaction timeout';

describe('mechanism.lock "none"', () => {
  it('the acquire and release steps send nothing: the work is not a critical section', () => {
    const r = runScenario(build({ mechanism: { lock: 'none' } }, [{ id: 'A', startMs: 0, steps: steps('connect', 'acquire', ['work', 100], 'release') }]));
    expect(said(r, 'A')).toEqual([
      '0 pool.connect() → c1 | A borrows connection c1 from the pool.',
      '0 step | A works for 100 ms.',
      '100 client.release() → ok | A returns connection c1 to the pool.',
      '100 outcome | A is done: it completed the job.',
    ]);
  });
});

describe('pg_advisory_lock (client.onBusy "wait")', () => {
  it('a lock request that fails for another reason than lock_timeout says so, though lock_timeout is set, and fails the job', () => {
    const r = runScenario(build({ mechanism: { ...SESSION, acquireTimeoutMs: 1_000 }, database: IDLE_2S }, [{ id: 'A', startMs: 0, steps: steps('connect', 'begin', ['work', 5_000], 'acquire', 'commit', 'release') }]));
    expect(said(r, 'A').filter((l) => l.startsWith('5000'))).toEqual([
      `5000 SELECT pg_advisory_lock(42) → FATAL 25P03 ${CLOSED} (server closed the connection unexpectedly) | A's lock request fails: ${CLOSED}.`,
      '5000 connection.destroy() → closed | A discards connection c1: the server had closed it; the pool opens a new one.',
      `5000 outcome | A's job fails (could not take the lock: ${CLOSED}); its error path runs.`,
      '5000 outcome | A is done: the job failed.',
    ]);
    expect(sent(r, 'A', 'SELECT pg_advisory_lock').beliefs!.holdsLock).toBe(false);
  });

  it('a lock taken again after a release step: the second request is a request too, and its grant is believed', () => {
    const r = runScenario(build({ mechanism: SESSION }, [{ id: 'A', startMs: 0, steps: steps('connect', 'acquire', 'release', 'acquire', ['work', 100], 'release') }]));
    const again = sent(r, 'A', 'SELECT pg_advisory_lock', 1);
    expect([again.narration, again.state, again.beliefs!.holdsLock]).toEqual(['A holds advisory lock 42 for its session, until it unlocks or the connection closes.', 'holding', true]);
    // The unlock moves it to releasing and ends the belief.
    const unlock = sent(r, 'A', 'SELECT pg_advisory_unlock', 1);
    expect([unlock.state, unlock.beliefs!.holdsLock]).toEqual(['releasing', false]);
  });

  it('a grant that reaches a paused worker: the session holds the lock at once, the worker believes it when it runs again', () => {
    const r = runScenario(build({ mechanism: SESSION, faults: [{ kind: 'pause', worker: 'B', atMs: 1_000, pauseMs: 3_000 }] }, [
      { id: 'A', startMs: 0, steps: steps('connect', 'acquire', ['work', 2_000], 'release') },
      { id: 'B', startMs: 100, steps: steps('connect', 'acquire', ['work', 1_000], 'release') },
    ]));
    const granted = sent(r, 'B', 'SELECT pg_advisory_lock', 1);
    expect([granted.atMs, granted.narration, granted.state, granted.beliefs!.holdsLock]).toEqual([2_000, 'After waiting 1.9 s: B holds advisory lock 42 for its session, until it unlocks or the connection closes.', 'paused', false]);
    const work = r.events.find((e) => e.actor === 'B' && e.kind === 'step')!;
    expect([work.atMs, work.state, work.beliefs!.holdsLock, work.beliefs!.acquiredAtMs]).toEqual([4_000, 'working', true, 4_000]);
    expect(sent(r, 'B', 'SELECT pg_advisory_unlock').reply).toBe('t');
  });

  it('lock_timeout counts from the start of each wait: a timer of a wait a crash ended does not cancel the restarted one', () => {
    const r = runScenario(build({ mechanism: { ...SESSION, acquireTimeoutMs: 2_000 }, faults: [{ kind: 'crash', worker: 'B', atMs: 500, restartAfterMs: 100 }] }, [
      { id: 'A', startMs: 0, steps: steps('connect', 'acquire', ['work', 5_000], 'release') },
      { id: 'B', startMs: 100, steps: steps('connect', 'acquire', ['work', 1_000], 'release') },
    ]));
    expect(commands(r, 'B', 'SELECT pg_advisory_lock').map((e) => `${e.atMs} ${e.narration}`)).toEqual([
      '100 B waits: advisory lock 42 held by session c1.',
      '600 B waits: advisory lock 42 held by session c1.',
      '2600 After waiting 2 s: lock_timeout (2 s) cancels B\'s wait for advisory lock 42: ERROR 55P03.',
    ]);
  });

  it('a wait that ends with the grant before lock_timeout: the timer finds nothing to cancel, and the job goes on', () => {
    const r = runScenario(build({ mechanism: { ...SESSION, acquireTimeoutMs: 2_000 } }, [
      { id: 'A', startMs: 0, steps: steps('connect', 'acquire', ['work', 500], 'release') },
      { id: 'B', startMs: 100, steps: steps('connect', 'acquire', ['work', 3_000], 'release') },
    ]));
    expect(commands(r, 'B', 'SELECT pg_advisory').map((e) => `${e.atMs} ${e.reply}`)).toEqual(['100 waits (advisory lock 42 held by session c1)', '500 (void)', '3500 t']);
    expect(outcomes(r, 'B')).toEqual(['3500 B is done: it completed the job.']);
  });

  it('a lock granted at once leaves no lock_timeout behind: a later row-lock wait is not cancelled 500 ms into it', () => {
    const r = runScenario(build({ job: { kind: 'debit', accountId: 1, initialBalance: 100 }, mechanism: { ...SESSION, rowLock: 'forUpdate', acquireTimeoutMs: 1_000 } }, [
      { id: 'A', startMs: 0, amount: 10, steps: steps('connect', 'begin', 'read', ['work', 3_000], ['effect', 0], 'commit') },
      { id: 'B', startMs: 100, amount: 10, steps: steps('connect', 'acquire', ['work', 500], 'begin', 'read', ['effect', 0], 'commit', 'release') },
    ]));
    const reads = commands(r, 'B', 'SELECT balance');
    expect(reads[0]!.atMs).toBe(600);
    // Whatever lock_timeout covers, it never cancels a wait before it has lasted 1 s.
    expect(reads[1]!.atMs).toBeGreaterThanOrEqual(1_600);
    expect(r.events.some((e) => e.actor === 'B' && (e.reply ?? '').includes('55P03'))).toBe(false);
  });

  it('lock_timeout is the lock request\'s alone: a row-lock wait that follows a lock granted at once, with no step between, waits until the row is free', () => {
    const r = runScenario(build({ job: { kind: 'debit', accountId: 1, initialBalance: 100 }, mechanism: { ...SESSION, rowLock: 'forUpdate', acquireTimeoutMs: 1_000 } }, [
      { id: 'A', startMs: 0, amount: 10, steps: steps('connect', 'begin', 'read', ['work', 3_000], ['effect', 0], 'commit') },
      { id: 'B', startMs: 100, amount: 20, steps: steps('connect', 'acquire', 'begin', 'read', ['effect', 0], 'commit', 'release') },
    ]));
    // The grant and the FOR UPDATE that waits both come at 100 ms; A commits at 3 s and B reads 90.
    expect(commands(r, 'B', 'SELECT').map((e) => `${e.atMs} ${e.reply}`)).toEqual([
      '100 (void)',
      '100 waits (row lock on accounts row id=1 held by session c1)',
      '3000 SELECT 1 → balance=90',
      '3000 t',
    ]);
    expect(outcomes(r, 'B')).toEqual(['3000 B is done: it completed the job.']);
  });

  it('a transaction-scoped lock taken twice is held twice (both counts are the session\'s)', () => {
    const r = runScenario(build({ mechanism: { lock: 'advisory-xact' } }, [{ id: 'A', startMs: 0, steps: steps('connect', 'begin', 'acquire', 'acquire', 'release', 'commit') }]));
    expect(said(r, 'A').slice(2, 5)).toEqual([
      '0 SELECT pg_advisory_xact_lock(42) → (void) | A holds advisory lock 42 until its transaction ends.',
      '0 SELECT pg_advisory_xact_lock(42) → (void) | A "acquires" advisory lock 42 at once: its connection\'s session already held it, and a session always gets its own lock again (now held 2 times).',
      // The release step sends nothing for a transaction-scoped lock: it goes with COMMIT.
      '0 COMMIT → COMMIT | A commits; the transaction-scoped advisory lock is released with it.',
    ]);
    expect(commands(r, 'A', 'SELECT pg_advisory_unlock')).toHaveLength(0);
  });
});

describe('pg_try_advisory_lock (client.onBusy "skip" or "retry")', () => {
  const holderAndB = (bSteps: Worker['steps']): Worker[] => [
    { id: 'A', startMs: 0, steps: steps('connect', 'acquire', ['work', 1_000], 'release') },
    { id: 'B', startMs: 100, steps: bSteps },
  ];

  it('skip tries once whatever client.retries says, and the false reply does not make the worker wait', () => {
    const r = runScenario(build({ mechanism: SESSION, client: { onBusy: 'skip', retries: 2 } }, holderAndB(steps('connect', 'acquire', ['work', 1_000], 'release'))));
    expect(said(r, 'B').slice(1)).toEqual([
      '100 SELECT pg_try_advisory_lock(42) → f | Advisory lock 42 is held by another session: B\'s try-lock returns false, so it skips the job without an error.',
      '100 client.release() → ok | B returns connection c2 to the pool.',
      '100 outcome | B is done: it did not get the lock, so it skipped the job without an error.',
    ]);
    expect(sent(r, 'B', 'SELECT pg_try').state).toBe('requesting');
  });

  it('retry: a false reply before the last try makes the worker wait; the last one fails the job, the lock never believed held', () => {
    const r = runScenario(build({ mechanism: SESSION, client: { onBusy: 'retry', retries: 1 } }, holderAndB(steps('connect', 'acquire', ['work', 1_000], 'release'))));
    const tries = commands(r, 'B', 'SELECT pg_try');
    expect(tries.map((e) => [e.atMs, e.reply, e.state, e.beliefs!.holdsLock])).toEqual([[100, 'f', 'waiting', false], [1_100, 't', 'holding', true]]);
    const twice = runScenario(build({ mechanism: SESSION, client: { onBusy: 'retry', retries: 2 }, lease: { ...LEASE, retryEveryMs: 200 } }, holderAndB(steps('connect', 'acquire', ['work', 1_000], 'release'))));
    expect(outcomes(twice, 'B')).toEqual(['500 B\'s job fails (advisory lock 42 was still held after 3 tries); its error path runs.', '500 B is done: the job failed.']);
    expect(commands(twice, 'B', 'SELECT pg_advisory_unlock')).toHaveLength(0);
  });

  it('a try-lock on a connection the server closed fails the job; the lock is not believed held', () => {
    const r = runScenario(build({ mechanism: SESSION, client: { onBusy: 'skip' }, database: IDLE_2S }, [{ id: 'A', startMs: 0, steps: steps('connect', 'begin', ['work', 5_000], 'acquire', 'commit', 'release') }]));
    expect(said(r, 'A').filter((l) => l.startsWith('5000'))).toEqual([
      `5000 SELECT pg_try_advisory_lock(42) → FATAL 25P03 ${CLOSED} (server closed the connection unexpectedly) | A's try-lock fails: ${CLOSED}.`,
      '5000 connection.destroy() → closed | A discards connection c1: the server had closed it; the pool opens a new one.',
      `5000 outcome | A's job fails (could not take the lock: ${CLOSED}); its error path runs.`,
      '5000 outcome | A is done: the job failed.',
    ]);
    expect(sent(r, 'A', 'SELECT pg_try').beliefs!.holdsLock).toBe(false);
  });

  it('a try-lock after a release step is a request too: its true reply is believed', () => {
    const r = runScenario(build({ mechanism: SESSION, client: { onBusy: 'skip' } }, [{ id: 'A', startMs: 0, steps: steps('connect', 'acquire', 'release', 'acquire', ['work', 100], 'release') }]));
    const again = sent(r, 'A', 'SELECT pg_try', 1);
    expect([again.reply, again.narration, again.state, again.beliefs!.holdsLock]).toEqual(['t', 'A\'s try-lock returns true: it holds advisory lock 42 for its session, until it unlocks or the connection closes.', 'holding', true]);
  });

  it('retry: a try-lock that fails with an error, not the last try, does not make the worker wait: the job fails', () => {
    const r = runScenario(build({ mechanism: SESSION, client: { onBusy: 'retry', retries: 2 }, database: IDLE_2S }, [{ id: 'A', startMs: 0, steps: steps('connect', 'begin', ['work', 5_000], 'acquire', 'commit', 'release') }]));
    const tryLock = sent(r, 'A', 'SELECT pg_try');
    expect([tryLock.narration, tryLock.state]).toEqual([`A's try-lock fails: ${CLOSED}.`, 'requesting']);
    expect(outcomes(r, 'A')[0]).toBe(`5000 A's job fails (could not take the lock: ${CLOSED}); its error path runs.`);
  });

  it('a try-lock that returns false never lets the job into its critical section', () => {
    const r = runScenario(build({ mechanism: SESSION, client: { onBusy: 'skip' } }, holderAndB(steps('connect', 'acquire', ['work', 1_000], 'release'))));
    expect(r.events.some((e) => e.actor === 'B' && e.kind === 'step')).toBe(false);
    expect(r.metrics.acquisitionLatency.count).toBe(1);
  });
});

describe('pg_advisory_unlock', () => {
  it('an unlock of a lock the session no longer holds returns false; a client that checks it fails the job', () => {
    const r = runScenario(build({ mechanism: SESSION, client: { checkRelease: true } }, [{ id: 'A', startMs: 0, steps: steps('connect', 'acquire', 'release', 'release', ['work', 10]) }]));
    expect(said(r, 'A').slice(2)).toEqual([
      '0 SELECT pg_advisory_unlock(42) → t | A unlocks advisory lock 42.',
      '0 SELECT pg_advisory_unlock(42) → WARNING:  you don\'t own a lock of type ExclusiveLock; f | A\'s unlock returns false with a WARNING: this session does not hold the lock (the lock, if held, is on another connection). A\'s client checks the result and fails the job.',
      '0 outcome | A\'s job fails (its unlock of advisory lock 42 returned false: the session did not hold it); its error path runs.',
      '0 client.release() → ok | A returns connection c1 to the pool.',
      '0 outcome | A is done: the job failed.',
    ]);
  });

  it('a client that does not check the result goes on after the false unlock', () => {
    const r = runScenario(build({ mechanism: SESSION }, [{ id: 'A', startMs: 0, steps: steps('connect', 'acquire', 'release', 'release', ['work', 10]) }]));
    expect(sent(r, 'A', 'SELECT pg_advisory_unlock', 1).narration).toBe('A\'s unlock returns false with a WARNING: this session does not hold the lock (the lock, if held, is on another connection).');
    expect(outcomes(r, 'A')).toEqual(['10 A is done: it completed the job.']);
  });

  describe('behind PgBouncer in transaction mode (pooler-session-lock)', () => {
    const pooler = findPreset('pooler-session-lock')!.withoutFix;

    it('A\'s unlock lands on s2: false, s1 still holds the lock; a checking client fails the job. B, handed s1, got the lock at once and its one unlock leaves it held', () => {
      const r = runScenario({ ...pooler, client: { ...pooler.client, checkRelease: true } });
      expect(sent(r, 'A', 'SELECT pg_advisory_unlock').narration).toBe('[backend s2] A\'s unlock returns false with a WARNING: this session does not hold the lock (PgBouncer ran it on another server connection; s1 still holds the lock). A\'s client checks the result and fails the job.');
      expect(outcomes(r, 'A')[0]).toBe('1000 A\'s job fails (its unlock of advisory lock 42 returned false: the session did not hold it); its error path runs.');
      expect(sent(r, 'B', 'SELECT pg_advisory_lock').narration).toBe('[backend s1] B "acquires" advisory lock 42 at once: server connection s1, which PgBouncer handed it, already held it, and a session always gets its own lock again (now held 2 times).');
      expect(sent(r, 'B', 'SELECT pg_advisory_unlock').narration).toBe('[backend s1] B unlocks once, but the lock was taken more than once on this server connection: it stays held.');
    });

    it('an unlock that nobody\'s lock answers: "nobody holds it"', () => {
      const r = runScenario({ ...pooler, workers: [{ id: 'A', startMs: 0, steps: steps('connect', 'acquire', 'release', 'release') }] });
      expect(sent(r, 'A', 'SELECT pg_advisory_unlock', 1).narration).toBe('[backend s1] A\'s unlock returns false with a WARNING: this session does not hold the lock (nobody holds it).');
    });
  });
});

describe('the lease: SET NX', () => {
  const one = (ms = 100): Worker[] => [{ id: 'A', startMs: 0, steps: steps('acquire', ['work', ms], 'release') }];

  it('a grant without fencing: the SET alone, believed at once, and no INCR', () => {
    const r = runScenario(build({ mechanism: { lock: 'lease' } }, one()));
    expect(said(r, 'A')).toEqual([
      '0 SET lease:x e01d NX PX 10000 → OK | A takes the lease lease:x for 10 s (owner token e01d).',
      '0 step | A works for 100 ms inside its critical section.',
      '100 EVAL "if redis.call(\\"get\\",KEYS[1]) == ARGV[1] then return redis.call(\\"del\\",KEYS[1]) else return 0 end" 1 lease:x e01d → (integer) 1 | A releases its own lease (compare-and-delete matched its token).',
      '100 outcome | A is done: it completed the job.',
    ]);
    expect(sent(r, 'A', 'SET').data).toEqual({ t: 'lease', op: 'acquired', key: 'lease:x', worker: 'A' });
    expect(sent(r, 'A', 'SET').beliefs).toMatchObject({ ownsLease: true, fencingToken: null, acquiredAtMs: 0, leaseBelievedUntilMs: 10_000, renewFailed: false, refusedAsStale: false });
  });

  it.each([['skip', 0], ['retry', 1]] as const)('onBusy "%s": a SET that takes the lease on the last try goes on with the job', (onBusy, retries) => {
    const r = runScenario(build({ mechanism: { lock: 'lease' }, client: { onBusy, retries } }, [{ id: 'A', startMs: 0, steps: steps('acquire', ['work', 500], 'release') }, { id: 'B', startMs: retries === 0 ? 600 : 100, steps: steps('acquire', ['work', 100], 'release') }]));
    expect(commands(r, 'B', 'SET').at(-1)!.reply).toBe('OK');
    expect(outcomes(r, 'B')).toEqual([retries === 0 ? '700 B is done: it completed the job.' : '1200 B is done: it completed the job.']);
  });

  it('acquireTimeoutMs null waits for ever, as absent does', () => {
    const r = runScenario(build({ mechanism: { lock: 'lease', acquireTimeoutMs: null } }, [...one(5_000), { id: 'B', startMs: 1_000, steps: steps('acquire', 'release') }]));
    expect(commands(r, 'B', 'SET').map((e) => e.reply)).toEqual(['(nil)', '(nil)', '(nil)', '(nil)', 'OK']);
    expect(outcomes(r, 'B')).toEqual(['5000 B is done: it completed the job.']);
  });

  it('onBusy "wait": an error reply is a try that did not take the lease; the worker waits and retries until acquireTimeoutMs', () => {
    redisRefuses('SET');
    const r = runScenario(build({ mechanism: { lock: 'lease', acquireTimeoutMs: 2_500 } }, one()));
    expect(said(r, 'A')).toEqual([
      `0 SET lease:x e01d NX PX 10000 → (error) ${LOADING} | A's SET fails (${LOADING}); it will try again in 1 s.`,
      `1000 SET lease:x e01d NX PX 10000 → (error) ${LOADING} | A's SET fails (${LOADING}); it will try again in 1 s.`,
      `2000 SET lease:x e01d NX PX 10000 → (error) ${LOADING} | A's SET fails (${LOADING}); it will try again in 1 s.`,
      '2500 outcome | A\'s job fails (it gave up waiting for lease:x after 2.5 s); its error path runs.',
      '2500 outcome | A is done: the job failed.',
    ]);
    expect(commands(r, 'A', 'SET').map((e) => [e.state, e.beliefs!.ownsLease])).toEqual([['waiting', false], ['waiting', false], ['waiting', false]]);
  });

  it('onBusy "retry": the last try\'s error is the reason the job fails', () => {
    redisRefuses('SET');
    const r = runScenario(build({ mechanism: { lock: 'lease' }, client: { onBusy: 'retry', retries: 1 } }, one()));
    expect(said(r, 'A')).toEqual([
      `0 SET lease:x e01d NX PX 10000 → (error) ${LOADING} | A's SET fails (${LOADING}); try 1 of 2, it tries again in 1 s.`,
      `1000 SET lease:x e01d NX PX 10000 → (error) ${LOADING} | A's SET fails (${LOADING}); that was try 2 of 2, so A gives up and fails the job.`,
      `1000 outcome | A's job fails (its last of 2 tries failed (${LOADING})); its error path runs.`,
      '1000 outcome | A is done: the job failed.',
    ]);
  });

  it('onBusy "skip": one try with an error reply, and the job is skipped', () => {
    redisRefuses('SET');
    const r = runScenario(build({ mechanism: { lock: 'lease' }, client: { onBusy: 'skip' } }, one()));
    expect(said(r, 'A')).toEqual([
      `0 SET lease:x e01d NX PX 10000 → (error) ${LOADING} | A's SET fails (${LOADING}); A tried once and skips the job without an error.`,
      '0 outcome | A is done: it did not get the lock, so it skipped the job without an error.',
    ]);
  });

  it('onBusy "retry", the last try finding the key taken: the job fails for a taken key', () => {
    const r = runScenario(build({ mechanism: { lock: 'lease' }, client: { onBusy: 'retry', retries: 1 } }, [...one(5_000), { id: 'B', startMs: 1_000, steps: steps('acquire', 'release') }]));
    expect(said(r, 'B')).toEqual([
      '1000 SET lease:x a5e3 NX PX 10000 → (nil) | lease:x is taken; try 1 of 2, it tries again in 1 s.',
      '2000 SET lease:x a5e3 NX PX 10000 → (nil) | lease:x is taken; that was try 2 of 2, so B gives up and fails the job.',
      '2000 outcome | B\'s job fails (lease:x was still taken after 2 tries); its error path runs.',
      '2000 outcome | B is done: the job failed.',
    ]);
  });

  it('a pause that carries a waiter past acquireTimeoutMs: it gives up as soon as it runs again, after the time it really waited', () => {
    const r = runScenario(build({ mechanism: { lock: 'lease', acquireTimeoutMs: 2_500 }, faults: [{ kind: 'pause', worker: 'B', atMs: 1_500, pauseMs: 3_500 }] }, [...one(7_000), { id: 'B', startMs: 1_000, steps: steps('acquire', 'release') }]));
    expect(outcomes(r, 'B')).toEqual(['5000 B\'s job fails (it gave up waiting for lease:x after 4 s); its error path runs.', '5000 B is done: the job failed.']);
    // Its retry, due at 2 s, runs when it resumes at 5 s: that SET finds the key taken, and the deadline (3.5 s) is past.
    expect(commands(r, 'B', 'SET').map((e) => [e.atMs, e.reply])).toEqual([[1_000, '(nil)'], [5_000, '(nil)']]);
  });

  it('the acquisition latency is from the first SET to the grant', () => {
    const r = runScenario(build({ mechanism: { lock: 'lease' } }, [...one(2_500), { id: 'B', startMs: 1_000, steps: steps('acquire', 'release') }]));
    expect(r.metrics.acquisitionLatency).toEqual({ count: 2, meanMs: 1_000, maxMs: 2_000 });
  });

  it('client.renewFrom "firstAttempt": the first renewal is due renewEveryMs after the first SET, not after the grant', () => {
    const workers: Worker[] = [...one(2_500), { id: 'B', startMs: 1_000, steps: steps('acquire', ['work', 3_500], 'release') }];
    const renewals = (renewFrom: 'grant' | 'firstAttempt') => commands(runScenario(build({ mechanism: { lock: 'lease', renewal: 'compare-and-extend' }, client: { renewFrom } }, workers)), 'B', 'EVAL').filter((e) => e.command!.includes('pexpire')).map((e) => e.atMs);
    // B's first SET at 1 s, the grant at 3 s (A released at 2.5 s), renewals every 3 s.
    expect(renewals('firstAttempt')).toEqual([4_000]);
    expect(renewals('grant')).toEqual([6_000]);
  });
});

describe('the lease: the fencing token (INCR)', () => {
  it('a fence key that is the lease key: INCR of the owner token is an error, and the worker goes on without a token', () => {
    const r = runScenario(build({ mechanism: { lock: 'lease', fencing: true }, lease: { ...LEASE, fenceKey: 'lease:x', fenceStart: 0 } }, [{ id: 'A', startMs: 0, steps: steps('acquire', ['work', 100], 'release') }]));
    const incr = sent(r, 'A', 'INCR');
    expect([incr.command, incr.reply, incr.narration]).toEqual(['INCR lease:x', '(error) ERR value is not an integer or out of range', 'A could not get a fencing token (ERR value is not an integer or out of range): it goes on without one.']);
    expect(incr.beliefs).toMatchObject({ ownsLease: true, fencingToken: null, acquiredAtMs: 0, leaseBelievedUntilMs: 10_000, renewFailed: false, refusedAsStale: false });
    expect(incr.state).toBe('holding');
  });

  it('an INCR that gets no reply (the connection drops right after the SET): no token, and the worker goes on', () => {
    const redis = World.prototype.redis;
    vi.spyOn(World.prototype, 'redis').mockImplementation(function (this: World, actor, cmd, narrate, w) {
      if (cmd.op === 'INCR' && w !== undefined) w.cutOffUntilMs = this.nowMs + 1;
      return redis.call(this, actor, cmd, narrate, w);
    });
    const r = runScenario(build({ mechanism: { lock: 'lease', fencing: true } }, [{ id: 'A', startMs: 0, steps: steps('acquire', ['work', 100], 'release') }]));
    const incr = sent(r, 'A', 'INCR');
    expect([incr.reply, incr.narration]).toEqual(['(no reply: connection timed out)', 'A\'s INCR gets no reply: it has no fencing token and goes on without one.']);
    expect(incr.beliefs).toMatchObject({ ownsLease: true, fencingToken: null });
    expect(r.events.find((e) => e.actor === 'A' && e.kind === 'step')!.narration).toBe('A works for 100 ms inside its critical section.');
  });
});

describe('the lease: renewals', () => {
  const worker = (ms: number): Worker[] => [{ id: 'A', startMs: 0, steps: steps('acquire', ['work', ms], 'release') }];
  const PAUSE_A = [{ kind: 'pause' as const, worker: 'A', atMs: 1_000, pauseMs: 12_000 }];
  const renewalsOf = (r: RunResult) => r.events.filter((e) => e.actor === 'A' && e.data?.t === 'lease' && (e.data.op === 'renewed' || e.data.op === 'renewFailed'));

  it('a plain SET: it "renews" by discarding the TTL, and the worker believes its lease no longer runs out', () => {
    const r = runScenario(build({ mechanism: { lock: 'lease', renewal: 'set' } }, worker(7_000)));
    expect(renewalsOf(r).map((e) => [e.atMs, e.command, e.reply, e.narration, e.beliefs!.leaseBelievedUntilMs])).toEqual([
      [3_000, 'SET lease:x e01d', 'OK', 'A "renews" with a plain SET: that overwrites whoever holds the key and discards its TTL — the lease never expires now.', null],
      [6_000, 'SET lease:x e01d', 'OK', 'A "renews" with a plain SET: that overwrites whoever holds the key and discards its TTL — the lease never expires now.', null],
    ]);
    expect(renewalsOf(r)[0]!.data).toEqual({ t: 'lease', op: 'renewed', key: 'lease:x', worker: 'A' });
  });

  it.each([
    ['set', 'SET lease:x e01d', `A's plain-SET renewal fails (${LOADING}): it cannot know whether it still owns the lease.`],
    ['set-px', 'SET lease:x e01d PX 10000', `A's SET renewal fails (${LOADING}): it cannot know whether it still owns the lease.`],
    ['pexpire', 'PEXPIRE lease:x 10000', `A's PEXPIRE renewal fails (${LOADING}): it cannot know whether it still owns the lease.`],
    ['compare-and-extend', 'EVAL', `A's renewal fails (${LOADING}): it cannot know whether it still owns the lease.`],
  ] as const)('renewal %s answered with an error: a failed renewal, counted; the worker still believes it owns the lease and renews again', (renewal, command, narration) => {
    redisRefuses(renewal === 'compare-and-extend' ? 'COMPARE_AND_EXTEND' : renewal === 'pexpire' ? 'PEXPIRE' : 'SET', 1);
    const r = runScenario(build({ mechanism: { lock: 'lease', renewal } }, worker(7_000)));
    expect(renewalsOf(r).map((e) => [e.atMs, e.command!.startsWith(command), e.reply, e.narration])).toEqual([
      [3_000, true, `(error) ${LOADING}`, narration],
      [6_000, true, `(error) ${LOADING}`, narration],
    ]);
    for (const e of renewalsOf(r)) {
      expect(e.data).toEqual({ t: 'lease', op: 'renewFailed', key: 'lease:x', worker: 'A' });
      expect(e.beliefs).toMatchObject({ ownsLease: true, renewFailed: true, leaseBelievedUntilMs: 10_000 });
    }
    expect(r.metrics.renewFailures).toBe(2);
  });

  it('SET … PX after the key expired re-creates it; the next one only resets the TTL (with a fence key in the store too)', () => {
    const r = runScenario(build({ mechanism: { lock: 'lease', renewal: 'set-px', fencing: true }, faults: PAUSE_A }, worker(17_000)));
    expect(renewalsOf(r).map((e) => [e.atMs, e.narration, e.beliefs!.leaseBelievedUntilMs])).toEqual([
      [13_000, 'A\'s SET re-creates lease:x, which had expired: A re-acquires after a gap in which another worker could have taken the lease and worked, and it cannot tell.', 23_000],
      [16_000, 'A renews with SET … PX: the key still held its token, so this only resets the TTL to 10 s.', 26_000],
    ]);
    expect(renewalsOf(r).every((e) => e.data?.t === 'lease' && e.data.op === 'renewed')).toBe(true);
  });

  it('SET … PX and plain PEXPIRE after a successor took the key: they overwrite or extend the successor\'s lease', () => {
    const two = (renewal: 'set-px' | 'pexpire') => runScenario(build({ mechanism: { lock: 'lease', renewal, fencing: true }, faults: PAUSE_A }, [
      { id: 'A', startMs: 0, steps: steps('acquire', ['work', 7_000], 'release') },
      { id: 'B', startMs: 1_000, steps: steps('acquire', ['work', 7_000], 'release') },
    ]));
    expect(renewalsOf(two('set-px'))[0]!.narration).toBe('A\'s SET overwrites B\'s lease with its own token: B still believes it owns lease:x.');
    const pexpire = two('pexpire');
    expect(renewalsOf(pexpire)[0]!.narration).toBe('A\'s plain PEXPIRE extends B\'s lease, not its own: PEXPIRE checks no owner, so A goes on believing it owns lease:x — two owners now.');
    expect(renewalsOf(pexpire)[0]!.beliefs).toMatchObject({ ownsLease: true, leaseBelievedUntilMs: 23_000 });
    const own = renewalsOfB(pexpire)[0]!;
    expect([own.narration, own.data]).toEqual(['B extends its lease by 10 s with a plain PEXPIRE (the key still holds its token, but PEXPIRE did not check that).', { t: 'lease', op: 'renewed', key: 'lease:x', worker: 'B' }]);
  });

  it('a PEXPIRE that replies 0 (the key expired): the worker knows it lost the lease, counts it, and renews no more', () => {
    const r = runScenario(build({ mechanism: { lock: 'lease', renewal: 'pexpire' }, faults: PAUSE_A }, worker(17_000)));
    expect(renewalsOf(r).map((e) => [e.atMs, e.reply, e.narration])).toEqual([
      [13_000, '(integer) 0', 'A\'s PEXPIRE replies 0: lease:x no longer exists (it expired). Unless A checks, it keeps working.'],
    ]);
    expect(renewalsOf(r)[0]!.beliefs).toMatchObject({ ownsLease: false, renewFailed: true });
    expect(renewalsOf(r)[0]!.data).toEqual({ t: 'lease', op: 'renewFailed', key: 'lease:x', worker: 'A' });
    expect(r.metrics.renewFailures).toBe(1);
  });

  it('a compare-and-extend that replies 0: the worker knows it lost the lease and still sends its release', () => {
    const r = runScenario(build({ mechanism: { lock: 'lease', renewal: 'compare-and-extend' }, faults: PAUSE_A }, worker(17_000)));
    expect(renewalsOf(r).map((e) => [e.atMs, e.reply, e.narration, e.beliefs!.ownsLease])).toEqual([
      [13_000, '(integer) 0', 'A\'s renewal fails: the key expired or belongs to someone else now. Unless A checks, it keeps working.', false],
    ]);
    expect(said(r, 'A').at(-2)).toBe('17000 EVAL "if redis.call(\\"get\\",KEYS[1]) == ARGV[1] then return redis.call(\\"del\\",KEYS[1]) else return 0 end" 1 lease:x e01d → (integer) 0 | A\'s compare-and-delete finds no key: nothing to release.');
    expect(r.metrics.renewFailures).toBe(1);
  });
});

function renewalsOfB(r: RunResult): TraceEvent[] {
  return r.events.filter((e) => e.actor === 'B' && e.data?.t === 'lease' && e.data.op === 'renewed');
}

describe('the lease: release', () => {
  const worker = (ms: number): Worker[] => [{ id: 'A', startMs: 0, steps: steps('acquire', ['work', ms], 'release') }];
  const released = (r: RunResult) => r.events.find((e) => e.actor === 'A' && e.state === 'releasing')!;

  it.each([
    ['del', 'DEL', `A's DEL fails (${LOADING}): it gives up its lease without knowing whether the key was deleted.`],
    ['compare-and-delete', 'COMPARE_AND_DELETE', `A's compare-and-delete fails (${LOADING}): it gives up its lease without knowing whether the key was deleted.`],
  ] as const)('%s answered with an error: the worker gives the lease up and the job completes; the key stays until its TTL', (release, op, narration) => {
    redisRefuses(op);
    const r = runScenario(build({ mechanism: { lock: 'lease', release }, client: { checkRelease: true } }, worker(7_000)));
    expect([released(r).atMs, released(r).narration, released(r).beliefs!.ownsLease]).toEqual([7_000, narration, false]);
    expect(outcomes(r, 'A')).toEqual(['7000 A is done: it completed the job.']);
    expect(r.events.find((e) => e.actor === 'redis')!.atMs).toBe(10_000);
  });

  it.each([
    ['del', 'A\'s DEL gets no reply (timed out): it gives up its lease without knowing whether the key was deleted; if the DEL never arrived, the key stays until its TTL runs out.'],
    ['compare-and-delete', 'A\'s compare-and-delete gets no reply (timed out): it gives up its lease without knowing whether the key was deleted; if its token is still there, the key stays until its TTL runs out.'],
  ] as const)('%s that gets no reply (a partition): the worker gives the lease up and the job completes', (release, narration) => {
    const r = runScenario(build({ mechanism: { lock: 'lease', release }, client: { checkRelease: true }, faults: [{ kind: 'partition', worker: 'A', atMs: 6_000, durationMs: 2_000 }] }, worker(7_000)));
    expect([released(r).reply, released(r).narration, released(r).beliefs!.ownsLease]).toEqual(['(no reply: connection timed out)', narration, false]);
    expect(outcomes(r, 'A')).toEqual(['7000 A is done: it completed the job.']);
  });

  it('plain DEL after a successor took the key deletes the successor\'s lease (with a fence key in the store too)', () => {
    const r = runScenario(build({ mechanism: { lock: 'lease', release: 'del', fencing: true }, faults: [{ kind: 'pause', worker: 'A', atMs: 1_000, pauseMs: 12_000 }] }, [
      { id: 'A', startMs: 0, steps: steps('acquire', ['work', 14_000], 'release') },
      { id: 'B', startMs: 1_000, steps: steps('acquire', ['work', 7_000], 'release') },
    ]));
    const del = sent(r, 'A', 'DEL');
    expect([del.atMs, del.reply, del.narration]).toEqual([14_000, '(integer) 1', 'A releases with plain DEL and deletes B\'s lease, not its own: B still believes it owns lease:x.']);
    expect(del.data).toEqual({ t: 'lease', op: 'deleted', key: 'lease:x', worker: 'A', deletedOwner: 'B' });
  });

  it('a compare-and-delete that sees a successor\'s token deletes nothing; a checking client fails the job', () => {
    const r = runScenario(build({ mechanism: { lock: 'lease', fencing: true }, client: { checkRelease: true }, faults: [{ kind: 'pause', worker: 'A', atMs: 1_000, pauseMs: 12_000 }] }, [
      { id: 'A', startMs: 0, steps: steps('acquire', ['work', 14_000], 'release') },
      { id: 'B', startMs: 1_000, steps: steps('acquire', ['work', 7_000], 'release') },
    ]));
    expect(said(r, 'A').slice(-3)).toEqual([
      '14000 EVAL "if redis.call(\\"get\\",KEYS[1]) == ARGV[1] then return redis.call(\\"del\\",KEYS[1]) else return 0 end" 1 lease:x e01d → (integer) 0 | A\'s compare-and-delete sees B\'s token, not its own, and deletes nothing: B\'s lease is safe. A\'s client checks the reply and fails the job: it had lost the lease.',
      '14000 outcome | A\'s job fails (its release found lease:x no longer held with its token); its error path runs.',
      '14000 outcome | A is done: the job failed.',
    ]);
  });

  it('DEL of a key already gone: a checking client fails the job; one that does not goes on', () => {
    const run = (checkRelease: boolean) => runScenario(build({ mechanism: { lock: 'lease', release: 'del' }, client: { checkRelease }, faults: [{ kind: 'pause', worker: 'A', atMs: 1_000, pauseMs: 12_000 }] }, worker(14_000)));
    expect(said(run(true), 'A').slice(-3)).toEqual([
      '14000 DEL lease:x → (integer) 0 | A runs DEL but the key is already gone. A\'s client checks the reply and fails the job: it had lost the lease.',
      '14000 outcome | A\'s job fails (its release found lease:x no longer held with its token); its error path runs.',
      '14000 outcome | A is done: the job failed.',
    ]);
    expect(said(run(false), 'A').slice(-2)).toEqual(['14000 DEL lease:x → (integer) 0 | A runs DEL but the key is already gone.', '14000 outcome | A is done: it completed the job.']);
  });

  it('a release step in a job that never acquired sends the compare-and-delete with an empty token: it matches nothing', () => {
    const r = runScenario(build({ mechanism: { lock: 'lease' } }, [{ id: 'A', startMs: 0, steps: steps(['work', 10], 'release') }]));
    expect(said(r, 'A').slice(1)).toEqual([
      '10 EVAL "if redis.call(\\"get\\",KEYS[1]) == ARGV[1] then return redis.call(\\"del\\",KEYS[1]) else return 0 end" 1 lease:x "" → (integer) 0 | A\'s compare-and-delete finds no key: nothing to release.',
      '10 outcome | A is done: it completed the job.',
    ]);
  });

  it('a release that fails the job ends it there: a fault placed after the release step never fires', () => {
    // The pause is placed after step 2 (the release): the client threw at that step, so it never completed.
    const r = runScenario(build({ mechanism: { lock: 'lease', release: 'del' }, client: { checkRelease: true }, faults: [{ kind: 'pause', worker: 'A', atMs: 1_000, pauseMs: 12_000 }, { kind: 'pause', worker: 'A', step: 2, phase: 'after', pauseMs: 1_000 }] }, worker(14_000)));
    expect(said(r, 'A').slice(-2)).toEqual(['14000 outcome | A\'s job fails (its release found lease:x no longer held with its token); its error path runs.', '14000 outcome | A is done: the job failed.']);
    expect(r.events.filter((e) => e.actor === 'A' && e.kind === 'fault').map((e) => e.atMs)).toEqual([1_000, 13_000]);
    // Not even as a fault on a worker that is no longer running: the second pause never fires.
    expect(r.events.some((e) => e.narration.includes('not running'))).toBe(false);
    expect(r.faultTimesMs).toEqual([1_000, null]);
  });

  it('the error path\'s release of a lost lease: the job has already failed, so a checking client does not fail it again', () => {
    for (const release of ['del', 'compare-and-delete'] as const) {
      const r = runScenario(build({ mechanism: { lock: 'lease', release }, client: { checkRelease: true }, faults: [{ kind: 'pause', worker: 'A', atMs: 1_000, pauseMs: 12_000 }, { kind: 'jobError', worker: 'A', atMs: 13_500 }] }, worker(14_000)));
      expect(released(r).narration).toBe(release === 'del' ? 'A runs DEL but the key is already gone.' : 'A\'s compare-and-delete finds no key: nothing to release.');
      expect(outcomes(r, 'A')).toEqual(['13500 A\'s job fails (an exception); its error path runs.', '13500 A is done: the job failed.']);
    }
  });
});
