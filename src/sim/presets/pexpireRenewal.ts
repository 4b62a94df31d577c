import { scenario, steps, variant, type Preset } from './build';

// The job checks and records completion, so two runs one after the other do one upload: a second
// upload can only come from two owners at once.
const job = steps('acquire', 'check', ['work', 8_000], ['effect', 2_000], 'record', 'release');
const base = scenario({
  id: 'pexpire-renewal',
  title: 'Renewal by plain PEXPIRE extends the successor\'s lease',
  description: 'A renews its 10 s lease with a plain PEXPIRE, which checks no owner. A pauses, its lease expires and B takes it; when A resumes, its PEXPIRE extends B\'s key and A goes on as an owner too.',
  lesson: 'leases',
  horizonMs: 40_000,
  job: { kind: 'external', jobKey: 'reindex-catalog' },
  mechanism: { lock: 'lease', renewal: 'pexpire', release: 'compare-and-delete', stopOnRenewFailure: true, jobRecord: true },
  lease: { key: 'lease:reindex', fenceKey: 'fence:reindex', fenceStart: 0, ttlMs: 10_000, retryEveryMs: 1_000, renewEveryMs: 3_000, replicationLagMs: 0 },
  destination: { kind: 'file', target: 'search/catalog.idx', checksFencing: false, honoursIdempotencyKeys: false },
  workers: [
    { id: 'A', startMs: 0, steps: job },
    { id: 'B', startMs: 1_000, steps: job },
  ],
  faults: [{ kind: 'pause', worker: 'A', atMs: 2_000, pauseMs: 12_000 }],
  invariants: [{ kind: 'effectOnce', harmless: false }],
});

/** pexpire-renewal: an extension must check the owner; PEXPIRE extends whoever holds the key. */
export const pexpireRenewal: Preset = {
  id: 'pexpire-renewal',
  title: base.title,
  lesson: 'leases',
  situation: 'A takes lease:reindex for 10 s and renews it every 3 s with PEXPIRE lease:reindex 10000. A pauses from 2 s to 14 s; the lease expires at 10 s and B takes it. At 14 s A resumes and its renewal runs: PEXPIRE replies 1 — it extended B\'s key — so A keeps working as if it still owned the lease, alongside B.',
  fix: 'renew with compare-and-extend (a Lua script: PEXPIRE only if the key still holds my token)',
  withoutFix: base,
  withFix: variant(base, { renewal: 'compare-and-extend' }),
  expected: { withoutFix: 'A\'s PEXPIRE extends B\'s key; A and B work at once', withFix: 'A\'s compare-and-extend replies 0; A stops before uploading' },
};
