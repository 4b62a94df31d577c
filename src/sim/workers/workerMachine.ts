/**
 * The worker as an XState v5 machine. Its states are the ones a teacher names on a whiteboard;
 * its context is what the worker *believes* (that it owns the lease, its fencing token, …). The
 * engine (src/sim/engine/run.ts) drives it with the simulated clock: the machine has no delays of
 * its own, so a run is cheap and fully deterministic.
 *
 * A paused worker keeps its beliefs: PAUSE and RESUME change nothing in the context, and RESUME
 * returns to the state it was in (history state). Pure module.
 */
import { assign, setup } from 'xstate';

/** What a worker believes about the world. It may be wrong (that is the lesson). */
export interface Beliefs {
  /** Believes it owns the lease. */
  readonly ownsLease: boolean;
  /** The random owner token it stored as the lease value. */
  readonly ownerToken: string | null;
  /** The fencing token it got from `INCR` with the lease. */
  readonly fencingToken: number | null;
  /** When it believes its lease runs out (its last grant/renewal + TTL), virtual ms. */
  readonly leaseBelievedUntilMs: number | null;
  /** Virtual ms at which it acquired the current lease or lock. */
  readonly acquiredAtMs: number | null;
  /** Believes it holds an advisory lock (session or transaction scope). */
  readonly holdsLock: boolean;
  /** The pooled connection it is using. */
  readonly connection: string | null;
  readonly inTransaction: boolean;
  /** A renewal has failed since it acquired the lease. */
  readonly renewFailed: boolean;
  /**
   * Since it acquired the lease, the fenced resource refused one of its writes as stale (a
   * conditional `UPDATE … WHERE fence < $token` that updated 0 rows): it knows it lost the lease.
   */
  readonly refusedAsStale: boolean;
  /** The value it read (balance, stock) in a read-modify-write job. */
  readonly readValue: number | null;
  /** How the job ended, once it has. */
  readonly outcome: WorkerOutcome | null;
  /** 1 for the first run of the job, 2 after the first restart, … */
  readonly incarnation: number;
}

/**
 * How a job ended. `skipped`: the client (`client.onBusy: 'skip'`) did not get the lock (taken, or
 * its store did not answer) and skipped the job without failing it. `soldOut`: a reservation found
 * less stock than it needs (or the CHECK constraint rejected it, 23514). `noRow`: a debit's or
 * reservation's read got no row (SKIP LOCKED skipped a locked one, or there is none), so it did
 * nothing, whatever the stock or balance.
 */
export type WorkerOutcome = 'completed' | 'loadedExisting' | 'alreadyDone' | 'soldOut' | 'noRow' | 'failed' | 'stopped' | 'skipped' | 'crashed' | 'noJob' | 'shutDown';

/** Teacher-named states (flattened from the machine's state value). */
export type WorkerStateName = 'idle' | 'requesting' | 'waiting' | 'holding' | 'working' | 'performingEffect' | 'recordingCompletion' | 'releasing' | 'paused' | 'crashed' | 'done';

/** Beliefs before the job starts. */
export const initialBeliefs: Beliefs = {
  ownsLease: false,
  ownerToken: null,
  fencingToken: null,
  leaseBelievedUntilMs: null,
  acquiredAtMs: null,
  holdsLock: false,
  connection: null,
  inTransaction: false,
  renewFailed: false,
  refusedAsStale: false,
  readValue: null,
  outcome: null,
  incarnation: 1,
};

type Patch = Partial<Beliefs>;
/** Events the engine sends. Each may carry a `patch` of beliefs to update with the transition. */
export type WorkerEvent =
  | { type: 'REQUEST'; patch?: Patch }
  | { type: 'WAIT'; patch?: Patch }
  | { type: 'GRANTED'; patch?: Patch }
  | { type: 'WORK'; patch?: Patch }
  | { type: 'EFFECT'; patch?: Patch }
  | { type: 'RECORD'; patch?: Patch }
  | { type: 'RELEASE'; patch?: Patch }
  | { type: 'BELIEVE'; patch?: Patch }
  | { type: 'FINISH'; patch?: Patch }
  | { type: 'PAUSE'; patch?: Patch }
  | { type: 'RESUME'; patch?: Patch }
  | { type: 'CRASH'; patch?: Patch }
  | { type: 'RESTART'; patch?: Patch };

