/**
 * Faults are plain data (src/sim/scenario/schema.ts, `faultSchema`); this module applies them to
 * a running world, at a virtual time or at a worker's step boundary. A step fault fires once per
 * run, even if the worker restarts and passes the same step again.
 */
import type { World, WorkerRuntime } from '../engine/world';
import { fmtMs, newRuntime } from '../engine/world';
import type { Fault } from '../scenario/schema';
import { initialBeliefs } from '../workers/workerMachine';
import type { Stmt } from '../resources/sqlTypes';

/** Whether the worker goes on after a fault, or its current flow ends (crash, job error). */
export type FaultEffect = 'continue' | 'stop';

/** Schedules every fault placed at a virtual time. */
export function scheduleTimedFaults(world: World): void {
  world.scenario.faults.forEach((f, index) => {
    if (f.atMs !== undefined) world.at(f.atMs, () => void applyFault(world, f, index));
  });
}

/** Applies the faults placed at this worker's step and phase; 'stop' if one ended the worker's flow. */
export function applyStepFaults(world: World, w: WorkerRuntime, step: number, phase: 'before' | 'after'): FaultEffect {
  const faults = world.scenario.faults;
  if (faults.length === 0) return 'continue';
  const fired = world.firedStepFaults;
  let effect: FaultEffect = 'continue';
  faults.forEach((f, index) => {
    if (effect === 'stop' || f.step !== step || f.worker !== w.id || (f.phase ?? 'before') !== phase || fired.has(index)) return;
    fired.add(index);
    effect = applyFault(world, f, index);
  });
  return effect;
}

function workerOf(world: World, f: Fault): WorkerRuntime | undefined {
  return f.worker === undefined ? undefined : world.workers.get(f.worker);
}

function faultEvent(world: World, f: Fault, index: number, narration: string, extra: { command?: string; reply?: string; worker?: WorkerRuntime } = {}): void {
  world.emit(extra.worker?.id ?? (f.kind === 'manualDelete' ? 'operator' : f.kind === 'adminBypass' ? 'admin' : 'fault'), 'fault', narration, { ...extra, data: { t: 'fault', faultIndex: index, kind: f.kind } });
}

/** Applies one fault now. */
export function applyFault(world: World, f: Fault, index: number): FaultEffect {
  world.faultFiredAtMs[index] ??= world.nowMs;
  const L = world.scenario.lease;
  const w = workerOf(world, f);
  switch (f.kind) {
    case 'pause':
      if (!w || !world.isAlive(w)) return faultEvent(world, f, index, `Pause of ${f.worker}: it is not running, nothing happens.`), 'continue';
      return pauseWorker(world, w, f.pauseMs, index, f);
    case 'crash':
      if (!w || !world.isAlive(w)) return faultEvent(world, f, index, `Crash of ${f.worker}: it is not running, nothing happens.`), 'continue';
      crashWorker(world, w, f.restartAfterMs, index, f);
      return 'stop';
    case 'jobError':
      if (!w || !world.isAlive(w)) return faultEvent(world, f, index, `Job error in ${f.worker}: it is not running, nothing happens.`), 'continue';
      faultEvent(world, f, index, `${w.id}'s job throws an exception here.`, { worker: w });
      interruptWorker(world, w);
      world.jobs.fail(w, 'an exception');
      return 'stop';
    case 'partition': {
      if (!w) return 'continue';
      w.cutOffUntilMs = world.nowMs + f.durationMs;
      faultEvent(world, f, index, `${w.id} is cut off from the lease store for ${fmtMs(f.durationMs)}; it can still reach the database and the destination.`, { worker: w });
      world.at(world.nowMs + f.durationMs, () => faultEvent(world, f, index, `${w.id} can reach the lease store again.`, { worker: w }));
      return 'continue';
    }
    case 'expireLease': {
      const removed = world.leases.forceExpire(world.nowMs, L.key);
      faultEvent(world, f, index, removed ? `${L.key} is forced to expire now (as if its TTL had run out).` : `Forced expiry of ${L.key}: no such key right now.`);
      return 'continue';
    }
    case 'manualDelete':
      world.redis('operator', { op: 'DEL', keys: [L.key] }, (r) => (r.kind === 'int' && r.value === 1
        ? { text: `An operator deletes ${L.key} by hand to "unstick the queue"; its owner is alive and still believes it owns it.`, data: { t: 'lease', op: 'deleted', key: L.key, worker: 'operator' } }
        : `An operator deletes ${L.key} by hand; there was no key.`));
      return 'continue';
    case 'adminBypass':
      runAdminScript(world, index);
      return 'continue';
    case 'failover': {
      const lost = world.leases.failover(world.nowMs);
      faultEvent(world, f, index, lost.length > 0
        ? `The Redis primary fails; the promoted replica lags ${fmtMs(L.replicationLagMs)} behind and lost: ${lost.join(', ')}.`
        : 'The Redis primary fails over to its replica; nothing was lost.');
      world.scheduleExpiry();
      return 'continue';
    }
    case 'clockJump': {
      const expired = world.leases.clockJump(world.nowMs, f.jumpMs);
      faultEvent(world, f, index, `The lease store's clock jumps ${fmtMs(f.jumpMs)} forward${expired.length > 0 ? `: ${expired.join(', ')} expire early` : ''}.`);
      world.scheduleExpiry();
      return 'continue';
    }
  }
}

