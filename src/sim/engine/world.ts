/**
 * The world of one run: the virtual clock, the event queue, the resources (database, connection
 * pool, lease store, destination) and the workers' runtimes. Step logic lives in
 * src/sim/workers/steps.ts, the job lifecycle in src/sim/workers/lifecycle.ts (reached through
 * `world.jobs`), faults in src/sim/faults/apply.ts; this file schedules, emits trace
 * events and routes replies. Pure: no real time, randomness only from the seeded Rng.
 */
import { splitNarration } from './narration';
import { createActor, type Actor } from 'xstate';
import { EventQueue } from './eventQueue';
import { fmtMs } from './fmt';
import { Rng } from './rng';
import type { EventData, ResourceCall, TraceEvent, TraceKind } from './trace';
import { tablesFor } from './tables';
import { lockInWords, type Database, type WaitCycle } from '../resources/database';
import type { CommittedRows, DbReply, Stmt } from '../resources/sqlTypes';
import { idleInTransactionTimeoutError, statementTimeoutError } from '../resources/sqlErrors';
import type { LeaseStore } from '../resources/leaseStore';
import { REDIS_TIMEOUT_MESSAGE, type RedisCmd, type RedisReply } from '../resources/redisTypes';
import { ETCD_TIMEOUT_MESSAGE, etcdError, type EtcdCmd, type EtcdLockService, type EtcdReply } from '../resources/lockService';
import type { ConnectionPool } from '../resources/connectionPool';
import type { Destination, DestinationWrite } from '../resources/destination';
import { resourceDefs, type Completion, type Resource, type ResourceDef, type ResourceNotice } from '../resources/resource';
// Registers the built-in resources (a side effect no bundler may drop, whatever it makes of the types below).
import '../resources/builtinResources';
import type { SqlCompletion, SqlResource, RedisResource, PoolResource, DestinationResource, DestinationCmd, PoolCmd, PoolReply } from '../resources/builtinResources';
import type { PoolerResource, PoolerCmd, PoolerReply } from '../resources/pooler';
import type { Row } from '../resources/sqlTypes';
import { DEFAULT_DEADLOCK_TIMEOUT_MS, LIMITS, type Scenario, type WorkerSpec } from '../scenario/schema';
import { workerMachine, stateName, type Beliefs, type WorkerEvent, type WorkerOutcome, type WorkerStateName } from '../workers/workerMachine';

/** A worker's runtime: its machine, where it is in its steps, its timers and what it waits for. */
export interface WorkerRuntime {
  readonly id: string;
  readonly spec: WorkerSpec;
  readonly actor: Actor<typeof workerMachine>;
  /** Index of the current step. */
  pc: number;
  /** Timer generation: bumping it cancels every pending timer of the worker (crash, finish). */
  gen: number;
  /** Renewal timer generation (bumped on release/crash). */
  renewGen: number;
  /** Paused until this virtual ms (exclusive), or null. */
  pausedUntilMs: number | null;
  /**
   * The renewal timer (only it) is stalled until `untilMs` (the `renewalStall` fault), or null;
   * `say` narrates, as that fault's event, a renewal that falls due meanwhile.
   */
  renewStall: { readonly untilMs: number; readonly say: (narration: string) => void } | null;
  pauseMs: number;
  /** Cut off from the lease store until this virtual ms, or null. */
  cutOffUntilMs: number | null;
  /** Continuation of a waiting database statement or pool borrow (set by World.park, cleared by World.unpark / cancelWait). */
  waitingK: ((reply: DbReply | string) => void) | null;
  /** Narration (and belief update) for the waiting statement's eventual reply. */
  waitingNarrate: ReplyHandler<DbReply, string> | null;
  /** Which resource it waits for (a resource name: `db`, `pool`), or null. */
  waitKind: string | null;
  waitSinceMs: number;
  /** Destination write in flight. */
  writeId: number | null;
  /** This worker inserted a 'pending' job record (enqueue step). */
  enqueued: boolean;
  /** The step index of the `begin` that opened the worker's current transaction (where a retried transaction starts again), or null. */
  txnStartPc: number | null;
  /** How many times the framework has re-run a transaction of this job after a 40001 (`database.serializationRetries`). */
  txnRetries: number;
  /** Destination calls made inside the current transaction (a rollback cannot undo them). */
  effectsInTxn: number;
  /** `workMs` when the current transaction began: a retried transaction's work since then is thrown away. */
  workMsAtTxnStart: number;
  /** Set when the job skips its remaining work (found the result, sold out, stopped): only commit/release/disconnect steps still run. */
  cleanupOnly: boolean;
  /** How the job will end when its steps run out. */
  outcome: WorkerOutcome;
  /**
   * Virtual ms of `work` steps run in the current attempt (wasted if the attempt does not
   * complete): a step counts its planned length when it starts, cut back to the time it ran if a
   * crash interrupts it (`crash`).
   */
  workMs: number;
  /** The `work` step running now (cleared when a step ends): when it started, its planned length, and `pausedTotalMs` then. */
  workStep: { readonly startMs: number; readonly plannedMs: number; readonly pausedBeforeMs: number } | null;
  /** Virtual ms this worker has spent paused (ended pauses), and when the current pause began (null if not paused). */
  pausedTotalMs: number;
  pauseStartedMs: number | null;
  /**
   * When the lock or lease request the worker is making now started (its first attempt), or null
   * when none is outstanding: set when an acquisition starts, cleared at the grant and when the job
   * gives it up, fails or the worker crashes (a wait still open at the end: `acquisitionStillWaiting`).
   */
  requestStartMs: number | null;
  /** When the worker first reached each step (its `before` boundary), by step index; a fault search places faults there. */
  stepReachedMs: (number | undefined)[];
  /**
   * The job this worker took from the scenario's queue (the `receive` step), or null: the message
   * and its latest receipt handle (SQS-like), or the claimed row's id (table queue). What the
   * worker believes it holds; the queue may have given it to another since.
   */
  queueItem: { readonly job: string; readonly messageId: string | null; readonly receiptHandle: string | null; readonly receiveCount: number; readonly rowId: number | null } | null;
  /** Empty receives in a row in the current attempt (the `receive` step polls up to `queue.maxEmptyReceives`). */
  emptyReceives: number;
  /**
   * The helper the current step called (a step with `helper`, version 2): it runs the step's SQL on
   * a second connection from the worker's pool — `connection`, null until borrowed — while the
   * worker keeps its own; null when no helper runs.
   */
  helper: { connection: string | null } | null;
  /** The pool borrow the worker waits for (its command, and a number that tells this wait from later ones), or null. */
  poolWait: { readonly cmd: PoolCmd; readonly seq: number } | null;
  /**
   * The etcd lease the worker's client holds (`lockService`): its id, TTL (s) and when it was
   * granted or last kept alive — what the client knows, not whether etcd still has it. Null before
   * a grant and once the client learnt it is gone (revoked, not found).
   */
  etcdLease: { readonly id: string; readonly ttlS: number; sinceMs: number } | null;
}

/** A fresh runtime (and started machine) for a worker that has not begun its job. */
export function newRuntime(spec: WorkerSpec): WorkerRuntime {
  const actor = createActor(workerMachine);
  actor.start();
  return {
    id: spec.id, spec, actor, pc: 0, gen: 0, renewGen: 0, pausedUntilMs: null, renewStall: null, pauseMs: 0, cutOffUntilMs: null,
    waitingK: null, waitingNarrate: null, waitKind: null, waitSinceMs: 0, writeId: null, enqueued: false, txnStartPc: null, txnRetries: 0, effectsInTxn: 0, workMsAtTxnStart: 0, cleanupOnly: false, outcome: 'completed', workMs: 0, requestStartMs: null, stepReachedMs: [],
    workStep: null, pausedTotalMs: 0, pauseStartedMs: null, queueItem: null, emptyReceives: 0,
    helper: null, poolWait: null, etcdLease: null,
  };
}

/**
 * A scheduled callback; `worker` + `gen` make it cancellable; `shiftable` timers move by a pause's
 * length, others fire at resume. `live` (optional) is asked when the item comes due: false drops
 * it without moving the clock (a deadlock timer whose wait has ended is no part of the run).
 */
interface QueueItem {
  readonly worker: WorkerRuntime | null;
  readonly gen: number;
  readonly shiftable: boolean;
  readonly fn: () => void;
  readonly live?: () => boolean;
}

/** Per-run measurements (see RunMetrics in run.ts for the summary). */
export interface RawMetrics {
  acquisitionLatencyMs: number[];
  /** Per commit on a lease: ms since the committer last took or renewed it (`World.recordLeaseCommit`). */
  leaseAgeAtCommitMs: number[];
  /** Commits made when the lease store no longer held the committer's owner token (expired, deleted, another owner's). */
  commitsOnLostLease: number;
  connectionWaitMs: number[];
  renewFailures: number;
  staleWritesRejected: number;
  wastedWorkMs: number;
}

/** A narration with structured data for the event. */
export interface Narrated {
  readonly text: string;
  readonly data: EventData;
}

