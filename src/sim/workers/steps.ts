/**
 * What each job step does, given the job kind and the mechanism: the literal commands a worker
 * sends and how it reacts to the replies. One handler per step kind (`STEP_HANDLERS`).
 * Continuation-passing: a handler calls `world.jobs.done(w, ms)` when its step has finished
 * (after `ms` of virtual time), possibly after waiting for a lock; `world.jobs.fail` and
 * `world.jobs.skipRest` end the job's work early. The lifecycle itself (start, next step, fail,
 * finish) is src/sim/workers/lifecycle.ts.
 */
import { explained } from '../engine/narration';
import type { World, WorkerRuntime } from '../engine/world';
import { fmtMs } from '../engine/fmt';
import { fencedValuesFor, jobKeyFor } from '../engine/tables';
import { sqlCallOf } from '../engine/trace';
import type { Row, Stmt } from '../resources/sqlTypes';
import type { WriteStatus } from '../resources/destination';
import type { Job, Step } from '../scenario/schema';
import { acquireCoordination, releaseCoordination, stillHeld } from './coordination';
import { runSql } from './replyClass';
import { ack, extendVisibility, markClaimed, receive } from './queueSteps';

/** What one kind of step does: starts it, and eventually calls `world.jobs.done(w)` (or fails or skips the rest). */
export type StepHandler<K extends Step['do']> = (world: World, w: WorkerRuntime, step: Extract<Step, { do: K }>) => void;

/** One handler per step kind. */
export const STEP_HANDLERS: { readonly [K in Step['do']]: StepHandler<K> } = {
  connect: (world, w) => {
    if (world.beliefs(w).connection !== null) return world.jobs.done(w);
    world.borrow(w, () => world.jobs.done(w));
  },
  disconnect: (world, w) => {
    world.send(w, 'RELEASE');
    world.giveBack(w);
    world.jobs.done(w);
  },
  begin: (world, w, step) => {
    world.send(w, 'WORK');
    const isolation = step.isolation ?? world.scenario.database.isolation;
    const stmt: Stmt = isolation === undefined ? { op: 'begin' } : { op: 'begin', isolation };
    // READ COMMITTED needs no words; the other levels change what the transaction may get (40001).
    const opens = `${w.id} opens a ${isolation === undefined || isolation === 'read committed' ? '' : `${isolation.toUpperCase()} `}transaction.`;
    if (!world.beliefs(w).inTransaction) {
      w.txnStartPc = w.pc;
      w.effectsInTxn = 0;
      w.workMsAtTxnStart = w.workMs;
    }
    runSql(world, w, stmt, {
      believe: (_r, c) => {
        if (c !== 'error') world.send(w, 'BELIEVE', { inTransaction: true });
      },
      ok: () => opens,
      none: () => opens,
      refused: (r) => `${w.id}'s BEGIN only warns (${r.warning ?? 'a transaction is already in progress'}): it is still in the transaction it had.`,
      error: (r) => `${w.id}'s BEGIN fails: ${r.error.message}.`,
    }, (r) => {
      // A BEGIN that fails (the server had closed the connection) throws in the client: the job fails.
      if (r.status === 'error') return world.jobs.fail(w, r.error.message, r.error.code);
      world.jobs.done(w);
    });
  },
  commit: (world, w) => commit(world, w),
  acquire: (world, w, step) => acquireCoordination(world, w, () => world.jobs.done(w), step.advisoryKey),
  release: (world, w) => releaseCoordination(world, w, () => world.jobs.done(w)),
  work: (world, w, step) => {
    world.send(w, 'WORK');
    world.emit(w.id, 'step', `${w.id} works for ${fmtMs(step.ms)}${inCriticalSection(world, w) ? ' inside its critical section' : ''}.`, { worker: w, data: { t: 'step', step: w.pc, name: 'work' } });
    w.workMs += step.ms;
    w.workStep = { startMs: world.nowMs, plannedMs: step.ms, pausedBeforeMs: w.pausedTotalMs };
    world.jobs.done(w, step.ms);
  },
  check: (world, w) => check(world, w),
  read: (world, w) => read(world, w),
  effect: (world, w, step) => effect(world, w, step.ms),
  enqueue: (world, w) => {
    world.send(w, 'RECORD');
    runSql(world, w, { op: 'insert', table: 'jobs', values: { job_key: jobKeyFor(world.scenario, w.id), status: 'pending' } }, {
      ok: () => `${w.id} writes a durable job record (pending) before calling out.`,
      none: () => `${w.id}'s job record insert inserts nothing.`,
      refused: () => `${w.id}'s job record insert inserts nothing.`,
      error: (r) => `${w.id} could not write its job record: ${r.error.message}.`,
    }, (r) => {
      // A second pending record for the job key is a unique violation (23505): the job fails with it.
      if (r.status === 'error') return world.jobs.fail(w, r.error.message, r.error.code);
      if (r.status !== 'ok' || r.tag === 'INSERT 0 0') return world.jobs.fail(w, 'its job record insert inserted nothing');
      w.enqueued = true;
      world.jobs.done(w);
    });
  },
  record: (world, w) => record(world, w),
  receive: (world, w) => receive(world, w),
  markClaimed: (world, w) => markClaimed(world, w),
  extendVisibility: (world, w) => extendVisibility(world, w),
  ack: (world, w) => ack(world, w),
};

