/**
 * The coordination a worker takes and gives back: PostgreSQL advisory locks (session or
 * transaction scope) or a Redis lease (`SET NX PX`, `INCR` fencing token, renewal, release by
 * plain `DEL` or compare-and-delete). Sources: PostgreSQL "Advisory Lock Functions"; Redis
 * "Distributed Locks with Redis"; Kleppmann, "How to do distributed locking".
 */
import type { World, WorkerRuntime } from '../engine/world';
import { fmtMs } from '../engine/fmt';
import type { AdvisoryFn } from '../resources/sqlTypes';
import { lockTimeoutError } from '../resources/sqlErrors';
import { runRedis, runSql } from './replyClass';

/**
 * Takes the mechanism's lock or lease for the worker; calls `k` once it holds it. `advisoryKey`
 * (an `acquire` step's own key) replaces `mechanism.advisoryKey` for an advisory lock. A wait that
 * PostgreSQL's deadlock check ends with 40P01 (World's deadlock timer) fails the job like any
 * other error of the lock request.
 */
export function acquireCoordination(world: World, w: WorkerRuntime, k: () => void, advisoryKey?: number): void {
  const m = world.scenario.mechanism;
  if (m.lock === 'none') return k();
  if (m.lock === 'lease') return acquireLease(world, w, k);
  const fn: AdvisoryFn = m.lock === 'advisory-xact' ? 'pg_advisory_xact_lock' : 'pg_advisory_lock';
  const key = advisoryKey ?? m.advisoryKey;
  const started = world.nowMs;
  world.send(w, 'REQUEST');
  const timeoutMs = m.acquireTimeoutMs ?? null;
  const granted = (): string => {
    const scope = m.lock === 'advisory-xact' ? 'until its transaction ends' : 'for its session, until it unlocks or the connection closes';
    const held = heldCount(world, w, key);
    if (held > 1) return `${w.id} "acquires" advisory lock ${key} at once: its connection's session already held it, and a session always gets its own lock again (now held ${held} times).`;
    return `${w.id} holds advisory lock ${key} ${scope}.`;
  };
  runSql(world, w, { op: 'advisory', fn, key: { kind: 'bigint', key } }, {
    believe: (_r, c) => {
      if (c !== 'error') world.send(w, 'GRANTED', { holdsLock: true, acquiredAtMs: world.nowMs });
    },
    ok: granted,
    none: granted,
    refused: granted,
    error: (r) => (r.error.code === '55P03' && timeoutMs !== null
      ? `lock_timeout (${fmtMs(timeoutMs)}) cancels ${w.id}'s wait for advisory lock ${key}: ERROR 55P03.`
      : `${w.id}'s lock request fails: ${r.error.message}.`),
  }, (r) => {
    if (r.status === 'error') return failFromCoordination(world, w, r.error.message);
    if (world.stateOf(w) !== 'holding') world.send(w, 'GRANTED', { holdsLock: true, acquiredAtMs: world.nowMs });
    world.metrics.acquisitionLatencyMs.push(world.nowMs - started);
    k();
  });
  if (timeoutMs !== null && w.waitKind === 'db') {
    // PostgreSQL's lock_timeout: the server cancels a statement that has waited this long for a lock.
    const gen = w.gen;
    world.at(world.nowMs + timeoutMs, () => {
      const session = world.beliefs(w).connection;
      if (w.gen !== gen || w.waitKind !== 'db' || session === null) return;
      world.deliverCompletions(world.sqlResource.cancelWaiting(session, lockTimeoutError()));
    });
  }
}

