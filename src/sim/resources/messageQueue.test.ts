/**
 * The SQS-like queue (SQS API reference: ReceiveMessage, DeleteMessage, ChangeMessageVisibility;
 * BullMQ "Stalled jobs"): visibility timeout, redelivery with a new receipt handle, a delete with
 * an old handle that answers 200 and deletes nothing, extension counted from the call, the
 * stalled-job checker's period.
 */
import { splitNarration } from '../engine/narration';
import { MessageQueue, queueFor, type QueueReply } from './messageQueue';
import { findPreset } from '../presets';

const Q = 'jobs';
const receive = (q: MessageQueue, at: number, who: string, vtMs = 30_000) => q.execute(at, who, { op: 'ReceiveMessage', queue: Q, visibilityTimeoutMs: vtMs }).reply as Extract<QueueReply, { op: 'ReceiveMessage' }>;
const del = (q: MessageQueue, at: number, handle: string) => q.execute(at, 'x', { op: 'DeleteMessage', queue: Q, receiptHandle: handle }).reply;
const change = (q: MessageQueue, at: number, handle: string, vtMs: number) => q.execute(at, 'x', { op: 'ChangeMessageVisibility', queue: Q, receiptHandle: handle, visibilityTimeoutMs: vtMs }).reply;

describe('MessageQueue', () => {
  it('a received message is invisible until its timeout, then delivered again with a new handle and receive count 2', () => {
    const q = new MessageQueue(Q, ['charge-42']);
    expect(receive(q, 0, 'A')).toEqual({ op: 'ReceiveMessage', messages: [{ messageId: 'm1', receiptHandle: 'rh-1', body: 'charge-42', receiveCount: 1 }] });
    expect(receive(q, 29_999, 'B')).toEqual({ op: 'ReceiveMessage', messages: [] });
    expect(q.nextWakeMs()).toBe(30_000);
    expect(q.wake(30_000).map((n) => n.data)).toEqual([{ t: 'queue', op: 'visible', messageId: 'm1', job: 'charge-42' }]);
    expect(q.nextWakeMs()).toBeNull();
    expect(receive(q, 30_000, 'B')).toEqual({ op: 'ReceiveMessage', messages: [{ messageId: 'm1', receiptHandle: 'rh-2', body: 'charge-42', receiveCount: 2 }] });
    expect(q.snapshot(30_000)).toEqual([{ messageId: 'm1', body: 'charge-42', state: 'inFlight', receivedBy: 'B', invisibleUntilMs: 60_000, receiveCount: 2 }]);
  });

  it('DeleteMessage with an older handle answers 200 and leaves the message; with the latest it deletes it', () => {
    const q = new MessageQueue(Q, ['charge-42']);
    receive(q, 0, 'A');
    receive(q, 30_000, 'B');
    expect(del(q, 35_000, 'rh-1')).toEqual({ op: 'DeleteMessage', deleted: false, messageId: null });
    expect(q.renderReply(del(q, 35_000, 'rh-1'))).toBe('200 OK');
    expect(q.snapshot(35_000)[0]!.state).toBe('inFlight');
    expect(del(q, 36_000, 'rh-2')).toEqual({ op: 'DeleteMessage', deleted: true, messageId: 'm1' });
    expect(q.snapshot(90_000)[0]!.state).toBe('deleted');
    expect(receive(q, 90_000, 'C')).toEqual({ op: 'ReceiveMessage', messages: [] });
    expect(q.nextWakeMs()).toBeNull();
  });

  it('ChangeMessageVisibility counts from the call; once the timeout passed (or another receive took it) it is MessageNotInflight', () => {
    const q = new MessageQueue(Q, ['charge-42']);
    receive(q, 0, 'A');
    expect(change(q, 20_000, 'rh-1', 30_000)).toEqual({ op: 'ChangeMessageVisibility', ok: true, visibleAtMs: 50_000 });
    expect(receive(q, 49_999, 'B').messages).toEqual([]);
    expect(change(q, 50_000, 'rh-1', 30_000)).toEqual({ op: 'ChangeMessageVisibility', ok: false, error: 'AWS.SimpleQueueService.MessageNotInflight' });
    expect(receive(q, 50_000, 'B').messages[0]!.receiptHandle).toBe('rh-2');
    expect(change(q, 51_000, 'rh-1', 30_000)).toMatchObject({ ok: false });
    expect(q.renderReply(change(q, 51_000, 'rh-1', 30_000))).toBe('400 AWS.SimpleQueueService.MessageNotInflight');
  });

  it('VisibilityTimeout=0 hands the message back at once (a shutdown)', () => {
    const q = new MessageQueue(Q, ['charge-42']);
    receive(q, 0, 'A');
    expect(change(q, 5_000, 'rh-1', 0)).toEqual({ op: 'ChangeMessageVisibility', ok: true, visibleAtMs: 5_000 });
    expect(receive(q, 5_000, 'B').messages[0]!.receiveCount).toBe(2);
  });

  it('with a stalled-job checker every 20 s, a job whose 30 s passed returns only at the checker\'s run at 40 s', () => {
    const q = new MessageQueue(Q, ['charge-42'], 20_000);
    receive(q, 0, 'A');
    expect(q.nextWakeMs()).toBe(40_000);
    expect(receive(q, 39_999, 'B').messages).toEqual([]);
    expect(q.wake(40_000)[0]!.narration).toMatch(/stalled-job checker/);
    expect(receive(q, 40_000, 'B').messages[0]!.receiveCount).toBe(2);
    // A timeout that ends exactly on a checker run returns then.
    const q2 = new MessageQueue(Q, ['x'], 10_000);
    receive(q2, 0, 'A');
    expect(q2.nextWakeMs()).toBe(30_000);
  });

  it('renders the literal API requests', () => {
    const q = new MessageQueue(Q, ['charge-42']);
    expect(q.renderCommand({ op: 'ReceiveMessage', queue: Q, visibilityTimeoutMs: 30_000 })).toBe('ReceiveMessage QueueUrl=jobs MaxNumberOfMessages=1 VisibilityTimeout=30 AttributeNames=ApproximateReceiveCount');
    expect(q.renderCommand({ op: 'DeleteMessage', queue: Q, receiptHandle: 'rh-1' })).toBe('DeleteMessage QueueUrl=jobs ReceiptHandle=rh-1');
    expect(q.renderCommand({ op: 'ChangeMessageVisibility', queue: Q, receiptHandle: 'rh-1', visibilityTimeoutMs: 0 })).toBe('ChangeMessageVisibility QueueUrl=jobs ReceiptHandle=rh-1 VisibilityTimeout=0');
    expect(q.renderReply({ op: 'ReceiveMessage', messages: [] })).toBe('Messages: [] (none visible)');
  });

  it('with two messages in flight the next wake is the earlier timeout, whichever was received first; a message never received has none', () => {
    const later = new MessageQueue(Q, ['a', 'b', 'c']);
    receive(later, 0, 'A', 30_000);
    receive(later, 0, 'B', 10_000);
    expect(later.nextWakeMs()).toBe(10_000);
    const earlier = new MessageQueue(Q, ['a', 'b', 'c']);
    receive(earlier, 0, 'A', 10_000);
    receive(earlier, 0, 'B', 30_000);
    expect(earlier.nextWakeMs()).toBe(10_000);
    // m3 was never received: waking never announces it, and it stays visible in the snapshot.
    expect(earlier.wake(10_000).map((n) => n.data)).toEqual([{ t: 'queue', op: 'visible', messageId: 'm1', job: 'a' }]);
    expect(earlier.nextWakeMs()).toBe(30_000);
    expect(earlier.snapshot(10_000).map((m) => m.state)).toEqual(['visible', 'inFlight', 'visible']);
  });

  it('wake announces a message once, and not before its timeout', () => {
    const q = new MessageQueue(Q, ['charge-42']);
    receive(q, 0, 'A');
    expect(q.wake(29_999)).toEqual([]);
    expect(q.wake(30_000)).toHaveLength(1);
    expect(q.wake(30_000)).toEqual([]);
    expect(q.wake(45_000)).toEqual([]);
  });

  it('a visible message shows no consumer and no timeout in the snapshot, even after it was received', () => {
    const q = new MessageQueue(Q, ['charge-42']);
    expect(q.snapshot(0)).toEqual([{ messageId: 'm1', body: 'charge-42', state: 'visible', receivedBy: null, invisibleUntilMs: null, receiveCount: 0 }]);
    receive(q, 0, 'A');
    expect(q.snapshot(30_000)).toEqual([{ messageId: 'm1', body: 'charge-42', state: 'visible', receivedBy: null, invisibleUntilMs: null, receiveCount: 1 }]);
  });

  it('narrates why a message is visible again: a passed timeout (SQS), a hand-back, the stalled-job checker', () => {
    const sqs = new MessageQueue(Q, ['charge-42']);
    receive(sqs, 0, 'A');
    expect(splitNarration(sqs.wake(30_000)[0]!.narration).narration).toBe('m1\'s visibility timeout passed without a DeleteMessage: it is visible again and the next ReceiveMessage delivers it, whether or not A is still working on it.');
    const back = new MessageQueue(Q, ['charge-42']);
    receive(back, 0, 'A');
    change(back, 5_000, 'rh-1', 0);
    expect(back.wake(5_000)[0]!.narration).toBe('m1 is visible again: A handed it back, and the next ReceiveMessage delivers it to run from the start.');
    // Extending (a timeout other than 0) is not a hand-back.
    const extended = new MessageQueue(Q, ['charge-42']);
    receive(extended, 0, 'A');
    change(extended, 5_000, 'rh-1', 10_000);
    expect(extended.wake(15_000)[0]!.narration).toMatch(/^m1's visibility timeout passed without a DeleteMessage/);
    const stalled = new MessageQueue(Q, ['charge-42'], 20_000);
    receive(stalled, 0, 'A');
    expect(splitNarration(stalled.wake(40_000)[0]!.narration).narration).toBe('The stalled-job checker finds m1\'s lock expired (A did not extend or acknowledge it): it moves the job back to wait, and the next consumer takes it, whether or not A is still working on it.');
  });

  it('never makes a caller wait', () => {
    const q = new MessageQueue(Q, ['charge-42']);
    expect(q.waits()).toBe(false);
  });

  it('queueFor: an SQS queue block gives one message whose body is the job key; no queue block gives an empty queue named none', () => {
    const sqs = findPreset('queue-redelivery')!.withoutFix;
    const q = queueFor(sqs);
    expect(q.queueName).toBe('charges');
    expect(q.stalledCheckEveryMs).toBeNull();
    expect(q.snapshot(0).map((m) => m.body)).toEqual(['charge-order-42']);
    const none = queueFor(findPreset('export-lease-expiry')!.withoutFix);
    expect(none.queueName).toBe('none');
    expect(none.snapshot(0)).toEqual([]);
    // A table queue is rows in the database, not messages.
    const table = queueFor(findPreset('skip-locked-claim')!.withoutFix);
    expect(table.queueName).toBe('none');
    expect(table.snapshot(0)).toEqual([]);
    // A job that is not an external one: the body is the scenario's id, or `job` without one.
    const insert = findPreset('invoice-race')!.withoutFix;
    expect(queueFor({ ...sqs, job: insert.job }).snapshot(0).map((m) => m.body)).toEqual(['queue-redelivery']);
    expect(queueFor({ ...sqs, job: insert.job, id: undefined }).snapshot(0).map((m) => m.body)).toEqual(['job']);
  });
});