/** Runs the handler of `step`. */
export function runStepHandler(world: World, w: WorkerRuntime, step: Step): void {
  (STEP_HANDLERS[step.do] as StepHandler<Step['do']>)(world, w, step as never);
}

function inCriticalSection(world: World, w: WorkerRuntime): boolean {
  const b = world.beliefs(w);
  return b.ownsLease || b.holdsLock;
}

function commit(world: World, w: WorkerRuntime): void {
  const b = world.beliefs(w);
  if (!b.inTransaction) return world.jobs.done(w);
  world.send(w, 'RECORD');
  const xactLock = world.scenario.mechanism.lock === 'advisory-xact';
  const session = world.sessionOf(w);
  const xactKeys = xactLock && session !== null ? world.db.sessionState(session).advisoryLocks.filter((l) => l.xactCount > 0).map((l) => l.key) : [];
  // Only what the session really holds now (after a 40P01 the abort has released it already).
  const released = xactKeys.length > 1 ? `; the transaction-scoped advisory locks ${xactKeys.join(' and ')} are released with it` : xactKeys.length === 1 ? '; the transaction-scoped advisory lock is released with it' : '';
  runSql(world, w, { op: 'commit' }, {
    believe: (_r, c) => {
      world.send(w, 'BELIEVE', { inTransaction: false, holdsLock: lockAfterTransaction(world, w) });
      if (c === 'ok' && b.ownsLease && b.acquiredAtMs !== null) world.recordLeaseCommit(w);
    },
    ok: () => `${w.id} commits${released}.`,
    none: () => `${w.id} commits${released}.`,
    refused: () => `${w.id}'s transaction had failed, so COMMIT rolls it back${released}.`,
    error: (r) => `${w.id}'s COMMIT fails (${r.error.message}): the transaction is rolled back${released}.`,
  }, (r) => {
    w.txnStartPc = null;
    if (r.status === 'ok' && r.tag === 'ROLLBACK') w.outcome = w.outcome === 'completed' ? 'failed' : w.outcome;
    // A COMMIT that fails (SERIALIZABLE's 40001, a connection the server closed) fails the job.
    if (r.status === 'error') return world.jobs.fail(w, r.error.message, r.error.code);
    world.jobs.done(w);
  });
}

/**
 * What the worker believes it holds once its transaction has ended (COMMIT or ROLLBACK): row
 * locks (`FOR UPDATE`) and transaction-level advisory locks end with the transaction; only a
 * session-level advisory lock its session still holds survives it (semantics.md, "PostgreSQL
 * advisory locks" and "Row locks").
 */
