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

/** Takes the mechanism's lock or lease for the worker; calls `k` once it holds it. */
export function acquireCoordination(world: World, w: WorkerRuntime, k: () => void): void {
  const m = world.scenario.mechanism;
  if (m.lock === 'none') return k();
  if (m.lock === 'lease') return acquireLease(world, w, k);
  const fn: AdvisoryFn = m.lock === 'advisory-xact' ? 'pg_advisory_xact_lock' : 'pg_advisory_lock';
  const started = world.nowMs;
  world.send(w, 'REQUEST');
  const timeoutMs = m.acquireTimeoutMs ?? null;
  world.sql(w, { op: 'advisory', fn, key: { kind: 'bigint', key: m.advisoryKey } }, {
    believe: (r) => {
      if (r.status === 'ok') world.send(w, 'GRANTED', { holdsLock: true, acquiredAtMs: world.nowMs });
    },
    say: (r) => {
      if (r.status === 'waits') return `${w.id} asks for advisory lock ${m.advisoryKey} and waits: another session holds it.`;
      if (r.status === 'error') return r.error.code === '55P03' && timeoutMs !== null
        ? `lock_timeout (${fmtMs(timeoutMs)}) cancels ${w.id}'s wait for advisory lock ${m.advisoryKey}: ERROR 55P03.`
        : `${w.id}'s lock request fails: ${r.error.message}.`;
      const scope = m.lock === 'advisory-xact' ? 'until its transaction ends' : 'for its session, until it unlocks or the connection closes';
      const held = heldCount(world, w);
      if (held > 1) return `${w.id} "acquires" advisory lock ${m.advisoryKey} at once: its connection's session already held it, and a session always gets its own lock again (now held ${held} times).`;
      return `${w.id} holds advisory lock ${m.advisoryKey} ${scope}.`;
    },
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
  world.sql(w, { op: 'advisory', fn: 'pg_advisory_unlock', key: { kind: 'bigint', key: m.advisoryKey } }, {
    believe: () => world.send(w, 'BELIEVE', { holdsLock: false }),
    say: (r) => {
      if (r.status === 'ok' && r.warning) return `${w.id}'s unlock returns false with a WARNING: this session does not hold the lock (the lock, if held, is on another connection).`;
      const still = r.status === 'ok' && stillHeld(world, w);
      return still ? `${w.id} unlocks once, but the lock was taken more than once on this connection: it stays held.` : `${w.id} unlocks advisory lock ${m.advisoryKey}.`;
    },
  }, () => k());
}

function heldCount(world: World, w: WorkerRuntime): number {
  const session = world.beliefs(w).connection;
  if (session === null) return 0;
  return world.db.sessionState(session).advisoryLocks.reduce((n, l) => n + l.sessionCount + l.xactCount, 0);
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
    const reply = world.redis(w.id, setNx, {
      believe: (r) => {
        if (r.kind === 'ok') {
          if (!fencing) world.send(w, 'GRANTED', { ownsLease: true, acquiredAtMs: world.nowMs, leaseBelievedUntilMs: world.nowMs + L.ttlMs, renewFailed: false, fencingToken: null });
        } else if (world.stateOf(w) !== 'waiting') world.send(w, 'WAIT');
      },
      say: (r) => {
        if (r.kind === 'ok') return { text: `${w.id} takes the lease ${L.key} for ${fmtMs(L.ttlMs)} (owner token ${token}).`, data: { t: 'lease', op: 'acquired', key: L.key, worker: w.id } };
        if (r.kind === 'nil') return `${L.key} is taken: ${w.id} will try again in ${retryIn}.`;
        return `${w.id} cannot reach the lease store; it will try again in ${retryIn}.`;
      },
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
      world.redis(w.id, { op: 'INCR', key: L.fenceKey }, {
        believe: (r) => world.send(w, 'GRANTED', { ownsLease: true, acquiredAtMs: world.nowMs, leaseBelievedUntilMs: world.nowMs + L.ttlMs, renewFailed: false, fencingToken: r.kind === 'int' ? r.value : null }),
        say: (r) => (r.kind === 'int'
          ? { text: `${w.id} gets fencing token ${r.value}: every later grant gets a higher one.`, data: { t: 'lease', op: 'fenced', key: L.key, worker: w.id, fencingToken: r.value } }
          : `${w.id} could not get a fencing token.`),
      }, w);
    }
    world.metrics.acquisitionLatencyMs.push(world.nowMs - started);
    scheduleRenewal(world, w);
    k();
  };
  attempt();
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
  if (world.scenario.mechanism.renewal === 'set') {
    world.redis(w.id, { op: 'SET', key: L.key, value: token }, {
      believe: () => world.send(w, 'BELIEVE', { leaseBelievedUntilMs: null }),
      say: () => ({ text: `${w.id} "renews" with a plain SET: that overwrites whoever holds the key and discards its TTL — the lease never expires now.`, data: { t: 'lease', op: 'renewed', key: L.key, worker: w.id } }),
    }, w);
    return scheduleRenewal(world, w);
  }
  const reply = world.redis(w.id, { op: 'COMPARE_AND_EXTEND', key: L.key, token, ms: L.ttlMs }, {
    believe: (r) => {
      if (r.kind === 'int' && r.value === 1) return world.send(w, 'BELIEVE', { leaseBelievedUntilMs: world.nowMs + L.ttlMs });
      world.metrics.renewFailures += 1;
      world.send(w, 'BELIEVE', r.kind === 'int' ? { renewFailed: true, ownsLease: false } : { renewFailed: true });
    },
    say: (r) => {
      if (r.kind === 'int' && r.value === 1) return { text: `${w.id} extends its lease by ${fmtMs(L.ttlMs)} (the key still holds its token).`, data: { t: 'lease', op: 'renewed', key: L.key, worker: w.id } };
      if (r.kind === 'int') return { text: `${w.id}'s renewal fails: the key expired or belongs to someone else now. Unless ${w.id} checks, it keeps working.`, data: { t: 'lease', op: 'renewFailed', key: L.key, worker: w.id } };
      return { text: `${w.id}'s renewal gets no answer: it cannot know whether it still owns the lease.`, data: { t: 'lease', op: 'renewFailed', key: L.key, worker: w.id } };
    },
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
    world.redis(w.id, { op: 'DEL', keys: [L.key] }, {
      believe: () => world.send(w, 'BELIEVE', { ownsLease: false }),
      say: (r) => {
        if (r.kind === 'int' && r.value === 1 && holder !== token) return { text: `${w.id} releases with plain DEL and deletes ${ownerOf(holder)}'s lease, not its own: ${ownerOf(holder)} still believes it owns ${L.key}.`, data: { t: 'lease', op: 'deleted', key: L.key, worker: w.id, deletedOwner: ownerOf(holder) } };
        if (r.kind === 'int' && r.value === 0) return `${w.id} runs DEL but the key is already gone.`;
        return { text: `${w.id} releases its lease with DEL.`, data: { t: 'lease', op: 'released', key: L.key, worker: w.id } };
      },
    }, w);
    return k();
  }
  world.redis(w.id, { op: 'COMPARE_AND_DELETE', key: L.key, token }, {
    believe: () => world.send(w, 'BELIEVE', { ownsLease: false }),
    say: (r) => {
      if (r.kind === 'int' && r.value === 1) return { text: `${w.id} releases its own lease (compare-and-delete matched its token).`, data: { t: 'lease', op: 'released', key: L.key, worker: w.id } };
      return holder === null ? `${w.id}'s compare-and-delete finds no key: nothing to release.` : `${w.id}'s compare-and-delete sees ${ownerOf(holder)}'s token, not its own, and deletes nothing: ${ownerOf(holder)}'s lease is safe.`;
    },
  }, w);
  k();
}