/** Releases what `acquireCoordination` took (a transaction-scoped lock goes with COMMIT instead). */
export function releaseCoordination(world: World, w: WorkerRuntime, k: () => void): void {
  const m = world.scenario.mechanism;
  if (m.lock === 'lease') return world.beliefs(w).ownsLease || w.outcome !== 'stopped' ? releaseLease(world, w, k) : k();
  if (m.lock !== 'advisory-session') return k();
  world.send(w, 'RELEASE');
  const unlocked = (): string => (stillHeld(world, w)
    ? `${w.id} unlocks once, but the lock was taken more than once on this connection: it stays held.`
    : `${w.id} unlocks advisory lock ${m.advisoryKey}.`);
  runSql(world, w, { op: 'advisory', fn: 'pg_advisory_unlock', key: { kind: 'bigint', key: m.advisoryKey } }, {
    believe: () => world.send(w, 'BELIEVE', { holdsLock: false }),
    ok: unlocked,
    none: unlocked,
    refused: () => `${w.id}'s unlock returns false with a WARNING: this session does not hold the lock (the lock, if held, is on another connection).`,
    error: (r) => `${w.id}'s unlock fails: ${r.error.message}.`,
  }, () => k());
}

/** How many times the worker's session holds advisory lock `key` (both scopes). */
function heldCount(world: World, w: WorkerRuntime, key: number): number {
  const session = world.beliefs(w).connection;
  if (session === null) return 0;
  return world.db.sessionState(session).advisoryLocks.filter((l) => l.key === String(key)).reduce((n, l) => n + l.sessionCount + l.xactCount, 0);
}

/**
 * Whether the worker's session holds a session-level advisory lock now: the one lock a worker
 * keeps across COMMIT/ROLLBACK (PostgreSQL "Advisory Locks": session-level locks survive the
 * transaction; row locks and transaction-level locks end with it).
 */
export function stillHeld(world: World, w: WorkerRuntime): boolean {
  const session = world.beliefs(w).connection;
  if (session === null) return false;
  return world.db.sessionState(session).advisoryLocks.some((l) => l.sessionCount > 0);
}

function failFromCoordination(world: World, w: WorkerRuntime, reason: string): void {
  world.jobs.fail(w, `could not take the lock: ${reason}`);
}

/** `SET key token NX PX ttl` until it succeeds (retrying every retryEveryMs), then `INCR` the fencing counter if fencing is on. */
export function acquireLease(world: World, w: WorkerRuntime, k: () => void): void {
  const L = world.scenario.lease;
  const fencing = world.scenario.mechanism.fencing;
  const token = world.rng.hexToken();
  const started = world.nowMs;
  world.send(w, 'REQUEST', { ownerToken: token });
  const setNx = { op: 'SET', key: L.key, value: token, nx: true, pxMs: L.ttlMs } as const;
  const retryIn = fmtMs(L.retryEveryMs);
  const attempt = (): void => {
    const reply = runRedis(world, w.id, setNx, {
      believe: (_r, c) => {
        if (c === 'ok') {
          if (!fencing) world.send(w, 'GRANTED', { ownsLease: true, acquiredAtMs: world.nowMs, leaseBelievedUntilMs: world.nowMs + L.ttlMs, renewFailed: false, fencingToken: null });
        } else if (world.stateOf(w) !== 'waiting') world.send(w, 'WAIT');
      },
      ok: () => ({ text: `${w.id} takes the lease ${L.key} for ${fmtMs(L.ttlMs)} (owner token ${token}).`, data: { t: 'lease', op: 'acquired', key: L.key, worker: w.id } }),
      none: () => `${L.key} is taken: ${w.id} will try again in ${retryIn}.`,
      error: (r) => `${w.id}'s SET fails (${r.message}); it will try again in ${retryIn}.`,
      timeout: () => `${w.id} cannot reach the lease store: its SET gets no reply, so it cannot know whether it took the lease. It will try again in ${retryIn}.`,
    }, w);
    if (reply.kind !== 'ok') {
      const giveUpAtMs = world.scenario.mechanism.acquireTimeoutMs == null ? null : started + world.scenario.mechanism.acquireTimeoutMs;
      if (giveUpAtMs !== null && world.nowMs + L.retryEveryMs > giveUpAtMs) {
        // A pause can carry the worker past its deadline: then it gives up as soon as it runs again.
        const atMs = Math.max(world.nowMs, giveUpAtMs);
        world.at(atMs, () => world.jobs.fail(w, `it gave up waiting for ${L.key} after ${fmtMs(atMs - started)}`), w);
        return;
      }
      world.at(world.nowMs + L.retryEveryMs, attempt, w);
      return;
    }
    if (fencing) {
      const earlier = highestTokenGranted(world);
      const noToken = `${w.id} could not get a fencing token: it goes on without one.`;
      runRedis(world, w.id, { op: 'INCR', key: L.fenceKey }, {
        believe: (r) => world.send(w, 'GRANTED', { ownsLease: true, acquiredAtMs: world.nowMs, leaseBelievedUntilMs: world.nowMs + L.ttlMs, renewFailed: false, fencingToken: r.kind === 'int' ? r.value : null }),
        ok: (r) => (r.kind === 'int'
          ? { text: `${w.id} gets fencing token ${r.value}${compareToken(r.value, earlier)}.`, data: { t: 'lease', op: 'fenced', key: L.key, worker: w.id, fencingToken: r.value } }
          : noToken),
        none: () => noToken,
        error: (r) => `${w.id} could not get a fencing token (${r.message}): it goes on without one.`,
        timeout: () => `${w.id}'s INCR gets no reply: it has no fencing token and goes on without one.`,
      }, w);
    }
    world.metrics.acquisitionLatencyMs.push(world.nowMs - started);
    scheduleRenewal(world, w);
    k();
  };
  attempt();
}

