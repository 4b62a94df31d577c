/**
 * Invariants of a queue (scenario version 2), read from the events' data only (`call`: the queue's
 * commands and replies, the database's statements and committed rows):
 * - `jobCompletesWithin`: every delivered job is acknowledged within T of its first delivery — a
 *   liveness check, so a job that starves (never acknowledged, or acknowledged too late) fails
 *   the run. Delivered: a `ReceiveMessage` that returned the message, or a table queue's claim
 *   `SELECT` that returned the row. Acknowledged: a `DeleteMessage` that deleted it, or the row
 *   committed with `status = 'done'`. Exactly T is in time.
 * - `oneClaimPerJob`: a table queue's job row is claimed at most once: every change of its
 *   committed `claimed_by` to another worker is another claim (`../shared/semantics.md`, "Queues
 *   and at-least-once delivery": claiming in one transaction and marking in another lets two
 *   workers take one job).
 */
import { fmtMs } from '../engine/fmt';
import { sqlCallOf, type CheckedEvent } from '../engine/trace';
import type { QueueCmd, QueueReply } from '../resources/messageQueue';
import { FindingLog, type CheckerContext, type Finding, type InvariantChecker } from './types';

type QueueCall = { readonly resource: 'queue'; readonly caller: string; readonly command: QueueCmd; readonly reply: QueueReply };

function queueCallOf(e: CheckedEvent): QueueCall | undefined {
  return e.call?.resource === 'queue' ? (e.call as QueueCall) : undefined;
}

/** The table of the scenario's table queue, or null. */
function queueTable(ctx: CheckerContext): string | null {
  const q = ctx.scenario.queue;
  return q !== undefined && q.kind === 'table' ? q.table : null;
}

/** The job a table queue's claim SELECT delivered (`job_queue id=7`), if this event is one. */
function claimedRow(e: CheckedEvent, table: string | null): string | null {
  const call = sqlCallOf(e);
  if (table === null || call === undefined || call.command.op !== 'select' || call.command.table !== table || call.reply.status !== 'ok') return null;
  const id = call.reply.rows[0]?.id;
  return id === undefined ? null : `${table} id=${String(id)}`;
}

/** Every delivered job is acknowledged within `withinMs` of its first delivery. */
export function jobCompletesWithin(ctx: CheckerContext, withinMs: number): InvariantChecker {
  const log = new FindingLog(ctx.listener);
  const table = queueTable(ctx);
  const jobs = new Map<string, { readonly atMs: number; readonly eventId: string; done: boolean }>();
  const jobOfMessage = new Map<string, string>();
  const late = (job: string, d: { atMs: number; eventId: string }, endMs: number, endId: string | null) => {
    log.publish({
      invariant: 'jobCompletesWithin',
      severity: 'violation',
      message: endId === null
        ? `job ${job}, first delivered at ${fmtMs(d.atMs)}, was still not acknowledged when the run ended ${fmtMs(endMs - d.atMs)} later (the limit is ${fmtMs(withinMs)})`
        : `job ${job} was acknowledged ${fmtMs(endMs - d.atMs)} after its first delivery (the limit is ${fmtMs(withinMs)})`,
      eventIds: endId === null ? [d.eventId] : [d.eventId, endId],
      ...(endId === null ? { untilMs: endMs } : {}),
    } satisfies Finding);
  };
  const deliver = (job: string, e: CheckedEvent) => {
    if (!jobs.has(job)) jobs.set(job, { atMs: e.atMs, eventId: e.id, done: false });
  };
  const complete = (job: string, e: CheckedEvent) => {
    const d = jobs.get(job);
    if (d === undefined || d.done) return;
    d.done = true;
    if (e.atMs - d.atMs > withinMs) late(job, d, e.atMs, e.id);
  };
  return {
    kind: 'jobCompletesWithin',
    findings: log.findings,
    onEvent(e) {
      const call = queueCallOf(e);
      if (call !== undefined) {
        if (call.reply.op === 'ReceiveMessage') {
          const m = call.reply.messages[0];
          if (m !== undefined) {
            jobOfMessage.set(m.messageId, m.body);
            deliver(m.body, e);
          }
        } else if (call.reply.op === 'DeleteMessage' && call.reply.deleted && call.reply.messageId !== null) {
          const job = jobOfMessage.get(call.reply.messageId);
          if (job !== undefined) complete(job, e);
        }
        return;
      }
      const claimed = claimedRow(e, table);
      if (claimed !== null) return deliver(claimed, e);
      const rows = table === null ? undefined : sqlCallOf(e)?.committed?.[table];
      for (const row of rows ?? []) if (row.status === 'done') complete(`${table} id=${String(row.id)}`, e);
    },
    finish(endMs) {
      for (const [job, d] of jobs) if (!d.done && endMs - d.atMs > withinMs) late(job, d, endMs, null);
    },
  };
}

/** A table queue's job row is claimed (committed as claimed by a worker) at most once. */
export function oneClaimPerJob(ctx: CheckerContext): InvariantChecker {
  const log = new FindingLog(ctx.listener);
  const table = queueTable(ctx);
  const claims = new Map<string, { worker: string; eventId: string }[]>();
  const published = new Map<string, Finding>();
  return {
    kind: 'oneClaimPerJob',
    findings: log.findings,
    onEvent(e) {
      const rows = table === null ? undefined : sqlCallOf(e)?.committed?.[table];
      for (const row of rows ?? []) {
        const by = row.claimed_by;
        if (typeof by !== 'string') continue;
        const id = String(row.id);
        const list = claims.get(id) ?? [];
        if (list[list.length - 1]?.worker === by) continue;
        list.push({ worker: by, eventId: e.id });
        claims.set(id, list);
        if (list.length < 2) continue;
        const f: Finding = {
          invariant: 'oneClaimPerJob',
          severity: 'violation',
          message: `job row ${id} of ${String(table)} was claimed ${list.length} times: by ${list.map((c) => c.worker).join(', then by ')}`,
          eventIds: list.map((c) => c.eventId),
        };
        const old = published.get(id);
        published.set(id, old === undefined ? log.publish(f) : log.revise(old, f));
      }
    },
    finish() {},
  };
}
