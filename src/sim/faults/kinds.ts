/**
 * The built-in fault kinds, one registry entry each (see registry.ts): schema, application,
 * description, applicability, lane, glyph, editable duration and random generator. Sources for
 * the behaviour: Kleppmann, "How to do distributed locking" (process pauses, clock jumps); Redis
 * "Distributed Locks with Redis" and "Redis replication" (failover loses unreplicated writes);
 * PostgreSQL "Advisory Lock Functions" (a closed session releases its locks).
 */
import { explained } from '../engine/narration';
import { z } from 'zod';
import type { World, WorkerRuntime } from '../engine/world';
import type { Rng } from '../engine/rng';
import { fmtMs, fmtSeconds } from '../engine/fmt';
import type { Scenario } from '../scenario/schema';
import { faultPlacement, identifier, positiveMs, durationMs } from '../scenario/primitives';
import { initialBeliefs } from '../workers/workerMachine';
import type { Stmt } from '../resources/sqlTypes';
import type { SessionState } from '../resources/dbTypes';
import type { FaultContext, FaultEffect, FaultKindDef } from './registry';
import { runEtcd, runRedis, runSql } from '../workers/replyClass';
import { fencedValuesFor } from '../engine/tables';
import { handBackAtShutdown } from '../workers/queueSteps';

// The schemas, one per kind (each is that kind's variant of the scenario's fault union).
const pauseSchema = z.strictObject({ kind: z.literal('pause'), worker: identifier, pauseMs: positiveMs, ...faultPlacement });
const expireLeaseSchema = z.strictObject({ kind: z.literal('expireLease'), ...faultPlacement, worker: identifier.optional() });
const crashSchema = z.strictObject({ kind: z.literal('crash'), worker: identifier, restartAfterMs: durationMs.nullable(), ...faultPlacement });
const partitionSchema = z.strictObject({ kind: z.literal('partition'), worker: identifier, durationMs: positiveMs, ...faultPlacement });
const adminBypassSchema = z.strictObject({ kind: z.literal('adminBypass'), ...faultPlacement, worker: identifier.optional() });
const manualDeleteSchema = z.strictObject({ kind: z.literal('manualDelete'), ...faultPlacement, worker: identifier.optional() });
const jobErrorSchema = z.strictObject({ kind: z.literal('jobError'), worker: identifier, ...faultPlacement });
const failoverSchema = z.strictObject({ kind: z.literal('failover'), ...faultPlacement, worker: identifier.optional() });
const clockJumpSchema = z.strictObject({ kind: z.literal('clockJump'), jumpMs: positiveMs, ...faultPlacement, worker: identifier.optional() });
const renewalStallSchema = z.strictObject({ kind: z.literal('renewalStall'), worker: identifier, durationMs: positiveMs, ...faultPlacement });
const shutdownSchema = z.strictObject({ kind: z.literal('shutdown'), worker: identifier, ...faultPlacement });

/** A fault of one of the built-in kinds. */
export type BuiltinFault =
  | z.infer<typeof pauseSchema> | z.infer<typeof expireLeaseSchema> | z.infer<typeof crashSchema> | z.infer<typeof partitionSchema>
  | z.infer<typeof adminBypassSchema> | z.infer<typeof manualDeleteSchema> | z.infer<typeof jobErrorSchema> | z.infer<typeof failoverSchema>
  | z.infer<typeof clockJumpSchema> | z.infer<typeof renewalStallSchema> | z.infer<typeof shutdownSchema>;

type Of<K extends BuiltinFault['kind']> = Extract<BuiltinFault, { kind: K }>;

/** A random time for a fault: within the run and its first minute. */
function randomAtMs(rng: Rng, s: Scenario): number {
  return rng.int(0, Math.min(s.horizonMs, 60_000));
}

function randomWorker(rng: Rng, s: Scenario): string {
  return s.workers[rng.int(0, s.workers.length - 1)]!.id;
}

/** The scenario involves the lease store: its mechanism takes a lease, or a fault already acts on the lease. */
function involvesLeaseStore(s: Scenario): boolean {
  return s.mechanism.lock === 'lease' || s.faults.some((f) => LEASE_KINDS.has(f.kind));
}
const LEASE_KINDS = new Set<string>(['expireLease', 'manualDelete', 'failover', 'clockJump']);
const NO_LEASE = 'the scenario has no lease: its lock is not a Redis lease';
/** The lease lives in etcd (`lockService`), not in Redis. */
const inEtcd = (s: Scenario): boolean => s.lockService !== undefined;
/** The lease store the faults act on, in words. */
const storeName = (s: Scenario): string => (inEtcd(s) ? 'etcd' : 'the lease store');

