/**
 * The job lifecycle of a worker: start (or restart) at the first step, run each step after the
 * faults placed before it, go on to the next one after the faults placed after it, skip the rest
 * of the work, fail (the job's error path), and finish. Steps (src/sim/workers/steps.ts),
 * coordination and faults reach it through `world.jobs`, so none of them imports this module.
 */
import { explained } from '../engine/narration';
import type { JobLifecycle, World, WorkerRuntime } from '../engine/world';
import type { Step } from '../scenario/schema';
import { applyStepFaults } from '../faults/apply';
import type { WorkerOutcome } from './workerMachine';
import { releaseLease } from './coordination';
import { rollbackThen, runStepHandler } from './steps';
import { runSql } from './replyClass';
import { backOffOnError } from './queueSteps';

/** Steps that still run once the job skips the rest of its work. */
const CLEANUP_STEPS = new Set<Step['do']>(['commit', 'release', 'disconnect']);

/** The lifecycle bound to one world (set as `world.jobs` before the run starts). */
export function createJobLifecycle(world: World): JobLifecycle {
  return {
    start: (w) => startJob(world, w),
    done: (w, delayMs = 0) => done(world, w, delayMs),
    skipRest: (w, outcome) => skipRest(world, w, outcome),
    fail: (w, reason, sqlState) => failJob(world, w, reason, sqlState),
  };
}

/** Starts (or restarts) the worker's job at its first step. */
function startJob(world: World, w: WorkerRuntime): void {
  w.pc = 0;
  if (w.outcome !== 'completed') world.metrics.wastedWorkMs += w.workMs; // a restart throws the first attempt's work away
  w.workMs = 0;
  w.workStep = null;
  w.cleanupOnly = false;
  w.outcome = 'completed';
  w.enqueued = false;
  w.txnStartPc = null;
  w.txnRetries = 0;
  w.effectsInTxn = 0;
  w.queueItem = null;
  w.emptyReceives = 0;
  runStep(world, w);
}

/** Runs the worker's current step (after any fault placed before it). */
function runStep(world: World, w: WorkerRuntime): void {
  if (!world.isAlive(w)) return;
  // A pause placed after the last step holds the worker there too: it finishes its job (returns
  // its connection, is done) only when it resumes, as a paused process runs nothing.
  const paused = w.pausedUntilMs !== null && world.nowMs < w.pausedUntilMs;
  if (w.pc >= w.spec.steps.length) return paused ? world.at(world.nowMs, () => finishJob(world, w), w) : finishJob(world, w);
  w.stepReachedMs[w.pc] ??= world.nowMs;
  if (applyStepFaults(world, w, w.pc, 'before') === 'stop') return;
  if (w.pausedUntilMs !== null && world.nowMs < w.pausedUntilMs) world.at(world.nowMs, () => execStep(world, w), w);
  else execStep(world, w);
}

function execStep(world: World, w: WorkerRuntime): void {
  const step = w.spec.steps[w.pc]!;
  if (w.cleanupOnly && !CLEANUP_STEPS.has(step.do)) return done(world, w, 0);
  // A step with `helper` (version 2) runs its SQL in a helper on a second connection from the worker's pool, borrowed at its first statement.
  if ('helper' in step && step.helper === true) w.helper = { connection: null };
  runStepHandler(world, w, step);
}

/** The current step has finished; after `delayMs` (moved by pauses) the next one starts. */
function done(world: World, w: WorkerRuntime, delayMs: number): void {
  if (delayMs > 0) world.at(world.nowMs + delayMs, () => afterStep(world, w), w, true);
  else afterStep(world, w);
}

function afterStep(world: World, w: WorkerRuntime): void {
  w.workStep = null;
  // The step's helper has returned: its connection goes back to the pool.
  world.endHelper(w);
  if (applyStepFaults(world, w, w.pc, 'after') === 'stop') return;
  w.pc += 1;
  runStep(world, w);
}

/** Skip the rest of the job's work: only commit/release/disconnect steps still run. */
function skipRest(world: World, w: WorkerRuntime, outcome: WorkerOutcome): void {
  // A request given up (try-lock skipped) is no longer waiting.
  w.requestStartMs = null;
  w.cleanupOnly = true;
  w.outcome = outcome;
  done(world, w, 0);
}

/**
 * The job throws: its error path rolls back the open transaction, unlocks in `finally` (if the
 * mechanism says so), releases a lease it believes it owns, and returns (or discards) its
 * connection. A session-level advisory lock not unlocked here leaks with the connection.
 */
