/**
 * Advisory locks taken without waiting and given back, event by event (PostgreSQL "Advisory Lock
 * Functions"): `pg_try_advisory_lock` answers `t` or `f` at once; `client.onBusy: retry` tries
 * `1 + retries` times `lease.retryEveryMs` apart and fails the job after the last `f`, `skip` skips
 * it after one; a session that already holds a lock gets it again at once (the lock counts how many
 * times it is held, and `pg_advisory_unlock` gives back one of them); locks of different keys are
 * counted apart; the transaction-scoped try (`pg_try_advisory_xact_lock`) holds until COMMIT.
 */
import { runScenario } from '../engine/run';
import { findPreset } from '../presets';
import { steps } from '../presets/build';
import type { Scenario } from '../scenario/schema';

const thumb = findPreset('thumbnail')!.withFix; // A from 0 ms, B from 50 ms; the job holds the lock 300 ms; retryEveryMs 100
const advisory = (client: Partial<Scenario['client']>, lock: Scenario['mechanism']['lock'] = 'advisory-session'): Scenario => ({
  ...thumb, mechanism: { ...thumb.mechanism, lock }, client: { ...thumb.client, ...client },
});
const tries = (s: Scenario, actor: string) => runScenario(s).events.filter((e) => e.actor === actor && /^SELECT pg_try_advisory/.test(e.command ?? ''));
const outcomeOf = (s: Scenario, actor: string) => runScenario(s).events.filter((e) => e.actor === actor && e.kind === 'outcome').at(-1)!.narration;

describe('pg_try_advisory_lock and the client\'s onBusy', () => {
  it('retry: each false names its try and when the next comes; the last false fails the job', () => {
    const s = advisory({ onBusy: 'retry', retries: 2 });
    expect(tries(s, 'B').map((e) => [e.atMs, e.reply, e.state, e.narration])).toEqual([
      [50, 'f', 'waiting', 'Advisory lock 42 is held by another session: B\'s try 1 of 3 returns false; it tries again in 100 ms.'],
      [150, 'f', 'waiting', 'Advisory lock 42 is held by another session: B\'s try 2 of 3 returns false; it tries again in 100 ms.'],
      [250, 'f', 'waiting', 'Advisory lock 42 is still held by another session: B\'s last try (3 of 3) returns false, so it gives up and fails the job.'],
    ]);
    expect(outcomeOf(s, 'B')).toBe('B is done: the job failed.');
  });

  it('retry: a true on a later try takes the lock, and the acquisition latency runs from the first try', () => {
    const s = advisory({ onBusy: 'retry', retries: 3 });
    const b = tries(s, 'B');
    // A unlocks at 300 ms, so B's fourth try at 350 ms gets it.
    expect(b.map((e) => e.reply)).toEqual(['f', 'f', 'f', 't']);
    expect([b[3]!.atMs, b[3]!.state, b[3]!.narration]).toEqual([350, 'holding', 'B\'s try-lock returns true: it holds advisory lock 42 for its session, until it unlocks or the connection closes.']);
    expect(b[3]!.beliefs!.holdsLock).toBe(true);
    expect(runScenario(s).metrics.acquisitionLatency).toEqual({ count: 2, meanMs: 150, maxMs: 300 });
    // Under the lock, B's check finds A's job record: the job is done once.
    expect(outcomeOf(s, 'B')).toBe('B is done: the job record said the work was already done.');
  });

  it('skip: one false, and the job is skipped without an error', () => {
    const s = advisory({ onBusy: 'skip' });
    expect(tries(s, 'B').map((e) => [e.reply, e.narration])).toEqual([['f', 'Advisory lock 42 is held by another session: B\'s try-lock returns false, so it skips the job without an error.']]);
    expect(outcomeOf(s, 'B')).not.toMatch(/failed/);
  });

  it('the transaction-scoped try inside a transaction holds until the transaction ends: B\'s try is false while A\'s transaction is open', () => {
    const inTxn = steps('begin', 'acquire', 'check', ['work', 200], ['effect', 100], 'record', 'commit');
    const s: Scenario = { ...advisory({ onBusy: 'skip' }, 'advisory-xact'), workers: thumb.workers.map((w) => ({ ...w, steps: inTxn })) };
    expect(tries(s, 'A').map((e) => [e.command, e.reply, e.narration])).toEqual([['SELECT pg_try_advisory_xact_lock(42)', 't', 'A\'s try-lock returns true: it holds advisory lock 42 until its transaction ends.']]);
    expect(tries(s, 'B').map((e) => e.reply)).toEqual(['f']);
  });
});

