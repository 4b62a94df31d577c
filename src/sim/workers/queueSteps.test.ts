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

/** Every event of a run as `time actor: command → reply | narration` (what the event log shows). */
const transcript = (s: Scenario) => runScenario(s).events.map((e) => `${e.atMs} ${e.actor}: ${e.command ?? ''} → ${e.reply ?? ''} | ${e.narration}`);

describe('queue steps, event by event', () => {
  const table = findPreset('skip-locked-claim')!;

  it('skip-locked-claim without the fix: both claim row 7 (the claim\'s lock ends at its COMMIT), both mark it, both send', () => {
    expect(transcript(table.withoutFix)).toEqual([
      "0 A: pool.connect() → c1 | A borrows connection c1 from the pool.",
      "0 A: BEGIN → BEGIN | A opens a transaction.",
      "0 A: SELECT id FROM job_queue WHERE status = 'pending' FOR UPDATE SKIP LOCKED → SELECT 1 → id=7 | A claims job row 7 of job_queue and locks it until its transaction ends.",
      "0 A: COMMIT → COMMIT | A commits.",
      "0 A:  →  | A works for 20 ms.",
      "10 B: pool.connect() → c2 | B borrows connection c2 from the pool.",
      "10 B: BEGIN → BEGIN | B opens a transaction.",
      "10 B: SELECT id FROM job_queue WHERE status = 'pending' FOR UPDATE SKIP LOCKED → SELECT 1 → id=7 | B claims job row 7 of job_queue and locks it until its transaction ends.",
      "10 B: COMMIT → COMMIT | B commits.",
      "10 B:  →  | B works for 20 ms.",
      "20 A: BEGIN → BEGIN | A opens a transaction.",
      "20 A: UPDATE job_queue SET status = 'running', claimed_by = 'A' WHERE id = 7 → UPDATE 1 | A marks job row 7 as running, claimed by A.",
      "20 A: COMMIT → COMMIT | A commits.",
      "20 A: POST /v1/emails → (pending: no reply yet) | A calls POST /v1/emails; the request is in progress, no reply yet.",
      "30 B: BEGIN → BEGIN | B opens a transaction.",
      "30 B: UPDATE job_queue SET status = 'running', claimed_by = 'B' WHERE id = 7 → UPDATE 1 | B marks job row 7 as running, claimed by B.",
      "30 B: COMMIT → COMMIT | B commits.",
      "30 B: POST /v1/emails → (pending: no reply yet) | B calls POST /v1/emails; the request is in progress, no reply yet.",
      "220 A: POST /v1/emails → 201 Created | A's call returns: 201 Created.",
      "220 A: UPDATE job_queue SET status = 'done' WHERE id = 7 → UPDATE 1 | A marks job row 7 as done.",
      "220 A: client.release() → ok | A returns connection c1 to the pool.",
      "220 A:  →  | A is done: it completed the job.",
      "230 B: POST /v1/emails → 201 Created | B's call returns: 201 Created.",
      "230 B: UPDATE job_queue SET status = 'done' WHERE id = 7 → UPDATE 1 | B marks job row 7 as done.",
      "230 B: client.release() → ok | B returns connection c2 to the pool.",
      "230 B:  →  | B is done: it completed the job.",
    ]);
  });

  it('skip-locked-claim with the fix: B\'s SKIP LOCKED passes over A\'s locked row and B stops with no job', () => {
    expect(transcript(table.withFix)).toEqual([
      "0 A: pool.connect() → c1 | A borrows connection c1 from the pool.",
      "0 A: BEGIN → BEGIN | A opens a transaction.",
      "0 A: SELECT id FROM job_queue WHERE status = 'pending' FOR UPDATE SKIP LOCKED → SELECT 1 → id=7 | A claims job row 7 of job_queue and locks it until its transaction ends.",
      "0 A:  →  | A works for 20 ms.",
      "10 B: pool.connect() → c2 | B borrows connection c2 from the pool.",
      "10 B: BEGIN → BEGIN | B opens a transaction.",
      "10 B: SELECT id FROM job_queue WHERE status = 'pending' FOR UPDATE SKIP LOCKED → SELECT 0 | B finds no pending job row it can lock (SKIP LOCKED passes over a row another transaction has locked): no job for it.",
      "10 B: COMMIT → COMMIT | B commits.",
      "10 B: client.release() → ok | B returns connection c2 to the pool.",
      "10 B:  →  | B is done: there was no job in the queue for it.",
      "20 A: UPDATE job_queue SET status = 'running', claimed_by = 'A' WHERE id = 7 → UPDATE 1 | A marks job row 7 as running, claimed by A.",
      "20 A: COMMIT → COMMIT | A commits.",
      "20 A: POST /v1/emails → (pending: no reply yet) | A calls POST /v1/emails; the request is in progress, no reply yet.",
      "220 A: POST /v1/emails → 201 Created | A's call returns: 201 Created.",
      "220 A: UPDATE job_queue SET status = 'done' WHERE id = 7 → UPDATE 1 | A marks job row 7 as done.",
      "220 A: client.release() → ok | A returns connection c1 to the pool.",
      "220 A:  →  | A is done: it completed the job.",
    ]);
  });

  it('a table claim with no row lock says another worker can read the row as pending too', () => {
    const noLock: Scenario = { ...table.withoutFix, mechanism: { ...table.withoutFix.mechanism, rowLock: 'none' } };
    expect(transcript(noLock)).toEqual([
      "0 A: pool.connect() → c1 | A borrows connection c1 from the pool.",
      "0 A: BEGIN → BEGIN | A opens a transaction.",
      "0 A: SELECT id FROM job_queue WHERE status = 'pending' → SELECT 1 → id=7 | A claims job row 7 of job_queue (no lock: another worker can read it as pending too).",
      "0 A: COMMIT → COMMIT | A commits.",
      "0 A:  →  | A works for 20 ms.",
      "10 B: pool.connect() → c2 | B borrows connection c2 from the pool.",
      "10 B: BEGIN → BEGIN | B opens a transaction.",
      "10 B: SELECT id FROM job_queue WHERE status = 'pending' → SELECT 1 → id=7 | B claims job row 7 of job_queue (no lock: another worker can read it as pending too).",
      "10 B: COMMIT → COMMIT | B commits.",
      "10 B:  →  | B works for 20 ms.",
      "20 A: BEGIN → BEGIN | A opens a transaction.",
      "20 A: UPDATE job_queue SET status = 'running', claimed_by = 'A' WHERE id = 7 → UPDATE 1 | A marks job row 7 as running, claimed by A.",
      "20 A: COMMIT → COMMIT | A commits.",
      "20 A: POST /v1/emails → (pending: no reply yet) | A calls POST /v1/emails; the request is in progress, no reply yet.",
      "30 B: BEGIN → BEGIN | B opens a transaction.",
      "30 B: UPDATE job_queue SET status = 'running', claimed_by = 'B' WHERE id = 7 → UPDATE 1 | B marks job row 7 as running, claimed by B.",
      "30 B: COMMIT → COMMIT | B commits.",
      "30 B: POST /v1/emails → (pending: no reply yet) | B calls POST /v1/emails; the request is in progress, no reply yet.",
      "220 A: POST /v1/emails → 201 Created | A's call returns: 201 Created.",
      "220 A: UPDATE job_queue SET status = 'done' WHERE id = 7 → UPDATE 1 | A marks job row 7 as done.",
      "220 A: client.release() → ok | A returns connection c1 to the pool.",
      "220 A:  →  | A is done: it completed the job.",
      "230 B: POST /v1/emails → 201 Created | B's call returns: 201 Created.",
      "230 B: UPDATE job_queue SET status = 'done' WHERE id = 7 → UPDATE 1 | B marks job row 7 as done.",
      "230 B: client.release() → ok | B returns connection c2 to the pool.",
      "230 B:  →  | B is done: it completed the job.",
    ]);
  });

  it('a claim and a mark with no transaction open: the lock ends with the statement, the mark is its own transaction', () => {
    const noTxn: Scenario = { ...table.withoutFix, workers: table.withoutFix.workers.map((w) => ({ ...w, steps: steps('receive', ['work', 20], 'markClaimed', ['effect', 200], 'ack') })) };
    expect(transcript(noTxn)).toEqual([
      "0 A: pool.connect() → c1 | A borrows connection c1 from the pool.",
      "0 A: SELECT id FROM job_queue WHERE status = 'pending' FOR UPDATE SKIP LOCKED → SELECT 1 → id=7 | A claims job row 7 of job_queue and locks it — but with no transaction open the lock ends with the statement.",
      "0 A:  →  | A works for 20 ms.",
      "10 B: pool.connect() → c2 | B borrows connection c2 from the pool.",
      "10 B: SELECT id FROM job_queue WHERE status = 'pending' FOR UPDATE SKIP LOCKED → SELECT 1 → id=7 | B claims job row 7 of job_queue and locks it — but with no transaction open the lock ends with the statement.",
      "10 B:  →  | B works for 20 ms.",
      "20 A: UPDATE job_queue SET status = 'running', claimed_by = 'A' WHERE id = 7 → UPDATE 1 | A marks job row 7 as running, claimed by A (in its own transaction: whoever read the row as pending meanwhile will claim it too).",
      "20 A: POST /v1/emails → (pending: no reply yet) | A calls POST /v1/emails; the request is in progress, no reply yet.",
      "30 B: UPDATE job_queue SET status = 'running', claimed_by = 'B' WHERE id = 7 → UPDATE 1 | B marks job row 7 as running, claimed by B (in its own transaction: whoever read the row as pending meanwhile will claim it too).",
      "30 B: POST /v1/emails → (pending: no reply yet) | B calls POST /v1/emails; the request is in progress, no reply yet.",
      "220 A: POST /v1/emails → 201 Created | A's call returns: 201 Created.",
      "220 A: UPDATE job_queue SET status = 'done' WHERE id = 7 → UPDATE 1 | A marks job row 7 as done.",
      "220 A: client.release() → ok | A returns connection c1 to the pool.",
      "220 A:  →  | A is done: it completed the job.",
      "230 B: POST /v1/emails → 201 Created | B's call returns: 201 Created.",
      "230 B: UPDATE job_queue SET status = 'done' WHERE id = 7 → UPDATE 1 | B marks job row 7 as done.",
      "230 B: client.release() → ok | B returns connection c2 to the pool.",
      "230 B:  →  | B is done: it completed the job.",
    ]);
  });

  it('queue-redelivery without the fix: B polls every 5 s, receives delivery 2 at 31 s; A\'s DeleteMessage with its old handle deletes nothing', () => {
    expect(transcript(base)).toEqual([
      "0 A: ReceiveMessage QueueUrl=charges MaxNumberOfMessages=1 VisibilityTimeout=30 AttributeNames=ApproximateReceiveCount → Messages: [MessageId=m1 ReceiptHandle=rh-1 Body=charge-order-42 ApproximateReceiveCount=1] | A receives m1 (charge-order-42) with receipt handle rh-1; nobody else can receive it for 30 s.",
      "0 A:  →  | A works for 35 s.",
      "1000 B: ReceiveMessage QueueUrl=charges MaxNumberOfMessages=1 VisibilityTimeout=30 AttributeNames=ApproximateReceiveCount → Messages: [] (none visible) | B asks charges for a message and gets none (every message is taken or gone); it asks again in 5 s.",
      "6000 B: ReceiveMessage QueueUrl=charges MaxNumberOfMessages=1 VisibilityTimeout=30 AttributeNames=ApproximateReceiveCount → Messages: [] (none visible) | B asks charges for a message and gets none (every message is taken or gone); it asks again in 5 s.",
      "11000 B: ReceiveMessage QueueUrl=charges MaxNumberOfMessages=1 VisibilityTimeout=30 AttributeNames=ApproximateReceiveCount → Messages: [] (none visible) | B asks charges for a message and gets none (every message is taken or gone); it asks again in 5 s.",
      "16000 B: ReceiveMessage QueueUrl=charges MaxNumberOfMessages=1 VisibilityTimeout=30 AttributeNames=ApproximateReceiveCount → Messages: [] (none visible) | B asks charges for a message and gets none (every message is taken or gone); it asks again in 5 s.",
      "21000 B: ReceiveMessage QueueUrl=charges MaxNumberOfMessages=1 VisibilityTimeout=30 AttributeNames=ApproximateReceiveCount → Messages: [] (none visible) | B asks charges for a message and gets none (every message is taken or gone); it asks again in 5 s.",
      "26000 B: ReceiveMessage QueueUrl=charges MaxNumberOfMessages=1 VisibilityTimeout=30 AttributeNames=ApproximateReceiveCount → Messages: [] (none visible) | B asks charges for a message and gets none (every message is taken or gone); it asks again in 5 s.",
      "30000 queue:  →  | m1's visibility timeout passed without a DeleteMessage: it is visible again and the next ReceiveMessage delivers it, whether or not A is still working on it.",
      "31000 B: ReceiveMessage QueueUrl=charges MaxNumberOfMessages=1 VisibilityTimeout=30 AttributeNames=ApproximateReceiveCount → Messages: [MessageId=m1 ReceiptHandle=rh-2 Body=charge-order-42 ApproximateReceiveCount=2] | B receives m1 (charge-order-42) with receipt handle rh-2; nobody else can receive it for 30 s — delivery 2: the message was received before and never deleted.",
      "31000 B:  →  | B works for 35 s.",
      "35000 A: POST /v1/charges → (pending: no reply yet) | A calls POST /v1/charges; the request is in progress, no reply yet.",
      "37000 A: POST /v1/charges → 201 Created | A's call returns: 201 Created.",
      "37000 A: DeleteMessage QueueUrl=charges ReceiptHandle=rh-1 → 200 OK | A acknowledges the job with receipt handle rh-1: SQS answers 200, but that handle is no longer the message's latest (it was received again since), so the message stays in the queue.",
      "37000 A:  →  | A is done: it completed the job.",
      "61000 queue:  →  | m1's visibility timeout passed without a DeleteMessage: it is visible again and the next ReceiveMessage delivers it, whether or not B is still working on it.",
      "66000 B: POST /v1/charges → (pending: no reply yet) | B calls POST /v1/charges; the request is in progress, no reply yet.",
      "68000 B: POST /v1/charges → 201 Created | B's call returns: 201 Created.",
      "68000 B: DeleteMessage QueueUrl=charges ReceiptHandle=rh-2 → 200 OK | B acknowledges the job: DeleteMessage with receipt handle rh-2 deletes m1 from charges.",
      "68000 B:  →  | B is done: it completed the job.",
    ]);
  });

  it('after maxEmptyReceives empty receives a consumer stops (1: at once, singular; 2: after one more poll)', () => {
    expect(transcript({ ...base, horizonMs: 10_000, queue: { ...sqs, maxEmptyReceives: 1 } })).toEqual([
      "0 A: ReceiveMessage QueueUrl=charges MaxNumberOfMessages=1 VisibilityTimeout=30 AttributeNames=ApproximateReceiveCount → Messages: [MessageId=m1 ReceiptHandle=rh-1 Body=charge-order-42 ApproximateReceiveCount=1] | A receives m1 (charge-order-42) with receipt handle rh-1; nobody else can receive it for 30 s.",
      "0 A:  →  | A works for 35 s.",
      "1000 B: ReceiveMessage QueueUrl=charges MaxNumberOfMessages=1 VisibilityTimeout=30 AttributeNames=ApproximateReceiveCount → Messages: [] (none visible) | B asks charges for a message and gets none (every message is taken or gone); after 1 empty receive it stops.",
      "1000 B:  →  | B is done: there was no job in the queue for it.",
    ]);
    expect(transcript({ ...base, horizonMs: 15_000, queue: { ...sqs, maxEmptyReceives: 2 } })).toEqual([
      "0 A: ReceiveMessage QueueUrl=charges MaxNumberOfMessages=1 VisibilityTimeout=30 AttributeNames=ApproximateReceiveCount → Messages: [MessageId=m1 ReceiptHandle=rh-1 Body=charge-order-42 ApproximateReceiveCount=1] | A receives m1 (charge-order-42) with receipt handle rh-1; nobody else can receive it for 30 s.",
      "0 A:  →  | A works for 35 s.",
      "1000 B: ReceiveMessage QueueUrl=charges MaxNumberOfMessages=1 VisibilityTimeout=30 AttributeNames=ApproximateReceiveCount → Messages: [] (none visible) | B asks charges for a message and gets none (every message is taken or gone); it asks again in 5 s.",
      "6000 B: ReceiveMessage QueueUrl=charges MaxNumberOfMessages=1 VisibilityTimeout=30 AttributeNames=ApproximateReceiveCount → Messages: [] (none visible) | B asks charges for a message and gets none (every message is taken or gone); after 2 empty receives it stops.",
      "6000 B:  →  | B is done: there was no job in the queue for it.",
    ]);
  });
});