const always = (): boolean => true;

/** "The worker is not running" for a worker fault that finds its worker finished or crashed; undefined if it is running. */
function notRunning(ctx: FaultContext, what: string, worker: string): FaultEffect | undefined {
  const w = ctx.worker;
  if (w && ctx.world.isAlive(w)) return undefined;
  ctx.event(`${what} of ${worker}: it is not running, nothing happens.`);
  return 'continue';
}

const pause: FaultKindDef<Of<'pause'>> = {
  kind: 'pause', label: 'pause a worker', schema: pauseSchema, lane: 'worker', glyph: 'P',
  duration: { label: 'pause', get: (f) => f.pauseMs, set: (f, ms) => ({ ...f, pauseMs: ms ?? f.pauseMs }) },
  runDelayMs: (f) => f.pauseMs, outlivesLease: true,
  describe: (f, _s, when) => `Pause ${f.worker} for ${fmtSeconds(f.pauseMs)} ${when}`,
  appliesTo: always,
  generate: (rng, s) => ({ kind: 'pause', worker: randomWorker(rng, s), atMs: randomAtMs(rng, s), pauseMs: rng.int(1, 50_000) }),
  apply: (ctx, f) => notRunning(ctx, 'Pause', f.worker) ?? pauseWorker(ctx, ctx.worker!, f.pauseMs),
};

const crash: FaultKindDef<Of<'crash'>> = {
  kind: 'crash', label: 'crash a worker', schema: crashSchema, lane: 'worker', glyph: '✗',
  duration: { label: 'restart after', get: (f) => f.restartAfterMs, set: (f, ms) => ({ ...f, restartAfterMs: ms }) },
  runDelayMs: (f, afterCrashMs) => (f.restartAfterMs ?? 0) + afterCrashMs,
  describe: (f, _s, when) => `Crash ${f.worker} ${when}${f.restartAfterMs === null ? ', no restart' : `, restart after ${fmtSeconds(f.restartAfterMs)}`}`,
  appliesTo: always,
  generate: (rng, s) => ({ kind: 'crash', worker: randomWorker(rng, s), atMs: randomAtMs(rng, s), restartAfterMs: rng.int(0, 1) === 0 ? null : rng.int(0, 5_000) }),
  apply: (ctx, f) => {
    const stopped = notRunning(ctx, 'Crash', f.worker);
    if (stopped) return stopped;
    crashWorker(ctx, ctx.worker!, f.restartAfterMs);
    return 'stop';
  },
};

const jobError: FaultKindDef<Of<'jobError'>> = {
  kind: 'jobError', label: 'job error', schema: jobErrorSchema, lane: 'worker', glyph: '!',
  describe: (f, _s, when) => `Job error in ${f.worker} ${when}`,
  appliesTo: always,
  generate: (rng, s) => ({ kind: 'jobError', worker: randomWorker(rng, s), atMs: randomAtMs(rng, s) }),
  apply: (ctx, f) => {
    const w = ctx.worker;
    if (!w || !ctx.world.isAlive(w)) return ctx.event(`Job error in ${f.worker}: it is not running, nothing happens.`), 'continue';
    ctx.event(`${w.id}'s job throws an exception here.`, { worker: w });
    ctx.world.interrupt(w);
    ctx.world.jobs.fail(w, 'an exception');
    return 'stop';
  },
};

/**
 * A graceful shutdown (SIGTERM during a deploy; scenario version 2, queues): the worker stops its
 * job where it is and pushes the message it holds back (`ChangeMessageVisibility … VisibilityTimeout=0`),
 * so it is visible at once and runs again from the start on the next consumer (SQS API reference;
 * ../shared/semantics.md "Queues and at-least-once delivery": a job interrupted at shutdown is
 * pushed back). Whatever it already did (an effect) stays done.
 */
