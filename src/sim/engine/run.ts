/**
 * `runScenario(scenario) → RunResult`: builds the world, runs the event loop in virtual time up
 * to the horizon, feeds every event to the invariant checkers, and returns the trace, the verdict
 * (citing event ids), the metrics and the trace hash. Deterministic: same scenario, same result.
 */
import type { EtcdSnapshot } from '../resources/lockService';
import { World, EventLimitError } from './world';
import { traceHash, type TraceEvent } from './trace';
import { checkersFor, duplicateEffects, INVARIANT_TEXT, type Finding, type FindingListener } from '../invariants';
import { fmtList, fmtMs } from './fmt';
import { scheduleTimedFaults } from '../faults/apply';
import { createJobLifecycle } from '../workers/lifecycle';
import { DEFAULT_CLIENT, type Scenario } from '../scenario/schema';
import type { Beliefs, WorkerStateName } from '../workers/workerMachine';
import type { LockRow, WaitEdge } from '../resources/database';
import type { PgLockRow } from '../resources/pgLocks';
import type { Row } from '../resources/sqlTypes';
import type { DestinationSnapshot } from '../resources/destination';
import type { PoolSnapshot } from '../resources/connectionPool';

/**
 * How a run's verdict stands: every invariant `held` over a run that finished, one was
 * `violated` (a violation found is conclusive however the run ended), or `inconclusive`: nothing
 * was violated, but the run was cut short — by the event limit, or by its time horizon while a
 * worker had not finished its job — so it proves nothing.
 */
export type VerdictStatus = 'held' | 'violated' | 'inconclusive';

/** Why and where an inconclusive run stopped. */
export interface CutShort {
  /** `eventLimit`: the run produced LIMITS.maxEvents (or `maxEvents`) events; `horizon`: the horizon came while `unfinished` workers were still at their jobs. */
  readonly reason: 'eventLimit' | 'horizon';
  /** Events in the trace when it stopped. */
  readonly events: number;
  /** Virtual ms at which it stopped. */
  readonly atMs: number;
  /** Scenario workers that had not finished their job (neither done nor crashed), in scenario order. */
  readonly unfinished: readonly string[];
}

/** The verdict: did every declared invariant hold? Violations cite the events that broke them. */
export interface Verdict {
  /** `status === 'held'` (kept for readers that only ask "did it hold?"). */
  readonly held: boolean;
  readonly status: VerdictStatus;
  /** Set when `status` is `inconclusive`. */
  readonly cutShort?: CutShort;
  readonly violations: readonly Finding[];
  /**
   * Duplicates that are not violations: declared harmless ("redundant, not a violation"), or
   * repeats of an effect that no declared invariant checks (named so a Held verdict is never
   * silent about a duplicate the timeline marks).
   */
  readonly notes: readonly Finding[];
  /**
   * One line in words, e.g. "Violated: 2 rows exist for order_id = 42 in invoices", or
   * "Inconclusive — cut short at 20000 events / 312.4 s: …".
   */
  readonly summary: string;
}

/** Summary of a list of durations in ms. */
export interface Distribution {
  readonly count: number;
  readonly meanMs: number;
  readonly maxMs: number;
}

