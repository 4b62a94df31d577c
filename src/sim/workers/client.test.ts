/**
 * Lock clients as libraries really behave (scenario version 2, `client`): try once and skip,
 * bounded retries, a checked release, the renewal schedule (from the grant or the first attempt,
 * with a margin), renewal by plain PEXPIRE, and the renewalStall fault. And the migration: every
 * version-1 scenario keeps its trace hash.
 */
import { PRESETS, findPreset } from '../presets';
import { scenario, steps } from '../presets/build';
import { runScenario, type RunResult } from '../engine/run';
import { laterVersionFields, parseScenario } from '../scenario/migrate';
import { DEFAULT_CLIENT, type Scenario } from '../scenario/schema';

const leaseBase = (over: Partial<Scenario['client']> = {}, mech: Partial<Scenario['mechanism']> = {}) => scenario({
  id: 'client-test', title: 'client', description: '', lesson: 'leases', horizonMs: 60_000,
  job: { kind: 'external', jobKey: 'j' },
  mechanism: { lock: 'lease', ...mech },
  client: over,
  lease: { key: 'lease:j', fenceKey: 'fence:j', fenceStart: 0, ttlMs: 10_000, retryEveryMs: 1_000, renewEveryMs: 3_000, replicationLagMs: 0 },
  workers: [
    { id: 'A', startMs: 0, steps: steps('acquire', ['work', 8_000], 'release') },
    { id: 'B', startMs: 1_000, steps: steps('acquire', ['work', 1_000], 'release') },
  ],
  invariants: [{ kind: 'mutualExclusion' }],
});
const advisoryBase = (over: Partial<Scenario['client']>) => ({
  ...leaseBase(over, { lock: 'advisory-session' }),
  workers: [
    { id: 'A', startMs: 0, steps: steps('connect', 'acquire', ['work', 5_000], 'release', 'disconnect') },
    { id: 'B', startMs: 1_000, steps: steps('connect', 'acquire', ['work', 1_000], 'release', 'disconnect') },
  ],
});
const of = (r: RunResult, actor: string, prefix: string) => r.events.filter((e) => e.actor === actor && (e.command ?? '').startsWith(prefix));
const outcomes = (r: RunResult, actor: string) => r.events.filter((e) => e.actor === actor && e.kind === 'outcome').map((e) => e.narration);