const shutdown: FaultKindDef<Of<'shutdown'>> = {
  kind: 'shutdown', label: 'shut a worker down (it pushes its message back)', schema: shutdownSchema, lane: 'worker', glyph: 'S',
  describe: (f, _s, when) => `Shut ${f.worker} down ${when}`,
  appliesTo: (s) => s.queue?.kind === 'sqs',
  inapplicableReason: 'the scenario has no message queue: a shutdown here is only a job error',
  generate: (rng, s) => ({ kind: 'shutdown', worker: randomWorker(rng, s), atMs: randomAtMs(rng, s) }),
  apply: (ctx, f) => {
    const { world } = ctx;
    const w = ctx.worker;
    if (!w || !world.isAlive(w)) return ctx.event(`Shutdown of ${f.worker}: it is not running, nothing happens.`), 'continue';
    const holds = w.queueItem !== null && w.queueItem.receiptHandle !== null;
    ctx.event(`${w.id} is told to shut down (SIGTERM): it stops its job here${holds ? ' and pushes its message back before it exits' : ' and exits'}.`, { worker: w });
    handBackAtShutdown(world, w);
    // Then the process exits: its timers, waits and renewals end, a request in flight is abandoned, its connection closes.
    const aborted = world.crash(w);
    if (aborted) {
      const write = aborted.write;
      world.emit(w.id, 'destination', write.performed ? `${w.id}'s call had already reached the API: the effect happened, but ${w.id} exits without its reply.` : `${w.id}'s unfinished upload is discarded.`, { reply: write.reply, data: { t: 'write', writeId: write.id, phase: 'end' }, call: aborted.call });
      recordCommitOfAbortedCall(world, w, write);
    }
    world.send(w, 'CRASH', { outcome: 'shutDown' });
    w.outcome = 'shutDown';
    if (world.beliefs(w).connection !== null || w.helper !== null) world.giveBack(w, true);
    return 'stop';
  },
};

const partition: FaultKindDef<Of<'partition'>> = {
  kind: 'partition', label: 'cut a worker off from the lease store', schema: partitionSchema, lane: 'worker', glyph: 'N',
  duration: { label: 'cut off for', get: (f) => f.durationMs, set: (f, ms) => ({ ...f, durationMs: ms ?? f.durationMs }) },
  runDelayMs: (f) => f.durationMs, outlivesLease: true,
  describe: (f, s, when) => `Cut ${f.worker} off from ${storeName(s)} for ${fmtSeconds(f.durationMs)} ${when}`,
  appliesTo: involvesLeaseStore, inapplicableReason: `${NO_LEASE}, so there is no lease store to cut a worker off from`,
  generate: (rng, s) => ({ kind: 'partition', worker: randomWorker(rng, s), atMs: randomAtMs(rng, s), durationMs: rng.int(1, 30_000) }),
  apply: (ctx, f) => {
    const { world } = ctx;
    const w = ctx.worker;
    if (!w) return 'continue';
    world.cutOff(w, world.nowMs + f.durationMs);
    const store = storeName(world.scenario);
    ctx.event(`${w.id} is cut off from ${store} for ${fmtMs(f.durationMs)}; it can still reach the database and the destination.`, { worker: w });
    world.at(world.nowMs + f.durationMs, () => ctx.event(`${w.id} can reach ${store} again.`, { worker: w }));
    return 'continue';
  },
};

const expireLease: FaultKindDef<Of<'expireLease'>> = {
  kind: 'expireLease', label: 'expire the lease now', schema: expireLeaseSchema, lane: 'lease', glyph: 'X',
  describe: (_f, s, when) => `Expire ${s.lease.key} ${when}`,
  appliesTo: involvesLeaseStore, inapplicableReason: NO_LEASE,
  generate: (rng, s) => ({ kind: 'expireLease', atMs: randomAtMs(rng, s) }),
  apply: (ctx) => {
    const { world } = ctx;
    const L = world.scenario.lease;
    if (inEtcd(world.scenario)) {
      // etcd: the lease the key is attached to runs out now, and etcd deletes the key with it.
      world.emitNotices(world.etcd, world.etcd.wake(world.nowMs));
      const id = world.etcd.kv(world.nowMs, L.key)?.lease ?? null;
      ctx.event(id !== null ? `Lease ${id}, which ${L.key} is attached to, is forced to run out now (as if its TTL had passed).` : `Forced expiry of ${L.key}'s lease: no such key right now.`);
      const notice = world.etcd.forceExpire(world.nowMs, L.key);
      if (notice !== null) world.emitNotices(world.etcd, [notice]);
      world.scheduleWake(world.etcd);
      return 'continue';
    }
    const removed = world.leases.forceExpire(world.nowMs, L.key);
    ctx.event(removed ? `${L.key} is forced to expire now (as if its TTL had run out).` : `Forced expiry of ${L.key}: no such key right now.`);
    return 'continue';
  },
};