describe('queue steps and the worker\'s state', () => {
  const stateOf = (s: Scenario, actor: string, command: RegExp) => runScenario(s).events.filter((e) => e.actor === actor && command.test(e.command ?? '')).map((e) => e.state);

  it('receiving, claiming and extending are work; acknowledging is recording the completion', () => {
    const fixed = findPreset('queue-redelivery')!.withFix;
    expect(stateOf(fixed, 'A', /^ReceiveMessage/)).toEqual(['working']);
    expect(stateOf(fixed, 'B', /^ReceiveMessage/)[0]).toBe('working');
    expect(stateOf(fixed, 'A', /^ChangeMessageVisibility/)).toEqual(['working']);
    expect(stateOf(fixed, 'A', /^DeleteMessage/)).toEqual(['recordingCompletion']);
    const table = findPreset('skip-locked-claim')!.withoutFix;
    expect(stateOf(table, 'A', /^SELECT id FROM job_queue/)).toEqual(['working']);
    expect(stateOf(table, 'A', /^UPDATE job_queue SET status = 'done'/)).toEqual(['recordingCompletion']);
  });
});

describe('queue steps at the edges', () => {
  it('queue-redelivery with the fix: A extends the visibility at 20 s, B keeps getting none, A deletes with its first handle', () => {
    expect(transcript(findPreset('queue-redelivery')!.withFix)).toEqual([
      "0 A: ReceiveMessage QueueUrl=charges MaxNumberOfMessages=1 VisibilityTimeout=30 AttributeNames=ApproximateReceiveCount → Messages: [MessageId=m1 ReceiptHandle=rh-1 Body=charge-order-42 ApproximateReceiveCount=1] | A receives m1 (charge-order-42) with receipt handle rh-1; nobody else can receive it for 30 s.",
      "0 A:  →  | A works for 20 s.",
      "1000 B: ReceiveMessage QueueUrl=charges MaxNumberOfMessages=1 VisibilityTimeout=30 AttributeNames=ApproximateReceiveCount → Messages: [] (none visible) | B asks charges for a message and gets none (every message is taken or gone); it asks again in 5 s.",
      "6000 B: ReceiveMessage QueueUrl=charges MaxNumberOfMessages=1 VisibilityTimeout=30 AttributeNames=ApproximateReceiveCount → Messages: [] (none visible) | B asks charges for a message and gets none (every message is taken or gone); it asks again in 5 s.",
      "11000 B: ReceiveMessage QueueUrl=charges MaxNumberOfMessages=1 VisibilityTimeout=30 AttributeNames=ApproximateReceiveCount → Messages: [] (none visible) | B asks charges for a message and gets none (every message is taken or gone); it asks again in 5 s.",
      "16000 B: ReceiveMessage QueueUrl=charges MaxNumberOfMessages=1 VisibilityTimeout=30 AttributeNames=ApproximateReceiveCount → Messages: [] (none visible) | B asks charges for a message and gets none (every message is taken or gone); it asks again in 5 s.",
      "20000 A: ChangeMessageVisibility QueueUrl=charges ReceiptHandle=rh-1 VisibilityTimeout=30 → 200 OK | A extends m1's visibility: nobody else can receive it for 30 s from now.",
      "20000 A:  →  | A works for 15 s.",
      "21000 B: ReceiveMessage QueueUrl=charges MaxNumberOfMessages=1 VisibilityTimeout=30 AttributeNames=ApproximateReceiveCount → Messages: [] (none visible) | B asks charges for a message and gets none (every message is taken or gone); it asks again in 5 s.",
      "26000 B: ReceiveMessage QueueUrl=charges MaxNumberOfMessages=1 VisibilityTimeout=30 AttributeNames=ApproximateReceiveCount → Messages: [] (none visible) | B asks charges for a message and gets none (every message is taken or gone); it asks again in 5 s.",
      "31000 B: ReceiveMessage QueueUrl=charges MaxNumberOfMessages=1 VisibilityTimeout=30 AttributeNames=ApproximateReceiveCount → Messages: [] (none visible) | B asks charges for a message and gets none (every message is taken or gone); it asks again in 5 s.",
      "35000 A: POST /v1/charges → (pending: no reply yet) | A calls POST /v1/charges; the request is in progress, no reply yet.",
      "36000 B: ReceiveMessage QueueUrl=charges MaxNumberOfMessages=1 VisibilityTimeout=30 AttributeNames=ApproximateReceiveCount → Messages: [] (none visible) | B asks charges for a message and gets none (every message is taken or gone); it asks again in 5 s.",
      "37000 A: POST /v1/charges → 201 Created | A's call returns: 201 Created.",
      "37000 A: DeleteMessage QueueUrl=charges ReceiptHandle=rh-1 → 200 OK | A acknowledges the job: DeleteMessage with receipt handle rh-1 deletes m1 from charges.",
      "37000 A:  →  | A is done: it completed the job.",
      "41000 B: ReceiveMessage QueueUrl=charges MaxNumberOfMessages=1 VisibilityTimeout=30 AttributeNames=ApproximateReceiveCount → Messages: [] (none visible) | B asks charges for a message and gets none (every message is taken or gone); it asks again in 5 s.",
      "46000 B: ReceiveMessage QueueUrl=charges MaxNumberOfMessages=1 VisibilityTimeout=30 AttributeNames=ApproximateReceiveCount → Messages: [] (none visible) | B asks charges for a message and gets none (every message is taken or gone); it asks again in 5 s.",
      "51000 B: ReceiveMessage QueueUrl=charges MaxNumberOfMessages=1 VisibilityTimeout=30 AttributeNames=ApproximateReceiveCount → Messages: [] (none visible) | B asks charges for a message and gets none (every message is taken or gone); it asks again in 5 s.",
      "56000 B: ReceiveMessage QueueUrl=charges MaxNumberOfMessages=1 VisibilityTimeout=30 AttributeNames=ApproximateReceiveCount → Messages: [] (none visible) | B asks charges for a message and gets none (every message is taken or gone); after 12 empty receives it stops.",
      "56000 B:  →  | B is done: there was no job in the queue for it.",
    ]);
  });

  it('a shutdown after the message went to another consumer: the hand-back is MessageNotInflight, B still completes', () => {
    const s: Scenario = { ...base, faults: [{ kind: 'shutdown', worker: 'A', atMs: 33_000 }] };
    expect(transcript(s)).toEqual([
      "0 A: ReceiveMessage QueueUrl=charges MaxNumberOfMessages=1 VisibilityTimeout=30 AttributeNames=ApproximateReceiveCount → Messages: [MessageId=m1 ReceiptHandle=rh-1 Body=charge-order-42 ApproximateReceiveCount=1] | A receives m1 (charge-order-42) with receipt handle rh-1; nobody else can receive it for 30 s.",
      "0 A:  →  | A works for 35 s.",
      "1000 B: ReceiveMessage QueueUrl=charges MaxNumberOfMessages=1 VisibilityTimeout=30 AttributeNames=ApproximateReceiveCount → Messages: [] (none visible) | B asks charges for a message and gets none (every message is taken or gone); it asks again in 5 s.",
      "6000 B: ReceiveMessage QueueUrl=charges MaxNumberOfMessages=1 VisibilityTimeout=30 AttributeNames=ApproximateReceiveCount → Messages: [] (none visible) | B asks charges for a message and gets none (every message is taken or gone); it asks again in 5 s.",
      "11000 B: ReceiveMessage QueueUrl=charges MaxNumberOfMessages=1 VisibilityTimeout=30 AttributeNames=ApproximateReceiveCount → Messages: [] (none visible) | B asks charges for a message and gets none (every message is taken or gone); it asks again in 5 s.",
      "16000 B: ReceiveMessage QueueUrl=charges MaxNumberOfMessages=1 VisibilityTimeout=30 AttributeNames=ApproximateReceiveCount → Messages: [] (none visible) | B asks charges for a message and gets none (every message is taken or gone); it asks again in 5 s.",
      "21000 B: ReceiveMessage QueueUrl=charges MaxNumberOfMessages=1 VisibilityTimeout=30 AttributeNames=ApproximateReceiveCount → Messages: [] (none visible) | B asks charges for a message and gets none (every message is taken or gone); it asks again in 5 s.",
      "26000 B: ReceiveMessage QueueUrl=charges MaxNumberOfMessages=1 VisibilityTimeout=30 AttributeNames=ApproximateReceiveCount → Messages: [] (none visible) | B asks charges for a message and gets none (every message is taken or gone); it asks again in 5 s.",
      "30000 queue:  →  | m1's visibility timeout passed without a DeleteMessage: it is visible again and the next ReceiveMessage delivers it, whether or not A is still working on it.",
      "31000 B: ReceiveMessage QueueUrl=charges MaxNumberOfMessages=1 VisibilityTimeout=30 AttributeNames=ApproximateReceiveCount → Messages: [MessageId=m1 ReceiptHandle=rh-2 Body=charge-order-42 ApproximateReceiveCount=2] | B receives m1 (charge-order-42) with receipt handle rh-2; nobody else can receive it for 30 s — delivery 2: the message was received before and never deleted.",
      "31000 B:  →  | B works for 35 s.",
      "33000 A:  →  | A is told to shut down (SIGTERM): it stops its job here and pushes its message back before it exits.",
      "33000 A: ChangeMessageVisibility QueueUrl=charges ReceiptHandle=rh-1 VisibilityTimeout=0 → 400 AWS.SimpleQueueService.MessageNotInflight | A shuts down and tries to push m1 back, but the message is no longer in flight under its receipt handle (MessageNotInflight).",
      "61000 queue:  →  | m1's visibility timeout passed without a DeleteMessage: it is visible again and the next ReceiveMessage delivers it, whether or not B is still working on it.",
      "66000 B: POST /v1/charges → (pending: no reply yet) | B calls POST /v1/charges; the request is in progress, no reply yet.",
      "68000 B: POST /v1/charges → 201 Created | B's call returns: 201 Created.",
      "68000 B: DeleteMessage QueueUrl=charges ReceiptHandle=rh-2 → 200 OK | B acknowledges the job: DeleteMessage with receipt handle rh-2 deletes m1 from charges.",
      "68000 B:  →  | B is done: it completed the job.",
    ]);
  });

  it('a shutdown before receiving hands nothing back; a shutdown where there is no queue pushes nothing', () => {
    expect(transcript({ ...base, faults: [{ kind: 'shutdown', worker: 'B', atMs: 500 }] })).toEqual([
      "0 A: ReceiveMessage QueueUrl=charges MaxNumberOfMessages=1 VisibilityTimeout=30 AttributeNames=ApproximateReceiveCount → Messages: [MessageId=m1 ReceiptHandle=rh-1 Body=charge-order-42 ApproximateReceiveCount=1] | A receives m1 (charge-order-42) with receipt handle rh-1; nobody else can receive it for 30 s.",
      "0 A:  →  | A works for 35 s.",
      "500 B:  →  | B is told to shut down (SIGTERM): it stops its job here and exits.",
      "30000 queue:  →  | m1's visibility timeout passed without a DeleteMessage: it is visible again and the next ReceiveMessage delivers it, whether or not A is still working on it.",
      "35000 A: POST /v1/charges → (pending: no reply yet) | A calls POST /v1/charges; the request is in progress, no reply yet.",
      "37000 A: POST /v1/charges → 201 Created | A's call returns: 201 Created.",
      "37000 A: DeleteMessage QueueUrl=charges ReceiptHandle=rh-1 → 200 OK | A acknowledges the job: DeleteMessage with receipt handle rh-1 deletes m1 from charges.",
      "37000 A:  →  | A is done: it completed the job.",
    ]);
    const exp = findPreset('export-lease-expiry')!.withoutFix;
    const lines = transcript({ ...exp, faults: [{ kind: 'shutdown', worker: 'A', atMs: 1_000 }] });
    expect(lines).toContain('1000 A:  →  | A is told to shut down (SIGTERM): it stops its job here and exits.');
    expect(lines.filter((l) => /ChangeMessageVisibility|ReceiveMessage/.test(l))).toEqual([]);
  });

  it('the engine runs a scenario the validator refuses without a queue call: queue steps without their queue do nothing', () => {
    const exp = findPreset('export-lease-expiry')!.withoutFix;
    const noQueue: Scenario = { ...exp, faults: [], workers: [{ id: 'A', startMs: 0, steps: steps('receive', 'markClaimed', 'extendVisibility', 'ack') }] };
    expect(validateScenario(noQueue).ok).toBe(false);
    expect(transcript(noQueue)).toEqual(['0 A:  →  | A is done: it completed the job.']);
    // extendVisibility on a table queue, markClaimed on an SQS queue: skipped.
    const table = findPreset('skip-locked-claim')!.withoutFix;
    const tableExtend: Scenario = { ...table, workers: [{ id: 'A', startMs: 0, steps: steps('begin', 'receive', 'extendVisibility', 'markClaimed', 'commit', 'ack') }] };
    expect(transcript(tableExtend)).toEqual([
      "0 A: pool.connect() → c1 | A borrows connection c1 from the pool.",
      "0 A: BEGIN → BEGIN | A opens a transaction.",
      "0 A: SELECT id FROM job_queue WHERE status = 'pending' FOR UPDATE SKIP LOCKED → SELECT 1 → id=7 | A claims job row 7 of job_queue and locks it until its transaction ends.",
      "0 A: UPDATE job_queue SET status = 'running', claimed_by = 'A' WHERE id = 7 → UPDATE 1 | A marks job row 7 as running, claimed by A.",
      "0 A: COMMIT → COMMIT | A commits.",
      "0 A: UPDATE job_queue SET status = 'done' WHERE id = 7 → UPDATE 1 | A marks job row 7 as done.",
      "0 A: client.release() → ok | A returns connection c1 to the pool.",
      "0 A:  →  | A is done: it completed the job.",
    ]);
    const sqsMark: Scenario = { ...base, workers: [{ id: 'A', startMs: 0, steps: steps('markClaimed', 'ack', 'receive', 'markClaimed', 'ack') }] };
    expect(transcript(sqsMark)).toEqual([
      "0 A: ReceiveMessage QueueUrl=charges MaxNumberOfMessages=1 VisibilityTimeout=30 AttributeNames=ApproximateReceiveCount → Messages: [MessageId=m1 ReceiptHandle=rh-1 Body=charge-order-42 ApproximateReceiveCount=1] | A receives m1 (charge-order-42) with receipt handle rh-1; nobody else can receive it for 30 s.",
      "0 A: DeleteMessage QueueUrl=charges ReceiptHandle=rh-1 → 200 OK | A acknowledges the job: DeleteMessage with receipt handle rh-1 deletes m1 from charges.",
      "0 A:  →  | A is done: it completed the job.",
    ]);
  });
});