function lockAfterTransaction(world: World, w: WorkerRuntime): boolean {
  return world.beliefs(w).holdsLock && world.scenario.mechanism.lock === 'advisory-session' && stillHeld(world, w);
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
  if (q === null) return world.jobs.done(w);
  world.send(w, 'WORK');
  const isRecord = world.scenario.job.kind !== 'insertOnce';
  const notFound = isRecord ? `${w.id} finds no completed job record, so it does the job.` : explained(`${w.id} finds no row yet, so it will insert one`, ' (another worker may be deciding the same right now)');
  runSql(world, w, q, {
    ok: (r) => {
      if (!r.rows.some((row) => !isRecord || row.status === 'done')) return notFound;
      if (isRecord) return `${w.id} finds the job record marked done: nothing left to do.`;
      // More than one row for the business key (a write that bypassed the lock, no UNIQUE): the reply lists them all, so does the sentence.
      if (r.rows.length > 1) return `${w.id} finds ${r.rows.length} rows for this key already there (${r.rows.map((row) => `id ${String(row.id)}`).join(', ')}), where there should be one, and loads them.`;
      return `${w.id} finds the row already there and loads it.`;
    },
    none: () => notFound,
    refused: () => notFound,
    error: (r) => `${w.id}'s check fails: ${r.error.message}.`,
  }, (r) => {
    if (r.status === 'error') return world.jobs.fail(w, r.error.message, r.error.code);
    const found = r.status === 'ok' && r.rows.some((row) => !isRecord || row.status === 'done');
    if (found) return world.jobs.skipRest(w, isRecord ? 'alreadyDone' : 'loadedExisting');
    world.jobs.done(w);
  });
}

function read(world: World, w: WorkerRuntime): void {
  const s = world.scenario;
  const job = s.job;
  if (job.kind !== 'debit' && job.kind !== 'reserve') return world.jobs.done(w);
  const lock = s.mechanism.rowLock === 'none' ? undefined : s.mechanism.rowLock;
  const stmt: Stmt = job.kind === 'debit'
    ? { op: 'select', table: 'accounts', columns: ['balance'], where: { id: job.accountId }, ...(lock ? { lock } : {}) }
    : { op: 'select', table: 'items', columns: ['stock'], where: { id: job.itemId }, ...(lock ? { lock } : {}) };
  const column = job.kind === 'debit' ? 'balance' : 'stock';
  world.send(w, 'WORK');
  const noRow = `${w.id} gets no row${lock === 'forUpdateSkipLocked' ? ' (another transaction has it locked, and SKIP LOCKED skips it)' : ''}.`;
  // A helper's read, or one outside BEGIN, runs in autocommit: its row lock ends with the statement.
  const autocommit = w.helper !== null || !world.beliefs(w).inTransaction;
  runSql(world, w, stmt, {
    believe: (r) => {
      const v = r.status === 'ok' ? r.rows[0]?.[column] : undefined;
      if (typeof v === 'number') world.send(w, 'BELIEVE', { readValue: v, ...(lock && !autocommit ? { holdsLock: true } : {}) });
    },
    ok: (r) => {
      const v = r.rows[0]?.[column];
      if (v === undefined) return noRow;
      if (w.helper !== null) return `${w.id}'s helper reads ${column} = ${String(v)}${lock ? ' (in autocommit: the row lock ends with the statement)' : ''}.`;
      if (lock && autocommit) return `${w.id} reads ${column} = ${String(v)} outside a transaction (in autocommit: the row lock ends with the statement).`;
      return lock ? `${w.id} reads ${column} = ${String(v)} and locks the row until its transaction ends.` : explained(`${w.id} reads ${column} = ${String(v)}`, ' (no lock: another transaction may change it before this one writes)');
    },
    none: () => noRow,
    refused: () => noRow,
    error: (r) => `${w.id}'s read fails: ${r.error.message}.`,
  }, (r) => {
    if (r.status === 'error') return world.jobs.fail(w, r.error.message, r.error.code);
    const v = r.status === 'ok' ? r.rows[0]?.[column] : undefined;
    // No row (SKIP LOCKED skipped a locked one, or there is none): nothing to debit or reserve, whatever the stock.
    if (typeof v !== 'number') return world.jobs.skipRest(w, 'noRow');
    if (job.kind === 'reserve' && v < job.quantity) return world.jobs.skipRest(w, 'soldOut');
    world.jobs.done(w);
  });
}