const manualDelete: FaultKindDef<Of<'manualDelete'>> = {
  kind: 'manualDelete', label: 'operator DELs the lease key', schema: manualDeleteSchema, lane: 'lease', actor: 'operator', glyph: 'D',
  describe: (_f, s, when) => `Operator deletes ${s.lease.key} ${when}`,
  appliesTo: involvesLeaseStore, inapplicableReason: NO_LEASE,
  generate: (rng, s) => ({ kind: 'manualDelete', atMs: randomAtMs(rng, s) }),
  apply: (ctx) => {
    const L = ctx.world.scenario.lease;
    if (inEtcd(ctx.world.scenario)) {
      runEtcd(ctx.world, 'operator', { op: 'del', key: L.key }, {
        ok: () => ({ text: `An operator deletes ${L.key} by hand with etcdctl del to "unstick the queue"; its owner is alive, its lease still runs, and it still believes it holds the lock.`, data: { t: 'lease', op: 'deleted', key: L.key, worker: 'operator' } }),
        none: () => `An operator runs etcdctl del ${L.key} by hand; there was no key.`,
        error: (r) => `An operator tries to delete ${L.key} by hand, but etcdctl del fails: ${r.message}.`,
        timeout: () => `An operator tries to delete ${L.key} by hand, but gets no reply.`,
      });
      return 'continue';
    }
    runRedis(ctx.world, 'operator', { op: 'DEL', keys: [L.key] }, {
      ok: () => ({ text: `An operator deletes ${L.key} by hand to "unstick the queue"; its owner is alive and still believes it owns it.`, data: { t: 'lease', op: 'deleted', key: L.key, worker: 'operator' } }),
      none: () => `An operator deletes ${L.key} by hand; there was no key.`,
      error: (r) => `An operator tries to delete ${L.key} by hand, but the DEL fails: ${r.message}.`,
      timeout: () => `An operator tries to delete ${L.key} by hand, but gets no reply.`,
    });
    return 'continue';
  },
};

const adminBypass: FaultKindDef<Of<'adminBypass'>> = {
  kind: 'adminBypass', label: 'admin script bypasses the lock', schema: adminBypassSchema, lane: 'database', actor: 'admin', glyph: '$',
  describe: (_f, _s, when) => `Admin script bypasses the lock ${when}`,
  appliesTo: always,
  generate: (rng, s) => ({ kind: 'adminBypass', atMs: randomAtMs(rng, s) }),
  apply: (ctx) => {
    runAdminScript(ctx);
    return 'continue';
  },
};

/**
 * What a failover did to one key, as the promoted replica has it: gone (its last writes never
 * reached the replica), back to an older value (an `INCR` the replica never saw: the counter is
 * back to what it was), or back after a DEL the replica never saw. Redis replication is
 * asynchronous: acknowledged writes can be lost on failover (Redis docs, "Redis replication").
 */
function failoverChange(key: string, before: string | undefined, after: string | undefined, owner: string | null): string {
  if (after === undefined) return `${key} is gone (it held ${owner === null ? '' : `${owner}'s owner token `}${before ?? 'nothing'})`;
  if (before === undefined) return `${key} is back (${after}), its DEL lost`;
  return `${key} is back to ${after} (was ${before})`;
}

/** The worker whose owner token is `value` (a lease key's value), or null. */
function ownerOf(world: FaultContext['world'], value: string | undefined): string | null {
  if (value === undefined) return null;
  for (const w of world.workers.values()) if (world.beliefs(w).ownerToken === value) return w.id;
  return null;
}

