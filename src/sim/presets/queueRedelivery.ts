import { scenario, steps, variant, type Preset } from './build';

const base = scenario({
  id: 'queue-redelivery',
  title: 'A slow job is delivered twice',
  description: 'A and B consume the charges queue (SQS: visibility timeout 30 s, DeleteMessage as the acknowledgement). A receives the charge for order 42 and works 35 s before charging; at 30 s the message is visible again, B receives it and charges too. A\'s DeleteMessage with its old receipt handle answers 200 but deletes nothing.',
  lesson: 'recovery',
  horizonMs: 90_000,
  job: { kind: 'external', jobKey: 'charge-order-42' },
  mechanism: {},
  destination: { kind: 'api', target: 'POST /v1/charges', checksFencing: false, honoursIdempotencyKeys: false },
  queue: { kind: 'sqs', name: 'charges', visibilityTimeoutMs: 30_000, pollEveryMs: 5_000, maxEmptyReceives: 12 },
  workers: [
    { id: 'A', startMs: 0, steps: steps('receive', ['work', 35_000], ['effect', 2_000], 'ack') },
    { id: 'B', startMs: 1_000, steps: steps('receive', ['work', 35_000], ['effect', 2_000], 'ack') },
  ],
  invariants: [{ kind: 'effectOnce', harmless: false }, { kind: 'jobCompletesWithin', withinMs: 60_000 }],
});

/** Extends the visibility 20 s into the job, before the 30 s timeout passes. */
const extending = steps('receive', ['work', 20_000], 'extendVisibility', ['work', 15_000], ['effect', 2_000], 'ack');

/** queue-redelivery: at-least-once delivery: a job that outlives its visibility timeout runs twice. */
export const queueRedelivery: Preset = {
  id: 'queue-redelivery',
  title: base.title,
  lesson: 'recovery',
  situation: 'A receives the charge for order 42 from an SQS queue with a 30 s visibility timeout and works 35 s before calling POST /v1/charges. At 30 s the message is visible again; B, polling every 5 s, receives it at 31 s (delivery 2) and charges too. A\'s DeleteMessage with its first receipt handle answers 200 but leaves the message; B deletes it at 68 s. An idempotency key at the payment API would also make the second charge harmless.',
  fix: 'extend the visibility while working (ChangeMessageVisibility before the 30 s pass)',
  withoutFix: base,
  withFix: variant(base, {}, { workers: [{ ...base.workers[0]!, steps: extending }, { ...base.workers[1]!, steps: extending }] }),
  expected: { withoutFix: 'two charges for order 42 (delivered to A, then to B at 31 s); acknowledged only 68 s after the first delivery', withFix: 'one charge: A extends the visibility at 20 s and deletes the message at 37 s; B finds no message and stops' },
};