describe('a session that takes a lock again, and locks of other keys', () => {
  const twice = (client: Partial<Scenario['client']>, keys: [number?, number?] = []): Scenario => ({
    ...advisory(client),
    workers: [{ id: 'A', startMs: 0, steps: [{ do: 'acquire', ...(keys[0] === undefined ? {} : { advisoryKey: keys[0] }) }, { do: 'acquire', ...(keys[1] === undefined ? {} : { advisoryKey: keys[1] }) }, { do: 'work', ms: 100 }, { do: 'release' }] }],
  });
  const said = (s: Scenario, re: RegExp) => runScenario(s).events.filter((e) => re.test(e.command ?? '')).map((e) => e.narration);

  it('the second try-lock of the same key returns true at once and says the lock is now held twice; one unlock leaves it held', () => {
    const s = twice({ onBusy: 'skip' });
    expect(said(s, /^SELECT pg_try_advisory_lock/)).toEqual([
      'A\'s try-lock returns true: it holds advisory lock 42 for its session, until it unlocks or the connection closes.',
      'A\'s try-lock returns true at once: its connection\'s session already held advisory lock 42 (now held 2 times).',
    ]);
    expect(said(s, /^SELECT pg_advisory_unlock/)).toEqual(['A unlocks once, but the lock was taken more than once on this connection: it stays held.']);
  });

  it('the waiting form says the same: "acquires" at once, now held 2 times', () => {
    expect(said(twice({ onBusy: 'wait' }), /^SELECT pg_advisory_lock/)).toEqual([
      'A holds advisory lock 42 for its session, until it unlocks or the connection closes.',
      'A "acquires" advisory lock 42 at once: its connection\'s session already held it, and a session always gets its own lock again (now held 2 times).',
    ]);
  });

  it('locks of two keys are counted apart: the second is held once, not "again"', () => {
    const s = twice({ onBusy: 'skip' }, [7, 42]);
    expect(said(s, /^SELECT pg_try_advisory_lock/)).toEqual([
      'A\'s try-lock returns true: it holds advisory lock 7 for its session, until it unlocks or the connection closes.',
      'A\'s try-lock returns true: it holds advisory lock 42 for its session, until it unlocks or the connection closes.',
    ]);
  });

  it('an unlock of the mechanism\'s key says whether that key stays held, not whether some other key is held (pg_advisory_unlock releases one key)', () => {
    // The release unlocks mechanism.advisoryKey (42) once; lock 7, the other acquire step's, stays held.
    const other = twice({ onBusy: 'skip' }, [7, 42]);
    const r = runScenario(other);
    expect(said(other, /^SELECT pg_advisory_unlock/)).toEqual(['A unlocks advisory lock 42.']);
    expect(r.events.filter((e) => /^SELECT pg_advisory_unlock/.test(e.command ?? '')).map((e) => e.reply)).toEqual(['t']);
    // Held twice, the mechanism's key itself stays held after one unlock, even with another key beside it.
    const again = { ...other, workers: [{ ...other.workers[0]!, steps: [{ do: 'acquire' as const }, ...other.workers[0]!.steps] }] };
    expect(said(again, /^SELECT pg_advisory_unlock/)).toEqual(['A unlocks once, but the lock was taken more than once on this connection: it stays held.']);
  });

  it('after unlocking the mechanism\'s key, the worker still believes it holds a lock while lock 7, which its own acquire step took, stays held; with one key, it believes it holds none', () => {
    const belief = (s: Scenario) => runScenario(s).events.find((e) => /^SELECT pg_advisory_unlock/.test(e.command ?? ''))!.beliefs!.holdsLock;
    expect(belief(twice({ onBusy: 'skip' }, [7, 42]))).toBe(true);
    // Both acquire steps take 42: the unlock gives back one of the two, and the worker (which asked for the unlock) believes it released.
    expect(belief(twice({ onBusy: 'skip' }))).toBe(false);
  });
});

/**
 * Lease renewal (Redis "Distributed Locks with Redis": extend only while the key still holds the
 * owner's token). A renewal that succeeds moves what the worker believes — its lease lasts a TTL
 * from the renewal; one that finds the key gone (0) ends the worker's belief and its renewals.
 */
