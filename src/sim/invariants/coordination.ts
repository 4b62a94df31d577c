import type { CheckerContext, InvariantChecker, Finding } from './types';
import { FindingLog } from './types';
import type { CheckedEvent } from '../engine/trace';
import { sqlCallOf } from '../engine/trace';
import type { InvariantKind, Job, Step } from '../scenario/schema';
import { fmtList, fmtMs } from '../engine/fmt';

/** The states in which a worker is doing a step's work (not waiting, holding, releasing or paused). */
const DOING_STATES = new Set(['working', 'performingEffect', 'recordingCompletion']);
/** Step kinds that do the job's work (as opposed to taking, ending or giving back coordination). */
const DOING_STEPS = new Set<Step['do']>(['work', 'effect', 'record', 'enqueue', 'check', 'read']);

/**
 * The protected steps of a worker's job (indexes into `steps`): the critical section its author
 * wrote, whatever the mechanism does to enforce it — the steps after an `acquire` up to the next
 * `release` (or the end of the job). A read-modify-write job (`debit`, `reserve`) without an
 * `acquire` step protects its read-to-commit section instead (`read` … up to `commit`), which a
 * row lock would enforce. Only steps that do work count (`work`, `effect`, `record`, `enqueue`,
 * `check`, `read`): `begin`, `commit`, `connect`, `disconnect` do not.
 */
export function protectedSteps(steps: readonly Step[], job: Job): ReadonlySet<number> {
  const out = new Set<number>();
  const hasAcquire = steps.some((s) => s.do === 'acquire');
  const rowSection = !hasAcquire && (job.kind === 'debit' || job.kind === 'reserve');
  let inside = false;
  steps.forEach((s, i) => {
    if (s.do === 'acquire') inside = true;
    else if (s.do === 'release') inside = false;
    else if (rowSection && s.do === 'read') inside = true;
    else if (rowSection && s.do === 'commit') inside = false;
    if (inside && DOING_STEPS.has(s.do)) out.add(i);
  });
  return out;
}

/**
 * Reports each incident in which two or more workers were "inside" at once (per `inside`, read
 * from a worker's event: its state, step and beliefs after it) for a positive length of virtual
 * time — one finding per incident, whatever the number of workers: it names every worker that
 * was inside during it (revised when another joins) and cites the events at which each entered.
 * An incident ends when at most one worker is left inside; a later overlap is a new incident. A
 * worker that enters and leaves in the same millisecond overlaps no one. `finish(endMs)` counts an
 * incident still open at `endMs` (the run's horizon when it ran to it).
 */
function overlapCheck(kind: InvariantKind, listener: CheckerContext['listener'], inside: (e: CheckedEvent) => boolean | undefined, describe: (workers: readonly string[], fromMs: number) => string): InvariantChecker {
  const log = new FindingLog(listener);
  const since = new Map<string, { atMs: number; eventId: string }>();
  let incident: { fromMs: number; members: Map<string, string>; finding: Finding | null } | null = null;
  // An incident exists exactly while two or more are inside (onEvent keeps it so).
  const confirm = (nowMs: number) => {
    if (!incident || incident.fromMs >= nowMs) return;
    let grew = false;
    for (const [actor, s] of since) {
      if (s.atMs < nowMs && !incident.members.has(actor)) {
        incident.members.set(actor, s.eventId);
        grew = true;
      }
    }
    if (!grew || incident.members.size < 2) return;
    const workers = [...incident.members.keys()].sort();
    const next: Finding = { invariant: kind, severity: 'violation', message: describe(workers, incident.fromMs), eventIds: [...new Set(incident.members.values())].sort(byId) };
    incident.finding = incident.finding ? log.revise(incident.finding, next) : log.publish(next);
  };
  return {
    kind,
    findings: log.findings,
    onEvent(e) {
      confirm(e.atMs);
      const now = inside(e);
      if (now === undefined) return;
      if (now && !since.has(e.actor)) since.set(e.actor, { atMs: e.atMs, eventId: e.id });
      else if (!now && since.has(e.actor)) since.delete(e.actor);
      if (since.size < 2) incident = null;
      else incident ??= { fromMs: e.atMs, members: new Map(), finding: null };
    },
    finish(endMs) {
      confirm(endMs);
    },
  };
}

