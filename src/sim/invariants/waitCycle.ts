/**
 * Liveness: no wait cycle through the application. PostgreSQL finds a wait cycle inside the
 * database after `deadlock_timeout` and fails one statement with 40P01 (the engine runs that
 * check); a cycle that passes through application code — worker A waits for a Redis lease held by
 * B while B's statement waits in the database for A's row or advisory lock — is invisible to it and
 * hangs until a timeout ends it (../shared/semantics.md, "PostgreSQL advisory locks": "A cycle that
 * passes through application code … is invisible to PostgreSQL and hangs").
 *
 * Read from event data only: who holds which database session (pool events), who holds the lease
 * (lease events), who waits for whom (a database `waits` reply names the blocking session; a
 * refused `SET … NX` waits for the lease's holder). A wait ends at the worker's `wait end` event,
 * its successful `SET NX`, or when the worker is done or crashed. Each worker waits for at most
 * one other, so a cycle is found by following the chain from each waiter. Only cycles with at
 * least one wait outside the database are reported (a cycle inside it is the deadlock detector's).
 */
import type { CheckedEvent } from '../engine/trace';
import { sqlCallOf } from '../engine/trace';
import type { CheckerContext, Finding, InvariantChecker, WaitCycleEdge } from './types';
import { FindingLog } from './types';
import type { DbReply } from '../resources/sqlTypes';

/** The database reply of a statement that waits, if the call is one. */
function waitsReply(call: ReturnType<typeof sqlCallOf>): Extract<DbReply, { status: 'waits' }> | undefined {
  if (call === undefined) return undefined;
  const { reply } = call;
  return reply.status === 'waits' ? reply : undefined;
}

interface Wait extends WaitCycleEdge {
  readonly eventId: string;
}

/** The `noWaitCycle` checker (see the module comment). Publishes one finding per cycle (by its set of workers). */
export function noWaitCycle({ listener }: CheckerContext): InvariantChecker {
  const log = new FindingLog(listener);
  /** Database session → the worker holding it. */
  const sessionOwner = new Map<string, string>([['admin', 'admin']]);
  /** Lease key → the worker believed to hold it, by the lease events. */
  const leaseHolder = new Map<string, string>();
  const waits = new Map<string, Wait>();
  const reported = new Set<string>();

  const track = (e: CheckedEvent): void => {
    const call = e.call;
    if (call?.resource === 'pool') {
      const { command, reply } = call as { command: { op: string; connection?: string }; reply: { status: string; connection?: string } };
      if (command.op === 'connect' && reply.status === 'ok' && reply.connection !== undefined) sessionOwner.set(reply.connection, call.caller);
      else if (command.op !== 'connect' && command.connection !== undefined) sessionOwner.delete(command.connection);
    }
    if (e.data?.t === 'lease') {
      const { op, key, worker } = e.data;
      if ((op === 'acquired' || op === 'renewed') && worker !== undefined) leaseHolder.set(key, worker);
      else if (op === 'released' || op === 'deleted' || op === 'expired' || op === 'lost') leaseHolder.delete(key);
    }
    if (e.state === 'done' || e.state === 'crashed') waits.delete(e.actor);
    if (e.data?.t === 'wait' && e.data.phase === 'end') waits.delete(e.actor);
    const dbWait = waitsReply(sqlCallOf(e));
    if (dbWait?.blockerSession !== undefined) {
      const blocker = dbWait.blockerSession;
      const to = sessionOwner.get(blocker);
      if (to !== undefined && to !== e.actor) waits.set(e.actor, { from: e.actor, to, on: 'db', what: `${dbWait.on.replace(`session ${blocker}`, `${to} (session ${blocker})`)}, in the database`, eventId: e.id });
    }
    if (call?.resource === 'etcd') {
      // An etcd lock's acquire transaction: a failed compare means the key is held (like SET NX → nil).
      const { command, reply } = call as { command: { op: string; key?: string }; reply: { op: string; succeeded?: boolean } };
      if (command.op === 'txnAcquire' && command.key !== undefined && reply.op === 'txnAcquire') {
        const holder = leaseHolder.get(command.key);
        if (reply.succeeded === true) waits.delete(e.actor);
        else if (holder !== undefined && holder !== e.actor && waits.get(e.actor)?.to !== holder) {
          waits.set(e.actor, { from: e.actor, to: holder, on: 'lease', what: `${holder}'s lock ${command.key} (etcd)`, eventId: e.id });
        }
      }
    }
    if (call?.resource === 'redis') {
      const { command, reply } = call as { command: { op: string; key?: string; nx?: boolean }; reply: { kind: string } };
      if (command.op === 'SET' && command.nx === true && command.key !== undefined) {
        const holder = leaseHolder.get(command.key);
        if (reply.kind === 'ok') waits.delete(e.actor);
        else if (reply.kind === 'nil' && holder !== undefined && holder !== e.actor && waits.get(e.actor)?.to !== holder) {
          waits.set(e.actor, { from: e.actor, to: holder, on: 'lease', what: `${holder}'s lease ${command.key}`, eventId: e.id });
        }
      }
    }
  };

  /** The cycle through `start`, if following each worker's one wait comes back to it. */
  const cycleFrom = (start: string): Wait[] | null => {
    const path: Wait[] = [];
    for (let at = start; ;) {
      const w = waits.get(at);
      if (!w || path.some((p) => p.from === w.from)) return null;
      path.push(w);
      if (w.to === start) return path;
      at = w.to;
    }
  };

  const check = (e: CheckedEvent): void => {
    for (const start of [...waits.keys()].sort()) {
      const cycle = cycleFrom(start);
      if (!cycle || cycle.every((w) => w.on === 'db')) continue;
      const key = cycle.map((w) => w.from).sort().join('|');
      if (reported.has(key)) continue;
      reported.add(key);
      const names = [...cycle.map((w) => w.from), start].join('→');
      const ids = [...new Set([...cycle.map((w) => w.eventId), e.id])].sort((a, b) => Number(a.slice(1)) - Number(b.slice(1)));
      log.publish({
        invariant: 'noWaitCycle',
        severity: 'violation',
        message: `stuck: wait cycle ${names} (${cycle.map((w) => `${w.from} waits for ${w.what}`).join('; ')}); PostgreSQL cannot see the wait outside the database, so nothing breaks it`,
        eventIds: ids,
        cycle: cycle.map(({ from, to, on, what }) => ({ from, to, on, what })),
      } satisfies Finding);
    }
  };

  return {
    kind: 'noWaitCycle',
    findings: log.findings,
    onEvent(e) {
      track(e);
      if (waits.size > 1) check(e);
    },
    finish() {},
  };
}
