/**
 * The SQS-like queue (SQS API reference: ReceiveMessage, DeleteMessage, ChangeMessageVisibility;
 * BullMQ "Stalled jobs"): visibility timeout, redelivery with a new receipt handle, a delete with
 * an old handle that answers 200 and deletes nothing, extension counted from the call, the
 * stalled-job checker's period.
 */
import { MessageQueue, type QueueReply } from './messageQueue';

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
});
