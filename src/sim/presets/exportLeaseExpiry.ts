import { scenario, steps, variant, type Preset } from './build';

const job = steps('acquire', ['work', 5_000], ['effect', 20_000], 'release');
const base = scenario({
  id: 'export-lease-expiry',
  title: 'Nightly export: the lease expires under a paused worker',
  description: 'The nightly export holds a 30 s Redis lease. Worker A pauses for 40 s (a GC pause), B takes over, A resumes and uploads too.',
  lesson: 'leases',
  horizonMs: 90_000,
  job: { kind: 'external', jobKey: 'export-2026-11-30' },
  mechanism: { lock: 'lease', release: 'compare-and-delete' },
  destination: { kind: 'file', target: 'exports/2026-11-30.csv', checksFencing: false, honoursIdempotencyKeys: false },
  workers: [
    { id: 'A', startMs: 0, steps: job },
    { id: 'B', startMs: 1_000, steps: job },
  ],
  faults: [{ kind: 'pause', worker: 'A', atMs: 3_000, pauseMs: 40_000 }],
  invariants: [{ kind: 'noOverlappingWrites' }, { kind: 'noStaleTokenAccepted' }],
});

/** export-lease-expiry: a lease does not grant the right to commit; a fencing token checked by the file store does. */
export const exportLeaseExpiry: Preset = {
  id: 'export-lease-expiry',
  title: base.title,
  lesson: 'leases',
  situation: 'A takes lease:export for 30 s and starts the export. At 3 s it stops for 40 s. At 30 s the lease expires and B takes it. At 43 s A resumes, still believing it owns the lease, and uploads the same file while B is uploading.',
  fix: 'a fencing token (INCR) checked by the file store rejects A\'s stale upload',
  withoutFix: base,
  withFix: variant(base, { fencing: true }, { destination: { ...base.destination, checksFencing: true } }),
  expected: { withoutFix: 'two overlapping uploads of one file', withFix: 'A\'s upload with token 33 rejected (highest 34)' },
};