/**
 * How a caller takes a reply. `believe` changes what the worker believes (and the run's
 * metrics) from the reply; it runs first, so the event shows the new state. `say` words the
 * event from the reply and what it can read, and changes nothing. A bare function is a `say`.
 */
export type ReplyHandler<R, S = string | Narrated> = ((reply: R) => S) | { readonly believe?: (reply: R) => void; readonly say: (reply: R) => S };

/** Runs a handler's `believe` (if any), then returns what its `say` says. */
export function takeReply<R, S>(handler: ReplyHandler<R, S>, reply: R): S {
  if (typeof handler === 'function') return handler(reply);
  handler.believe?.(reply);
  return handler.say(reply);
}

/**
 * A worker's job lifecycle as the rest of the engine calls it (implemented by
 * src/sim/workers/lifecycle.ts and set as `world.jobs` before a run): steps, coordination and
 * faults reach it through the world instead of importing it, which keeps the modules acyclic.
 */
export interface JobLifecycle {
  /** Starts (or restarts) the job at its first step. */
  start(w: WorkerRuntime): void;
  /** The current step has finished; the next one starts after `delayMs` (default 0; moved by pauses). */
  done(w: WorkerRuntime, delayMs?: number): void;
  /** Skips the rest of the job's work (only commit/release/disconnect steps still run) and ends with `outcome`. */
  skipRest(w: WorkerRuntime, outcome: WorkerOutcome): void;
  /**
   * The job throws: its error path runs (rollback, unlock in finally, release, give the connection
   * back). `sqlState` is the SQLSTATE of the statement that threw, if one did: a 40001 inside a
   * transaction is retried from its `begin` when `database.serializationRetries` allows.
   */
  fail(w: WorkerRuntime, reason: string, sqlState?: string): void;
}

const NO_LIFECYCLE: JobLifecycle = {
  start: missingLifecycle, done: missingLifecycle, skipRest: missingLifecycle, fail: missingLifecycle,
};
function missingLifecycle(): never {
  throw new Error('world.jobs is not set: runScenario sets it (createJobLifecycle in src/sim/workers/lifecycle.ts)');
}

/** Thrown when a run exceeds LIMITS.maxEvents (an input that would hang the tab). */
export class EventLimitError extends Error {
  constructor(readonly limit: number) {
    super(`the run produced more than ${limit} events; shorten horizonMs or lengthen retryEveryMs`);
  }
}

/** The mutable world of one run. Create with the validated scenario, then `run.ts` drives it. */
export class World {
  nowMs = 0;
  readonly rng: Rng;
  readonly queue = new EventQueue<QueueItem>();
  readonly events: TraceEvent[] = [];
  /** Every resource of the run, by registry name (see src/sim/resources/resource.ts). */
  readonly resources = new Map<string, Resource>();
  /** The scenario's table names (see tables.ts), computed once. */
  private readonly tableNames: readonly string[];
  /** The resource kinds this world was built from, in creation order. */
  readonly resourceKinds: readonly ResourceDef[];
  /** The built-in resources' adapters and models (the model classes are what steps and checkers read). */
  readonly sqlResource: SqlResource;
  readonly redisResource: RedisResource;
  readonly poolResource: PoolResource;
  /** PgBouncer between the pool and the database (mode null: the scenario has none). */
  readonly poolerResource: PoolerResource;
  readonly destinationResource: DestinationResource;
  /** The lock service (etcd); idle unless the scenario's lease lives there (`lockService`). */
  readonly etcd: EtcdLockService;
  readonly db: Database;
  readonly pool: ConnectionPool;
  readonly leases: LeaseStore;
  readonly destination: Destination;
  readonly workers = new Map<string, WorkerRuntime>();
  /** Session id → worker id holding it (pooled connections and the admin's own session). */
  readonly sessionOwner = new Map<string, string>();
  readonly metrics: RawMetrics = { acquisitionLatencyMs: [], leaseAgeAtCommitMs: [], commitsOnLostLease: 0, connectionWaitMs: [], renewFailures: 0, staleWritesRejected: 0, wastedWorkMs: 0 };
  /** Called after every emitted event (invariant checkers, snapshot capture). */
  onEvent: ((event: TraceEvent) => void) | null = null;
  private readonly maxEvents: number;
  /** The database's `deadlock_timeout`, virtual ms (scenario `database.deadlockTimeoutMs`, default 1000). */
  readonly deadlockTimeoutMs: number;
  /** The database's `statement_timeout`, virtual ms, or null when off (scenario `database.statementTimeoutMs`). */
  readonly statementTimeoutMs: number | null;
  /** The database's `idle_in_transaction_session_timeout`, virtual ms, or null when off. */
  readonly idleInTransactionTimeoutMs: number | null;
  /** Per session: the token of its statement now running (waiting), or of its last statement's end while idle; a server timer fires only if its token is still the session's. */
  private readonly sessionActivity = new Map<string, number>();
  private activitySeq = 0;
  /** Numbers pool waits (`WorkerRuntime.poolWait`), so an acquire timeout ends only the wait it was set for. */
  private poolWaitSeq = 0;
  /** Waits (`waitId`s) whose deadlock timer is scheduled: one per wait, as PostgreSQL arms one per lock wait. */
  private readonly deadlockTimers = new Set<number>();
  /** Wake-ups scheduled per resource (virtual ms), so one time is scheduled once. */
  private readonly wakeChecks = new Map<Resource, Set<number>>();
  /** Indexes of step-placed faults that have fired (each fires once per run, even across restarts). */
  readonly firedStepFaults = new Set<number>();
  /** When each fault of the scenario fired (virtual ms), by index; undefined if it has not. */
  readonly faultFiredAtMs: (number | undefined)[] = [];
  /** Events sent to worker machines so far (the benchmark's "worker transitions"). */
  transitions = 0;
  /** The job lifecycle (start, next step, fail, finish); set by runScenario. */
  jobs: JobLifecycle = NO_LIFECYCLE;

  /**
   * @param maxEvents stop with EventLimitError past this many events.
   * @param text render the texts of events (narration, command, reply); false for runs read by machines only.
   */
  constructor(readonly scenario: Scenario, maxEvents: number = LIMITS.maxEvents, readonly text: boolean = true) {
    this.maxEvents = maxEvents;
    this.deadlockTimeoutMs = scenario.database.deadlockTimeoutMs ?? DEFAULT_DEADLOCK_TIMEOUT_MS;
    this.statementTimeoutMs = scenario.database.statementTimeoutMs ?? null;
    this.idleInTransactionTimeoutMs = scenario.database.idleInTransactionSessionTimeoutMs ?? null;
    this.rng = new Rng(scenario.seed);
    const host = { resource: <R extends Resource>(name: string): R => this.resource<R>(name) };
    this.tableNames = tablesFor(scenario).map((t) => t.name);
    this.resourceKinds = [...resourceDefs()];
    for (const def of this.resourceKinds) this.resources.set(def.name, def.create(scenario, host));
    this.sqlResource = this.resource<SqlResource>('db');
    this.redisResource = this.resource<RedisResource>('redis');
    this.poolResource = this.resource<PoolResource>('pool');
    this.poolerResource = this.resource<PoolerResource>('pooler');
    this.destinationResource = this.resource<DestinationResource>('destination');
    this.etcd = this.resource<EtcdLockService>('etcd');
    this.db = this.sqlResource.db;
    this.leases = this.redisResource.store;
    this.pool = this.poolResource.pool;
    this.destination = this.destinationResource.destination;
    for (const spec of scenario.workers) {
      this.workers.set(spec.id, newRuntime(spec));
    }
  }

  // ---- scheduling ---------------------------------------------------------------------------

  /** Runs `fn` at `atMs`; with a worker, the timer dies if the worker's generation changes. */
  at(atMs: number, fn: () => void, worker: WorkerRuntime | null = null, shiftable = false): void {
    if (atMs < this.nowMs) throw new RangeError(`scheduled at ${atMs} ms, before the current ${this.nowMs} ms: virtual time never runs backwards`);
    this.queue.push(atMs, { worker, gen: worker ? worker.gen : 0, shiftable, fn });
  }

  /** Pops and runs one queue item; returns false when the queue is empty or past the horizon. */
  step(horizonMs: number): boolean {
    const next = this.queue.peek();
    if (!next || next.atMs > horizonMs) return false;
    this.queue.pop();
    if (next.item.live !== undefined && !next.item.live()) return true;
    this.nowMs = next.atMs;
    const { worker, gen, shiftable, fn } = next.item;
    if (worker) {
      if (worker.gen !== gen) return true; // cancelled
      if (worker.pausedUntilMs !== null && this.nowMs < worker.pausedUntilMs) {
        // A paused worker runs nothing: its step timers move by the pause, everything else waits for the resume.
        this.queue.push(shiftable ? next.atMs + worker.pauseMs : worker.pausedUntilMs, next.item);
        return true;
      }
    }
    fn();
    return true;
  }

