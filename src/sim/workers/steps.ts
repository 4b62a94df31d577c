/**
 * What each job step does, given the job kind and the mechanism: the literal commands a worker
 * sends and how it reacts to the replies. Continuation-passing: a step calls `done(world, w, ms)`
 * when it has finished (after `ms` of virtual time), possibly after waiting for a lock.
 */
import type { World, WorkerRuntime } from '../engine/world';
import { fmtMs } from '../engine/world';
import { jobKeyFor } from '../engine/tables';
import type { DbReply, Row, Stmt } from '../resources/sqlTypes';
import type { Step } from '../scenario/schema';
import { applyStepFaults } from '../faults/apply';
import type { WorkerOutcome } from './workerMachine';
import { acquireCoordination, releaseCoordination, releaseLease } from './coordination';

const CLEANUP_STEPS = new Set<Step['do']>(['commit', 'release', 'disconnect']);

/** Starts (or restarts) the worker's job at its first step. */
export function startJob(world: World, w: WorkerRuntime): void {
  w.pc = 0;
  if (w.outcome !== 'completed') world.metrics.wastedWorkMs += w.workMs; // a restart throws the first attempt's work away
  w.workMs = 0;
  w.cleanupOnly = false;
  w.outcome = 'completed';
  w.enqueued = false;
  runStep(world, w);
}

/** Runs the worker's current step (after any fault placed before it). */
export function runStep(world: World, w: WorkerRuntime): void {
  if (!world.isAlive(w)) return;
  if (w.pc >= w.spec.steps.length) return finishJob(world, w);
  if (applyStepFaults(world, w, w.pc, 'before') === 'stop') return;
  if (w.pausedUntilMs !== null && world.nowMs < w.pausedUntilMs) world.at(world.nowMs, () => execStep(world, w), w);
  else execStep(world, w);
}

/** The current step has finished; after `delayMs` (moved by pauses) the next one starts. */
export function done(world: World, w: WorkerRuntime, delayMs = 0): void {
  if (delayMs > 0) world.at(world.nowMs + delayMs, () => afterStep(world, w), w, true);
  else afterStep(world, w);
}

function afterStep(world: World, w: WorkerRuntime): void {
  if (applyStepFaults(world, w, w.pc, 'after') === 'stop') return;
  w.pc += 1;
  runStep(world, w);
}

/** Skip the rest of the job's work: only commit/release/disconnect steps still run. */
export function skipRest(world: World, w: WorkerRuntime, outcome: WorkerOutcome): void {
  w.cleanupOnly = true;
  w.outcome = outcome;
  done(world, w);
}

function execStep(world: World, w: WorkerRuntime): void {
  const step = w.spec.steps[w.pc]!;
  if (w.cleanupOnly && !CLEANUP_STEPS.has(step.do)) return done(world, w);
  switch (step.do) {
    case 'connect':
      if (world.beliefs(w).connection !== null) return done(world, w);
      return world.borrow(w, () => done(world, w));
    case 'disconnect':
      world.send(w, 'RELEASE');
      world.giveBack(w);
      return done(world, w);
    case 'begin':
      world.send(w, 'WORK');
      return world.sql(w, { op: 'begin' }, () => {
        world.send(w, 'BELIEVE', { inTransaction: true });
        return `${w.id} opens a transaction.`;
      }, () => done(world, w));
    case 'commit':
      return commit(world, w);
    case 'acquire':
      return acquireCoordination(world, w, () => done(world, w));
    case 'release':
      return releaseCoordination(world, w, () => done(world, w));
    case 'work':
      world.send(w, 'WORK');
      world.emit(w.id, 'step', `${w.id} works for ${fmtMs(step.ms)}${inCriticalSection(world, w) ? ' inside its critical section' : ''}.`, { worker: w, data: { t: 'step', step: w.pc, name: 'work' } });
      w.workMs += step.ms;
      return done(world, w, step.ms);
    case 'check':
      return check(world, w);
    case 'read':
      return read(world, w);
    case 'effect':
      return effect(world, w, step.ms);
    case 'enqueue':
      world.send(w, 'RECORD');
      return world.sql(w, { op: 'insert', table: 'jobs', values: { job_key: jobKeyFor(world.scenario, w.id), status: 'pending' } }, (r) =>
        r.status === 'ok' ? `${w.id} writes a durable job record (pending) before calling out.` : `${w.id} could not write its job record.`,
      (r) => {
        if (r.status !== 'ok') return failJob(world, w, 'job record insert failed');
        w.enqueued = true;
        done(world, w);
      });
    case 'record':
      return record(world, w);
  }
}