/** Per-run metrics. */
export interface RunMetrics {
  /** Lock/lease acquisition latency (request → grant). */
  readonly acquisitionLatency: Distribution;
  /**
   * Lock/lease requests not granted where the run was judged up to (its horizon, or where it
   * stopped; the cursor for the UI's metricsAt): how many, and the longest wait so far (ms, from the
   * request's first attempt). Absent when every request was granted or given up by then.
   */
  readonly acquisitionStillWaiting?: { readonly count: number; readonly maxMs: number };
  /**
   * Age of the holder's lease when it committed/finished its write: ms since the holder last took
   * or renewed it (a renewed lease is as young as its last renewal; `World.recordLeaseCommit`).
   */
  readonly leaseAgeAtCommit: Distribution;
  /**
   * Commits counted in `leaseAgeAtCommit` made when the lease store no longer held the committer's
   * owner token (its lease had expired, been deleted or taken by another owner). Absent when none.
   */
  readonly commitsOnLostLease?: number;
  /** Time spent waiting for a pooled connection. */
  readonly connectionWait: Distribution;
  readonly renewFailures: number;
  readonly staleWritesRejected: number;
  /** Duplicate effects: effects performed for a business key that already had one (`duplicateEffects` in src/sim/invariants/effects.ts). */
  readonly duplicateEffects: number;
  /**
   * Virtual ms of work done by attempts that did not complete the job (crashed, failed, stopped,
   * found it done): the `work` steps they ran, an interrupted one counted for the time it ran
   * (not its planned length, and not the time it was paused).
   */
  readonly wastedWorkMs: number;
  readonly events: number;
  /** Events processed by the worker machines (XState sends), the engine's unit of work. */
  readonly workerTransitions: number;
}

/**
 * What the world looked like right after one event (for the inspector and scrubbing): the time,
 * the workers, and each resource's fields (its ResourceDef's `snapshotFields`; the built-ins'
 * are typed here, a registered resource's are under its own keys).
 */
export interface WorldSnapshot {
  readonly atMs: number;
  readonly workers: readonly { readonly id: string; readonly state: WorkerStateName; readonly beliefs: Beliefs }[];
  readonly leases: readonly { readonly key: string; readonly value: string; readonly expiresAtMs: number | null; readonly pttlMs: number }[];
  readonly tables: Readonly<Record<string, readonly Row[]>>;
  /** Who holds and who waits for what (advisory holds, row locks, key waits): the timeline's database lane. */
  readonly locks: readonly LockRow[];
  /** `pg_locks` as PostgreSQL shows it (no row-lock holders: those live in the tuple header), for the inspector. */
  readonly pgLocks: readonly PgLockRow[];
  /** The database's wait-for graph (who waits for whom, by session; see `Database.waitForGraph`). Optional: snapshots stored before it existed lack it. */
  readonly waitFor?: readonly WaitEdge[];
  readonly destination: DestinationSnapshot;
  readonly pool: PoolSnapshot;
  /** Fields of registered resources beyond the built-ins. */
  readonly [resourceField: string]: unknown;
}

/**
 * The lease keys of a snapshot wherever the lease lives: etcd's keys (`lockService`, each with its
 * lease's expiry as the key's) or the Redis lease store's, in the shape of `WorldSnapshot.leases`.
 */
export function leaseEntriesOf(snap: WorldSnapshot): WorldSnapshot['leases'] {
  const etcd = snap.lockService as EtcdSnapshot | undefined;
  if (etcd === undefined) return snap.leases;
  return etcd.keys.map((k) => ({ key: k.key, value: k.value, expiresAtMs: k.expiresAtMs, pttlMs: k.expiresAtMs === null ? -1 : k.expiresAtMs - snap.atMs }));
}

/** Everything a run produces. */
export interface RunResult {
  readonly scenario: Scenario;
  readonly events: readonly TraceEvent[];
  readonly verdict: Verdict;
  readonly metrics: RunMetrics;
  /** Stable hash of the events (see traceHash); computed when first read. */
  readonly traceHash: string;
  /** Virtual time of the last processed event. */
  readonly endMs: number;
  /**
   * Virtual ms up to which the checkers judged the run: its horizon when it ran to it (a state no
   * later event ended lasted until then), else where it stopped. Give it to `checkTrace` to re-check
   * the stored trace.
   */
  readonly checkedToMs: number;
  /** When each of the scenario's faults fired (virtual ms), by index; null for a fault that never fired (e.g. its step was never reached). */
  readonly faultTimesMs: readonly (number | null)[];
  /** When each worker first reached each of its steps (virtual ms; null: never reached), by worker id then step index. */
  readonly stepReachedMs: Readonly<Record<string, readonly (number | null)[]>>;
  /** Set when the run stopped early (too many events). */
  readonly error?: string;
  /** With `captureSnapshots`, one per event, aligned with `events`. */
  readonly snapshots?: readonly WorldSnapshot[];
  /** Set when `stopAtFirstViolation` stopped the run before its horizon. */
  readonly stopped?: 'violation';
}