const failover: FaultKindDef<Of<'failover'>> = {
  kind: 'failover', label: 'Redis failover', schema: failoverSchema, lane: 'lease', glyph: 'F',
  describe: (_f, _s, when) => `Redis failover ${when}`,
  appliesTo: (s) => involvesLeaseStore(s) && !inEtcd(s), inapplicableReason: `${NO_LEASE}, or it lives in etcd, whose quorum keeps every committed write`,
  generate: (rng, s) => ({ kind: 'failover', atMs: randomAtMs(rng, s) }),
  apply: (ctx) => {
    const { world } = ctx;
    const before = new Map(world.leases.entries(world.nowMs).map((e) => [e.key, e.value]));
    const lost = world.leases.failover(world.nowMs);
    const after = new Map(world.leases.entries(world.nowMs).map((e) => [e.key, e.value]));
    ctx.event(lost.length > 0
      ? `The Redis primary fails; the promoted replica lags ${fmtMs(world.scenario.lease.replicationLagMs)} behind, so the writes it had not received are lost: ${lost.map((k) => failoverChange(k, before.get(k), after.get(k), ownerOf(world, before.get(k)))).join(', ')}.`
      : 'The Redis primary fails over to its replica; nothing was lost.');
    world.scheduleExpiry();
    return 'continue';
  },
};

const clockJump: FaultKindDef<Of<'clockJump'>> = {
  kind: 'clockJump', label: 'clock jump on the lease store', schema: clockJumpSchema, lane: 'lease', glyph: 'J',
  duration: { label: 'jump', get: (f) => f.jumpMs, set: (f, ms) => ({ ...f, jumpMs: ms ?? f.jumpMs }) },
  outlivesLease: true,
  describe: (f, _s, when) => `Lease store clock jumps ${fmtSeconds(f.jumpMs)} ${when}`,
  appliesTo: (s) => involvesLeaseStore(s) && !inEtcd(s), inapplicableReason: `${NO_LEASE}, or it lives in etcd, which times leases on a monotonic clock`,
  generate: (rng, s) => ({ kind: 'clockJump', atMs: randomAtMs(rng, s), jumpMs: rng.int(1, 60_000) }),
  apply: (ctx, f) => {
    const { world } = ctx;
    const expired = world.leases.clockJump(world.nowMs, f.jumpMs);
    ctx.event(`The lease store's clock jumps ${fmtMs(f.jumpMs)} forward${expired.length > 0 ? `: ${expired.join(', ')} ${expired.length === 1 ? 'expires' : 'expire'} early` : ''}.`);
    world.scheduleExpiry();
    return 'continue';
  },
};

/**
 * Only the worker's renewal timer stalls (scenario version 2): a watchdog thread starved of CPU,
 * or an event loop blocked by the job's own synchronous work, while the job itself carries on.
 * A renewal due meanwhile runs when the stall ends. Source: the Redis distributed-locks page and
 * Kleppmann (a renewal is just another timer in the holder's process); semantics.md, "Real
 * failures": "A renewal timer starved by a busy CPU".
 */
const renewalStall: FaultKindDef<Of<'renewalStall'>> = {
  kind: 'renewalStall', label: "stall a worker's renewal timer (starved watchdog)", schema: renewalStallSchema, lane: 'worker', glyph: 'W',
  duration: { label: 'stalled for', get: (f) => f.durationMs, set: (f, ms) => ({ ...f, durationMs: ms ?? f.durationMs }) },
  describe: (f, _s, when) => `Stall ${f.worker}'s renewal timer for ${fmtSeconds(f.durationMs)} ${when}`,
  appliesTo: (s) => s.mechanism.lock === 'lease' && s.mechanism.renewal !== 'none',
  generate: (rng, s) => ({ kind: 'renewalStall', worker: randomWorker(rng, s), atMs: randomAtMs(rng, s), durationMs: rng.int(1, 30_000) }),
  apply: (ctx, f) => {
    const stopped = notRunning(ctx, 'Renewal stall', f.worker);
    if (stopped) return stopped;
    const { world } = ctx;
    const w = ctx.worker!;
    const until = Math.max(world.nowMs + f.durationMs, w.renewStall?.untilMs ?? 0);
    const stall = { untilMs: until, say: (narration: string) => ctx.event(narration, { worker: w }) };
    w.renewStall = stall;
    ctx.event(`${w.id}'s renewal timer stalls for ${fmtMs(f.durationMs)} (a starved watchdog thread, a blocked event loop): no renewal runs, while its job's own work carries on.`, { worker: w });
    world.at(until, () => {
      if (!world.isAlive(w) || w.renewStall !== stall) return;
      w.renewStall = null;
      ctx.event(`${w.id}'s renewal timer can run again.`, { worker: w });
    });
    return 'continue';
  },
};

