/**
 * The queue steps of a worker (scenario version 2): take a job from the scenario's `queue`, mark
 * a claimed row, extend a message's visibility while working, acknowledge the job — and the error
 * path's retry with backoff. Literal commands: the SQS API (`ReceiveMessage`, `DeleteMessage`,
 * `ChangeMessageVisibility`; src/sim/resources/messageQueue.ts) or SQL on a table of job rows
 * (`SELECT id FROM … WHERE status = 'pending' FOR UPDATE SKIP LOCKED`, `UPDATE … SET status = …`).
 * Sources: `../shared/semantics.md` "Queues and at-least-once delivery"; the SQS API reference;
 * PostgreSQL SELECT "The Locking Clause".
 *
 * Narration follows the reply: an SQS `DeleteMessage` answers 200 whether or not the handle was
 * still the latest, so its sentence says what the queue did with it (the model knows; the
 * consumer does not).
 */
import { explained } from '../engine/narration';
import type { World, WorkerRuntime } from '../engine/world';
import { fmtMs } from '../engine/fmt';
import type { MessageQueue, QueueReply } from '../resources/messageQueue';
import { MAX_VISIBILITY_TIMEOUT_MS } from '../resources/messageQueue';
import type { Stmt } from '../resources/sqlTypes';
import type { QueueConfig } from '../scenario/schema';
import { runSql } from './replyClass';

type SqsQueue = Extract<QueueConfig, { kind: 'sqs' }>;
type TableQueue = Extract<QueueConfig, { kind: 'table' }>;

function queueOf(world: World): MessageQueue {
  return world.resource<MessageQueue>('queue');
}

/** `receive`: ReceiveMessage (polling while empty) or the claim SELECT of a table queue. */
export function receive(world: World, w: WorkerRuntime): void {
  const q = world.scenario.queue;
  if (q === undefined) return world.jobs.done(w);
  world.send(w, 'WORK');
  if (q.kind === 'table') return claimRow(world, w, q);
  const reply = world.call(w.id, queueOf(world), { op: 'ReceiveMessage', queue: q.name, visibilityTimeoutMs: q.visibilityTimeoutMs }, (r: QueueReply) => {
    const m = r.op === 'ReceiveMessage' ? r.messages[0] : undefined;
    if (m === undefined) {
      const last = w.emptyReceives + 1 >= q.maxEmptyReceives;
      return `${w.id} asks ${q.name} for a message and gets none (every message is taken or gone)${last ? `; after ${q.maxEmptyReceives} empty receive${q.maxEmptyReceives === 1 ? '' : 's'} it stops` : `; it asks again in ${fmtMs(q.pollEveryMs)}`}.`;
    }
    const again = m.receiveCount > 1 ? ` — delivery ${m.receiveCount}: the message was received before and never deleted` : '';
    return `${w.id} receives ${m.messageId} (${m.body}) with receipt handle ${m.receiptHandle}; nobody else can receive it for ${fmtMs(q.visibilityTimeoutMs)}${again}.`;
  }, w);
  const m = reply.op === 'ReceiveMessage' ? reply.messages[0] : undefined;
  if (m === undefined) {
    w.emptyReceives += 1;
    if (w.emptyReceives >= q.maxEmptyReceives) return world.jobs.skipRest(w, 'noJob');
    world.at(world.nowMs + q.pollEveryMs, () => receive(world, w), w, true);
    return;
  }
  w.emptyReceives = 0;
  w.queueItem = { job: m.body, messageId: m.messageId, receiptHandle: m.receiptHandle, receiveCount: m.receiveCount, rowId: null };
  world.jobs.done(w);
}

function claimRow(world: World, w: WorkerRuntime, q: TableQueue): void {
  const lock = world.scenario.mechanism.rowLock === 'none' ? undefined : world.scenario.mechanism.rowLock;
  const stmt: Stmt = { op: 'select', table: q.table, columns: ['id'], where: { status: 'pending' }, ...(lock ? { lock } : {}) };
  const none = `${w.id} finds no pending job row${lock === 'forUpdateSkipLocked' ? ' it can lock (SKIP LOCKED passes over a row another transaction has locked)' : ''}: no job for it.`;
  const holds = lock === undefined ? explained('', ' (no lock: another worker can read it as pending too)', '') : world.beliefs(w).inTransaction ? ' and locks it until its transaction ends' : ' and locks it — but with no transaction open the lock ends with the statement';
  runSql(world, w, stmt, {
    ok: (r) => (r.rows[0] === undefined ? none : `${w.id} claims job row ${String(r.rows[0].id)} of ${q.table}${holds}.`),
    none: () => none,
    refused: () => none,
    error: (r) => `${w.id}'s claim fails: ${r.error.message}.`,
  }, (r) => {
    if (r.status === 'error') return world.jobs.fail(w, r.error.message, r.error.code);
    const id = r.status === 'ok' ? r.rows[0]?.id : undefined;
    if (typeof id !== 'number') return world.jobs.skipRest(w, 'noJob');
    w.queueItem = { job: `${q.table} id=${id}`, messageId: null, receiptHandle: null, receiveCount: 1, rowId: id };
    world.jobs.done(w);
  });
}

/** `markClaimed`: the table queue's `UPDATE … SET status = 'running', claimed_by = …` of the claimed row. */
export function markClaimed(world: World, w: WorkerRuntime): void {
  const q = world.scenario.queue;
  const id = w.queueItem?.rowId ?? null;
  if (q === undefined || q.kind !== 'table' || id === null) return world.jobs.done(w);
  world.send(w, 'WORK');
  const none = `${w.id}'s UPDATE matches no row (UPDATE 0): job row ${id} is not marked.`;
  runSql(world, w, { op: 'update', table: q.table, set: { status: 'running', claimed_by: w.id }, where: { id } }, {
    ok: () => `${w.id} marks job row ${id} as running, claimed by ${w.id}${world.beliefs(w).inTransaction ? '' : ' (in its own transaction: whoever read the row as pending meanwhile will claim it too)'}.`,
    none: () => none,
    refused: () => none,
    error: (r) => `${w.id}'s claim mark fails: ${r.error.message}.`,
  }, (r) => (r.status === 'error' ? world.jobs.fail(w, r.error.message, r.error.code) : world.jobs.done(w)));
}