/** Options for a run. The defaults suit a person; a fault search wants `stopAtFirstViolation`, `onFinding` and `text: false`. */
export interface RunOptions {
  /** Capture a WorldSnapshot after every event (the UI's scrubbing cache). Off by default. */
  readonly captureSnapshots?: boolean;
  /** Override LIMITS.maxEvents. */
  readonly maxEvents?: number;
  /**
   * Stop as soon as a checker publishes a violation (after the queue item that produced it): the
   * result has `stopped: 'violation'`, the events up to there, and the verdict so far.
   */
  readonly stopAtFirstViolation?: boolean;
  /** Hears every finding as it is published (a revision names the finding it replaces). */
  readonly onFinding?: FindingListener;
  /**
   * With `false`, events carry no rendered texts (empty `narration`, no `command` or `reply`):
   * the checkers read data only, so the verdict, the metrics and every event's data are the
   * same, but the trace hash is that of the text-less trace (not comparable with a normal run's).
   */
  readonly text?: boolean;
}

function distribution(values: readonly number[]): Distribution {
  if (values.length === 0) return { count: 0, meanMs: 0, maxMs: 0 };
  let sum = 0;
  let max = 0;
  for (const v of values) {
    sum += v;
    if (v > max) max = v;
  }
  return { count: values.length, meanMs: Math.round(sum / values.length), maxMs: max };
}

/** Takes a WorldSnapshot of the world now. */
export function snapshotWorld(world: World): WorldSnapshot {
  const snap: Record<string, unknown> = {
    atMs: world.nowMs,
    workers: [...world.workers.values()].map((w) => ({ id: w.id, state: world.stateOf(w), beliefs: world.beliefs(w) })),
  };
  for (const def of world.resourceKinds) {
    const r = world.resource(def.name);
    Object.assign(snap, def.snapshotFields ? def.snapshotFields(r, world.nowMs, world.scenario) : { [def.name]: r.snapshot(world.nowMs) });
  }
  return snap as WorldSnapshot;
}

/**
 * Runs a validated scenario (see validateScenario) to its horizon. Never throws for a valid
 * scenario: a run that exceeds the event limit stops and reports `error`. The same as
 * `startRun(input, options)` advanced to its end.
 */
export function runScenario(input: Scenario, options: RunOptions = {}): RunResult {
  const run = startRun(input, options);
  run.advance(Infinity);
  return run.result();
}

/**
 * A run that proceeds in pieces, so that a caller with a frame to keep (the UI's idle-time
 * prefetch of a long run) can spread one simulation over several slices. Each piece is a number
 * of the world's steps (queue items: an event loop turn in virtual time), never wall-clock time:
 * the result is the one `runScenario` gives, byte for byte, however the steps are split.
 */
export interface RunInProgress {
  /**
   * Runs up to `steps` more world steps (`Infinity`: to the end). Returns true while the run has
   * more to do, false once it is over (its horizon, its event limit, or `stopAtFirstViolation`).
   * After `cancel` or the end, does nothing and returns false.
   */
  advance(steps: number): boolean;
  /** Whether the run is over (`result` may be read). */
  readonly done: boolean;
  /** The run's result, computed once. Throws an Error if the run is not over or was cancelled. */
  result(): RunResult;
  /** Abandons the run: its workers' actors are stopped; `advance` does nothing from then on. */
  cancel(): void;
}

