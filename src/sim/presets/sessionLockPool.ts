import { scenario, steps, variant, type Preset } from './build';

const leaky = steps('connect', 'acquire', ['work', 1_000], 'release', 'disconnect');
const safe = steps('connect', 'begin', 'acquire', ['work', 1_000], 'commit', 'disconnect');
const base = scenario({
  id: 'session-lock-pool',
  title: 'Session advisory lock leaks through the pool',
  description: 'Jobs take pg_advisory_lock(42) on a pooled connection. Job A throws before it unlocks, and its connection goes back to the pool still holding the lock.',
  lesson: 'locks',
  horizonMs: 10_000,
  job: { kind: 'external', jobKey: 'nightly-report' },
  mechanism: { lock: 'advisory-session', advisoryKey: 42 },
  database: { poolSize: 2 },
  workers: [
    { id: 'A', startMs: 0, steps: leaky },
    { id: 'B', startMs: 100, steps: leaky },
    { id: 'C', startMs: 200, steps: leaky },
  ],
  faults: [{ kind: 'jobError', worker: 'A', step: 2, phase: 'before' }],
  invariants: [{ kind: 'boundedWait', maxWaitMs: 5_000 }, { kind: 'mutualExclusion' }],
});

/** session-lock-pool: a session lock survives on a pooled connection; the next borrower of that connection "acquires" it re-entrantly while others wait forever. */
export const sessionLockPool: Preset = {
  id: 'session-lock-pool',
  title: base.title,
  lesson: 'locks',
  situation: 'A pool of two connections. A takes pg_advisory_lock(42) on c1 and throws before unlocking; c1 returns to the pool still holding the lock. B borrows c1 and "acquires" the lock at once (re-entrant: it is the same session), unlocks once, and the lock is still held. C, on c2, waits for ever.',
  fix: 'pg_advisory_xact_lock inside a transaction (released by the rollback), or unlock in finally / discard the connection',
  withoutFix: base,
  withFix: variant(base, { lock: 'advisory-xact' }, {
    workers: base.workers.map((w) => ({ ...w, steps: safe })),
    faults: [{ kind: 'jobError', worker: 'A', step: 3, phase: 'before' }],
  }),
  expected: { withoutFix: 'C waits until the end of the run', withFix: 'the rollback releases the lock; everyone finishes' },
};