describe('the error path\'s hand-back', () => {
  // A holds the lease all along; B tries once (onBusy retry, 0 retries), so its job fails.
  const failing = (queue: Partial<typeof sqs>, bSteps: ReturnType<typeof steps>, ttlMs = base.lease.ttlMs): Scenario => ({
    ...base,
    horizonMs: 45_000,
    mechanism: { ...base.mechanism, lock: 'lease' },
    lease: { ...base.lease, ttlMs },
    client: { ...base.client, onBusy: 'retry', retries: 0 },
    queue: { ...sqs, pollEveryMs: 1_000, maxEmptyReceives: 50, ...queue },
    workers: [
      { id: 'A', startMs: 0, steps: steps('acquire', ['work', 50_000], 'release') },
      { id: 'B', startMs: 1_000, steps: bSteps },
    ],
  });
  const handBacks = (s: Scenario) => runScenario(s).events.filter((e) => (e.command ?? '').startsWith('ChangeMessageVisibility')).map((e) => `${e.atMs} ${e.actor}: ${e.reply ?? ''} | ${e.narration}`);

  it('says the backoff and its arithmetic: 5 s × 2^(delivery − 1)', () => {
    const s = failing({ retryBackoffMs: 5_000 }, steps('receive', 'acquire', ['effect', 1_000], 'ack'));
    expect(handBacks(s)[0]).toBe('1000 B: 200 OK | B\'s error path hands m1 back with a backoff: it is visible again in 5 s (delivery 1, so 5 s × 2^0).');
  });

  it('without retryBackoffMs a failed job hands nothing back: the message waits out its visibility timeout', () => {
    const s = failing({}, steps('receive', 'acquire', ['effect', 1_000], 'ack'));
    const r = runScenario(s);
    expect(handBacks(s)).toEqual([]);
    expect(r.events.find((e) => e.actor === 'queue')!.atMs).toBe(31_000);
  });

  it('a job that fails after its visibility timeout passed cannot hand the message back (MessageNotInflight)', () => {
    const s = failing({ retryBackoffMs: 5_000 }, steps('receive', ['work', 35_000], 'acquire', ['effect', 1_000], 'ack'), 60_000);
    expect(handBacks(s)).toEqual(['36000 B: 400 AWS.SimpleQueueService.MessageNotInflight | B\'s error path tries to hand m1 back with a backoff, but the message is no longer in flight under its receipt handle (MessageNotInflight).']);
  });
});