function pauseWorker(world: World, w: WorkerRuntime, pauseMs: number, index: number, f: Fault): FaultEffect {
  const until = world.nowMs + pauseMs;
  if (w.pausedUntilMs !== null && world.nowMs < w.pausedUntilMs) {
    w.pauseMs += Math.max(0, until - w.pausedUntilMs);
    w.pausedUntilMs = Math.max(until, w.pausedUntilMs);
  } else {
    w.pausedUntilMs = until;
    w.pauseMs = pauseMs;
    world.send(w, 'PAUSE');
  }
  faultEvent(world, f, index, `${w.id} pauses for ${fmtMs(pauseMs)} (a stop-the-world GC, a VM migration): it runs nothing and cannot notice.`, { worker: w });
  world.at(until, () => {
    if (w.pausedUntilMs === null || world.nowMs < w.pausedUntilMs || world.stateOf(w) !== 'paused') return;
    w.pausedUntilMs = null;
    world.send(w, 'RESUME');
    const b = world.beliefs(w);
    const belief = b.ownsLease ? ` It still believes it owns ${world.scenario.lease.key}${b.fencingToken !== null ? ` (token ${b.fencingToken})` : ''}.` : '';
    faultEvent(world, f, index, `${w.id} resumes after ${fmtMs(pauseMs)}, unaware it was paused.${belief}`, { worker: w });
  });
  return 'continue';
}

/** Cancels the worker's timers and whatever it waits for (its database statement, its place in the pool queue). */
function interruptWorker(world: World, w: WorkerRuntime): void {
  w.gen += 1;
  if (w.waitKind === 'pool') world.pool.cancelWait(w.id);
  if (w.waitKind === 'db') {
    const session = world.beliefs(w).connection;
    w.waitingK = null;
    if (session !== null) world.deliverCompletions(world.db.cancelWaiting(session, { code: '57014', message: 'canceling statement due to user request' }));
  }
  w.waitingK = null;
  w.waitKind = null;
}