/** Starts a run of a validated scenario (see `runScenario`); no step is taken until `advance`. */
export function startRun(input: Scenario, options: RunOptions = {}): RunInProgress {
  // A scenario that skipped parseScenario (a raw version-1 object) runs with version 1's client.
  const scenario: Scenario = (input as Partial<Scenario>).client === undefined ? { ...input, client: { ...DEFAULT_CLIENT } } : input;
  const world = new World(scenario, options.maxEvents, options.text ?? true);
  world.jobs = createJobLifecycle(world);
  let violated = false;
  const onFinding = options.onFinding;
  const listener: FindingListener | undefined = options.stopAtFirstViolation || onFinding
    ? (finding, revises) => {
        if (finding.severity === 'violation') violated = true;
        onFinding?.(finding, revises);
      }
    : undefined;
  const checkers = checkersFor(scenario, listener);
  const stopEarly = options.stopAtFirstViolation === true;
  const snapshots: WorldSnapshot[] | undefined = options.captureSnapshots ? [] : undefined;
  world.onEvent = (event) => {
    for (const c of checkers) c.onEvent(event);
    if (snapshots) snapshots.push(snapshotWorld(world));
  };
  for (const w of world.workers.values()) world.at(w.spec.startMs, () => world.jobs.start(w), w);
  scheduleTimedFaults(world);
  let error: string | undefined;
  let over = false;
  let cancelled = false;
  let result: RunResult | null = null;
  return {
    advance(steps: number): boolean {
      if (over || cancelled) return false;
      try {
        for (let i = 0; i < steps; i++) {
          if ((stopEarly && violated) || !world.step(scenario.horizonMs)) {
            over = true;
            break;
          }
        }
      } catch (e) {
        if (!(e instanceof EventLimitError)) throw e;
        error = e.message;
        over = true;
      }
      // A violation published by the last step ends the run now, not at the next call.
      if (stopEarly && violated) over = true;
      return !over;
    },
    get done() {
      return over;
    },
    result(): RunResult {
      if (cancelled) throw new Error('startRun: the run was cancelled');
      if (!over) throw new Error('startRun: the run is not over (advance it to its end first)');
      // `stopped` is read after the checkers finish: a violation they find at the end (a lock still
      // held) marks the run stopped too, as runScenario always said.
      return (result ??= finishRun(scenario, world, checkers, error, stopEarly && violated, () => stopEarly && violated, snapshots));
    },
    cancel(): void {
      if (cancelled || result) return;
      cancelled = true;
      for (const w of world.workers.values()) w.actor.stop();
    },
  };
}

