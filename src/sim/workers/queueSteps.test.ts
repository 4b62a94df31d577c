/**
 * The queue steps in runs: polling while the queue is empty, the stalled-job checker, retry on
 * error with backoff (ChangeMessageVisibility to backoff × 2^(receiveCount − 1)), an extension
 * that comes too late (MessageNotInflight), and the scenario rules with their field paths.
 */
import { findPreset } from '../presets';
import { steps } from '../presets/build';
import { runScenario } from '../engine/run';
import { validateScenario } from '../scenario/validate';
import { parseScenario } from '../scenario/migrate';
import type { Scenario } from '../scenario/schema';

const base = findPreset('queue-redelivery')!.withoutFix;
const sqs = base.queue as Extract<NonNullable<Scenario['queue']>, { kind: 'sqs' }>;
const lines = (s: Scenario, pred: (e: { actor: string; command?: string }) => boolean = () => true) =>
  runScenario(s).events.filter(pred).map((e) => `${e.atMs} ${e.actor} ${e.command ?? ''} → ${e.reply ?? ''}`.trim());

describe('queue steps', () => {
  it('a stalled-job checker every 45 s returns the job only at 45 s: A\'s 35 s job is deleted before, one charge', () => {
    const s: Scenario = { ...base, queue: { ...sqs, stalledCheckEveryMs: 45_000 } };
    const r = runScenario(s);
    expect(r.events.filter((e) => e.actor === 'queue')).toEqual([]);
    expect(r.verdict.held).toBe(true);
    // A job of 50 s outlives the checker's run at 45 s: B takes it at its next poll.
    const slow: Scenario = { ...s, workers: s.workers.map((w) => ({ ...w, steps: steps('receive', ['work', 50_000], ['effect', 2_000], 'ack') })) };
    const r2 = runScenario(slow);
    const back = r2.events.find((e) => e.actor === 'queue')!;
    expect(back.atMs).toBe(45_000);
    expect(back.narration).toMatch(/^The stalled-job checker finds m1's lock expired/);
    expect(r2.events.filter((e) => e.actor === 'B' && /MessageId=m1/.test(e.reply ?? '')).map((e) => e.atMs)).toEqual([46_000]);
  });

  it('retry on error with backoff: each failed delivery hands the message back after 5 s × 2^(delivery − 1)', () => {
    // A holds the lease all along; B and C try once (onBusy retry, 0 retries), so their jobs fail.
    const s: Scenario = {
      ...base,
      horizonMs: 30_000,
      mechanism: { ...base.mechanism, lock: 'lease' },
      client: { ...base.client, onBusy: 'retry', retries: 0 },
      queue: { ...sqs, pollEveryMs: 1_000, maxEmptyReceives: 20, retryBackoffMs: 5_000 },
      workers: [
        { id: 'A', startMs: 0, steps: steps('acquire', ['work', 50_000], 'release') },
        { id: 'B', startMs: 1_000, steps: steps('receive', 'acquire', ['effect', 1_000], 'ack') },
        { id: 'C', startMs: 2_000, steps: steps('receive', 'acquire', ['effect', 1_000], 'ack') },
      ],
    };
    const v = validateScenario(s);
    expect(v.ok ? [] : v.errors).toEqual([]);
    const got = lines(s, (e) => (e.command ?? '').startsWith('ChangeMessageVisibility') || /MessageId=m1/.test((e as { reply?: string }).reply ?? ''));
    expect(got).toEqual([
      '1000 B ReceiveMessage QueueUrl=charges MaxNumberOfMessages=1 VisibilityTimeout=30 AttributeNames=ApproximateReceiveCount → Messages: [MessageId=m1 ReceiptHandle=rh-1 Body=charge-order-42 ApproximateReceiveCount=1]',
      '1000 B ChangeMessageVisibility QueueUrl=charges ReceiptHandle=rh-1 VisibilityTimeout=5 → 200 OK',
      '6000 C ReceiveMessage QueueUrl=charges MaxNumberOfMessages=1 VisibilityTimeout=30 AttributeNames=ApproximateReceiveCount → Messages: [MessageId=m1 ReceiptHandle=rh-2 Body=charge-order-42 ApproximateReceiveCount=2]',
      '6000 C ChangeMessageVisibility QueueUrl=charges ReceiptHandle=rh-2 VisibilityTimeout=10 → 200 OK',
    ]);
  });

  it('a shutdown pushes the message back (visibility 0): the next consumer runs the job from the start, once', () => {
    const short = steps('receive', ['work', 20_000], ['effect', 2_000], 'ack');
    const s: Scenario = { ...base, workers: base.workers.map((w) => ({ ...w, steps: short })), faults: [{ kind: 'shutdown', worker: 'A', atMs: 10_000 }] };
    const r = runScenario(s);
    const at10 = r.events.filter((e) => e.atMs === 10_000).map((e) => `${e.actor} ${e.command ?? e.kind} → ${e.reply ?? ''}`);
    expect(at10).toEqual(['A fault → ', 'A ChangeMessageVisibility QueueUrl=charges ReceiptHandle=rh-1 VisibilityTimeout=0 → 200 OK', 'queue queue → ']);
    expect(r.events.filter((e) => e.actor === 'B' && /MessageId=m1/.test(e.reply ?? '')).map((e) => e.atMs)).toEqual([11_000]);
    expect(r.events.filter((e) => e.kind === 'destination' && e.reply === '201 Created').map((e) => e.actor)).toEqual(['B']);
    expect(r.verdict.held).toBe(true);
    expect(r.metrics.wastedWorkMs).toBe(10_000);
  });

  it('an extension after the timeout passed gets MessageNotInflight, and says so', () => {
    const late = steps('receive', ['work', 31_000], 'extendVisibility', ['effect', 1_000], 'ack');
    const s: Scenario = { ...base, workers: [{ id: 'A', startMs: 0, steps: late }] };
    const r = runScenario(s);
    const ext = r.events.find((e) => (e.command ?? '').startsWith('ChangeMessageVisibility'))!;
    expect([ext.atMs, ext.reply]).toEqual([31_000, '400 AWS.SimpleQueueService.MessageNotInflight']);
    expect(ext.narration).toMatch(/no longer in flight/);
  });

  it('the scenario rules name the field', () => {
    const errs = (s: unknown) => { const v = validateScenario(s); return v.ok ? [] : v.errors.map((e) => `${e.path}: ${e.message}`); };
    const { queue: _q, ...noQueue } = base;
    expect(errs(noQueue)).toEqual([
      'workers[0].steps[0].do: "receive" takes its job from a queue: add a "queue" block',
      'workers[0].steps[3].do: "ack" takes its job from a queue: add a "queue" block',
      'workers[1].steps[0].do: "receive" takes its job from a queue: add a "queue" block',
      'workers[1].steps[3].do: "ack" takes its job from a queue: add a "queue" block',
      'invariants[1].kind: "jobCompletesWithin" judges jobs taken from a queue: add a "queue" block',
    ]);
    expect(errs({ ...base, queue: { ...sqs, visibilityTimeoutMs: 30_500 } })).toEqual(['queue.visibilityTimeoutMs: must be whole seconds (a multiple of 1000): SQS takes VisibilityTimeout in seconds']);
    expect(errs({ ...base, queue: { ...sqs, visibilityTimeoutMs: 43_201_000 } })).toEqual(['queue.visibilityTimeoutMs: must be ≤ 43200000']);
    expect(errs({ ...base, job: { kind: 'external', jobKey: 'charge-{worker}' } })).toEqual(['job.jobKey: must not contain {worker} with an "sqs" queue: every consumer receives the same message, so the job key is the same for all']);
    expect(errs({ ...base, queue: { kind: 'table', table: 'jobs', jobId: 1 } })).toEqual([
      'queue.table: "jobs" is already a table of this scenario (the job\'s); name the queue\'s table differently, e.g. "job_queue"',
    ]);
    const claim = findPreset('skip-locked-claim')!.withoutFix;
    expect(errs({ ...claim, queue: sqs })).toEqual(['workers[0].steps[5].do: "markClaimed" only applies to a queue of kind "table" (queue.kind is "sqs")', 'workers[1].steps[5].do: "markClaimed" only applies to a queue of kind "table" (queue.kind is "sqs")', 'invariants[0].kind: "oneClaimPerJob" judges the rows of a table queue: set queue.kind to "table"']);
    expect(errs({ ...base, queue: { ...sqs, kind: 'kafka' } })).toEqual(['queue.kind: is not a known kind; use one of "sqs", "table"']);
  });

  it('a version-1 file naming a queue, a queue step or a queue invariant is refused with its path', () => {
    const { client: _c, ...v1 } = JSON.parse(JSON.stringify(base)) as Scenario;
    const r = parseScenario({ ...v1, version: 1 });
    expect(r.ok ? [] : r.errors.map((e) => e.path)).toEqual(['queue', 'workers[0].steps[0].do', 'workers[0].steps[3].do', 'workers[1].steps[0].do', 'workers[1].steps[3].do', 'invariants[1].kind']);
  });
});