/** The highest fencing token granted so far in this run (from the trace's `fenced` events), or null. */
function highestTokenGranted(world: World): number | null {
  let max: number | null = null;
  for (const e of world.events) {
    const d = e.data;
    if (d?.t === 'lease' && d.op === 'fenced' && typeof d.fencingToken === 'number' && (max === null || d.fencingToken > max)) max = d.fencingToken;
  }
  return max;
}

/** How a new token compares with the highest granted before: "higher" only when strictly higher. */
function compareToken(token: number, earlier: number | null): string {
  if (earlier === null) return ' (the first token granted in this run)';
  if (token > earlier) return `, higher than any granted before (${earlier})`;
  if (token === earlier) return `, the same token as an earlier grant: the counter lost its increments (a failover?), so two holders now carry token ${token}`;
  return `, lower than one granted before (${earlier}): the counter went back (a failover?), so a stale holder outranks it`;
}

/** Schedules the next renewal of the worker's lease (a background timer; a pause delays it too). */
function scheduleRenewal(world: World, w: WorkerRuntime): void {
  const m = world.scenario.mechanism;
  if (m.renewal === 'none') return;
  const gen = w.renewGen;
  world.at(world.nowMs + world.scenario.lease.renewEveryMs, () => {
    if (w.renewGen === gen && world.isAlive(w)) renew(world, w);
  }, w);
}

function renew(world: World, w: WorkerRuntime): void {
  const L = world.scenario.lease;
  const b = world.beliefs(w);
  if (!b.ownsLease || b.ownerToken === null) return;
  const token = b.ownerToken;
  const failed = { t: 'lease', op: 'renewFailed', key: L.key, worker: w.id } as const;
  /** A renewal without a success reply (timeout, error) is a failed renewal: the worker cannot know it still owns the lease. */
  const noAnswer = (): void => {
    world.metrics.renewFailures += 1;
    world.send(w, 'BELIEVE', { renewFailed: true });
  };
  if (world.scenario.mechanism.renewal === 'set') {
    runRedis(world, w.id, { op: 'SET', key: L.key, value: token }, {
      believe: (_r, c) => (c === 'ok' ? world.send(w, 'BELIEVE', { leaseBelievedUntilMs: null }) : noAnswer()),
      ok: () => ({ text: `${w.id} "renews" with a plain SET: that overwrites whoever holds the key and discards its TTL — the lease never expires now.`, data: { t: 'lease', op: 'renewed', key: L.key, worker: w.id } }),
      none: () => ({ text: `${w.id}'s plain-SET renewal is not applied.`, data: failed }),
      error: (r) => ({ text: `${w.id}'s plain-SET renewal fails (${r.message}): it cannot know whether it still owns the lease.`, data: failed }),
      timeout: () => ({ text: `${w.id}'s plain-SET renewal gets no reply (timed out): it cannot know whether it still owns the lease, and the key is unchanged if the SET never arrived.`, data: failed }),
    }, w);
    return scheduleRenewal(world, w);
  }
  const reply = runRedis(world, w.id, { op: 'COMPARE_AND_EXTEND', key: L.key, token, ms: L.ttlMs }, {
    believe: (_r, c) => {
      if (c === 'ok') return world.send(w, 'BELIEVE', { leaseBelievedUntilMs: world.nowMs + L.ttlMs });
      if (c !== 'none') return noAnswer();
      world.metrics.renewFailures += 1;
      world.send(w, 'BELIEVE', { renewFailed: true, ownsLease: false });
    },
    ok: () => ({ text: `${w.id} extends its lease by ${fmtMs(L.ttlMs)} (the key still holds its token).`, data: { t: 'lease', op: 'renewed', key: L.key, worker: w.id } }),
    none: () => ({ text: `${w.id}'s renewal fails: the key expired or belongs to someone else now. Unless ${w.id} checks, it keeps working.`, data: failed }),
    error: (r) => ({ text: `${w.id}'s renewal fails (${r.message}): it cannot know whether it still owns the lease.`, data: failed }),
    timeout: () => ({ text: `${w.id}'s renewal gets no answer: it cannot know whether it still owns the lease.`, data: failed }),
  }, w);
  if (reply.kind === 'int' && reply.value === 0) return;
  scheduleRenewal(world, w);
}