describe('scenario version 2: the migration from version 1', () => {
  it('every preset written as version 1 (no client) opens as version 2 with the same trace hash', () => {
    for (const p of PRESETS) {
      for (const s of [p.withoutFix, p.withFix]) {
        if (JSON.stringify(s.client) !== JSON.stringify(DEFAULT_CLIENT) || s.mechanism.renewal === 'pexpire' || s.faults.some((f) => f.kind === 'renewalStall') || s.mechanism.fenceSource !== undefined || s.job.kind === 'fencedRow' || s.database.pooler !== undefined || s.queue !== undefined) continue;
        // Server timeouts, isolation and the retry policy exist only in version 2 (serializable-retry uses them).
        if (laterVersionFields({ database: s.database, workers: s.workers }, 1).length > 0) continue;
        const { client: _c, ...v1 } = JSON.parse(JSON.stringify(s)) as Scenario;
        const r = parseScenario({ ...v1, version: 1 });
        expect(r.ok ? r.scenario.client : r.errors).toEqual(DEFAULT_CLIENT);
        if (r.ok) expect(runScenario(r.scenario).traceHash).toBe(runScenario(s).traceHash);
      }
    }
  });

  it.each([
    ['client', (s: Record<string, any>) => (s.client = { ...DEFAULT_CLIENT }), 'client: exists only in scenario version 2: set "version": 2'],
    ['the pexpire renewal', (s: Record<string, any>) => (s.mechanism.renewal = 'pexpire'), 'mechanism.renewal: "pexpire" exists only in scenario version 2: set "version": 2'],
    ['the set-px renewal', (s: Record<string, any>) => (s.mechanism.renewal = 'set-px'), 'mechanism.renewal: "set-px" exists only in scenario version 2: set "version": 2'],
    ['the renewalStall fault', (s: Record<string, any>) => (s.faults = [{ kind: 'renewalStall', worker: 'A', atMs: 1, durationMs: 5 }]), 'faults[0].kind: "renewalStall" exists only in scenario version 2: set "version": 2'],
    ['statement_timeout', (s: Record<string, any>) => (s.database.statementTimeoutMs = 5_000), 'database.statementTimeoutMs: exists only in scenario version 2: set "version": 2'],
    ['idle_in_transaction_session_timeout', (s: Record<string, any>) => (s.database.idleInTransactionSessionTimeoutMs = 5_000), 'database.idleInTransactionSessionTimeoutMs: exists only in scenario version 2: set "version": 2'],
    ['an isolation level', (s: Record<string, any>) => (s.database.isolation = 'serializable'), 'database.isolation: exists only in scenario version 2: set "version": 2'],
    ['the retry on 40001', (s: Record<string, any>) => (s.database.serializationRetries = 3), 'database.serializationRetries: exists only in scenario version 2: set "version": 2'],
    ['a begin step\'s isolation', (s: Record<string, any>) => (s.workers[0].steps = [{ do: 'begin', isolation: 'repeatable read' }]), 'workers[0].steps[0].isolation: exists only in scenario version 2: set "version": 2'],
  ])('refuses a version-1 file that uses %s, naming the path', (_what, edit, message) => {
    const { client: _c, ...v1 } = JSON.parse(JSON.stringify(findPreset('export-lease-expiry')!.withoutFix)) as Scenario;
    const input: Record<string, any> = { ...v1, version: 1 };
    edit(input);
    const r = parseScenario(input);
    expect(r.ok ? [] : r.errors.map((e) => `${e.path}: ${e.message}`)).toEqual([message]);
  });
});

describe('client.onBusy', () => {
  it('skip, advisory lock: one pg_try_advisory_lock → f, the job is skipped without an error and sends no unlock', () => {
    const r = runScenario(advisoryBase({ onBusy: 'skip' }));
    const tries = of(r, 'B', 'SELECT pg_try_advisory_lock');
    expect(tries.map((e) => [e.command, e.reply])).toEqual([['SELECT pg_try_advisory_lock(42)', 'f']]);
    expect(tries[0]!.narration).toBe('Advisory lock 42 is held by another session: B\'s try-lock returns false, so it skips the job without an error.');
    expect(of(r, 'B', 'SELECT pg_advisory_unlock')).toHaveLength(0);
    expect(outcomes(r, 'B')).toEqual(['B is done: it did not get the lock, so it skipped the job without an error.']);
    expect(of(r, 'A', 'SELECT pg_try_advisory_lock')[0]!.reply).toBe('t');
  });

  it('retry, advisory lock: 1 + retries tries, retryEveryMs apart, then the job fails', () => {
    const r = runScenario(advisoryBase({ onBusy: 'retry', retries: 2 }));
    expect(of(r, 'B', 'SELECT pg_try_advisory_lock').map((e) => [e.atMs, e.reply])).toEqual([[1_000, 'f'], [2_000, 'f'], [3_000, 'f']]);
    expect(outcomes(r, 'B')[0]).toBe('B\'s job fails (advisory lock 42 was still held after 3 tries); its error path runs.');
  });

  it('retry that succeeds within its tries takes the lock', () => {
    const r = runScenario(advisoryBase({ onBusy: 'retry', retries: 10 }));
    expect(of(r, 'B', 'SELECT pg_try_advisory_lock').map((e) => e.reply).at(-1)).toBe('t');
    expect(outcomes(r, 'B')).toEqual(['B is done: it completed the job.']);
  });

  it('skip, lease: a single SET NX, then skipped; no release', () => {
    const r = runScenario(leaseBase({ onBusy: 'skip' }));
    expect(of(r, 'B', 'SET').map((e) => e.reply)).toEqual(['(nil)']);
    expect(of(r, 'B', 'SET')[0]!.narration).toBe('lease:j is taken; B tried once and skips the job without an error.');
    expect(of(r, 'B', 'EVAL')).toHaveLength(0);
    expect(outcomes(r, 'B')).toEqual(['B is done: it did not get the lock, so it skipped the job without an error.']);
  });

  it('retry, lease: 1 + retries SET NX, then the job fails', () => {
    const r = runScenario(leaseBase({ onBusy: 'retry', retries: 3 }));
    expect(of(r, 'B', 'SET').map((e) => e.atMs)).toEqual([1_000, 2_000, 3_000, 4_000]);
    expect(outcomes(r, 'B')[0]).toBe('B\'s job fails (lease:j was still taken after 4 tries); its error path runs.');
  });
});

