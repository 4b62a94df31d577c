/**
 * A message queue with at-least-once delivery, modelled on Amazon SQS (a standard queue, one
 * message per receive): `ReceiveMessage` with a `VisibilityTimeout`, `DeleteMessage` as the
 * acknowledgement, `ChangeMessageVisibility` to extend the timeout while working (or to set it to
 * 0 and hand the message back, or to a backoff before a retry). Sources: the SQS API reference
 * (ReceiveMessage, DeleteMessage, ChangeMessageVisibility) and developer guide ("Visibility
 * timeout"); BullMQ's "Stalled jobs" for the optional stalled-job checker; `../shared/semantics.md`
 * "Queues and at-least-once delivery".
 *
 * - A received message stays in the queue, invisible, until its visibility timeout passes; then it
 *   is visible again and the next `ReceiveMessage` delivers it — to whichever consumer asks, while
 *   the first may still be running (at-least-once, never exactly-once).
 * - Every receive gives a new receipt handle and counts `ApproximateReceiveCount`. `DeleteMessage`
 *   must name the latest handle: with an older one SQS still answers 200 but the message is not
 *   deleted (SQS API reference, DeleteMessage). The reply carries `deleted` for the model's
 *   checkers and narration; the HTTP reply a consumer sees is the same either way.
 * - `ChangeMessageVisibility` counts the new timeout from the call; on a message that is not in
 *   flight under that handle (its timeout passed, or someone received it since) it fails with
 *   `AWS.SimpleQueueService.MessageNotInflight`. Timeouts are whole seconds, 0 … 12 h.
 * - With a stalled-job checker (BullMQ's `stalledInterval`), a message whose timeout passed
 *   becomes visible only when the checker next runs (every `stalledCheckEveryMs` from 0).
 *
 * Pure: time is only the `nowMs` each call is given.
 */
import { explained } from '../engine/narration';
import type { Scenario } from '../scenario/schema';
import { NO_COMPLETIONS, type Execution, type Resource, type ResourceNotice } from './resource';

/** A command to the queue. Timeouts in ms (whole seconds, as SQS takes them). */
export type QueueCmd =
  | { readonly op: 'ReceiveMessage'; readonly queue: string; readonly visibilityTimeoutMs: number }
  | { readonly op: 'DeleteMessage'; readonly queue: string; readonly receiptHandle: string }
  | { readonly op: 'ChangeMessageVisibility'; readonly queue: string; readonly receiptHandle: string; readonly visibilityTimeoutMs: number };

/** One delivered message as `ReceiveMessage` returns it. */
export interface ReceivedMessage {
  readonly messageId: string;
  readonly receiptHandle: string;
  readonly body: string;
  /** `ApproximateReceiveCount`: 1 on the first delivery, 2 on the second, … */
  readonly receiveCount: number;
}

/** The queue's answer. */
export type QueueReply =
  | { readonly op: 'ReceiveMessage'; readonly messages: readonly ReceivedMessage[] }
  /** HTTP 200 either way; `deleted` is false when the handle was not the latest (the message stays). */
  | { readonly op: 'DeleteMessage'; readonly deleted: boolean; readonly messageId: string | null }
  | { readonly op: 'ChangeMessageVisibility'; readonly ok: true; readonly visibleAtMs: number }
  | { readonly op: 'ChangeMessageVisibility'; readonly ok: false; readonly error: 'AWS.SimpleQueueService.MessageNotInflight' };

/** One message as the inspector shows it. */
export interface QueueMessageSnapshot {
  readonly messageId: string;
  readonly body: string;
  readonly state: 'visible' | 'inFlight' | 'deleted';
  /** While in flight: who received it last and when its visibility timeout passes. */
  readonly receivedBy: string | null;
  readonly invisibleUntilMs: number | null;
  readonly receiveCount: number;
}

interface Message {
  readonly messageId: string;
  readonly body: string;
  /** Latest receipt handle (null before the first receive). */
  handle: string | null;
  receivedBy: string | null;
  receiveCount: number;
  /** In flight until this ms (the visibility timeout), or null when visible. */
  invisibleUntilMs: number | null;
  /** Timeout passed while a stalled-job checker decides when it returns: visible from this ms. */
  returnsAtMs: number | null;
  /** Its consumer handed it back (`VisibilityTimeout=0`) rather than letting the timeout pass. */
  handedBack: boolean;
  deleted: boolean;
}

/** The longest visibility timeout SQS accepts: 12 hours. */
export const MAX_VISIBILITY_TIMEOUT_MS = 43_200_000;

