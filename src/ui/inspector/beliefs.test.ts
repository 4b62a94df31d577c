import { initialBeliefs } from '../../sim/workers/workerMachine';
import { beliefsInWords } from './beliefs';

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
});