/** The built-in kinds, in the order the scenario format has always listed them (version 2 added renewalStall). */
export const BUILTIN_FAULT_KINDS = [pause, expireLease, crash, partition, adminBypass, manualDelete, jobError, failover, clockJump, renewalStall, shutdown] as const;

function pauseWorker(ctx: FaultContext, w: WorkerRuntime, pauseMs: number): FaultEffect {
  const { world } = ctx;
  const until = world.pause(w, pauseMs);
  ctx.event(`${w.id} pauses for ${fmtMs(pauseMs)} (a stop-the-world GC, a VM migration): it runs nothing and cannot notice.`, { worker: w });
  world.at(until, () => {
    if (!world.resume(w)) return;
    const b = world.beliefs(w);
    const belief = b.ownsLease ? ` It still believes it owns ${world.scenario.lease.key}${b.fencingToken !== null ? ` (token ${b.fencingToken})` : ''}.` : '';
    ctx.event(`${w.id} resumes after ${fmtMs(pauseMs)}, unaware it was paused.${belief}`, { worker: w });
  });
  return 'continue';
}

/**
 * An API call the API had received when its caller died ends accepted (its effect happened): it is
 * a commit on the caller's lease like a call that returned (steps.ts counts those), so the
 * lease-age-at-commit metric and its lost-lease warning count it too. An aborted upload is not.
 */
function recordCommitOfAbortedCall(world: World, w: WorkerRuntime, write: { readonly status: string }): void {
  const b = world.beliefs(w);
  if (write.status === 'accepted' && b.ownsLease && b.acquiredAtMs !== null) world.recordLeaseCommit(w);
}

function crashWorker(ctx: FaultContext, w: WorkerRuntime, restartAfterMs: number | null): void {
  const { world } = ctx;
  const aborted = world.crash(w);
  if (aborted) {
    const write = aborted.write;
    world.emit(w.id, 'destination', write.performed ? `${w.id}'s call had already reached the API: the effect happened, but ${w.id} never learns it.` : `${w.id}'s unfinished upload is discarded.`, { reply: write.reply, data: { t: 'write', writeId: write.id, phase: 'end' }, call: aborted.call });
    recordCommitOfAbortedCall(world, w, write);
  }
  const before = world.beliefs(w);
  world.send(w, 'CRASH', { outcome: 'crashed' });
  const consequences = [
    before.connection !== null ? connectionLoss(world, w) : '',
    leaseStillItsOwn(world, before.ownerToken) ? (inEtcd(world.scenario) ? 'nothing keeps its etcd lease alive now: the lock stays until the lease runs out' : 'its lease stays in Redis until its TTL runs out') : '',
  ].filter((x) => x !== '');
  const tail = consequences.length > 0 ? ` ${consequences.join('; ').replace(/^./, (c) => c.toUpperCase())}.` : '';
  ctx.event(`${w.id} crashes${restartAfterMs === null ? '' : ` and will restart in ${fmtMs(restartAfterMs)}`}.${tail}`, { worker: w });
  const session = world.beliefs(w).connection;
  if (session !== null || w.helper !== null) world.giveBack(w, true);
  if (restartAfterMs === null) return;
  world.at(world.nowMs + restartAfterMs, () => {
    if (world.stateOf(w) !== 'crashed') return;
    const incarnation = world.beliefs(w).incarnation + 1;
    world.restart(w);
    world.send(w, 'RESTART', { ...initialBeliefs, incarnation });
    ctx.event(`${w.id} restarts and retries the job from its first step; it remembers nothing of its first attempt.`, { worker: w });
    world.jobs.start(w);
  });
}

/**
 * What the crash does to the worker's database connection: its session closes (and what that
 * gives up; nothing when the server had already ended it), or — behind a pooler — its connection to PgBouncer closes, and PgBouncer's next event
 * says what becomes of the server connection.
 */
function connectionLoss(world: FaultContext['world'], w: WorkerRuntime): string {
  if (world.poolerResource.mode !== null) return 'its connection to PgBouncer closes';
  const session = world.ownSessionOf(w);
  if (session === null) return '';
  // The server may have ended the session already (idle_in_transaction_session_timeout): nothing is left to give up.
  if (!world.db.hasSession(session)) return 'its database connection closes (the server had already ended its session)';
  return `its database connection closes${sessionLosses(world.db.sessionState(session))}`;
}