  // ---- workers ------------------------------------------------------------------------------

  /** Sends an event (with an optional belief patch) to the worker's machine. */
  send(w: WorkerRuntime, type: WorkerEvent['type'], patch?: Partial<Beliefs>): void {
    if (w.actor.getSnapshot().status !== 'active') return; // a finished worker takes no more events
    this.transitions += 1;
    w.actor.send(patch ? ({ type, patch } as WorkerEvent) : ({ type } as WorkerEvent));
  }

  /**
   * Records one commit of `w` on its lease (the lease-age-at-commit metric): the lease's age since
   * `w` last took or renewed it — its last `lease` event `acquired` or `renewed` in the trace, else
   * its beliefs' `acquiredAtMs` — and, from the store itself (Redis, or etcd with `lockService`),
   * whether the key still holds `w`'s owner token now: expired, deleted or another owner's value
   * counts as a commit on a lost lease. Reads state; emits nothing.
   */
  recordLeaseCommit(w: WorkerRuntime): void {
    const b = this.beliefs(w);
    const key = this.scenario.lease.key;
    let sinceMs = b.acquiredAtMs ?? this.nowMs;
    for (let i = this.events.length - 1; i >= 0; i--) {
      const d = this.events[i]!.data;
      if (d?.t === 'lease' && (d.op === 'acquired' || d.op === 'renewed') && d.worker === w.id && d.key === key) {
        sinceMs = Math.max(sinceMs, this.events[i]!.atMs);
        break;
      }
    }
    const entry = this.scenario.lockService !== undefined
      ? this.etcd.snapshot(this.nowMs).keys.find((k) => k.key === key && (k.expiresAtMs === null || k.expiresAtMs > this.nowMs))
      : this.leases.entries(this.nowMs).find((k) => k.key === key);
    this.metrics.leaseAgeAtCommitMs.push(this.nowMs - sinceMs);
    if (entry === undefined || b.ownerToken === null || entry.value !== b.ownerToken) this.metrics.commitsOnLostLease += 1;
  }

  beliefs(w: WorkerRuntime): Beliefs {
    return w.actor.getSnapshot().context;
  }

  stateOf(w: WorkerRuntime): WorkerStateName {
    return stateName(w.actor.getSnapshot().value);
  }

  isAlive(w: WorkerRuntime): boolean {
    const s = this.stateOf(w);
    return s !== 'crashed' && s !== 'done';
  }

  /**
   * Pauses the worker for `pauseMs` from now (a stop-the-world GC, a VM migration): it runs
   * nothing; its step timers move by the pause. A pause during a pause extends it. Returns the
   * virtual ms at which the pause ends (call `resume` then).
   */
  pause(w: WorkerRuntime, pauseMs: number): number {
    const until = this.nowMs + pauseMs;
    if (w.pausedUntilMs !== null && this.nowMs < w.pausedUntilMs) {
      w.pauseMs += Math.max(0, until - w.pausedUntilMs);
      w.pausedUntilMs = Math.max(until, w.pausedUntilMs);
    } else {
      w.pausedUntilMs = until;
      w.pauseMs = pauseMs;
      w.pauseStartedMs = this.nowMs;
      this.send(w, 'PAUSE');
    }
    return until;
  }

  /** Ends the worker's pause if it is due now (not extended, not crashed meanwhile); true if it resumed. */
  resume(w: WorkerRuntime): boolean {
    if (w.pausedUntilMs === null || this.nowMs < w.pausedUntilMs || this.stateOf(w) !== 'paused') return false;
    w.pausedUntilMs = null;
    this.endPause(w);
    this.send(w, 'RESUME');
    return true;
  }

  /** Cancels the worker's timers and whatever it waits for (its database statement with 57014, its place in the pool queue). */
  interrupt(w: WorkerRuntime): void {
    w.gen += 1;
    if (w.waitKind === 'pool') this.poolResource.cancelWait(w.id);
    w.poolWait = null;
    if (w.waitKind === 'pooler') this.poolerResource.cancelWait(w.id);
    if (w.waitKind === 'db') {
      const session = this.sessionOf(w);
      w.waitingK = null;
      if (session !== null) this.deliverCompletions(this.sqlResource.cancelWaiting(session, { code: '57014', message: 'canceling statement due to user request' }));
    }
    this.cancelWait(w);
  }

  /**
   * The worker's process dies: its timers, wait, renewals and pause end, and its job's outcome is
   * `crashed`. Returns its destination write in flight, aborted, with the event data (null if
   * none); the caller sends CRASH and closes its connection.
   */
  crash(w: WorkerRuntime): { readonly write: DestinationWrite; readonly call: ResourceCall } | null {
    this.interrupt(w);
    w.renewGen += 1;
    w.requestStartMs = null;
    w.pausedUntilMs = null;
    this.endPause(w);
    if (w.workStep !== null) {
      // Only the part of the interrupted work step that ran is work done (and thrown away).
      const ranMs = this.nowMs - w.workStep.startMs - (w.pausedTotalMs - w.workStep.pausedBeforeMs);
      w.workMs -= w.workStep.plannedMs - Math.min(w.workStep.plannedMs, Math.max(0, ranMs));
      w.workStep = null;
    }
    let aborted: { readonly write: DestinationWrite; readonly call: ResourceCall } | null = null;
    if (w.writeId !== null) {
      aborted = this.destinationCall(w.id, { op: 'abort', writeId: w.writeId });
      w.writeId = null;
    }
    w.outcome = 'crashed';
    return aborted;
  }

  /** Adds the current pause (if any) to the worker's paused time. */
  private endPause(w: WorkerRuntime): void {
    if (w.pauseStartedMs === null) return;
    w.pausedTotalMs += this.nowMs - w.pauseStartedMs;
    w.pauseStartedMs = null;
  }

  /** A crashed worker's process starts again: old timers stay dead, its network comes back. */
  restart(w: WorkerRuntime): void {
    w.gen += 1;
    w.cutOffUntilMs = null;
  }

  /** Cuts the worker off from the lease store until `untilMs` (its Redis commands time out). */
  cutOff(w: WorkerRuntime, untilMs: number): void {
    w.cutOffUntilMs = untilMs;
  }

  /** The worker is parked: waiting for a database statement or a pooled connection. */
  isParked(w: WorkerRuntime): boolean {
    return w.waitingK !== null;
  }

  /** A fresh `admin` runtime with its own psql session (no pool), replacing a finished one. */
  spawnAdmin(): WorkerRuntime {
    const firstRun = !this.workers.has('admin');
    const admin = newRuntime({ id: 'admin', startMs: this.nowMs, steps: [{ do: 'effect', ms: 0 }] });
    this.workers.set('admin', admin);
    if (firstRun) this.db.openSession('admin');
    this.sessionOwner.set('admin', 'admin');
    this.send(admin, 'BELIEVE', { connection: 'admin' });
    return admin;
  }

  // ---- trace ----------------------------------------------------------------------------------

  /** Appends a trace event at the current time. Throws EventLimitError past the event limit. */
  emit(actor: string, kind: TraceKind, narration: string, extra?: { command?: string; reply?: string; data?: EventData; worker?: WorkerRuntime; call?: ResourceCall }): TraceEvent {
    if (this.events.length >= this.maxEvents) throw new EventLimitError(this.maxEvents);
    // Built field by field (no spreads): this is the engine's hottest allocation.
    const text = this.text;
    const event: { -readonly [K in keyof TraceEvent]: TraceEvent[K] } = { id: `e${this.events.length + 1}`, atMs: this.nowMs, actor, kind, narration: '' };
    if (text) {
      // A sentence worded with `explained` keeps its fact apart (./narration.ts).
      const said = splitNarration(narration);
      event.narration = said.narration;
      if (said.fact !== undefined) event.fact = said.fact;
    }
    if (extra !== undefined) {
      if (text && extra.command !== undefined) event.command = extra.command;
      if (text && extra.reply !== undefined) event.reply = extra.reply;
      if (extra.worker !== undefined) event.state = this.stateOf(extra.worker);
      if (extra.data !== undefined) event.data = extra.data;
      if (extra.worker !== undefined) {
        event.beliefs = this.beliefs(extra.worker);
        event.step = extra.worker.pc;
      }
      if (extra.call !== undefined) event.call = extra.call;
    }
    this.events.push(event);
    this.onEvent?.(event);
    return event;
  }

  // ---- resources --------------------------------------------------------------------------

  /** The resource registered as `name`. Throws for an unknown name. */
  resource<R extends Resource>(name: string): R {
    const r = this.resources.get(name);
    if (!r) throw new Error(`no resource "${name}" in this world (see registerResource)`);
    return r as R;
  }