/** `extendVisibility`: ChangeMessageVisibility with the queue's timeout again, counted from now. */
export function extendVisibility(world: World, w: WorkerRuntime): void {
  const q = world.scenario.queue;
  const item = w.queueItem;
  if (q === undefined || q.kind !== 'sqs' || item === null || item.receiptHandle === null) return world.jobs.done(w);
  world.send(w, 'WORK');
  changeVisibility(world, w, q, item.receiptHandle, q.visibilityTimeoutMs, (ok) => (ok
    ? `${w.id} extends ${item.messageId}'s visibility: nobody else can receive it for ${fmtMs(q.visibilityTimeoutMs)} from now.`
    : `${w.id} tries to extend ${item.messageId}'s visibility, but the message is no longer in flight under its receipt handle (MessageNotInflight): it was visible again, and may be in another consumer's hands.`));
  world.jobs.done(w);
}

function changeVisibility(world: World, w: WorkerRuntime, q: SqsQueue, receiptHandle: string, visibilityTimeoutMs: number, say: (ok: boolean) => string): boolean {
  const reply = world.call(w.id, queueOf(world), { op: 'ChangeMessageVisibility', queue: q.name, receiptHandle, visibilityTimeoutMs }, (r: QueueReply) => say(r.op === 'ChangeMessageVisibility' && r.ok), w);
  return reply.op === 'ChangeMessageVisibility' && reply.ok;
}

/** `ack`: DeleteMessage with the latest receipt handle it holds, or the table queue's `UPDATE … SET status = 'done'`. */
export function ack(world: World, w: WorkerRuntime): void {
  const q = world.scenario.queue;
  const item = w.queueItem;
  if (q === undefined || item === null) return world.jobs.done(w);
  world.send(w, 'RECORD');
  if (q.kind === 'table') {
    const none = `${w.id}'s UPDATE matches no row (UPDATE 0): job row ${String(item.rowId)} is not marked done.`;
    return runSql(world, w, { op: 'update', table: q.table, set: { status: 'done' }, where: { id: item.rowId } }, {
      ok: () => `${w.id} marks job row ${String(item.rowId)} as done.`,
      none: () => none,
      refused: () => none,
      error: (r) => `${w.id} could not mark the job done: ${r.error.message}.`,
    }, (r) => (r.status === 'error' ? world.jobs.fail(w, r.error.message, r.error.code) : world.jobs.done(w)));
  }
  world.call(w.id, queueOf(world), { op: 'DeleteMessage', queue: q.name, receiptHandle: item.receiptHandle ?? '' }, (r: QueueReply) => (r.op === 'DeleteMessage' && r.deleted
    ? `${w.id} acknowledges the job: DeleteMessage with receipt handle ${String(item.receiptHandle)} deletes ${String(item.messageId)} from ${q.name}.`
    : `${w.id} acknowledges the job with receipt handle ${String(item.receiptHandle)}: SQS answers 200, but that handle is no longer the message's latest (it was received again since), so the message stays in the queue.`), w);
  w.queueItem = null;
  world.jobs.done(w);
}

/**
 * The error path's hand-back of a received message (`queue.retryBackoffMs`): ChangeMessageVisibility
 * to the backoff doubled per earlier delivery (at most 12 h), so the job is retried after it rather
 * than after the whole visibility timeout. Does nothing without a message or a backoff.
 */
export function backOffOnError(world: World, w: WorkerRuntime): void {
  const q = world.scenario.queue;
  const item = w.queueItem;
  if (q === undefined || q.kind !== 'sqs' || item === null || item.receiptHandle === null) return;
  const base = q.retryBackoffMs ?? null;
  if (base === null) return;
  const backoffMs = Math.min(MAX_VISIBILITY_TIMEOUT_MS, base * 2 ** Math.min(30, item.receiveCount - 1));
  changeVisibility(world, w, q, item.receiptHandle, backoffMs, (ok) => (ok
    ? `${w.id}'s error path hands ${item.messageId} back with a backoff: it is visible again in ${fmtMs(backoffMs)} (delivery ${item.receiveCount}, so ${fmtMs(base)} × 2^${item.receiveCount - 1}).`
    : `${w.id}'s error path tries to hand ${item.messageId} back with a backoff, but the message is no longer in flight under its receipt handle (MessageNotInflight).`));
  w.queueItem = null;
}

/**
 * Shutdown: the worker hands the message it is working on back (`ChangeMessageVisibility` with
 * `VisibilityTimeout=0`), so it is visible at once and runs again from the start on whichever
 * consumer receives it next. Returns whether a message was handed back.
 */
export function handBackAtShutdown(world: World, w: WorkerRuntime): boolean {
  const q = world.scenario.queue;
  const item = w.queueItem;
  if (q === undefined || q.kind !== 'sqs' || item === null || item.receiptHandle === null) return false;
  const ok = changeVisibility(world, w, q, item.receiptHandle, 0, (done) => (done
    ? `${w.id} shuts down and pushes ${item.messageId} back (visibility 0): it is visible at once and will run again from the start on the next consumer.`
    : `${w.id} shuts down and tries to push ${item.messageId} back, but the message is no longer in flight under its receipt handle (MessageNotInflight).`));
  w.queueItem = null;
  return ok;
}