/**
 * Stops before a write when the mechanism says so and the worker knows its lease may be lost (a
 * renewal failed, or a write was refused as stale). `before` names the write it does not do (the
 * effect, or the completion record after an effect it already did). Returns true if it stopped.
 */
function stopsForLostLease(world: World, w: WorkerRuntime, before: 'its write' | 'recording the job as done'): boolean {
  if (!world.scenario.mechanism.stopOnRenewFailure) return false;
  const known = world.beliefs(w);
  if (!known.renewFailed && !known.refusedAsStale) return false;
  const why = known.renewFailed ? 'saw a renewal fail' : 'had a write refused as stale (it lost the lease)';
  world.emit(w.id, 'outcome', `${w.id} ${why}, so it stops before ${before}.`, { worker: w });
  world.jobs.skipRest(w, 'stopped');
  return true;
}

function effect(world: World, w: WorkerRuntime, ms: number): void {
  if (stopsForLostLease(world, w, 'its write')) return;
  const job = world.scenario.job;
  world.send(w, 'EFFECT');
  if (job.kind === 'external') return externalEffect(world, w, ms);
  if (job.kind === 'fencedRow') return fencedUpdate(world, w, job, ms);
  if (job.kind === 'insertOnce') return insertRow(world, w, job.table, { ...job.key, ...job.values }, job.key, ms);
  if (job.kind === 'debit') {
    const b = world.beliefs(w);
    const amount = w.spec.amount ?? 10;
    const balance = (b.readValue ?? job.initialBalance) - amount;
    const noAccount = `${w.id}'s UPDATE matches no row (UPDATE 0): no balance is written.`;
    return runSql(world, w, { op: 'update', table: 'accounts', set: { balance }, where: { id: job.accountId } }, {
      ok: () => `${w.id} writes balance = ${balance} (the ${b.readValue ?? '?'} it read minus ${amount}).`,
      none: () => noAccount,
      refused: () => noAccount,
      error: (r) => `${w.id}'s update fails: ${r.error.message}.`,
    }, (r) => (r.status === 'error' ? world.jobs.fail(w, r.error.message, r.error.code) : world.jobs.done(w, ms)));
  }
  const noItem = `${w.id}'s UPDATE matches no row (UPDATE 0): nothing is reserved.`;
  return runSql(world, w, { op: 'update', table: 'items', set: { stock: { column: 'stock', add: -job.quantity } }, where: { id: job.itemId } }, {
    ok: () => `${w.id} reserves ${job.quantity}: stock = stock - ${job.quantity}.`,
    none: () => noItem,
    refused: () => noItem,
    error: (r) => `${w.id}'s reservation is rejected: ${r.error.message}.`,
  }, (r) => {
      if (r.status !== 'error') return world.jobs.done(w, ms);
      if (r.error.code === '23514') return rollbackThen(world, w, () => world.jobs.skipRest(w, 'soldOut'));
      world.jobs.fail(w, r.error.message, r.error.code);
    });
}

/**
 * The database as the fenced resource (semantics.md, "Fencing beyond a Redis counter"): `UPDATE
 * table SET …, fence = $token WHERE id = $rowId`, and when the database checks the token
 * (`destination.checksFencing`) `AND fence < $token`. `UPDATE 0` then means the row already
 * carries a token at least as high: the worker is a stale holder, learns it from the reply (it
 * no longer believes it owns the lease) and its job fails. Without the condition a stale holder's
 * late UPDATE overwrites a newer holder's row. Without a token (fencing off) the UPDATE sets no fence.
 */
