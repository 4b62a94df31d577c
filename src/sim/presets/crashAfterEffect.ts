import { scenario, steps, variant, type Preset } from './build';

const base = scenario({
  id: 'crash-after-effect',
  title: 'Crash after the charge, before the record',
  description: 'A worker charges a card, crashes before writing its completion record, restarts and retries the job.',
  lesson: 'recovery',
  horizonMs: 10_000,
  job: { kind: 'external', jobKey: 'charge-order-42' },
  mechanism: { jobRecord: true },
  destination: { kind: 'api', target: 'POST /v1/charges', checksFencing: false, honoursIdempotencyKeys: false },
  workers: [{ id: 'A', startMs: 0, steps: steps('check', ['effect', 500], 'record') }],
  faults: [{ kind: 'crash', worker: 'A', step: 1, phase: 'after', restartAfterMs: 2_000 }],
  invariants: [{ kind: 'effectOnce', harmless: false }],
});

/** crash-after-effect: a retry after a crash repeats the external effect unless the destination deduplicates. */
export const crashAfterEffect: Preset = {
  id: 'crash-after-effect',
  title: base.title,
  lesson: 'recovery',
  situation: 'A checks its job record (nothing done yet), charges the card, and crashes before recording completion. It restarts 2 s later, finds no record, and charges again.',
  fix: 'an idempotency key at the payment API',
  withoutFix: base,
  withFix: variant(base, { idempotencyKey: true }, { destination: { ...base.destination, honoursIdempotencyKeys: true } }),
  expected: { withoutFix: '2 charges', withFix: 'the retry is a replay: 1 charge' },
};
