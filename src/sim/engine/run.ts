/**
 * `runScenario(scenario) → RunResult`: builds the world, runs the event loop in virtual time up
 * to the horizon, feeds every event to the invariant checkers, and returns the trace, the verdict
 * (citing event ids), the metrics and the trace hash. Deterministic: same scenario, same result.
 */
import { World, EventLimitError } from './world';
import { traceHash, type TraceEvent } from './trace';
import { checkersFor, INVARIANT_TEXT, type Finding, type FindingListener } from '../invariants';
import { scheduleTimedFaults } from '../faults/apply';
import { createJobLifecycle } from '../workers/lifecycle';
import { DEFAULT_CLIENT, type Scenario } from '../scenario/schema';
import type { Beliefs, WorkerStateName } from '../workers/workerMachine';
import type { LockRow } from '../resources/database';
import type { Row } from '../resources/sqlTypes';
import type { DestinationSnapshot } from '../resources/destination';
import type { PoolSnapshot } from '../resources/connectionPool';

/** The verdict: did every declared invariant hold? Violations cite the events that broke them. */
export interface Verdict {
  readonly held: boolean;
  readonly violations: readonly Finding[];
  /** Declared-harmless duplicates ("redundant, not a violation"). */
  readonly notes: readonly Finding[];
  /** One line in words, e.g. "Violated: 2 rows exist for order_id = 42 in invoices". */
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
  /** Age of the holder's lease when it committed/finished its write. */
  readonly leaseAgeAtCommit: Distribution;
  /** Time spent waiting for a pooled connection. */
  readonly connectionWait: Distribution;
  readonly renewFailures: number;
  readonly staleWritesRejected: number;
  /** Effects performed beyond the first. */
  readonly duplicateEffects: number;
  /** Virtual ms of work done by attempts that did not complete the job (crashed, failed, stopped, found it done). */
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
  readonly locks: readonly LockRow[];
  readonly destination: DestinationSnapshot;
  readonly pool: PoolSnapshot;
  /** Fields of registered resources beyond the built-ins. */
  readonly [resourceField: string]: unknown;
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
  /** When each of the scenario's faults fired (virtual ms), by index; null for a fault that never fired (e.g. its step was never reached). */
  readonly faultTimesMs: readonly (number | null)[];
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
 * scenario: a run that exceeds the event limit stops and reports `error`.
 */
export function runScenario(input: Scenario, options: RunOptions = {}): RunResult {
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
  try {
    while (!(stopEarly && violated) && world.step(scenario.horizonMs));
  } catch (e) {
    if (!(e instanceof EventLimitError)) throw e;
    error = e.message;
  }
  const lastEvent = world.events[world.events.length - 1];
  for (const c of checkers) c.finish(world.nowMs, lastEvent);
  const findings = checkers.flatMap((c) => c.findings);
  const violations = findings.filter((f) => f.severity === 'violation');
  const notes = findings.filter((f) => f.severity === 'redundant');
  const verdict: Verdict = {
    held: violations.length === 0,
    violations,
    notes,
    summary: violations.length > 0
      ? `Violated: ${violations.map((v) => v.message).join('; ')}.`
      : notes.length > 0
        ? `Held: ${notes.map((n) => n.message).join('; ')}.`
        : `Held: ${scenario.invariants.map((i) => INVARIANT_TEXT[i.kind]).join('; ')}.`,
  };
  const m = world.metrics;
  const performed = duplicateBase(world);
  const metrics: RunMetrics = {
    acquisitionLatency: distribution(m.acquisitionLatencyMs),
    leaseAgeAtCommit: distribution(m.leaseAgeAtCommitMs),
    connectionWait: distribution(m.connectionWaitMs),
    renewFailures: m.renewFailures,
    staleWritesRejected: m.staleWritesRejected,
    duplicateEffects: Math.max(0, performed - 1),
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
    faultTimesMs: scenario.faults.map((_, i) => world.faultFiredAtMs[i] ?? null),
    ...(error !== undefined ? { error } : {}),
    ...(snapshots ? { snapshots } : {}),
    ...(stopEarly && violated ? { stopped: 'violation' as const } : {}),
  };
}

/** Effects performed: destination writes for external jobs, committed rows for insertOnce jobs. */
function duplicateBase(world: World): number {
  const job = world.scenario.job;
  if (job.kind === 'insertOnce') {
    const key = Object.entries(job.key);
    return world.db.committedRows(job.table).filter((r) => key.every(([c, v]) => r[c] === v)).length;
  }
  return world.destination.allWrites().filter((w) => w.performed).length;
}