  /**
   * Sends `cmd` to a resource that answers at once, for `actor` (as `caller`, default the actor),
   * emits its event (literal command, reply, the narration `narrate` returns — optionally with
   * structured data) and schedules the resource's next wake-up. Returns the reply. `narrate` may
   * update the worker's beliefs first, so the event shows the new state. Throws if the reply
   * waits (a waiting call parks a worker: see `sql` and `borrow`).
   */
  call<Cmd, Reply>(actor: string, resource: Resource<Cmd, Reply>, cmd: Cmd, narrate: ReplyHandler<Reply>, w?: WorkerRuntime, caller: string = actor): Reply {
    const { reply, completions } = resource.execute(this.nowMs, caller, cmd);
    if (resource.waits(reply) || completions.length > 0) throw new Error(`resource ${resource.name} answered a call with a wait: park the worker instead`);
    const said = takeReply(narrate, reply);
    const text = this.text;
    // Built field by field (no spreads): this runs for every Redis command.
    const extra: { command?: string; reply?: string; data?: EventData; worker?: WorkerRuntime; call: ResourceCall } = { call: { resource: resource.name, caller, command: cmd, reply } as ResourceCall };
    if (text) {
      extra.command = resource.renderCommand(cmd);
      extra.reply = resource.renderReply(reply);
    }
    if (w) extra.worker = w;
    if (typeof said !== 'string') extra.data = said.data;
    this.emit(actor, resource.traceKind, typeof said === 'string' ? said : said.text, extra);
    this.scheduleWake(resource);
    return reply;
  }

  // ---- parking: a worker waiting for a resource ----------------------------------------------

  /** Parks the worker until `unpark`: `k` continues it with the reply, `narrate` words that reply. Sends WAIT. */
  park(w: WorkerRuntime, on: string, k: (reply: DbReply | string) => void, narrate: ReplyHandler<DbReply, string> | null = null): void {
    w.waitingK = k;
    if (narrate !== null) w.waitingNarrate = narrate;
    w.waitKind = on;
    w.waitSinceMs = this.nowMs;
    this.send(w, 'WAIT');
  }

  /** Unparks a waiting worker: returns its continuation and narration, and since when it waited; null if it is not parked. */
  unpark(w: WorkerRuntime): { readonly k: (reply: DbReply | string) => void; readonly narrate: ReplyHandler<DbReply, string> | null; readonly sinceMs: number } | null {
    const k = w.waitingK;
    if (k === null) return null;
    const narrate = w.waitingNarrate;
    w.waitingK = null;
    w.waitingNarrate = null;
    w.waitKind = null;
    return { k, narrate, sinceMs: w.waitSinceMs };
  }

  /** Forgets what the worker waits for (its continuation will never run). */
  cancelWait(w: WorkerRuntime): void {
    w.waitingK = null;
    w.waitKind = null;
    w.poolWait = null;
  }

  /**
   * Runs a SQL statement on the worker's connection (borrowing one first if it has none). Calls
   * `k` with the reply now, or later when the statement stops waiting (the worker is parked
   * meanwhile). `narrate` returns the event's sentence and may first update the worker's beliefs,
   * so the event shows the new state.
   */
  sql(w: WorkerRuntime, stmt: Stmt, narrate: ReplyHandler<DbReply, string>, k: (reply: DbReply) => void): void {
    if (w.helper !== null && w.helper.connection === null) {
      this.borrowHelper(w, () => this.sql(w, stmt, narrate, k));
      return;
    }
    const client = this.clientOf(w);
    if (client === null) {
      this.borrow(w, () => this.sql(w, stmt, narrate, k));
      return;
    }
    let session = client;
    if (this.poolerResource.mode !== null) {
      // PgBouncer closed this client connection when the server ended its server connection.
      const ended = this.poolerResource.endedServerOf(client);
      if (ended !== null) return this.sqlOnClosedConnection(w, ended, stmt, narrate, k);
      const server = this.linkServer(w, client, () => this.sql(w, stmt, narrate, k));
      if (server === null) return;
      session = server;
    }
    const db = this.sqlResource;
    if (!this.db.hasSession(session)) return this.sqlOnClosedConnection(w, session, stmt, narrate, k);
    const result = db.execute(this.nowMs, session, stmt);
    const text = this.text;
    const command = text ? db.renderCommand(stmt) : undefined;
    const replyText = text ? db.renderReply(result.reply) : undefined;
    if (result.reply.status === 'waits') this.armStatementTimeout(session);
    else this.armIdleTimeout(session);
    const on = text ? `${this.helperNote(w)}${this.backendNote(session)}` : '';
    if (result.reply.status === 'waits') {
      const waits = w.helper === null ? `${w.id} waits: ${result.reply.on}.` : this.helperWaits(w, session, result.reply);
      this.park(w, 'db', (reply) => k(reply as DbReply), narrate);
      this.emit(w.id, 'sql', text ? `${on}${waits}` : '', { command, reply: replyText, worker: w, data: { t: 'wait', on: 'db', phase: 'begin', sinceMs: this.nowMs }, call: this.sqlCall(session, stmt, result.reply, client) });
    } else {
      const said = takeReply(narrate, result.reply);
      this.emit(w.id, 'sql', on === '' ? said : `${on}${said}`, { command, reply: replyText, worker: w, ...(isCommit(stmt, result.reply) ? { data: { t: 'commit', session } } : {}), call: this.sqlCall(session, stmt, result.reply, client, result.committed) });
      this.afterStatement(w, client);
    }
    this.deliverCompletions(result.completions);
    if (result.reply.status !== 'waits') k(result.reply);
  }

  /**
   * A helper's statement waits: for whom, and — when the lock is its own caller's (the worker's own
   * connection, idle in its transaction while the worker waits for the helper) — why PostgreSQL will
   * never see a deadlock: one session waits for another that waits for nothing in the database.
   */
  private helperWaits(w: WorkerRuntime, session: string, reply: Extract<DbReply, { status: 'waits' }>): string {
    const own = this.ownSessionOf(w);
    const head = `${w.id}'s helper waits: ${reply.on}, and ${w.id} waits for its helper.`;
    if (own === null || reply.blockerSession !== own) return head;
    return `${head} Session ${own} is ${w.id}'s own transaction, which cannot end before the helper returns: PostgreSQL sees ${session} waiting for ${own} and ${own} waiting for nothing, so its deadlock check will find no cycle.`;
  }

  /**
   * A statement on a connection whose session the server has ended (`idle_in_transaction_session_timeout`):
   * the client gets the FATAL the server sent (25P03) and finds the connection closed (psql:
   * `server closed the connection unexpectedly`). The worker is no longer in a transaction and
   * discards the dead connection; `k` continues with the error.
   */
  private sqlOnClosedConnection(w: WorkerRuntime, session: string, stmt: Stmt, narrate: ReplyHandler<DbReply, string>, k: (reply: DbReply) => void): void {
    const reply: DbReply = { status: 'error', error: idleInTransactionTimeoutError() };
    const said = takeReply(narrate, reply);
    this.send(w, 'BELIEVE', { inTransaction: false });
    this.emit(w.id, 'sql', said, { command: this.text ? this.sqlResource.renderCommand(stmt) : undefined, reply: this.text ? this.sqlResource.renderReply(reply) : undefined, worker: w, call: { resource: 'db', caller: session, command: stmt, reply } });
    this.giveBack(w, true);
    k(reply);
  }

  /**
   * PostgreSQL's `statement_timeout` for the statement that just started waiting on `session`: a
   * server timer (a worker's pause does not move it) that cancels the statement with 57014 if it
   * still runs `statementTimeoutMs` after it started; dropped, without moving the clock, once it ends.
   */
  private armStatementTimeout(session: string): void {
    this.activitySeq += 1;
    const token = this.activitySeq;
    this.sessionActivity.set(session, token);
    const limitMs = this.statementTimeoutMs;
    if (limitMs === null) return;
    const live = (): boolean => this.sessionActivity.get(session) === token && this.db.hasSession(session) && this.db.sessionState(session).waiting !== null;
    this.queue.push(this.nowMs + limitMs, {
      worker: null, gen: 0, shiftable: false, live,
      fn: () => {
        if (!live()) return;
        const note = `statement_timeout (${fmtMs(limitMs)}) cancels ${this.sessionLabel(session)}'s statement.`;
        this.deliverCompletions(this.sqlResource.cancelWaiting(session, statementTimeoutError()), new Map([[session, note]]));
      },
    });
  }

