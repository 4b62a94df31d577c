import { scenario, steps, variant, type Preset } from './build';

// A and C lock, work and unlock outside any transaction (each statement in autocommit); B runs
// its job inside one transaction. Behind PgBouncer in transaction mode each autocommit statement
// goes to whichever server connection is idle (last returned first).
const autocommit = steps('connect', 'acquire', ['work', 1_000], 'release', 'disconnect');
const inTxn = steps('connect', 'begin', 'acquire', ['work', 2_000], 'release', 'commit', 'disconnect');
const xact = (ms: number) => steps('connect', 'begin', 'acquire', ['work', ms], 'commit', 'disconnect');
const base = scenario({
  id: 'pooler-session-lock',
  title: 'Session advisory lock behind a transaction-mode pooler',
  description: 'Jobs take pg_advisory_lock(42) through PgBouncer in transaction mode, two server connections. Each statement outside a transaction goes to any idle server connection, so the unlock can land on another backend, and the lock stays with the backend that took it.',
  lesson: 'locks',
  horizonMs: 10_000,
  job: { kind: 'external', jobKey: 'nightly-migration' },
  mechanism: { lock: 'advisory-session', advisoryKey: 42 },
  database: { poolSize: 3, pooler: { mode: 'transaction', serverConnections: 2 } },
  workers: [
    { id: 'A', startMs: 0, steps: autocommit },
    { id: 'B', startMs: 500, steps: inTxn },
    { id: 'C', startMs: 1_500, steps: autocommit },
  ],
  invariants: [{ kind: 'boundedWait', maxWaitMs: 5_000 }, { kind: 'mutualExclusion' }],
});

/** pooler-session-lock: behind PgBouncer in transaction mode a session lock belongs to a backend, not to the client that took it. */
export const poolerSessionLock: Preset = {
  id: 'pooler-session-lock',
  title: base.title,
  lesson: 'locks',
  situation: 'PgBouncer in transaction mode with two server connections, s1 and s2. A takes pg_advisory_lock(42) in autocommit: it runs on s1, and s1 goes back to PgBouncer still holding the lock. B opens a transaction, which PgBouncer serves on s1 (the last returned), so B\'s pg_advisory_lock(42) is granted at once: s1 already holds it. A\'s unlock runs on s2: false with a WARNING, and s1 keeps the lock. C\'s lock request lands on s2 and waits; when B unlocks once and commits, s1 still holds the lock for ever.',
  fix: 'pg_advisory_xact_lock in one transaction (the supported pattern behind a transaction-mode pooler: the lock ends with COMMIT on the server connection that took it)',
  withoutFix: base,
  withFix: variant(base, { lock: 'advisory-xact' }, {
    workers: [
      { id: 'A', startMs: 0, steps: xact(1_000) },
      { id: 'B', startMs: 500, steps: xact(2_000) },
      { id: 'C', startMs: 1_500, steps: xact(1_000) },
    ],
  }),
  expected: { withoutFix: 'A\'s unlock lands on s2 (false + WARNING); B inherits the lock on s1; C waits until the end of the run', withFix: 'each lock ends with its COMMIT; A, B and C take it in turn' },
};
