import { findPreset, runScenario } from '../../sim';
import { initialBeliefs } from '../../sim/workers/workerMachine';
import { beliefsInWords, heldLockWords } from './beliefs';

describe('the lock a worker believes it holds, named as its scenario takes it', () => {
  it('balance-update with the fix holds a row lock (FOR UPDATE), not an advisory lock', () => {
    const s = findPreset('balance-update')!.withFix;
    const held = runScenario(s).events.find((e) => e.actor === 'A' && e.beliefs?.holdsLock)!;
    expect(held).toBeDefined();
    const words = beliefsInWords(held.beliefs!, s.lease.key, heldLockWords(s, 'A'));
    expect(words).toContain('believes it holds a row lock (SELECT … FOR UPDATE)');
    expect(words).not.toContain('advisory');
  });
  it("an advisory lock by its key; several keys (lock-order-deadlock's two) as one of them, never as both", () => {
    const export_ = findPreset('session-lock-pool')!.withFix;
    expect(heldLockWords(export_, 'A')).toBe(`advisory lock ${export_.mechanism.advisoryKey}`);
    expect(heldLockWords(findPreset('lock-order-deadlock')!.withoutFix, 'A')).toMatch(/^one of advisory locks \d+ and \d+$/);
    expect(heldLockWords(findPreset('admin-bypass')!.withFix, 'admin')).toBe('a lock');
  });
});

describe('a worker\'s beliefs in words', () => {
  it('a write refused as stale is not called a failed renewal (fenced-db-write renews nothing)', () => {
    const words = beliefsInWords({ ...initialBeliefs, refusedAsStale: true, fencingToken: 33 }, 'lease:report');
    expect(words).toContain('knows it lost the lease: its write was refused as stale');
    expect(words).not.toContain('renewal');
  });
  it('a failed renewal says so', () => {
    expect(beliefsInWords({ ...initialBeliefs, renewFailed: true }, 'lease:export')).toContain('knows a renewal failed');
  });
});

describe('a job\'s outcome in words', () => {
  it('never shows the internal name (queue-redelivery with the fix: B found no job)', () => {
    expect(beliefsInWords({ ...initialBeliefs, outcome: 'noJob' }, 'lease:x')).toBe('outcome: found no job to do');
  });
  it('a debit whose SKIP LOCKED read got no row says so, not "sold out" (a reservation\'s words)', () => {
    const s = findPreset('balance-update')!.withoutFix;
    const r = runScenario({ ...s, mechanism: { ...s.mechanism, rowLock: 'forUpdateSkipLocked' } });
    const last = r.events.filter((e) => e.actor === 'B' && e.beliefs !== undefined).at(-1)!;
    expect(beliefsInWords(last.beliefs!, s.lease.key)).toContain('outcome: got no row to work on');
  });
});