  /**
   * PostgreSQL's `idle_in_transaction_session_timeout` after a statement of `session` ended: if the
   * session is inside a transaction block (aborted or not) and sends nothing more for
   * `idleInTransactionTimeoutMs`, the server ends it (FATAL 25P03): the transaction rolls back and
   * every lock of the session, session-level advisory locks included, is released at once — others
   * waiting for them proceed. Its worker learns it at its next statement (`sqlOnClosedConnection`).
   */
  private armIdleTimeout(session: string): void {
    this.activitySeq += 1;
    const token = this.activitySeq;
    this.sessionActivity.set(session, token);
    const limitMs = this.idleInTransactionTimeoutMs;
    if (limitMs === null || !this.db.hasSession(session) || !this.db.inTransaction(session)) return;
    const live = (): boolean => this.sessionActivity.get(session) === token && this.db.hasSession(session) && this.db.inTransaction(session);
    this.queue.push(this.nowMs + limitMs, {
      worker: null, gen: 0, shiftable: false, live,
      fn: () => {
        if (!live()) return;
        const owner = this.sessionOwner.get(session);
        const w = owner === undefined ? undefined : this.workers.get(owner);
        const state = this.db.sessionState(session);
        const held = [...state.rowLocks.map((r) => `the row lock on ${r}`), ...state.advisoryLocks.map((l) => `advisory lock ${l.key}${l.sessionCount > 0 ? ' (session-level)' : ''}`)];
        const who = this.sessionLabel(session);
        const completions = this.sqlResource.closeSession(session);
        // Behind PgBouncer the session is a server connection: PgBouncer closes the client linked to it as well.
        const pooler = this.poolerResource.mode === null ? null : this.poolerResource.serverEnded(session);
        if (pooler !== null) this.sessionOwner.delete(session);
        const reply = idleInTransactionTimeoutError();
        const locks = held.length > 0 ? ` and every lock it held goes with it: ${held.join(', ')}` : '';
        const closes = pooler === null ? '' : ` PgBouncer passes the FATAL on${pooler.client === null ? '' : ` and closes ${pooler.client}, the client connection linked to it ("server conn crashed?")`}; server connection ${pooler.replacement} takes ${session}'s place.`;
        const narration = `idle_in_transaction_session_timeout (${fmtMs(limitMs)}): ${who}'s session sat idle inside its transaction that long, so PostgreSQL ends it; the transaction rolls back${locks}.${closes} ${who} does not know yet.`;
        this.emit(owner ?? 'db', 'sql', this.text ? narration : '', { reply: this.text ? `FATAL ${reply.code} ${reply.message}` : undefined, ...(w ? { worker: w } : {}), data: { t: 'sessionEnded', session } });
        this.deliverCompletions(completions);
        for (const h of pooler?.completions ?? []) this.handOverServer(h);
      },
    });
  }

  /**
   * The database session the worker's statements run on now: its connection's own (no pooler),
   * or the server connection PgBouncer has linked to its connection (null between transactions
   * in transaction mode). Null without a connection, and null once the server has ended that
   * session (`idle_in_transaction_session_timeout`, FATAL 25P03) while the client still holds the
   * dead connection: there is no session to hold or wait for anything, and its next statement
   * finds the connection closed (`sql`).
   */
  sessionOf(w: WorkerRuntime): string | null {
    const client = this.clientOf(w);
    const session = client === null || this.poolerResource.mode === null ? client : this.poolerResource.serverOf(client);
    return session !== null && this.db.hasSession(session) ? session : null;
  }

  /** The database session of the worker's own connection (never its helper's): see `sessionOf`. */
  ownSessionOf(w: WorkerRuntime): string | null {
    const client = this.beliefs(w).connection;
    if (client === null || this.poolerResource.mode === null) return client;
    return this.poolerResource.serverOf(client);
  }

  /** The connection the worker's statements go to now: its helper's while a helper runs (null until borrowed), else its own. */
  clientOf(w: WorkerRuntime): string | null {
    return w.helper !== null ? w.helper.connection : this.beliefs(w).connection;
  }

  /** `[helper c2] `, the helper's connection a statement ran on; empty when no helper runs. */
  private helperNote(w: WorkerRuntime): string {
    return w.helper === null || w.helper.connection === null ? '' : `[helper ${w.helper.connection}] `;
  }

  /** The worker borrowing client connection `client` now (helpers included), or undefined. */
  private ownerOfClient(client: string): string | undefined {
    return this.sessionOwner.get(client);
  }

  /** `[backend s2] `, the server connection a statement ran on, behind a pooler; empty without one. */
  private backendNote(session: string): string {
    return this.poolerResource.mode === null ? '' : `[backend ${session}] `;
  }

  /**
   * PgBouncer links a server connection to the worker's client connection for its next statement:
   * the one already linked, an idle one (last returned first), or none yet — the worker waits in
   * PgBouncer's queue (FIFO) and `retry` runs when one is handed over. Returns the server or null.
   */
  private linkServer(w: WorkerRuntime, client: string, retry: () => void): string | null {
    const pooler = this.poolerResource;
    const linked = pooler.serverOf(client);
    if (linked !== null) {
      // Session mode: the client connection (and its server connection) may have had another borrower.
      this.sessionOwner.set(linked, w.id);
      return linked;
    }
    const cmd: PoolerCmd = { op: 'link', client };
    const { reply } = pooler.execute(this.nowMs, w.id, cmd);
    if (reply.status === 'ok') {
      this.sessionOwner.set(reply.server, w.id);
      return reply.server;
    }
    if (reply.status !== 'waits') return null;
    this.park(w, 'pooler', () => retry());
    const said = w.helper === null
      ? `Every server connection of PgBouncer is in use: ${w.id}'s statement waits for one (position ${reply.position} in PgBouncer's queue).`
      : `Every server connection of PgBouncer is in use (${pooler.snapshot().servers.map((x) => `${x.id} by ${x.client === null ? 'nobody' : `${this.ownerOfClient(x.client) ?? '?'}'s ${x.client}`}`).join(', ')}): ${w.id}'s helper's statement waits for one (position ${reply.position} in PgBouncer's queue), and ${w.id} waits for its helper.`;
    this.emit(w.id, 'pool', said, {
      command: '', reply: pooler.renderReply(reply), worker: w, data: { t: 'wait', on: 'pool', phase: 'begin', sinceMs: this.nowMs }, call: { resource: 'pooler', caller: w.id, command: cmd, reply },
    });
    return null;
  }

  /**
   * After a statement of the worker's client has finished: in transaction mode, a server
   * connection no longer inside a transaction goes back to PgBouncer's pool as it is (its session
   * advisory locks with it), and a waiting client may get it.
   */
  private afterStatement(w: WorkerRuntime, client: string): void {
    const pooler = this.poolerResource;
    if (pooler.mode !== 'transaction') return;
    const server = pooler.serverOf(client);
    if (server === null || this.db.inTransaction(server) || this.db.waitingStatements().some((x) => x.sessionId === server)) return;
    this.sessionOwner.delete(server);
    const { completions } = pooler.execute(this.nowMs, w.id, { op: 'unlink', client });
    for (const h of completions) this.handOverServer(h);
  }

  /** A worker waiting in PgBouncer's queue gets the server connection another client gave back: its statement runs now. */
  private handOverServer(h: Completion<PoolerCmd, PoolerReply>): void {
    const w = this.workers.get(h.caller);
    if (!w || h.reply.status !== 'ok' || w.waitKind !== 'pooler') return;
    const parked = this.unpark(w)!;
    const server = h.reply.server;
    this.sessionOwner.set(server, w.id);
    this.metrics.connectionWaitMs.push(this.nowMs - parked.sinceMs);
    this.emit(w.id, 'pool', `PgBouncer hands server connection ${server} to ${w.id} after ${fmtMs(this.nowMs - parked.sinceMs)} in its queue.`, {
      command: '', reply: this.poolerResource.renderReply(h.reply), worker: w, data: { t: 'wait', on: 'pool', phase: 'end', sinceMs: parked.sinceMs }, call: { resource: 'pooler', caller: w.id, command: h.command, reply: h.reply },
    });
    this.at(this.nowMs, () => parked.k(''), w);
  }

  /**
   * Routes statements that stopped waiting to their workers (continuing at the current time), then
   * arms the deadlock timer of every database wait that has none yet. `notes` (by session) opens
   * the narration of that session's completion (the deadlock check that failed it).
   */
  deliverCompletions(completions: readonly SqlCompletion[], notes?: ReadonlyMap<string, string>): void {
    this.routeCompletions(completions, notes);
    this.scheduleDeadlockChecks();
  }

  private routeCompletions(completions: readonly SqlCompletion[], notes: ReadonlyMap<string, string> | undefined): void {
    for (const c of completions) {
      const owner = this.sessionOwner.get(c.caller);
      const w = owner === undefined ? undefined : this.workers.get(owner);
      if (!w) continue;
      const parked = this.unpark(w);
      if (!parked) continue;
      this.armIdleTimeout(c.caller);
      const waitedMs = this.nowMs - parked.sinceMs;
      if (this.stateOf(w) === 'waiting') this.send(w, 'WORK');
      const said = parked.narrate ? takeReply(parked.narrate, c.reply) : `${w.id}'s statement ${c.reply.status === 'error' ? `fails: ${c.reply.error.message}` : 'proceeds'}.`;
      const text = this.text;
      const note = notes?.get(c.caller);
      const client = this.clientOf(w);
      this.emit(w.id, 'sql', text ? `${this.helperNote(w)}${this.backendNote(c.caller)}After waiting ${fmtMs(waitedMs)}: ${note === undefined ? '' : `${note} `}${said}` : '', {
        command: text ? this.sqlResource.renderCommand(c.command) : undefined, reply: text ? this.sqlResource.renderReply(c.reply) : undefined, worker: w, data: { t: 'wait', on: 'db', phase: 'end', sinceMs: parked.sinceMs }, call: this.sqlCall(c.caller, c.command, c.reply, client ?? undefined, c.committed),
      });
      if (client !== null) this.afterStatement(w, client);
      this.at(this.nowMs, () => parked.k(c.reply), w);
    }
  }