/** Seconds as SQS writes them (`VisibilityTimeout=30`). */
function secs(ms: number): string {
  return String(ms / 1000);
}

/**
 * When a message whose visibility timeout passes at `untilMs` (virtual ms) can be received again:
 * then, under SQS (`stalledCheckEveryMs` null), or at the stalled-job checker's next run at or after
 * it (BullMQ's `stalledInterval`, runs every `stalledCheckEveryMs` from 0). The queue's own rule,
 * shared with the timeline's queue lane so that its "invisible … more" agrees with the queue.
 */
export function visibleAgainAtMs(untilMs: number, stalledCheckEveryMs: number | null): number {
  return stalledCheckEveryMs === null ? untilMs : Math.ceil(untilMs / stalledCheckEveryMs) * stalledCheckEveryMs;
}

/** An SQS-like queue holding the scenario's messages (resource name `queue`, trace kind `queue`). */
export class MessageQueue implements Resource<QueueCmd, QueueReply, readonly QueueMessageSnapshot[]> {
  readonly name = 'queue';
  readonly traceKind = 'queue';
  private readonly messages: Message[];
  private handles = 0;

  /** `bodies`: one message per body, ids `m1`, `m2`, … in order; `stalledCheckEveryMs`: null = SQS (visible again at the timeout). */
  constructor(readonly queueName: string, bodies: readonly string[], readonly stalledCheckEveryMs: number | null = null) {
    this.messages = bodies.map((body, i) => ({ messageId: `m${i + 1}`, body, handle: null, receivedBy: null, receiveCount: 0, invisibleUntilMs: null, returnsAtMs: null, handedBack: false, deleted: false }));
  }

  /** When a message whose timeout passes at `untilMs` is visible again. */
  private visibleFrom(untilMs: number): number {
    return visibleAgainAtMs(untilMs, this.stalledCheckEveryMs);
  }

  private isVisible(m: Message, nowMs: number): boolean {
    if (m.deleted) return false;
    return m.invisibleUntilMs === null || nowMs >= this.visibleFrom(m.invisibleUntilMs);
  }

  /** Executes one command for `caller` (a worker id) at `nowMs`. Never waits. */
  execute(nowMs: number, caller: string, cmd: QueueCmd): Execution<QueueCmd, QueueReply> {
    if (cmd.op === 'ReceiveMessage') {
      const m = this.messages.find((x) => this.isVisible(x, nowMs));
      if (!m) return { reply: { op: 'ReceiveMessage', messages: [] }, completions: NO_COMPLETIONS };
      this.handles += 1;
      m.handle = `rh-${this.handles}`;
      m.receivedBy = caller;
      m.receiveCount += 1;
      m.invisibleUntilMs = nowMs + cmd.visibilityTimeoutMs;
      m.returnsAtMs = null;
      m.handedBack = false;
      return { reply: { op: 'ReceiveMessage', messages: [{ messageId: m.messageId, receiptHandle: m.handle, body: m.body, receiveCount: m.receiveCount }] }, completions: NO_COMPLETIONS };
    }
    const m = this.messages.find((x) => x.handle === cmd.receiptHandle) ?? null;
    if (cmd.op === 'DeleteMessage') {
      if (m && !m.deleted) {
        m.deleted = true;
        m.invisibleUntilMs = null;
        return { reply: { op: 'DeleteMessage', deleted: true, messageId: m.messageId }, completions: NO_COMPLETIONS };
      }
      return { reply: { op: 'DeleteMessage', deleted: false, messageId: null }, completions: NO_COMPLETIONS };
    }
    if (!m || m.deleted || m.invisibleUntilMs === null || this.isVisible(m, nowMs)) {
      return { reply: { op: 'ChangeMessageVisibility', ok: false, error: 'AWS.SimpleQueueService.MessageNotInflight' }, completions: NO_COMPLETIONS };
    }
    m.invisibleUntilMs = nowMs + cmd.visibilityTimeoutMs;
    m.handedBack = cmd.visibilityTimeoutMs === 0;
    return { reply: { op: 'ChangeMessageVisibility', ok: true, visibleAtMs: this.visibleFrom(m.invisibleUntilMs) }, completions: NO_COMPLETIONS };
  }

  waits(): boolean {
    return false;
  }

  /** The request as the SQS API names it, e.g. `ReceiveMessage QueueUrl=jobs MaxNumberOfMessages=1 VisibilityTimeout=30`. */
  renderCommand(cmd: QueueCmd): string {
    return renderQueueCommand(cmd);
  }