function inCriticalSection(world: World, w: WorkerRuntime): boolean {
  const b = world.beliefs(w);
  return b.ownsLease || b.holdsLock;
}

function commit(world: World, w: WorkerRuntime): void {
  const b = world.beliefs(w);
  if (!b.inTransaction) return done(world, w);
  world.send(w, 'RECORD');
  world.sql(w, { op: 'commit' }, (r) => {
    const rolledBack = r.status === 'ok' && r.tag === 'ROLLBACK';
    const xactLock = world.scenario.mechanism.lock === 'advisory-xact';
    world.send(w, 'BELIEVE', { inTransaction: false, ...(xactLock ? { holdsLock: false } : {}) });
    if (b.ownsLease && b.acquiredAtMs !== null) world.metrics.leaseAgeAtCommitMs.push(world.nowMs - b.acquiredAtMs);
    if (rolledBack) return `${w.id}'s transaction had failed, so COMMIT rolls it back.`;
    return `${w.id} commits${xactLock ? '; the transaction-scoped advisory lock is released with it' : ''}.`;
  }, (r) => {
    if (r.status === 'ok' && r.tag === 'ROLLBACK') w.outcome = w.outcome === 'completed' ? 'failed' : w.outcome;
    done(world, w);
  });
}

/** Where the finished result of the job would be, as a SELECT. */
function resultQuery(world: World, w: WorkerRuntime): Stmt | null {
  const job = world.scenario.job;
  if (job.kind === 'insertOnce') return { op: 'select', table: job.table, where: job.key };
  if (world.scenario.mechanism.jobRecord) return { op: 'select', table: 'jobs', columns: ['status'], where: { job_key: jobKeyFor(world.scenario, w.id) } };
  return null;
}

function check(world: World, w: WorkerRuntime): void {
  const q = resultQuery(world, w);
  if (q === null) return done(world, w);
  world.send(w, 'WORK');
  const isRecord = world.scenario.job.kind !== 'insertOnce';
  world.sql(w, q, (r) => {
    const found = r.status === 'ok' && r.rows.some((row) => !isRecord || row.status === 'done');
    if (r.status !== 'ok') return `${w.id}'s check fails.`;
    if (isRecord) return found ? `${w.id} finds the job record marked done: nothing left to do.` : `${w.id} finds no completed job record, so it does the job.`;
    return found ? `${w.id} finds the row already there and loads it.` : `${w.id} finds no row yet, so it will insert one (another worker may be deciding the same right now).`;
  }, (r) => {
    if (r.status === 'error') return failJob(world, w, r.error.message);
    const found = r.status === 'ok' && r.rows.some((row) => !isRecord || row.status === 'done');
    if (found) return skipRest(world, w, isRecord ? 'alreadyDone' : 'loadedExisting');
    done(world, w);
  });
}

function read(world: World, w: WorkerRuntime): void {
  const s = world.scenario;
  const job = s.job;
  if (job.kind !== 'debit' && job.kind !== 'reserve') return done(world, w);
  const lock = s.mechanism.rowLock === 'none' ? undefined : s.mechanism.rowLock;
  const stmt: Stmt = job.kind === 'debit'
    ? { op: 'select', table: 'accounts', columns: ['balance'], where: { id: job.accountId }, ...(lock ? { lock } : {}) }
    : { op: 'select', table: 'items', columns: ['stock'], where: { id: job.itemId }, ...(lock ? { lock } : {}) };
  const column = job.kind === 'debit' ? 'balance' : 'stock';
  world.send(w, 'WORK');
  world.sql(w, stmt, (r) => {
    if (r.status !== 'ok') return `${w.id}'s read fails.`;
    const v = r.rows[0]?.[column];
    if (typeof v === 'number') world.send(w, 'BELIEVE', { readValue: v, ...(lock ? { holdsLock: true } : {}) });
    if (v === undefined) return `${w.id} gets no row (it is locked by someone else and skipped).`;
    return `${w.id} reads ${column} = ${String(v)}${lock ? ' and locks the row until its transaction ends' : ' (no lock: another transaction may change it before this one writes)'}.`;
  }, (r) => {
    if (r.status === 'error') return failJob(world, w, r.error.message);
    const v = r.status === 'ok' ? r.rows[0]?.[column] : undefined;
    if (typeof v !== 'number') return skipRest(world, w, 'soldOut');
    if (job.kind === 'reserve' && v < job.quantity) return skipRest(world, w, 'soldOut');
    done(world, w);
  });
}