/** Releases the worker's lease with plain `DEL` or the compare-and-delete script. */
export function releaseLease(world: World, w: WorkerRuntime, k: () => void): void {
  const L = world.scenario.lease;
  const b = world.beliefs(w);
  const token = b.ownerToken ?? '';
  const holder = world.leases.entries(world.nowMs).find((e) => e.key === L.key)?.value ?? null;
  const ownerOf = (value: string | null): string => {
    if (value === null) return 'nobody';
    for (const other of world.workers.values()) if (world.beliefs(other).ownerToken === value) return other.id;
    return `token ${value}`;
  };
  w.renewGen += 1;
  world.send(w, 'RELEASE');
  if (world.scenario.mechanism.release === 'del') {
    runRedis(world, w.id, { op: 'DEL', keys: [L.key] }, {
      believe: () => world.send(w, 'BELIEVE', { ownsLease: false }),
      ok: () => (holder !== token
        ? { text: `${w.id} releases with plain DEL and deletes ${ownerOf(holder)}'s lease, not its own: ${ownerOf(holder)} still believes it owns ${L.key}.`, data: { t: 'lease', op: 'deleted', key: L.key, worker: w.id, deletedOwner: ownerOf(holder) } }
        : { text: `${w.id} releases its lease with DEL.`, data: { t: 'lease', op: 'released', key: L.key, worker: w.id } }),
      none: () => `${w.id} runs DEL but the key is already gone.`,
      error: (r) => `${w.id}'s DEL fails (${r.message}): it gives up its lease without knowing whether the key was deleted.`,
      timeout: () => `${w.id}'s DEL gets no reply (timed out): it gives up its lease without knowing whether the key was deleted; if the DEL never arrived, the key stays until its TTL runs out.`,
    }, w);
    return k();
  }
  runRedis(world, w.id, { op: 'COMPARE_AND_DELETE', key: L.key, token }, {
    believe: () => world.send(w, 'BELIEVE', { ownsLease: false }),
    ok: () => ({ text: `${w.id} releases its own lease (compare-and-delete matched its token).`, data: { t: 'lease', op: 'released', key: L.key, worker: w.id } }),
    none: () => (holder === null ? `${w.id}'s compare-and-delete finds no key: nothing to release.` : `${w.id}'s compare-and-delete sees ${ownerOf(holder)}'s token, not its own, and deletes nothing: ${ownerOf(holder)}'s lease is safe.`),
    error: (r) => `${w.id}'s compare-and-delete fails (${r.message}): it gives up its lease without knowing whether the key was deleted.`,
    timeout: () => `${w.id}'s compare-and-delete gets no reply (timed out): it gives up its lease without knowing whether the key was deleted; if its token is still there, the key stays until its TTL runs out.`,
  }, w);
  k();
}