function crashWorker(world: World, w: WorkerRuntime, restartAfterMs: number | null, index: number, f: Fault): void {
  interruptWorker(world, w);
  w.renewGen += 1;
  w.pausedUntilMs = null;
  if (w.writeId !== null) {
    const write = world.destination.abort(world.nowMs, w.writeId);
    w.writeId = null;
    world.emit(w.id, 'destination', write.performed ? `${w.id}'s call had already reached the API: the effect happened, but ${w.id} never learns it.` : `${w.id}'s unfinished upload is discarded.`, { reply: write.reply, data: { t: 'write', writeId: write.id, phase: 'end' } });
  }
  const before = world.beliefs(w);
  w.outcome = 'crashed';
  world.send(w, 'CRASH', { outcome: 'crashed' });
  const consequences = [
    before.connection !== null ? `its database connection closes${before.inTransaction || before.holdsLock ? ', rolling back its transaction and releasing its advisory locks' : ''}` : '',
    before.ownsLease ? `its lease stays in Redis until its TTL runs out` : '',
  ].filter((x) => x !== '');
  const tail = consequences.length > 0 ? ` ${consequences.join('; ').replace(/^./, (c) => c.toUpperCase())}.` : '';
  faultEvent(world, f, index, `${w.id} crashes${restartAfterMs === null ? '' : ` and will restart in ${fmtMs(restartAfterMs)}`}.${tail}`, { worker: w });
  const session = world.beliefs(w).connection;
  if (session !== null) world.giveBack(w, true);
  if (restartAfterMs === null) return;
  world.at(world.nowMs + restartAfterMs, () => {
    if (world.stateOf(w) !== 'crashed') return;
    const incarnation = world.beliefs(w).incarnation + 1;
    w.gen += 1;
    w.cutOffUntilMs = null;
    world.send(w, 'RESTART', { ...initialBeliefs, incarnation });
    faultEvent(world, f, index, `${w.id} restarts and retries the job from its first step; it remembers nothing of its first attempt.`, { worker: w });
    world.jobs.start(w);
  });
}

/** The admin script: its own psql session, no pool, no lock — it performs the job's write directly. */
function runAdminScript(world: World, index: number): void {
  const s = world.scenario;
  let admin = world.workers.get('admin');
  if (admin && admin.waitingK !== null) {
    faultEvent(world, s.faults[index]!, index, 'A second admin script would start, but the first one is still waiting for the database: skipped.');
    return;
  }
  if (!admin || !world.isAlive(admin)) {
    const firstRun = !admin;
    admin = newRuntime({ id: 'admin', startMs: world.nowMs, steps: [{ do: 'effect', ms: 0 }] });
    world.workers.set('admin', admin);
    if (firstRun) world.db.openSession('admin');
    world.sessionOwner.set('admin', 'admin');
    world.send(admin, 'BELIEVE', { connection: 'admin' });
  }
  const a = admin;
  world.send(a, 'EFFECT');
  faultEvent(world, s.faults[index]!, index, 'An admin script runs a fix-up by hand. It does not know about the cooperative lock, so it does not take it.');
  const finish = () => {
    world.send(a, 'FINISH', { outcome: 'completed' });
  };
  const job = s.job;
  if (job.kind === 'external') {
    const write = world.destination.begin(world.nowMs, 'admin', null, null);
    world.destination.finish(world.nowMs, write.id);
    world.emit('admin', 'destination', `The admin script writes ${s.destination.target} directly.`, { command: world.destination.renderRequest(null, null), reply: write.reply, worker: a, data: { t: 'write', writeId: write.id, phase: 'begin' } });
    world.emit('admin', 'destination', 'The admin write completes.', { reply: write.reply, worker: a, data: { t: 'write', writeId: write.id, phase: 'end' } });
    return finish();
  }
  const stmt: Stmt = job.kind === 'insertOnce'
    ? { op: 'insert', table: job.table, values: { ...job.key, ...job.values }, returning: ['id'] }
    : job.kind === 'debit'
      ? { op: 'update', table: 'accounts', set: { balance: { column: 'balance', add: -10 } }, where: { id: job.accountId } }
      : { op: 'update', table: 'items', set: { stock: { column: 'stock', add: -job.quantity } }, where: { id: job.itemId } };
  world.sql(a, stmt, (r) => (r.status === 'ok' ? 'The admin script writes directly, without the lock: the lock cannot stop SQL that does not ask for it.' : r.status === 'error' ? `The database rejects the admin script's write: ${r.error.message}.` : "The admin script's write waits for another transaction."), finish);
}