/** Stops before a write when the mechanism says so and a renewal has failed. Returns true if it stopped. */
function stopsForLostLease(world: World, w: WorkerRuntime): boolean {
  if (!world.scenario.mechanism.stopOnRenewFailure || !world.beliefs(w).renewFailed) return false;
  world.emit(w.id, 'outcome', `${w.id} saw a renewal fail, so it stops before writing anything.`, { worker: w });
  skipRest(world, w, 'stopped');
  return true;
}

function effect(world: World, w: WorkerRuntime, ms: number): void {
  if (stopsForLostLease(world, w)) return;
  const job = world.scenario.job;
  world.send(w, 'EFFECT');
  if (job.kind === 'external') return externalEffect(world, w, ms);
  if (job.kind === 'insertOnce') return insertRow(world, w, job.table, { ...job.key, ...job.values }, job.key, ms);
  if (job.kind === 'debit') {
    const b = world.beliefs(w);
    const amount = w.spec.amount ?? 10;
    const balance = (b.readValue ?? job.initialBalance) - amount;
    return world.sql(w, { op: 'update', table: 'accounts', set: { balance }, where: { id: job.accountId } },
      (r) => (r.status === 'ok' ? `${w.id} writes balance = ${balance} (the ${b.readValue ?? '?'} it read minus ${amount}).` : `${w.id}'s update fails.`),
      (r) => (r.status === 'error' ? failJob(world, w, r.error.message) : done(world, w, ms)));
  }
  return world.sql(w, { op: 'update', table: 'items', set: { stock: { column: 'stock', add: -job.quantity } }, where: { id: job.itemId } },
    (r) => (r.status === 'ok' ? `${w.id} reserves ${job.quantity}: stock = stock - ${job.quantity}.` : `${w.id}'s reservation is rejected: ${r.status === 'error' ? r.error.message : 'waits'}.`),
    (r) => {
      if (r.status !== 'error') return done(world, w, ms);
      if (r.error.code === '23514') return rollbackThen(world, w, () => skipRest(world, w, 'soldOut'));
      failJob(world, w, r.error.message);
    });
}

function insertRow(world: World, w: WorkerRuntime, table: string, values: Row, key: Row, ms: number): void {
  const doNothing = world.scenario.mechanism.onConflict === 'doNothing';
  const stmt: Stmt = { op: 'insert', table, values, returning: ['id'], ...(doNothing ? { onConflictDoNothing: true } : {}) };
  world.sql(w, stmt, (r) => {
    if (r.status === 'ok') return r.rows.length > 0 ? `${w.id} inserts the row (id ${String(r.rows[0]!.id)}).` : `${w.id}'s insert found a conflicting row: nothing inserted, no row returned.`;
    if (r.status === 'error') return `${w.id}'s insert is rejected: ${r.error.message}.`;
    return `${w.id}'s insert waits: another transaction inserted the same key and has not finished.`;
  }, (r) => {
    const load = () => world.sql(w, { op: 'select', table, where: key }, (r2) => (r2.status === 'ok' ? `${w.id} loads the winner's row instead.` : `${w.id}'s load fails.`), () => skipRest(world, w, 'loadedExisting'));
    if (r.status === 'ok' && r.rows.length === 0) return load();
    if (r.status === 'ok') return done(world, w, ms);
    if (r.status === 'error' && r.error.code === '23505') return rollbackThen(world, w, load);
    if (r.status === 'error') failJob(world, w, r.error.message);
  });
}

/** ROLLBACK if in a transaction, then continue. */
function rollbackThen(world: World, w: WorkerRuntime, k: () => void): void {
  if (!world.beliefs(w).inTransaction) return k();
  world.sql(w, { op: 'rollback' }, () => {
    const xact = world.scenario.mechanism.lock === 'advisory-xact';
    world.send(w, 'BELIEVE', { inTransaction: false, ...(xact ? { holdsLock: false } : {}) });
    return `${w.id} rolls back${xact ? ', releasing its transaction-scoped advisory lock' : ''}.`;
  }, () => k());
}

