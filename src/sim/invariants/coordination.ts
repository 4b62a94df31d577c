import type { InvariantChecker, Finding } from './types';
import type { World } from '../engine/world';
import type { TraceEvent } from '../engine/trace';
import { fmtMs } from '../engine/fmt';

const CRITICAL = new Set(['working', 'performingEffect', 'recordingCompletion']);

/**
 * Reports two workers both "inside" (per `inside`) for a positive length of virtual time: a
 * worker that resumes and leaves in the same millisecond overlaps no one.
 */
function overlapCheck(kind: 'mutualExclusion' | 'singleLeaseOwner', inside: (world: World, id: string) => boolean, describe: (a: string, b: string, fromMs: number) => string): InvariantChecker {
  const findings: Finding[] = [];
  const since = new Map<string, { atMs: number; eventId: string }>();
  const reported = new Set<string>();
  const check = (world: World, e: TraceEvent) => {
    for (const [a, sa] of since) {
      for (const [b, sb] of since) {
        if (a >= b) continue;
        const from = Math.max(sa.atMs, sb.atMs);
        const pair = `${a}|${b}`;
        if (from >= world.nowMs || reported.has(pair)) continue;
        reported.add(pair);
        const ids = [sa.eventId, sb.eventId, e.id].sort((x, y) => Number(x.slice(1)) - Number(y.slice(1)));
        findings.push({ invariant: kind, severity: 'violation', message: describe(a, b, from), eventIds: [...new Set(ids)] });
      }
    }
  };
  return {
    kind,
    findings,
    onEvent(e, world) {
      if (since.size > 1) check(world, e);
      if (e.state === undefined || !world.workers.has(e.actor)) return;
      const now = inside(world, e.actor);
      if (now && !since.has(e.actor)) since.set(e.actor, { atMs: e.atMs, eventId: e.id });
      else if (!now && since.has(e.actor)) since.delete(e.actor);
    },
    finish(world) {
      const last = world.events[world.events.length - 1];
      if (last && since.size > 1) check(world, last);
    },
  };
}

/** No two workers inside the critical section at once: working or writing while believing they hold the lock or lease. */
export function mutualExclusion(): InvariantChecker {
  return overlapCheck('mutualExclusion', (world, id) => {
    const w = world.workers.get(id)!;
    const b = world.beliefs(w);
    return (b.holdsLock || b.ownsLease) && CRITICAL.has(world.stateOf(w));
  }, (a, b, from) => `${a} and ${b} were inside the critical section at the same time (from ${from / 1000} s)`);
}

/** No two live workers believe they own the lease at once (a paused worker still believes). */
export function singleLeaseOwner(): InvariantChecker {
  return overlapCheck('singleLeaseOwner', (world, id) => {
    const w = world.workers.get(id)!;
    return world.isAlive(w) && world.beliefs(w).ownsLease;
  }, (a, b, from) => `${a} and ${b} both believed they owned the lease (from ${from / 1000} s)`);
}

/** No worker waits longer than maxWaitMs for a lock or a connection; one still waiting when the run ends counts. */
export function boundedWait(maxWaitMs: number): InvariantChecker {
  const findings: Finding[] = [];
  const since = new Map<string, { atMs: number; eventId: string; on: string }>();
  const report = (actor: string, waitedMs: number, start: { eventId: string; on: string }, endId: string | null) => {
    findings.push({
      invariant: 'boundedWait',
      severity: 'violation',
      message: endId === null
        ? `${actor} was still waiting for ${start.on} when the run ended, ${fmtMs(waitedMs)} after it started (the limit is ${fmtMs(maxWaitMs)})`
        : `${actor} waited ${fmtMs(waitedMs)} for ${start.on} (the limit is ${fmtMs(maxWaitMs)})`,
      eventIds: endId === null ? [start.eventId] : [start.eventId, endId],
    });
  };
  return {
    kind: 'boundedWait',
    findings,
    onEvent(e) {
      if (e.state === undefined) return;
      const start = since.get(e.actor);
      if (e.state === 'waiting') {
        if (!start) since.set(e.actor, { atMs: e.atMs, eventId: e.id, on: e.kind === 'pool' ? 'a connection' : e.kind === 'redis' ? 'the lease' : 'a lock' });
        return;
      }
      if (e.state === 'paused' || !start) return;
      since.delete(e.actor);
      if (e.atMs - start.atMs > maxWaitMs) report(e.actor, e.atMs - start.atMs, start, e.id);
    },
    finish(world) {
      for (const [actor, start] of since) {
        const w = world.workers.get(actor);
        const endMs = world.scenario.horizonMs;
        if (w && world.isAlive(w) && endMs - start.atMs > maxWaitMs) report(actor, endMs - start.atMs, start, null);
      }
    },
  };
}