  /**
   * Arms PostgreSQL's deadlock timer for every waiting statement that has none: `deadlockTimeoutMs`
   * after now (called right after the statement started or resumed waiting), once per wait (a
   * statement that is resumed and waits again gets a new timer). A server timer: a pause of the
   * worker does not move it (PostgreSQL docs, runtime-config-locks "deadlock_timeout").
   */
  private scheduleDeadlockChecks(): void {
    for (const { sessionId, waitId } of this.db.waitingStatements()) {
      if (this.deadlockTimers.has(waitId)) continue;
      this.deadlockTimers.add(waitId);
      const atMs = this.nowMs + this.deadlockTimeoutMs;
      this.queue.push(atMs, { worker: null, gen: 0, shiftable: false, fn: () => this.deadlockCheck(sessionId, waitId), live: () => this.waitsNow(sessionId, waitId) });
    }
  }

  /**
   * A deadlock timer fired: if the same wait is still there, PostgreSQL's check runs for it
   * (`Database.checkDeadlock`). A cycle through it fails its statement with 40P01 (narrated as who
   * waited for whom); its aborted transaction's locks go, and the statements that waited behind
   * them proceed. A soft cycle is resolved by reordering the queue; no cycle: it keeps waiting.
   */
  private deadlockCheck(sessionId: string, waitId: number): void {
    if (!this.waitsNow(sessionId, waitId)) return;
    const check = this.sqlResource.checkDeadlock(sessionId);
    if (check.kind === 'none') return this.helperFindsNoDeadlock(sessionId);
    const who = this.sessionLabel(sessionId);
    const note = check.kind === 'deadlock'
      ? `deadlock_timeout (${fmtMs(this.deadlockTimeoutMs)}) fired for ${who} and PostgreSQL's deadlock check found a wait cycle: ${this.cycleInWords(check.cycle)}. ${who}'s statement fails with 40P01 and its transaction is aborted, which releases its locks so the others can proceed.`
      : `deadlock_timeout (${fmtMs(this.deadlockTimeoutMs)}) fired for ${who}: its request was queued behind one that waits for it (${this.cycleInWords(check.cycle)}); PostgreSQL avoids the deadlock by moving it ahead in the queue.`;
    this.deliverCompletions(check.completions, new Map([[sessionId, note]]));
  }

  /**
   * PostgreSQL's deadlock check found no cycle for `sessionId`'s wait. When that is a helper's
   * statement (a step with `helper`, version 2), the trace says why: the way back — the caller
   * waiting for its helper — is in the application, where PostgreSQL cannot look. Nothing else
   * is narrated (a check that finds nothing is silent in PostgreSQL too, but for `log_lock_waits`).
   */
  private helperFindsNoDeadlock(sessionId: string): void {
    const owner = this.sessionOwner.get(sessionId);
    const w = owner === undefined ? undefined : this.workers.get(owner);
    if (!w || w.helper === null || this.sessionOf(w) !== sessionId) return;
    const blocker = this.db.sessionState(sessionId).waiting?.blockerSession;
    if (blocker === undefined) return;
    const own = this.ownSessionOf(w) === blocker;
    const whom = own ? `${blocker}, ${w.id}'s own transaction,` : `${this.sessionLabel(blocker)} (session ${blocker})`;
    const ends = this.statementTimeoutMs !== null ? `until statement_timeout (${fmtMs(this.statementTimeoutMs)}) cancels it` : 'and nothing in the database will end the wait';
    const text = `deadlock_timeout (${fmtMs(this.deadlockTimeoutMs)}) fired for ${w.id}'s helper on ${sessionId}: PostgreSQL's deadlock check finds no cycle. It sees ${sessionId} waiting for ${whom} and nothing in the database leading back: the way back — ${w.id} waiting for its helper to return — is in ${w.id}'s code. No 40P01; the helper waits on, ${ends}.`;
    this.emit(w.id, 'sql', this.text ? text : '', { worker: w });
  }

  /** Whether the session's statement still waits in the same wait (`waitId`). */
  private waitsNow(sessionId: string, waitId: number): boolean {
    return this.db.waitingStatements().some((x) => x.sessionId === sessionId && x.waitId === waitId);
  }

  /** A session as the narration names it: its worker's id (`A`), or the session id. */
  private sessionLabel(sessionId: string): string {
    return this.sessionOwner.get(sessionId) ?? sessionId;
  }

  /** `A waits for B (advisory lock 2), B waits for A (advisory lock 1)`. */
  private cycleInWords(cycle: WaitCycle): string {
    return cycle.map((e) => `${this.sessionLabel(e.from)} waits for ${this.sessionLabel(e.to)} (${lockInWords(e.lock)}${e.kind === 'soft' ? ', queued ahead' : ''})`).join(', ');
  }

  /**
   * Borrows a pooled connection for the worker from its pool (its process's, `spec.process`, or the
   * shared one), waiting in FIFO order when none is idle — until the process's acquire timeout, if
   * it has one (the job then fails).
   */
  borrow(w: WorkerRuntime, k: () => void): void {
    this.send(w, 'REQUEST');
    const pool = this.poolResource;
    const process = w.spec.process;
    const cmd: PoolCmd = process === undefined ? CONNECT : { op: 'connect', process };
    const { reply } = pool.execute(this.nowMs, w.id, cmd);
    if (reply.status === 'ok') {
      this.sessionOwner.set(reply.connection, w.id);
      this.send(w, 'BELIEVE', { connection: reply.connection });
      this.metrics.connectionWaitMs.push(0);
      const said = process === undefined && this.scenario.processes === undefined ? `${w.id} borrows connection ${reply.connection} from the pool.` : `${w.id} borrows connection ${reply.connection} from ${this.poolName(process)} (${this.inUse(process)}).`;
      this.emit(w.id, 'pool', said, { command: pool.renderCommand(cmd), reply: pool.renderReply(reply), worker: w, call: { resource: 'pool', caller: w.id, command: cmd, reply } });
      k();
      return;
    }
    if (reply.status !== 'waits') return;
    this.parkForConnection(w, cmd, k);
    const said = process === undefined && this.scenario.processes === undefined
      ? `Every connection is lent out: ${w.id} waits for one (position ${reply.position} in the queue).`
      : `Every connection of ${this.poolName(process)} is in use (${this.inUse(process, false)}): ${w.id} waits for one (position ${reply.position} in the queue)${this.giveUpNote(process)}.`;
    this.emit(w.id, 'pool', said, {
      command: pool.renderCommand(cmd), reply: pool.renderReply(reply), worker: w, data: { t: 'wait', on: 'pool', phase: 'begin', sinceMs: this.nowMs }, call: { resource: 'pool', caller: w.id, command: cmd, reply },
    });
  }

  /**
   * The worker's current step calls a helper (`helper`, version 2) that borrows a second connection
   * from the worker's own pool while the worker keeps its connection: at once, or after a wait in
   * the pool's queue (the caller waits for its helper meanwhile). `k` runs the helper's statement.
   */
  private borrowHelper(w: WorkerRuntime, k: () => void): void {
    const pool = this.poolResource;
    const process = w.spec.process;
    const cmd: PoolCmd = process === undefined ? { op: 'connect', helper: true } : { op: 'connect', process, helper: true };
    const { reply } = pool.execute(this.nowMs, w.id, cmd);
    const main = this.beliefs(w).connection;
    const where = this.poolName(process);
    if (reply.status === 'ok') {
      w.helper = { connection: reply.connection };
      this.sessionOwner.set(reply.connection, w.id);
      this.metrics.connectionWaitMs.push(0);
      const keeps = main === null ? '' : `, while ${w.id} keeps ${main} and waits for the helper to return`;
      this.emit(w.id, 'pool', `${w.id} calls a helper that needs a connection of its own: it borrows ${reply.connection} from ${where} (${this.inUse(process)})${keeps}.`, {
        command: pool.renderCommand(cmd), reply: pool.renderReply(reply), worker: w, call: { resource: 'pool', caller: w.id, command: cmd, reply },
      });
      k();
      return;
    }
    if (reply.status !== 'waits') return;
    this.parkForConnection(w, cmd, k);
    const holders = pool.poolFor(process).snapshot().connections.filter((c) => c.borrower !== null);
    const own = holders.filter((c) => c.borrower === w.id).map((c) => c.id);
    const stuck = own.length === holders.length
      ? ` Every one of them is ${w.id}'s own, and ${w.id} keeps ${own.join(' and ')} until the helper returns: nothing can free one.`
      : own.length > 0 ? ` ${w.id} keeps its own ${own.join(' and ')} until the helper returns.` : '';
    this.emit(w.id, 'pool', `${w.id} calls a helper that needs a connection of its own, but every connection of ${where} is in use (${this.inUse(process, false)}): the helper waits for one (position ${reply.position} in the queue) and ${w.id} waits for the helper${this.giveUpNote(process)}.${stuck}`, {
      command: pool.renderCommand(cmd), reply: pool.renderReply(reply), worker: w, data: { t: 'wait', on: 'pool', phase: 'begin', sinceMs: this.nowMs }, call: { resource: 'pool', caller: w.id, command: cmd, reply },
    });
  }