  /** The reply as a client prints it: the messages, `200 OK`, or the error code. */
  renderReply(reply: QueueReply): string {
    return renderQueueReply(reply);
  }

  snapshot(nowMs: number): readonly QueueMessageSnapshot[] {
    return this.messages.map((m) => {
      const state = m.deleted ? 'deleted' : this.isVisible(m, nowMs) ? 'visible' : 'inFlight';
      return { messageId: m.messageId, body: m.body, state, receivedBy: state === 'inFlight' ? m.receivedBy : null, invisibleUntilMs: state === 'inFlight' ? m.invisibleUntilMs : null, receiveCount: m.receiveCount };
    });
  }

  /** The next moment a message in flight becomes visible again (its timeout, or the checker's next run after it). */
  nextWakeMs(): number | null {
    let next: number | null = null;
    for (const m of this.messages) {
      if (m.deleted || m.invisibleUntilMs === null || m.returnsAtMs !== null) continue;
      const at = this.visibleFrom(m.invisibleUntilMs);
      if (next === null || at < next) next = at;
    }
    return next;
  }

  /** Messages whose visibility timeout passed (or that the stalled-job checker moved back) are visible again. */
  wake(nowMs: number): readonly ResourceNotice[] {
    const out: ResourceNotice[] = [];
    for (const m of this.messages) {
      if (m.deleted || m.invisibleUntilMs === null || m.returnsAtMs !== null) continue;
      const at = this.visibleFrom(m.invisibleUntilMs);
      if (at > nowMs) continue;
      m.returnsAtMs = at;
      const who = m.receivedBy ?? 'its consumer';
      const narration = m.handedBack
        ? `${m.messageId} is visible again: ${who} handed it back, and the next ReceiveMessage delivers it to run from the start.`
        : this.stalledCheckEveryMs === null
        ? explained(`${m.messageId}'s visibility timeout passed without a DeleteMessage: it is visible again and the next ReceiveMessage delivers it`, `, whether or not ${who} is still working on it`)
        : explained(`The stalled-job checker finds ${m.messageId}'s lock expired (${who} did not extend or acknowledge it): it moves the job back to wait, and the next consumer takes it`, `, whether or not ${who} is still working on it`);
      out.push({ actor: 'queue', narration, data: { t: 'queue', op: 'visible', messageId: m.messageId, job: m.body } });
    }
    return out;
  }
}

/** A queue request as the SQS API names it, e.g. `ReceiveMessage QueueUrl=jobs MaxNumberOfMessages=1 VisibilityTimeout=30` (the trace's command text; the transcript's note). */
export function renderQueueCommand(cmd: QueueCmd): string {
  if (cmd.op === 'ReceiveMessage') return `ReceiveMessage QueueUrl=${cmd.queue} MaxNumberOfMessages=1 VisibilityTimeout=${secs(cmd.visibilityTimeoutMs)} AttributeNames=ApproximateReceiveCount`;
  if (cmd.op === 'DeleteMessage') return `DeleteMessage QueueUrl=${cmd.queue} ReceiptHandle=${cmd.receiptHandle}`;
  return `ChangeMessageVisibility QueueUrl=${cmd.queue} ReceiptHandle=${cmd.receiptHandle} VisibilityTimeout=${secs(cmd.visibilityTimeoutMs)}`;
}

/** A queue reply as a client prints it: the messages, `200 OK`, or the error code. */
export function renderQueueReply(reply: QueueReply): string {
  if (reply.op === 'ReceiveMessage') {
    const m = reply.messages[0];
    return m === undefined ? 'Messages: [] (none visible)' : `Messages: [MessageId=${m.messageId} ReceiptHandle=${m.receiptHandle} Body=${m.body} ApproximateReceiveCount=${m.receiveCount}]`;
  }
  if (reply.op === 'DeleteMessage') return '200 OK';
  return reply.ok ? '200 OK' : `400 ${reply.error}`;
}

/** The queue of a scenario: its `queue` block when that is an SQS-like queue (one message whose body is the job key), else an empty one. */
export function queueFor(s: Scenario): MessageQueue {
  const q = s.queue;
  if (q === undefined || q.kind !== 'sqs') return new MessageQueue('none', []);
  const body = s.job.kind === 'external' ? s.job.jobKey : s.id ?? 'job';
  return new MessageQueue(q.name, [body], q.stalledCheckEveryMs ?? null);
}