function fencedUpdate(world: World, w: WorkerRuntime, job: Extract<Job, { kind: 'fencedRow' }>, ms: number): void {
  const s = world.scenario;
  const token = s.mechanism.fencing ? world.beliefs(w).fencingToken : null;
  const conditional = token !== null && s.destination.checksFencing;
  const values = fencedValuesFor(job.values, w.id);
  const stmt: Stmt = {
    op: 'update', table: job.table, set: { ...values, ...(token !== null ? { fence: token } : {}) }, where: { id: job.rowId },
    ...(conditional ? { whereBelow: { fence: token } } : {}),
  };
  // The row as committed before this write: whose fence it carried (for the narration of an overwrite).
  const before = world.db.committedRows(job.table).find((r) => r.id === job.rowId);
  const priorFence = typeof before?.fence === 'number' ? before.fence : null;
  const priorWriter = priorFence === null ? null : writerOfFence(world, job.table, priorFence);
  const row = `row ${job.rowId} of ${job.table}`;
  const noRow = `${w.id}'s UPDATE matches no row (UPDATE 0): there is no ${row}, so nothing is written.`;
  const stale = conditional && before !== undefined;
  const b = world.beliefs(w);
  runSql(world, w, stmt, {
    believe: (_r, c) => {
      if (c === 'none' && stale) world.send(w, 'BELIEVE', { ownsLease: false, refusedAsStale: true });
      // An autocommit UPDATE commits as it runs: the lease's age then is its age at commit.
      if (c === 'ok' && (!b.inTransaction || w.helper !== null) && b.ownsLease && b.acquiredAtMs !== null) world.recordLeaseCommit(w);
    },
    ok: () => {
      if (conditional) return `${w.id} writes ${row} with fencing token ${token} (UPDATE 1): the row's fence was lower, so the database accepts it.`;
      // A write it overwrites is lost when it came from a newer holder (a higher fence) or from
      // another holder given the same token; its own earlier write with its token (a retry) is not.
      const sameToken = priorFence === token && priorWriter !== w.id;
      if (token !== null && priorFence !== null && (priorFence > token || sameToken)) {
        const whose = priorWriter === null ? `the row, which carried fence ${priorFence}` : `${priorWriter}'s row (fence ${priorFence})`;
        const lost = sameToken ? `${priorWriter ?? 'another holder'}'s write with the same token` : priorWriter === null ? 'the newer write' : `${priorWriter}'s newer write`;
        return explained(`${w.id}'s UPDATE overwrites ${whose} with its own token ${token} (UPDATE 1)`, `: nothing in the UPDATE compares the tokens, so ${lost} is lost`);
      }
      return token !== null ? explained(`${w.id} writes ${row} and sets fence = ${token} (UPDATE 1)`, '; the UPDATE does not check the fence') : `${w.id} writes ${row} (UPDATE 1).`;
    },
    none: () => (stale
      ? `${w.id}'s conditional UPDATE updates 0 rows (UPDATE 0): ${row} already carries a fencing token ≥ ${token}, so ${w.id} is a stale holder. It writes nothing and now knows it lost the lease.`
      : noRow),
    refused: () => noRow,
    error: (r) => `${w.id}'s UPDATE fails: ${r.error.message}.`,
  }, (r) => {
    if (r.status === 'error') return world.jobs.fail(w, r.error.message, r.error.code);
    if (r.status === 'ok' && r.tag === 'UPDATE 0' && stale) {
      world.metrics.staleWritesRejected += 1;
      return world.jobs.fail(w, 'stale fencing token: the conditional UPDATE updated 0 rows');
    }
    world.jobs.done(w, ms);
  });
}

/** Who last wrote `fence` into `table` with an UPDATE that updated a row (from the trace), or null. */
function writerOfFence(world: World, table: string, fence: number): string | null {
  for (let i = world.events.length - 1; i >= 0; i--) {
    const e = world.events[i]!;
    const call = sqlCallOf(e);
    if (call?.command.op === 'update' && call.command.table === table && call.command.set.fence === fence && call.reply.status === 'ok' && call.reply.tag !== 'UPDATE 0') return e.actor;
  }
  return null;
}