describe('lease renewal, as the worker believes it', () => {
  const exp = findPreset('export-lease-expiry')!.withoutFix; // TTL 30 s, renewEveryMs 10 s; A pauses 3 s → 43 s
  const renewing = (renewal: Scenario['mechanism']['renewal'], faults: Scenario['faults'] = []): Scenario => ({ ...exp, faults, mechanism: { ...exp.mechanism, renewal } });
  const renewals = (s: Scenario) => runScenario(s).events.filter((e) => e.actor === 'A' && /^(EVAL .*pexpire|PEXPIRE|SET lease:export \w+ PX)/.test(e.command ?? ''));

  it.each(['compare-and-extend', 'pexpire', 'set-px'] as const)('%s: after each renewal the worker believes its lease lasts a TTL from then', (renewal) => {
    const r = renewals(renewing(renewal));
    expect(r.map((e) => [e.atMs, e.beliefs!.leaseBelievedUntilMs, e.beliefs!.ownsLease])).toEqual([[10_000, 40_000, true], [20_000, 50_000, true]]);
  });

  it.each(['compare-and-extend', 'pexpire'] as const)('%s: a renewal that finds the key expired (0) ends the worker\'s belief, and it renews no more', (renewal) => {
    // A alone, paused from 3 s to 43 s: its key expired at 30 s, and nobody took it.
    const s: Scenario = { ...renewing(renewal, [{ kind: 'pause', worker: 'A', atMs: 3_000, pauseMs: 40_000 }]), horizonMs: 120_000, workers: [{ ...exp.workers[0]!, steps: steps('acquire', ['work', 5_000], ['effect', 60_000], 'release') }] };
    const r = renewals(s);
    expect(r.map((e) => [e.atMs, e.reply, e.beliefs!.ownsLease, e.beliefs!.renewFailed])).toEqual([[43_000, '(integer) 0', false, true]]);
  });
});

/**
 * Releasing a lease (Redis "Distributed Locks with Redis": delete the key only if it still holds
 * your token). unsafe-release: A's lease expires at 10 s while A works to 13 s; B takes it at 10 s,
 * C at 13.5 s. Each release says whose lease it deleted, and the trace data names that owner.
 */
describe('releasing a lease, event by event', () => {
  const releases = (s: Scenario) => runScenario(s).events.filter((e) => /^(DEL|EVAL .*del)/.test(e.command ?? ''))
    .map((e) => ({ at: e.atMs, by: e.actor, reply: e.reply, said: e.narration, data: e.data ?? null }));

  it('plain DEL deletes whoever holds the key: the successor\'s lease twice, then finds the key gone', () => {
    expect(releases(findPreset('unsafe-release')!.withoutFix)).toEqual([
      { at: 13_000, by: 'A', reply: '(integer) 1', said: 'A releases with plain DEL and deletes B\'s lease, not its own: B still believes it owns lease:rebuild.', data: { t: 'lease', op: 'deleted', key: 'lease:rebuild', worker: 'A', deletedOwner: 'B' } },
      { at: 18_000, by: 'B', reply: '(integer) 1', said: 'B releases with plain DEL and deletes C\'s lease, not its own: C still believes it owns lease:rebuild.', data: { t: 'lease', op: 'deleted', key: 'lease:rebuild', worker: 'B', deletedOwner: 'C' } },
      { at: 21_500, by: 'C', reply: '(integer) 0', said: 'C runs DEL but the key is already gone.', data: null },
    ]);
  });

  it('compare-and-delete deletes only its own token: A\'s release leaves B\'s lease, B and C release their own', () => {
    const got = releases(findPreset('unsafe-release')!.withFix);
    expect(got[0]).toMatchObject({ by: 'A', reply: '(integer) 0', said: 'A\'s compare-and-delete sees B\'s token, not its own, and deletes nothing: B\'s lease is safe.' });
    expect(got.filter((r) => r.reply === '(integer) 1').map((r) => [r.by, r.said, r.data])).toEqual(['B', 'C'].map((w) => [w, `${w} releases its own lease (compare-and-delete matched its token).`, { t: 'lease', op: 'released', key: 'lease:rebuild', worker: w }]));
  });

  it('with checkRelease, a plain DEL that deleted a key (1) does not fail the job; only a release that found nothing of its own does', () => {
    const u = findPreset('unsafe-release')!.withoutFix;
    const r = runScenario({ ...u, client: { ...u.client, checkRelease: true } });
    const outcome = (w: string) => r.events.filter((e) => e.actor === w && e.kind === 'outcome').at(-1)!.narration;
    expect([outcome('A'), outcome('B')]).toEqual(['A is done: it completed the job.', 'B is done: it completed the job.']);
    expect(outcome('C')).toMatch(/failed/);
  });
});
