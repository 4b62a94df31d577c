import { scenario, steps, variant, type Preset } from './build';

// Autocommit UPDATEs (no begin/commit step): each UPDATE is its own transaction.
const job = steps('acquire', ['work', 5_000], ['effect', 1_000], 'release');
const base = scenario({
  id: 'fenced-db-write',
  title: 'A paused holder\'s late UPDATE overwrites the newer holder\'s row',
  description: 'Two workers publish the daily report into one row of documents under a 30 s Redis lease with fencing tokens. A pauses for 40 s, B takes over and writes the row with token 34; when A resumes, its UPDATE with token 33 has no condition on the fence and overwrites B\'s row.',
  lesson: 'leases',
  horizonMs: 90_000,
  job: { kind: 'fencedRow', table: 'documents', rowId: 7, values: { body: 'report by {worker}' } },
  mechanism: { lock: 'lease', fencing: true, release: 'compare-and-delete' },
  // The database is the fenced resource: checksFencing = the UPDATE carries AND fence < $token.
  destination: { kind: 'file', target: 'documents', checksFencing: false, honoursIdempotencyKeys: false },
  workers: [
    { id: 'A', startMs: 0, steps: job },
    { id: 'B', startMs: 1_000, steps: job },
  ],
  faults: [{ kind: 'pause', worker: 'A', atMs: 3_000, pauseMs: 40_000 }],
  invariants: [{ kind: 'noStaleTokenAccepted' }],
});

/** fenced-db-write: the database is the fenced resource only if the UPDATE checks the token. */
export const fencedDbWrite: Preset = {
  id: 'fenced-db-write',
  title: base.title,
  lesson: 'leases',
  situation: 'A takes lease:export with fencing token 33 and pauses for 40 s before writing. The lease expires at 30 s; B takes it with token 34 and runs UPDATE documents SET body = \'report by B\', fence = 34 WHERE id = 7. At 43 s A resumes and runs its UPDATE with fence = 33: nothing in the statement compares tokens, so UPDATE 1 — A\'s stale report replaces B\'s.',
  fix: 'a conditional UPDATE … WHERE id = 7 AND fence < $token (0 rows updated = a stale holder)',
  withoutFix: base,
  withFix: variant(base, {}, { destination: { ...base.destination, checksFencing: true } }),
  expected: { withoutFix: 'A\'s UPDATE with token 33 overwrites the row B wrote with token 34', withFix: 'A\'s conditional UPDATE replies UPDATE 0: A learns it is stale and writes nothing' },
};
