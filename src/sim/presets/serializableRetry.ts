import { scenario, steps, type Preset } from './build';

// Two payment requests for two different orders, each in a SERIALIZABLE transaction that checks
// the job record, prices the order, charges the card and records completion. They touch different
// rows of one small `jobs` table, which PostgreSQL's predicate locks cannot tell apart (one index
// page), so it fails B's write with 40001 — and the framework re-runs B's whole transaction.
const base = scenario({
  id: 'serializable-retry',
  title: 'A charge inside a retried SERIALIZABLE transaction',
  description: 'Each request runs BEGIN ISOLATION LEVEL SERIALIZABLE; checks its job record; prices the order; charges the card; records the job as done; COMMIT. The framework retries a transaction that fails with 40001.',
  lesson: 'recovery',
  horizonMs: 10_000,
  job: { kind: 'external', jobKey: 'charge-{worker}' },
  mechanism: { jobRecord: true },
  database: { poolSize: 4, isolation: 'serializable', serializationRetries: 3 },
  destination: { kind: 'api', target: 'POST /v1/charges', checksFencing: false, honoursIdempotencyKeys: false },
  workers: [
    { id: 'A', startMs: 0, steps: steps('begin', 'check', ['work', 300], ['effect', 500], 'record', 'commit') },
    { id: 'B', startMs: 100, steps: steps('begin', 'check', ['work', 300], ['effect', 500], 'record', 'commit') },
  ],
  invariants: [{ kind: 'effectOnce', harmless: false }],
});

const fixedSteps = steps('begin', 'check', ['work', 300], 'record', 'commit', ['effect', 500]);

/** serializable-retry: a retried transaction re-runs every side effect inside it; charge after COMMIT, keyed by the business key. */
export const serializableRetry: Preset = {
  id: 'serializable-retry',
  title: base.title,
  lesson: 'recovery',
  situation: 'A and B charge two different orders, each inside a SERIALIZABLE transaction: check the job record, price the order, charge the card (POST /v1/charges), record the job as done, COMMIT. A commits first. B\'s INSERT of its job record then fails with 40001: both read and wrote the same small jobs table, which PostgreSQL cannot prove serializable. The framework rolls B back and runs its whole transaction again — the charge inside it too.',
  fix: 'charge after COMMIT, with the business key as the idempotency key',
  withoutFix: base,
  withFix: {
    ...base,
    mechanism: { ...base.mechanism, idempotencyKey: true },
    destination: { ...base.destination, honoursIdempotencyKeys: true },
    workers: base.workers.map((w) => ({ ...w, steps: fixedSteps })),
  },
  expected: { withoutFix: 'B\'s transaction fails with 40001 after its charge; the retry charges again: 2 charges for charge-B', withFix: 'B\'s 40001 comes before any charge; the retry commits, then charges once' },
};