describe('a claim that fails', () => {
  it('FOR UPDATE NOWAIT on a row another worker has locked: 55P03, B\'s job fails and its error path rolls back', () => {
    const c = findPreset('skip-locked-claim')!.withFix;
    const lines = transcript({ ...c, mechanism: { ...c.mechanism, rowLock: 'forUpdateNowait' } }).filter((l) => /^\d+ B:/.test(l));
    expect(lines.slice(lines.findIndex((l) => l.includes('SELECT')))).toEqual([
      '10 B: SELECT id FROM job_queue WHERE status = \'pending\' FOR UPDATE NOWAIT → ERROR 55P03 could not obtain lock on row in relation "job_queue" | B\'s claim fails: could not obtain lock on row in relation "job_queue".',
      '10 B:  →  | B\'s job fails (could not obtain lock on row in relation "job_queue"); its error path runs.',
      '10 B: ROLLBACK → ROLLBACK | B rolls back.',
      '10 B: client.release() → ok | B returns connection c2 to the pool.',
      '10 B:  →  | B is done: the job failed.',
    ]);
  });
});

describe('queue steps at their boundaries', () => {
  const table = findPreset('skip-locked-claim')!.withFix;
  const fixed = findPreset('queue-redelivery')!.withFix;
  const of = (s: Scenario, actor: string) => transcript(s).filter((l) => l.split(' ')[1] === `${actor}:`);

  it('a paused consumer polls late: its next ReceiveMessage moves by the pause (a stopped process runs no timer)', () => {
    const r = runScenario({ ...base, faults: [{ kind: 'pause', worker: 'B', atMs: 3_000, pauseMs: 10_000 }] });
    // Without the pause B polls at 1, 6, 11, … s; paused from 3 s to 13 s, the poll due at 6 s runs at 16 s.
    expect(r.events.filter((e) => e.actor === 'B' && (e.command ?? '').startsWith('ReceiveMessage')).map((e) => e.atMs).slice(0, 3)).toEqual([1_000, 16_000, 21_000]);
  });

  it('a blocking claim (FOR UPDATE, no SKIP LOCKED) that finds the row taken says so without naming SKIP LOCKED', () => {
    const forUpdate: Scenario = { ...table, mechanism: { ...table.mechanism, rowLock: 'forUpdate' } };
    const claims = of(forUpdate, 'B').filter((l) => l.includes('SELECT id FROM job_queue'));
    // B waits for A's row lock; once A commits the row is 'running', so B's re-check finds none.
    expect(claims.at(-1)).toMatch(/→ SELECT 0 \| .*B finds no pending job row: no job for it\.$/);
  });

  it('marking and extending are work even after a job-record step (RECORD): the worker goes back to working', () => {
    const mark: Scenario = { ...table, workers: [{ id: 'A', startMs: 0, steps: steps('begin', 'receive', 'enqueue', 'markClaimed', 'commit', 'ack') }] };
    const states = (s: Scenario, cmd: RegExp) => runScenario(s).events.filter((e) => e.actor === 'A' && cmd.test(e.command ?? '')).map((e) => e.state);
    // The job record leaves the worker in another state, so the mark itself must say it is work.
    expect(states(mark, /^INSERT INTO jobs/)).not.toEqual(['working']);
    expect(states(mark, /^UPDATE job_queue SET status = 'running'/)).toEqual(['working']);
    const extend: Scenario = { ...fixed, workers: [{ id: 'A', startMs: 0, steps: steps('receive', 'enqueue', 'extendVisibility', 'ack') }] };
    expect(states(extend, /^INSERT INTO jobs/)).not.toEqual(['working']);
    expect(states(extend, /^ChangeMessageVisibility/)).toEqual(['working']);
  });

  it('the engine runs a refused order: marking before any claim, extending before any receive, failing before any receive do nothing', () => {
    const markFirst: Scenario = { ...table, workers: [{ id: 'A', startMs: 0, steps: steps('begin', 'markClaimed', 'receive', 'commit') }] };
    expect(of(markFirst, 'A').filter((l) => l.includes('UPDATE job_queue'))).toEqual([]);
    const extendFirst: Scenario = { ...fixed, workers: [{ id: 'A', startMs: 0, steps: steps('extendVisibility', 'receive', 'ack') }] };
    expect(of(extendFirst, 'A').filter((l) => l.includes('ChangeMessageVisibility'))).toEqual([]);
    // B's acquire fails before it received anything: with a retry backoff configured, its error path has no message to hand back.
    const failFirst: Scenario = {
      ...base, horizonMs: 5_000, mechanism: { ...base.mechanism, lock: 'lease' }, client: { ...base.client, onBusy: 'retry', retries: 0 },
      queue: { ...sqs, retryBackoffMs: 5_000 },
      workers: [{ id: 'A', startMs: 0, steps: steps('acquire', ['work', 50_000], 'release') }, { id: 'B', startMs: 1_000, steps: steps('acquire', 'receive', ['effect', 1_000], 'ack') }],
    };
    const b = of(failFirst, 'B');
    expect(b.filter((l) => /ChangeMessageVisibility|ReceiveMessage/.test(l))).toEqual([]);
    expect(b.at(-1)).toBe('1000 B:  →  | B is done: the job failed.');
  });

  it('idle_in_transaction_session_timeout ends the claim\'s session: the mark fails (25P03) and the job fails, the row is not marked', () => {
    const idle: Scenario = { ...table, database: { ...table.database, idleInTransactionSessionTimeoutMs: 1_000 }, workers: [{ id: 'A', startMs: 0, steps: steps('begin', 'receive', ['work', 2_000], 'markClaimed', 'commit', 'ack') }] };
    expect(of(idle, 'A').filter((l) => l.startsWith('2000 '))).toEqual([
      "2000 A: UPDATE job_queue SET status = 'running', claimed_by = 'A' WHERE id = 7 → FATAL 25P03 terminating connection due to idle-in-transaction timeout (server closed the connection unexpectedly) | A's claim mark fails: terminating connection due to idle-in-transaction timeout.",
      '2000 A: connection.destroy() → closed | A discards connection c1: the server had closed it; the pool opens a new one.',
      "2000 A:  →  | A's job fails (terminating connection due to idle-in-transaction timeout); its error path runs.",
      '2000 A:  →  | A is done: the job failed.',
    ]);
  });

  it('the same timeout before the acknowledgement: UPDATE … SET status = \'done\' fails (25P03), the job fails and is not marked done', () => {
    const idle: Scenario = { ...table, database: { ...table.database, idleInTransactionSessionTimeoutMs: 1_000 }, workers: [{ id: 'A', startMs: 0, steps: steps('begin', 'receive', 'markClaimed', ['work', 2_000], 'ack') }] };
    const r = runScenario(idle);
    expect(of(idle, 'A').filter((l) => l.startsWith('2000 '))).toEqual([
      "2000 A: UPDATE job_queue SET status = 'done' WHERE id = 7 → FATAL 25P03 terminating connection due to idle-in-transaction timeout (server closed the connection unexpectedly) | A could not mark the job done: terminating connection due to idle-in-transaction timeout.",
      '2000 A: connection.destroy() → closed | A discards connection c1: the server had closed it; the pool opens a new one.',
      "2000 A:  →  | A's job fails (terminating connection due to idle-in-transaction timeout); its error path runs.",
      '2000 A:  →  | A is done: the job failed.',
    ]);
    expect(r.events.filter((e) => e.kind === 'outcome').map((e) => e.narration)).toContain('A is done: the job failed.');
  });

  it('a shutdown while holding a message says it is pushed back to run again from the start', () => {
    const s: Scenario = { ...base, faults: [{ kind: 'shutdown', worker: 'A', atMs: 10_000 }] };
    const push = runScenario(s).events.find((e) => e.actor === 'A' && (e.command ?? '').startsWith('ChangeMessageVisibility'))!;
    expect(push.narration).toBe('A shuts down and pushes m1 back (visibility 0): it is visible at once and will run again from the start on the next consumer.');
  });

  it('every queue event\'s structured command is the one its text shows, and the reply answers that command (checkers read the data, people the text)', () => {
    const backoff: Scenario = {
      ...base, horizonMs: 30_000, mechanism: { ...base.mechanism, lock: 'lease' }, client: { ...base.client, onBusy: 'retry', retries: 0 },
      queue: { ...sqs, pollEveryMs: 1_000, maxEmptyReceives: 20, retryBackoffMs: 5_000 },
      workers: [{ id: 'A', startMs: 0, steps: steps('acquire', ['work', 50_000], 'release') }, { id: 'B', startMs: 1_000, steps: steps('receive', 'acquire', ['effect', 1_000], 'ack') }],
    };
    const runs = [base, fixed, backoff, { ...base, faults: [{ kind: 'shutdown', worker: 'A', atMs: 10_000 }] } as Scenario];
    const ops = new Set<string>();
    for (const s of runs) {
      for (const e of runScenario(s).events) {
        if (e.call?.resource !== 'queue') continue;
        const call = e.call as { command: { op: string }; reply: { op: string } };
        ops.add(call.command.op);
        expect({ shown: e.command?.split(' ')[0], answered: call.reply.op }).toEqual({ shown: call.command.op, answered: call.command.op });
      }
    }
    expect([...ops].sort()).toEqual(['ChangeMessageVisibility', 'DeleteMessage', 'ReceiveMessage']);
  });
});