/** The result of a run that is over: the checkers judge it, the metrics are counted, the actors stopped. */
function finishRun(scenario: Scenario, world: World, checkers: ReturnType<typeof checkersFor>, error: string | undefined, stoppedEarly: boolean, stoppedAfterFinish: () => boolean, snapshots: WorldSnapshot[] | undefined): RunResult {
  const lastEvent = world.events[world.events.length - 1];
  // Checkers see the run up to its horizon when it ran to it: a state that no later event ended
  // (two workers inside from 30 s) lasted until then. A run cut short is judged up to where it stopped.
  const ranToEnd = error === undefined && !stoppedEarly;
  const checkedToMs = ranToEnd ? Math.max(world.nowMs, scenario.horizonMs) : world.nowMs;
  for (const c of checkers) c.finish(checkedToMs, lastEvent);
  const findings = checkers.flatMap((c) => c.findings);
  const stopped = stoppedAfterFinish();
  const unfinished = scenario.workers.filter((w) => {
    const rt = world.workers.get(w.id);
    const st = rt ? world.stateOf(rt) : 'done';
    return st !== 'done' && st !== 'crashed';
  }).map((w) => w.id);
  const cut: CutShort | null = error !== undefined
    ? { reason: 'eventLimit', events: world.events.length, atMs: world.nowMs, unfinished }
    : ranToEnd && unfinished.length > 0 ? { reason: 'horizon', events: world.events.length, atMs: checkedToMs, unfinished } : null;
  const verdict = verdictOf(scenario, findings, cut);
  const m = world.metrics;
  const duplicates = duplicateEffects(scenario, world.events);
  // Requests still outstanding where the run was judged (a worker still waiting, or paused while waiting).
  const stillWaiting = [...world.workers.values()].flatMap((w) => {
    const st = world.stateOf(w);
    return w.requestStartMs !== null && st !== 'done' && st !== 'crashed' ? [checkedToMs - w.requestStartMs] : [];
  });
  const metrics: RunMetrics = {
    acquisitionLatency: distribution(m.acquisitionLatencyMs),
    ...(stillWaiting.length > 0 ? { acquisitionStillWaiting: { count: stillWaiting.length, maxMs: Math.max(...stillWaiting) } } : {}),
    leaseAgeAtCommit: distribution(m.leaseAgeAtCommitMs),
    ...(m.commitsOnLostLease > 0 ? { commitsOnLostLease: m.commitsOnLostLease } : {}),
    connectionWait: distribution(m.connectionWaitMs),
    renewFailures: m.renewFailures,
    staleWritesRejected: m.staleWritesRejected,
    duplicateEffects: duplicates.length,
    wastedWorkMs: m.wastedWorkMs + [...world.workers.values()].reduce((sum, w) => sum + (world.stateOf(w) === 'crashed' ? w.workMs : 0), 0),
    events: world.events.length,
    workerTransitions: world.transitions,
  };
  for (const w of world.workers.values()) w.actor.stop();
  const events = world.events;
  let hash: string | null = null;
  return {
    scenario,
    events,
    verdict,
    metrics,
    // Computed on first read (and then kept): a fault search runs thousands of simulations and reads only verdicts.
    get traceHash(): string {
      return (hash ??= traceHash(events));
    },
    endMs: world.nowMs,
    checkedToMs,
    faultTimesMs: scenario.faults.map((_, i) => world.faultFiredAtMs[i] ?? null),
    stepReachedMs: Object.fromEntries([...world.workers.values()].map((w) => [w.id, w.spec.steps.map((_s, i) => w.stepReachedMs[i] ?? null)])),
    ...(error !== undefined ? { error } : {}),
    ...(snapshots ? { snapshots } : {}),
    ...(stopped ? { stopped: 'violation' as const } : {}),
  };
}

/**
 * The verdict from the checkers' findings: violated if any finding is a violation; else
 * inconclusive if the run was cut short (`cut`); else held. The summary says which, in words.
 */
export function verdictOf(scenario: Scenario, findings: readonly Finding[], cut: CutShort | null): Verdict {
  const violations = findings.filter((f) => f.severity === 'violation');
  const notes = findings.filter((f) => f.severity !== 'violation');
  const noteText = notes.length > 0 ? ` Note: ${notes.map((n) => n.message).join('; ')}.` : '';
  if (violations.length > 0) {
    return { held: false, status: 'violated', violations, notes, summary: `Violated: ${violations.map((v) => v.message).join('; ')}.` };
  }
  if (cut !== null) {
    const why = cut.reason === 'eventLimit'
      ? `the run reached the event limit before it was over`
      : `the ${fmtMs(scenario.horizonMs)} horizon came while ${fmtList(cut.unfinished)} had not finished`;
    return {
      held: false, status: 'inconclusive', cutShort: cut, violations, notes,
      summary: `Inconclusive — cut short at ${cut.events} events / ${fmtMs(cut.atMs)}: ${why}; nothing was violated before then, which proves nothing.${noteText}`,
    };
  }
  const said = notes.length > 0 ? notes.map((n) => n.message) : scenario.invariants.map((i) => INVARIANT_TEXT[i.kind]);
  return { held: true, status: 'held', violations, notes, summary: `Held: ${said.join('; ')}.` };
}

