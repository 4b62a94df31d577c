import { scenario, steps, variant, type Preset } from './build';

const base = scenario({
  id: 'watchdog-starved',
  title: 'A starved watchdog lets the lease expire',
  description: 'A renews its 10 s lease every 3 s from a watchdog timer. The timer starves (a busy event loop) while A\'s own work carries on; the lease expires, B takes it and uploads, A uploads too, and A\'s release then reports that it had lost the lease.',
  lesson: 'leases',
  horizonMs: 40_000,
  job: { kind: 'external', jobKey: 'ledger-close' },
  mechanism: { lock: 'lease', renewal: 'compare-and-extend', release: 'compare-and-delete', fencing: true },
  client: { checkRelease: true },
  lease: { key: 'lease:ledger', fenceKey: 'fence:ledger', fenceStart: 32, ttlMs: 10_000, retryEveryMs: 1_000, renewEveryMs: 3_000, replicationLagMs: 0 },
  destination: { kind: 'file', target: 'ledger/2026-11.csv', checksFencing: false, honoursIdempotencyKeys: false },
  workers: [
    { id: 'A', startMs: 0, steps: steps('acquire', ['work', 20_000], ['effect', 5_000], 'release') },
    { id: 'B', startMs: 1_000, steps: steps('acquire', ['work', 2_000], ['effect', 10_000], 'release') },
  ],
  faults: [{ kind: 'renewalStall', worker: 'A', atMs: 2_000, durationMs: 30_000 }],
  invariants: [{ kind: 'noOverlappingWrites' }, { kind: 'noStaleTokenAccepted' }],
});

/** watchdog-starved: a renewal timer is just another timer in the holder's process; only the destination's fencing check is safe from it. */
export const watchdogStarved: Preset = {
  id: 'watchdog-starved',
  title: base.title,
  lesson: 'leases',
  situation: 'A takes lease:ledger (10 s, token 33) and renews it every 3 s. At 2 s its renewal timer stalls for 30 s while its 20 s of work carries on. The lease expires at 10 s; B takes it (token 34) and uploads from 12 s. A uploads from 20 s with token 33, then its compare-and-delete replies 0 and its client fails the job — after the upload.',
  fix: 'a fencing token checked by the file store rejects A\'s stale upload',
  withoutFix: base,
  withFix: variant(base, {}, { destination: { ...base.destination, checksFencing: true } }),
  expected: { withoutFix: 'overlapping uploads; A\'s token 33 accepted after 34; A\'s release replies 0 and fails the job', withFix: 'A\'s upload with token 33 rejected (highest 34)' },
};
