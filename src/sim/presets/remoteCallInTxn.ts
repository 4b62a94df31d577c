import { scenario, steps, variant, type Preset } from './build';

const long = steps('connect', 'begin', 'enqueue', ['effect', 3_000], 'record', 'commit', 'disconnect');
const short = steps('connect', 'begin', 'enqueue', 'commit', 'disconnect', ['effect', 3_000], 'connect', 'begin', 'record', 'commit', 'disconnect');
const base = scenario({
  id: 'remote-call-in-txn',
  title: 'A transaction held open across a slow API call',
  description: 'Each request opens a transaction, records the payment, calls a slow payment API (3 s) and only then commits. The pool has two connections.',
  lesson: 'recovery',
  horizonMs: 15_000,
  job: { kind: 'external', jobKey: 'payment-{worker}' },
  database: { poolSize: 2 },
  destination: { kind: 'api', target: 'POST /v1/payments', checksFencing: false, honoursIdempotencyKeys: false },
  workers: ['A', 'B', 'C', 'D'].map((id, i) => ({ id, startMs: i * 100, steps: long })),
  invariants: [{ kind: 'boundedWait', maxWaitMs: 1_000 }],
});

/** remote-call-in-txn: a connection held across a remote call starves the pool; a durable job record and short transactions free it. */
export const remoteCallInTxn: Preset = {
  id: 'remote-call-in-txn',
  title: base.title,
  lesson: 'recovery',
  situation: 'Four requests, two pooled connections. A and B hold theirs for the whole 3 s API call inside an open transaction; C and D wait for a connection for almost 3 s.',
  fix: 'a durable job record written in a short transaction; call the API outside any transaction; record completion in a second short one',
  withoutFix: base,
  withFix: { ...base, workers: base.workers.map((w) => ({ ...w, steps: short })) },
  expected: { withoutFix: 'pool exhausted: C and D wait ~2.8 s', withFix: 'nobody waits for a connection' },
};
void variant;