  /**
   * Parks the worker in its pool's queue (`cmd` is its `connect`); `k` continues it with the
   * connection. With the process's acquire timeout, a client-side timer (a paused process's fires
   * when it resumes) gives up the wait then: the pool throws and the job fails.
   */
  private parkForConnection(w: WorkerRuntime, cmd: PoolCmd, k: () => void): void {
    this.poolWaitSeq += 1;
    const seq = this.poolWaitSeq;
    w.poolWait = { cmd, seq };
    this.park(w, 'pool', () => k());
    const process = cmd.op === 'connect' ? cmd.process : undefined;
    const limitMs = process === undefined ? undefined : this.scenario.processes?.find((p) => p.id === process)?.acquireTimeoutMs;
    if (limitMs === undefined) return;
    this.at(this.nowMs + limitMs, () => {
      if (w.poolWait?.seq !== seq || w.waitKind !== 'pool') return;
      this.poolResource.cancelWait(w.id);
      const parked = this.unpark(w)!;
      w.poolWait = null;
      const helper = w.helper !== null;
      w.helper = null;
      this.metrics.connectionWaitMs.push(this.nowMs - parked.sinceMs);
      const reply: PoolReply = { status: 'timeout' };
      const who = helper ? `${w.id}'s helper` : w.id;
      const then = helper ? ` The helper throws, and ${w.id}'s job fails with it.` : '';
      const waitedMs = this.nowMs - parked.sinceMs;
      // The timer is the process's own: a paused process's fires late.
      const after = waitedMs === limitMs ? `after ${fmtMs(limitMs)} (the pool's acquire timeout)` : `after ${fmtMs(waitedMs)} (the pool's acquire timeout, ${fmtMs(limitMs)}, fired late: the process was paused)`;
      this.emit(w.id, 'pool', `${who} gives up waiting for a connection from ${this.poolName(process)} ${after}: the pool throws "timeout exceeded when trying to connect".${then}`, {
        command: this.poolResource.renderCommand(cmd), reply: this.poolResource.renderReply(reply), worker: w, data: { t: 'wait', on: 'pool', phase: 'end', sinceMs: parked.sinceMs }, call: { resource: 'pool', caller: w.id, command: cmd, reply },
      });
      this.jobs.fail(w, 'timeout exceeded when trying to connect');
    }, w);
  }

  /** `the pool` (no processes), `the shared pool` (workers without a process beside processes), or `process web-1's pool`. */
  private poolName(process: string | undefined): string {
    if (process !== undefined) return `process ${process}'s pool`;
    return this.scenario.processes === undefined ? 'the pool' : 'the shared pool';
  }

  /** How full a pool is, in words: `2 of 2 in use: c1 by A, c2 by B` (`2 of 2: c1 by A, c2 by B` after "is in use"). */
  private inUse(process: string | undefined, saysInUse = true): string {
    const pool = this.poolResource.poolFor(process);
    const lent = pool.snapshot().connections.filter((c) => c.borrower !== null);
    return `${lent.length} of ${pool.size}${saysInUse ? ' in use' : ''}${lent.length === 0 ? '' : `: ${lent.map((c) => `${c.id} by ${c.borrower}`).join(', ')}`}`;
  }

  /** `; the pool gives up after 5 s` when the process has an acquire timeout; else empty. */
  private giveUpNote(process: string | undefined): string {
    const limitMs = process === undefined ? undefined : this.scenario.processes?.find((p) => p.id === process)?.acquireTimeoutMs;
    return limitMs === undefined ? '' : `; the pool gives up after ${fmtMs(limitMs)}`;
  }

  /** Returns the worker's connection to the pool as it is (or discards it), handing it to a waiter; a helper's connection goes first. */
  giveBack(w: WorkerRuntime, discardIt = false): void {
    this.endHelper(w, discardIt);
    const id = this.beliefs(w).connection;
    if (id === null) return;
    this.returnConnection(w, id, discardIt, false);
  }

  /**
   * The helper of the worker's step has returned (its step ended, its job failed, or the worker
   * died: `discardIt`): its connection goes back to the pool (or is closed), handed to a waiter.
   */
  endHelper(w: WorkerRuntime, discardIt = false): void {
    const h = w.helper;
    if (h === null) return;
    w.helper = null;
    if (h.connection !== null) this.returnConnection(w, h.connection, discardIt, true);
  }

  /** Gives `id` (the worker's connection, or its helper's) back to its pool, or closes it; see `giveBack`. */
  private returnConnection(w: WorkerRuntime, id: string, discardIt: boolean, helper: boolean): void {
    const linkedServer = this.poolerResource.mode === null ? null : this.poolerResource.serverOf(id);
    // The server ended this session (idle_in_transaction_session_timeout): the connection is dead.
    // Behind a pooler the client connection is PgBouncer's, not a database session: only its linked server connection can have ended.
    const ended = this.poolerResource.mode === null ? !this.db.hasSession(id) : linkedServer !== null && !this.db.hasSession(linkedServer);
    const discard = discardIt || ended;
    this.sessionOwner.delete(id);
    if (linkedServer !== null) this.sessionOwner.delete(linkedServer);
    if (!helper) this.send(w, 'BELIEVE', { connection: null, inTransaction: false });
    const process = this.poolResource.processOf(id);
    const pool = this.poolName(process);
    const who = helper ? `${w.id}'s helper` : w.id;
    let handoffs: readonly Completion<PoolCmd, PoolReply>[];
    const pooler = this.poolerResource.mode !== null;
    if (discard && pooler) {
      handoffs = this.poolResource.discard(id, () => undefined);
      const cmd: PoolCmd = { op: 'destroy', connection: id };
      const reply: PoolReply = { status: 'closed' };
      this.emit(w.id, 'pool', `${who}'s connection ${id} to PgBouncer closes.`, { command: this.poolResource.renderCommand(cmd), reply: this.poolResource.renderReply(reply), worker: w, call: { resource: 'pool', caller: w.id, command: cmd, reply } });
      this.closeClient(w, id);
    } else if (discard) {
      let completions: readonly Completion<Stmt, DbReply>[] = [];
      handoffs = this.poolResource.discard(id, (sid) => {
        if (!ended) completions = this.sqlResource.closeSession(sid);
      });
      const cmd: PoolCmd = { op: 'destroy', connection: id };
      const reply: PoolReply = { status: 'closed' };
      const opens = process === undefined && this.scenario.processes === undefined ? 'the pool opens a new one' : `${pool} opens a new one`;
      const said = ended ? `${who} discards connection ${id}: the server had closed it; ${opens}.` : `${who} closes connection ${id}; its session ends, which releases every lock it held.`;
      this.emit(w.id, 'pool', said, { command: this.poolResource.renderCommand(cmd), reply: this.poolResource.renderReply(reply), worker: w, call: { resource: 'pool', caller: w.id, command: cmd, reply } });
      this.deliverCompletions(completions);
    } else {
      const cmd: PoolCmd = { op: 'release', connection: id };
      const result = this.poolResource.execute(this.nowMs, w.id, cmd);
      handoffs = result.completions;
      const session = pooler ? this.poolerResource.serverOf(id) : id;
      const held = session === null ? [] : this.db.sessionState(session).advisoryLocks.filter((l) => l.sessionCount > 0);
      const note = held.length > 0 ? ` It still holds session-level advisory lock ${held.map((l) => l.key).join(', ')}: the lock goes back into the pool with it.` : '';
      const main = this.beliefs(w).connection;
      const goesOn = helper && main !== null ? ` ${w.id} goes on with ${main}.` : '';
      this.emit(w.id, 'pool', `${who} returns connection ${id} to ${pool}.${note}${goesOn}`, { command: this.poolResource.renderCommand(cmd), reply: this.poolResource.renderReply(result.reply), worker: w, call: { resource: 'pool', caller: w.id, command: cmd, reply: result.reply } });
    }
    for (const h of handoffs) this.handOver(h);
  }