function byId(a: string, b: string): number {
  return Number(a.slice(1)) - Number(b.slice(1));
}


/**
 * No two workers inside the critical section at once, judged on what they do, not on what they
 * believe: a worker is inside while it runs one of its job's protected steps (`protectedSteps`)
 * — whatever the mechanism, `none` included — and is not waiting, paused, crashed or done.
 * Events of actors that are not scenario workers (the admin script) do not count.
 */
export function mutualExclusion({ scenario, listener }: CheckerContext): InvariantChecker {
  const sections = new Map(scenario.workers.map((w) => [w.id, protectedSteps(w.steps, scenario.job)]));
  return overlapCheck('mutualExclusion', listener, (e) => {
    const section = sections.get(e.actor);
    if (!section || e.state === undefined) return undefined;
    return DOING_STATES.has(e.state) && e.step !== undefined && section.has(e.step);
  }, (workers, from) => `${fmtList(workers)} were inside the critical section at the same time (from ${fmtMs(from)})`);
}

/** No two live workers believe they own the lease at once (a paused worker still believes). */
export function singleLeaseOwner({ listener }: CheckerContext): InvariantChecker {
  return overlapCheck('singleLeaseOwner', listener, (e) => (e.state === undefined ? undefined : e.state !== 'crashed' && e.state !== 'done' && e.beliefs?.ownsLease === true),
    (workers, from) => `${fmtList(workers)} ${workers.length > 2 ? 'all' : 'both'} believed they owned the lease (from ${fmtMs(from)})`);
}

/**
 * How a wait ended when the server ended it: the waiting statement's error (40P01 from the deadlock
 * check, 55P03 from lock_timeout, 57014 from statement_timeout), read from the event's reply data,
 * so a finding about a long wait also says what the database did about it. Empty otherwise.
 */
function waitEndedBy(e: CheckedEvent): string {
  const call = sqlCallOf(e);
  if (call === undefined) return '';
  const { reply: answer } = call;
  return answer.status === 'error' ? `, until its statement failed with ERROR ${answer.error.code} ${answer.error.message}` : '';
}

/** No worker waits longer than maxWaitMs for a lock or a connection; one still waiting when the run ends counts. */
export function boundedWait({ scenario, listener }: CheckerContext, maxWaitMs: number): InvariantChecker {
  const log = new FindingLog(listener);
  /** The workers waiting now: a wait ends at the worker's next event that is neither waiting nor paused (crashed and done included). */
  const since = new Map<string, { atMs: number; eventId: string; on: string }>();
  const report = (actor: string, waitedMs: number, start: { atMs: number; eventId: string; on: string }, endId: string | null, endedBy: string) => {
    log.publish({
      invariant: 'boundedWait',
      severity: 'violation',
      message: endId === null
        ? `${actor} was still waiting for ${start.on} when the run ended, ${fmtMs(waitedMs)} after it started (the limit is ${fmtMs(maxWaitMs)})`
        : `${actor} waited ${fmtMs(waitedMs)} for ${start.on}${endedBy} (the limit is ${fmtMs(maxWaitMs)})`,
      eventIds: endId === null ? [start.eventId] : [start.eventId, endId],
      ...(endId === null ? { untilMs: start.atMs + waitedMs } : {}),
    } satisfies Finding);
  };
  return {
    kind: 'boundedWait',
    findings: log.findings,
    onEvent(e) {
      if (e.state === undefined) return;
      const start = since.get(e.actor);
      if (e.state === 'waiting') {
        if (!start) since.set(e.actor, { atMs: e.atMs, eventId: e.id, on: e.kind === 'pool' ? 'a connection' : e.kind === 'redis' || e.kind === 'etcd' ? 'the lease' : 'a lock' });
        return;
      }
      if (e.state === 'paused' || !start) return;
      since.delete(e.actor);
      if (e.atMs - start.atMs > maxWaitMs) report(e.actor, e.atMs - start.atMs, start, e.id, waitEndedBy(e));
    },
    finish() {
      // Every worker still in `since` was waiting (or paused while waiting) at its last event.
      const endMs = scenario.horizonMs;
      for (const [actor, start] of since) if (endMs - start.atMs > maxWaitMs) report(actor, endMs - start.atMs, start, null, '');
    },
  };
}
