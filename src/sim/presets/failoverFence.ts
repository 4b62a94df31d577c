import { scenario, steps, variant, type Preset } from './build';

const job = steps('acquire', ['work', 5_000], ['effect', 10_000], 'release');
const base = scenario({
  id: 'failover-fence',
  title: 'A Redis failover hands out a fencing token again',
  description: 'The export lease and its INCR fencing counter live in one Redis whose replica lags 2 s. The primary fails 1.5 s after A took the lease and token 33; the promoted replica has neither, so B takes the lease and INCR gives it 33 again. A, paused meanwhile, uploads with token 33 after B: the file store cannot tell the stale writer and accepts it.',
  lesson: 'leases',
  horizonMs: 60_000,
  job: { kind: 'external', jobKey: 'export-2026-11-30' },
  mechanism: { lock: 'lease', fencing: true, release: 'compare-and-delete' },
  lease: { key: 'lease:export', fenceKey: 'fence:export', fenceStart: 32, ttlMs: 30_000, retryEveryMs: 1_000, renewEveryMs: 10_000, replicationLagMs: 2_000 },
  destination: { kind: 'file', target: 'exports/2026-11-30.csv', checksFencing: true, honoursIdempotencyKeys: false },
  workers: [
    { id: 'A', startMs: 0, steps: job },
    { id: 'B', startMs: 1_000, steps: job },
  ],
  faults: [{ kind: 'failover', atMs: 1_500 }, { kind: 'pause', worker: 'A', atMs: 3_000, pauseMs: 10_000 }],
  invariants: [{ kind: 'noStaleTokenAccepted' }, { kind: 'noOverlappingWrites' }],
});

/** failover-fence: a token must come from where the lock's history is durable, not from the Redis that loses it. */
export const failoverFence: Preset = {
  id: 'failover-fence',
  title: base.title,
  lesson: 'leases',
  situation: 'A takes lease:export and INCR fence:export gives it token 33. At 1.5 s the Redis primary fails; its replica, 2 s behind, had neither write. B takes the lease on the promoted replica at 2 s and INCR gives it 33 too. B uploads with token 33 from 7 s; A, paused from 3 s to 13 s, uploads with token 33 from 15 s. The file store rejects only lower tokens, so it accepts both.',
  fix: 'the fencing token from a database sequence (SELECT nextval(\'fence_seq\')), which a Redis failover cannot roll back',
  withoutFix: base,
  withFix: variant(base, { fenceSource: 'db-sequence' }),
  expected: { withoutFix: 'B gets token 33 again after the failover; A\'s upload with 33 is accepted after B\'s', withFix: 'B gets token 34 from nextval; A\'s upload with 33 is rejected' },
};