  /**
   * PgBouncer sees its client `client` go (the worker died, or destroyed its connection): a server
   * connection linked to it is reset with `DISCARD ALL` or, inside a transaction, closed (see
   * `PoolerResource.close`); in transaction mode between transactions nothing is linked, so the
   * server connections keep whatever session state the client left on them.
   */
  private closeClient(w: WorkerRuntime, client: string): void {
    const pooler = this.poolerResource;
    let completions: readonly Completion<Stmt, DbReply>[] = [];
    // PgBouncer had closed this client when the server ended its server connection: nothing is left to reset.
    const alreadyClosed = pooler.endedServerOf(client) !== null;
    const result = pooler.close(client, (sid) => {
      completions = this.sqlResource.closeSession(sid);
    });
    const r = result.reply;
    if (r.status === 'discarded' || r.status === 'serverClosed') {
      this.sessionOwner.delete(r.server);
      const said = r.status === 'discarded'
        ? `PgBouncer resets server connection ${r.server} with DISCARD ALL before putting it back: its session state goes, session advisory locks included.`
        : `${w.id} died inside a transaction, so PgBouncer closes server connection ${r.server} (the transaction rolls back, its locks go) and opens ${r.replacement}.`;
      this.emit('pooler', 'pool', said, { command: pooler.renderCommand({ op: 'close', client }), reply: pooler.renderReply(r), call: { resource: 'pooler', caller: w.id, command: { op: 'close', client }, reply: r } });
    } else if (pooler.mode === 'transaction' && !alreadyClosed) {
      const kept = pooler.snapshot().servers.flatMap(({ id }) => this.db.sessionState(id).advisoryLocks.filter((l) => l.sessionCount > 0).map((l) => `${id} still holds session advisory lock ${l.key}`));
      const tail = kept.length > 0 ? ` ${kept.join('; ')}.` : '';
      this.emit('pooler', 'pool', `PgBouncer had no server connection linked to ${client} (transaction mode, between transactions): nothing is reset.${tail}`, { call: { resource: 'pooler', caller: w.id, command: { op: 'close', client }, reply: r } });
    }
    this.deliverCompletions(completions);
    for (const h of result.completions) this.handOverServer(h);
  }

  /** A waiter of the pool gets the connection someone returned (a helper's wait: its helper gets it). */
  private handOver(h: Completion<PoolCmd, PoolReply>): void {
    const w = this.workers.get(h.caller);
    if (!w || h.reply.status !== 'ok' || w.waitingK === null) return;
    const connection = h.reply.connection;
    const parked = this.unpark(w)!;
    const command = w.poolWait?.cmd ?? h.command;
    w.poolWait = null;
    const helper = command.op === 'connect' && command.helper === true && w.helper !== null;
    this.sessionOwner.set(connection, w.id);
    if (helper) w.helper = { connection };
    else this.send(w, 'BELIEVE', { connection });
    this.metrics.connectionWaitMs.push(this.nowMs - parked.sinceMs);
    const process = this.poolResource.processOf(connection);
    const said = helper
      ? `${w.id}'s helper gets connection ${connection} after waiting ${fmtMs(this.nowMs - parked.sinceMs)} for ${this.poolName(process)}.`
      : `${w.id} gets connection ${connection} after waiting ${fmtMs(this.nowMs - parked.sinceMs)} for ${process === undefined && this.scenario.processes === undefined ? 'the pool' : this.poolName(process)}.`;
    this.emit(w.id, 'pool', said, {
      command: this.poolResource.renderCommand(command), reply: this.poolResource.renderReply(h.reply), worker: w, data: { t: 'wait', on: 'pool', phase: 'end', sinceMs: parked.sinceMs }, call: { resource: 'pool', caller: w.id, command, reply: h.reply },
    });
    this.at(this.nowMs, () => parked.k(''), w);
  }

  /**
   * Sends a Redis command for an actor; a worker cut off from the lease store gets a timeout
   * instead. `narrate` returns the sentence (and may update beliefs first), optionally with
   * structured data for the event.
   */
  redis(actor: string, cmd: RedisCmd, narrate: ReplyHandler<RedisReply>, w?: WorkerRuntime): RedisReply {
    const redis = this.redisResource;
    if (w && w.cutOffUntilMs !== null && this.nowMs < w.cutOffUntilMs) {
      const reply: RedisReply = { kind: 'error', message: REDIS_TIMEOUT_MESSAGE };
      const said = takeReply(narrate, reply);
      this.emit(actor, 'redis', typeof said === 'string' ? said : said.text, { command: redis.renderCommand(cmd), reply: '(no reply: connection timed out)', worker: w, ...(typeof said === 'string' ? {} : { data: said.data }), call: { resource: 'redis', caller: actor, command: cmd, reply, cutOff: true } });
      return reply;
    }
    return this.call(actor, redis, cmd, narrate, w);
  }

  /**
   * Sends a request to the lock service (etcd) for an actor. A lease whose TTL ran out by now is
   * revoked first, and its expiry narrated before the request (as etcd would have revoked it
   * already). A worker cut off from the lease store gets etcdctl's `Error: context deadline
   * exceeded` instead, and the request never arrives. `narrate` as for `call`.
   */
  etcdCall(actor: string, cmd: EtcdCmd, narrate: ReplyHandler<EtcdReply>, w?: WorkerRuntime): EtcdReply {
    const etcd = this.etcd;
    this.emitNotices(etcd, etcd.wake(this.nowMs));
    if (w && w.cutOffUntilMs !== null && this.nowMs < w.cutOffUntilMs) {
      const reply = etcdError(cmd.op, ETCD_TIMEOUT_MESSAGE);
      const said = takeReply(narrate, reply);
      this.emit(actor, etcd.traceKind, typeof said === 'string' ? said : said.text, { command: etcd.renderCommand(cmd), reply: etcd.renderReply(reply), worker: w, ...(typeof said === 'string' ? {} : { data: said.data }), call: { resource: 'etcd', caller: actor, command: cmd, reply, cutOff: true } });
      this.scheduleWake(etcd);
      return reply;
    }
    return this.call(actor, etcd, cmd, narrate, w);
  }

  /** Emits what a resource did on its own (its wake-up notices) as trace events. */
  emitNotices(resource: Resource, notices: readonly ResourceNotice[]): void {
    for (const n of notices) this.emit(n.actor, n.kind ?? resource.traceKind, n.narration, n.data === undefined ? undefined : { data: n.data as EventData });
  }

  /**
   * The data of a database event; INSERT and UPDATE also record the session's transaction state and
   * their table's committed rows, COMMIT every table's. `after`: the rows the database took when the
   * statement finished (`CommittedRows`), before the statements it let through ran — a COMMIT that
   * released a row lock must not carry the waiting UPDATE's write, which the trace tells next.
   */
  private sqlCall(session: string, stmt: Stmt, reply: DbReply, client?: string, after?: CommittedRows): ResourceCall {
    if (this.poolerResource.mode !== null && client !== undefined) return { ...(this.sqlCall(session, stmt, reply, undefined, after) as Extract<ResourceCall, { resource: 'db' }>), client, ...(this.unlinksAfter(session, reply) ? { unlinked: true as const } : {}) };
    if (stmt.op !== 'insert' && stmt.op !== 'update' && stmt.op !== 'commit') return { resource: 'db', caller: session, command: stmt, reply };
    const committed: Record<string, Row[]> = {};
    // A write changes only its table's committed rows (autocommit); a COMMIT may change any table.
    if (stmt.op === 'commit') for (const name of this.tableNames) committed[name] = [...(after?.[name] ?? this.db.committedRows(name))];
    else committed[stmt.table] = [...(after?.[stmt.table] ?? this.db.committedRows(stmt.table))];
    return { resource: 'db', caller: session, command: stmt, reply, inTransaction: this.db.inTransaction(session), committed };
  }

  /** Transaction mode: whether the server connection `server` goes back to PgBouncer's pool once this statement's reply is out (see `afterStatement`). */
  private unlinksAfter(server: string, reply: DbReply): boolean {
    return this.poolerResource.mode === 'transaction' && reply.status !== 'waits' && this.db.hasSession(server)
      && !this.db.inTransaction(server) && !this.db.waitingStatements().some((x) => x.sessionId === server);
  }

  /**
   * Sends a request to the destination for a worker (begin a write, finish it, abort it). Returns
   * the write (live) and the event data (with a copy of the write as it stands now).
   */
  destinationCall(caller: string, cmd: DestinationCmd): { readonly write: DestinationWrite; readonly call: ResourceCall } {
    const write = this.destinationResource.execute(this.nowMs, caller, cmd).reply;
    return { write, call: { resource: 'destination', caller, command: cmd, reply: { ...write } } };
  }

  /** Schedules the lease store's next wake-up (keys whose TTL runs out). */
  scheduleExpiry(): void {
    this.scheduleWake(this.redisResource);
  }

  /** Schedules the resource's next wake-up, if it has one not yet scheduled; its notices become trace events. */
  scheduleWake(resource: Resource): void {
    const next = resource.nextWakeMs();
    if (next === null) return;
    let checks = this.wakeChecks.get(resource);
    if (checks === undefined) this.wakeChecks.set(resource, (checks = new Set()));
    if (checks.has(next)) return;
    checks.add(next);
    this.at(next, () => {
      checks.delete(next);
      this.emitNotices(resource, resource.wake(this.nowMs));
      this.scheduleWake(resource);
    });
  }
}

const CONNECT: PoolCmd = { op: 'connect' };

function isCommit(stmt: Stmt, reply: DbReply): boolean {
  return reply.status === 'ok' && stmt.op === 'commit';
}

export { fmtMs };