/**
 * What closing a session gives up, from the session's real state (not the worker's beliefs): its
 * open transaction (rolled back), its row locks and its advisory locks (PostgreSQL "Advisory Lock
 * Functions": a session's locks are released when it ends). Empty when it held nothing.
 */
export function sessionLosses(state: SessionState): string {
  const parts: string[] = [];
  if (state.inTransaction) parts.push(`rolling back its open transaction${state.rowLocks.length > 0 ? ` and releasing its row lock${state.rowLocks.length > 1 ? 's' : ''} on ${state.rowLocks.join(', ')}` : ''}`);
  const keys = state.advisoryLocks.map((l) => String(l.key));
  if (keys.length > 0) parts.push(`releasing advisory lock${keys.length > 1 ? 's' : ''} ${keys.join(', ')}`);
  return parts.length === 0 ? '' : `, ${parts.join(' and ')}`;
}

/** Whether the lease key still holds this owner token now (a crashed owner's lease then waits for its TTL). */
function leaseStillItsOwn(world: FaultContext['world'], ownerToken: string | null): boolean {
  if (ownerToken === null) return false;
  const key = world.scenario.lease.key;
  if (inEtcd(world.scenario)) return world.etcd.kv(world.nowMs, key)?.value === ownerToken;
  return world.leases.entries(world.nowMs).some((e) => e.key === key && e.value === ownerToken);
}

/** The admin script: its own psql session, no pool, no lock — it performs the job's write directly. */
function runAdminScript(ctx: FaultContext): void {
  const { world } = ctx;
  const s = world.scenario;
  // Validation refuses a worker with a fault's actor id (scenario/validate.ts, reservedActorIds);
  // an unvalidated scenario that has one must not let the script take that worker over.
  if (s.workers.some((w) => w.id === 'admin')) throw new Error('workers: the id "admin" is reserved for the adminBypass fault (validate the scenario first)');
  let admin = world.workers.get('admin');
  if (admin && world.isParked(admin)) {
    ctx.event('A second admin script would start, but the first one is still waiting for the database: skipped.');
    return;
  }
  if (!admin || !world.isAlive(admin)) admin = world.spawnAdmin();
  const a = admin;
  world.send(a, 'EFFECT');
  ctx.event(explained('An admin script runs a fix-up by hand', '. It does not know about the cooperative lock, so it does not take it'));
  const finish = () => {
    world.send(a, 'FINISH', { outcome: 'completed' });
  };
  const job = s.job;
  if (job.kind === 'external') {
    const { write } = world.destinationCall('admin', { op: 'begin', token: null, idempotencyKey: null });
    const finishCmd = { op: 'finish', writeId: write.id, token: null, idempotencyKey: null } as const;
    const end = world.destinationCall('admin', finishCmd);
    // The script waits for nothing: both events are emitted once the write has completed.
    const beginCall = { resource: 'destination', caller: 'admin', command: { op: 'begin', token: null, idempotencyKey: null }, reply: { ...write } } as const;
    world.emit('admin', 'destination', `The admin script writes ${s.destination.target} directly.`, { command: world.destinationResource.renderCommand(beginCall.command), reply: write.reply, worker: a, data: { t: 'write', writeId: write.id, phase: 'begin' }, call: beginCall });
    world.emit('admin', 'destination', 'The admin write completes.', { reply: write.reply, worker: a, data: { t: 'write', writeId: write.id, phase: 'end' }, call: end.call });
    return finish();
  }
  const stmt: Stmt = job.kind === 'insertOnce'
    ? { op: 'insert', table: job.table, values: { ...job.key, ...job.values }, returning: ['id'] }
    : job.kind === 'fencedRow'
      ? { op: 'update', table: job.table, set: fencedValuesFor(job.values, 'admin'), where: { id: job.rowId } }
      : job.kind === 'debit'
      ? { op: 'update', table: 'accounts', set: { balance: { column: 'balance', add: -10 } }, where: { id: job.accountId } }
      : { op: 'update', table: 'items', set: { stock: { column: 'stock', add: -job.quantity } }, where: { id: job.itemId } };
  const nothing = 'The admin script\'s write changes nothing (no row matched).';
  runSql(world, a, stmt, {
    ok: () => explained('The admin script writes directly, without the lock', ': the lock cannot stop SQL that does not ask for it'),
    none: () => nothing,
    refused: () => nothing,
    error: (r) => `The database rejects the admin script's write: ${r.error.message}.`,
  }, finish);
}

