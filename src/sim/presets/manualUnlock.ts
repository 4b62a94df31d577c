import { scenario, steps, variant, type Preset } from './build';

// The job checks and records completion, so B, taking the lease after A released it, finds A's
// record and skips: without the operator's delete the order ships once (presets/catalogue.test.ts).
const job = steps('acquire', 'check', ['work', 30_000], ['effect', 1_000], 'record', 'release');
const base = scenario({
  id: 'manual-unlock',
  title: 'An operator deletes the lock by hand',
  description: 'The queue looks stuck; an operator deletes the lease key while its owner is alive and working.',
  lesson: 'recovery',
  horizonMs: 90_000,
  job: { kind: 'external', jobKey: 'ship-order-981' },
  mechanism: { lock: 'lease', jobRecord: true },
  lease: { key: 'lease:ship-981', fenceKey: 'fence:ship-981', fenceStart: 0, ttlMs: 60_000, retryEveryMs: 1_000, renewEveryMs: 20_000, replicationLagMs: 0 },
  destination: { kind: 'api', target: 'POST /v1/shipments', checksFencing: false, honoursIdempotencyKeys: false },
  workers: [
    { id: 'A', startMs: 0, steps: job },
    { id: 'B', startMs: 1_000, steps: job },
  ],
  faults: [{ kind: 'manualDelete', atMs: 10_000 }],
  invariants: [{ kind: 'effectOnce', harmless: false }],
});

/** manual-unlock: deleting a live owner's lock lets a second worker run; an idempotent destination absorbs the replay. */
export const manualUnlock: Preset = {
  id: 'manual-unlock',
  title: base.title,
  lesson: 'recovery',
  situation: 'A holds a 60 s lease on shipping order 981 and is 10 s into a 30 s job. An operator deletes the key to "unstick the queue". B takes the lease at once, finds no completion record (A has not written it yet) and runs the same job: the shipment is created twice. Without the delete, B would have waited for the lease, found A\'s record and skipped.',
  fix: 'stop the owner or wait out the lease; replay against an idempotent destination',
  withoutFix: base,
  withFix: variant(base, { idempotencyKey: true }, { destination: { ...base.destination, honoursIdempotencyKeys: true } }),
  expected: { withoutFix: 'two workers run; 2 shipments', withFix: 'two workers run, the API deduplicates: 1 shipment' },
};
