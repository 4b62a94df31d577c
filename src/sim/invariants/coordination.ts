import type { CheckerContext, InvariantChecker, Finding } from './types';
import { FindingLog } from './types';
import type { CheckedEvent } from '../engine/trace';
import type { InvariantKind } from '../scenario/schema';
import { fmtMs } from '../engine/fmt';

const CRITICAL = new Set(['working', 'performingEffect', 'recordingCompletion']);

/**
 * Reports two workers both "inside" (per `inside`, read from a worker's event: its state and
 * beliefs after it) for a positive length of virtual time: a worker that resumes and leaves in
 * the same millisecond overlaps no one.
 */
function overlapCheck(kind: InvariantKind, listener: CheckerContext['listener'], inside: (e: CheckedEvent) => boolean, describe: (a: string, b: string, fromMs: number) => string): InvariantChecker {
  const log = new FindingLog(listener);
  const since = new Map<string, { atMs: number; eventId: string }>();
  const reported = new Set<string>();
  const check = (e: CheckedEvent, nowMs: number) => {
    for (const [a, sa] of since) {
      for (const [b, sb] of since) {
        if (a >= b) continue;
        const from = Math.max(sa.atMs, sb.atMs);
        const pair = `${a}|${b}`;
        if (from >= nowMs || reported.has(pair)) continue;
        reported.add(pair);
        const ids = [sa.eventId, sb.eventId, e.id].sort((x, y) => Number(x.slice(1)) - Number(y.slice(1)));
        log.publish({ invariant: kind, severity: 'violation', message: describe(a, b, from), eventIds: [...new Set(ids)] });
      }
    }
  };
  return {
    kind,
    findings: log.findings,
    onEvent(e) {
      if (since.size > 1) check(e, e.atMs);
      if (e.state === undefined) return;
      const now = inside(e);
      if (now && !since.has(e.actor)) since.set(e.actor, { atMs: e.atMs, eventId: e.id });
      else if (!now && since.has(e.actor)) since.delete(e.actor);
    },
    finish(endMs, last) {
      if (last && since.size > 1) check(last, endMs);
    },
  };
}

/** No two workers inside the critical section at once: working or writing while believing they hold the lock or lease. */
export function mutualExclusion({ listener }: CheckerContext): InvariantChecker {
  return overlapCheck('mutualExclusion', listener, (e) => {
    const b = e.beliefs;
    return b !== undefined && (b.holdsLock || b.ownsLease) && CRITICAL.has(e.state!);
  }, (a, b, from) => `${a} and ${b} were inside the critical section at the same time (from ${fmtMs(from)})`);
}

/** No two live workers believe they own the lease at once (a paused worker still believes). */
export function singleLeaseOwner({ listener }: CheckerContext): InvariantChecker {
  return overlapCheck('singleLeaseOwner', listener, (e) => e.state !== 'crashed' && e.state !== 'done' && e.beliefs?.ownsLease === true,
    (a, b, from) => `${a} and ${b} both believed they owned the lease (from ${fmtMs(from)})`);
}

/** No worker waits longer than maxWaitMs for a lock or a connection; one still waiting when the run ends counts. */
export function boundedWait({ scenario, listener }: CheckerContext, maxWaitMs: number): InvariantChecker {
  const log = new FindingLog(listener);
  const since = new Map<string, { atMs: number; eventId: string; on: string }>();
  /** Each worker's state at its latest event. */
  const lastState = new Map<string, string>();
  const report = (actor: string, waitedMs: number, start: { eventId: string; on: string }, endId: string | null) => {
    log.publish({
      invariant: 'boundedWait',
      severity: 'violation',
      message: endId === null
        ? `${actor} was still waiting for ${start.on} when the run ended, ${fmtMs(waitedMs)} after it started (the limit is ${fmtMs(maxWaitMs)})`
        : `${actor} waited ${fmtMs(waitedMs)} for ${start.on} (the limit is ${fmtMs(maxWaitMs)})`,
      eventIds: endId === null ? [start.eventId] : [start.eventId, endId],
    } satisfies Finding);
  };
  return {
    kind: 'boundedWait',
    findings: log.findings,
    onEvent(e) {
      if (e.state === undefined) return;
      lastState.set(e.actor, e.state);
      const start = since.get(e.actor);
      if (e.state === 'waiting') {
        if (!start) since.set(e.actor, { atMs: e.atMs, eventId: e.id, on: e.kind === 'pool' ? 'a connection' : e.kind === 'redis' ? 'the lease' : 'a lock' });
        return;
      }
      if (e.state === 'paused' || !start) return;
      since.delete(e.actor);
      if (e.atMs - start.atMs > maxWaitMs) report(e.actor, e.atMs - start.atMs, start, e.id);
    },
    finish() {
      for (const [actor, start] of since) {
        const state = lastState.get(actor);
        const endMs = scenario.horizonMs;
        if (state !== 'crashed' && state !== 'done' && endMs - start.atMs > maxWaitMs) report(actor, endMs - start.atMs, start, null);
      }
    },
  };
}
