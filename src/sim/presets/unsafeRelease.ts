import { scenario, steps, variant, type Preset } from './build';

const job = steps('acquire', ['work', 8_000], 'release');
const base = scenario({
  id: 'unsafe-release',
  title: 'Plain DEL deletes the successor\'s lock',
  description: 'A\'s lease expires while it is paused; B takes it; A resumes and releases with plain DEL, deleting B\'s lock; C acquires while B works.',
  lesson: 'leases',
  horizonMs: 40_000,
  job: { kind: 'external', jobKey: 'rebuild-index' },
  mechanism: { lock: 'lease', release: 'del' },
  lease: { key: 'lease:rebuild', fenceKey: 'fence:rebuild', fenceStart: 0, ttlMs: 10_000, retryEveryMs: 1_000, renewEveryMs: 3_000, replicationLagMs: 0 },
  workers: [
    { id: 'A', startMs: 0, steps: job },
    { id: 'B', startMs: 1_000, steps: job },
    { id: 'C', startMs: 2_500, steps: job },
  ],
  faults: [{ kind: 'pause', worker: 'A', step: 2, phase: 'before', pauseMs: 5_000 }],
  invariants: [{ kind: 'mutualExclusion' }],
});

/** unsafe-release: release must compare the owner token; a plain DEL deletes whoever holds the key now. */
export const unsafeRelease: Preset = {
  id: 'unsafe-release',
  title: base.title,
  lesson: 'leases',
  situation: 'A holds a 10 s lease and finishes its work at 8 s, then pauses for 5 s just before releasing. At 10 s the lease expires and B takes it. At 13 s A runs DEL lease:rebuild — deleting B\'s lock. C, retrying every second, takes the lease at 13.5 s while B is still working.',
  fix: 'release with compare-and-delete (a Lua script; DELEX … IFEQ on Redis 8.4)',
  withoutFix: base,
  withFix: variant(base, { release: 'compare-and-delete' }),
  expected: { withoutFix: 'B\'s lock deleted; B and C work at once', withFix: 'A\'s compare-and-delete returns 0; C waits for B' },
};
