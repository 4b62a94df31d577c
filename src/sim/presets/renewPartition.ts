import { scenario, steps, variant, type Preset } from './build';

const job = steps('acquire', ['work', 8_000], ['effect', 20_000], 'release');
const base = scenario({
  id: 'renew-partition',
  title: 'Renewals fail during a partition',
  description: 'A renews its 10 s lease every 3 s. A partition cuts it off from Redis (not from the file store); its renewals fail, the lease expires, B takes over, A keeps working and uploads.',
  lesson: 'leases',
  horizonMs: 60_000,
  job: { kind: 'external', jobKey: 'ledger-export' },
  mechanism: { lock: 'lease', renewal: 'compare-and-extend' },
  lease: { key: 'lease:ledger', fenceKey: 'fence:ledger', fenceStart: 32, ttlMs: 10_000, retryEveryMs: 1_000, renewEveryMs: 3_000, replicationLagMs: 0 },
  destination: { kind: 'file', target: 'reports/ledger.csv', checksFencing: false, honoursIdempotencyKeys: false },
  workers: [
    { id: 'A', startMs: 0, steps: job },
    { id: 'B', startMs: 1_000, steps: job },
  ],
  faults: [{ kind: 'partition', worker: 'A', atMs: 4_000, durationMs: 30_000 }],
  invariants: [{ kind: 'noOverlappingWrites' }, { kind: 'noStaleTokenAccepted' }],
});

/** renew-partition: a failed renewal must stop the worker before it commits, and fencing protects the store anyway. */
export const renewPartition: Preset = {
  id: 'renew-partition',
  title: base.title,
  lesson: 'leases',
  situation: 'A renews at 3 s, then is cut off from Redis at 4 s. Its renewals at 6 s, 9 s and 12 s time out; the lease expires at 13 s and B takes it. A, still working, uploads reports/ledger.csv from 8 s; B uploads from 21 s: the uploads overlap.',
  fix: 'stop before the write when a renewal fails, plus a fencing token checked by the store',
  withoutFix: base,
  withFix: variant(base, { stopOnRenewFailure: true, fencing: true }, { destination: { ...base.destination, checksFencing: true } }),
  expected: { withoutFix: 'overlapping uploads; renew failures in the metrics', withFix: 'A stops before uploading; one upload' },
};