function insertRow(world: World, w: WorkerRuntime, table: string, values: Row, key: Row, ms: number): void {
  const doNothing = world.scenario.mechanism.onConflict === 'doNothing';
  const stmt: Stmt = { op: 'insert', table, values, returning: ['id'], ...(doNothing ? { onConflictDoNothing: true } : {}) };
  const conflict = `${w.id}'s insert found a conflicting row: nothing inserted, no row returned.`;
  runSql(world, w, stmt, {
    ok: (r) => (r.rows.length > 0 ? `${w.id} inserts the row (id ${String(r.rows[0]!.id)}).` : conflict),
    none: () => conflict,
    refused: () => conflict,
    error: (r) => `${w.id}'s insert is rejected: ${r.error.message}.`,
  }, (r) => {
    const nothingToLoad = `${w.id} looks for the winner's row and finds none (SELECT 0): the other insert did not commit.`;
    const load = () => runSql(world, w, { op: 'select', table, where: key }, {
      ok: (r2) => (r2.rows.length > 0 ? `${w.id} loads the winner's row instead.` : nothingToLoad),
      none: () => nothingToLoad,
      refused: () => nothingToLoad,
      error: (r2) => `${w.id}'s load fails: ${r2.error.message}.`,
    }, (r2) => (r2.status === 'error' ? world.jobs.fail(w, r2.error.message, r2.error.code) : world.jobs.skipRest(w, 'loadedExisting')));
    if (r.status === 'ok' && r.rows.length === 0) return load();
    if (r.status === 'ok') return world.jobs.done(w, ms);
    if (r.status === 'error' && r.error.code === '23505') return rollbackThen(world, w, load);
    if (r.status === 'error') world.jobs.fail(w, r.error.message, r.error.code);
  });
}

/** ROLLBACK if in a transaction, then continue. */
export function rollbackThen(world: World, w: WorkerRuntime, k: () => void): void {
  // A helper's statement ran in autocommit on its own connection: there is nothing of its to roll back.
  if (!world.beliefs(w).inTransaction || w.helper !== null) return k();
  const xact = world.scenario.mechanism.lock === 'advisory-xact';
  const rolls = `${w.id} rolls back${xact ? ', releasing its transaction-scoped advisory lock' : ''}.`;
  runSql(world, w, { op: 'rollback' }, {
    believe: () => world.send(w, 'BELIEVE', { inTransaction: false, holdsLock: lockAfterTransaction(world, w) }),
    ok: () => rolls,
    none: () => rolls,
    refused: (r) => `${w.id}'s ROLLBACK only warns (${r.warning ?? 'there is no transaction in progress'}): there was nothing to roll back.`,
    error: (r) => `${w.id}'s ROLLBACK fails: ${r.error.message}.`,
  }, () => k());
}

/**
 * The job's external effect: a request to the destination (an upload or an API call). The begin
 * event shows the request as sent (its reply `PENDING_REPLY` unless the destination answers at
 * once: a stale token, a replayed or in-flight idempotency key); the end event, `ms` later, shows
 * the reply as it arrives. Each event is worded by the write's status (the reply's class).
 * A 409 for an idempotency key still in flight is retried after `lease.retryEveryMs`.
 */