describe('client.checkRelease', () => {
  it('an unlock that returns f (+ WARNING) fails the job when the client checks it, and not otherwise', () => {
    const s = (check: boolean): Scenario => ({ ...advisoryBase({ checkRelease: check }), workers: [{ id: 'A', startMs: 0, steps: steps('connect', 'release', 'disconnect') }] });
    const checked = runScenario(s(true));
    expect(of(checked, 'A', 'SELECT pg_advisory_unlock')[0]!.reply).toBe('WARNING:  you don\'t own a lock of type ExclusiveLock; f');
    expect(outcomes(checked, 'A')[0]).toBe('A\'s job fails (its unlock of advisory lock 42 returned false: the session did not hold it); its error path runs.');
    expect(outcomes(runScenario(s(false)), 'A')).toEqual(['A is done: it completed the job.']);
  });

  it('a plain DEL that replies 0 fails the job when checked', () => {
    const s = leaseBase({ checkRelease: true }, { release: 'del' });
    const r = runScenario({ ...s, faults: [{ kind: 'expireLease', atMs: 5_000 }], workers: [s.workers[0]!] });
    expect(of(r, 'A', 'DEL')[0]!.reply).toBe('(integer) 0');
    expect(outcomes(r, 'A')[0]).toMatch(/^A's job fails \(its release found lease:j no longer held/);
  });
});

describe('renewal schedule', () => {
  const renewals = (r: RunResult, actor: string) => of(r, actor, 'EVAL').filter((e) => (e.command ?? '').includes('pexpire')).map((e) => e.atMs);
  it('from the grant (version 1): every renewEveryMs after the grant', () => {
    expect(renewals(runScenario(leaseBase({}, { renewal: 'compare-and-extend' })), 'A')).toEqual([3_000, 6_000]);
  });
  it('a margin brings each renewal earlier', () => {
    expect(renewals(runScenario(leaseBase({ renewMarginMs: 1_000 }, { renewal: 'compare-and-extend' })), 'A')).toEqual([2_000, 4_000, 6_000]);
  });
  it('from the first attempt: B, granted at 8 s after trying from 1 s, renews at once (its period ran out while it waited)', () => {
    const longB = (client: Partial<Scenario['client']>): Scenario => {
      const s = leaseBase(client, { renewal: 'compare-and-extend' });
      return { ...s, workers: [s.workers[0]!, { id: 'B', startMs: 1_000, steps: steps('acquire', ['work', 5_000], 'release') }] };
    };
    const r = runScenario(longB({ renewFrom: 'firstAttempt' }));
    const granted = of(r, 'B', 'SET').find((e) => e.reply === 'OK')!.atMs;
    expect(granted).toBe(8_000);
    expect(renewals(r, 'B')[0]).toBe(granted);
    expect(renewals(runScenario(longB({})), 'B')[0]).toBe(granted + 3_000);
  });
});

describe('renewal by SET … PX (set-px)', () => {
  const paused = (workers: 1 | 2): Scenario => {
    const s = leaseBase({}, { renewal: 'set-px' });
    return { ...s, workers: s.workers.slice(0, workers).map((w) => ({ ...w, steps: steps('acquire', ['work', 8_000], 'release') })), faults: [{ kind: 'pause', worker: 'A', atMs: 2_000, pauseMs: 12_000 }] };
  };
  const renewalsOf = (r: RunResult) => of(r, 'A', 'SET').filter((e) => !(e.command ?? '').includes(' NX'));
  it('while the key is its own, it only resets the TTL', () => {
    const s = leaseBase({}, { renewal: 'set-px' });
    const first = renewalsOf(runScenario({ ...s, workers: [s.workers[0]!] }))[0]!;
    expect([first.atMs, first.command, first.reply]).toEqual([3_000, expect.stringMatching(/^SET lease:j \w+ PX 10000$/), 'OK']);
    expect(first.narration).toBe('A renews with SET … PX: the key still held its token, so this only resets the TTL to 10 s.');
  });
  it('after the key expired, it re-acquires after the gap', () => {
    const first = renewalsOf(runScenario(paused(1)))[0]!;
    expect(first.atMs).toBe(14_000);
    expect(first.narration).toBe('A\'s SET re-creates lease:j, which had expired: A re-acquires after a gap in which another worker could have taken the lease and worked, and it cannot tell.');
  });
  it('when a successor holds the key, it overwrites the successor\'s lease', () => {
    const r = runScenario(paused(2));
    expect(of(r, 'B', 'SET').find((e) => e.reply === 'OK')!.atMs).toBe(10_000);
    expect(renewalsOf(r)[0]!.narration).toBe('A\'s SET overwrites B\'s lease with its own token: B still believes it owns lease:j.');
  });
});

describe('the renewalStall fault', () => {
  it('defers only the renewals: the work step ends on time, the renewal runs when the stall ends', () => {
    const s = leaseBase({}, { renewal: 'compare-and-extend' });
    const r = runScenario({ ...s, workers: [s.workers[0]!], faults: [{ kind: 'renewalStall', worker: 'A', atMs: 1_000, durationMs: 4_000 }] });
    expect(of(r, 'A', 'EVAL').filter((e) => (e.command ?? '').includes('pexpire')).map((e) => e.atMs)).toEqual([5_000]);
    expect(r.events.filter((e) => e.kind === 'fault').map((e) => [e.atMs, e.narration])).toEqual([
      [1_000, 'A\'s renewal timer stalls for 4 s (a starved watchdog thread, a blocked event loop): no renewal runs, while its job\'s own work carries on.'],
      [3_000, 'A\'s renewal of lease:j is due now, but its stalled timer cannot run it: the lease is not extended, and A does not know.'],
      [5_000, 'A\'s renewal timer can run again.'],
    ]);
    expect(of(r, 'A', 'EVAL').at(-1)!.atMs).toBe(8_000); // the release, after 8 s of work as without the fault
  });
});

describe('the version-2 example file (fixtures/scenario-v2-client.json, README "Scenario format, version 2")', () => {
  it('host2 tries pg_try_advisory_lock once, gets f and skips; the cleanup runs once', async () => {
    const { readFileSync } = await import('node:fs');
    const json = JSON.parse(readFileSync(new URL('../scenario/fixtures/scenario-v2-client.json', import.meta.url), 'utf8'));
    const parsed = parseScenario(json);
    expect(parsed.ok).toBe(true);
    if (!parsed.ok) return;
    const r = runScenario(parsed.scenario);
    expect(r.events.filter((e) => e.kind === 'sql').map((e) => `${e.actor} ${e.command} → ${e.reply}`)).toEqual([
      'host1 SELECT pg_try_advisory_lock(7) → t',
      'host2 SELECT pg_try_advisory_lock(7) → f',
      'host1 SELECT pg_advisory_unlock(7) → t',
    ]);
    expect(outcomes(r, 'host2')).toEqual(['host2 is done: it did not get the lock, so it skipped the job without an error.']);
    expect(r.verdict.held).toBe(true);
  });
});