function externalEffect(world: World, w: WorkerRuntime, ms: number): void {
  const s = world.scenario;
  const b = world.beliefs(w);
  const token = s.mechanism.fencing ? b.fencingToken : null;
  const idem = s.mechanism.idempotencyKey ? jobKeyFor(s, w.id) : null;
  const dest = world.destination;
  const write = dest.begin(world.nowMs, w.id, token, idem);
  const what = s.destination.kind === 'file' ? `uploads ${s.destination.target}` : `calls ${s.destination.target}`;
  const why = write.status === 'rejected' ? ': the store rejects the stale fencing token' : write.status === 'deduplicated' ? ': the idempotency key was seen before, so nothing is performed again' : token !== null && !s.destination.checksFencing ? ` with fencing token ${token} — which the destination ignores` : token !== null ? ` with fencing token ${token}` : '';
  world.emit(w.id, 'destination', `${w.id} ${what}${why}.`, { command: dest.renderRequest(token, idem), reply: write.reply, worker: w, data: { t: 'write', writeId: write.id, phase: 'begin' } });
  if (write.status === 'rejected') {
    world.metrics.staleWritesRejected += 1;
    return failJob(world, w, 'stale fencing token rejected');
  }
  if (write.status === 'deduplicated') return done(world, w);
  w.writeId = write.id;
  world.at(world.nowMs + ms, () => {
    const end = dest.finish(world.nowMs, write.id);
    w.writeId = null;
    if (b.ownsLease && b.acquiredAtMs !== null) world.metrics.leaseAgeAtCommitMs.push(world.nowMs - b.acquiredAtMs);
    world.emit(w.id, 'destination', end.status === 'rejected' ? `${w.id}'s ${s.destination.kind === 'file' ? 'upload' : 'call'} is rejected at the end: a newer fencing token was accepted meanwhile.` : `${w.id}'s ${s.destination.kind === 'file' ? 'upload completes' : 'call returns'}.`, {
      command: dest.renderRequest(token, idem), reply: end.reply, worker: w, data: { t: 'write', writeId: write.id, phase: 'end' },
    });
    if (end.status === 'rejected') {
      world.metrics.staleWritesRejected += 1;
      return failJob(world, w, 'stale fencing token rejected');
    }
    done(world, w);
  }, w, true);
}

function record(world: World, w: WorkerRuntime): void {
  if (stopsForLostLease(world, w)) return;
  const key = jobKeyFor(world.scenario, w.id);
  world.send(w, 'RECORD');
  const stmt: Stmt = w.enqueued
    ? { op: 'update', table: 'jobs', set: { status: 'done' }, where: { job_key: key } }
    : { op: 'insert', table: 'jobs', values: { job_key: key, status: 'done' }, onConflictDoNothing: true };
  world.sql(w, stmt, (r) => (r.status === 'ok' ? `${w.id} records the job as done.` : `${w.id} could not record completion.`),
    (r) => (r.status === 'error' ? failJob(world, w, r.error.message) : done(world, w)));
}

/**
 * The job throws: its error path rolls back the open transaction, unlocks in `finally` (if the
 * mechanism says so), releases a lease it believes it owns, and returns (or discards) its
 * connection. A session-level advisory lock not unlocked here leaks with the connection.
 */
export function failJob(world: World, w: WorkerRuntime, reason: string): void {
  w.outcome = 'failed';
  world.emit(w.id, 'outcome', `${w.id}'s job fails (${reason}); its error path runs.`, { worker: w });
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
      return world.sql(w, { op: 'advisory', fn: 'pg_advisory_unlock', key: { kind: 'bigint', key: m.advisoryKey } }, () => {
        world.send(w, 'BELIEVE', { holdsLock: false });
        return `${w.id}'s finally block unlocks the session-level advisory lock.`;
      }, afterUnlock);
    }
    afterUnlock();
  });
}

/** The job has ended: return the connection, stop renewals, and finish the machine. */
export function finishJob(world: World, w: WorkerRuntime): void {
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
  failed: 'the job failed',
  stopped: 'it stopped because it could not keep its lease',
  gaveUp: 'it gave up',
  crashed: 'it crashed',
};

export type { DbReply };