function externalEffect(world: World, w: WorkerRuntime, ms: number): void {
  const s = world.scenario;
  const b = world.beliefs(w);
  const token = s.mechanism.fencing ? b.fencingToken : null;
  const idem = s.mechanism.idempotencyKey ? jobKeyFor(s, w.id) : null;
  const { write, call } = world.destinationCall(w.id, { op: 'begin', token, idempotencyKey: idem });
  const render = world.destinationResource.renderCommand({ op: 'begin', token, idempotencyKey: idem });
  const file = s.destination.kind === 'file';
  const what = file ? `uploads ${s.destination.target}` : `calls ${s.destination.target}`;
  const tokenNote = token === null ? '' : s.destination.checksFencing ? ` with fencing token ${token}` : explained(` with fencing token ${token}`, ' — which the destination ignores', '');
  const retryMs = s.lease.retryEveryMs;
  // begin answers in flight, or at once: rejected, deduplicated or conflict (destination.ts; never accepted or aborted).
  if (write.status === 'accepted' || write.status === 'aborted') throw new Error(`destination begin answered ${write.status}`);
  const begun: { readonly [S in Exclude<WriteStatus, 'accepted' | 'aborted'>]: string } = {
    inFlight: `${w.id} ${what}${tokenNote}; ${file ? 'the upload is' : 'the request is'} in progress, no reply yet.`,
    rejected: `${w.id} ${what}: the store rejects the stale fencing token.`,
    deduplicated: `${w.id} ${what}: the idempotency key was seen before and its request has finished, so the first result is replayed and nothing is performed again.`,
    conflict: `${w.id} ${what}: a request with the same idempotency key is still in progress, so the destination refuses this one (409) and performs nothing; ${w.id} will retry in ${fmtMs(retryMs)}.`,
  };
  world.emit(w.id, 'destination', begun[write.status], { command: render, reply: write.reply, worker: w, data: { t: 'write', writeId: write.id, phase: 'begin' }, call });
  if (write.status === 'rejected') {
    world.metrics.staleWritesRejected += 1;
    return world.jobs.fail(w, 'stale fencing token rejected');
  }
  if (write.status === 'conflict') {
    world.at(world.nowMs + retryMs, () => externalEffect(world, w, ms), w, true);
    return;
  }
  if (write.status === 'deduplicated') return world.jobs.done(w);
  if (b.inTransaction) w.effectsInTxn += 1;
  w.writeId = write.id;
  world.at(world.nowMs + ms, () => {
    const { write: end, call: endCall } = world.destinationCall(w.id, { op: 'finish', writeId: write.id, token, idempotencyKey: idem });
    w.writeId = null;
    // Lease age at commit: only a write the destination kept commits anything (a rejected upload does not).
    if (end.status === 'accepted' && b.ownsLease && b.acquiredAtMs !== null) world.recordLeaseCommit(w);
    // The worker's pending finish is cancelled when it crashes (abort ends the write instead), so
    // finish always meets the write in flight and ends it accepted or rejected (destination.ts).
    if (end.status !== 'accepted' && end.status !== 'rejected') throw new Error(`destination finish of in-flight write ${write.id} answered ${end.status}`);
    const ended = end.status === 'accepted'
      ? `${w.id}'s ${file ? 'upload completes' : 'call returns'}: ${end.reply}.`
      : `${w.id}'s ${file ? 'upload' : 'call'} is rejected at the end: a newer fencing token was accepted meanwhile.`;
    world.emit(w.id, 'destination', ended, {
      command: render, reply: end.reply, worker: w, data: { t: 'write', writeId: write.id, phase: 'end' }, call: endCall,
    });
    if (end.status === 'rejected') {
      world.metrics.staleWritesRejected += 1;
      return world.jobs.fail(w, 'stale fencing token rejected');
    }
    world.jobs.done(w);
  }, w, true);
}

function record(world: World, w: WorkerRuntime): void {
  if (stopsForLostLease(world, w, 'recording the job as done')) return;
  const key = jobKeyFor(world.scenario, w.id);
  world.send(w, 'RECORD');
  const stmt: Stmt = w.enqueued
    ? { op: 'update', table: 'jobs', set: { status: 'done' }, where: { job_key: key } }
    : { op: 'insert', table: 'jobs', values: { job_key: key, status: 'done' }, onConflictDoNothing: true };
  const nothing = stmt.op === 'update'
    ? `${w.id}'s UPDATE finds no job record to mark done (UPDATE 0): no completion is recorded.`
    : `${w.id}'s completion record inserts nothing (INSERT 0 0): a record for this job is already there, and ON CONFLICT DO NOTHING leaves it as it is.`;
  runSql(world, w, stmt, {
    ok: () => `${w.id} records the job as done.`,
    none: () => nothing,
    refused: () => nothing,
    error: (r) => `${w.id} could not record completion: ${r.error.message}.`,
  }, (r) => (r.status === 'error' ? world.jobs.fail(w, r.error.message, r.error.code) : world.jobs.done(w)));
}