/**
 * The worker machine: which events are legal in which state (anything else is refused: the state
 * and the beliefs stay as they are).
 *
 * - In every active state (idle, requesting, waiting, holding, working, performingEffect,
 *   recordingCompletion, releasing) a job step may start: REQUEST → requesting, WORK → working,
 *   EFFECT → performingEffect, RECORD → recordingCompletion, RELEASE → releasing. The steps come
 *   in the order the scenario's author wrote them, so any step may follow any other. BELIEVE
 *   updates beliefs; FINISH → done; PAUSE → paused; CRASH → crashed.
 * - WAIT → waiting only where a request or a statement is outstanding: requesting, waiting,
 *   working, performingEffect, recordingCompletion (not idle, holding or releasing: an unlock,
 *   a ROLLBACK or a release never waits).
 * - GRANTED → holding only while acquiring: requesting, waiting, or working (a waiting
 *   statement that was let through).
 * - paused: only BELIEVE, CRASH, and RESUME (back to the state it was paused in: history). A
 *   paused worker runs nothing, so a grant or a finish cannot reach it.
 * - crashed: RESTART → idle (with fresh beliefs) or FINISH → done.
 * - done is final.
 */
export const workerMachine = setup({
  types: { context: {} as Beliefs, events: {} as WorkerEvent },
  actions: {
    applyPatch: assign(({ context, event }) => (event.patch ? { ...context, ...event.patch } : context)),
  },
}).createMachine({
  id: 'worker',
  context: initialBeliefs,
  initial: 'active',
  states: {
    active: {
      initial: 'idle',
      on: {
        REQUEST: { target: '.requesting', actions: 'applyPatch' },
        WORK: { target: '.working', actions: 'applyPatch' },
        EFFECT: { target: '.performingEffect', actions: 'applyPatch' },
        RECORD: { target: '.recordingCompletion', actions: 'applyPatch' },
        RELEASE: { target: '.releasing', actions: 'applyPatch' },
        BELIEVE: { actions: 'applyPatch' },
        FINISH: { target: 'done', actions: 'applyPatch' },
        PAUSE: { target: 'paused', actions: 'applyPatch' },
        CRASH: { target: 'crashed', actions: 'applyPatch' },
      },
      states: {
        idle: {},
        requesting: { on: { WAIT: { target: 'waiting', actions: 'applyPatch' }, GRANTED: { target: 'holding', actions: 'applyPatch' } } },
        waiting: { on: { WAIT: { target: 'waiting', actions: 'applyPatch' }, GRANTED: { target: 'holding', actions: 'applyPatch' } } },
        holding: {},
        working: { on: { WAIT: { target: 'waiting', actions: 'applyPatch' }, GRANTED: { target: 'holding', actions: 'applyPatch' } } },
        performingEffect: { on: { WAIT: { target: 'waiting', actions: 'applyPatch' } } },
        recordingCompletion: { on: { WAIT: { target: 'waiting', actions: 'applyPatch' } } },
        releasing: {},
        hist: { type: 'history' },
      },
    },
    // A paused worker does not know it is paused: nothing in its beliefs changes.
    paused: {
      on: {
        RESUME: { target: 'active.hist' },
        BELIEVE: { actions: 'applyPatch' },
        CRASH: { target: 'crashed', actions: 'applyPatch' },
      },
    },
    crashed: {
      on: { RESTART: { target: 'active.idle', actions: 'applyPatch' }, FINISH: { target: 'done', actions: 'applyPatch' } },
    },
    done: { type: 'final' },
  },
});

/** Every event type the engine may send. */
export const WORKER_EVENT_TYPES: readonly WorkerEvent['type'][] = ['REQUEST', 'WAIT', 'GRANTED', 'WORK', 'EFFECT', 'RECORD', 'RELEASE', 'BELIEVE', 'FINISH', 'PAUSE', 'RESUME', 'CRASH', 'RESTART'];

/** The events the machine accepts in a state (the diagram's arrows out of it), read from the machine itself. */
export function legalEvents(state: WorkerStateName): WorkerEvent['type'][] {
  const value = state === 'paused' || state === 'crashed' || state === 'done' ? state : { active: state };
  const snapshot = workerMachine.resolveState({ value, context: initialBeliefs });
  return WORKER_EVENT_TYPES.filter((type) => snapshot.can({ type }));
}

/** Flattens a snapshot value (`{ active: 'working' }`, `'paused'`) to a teacher-named state. */
export function stateName(value: unknown): WorkerStateName {
  if (typeof value === 'string') return value as WorkerStateName;
  const inner = (value as { active?: string }).active;
  return (inner ?? 'idle') as WorkerStateName;
}