function failJob(world: World, w: WorkerRuntime, reason: string, sqlState?: string): void {
  // A helper that threw (or whose caller fails) returns its connection first: the error path runs on the worker's own.
  world.endHelper(w);
  if (sqlState === '40001' && retryTransaction(world, w)) return;
  // A request that failed (lock_timeout, retries used up, 40P01) is no longer waiting.
  w.requestStartMs = null;
  w.outcome = 'failed';
  world.emit(w.id, 'outcome', `${w.id}'s job fails (${reason}); its error path runs.`, { worker: w });
  backOffOnError(world, w);
  const m = world.scenario.mechanism;
  rollbackThen(world, w, () => {
    const afterUnlock = () => {
      const finish = () => {
        world.giveBack(w, m.onError === 'discardConnection');
        finishJob(world, w);
      };
      const b = world.beliefs(w);
      // A `finally { release }` that runs even when the lease was never acquired (the mechanism's
      // releaseInFinally) deletes whoever holds the key now if the release is a plain DEL.
      if (b.ownsLease || (m.lock === 'lease' && m.releaseInFinally === true && b.ownerToken !== null)) return releaseLease(world, w, finish);
      finish();
    };
    if (m.lock === 'advisory-session' && world.beliefs(w).holdsLock && m.onError === 'unlockInFinally') {
      const unlocked = `${w.id}'s finally block unlocks the session-level advisory lock.`;
      return runSql(world, w, { op: 'advisory', fn: 'pg_advisory_unlock', key: { kind: 'bigint', key: m.advisoryKey } }, {
        believe: () => world.send(w, 'BELIEVE', { holdsLock: false }),
        ok: () => unlocked,
        none: () => unlocked,
        refused: () => `${w.id}'s finally block tries to unlock, but gets false with a WARNING: this session does not hold the lock.`,
        error: (r) => `${w.id}'s finally block cannot unlock: ${r.error.message}.`,
      }, afterUnlock);
    }
    afterUnlock();
  });
}

/**
 * The framework's retry policy (`database.serializationRetries`; e.g. Spring's `@Retryable` on a
 * serialization failure, Django/Rails helpers that wrap a transaction in a retry loop): a
 * transaction that failed with 40001 is rolled back and run again from its `begin` step — every
 * step inside it again, a call to the destination included (../shared/semantics.md, "Server-side
 * timeouts and isolation"). Returns false when there is no transaction to retry or no retry left.
 */
function retryTransaction(world: World, w: WorkerRuntime): boolean {
  const allowed = world.scenario.database.serializationRetries ?? 0;
  const startPc = w.txnStartPc;
  if (startPc === null || w.txnRetries >= allowed) return false;
  w.txnRetries += 1;
  // The work of the rolled-back attempt is thrown away (and done again).
  world.metrics.wastedWorkMs += w.workMs - w.workMsAtTxnStart;
  w.workMs = w.workMsAtTxnStart;
  const effects = w.effectsInTxn;
  const target = world.scenario.destination.target;
  const kept = effects === 0 ? '' : explained(` The ${effects > 1 ? `${effects} calls` : 'call'} to ${target} it made inside the transaction ${effects > 1 ? 'were' : 'was'} not rolled back`, `: a database rollback cannot undo ${effects > 1 ? 'them' : 'it'}`);
  world.emit(w.id, 'outcome', `${w.id}'s transaction failed with 40001 (serialization failure), so the framework rolls it back and runs it again from BEGIN (retry ${w.txnRetries} of ${allowed}).${kept}`, { worker: w });
  rollbackThen(world, w, () => {
    w.pc = startPc;
    w.txnStartPc = null;
    w.effectsInTxn = 0;
    runStep(world, w);
  });
  return true;
}

/** The job has ended: return the connection, stop renewals, and finish the machine. */
function finishJob(world: World, w: WorkerRuntime): void {
  if (!world.isAlive(w)) return;
  if (w.outcome !== 'completed') world.metrics.wastedWorkMs += w.workMs;
  w.workMs = 0;
  world.giveBack(w);
  w.renewGen += 1;
  w.gen += 1;
  world.send(w, 'FINISH', { outcome: w.outcome });
  world.emit(w.id, 'outcome', `${w.id} is done: ${OUTCOME_TEXT[w.outcome]}.`, { worker: w });
}

const OUTCOME_TEXT: Record<WorkerOutcome, string> = {
  completed: 'it completed the job',
  loadedExisting: 'it found the existing row and used it',
  alreadyDone: 'the job record said the work was already done',
  soldOut: 'nothing left to reserve',
  noRow: 'its read got no row, so it had nothing to work on',
  failed: 'the job failed',
  stopped: 'it stopped because it could not keep its lease',
  skipped: 'it did not get the lock, so it skipped the job without an error',
  crashed: 'it crashed',
  noJob: 'there was no job in the queue for it',
  shutDown: 'it shut down before finishing the job',
};
