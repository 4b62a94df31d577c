import { scenario, steps, variant, type Preset } from './build';

const base = scenario({
  id: 'skip-locked-claim',
  title: 'Two workers start one job row',
  description: 'Workers claim jobs from the job_queue table with SELECT … FOR UPDATE SKIP LOCKED, but commit the claim before marking the row: the row lock ends at that COMMIT, the row still says pending, and the next worker claims it too.',
  lesson: 'locks',
  horizonMs: 5_000,
  job: { kind: 'external', jobKey: 'send-invoice-7' },
  mechanism: { rowLock: 'forUpdateSkipLocked' },
  destination: { kind: 'api', target: 'POST /v1/emails', checksFencing: false, honoursIdempotencyKeys: false },
  queue: { kind: 'table', table: 'job_queue', jobId: 7 },
  workers: [
    { id: 'A', startMs: 0, steps: steps('begin', 'receive', 'commit', ['work', 20], 'begin', 'markClaimed', 'commit', ['effect', 200], 'ack') },
    { id: 'B', startMs: 10, steps: steps('begin', 'receive', 'commit', ['work', 20], 'begin', 'markClaimed', 'commit', ['effect', 200], 'ack') },
  ],
  invariants: [{ kind: 'oneClaimPerJob' }, { kind: 'effectOnce', harmless: false }],
});

/** Claim and mark in one transaction: the row stays locked (SKIP LOCKED passes over it) until it says running. */
const oneTransaction = steps('begin', 'receive', ['work', 20], 'markClaimed', 'commit', ['effect', 200], 'ack');

/** skip-locked-claim: a row lock only protects the claim while its transaction is open. */
export const skipLockedClaim: Preset = {
  id: 'skip-locked-claim',
  title: base.title,
  lesson: 'locks',
  situation: 'A claims job row 7 of job_queue with SELECT … FOR UPDATE SKIP LOCKED and commits; 20 ms later it marks the row running in a second transaction. B\'s claim at 10 ms finds the row unlocked and still pending, so B claims it too: both mark it and both send invoice 7.',
  fix: 'claim and mark in one transaction with SKIP LOCKED',
  withoutFix: base,
  withFix: variant(base, {}, { workers: [{ ...base.workers[0]!, steps: oneTransaction }, { ...base.workers[1]!, steps: oneTransaction }] }),
  expected: { withoutFix: 'job row 7 claimed by A, then by B; two emails sent', withFix: 'B\'s SKIP LOCKED passes over A\'s locked row: no job for B; one claim, one email' },
};
