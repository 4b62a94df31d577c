import { scenario, steps, type Preset } from './build';
import type { Scenario, Step } from '../scenario/schema';

/** A job that locks advisory key `first`, works, locks `second`, then debits the balance and commits (both locks go with the COMMIT). */
const job = (first: number, second: number): Step[] => [
  ...steps('begin'),
  { do: 'acquire', advisoryKey: first },
  ...steps(['work', 100]),
  { do: 'acquire', advisoryKey: second },
  ...steps('read', ['work', 50], ['effect', 0], 'commit'),
];

const base = scenario({
  id: 'lock-order-deadlock',
  title: 'Two locks taken in opposite order',
  description: 'Two jobs each need advisory locks 1 and 2 (pg_advisory_xact_lock). A takes 1 then 2, B takes 2 then 1: each waits for the other until PostgreSQL\'s deadlock check fails one of them with 40P01.',
  lesson: 'locks',
  horizonMs: 3_000,
  job: { kind: 'debit', accountId: 1, initialBalance: 100 },
  mechanism: { lock: 'advisory-xact', advisoryKey: 1 },
  database: { poolSize: 4, deadlockTimeoutMs: 1_000 },
  workers: [
    { id: 'A', startMs: 0, amount: 30, steps: job(1, 2) },
    { id: 'B', startMs: 10, amount: 50, steps: job(2, 1) },
  ],
  invariants: [{ kind: 'noLostUpdate' }, { kind: 'boundedWait', maxWaitMs: 500 }],
});

/** With the fix both jobs take lock 1 first, then lock 2: B waits behind A, and nobody waits for a lock it holds. */
const fixed: Scenario = {
  ...base,
  workers: base.workers.map((w) => ({ ...w, steps: job(1, 2) })),
};

/** lock-order-deadlock: two locks in opposite order deadlock; PostgreSQL breaks the cycle after deadlock_timeout by failing one job; one global lock order prevents it. */
export const lockOrderDeadlock: Preset = {
  id: 'lock-order-deadlock',
  title: base.title,
  lesson: 'locks',
  situation: 'Job A takes advisory lock 1, works 100 ms, then asks for lock 2; job B takes lock 2, then asks for lock 1. Each now waits for a lock the other holds. After deadlock_timeout (1 s) PostgreSQL\'s deadlock check finds the cycle, fails A\'s statement with ERROR 40P01 and aborts its transaction; B proceeds. Both waited a second, and A\'s job failed.',
  fix: 'one lock order for every job (1, then 2)',
  withoutFix: base,
  withFix: fixed,
  expected: { withoutFix: 'deadlock: A gets 40P01 after 1 s and its job fails; B waited 1 s', withFix: 'both jobs complete; B waits for A\'s transaction only' },
};
