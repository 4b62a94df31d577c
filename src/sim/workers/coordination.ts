/**
 * The coordination a worker takes and gives back: PostgreSQL advisory locks (session or
 * transaction scope) or a Redis lease (`SET NX PX`, `INCR` fencing token, renewal, release by
 * plain `DEL` or compare-and-delete); a lease that lives in etcd (`lockService`) is etcdLease.ts's. Sources: PostgreSQL "Advisory Lock Functions"; Redis
 * "Distributed Locks with Redis"; Kleppmann, "How to do distributed locking".
 */
import { explained } from '../engine/narration';
import type { World, WorkerRuntime } from '../engine/world';
import { fmtMs } from '../engine/fmt';
import type { AdvisoryFn } from '../resources/sqlTypes';
import { lockTimeoutError } from '../resources/sqlErrors';
import { redisClassOf, runRedis, runSql } from './replyClass';
import { compareToken, failOnLostRelease, gaveUpReason, highestTokenGranted, holderBelief, ownerOfValue, scheduleRenewal, sequenceToken } from './leaseShared';
import { acquireEtcdLease, keepAliveEtcdLease, releaseEtcdLease } from './etcdLease';

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
  if (world.scenario.client.onBusy !== 'wait') return tryAdvisory(world, w, k, key);
  const started = world.nowMs;
  w.requestStartMs = started;
  world.send(w, 'REQUEST');
  const timeoutMs = m.acquireTimeoutMs ?? null;
  const granted = (): string => {
    const scope = m.lock === 'advisory-xact' ? 'until its transaction ends' : 'for its session, until it unlocks or the connection closes';
    const held = heldCount(world, w, key);
    if (held > 1) return `${w.id} "acquires" advisory lock ${key} at once: ${heldBy(world, w)} already held it, and a session always gets its own lock again (now held ${held} times).`;
    return `${w.id} holds advisory lock ${key} ${scope}.`;
  };
  // Whether the lock request has its reply: a grant at once runs the next steps before runSql returns,
  // and a wait they start (a row lock's) is not this request's, so lock_timeout must not touch it.
  let answered = false;
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
    answered = true;
    if (r.status === 'error') return failFromCoordination(world, w, r.error.message);
    if (world.stateOf(w) !== 'holding') world.send(w, 'GRANTED', { holdsLock: true, acquiredAtMs: world.nowMs });
    world.metrics.acquisitionLatencyMs.push(world.nowMs - started);
    w.requestStartMs = null;
    k();
  });
  if (timeoutMs !== null && !answered) {
    // PostgreSQL's lock_timeout, set for the lock request only: the server cancels it if it has waited this long.
    const gen = w.gen;
    world.at(world.nowMs + timeoutMs, () => {
      const session = world.sessionOf(w);
      if (answered || w.gen !== gen || w.waitKind !== 'db' || session === null) return;
      world.deliverCompletions(world.sqlResource.cancelWaiting(session, lockTimeoutError()));
    });
  }
}

/**
 * The client tries the advisory lock without waiting (`client.onBusy` is `skip` or `retry`):
 * `pg_try_advisory_lock` (or `pg_try_advisory_xact_lock`) answers `t` or `f` at once (PostgreSQL
 * "Advisory Lock Functions"). On `f`: `skip` ends the job as skipped (no error, cleanup steps
 * still run); `retry` tries again `lease.retryEveryMs` later, `client.retries` more times, and then
 * fails the job.
 */
function tryAdvisory(world: World, w: WorkerRuntime, k: () => void, key: number): void {
  const m = world.scenario.mechanism;
  const c = world.scenario.client;
  const fn: AdvisoryFn = m.lock === 'advisory-xact' ? 'pg_try_advisory_xact_lock' : 'pg_try_advisory_lock';
  const tries = c.onBusy === 'retry' ? 1 + c.retries : 1;
  const retryIn = fmtMs(world.scenario.lease.retryEveryMs);
  const started = world.nowMs;
  w.requestStartMs = started;
  let n = 0;
  world.send(w, 'REQUEST');
  const attempt = (): void => {
    n += 1;
    const last = n >= tries;
    const scope = m.lock === 'advisory-xact' ? 'until its transaction ends' : 'for its session, until it unlocks or the connection closes';
    const got = (): string => (heldCount(world, w, key) > 1
      ? `${w.id}'s try-lock returns true at once: its connection's session already held advisory lock ${key} (now held ${heldCount(world, w, key)} times).`
      : `${w.id}'s try-lock returns true: it holds advisory lock ${key} ${scope}.`);
    runSql(world, w, { op: 'advisory', fn, key: { kind: 'bigint', key: key } }, {
      believe: (_r, cl) => {
        if (cl === 'ok') world.send(w, 'GRANTED', { holdsLock: true, acquiredAtMs: world.nowMs });
        else if (cl === 'none' && !last && world.stateOf(w) !== 'waiting') world.send(w, 'WAIT');
      },
      ok: got,
      none: () => {
        if (!last) return `Advisory lock ${key} is held by another session: ${w.id}'s try ${n} of ${tries} returns false; it tries again in ${retryIn}.`;
        if (c.onBusy === 'skip') return `Advisory lock ${key} is held by another session: ${w.id}'s try-lock returns false, so it skips the job without an error.`;
        return `Advisory lock ${key} is still held by another session: ${w.id}'s last try (${n} of ${tries}) returns false, so it gives up and fails the job.`;
      },
      refused: got,
      error: (r) => `${w.id}'s try-lock fails: ${r.error.message}.`,
    }, (r) => {
      if (r.status === 'error') return failFromCoordination(world, w, r.error.message);
      if (r.status === 'ok' && r.rows[0]?.[fn] === 't') {
        world.metrics.acquisitionLatencyMs.push(world.nowMs - started);
    w.requestStartMs = null;
        return k();
      }
      if (!last) return void world.at(world.nowMs + world.scenario.lease.retryEveryMs, attempt, w);
      if (c.onBusy === 'skip') return world.jobs.skipRest(w, 'skipped');
      world.jobs.fail(w, `advisory lock ${key} was still held after ${tries} tries`);
    });
  };
  attempt();
}

/** Releases what `acquireCoordination` took (a transaction-scoped lock goes with COMMIT instead). */
export function releaseCoordination(world: World, w: WorkerRuntime, k: () => void): void {
  const m = world.scenario.mechanism;
  // A job skipped because the lock was taken never held it: its client has nothing to release.
  const skipped = w.outcome === 'skipped' && !world.beliefs(w).ownsLease && !world.beliefs(w).holdsLock;
  if (m.lock === 'lease') return !skipped && (world.beliefs(w).ownsLease || w.outcome !== 'stopped') ? releaseLease(world, w, k) : k();
  if (m.lock !== 'advisory-session' || skipped) return k();
  world.send(w, 'RELEASE');
  // Only the key unlocked: another key the session holds (an `acquire` step's own) does not make this one "stay held".
  const unlocked = (): string => (stillHeld(world, w, m.advisoryKey)
    ? `${w.id} unlocks once, but the lock was taken more than once on this ${world.poolerResource.mode === null ? '' : 'server '}connection: it stays held.`
    : `${w.id} unlocks advisory lock ${m.advisoryKey}.`);
  runSql(world, w, { op: 'advisory', fn: 'pg_advisory_unlock', key: { kind: 'bigint', key: m.advisoryKey } }, {
    // It unlocked this key; another key it took itself (an `acquire` step's own) it knows it still holds.
    believe: () => world.send(w, 'BELIEVE', { holdsLock: otherKeyHeld(world, w, m.advisoryKey) }),
    ok: unlocked,
    none: unlocked,
    refused: () => `${w.id}'s unlock returns false with a WARNING: this session does not hold the lock (${lockElsewhere(world, m.advisoryKey)}).${world.scenario.client.checkRelease && w.outcome !== 'failed' ? ` ${w.id}'s client checks the result and fails the job.` : ''}`,
    error: (r) => `${w.id}'s unlock fails: ${r.error.message}.`,
  }, (r) => {
    if (r.status === 'ok' && r.warning !== undefined && failOnLostRelease(world, w, `its unlock of advisory lock ${m.advisoryKey} returned false: the session did not hold it`)) return;
    k();
  });
}

/** Whose session held the lock a worker "acquires" again: its connection's, or — behind a pooler — the server connection PgBouncer gave it. */
function heldBy(world: World, w: WorkerRuntime): string {
  return world.poolerResource.mode === null ? 'its connection\'s session' : `server connection ${world.sessionOf(w) ?? '?'}, which PgBouncer handed it,`;
}

/** Where advisory lock `key` is after an unlock that returned false: "the lock, if held, is on another connection" — behind a pooler, the server connections that hold it. */
function lockElsewhere(world: World, key: number): string {
  if (world.poolerResource.mode === null) return 'the lock, if held, is on another connection';
  const holders = world.poolerResource.snapshot().servers.map((x) => x.id).filter((id) => world.db.sessionState(id).advisoryLocks.some((l) => l.key === String(key)));
  return holders.length === 0 ? 'nobody holds it' : `PgBouncer ran it on another server connection; ${holders.join(' and ')} still ${holders.length === 1 ? 'holds' : 'hold'} the lock`;
}

/** How many times the worker's session holds advisory lock `key` (both scopes). */
function heldCount(world: World, w: WorkerRuntime, key: number): number {
  const session = world.sessionOf(w);
  if (session === null) return 0;
  return world.db.sessionState(session).advisoryLocks.filter((l) => l.key === String(key)).reduce((n, l) => n + l.sessionCount + l.xactCount, 0);
}

/**
 * Whether the worker's session holds a session-level advisory lock now (on `key`, or on any key
 * when `key` is omitted): the one lock a worker keeps across COMMIT/ROLLBACK (PostgreSQL
 * "Advisory Locks": session-level locks survive the transaction; row locks and transaction-level
 * locks end with it), and what an unlock of one key leaves held of that key.
 */
export function stillHeld(world: World, w: WorkerRuntime, key?: number): boolean {
  const session = world.sessionOf(w);
  if (session === null) return false;
  return world.db.sessionState(session).advisoryLocks.some((l) => l.sessionCount > 0 && (key === undefined || l.key === String(key)));
}

/** Whether the worker's session holds a session-level advisory lock on a key other than `key` (one it took with an `acquire` step of its own). */
function otherKeyHeld(world: World, w: WorkerRuntime, key: number): boolean {
  const session = world.sessionOf(w);
  if (session === null) return false;
  return world.db.sessionState(session).advisoryLocks.some((l) => l.sessionCount > 0 && l.key !== String(key));
}

function failFromCoordination(world: World, w: WorkerRuntime, reason: string): void {
  world.jobs.fail(w, `could not take the lock: ${reason}`);
}

/**
 * `SET key token NX PX ttl` until it succeeds (retrying every retryEveryMs), then `INCR` the
 * fencing counter if fencing is on; or, when the lease lives in etcd (`lockService`), a lease grant
 * and the acquire transaction (etcdLease.ts).
 */
export function acquireLease(world: World, w: WorkerRuntime, k: () => void): void {
  if (world.scenario.lockService !== undefined) return acquireEtcdLease(world, w, k);
  const L = world.scenario.lease;
  const fencing = world.scenario.mechanism.fencing;
  const token = world.rng.hexToken();
  const started = world.nowMs;
  w.requestStartMs = started;
  world.send(w, 'REQUEST', { ownerToken: token });
  const setNx = { op: 'SET', key: L.key, value: token, nx: true, pxMs: L.ttlMs } as const;
  const retryIn = fmtMs(L.retryEveryMs);
  const c = world.scenario.client;
  // How many SET NX the client sends at most (`wait`: until acquireTimeoutMs, if any).
  const tries = c.onBusy === 'retry' ? 1 + c.retries : c.onBusy === 'skip' ? 1 : Infinity;
  let n = 0;
  /** What the client does after a SET that did not take the lease (version 1's words for `wait`). */
  const next = (failed: string): string => {
    if (c.onBusy === 'wait') return `${failed}; it will try again in ${retryIn}.`;
    if (n < tries) return `${failed}; try ${n} of ${tries}, it tries again in ${retryIn}.`;
    return c.onBusy === 'skip' ? `${failed}; ${w.id} tried once and skips the job without an error.` : `${failed}; that was try ${n} of ${tries}, so ${w.id} gives up and fails the job.`;
  };
  const attempt = (): void => {
    n += 1;
    const reply = runRedis(world, w.id, setNx, {
      believe: (_r, c) => {
        if (c === 'ok') {
          if (!fencing) world.send(w, 'GRANTED', { ownsLease: true, acquiredAtMs: world.nowMs, leaseBelievedUntilMs: world.nowMs + L.ttlMs, renewFailed: false, refusedAsStale: false, fencingToken: null });
        } else if (world.stateOf(w) !== 'waiting') world.send(w, 'WAIT');
      },
      ok: () => ({ text: `${w.id} takes the lease ${L.key} for ${fmtMs(L.ttlMs)} (owner token ${token}).`, data: { t: 'lease', op: 'acquired', key: L.key, worker: w.id } }),
      none: () => (c.onBusy === 'wait' ? `${L.key} is taken: ${w.id} will try again in ${retryIn}.` : next(`${L.key} is taken`)),
      error: (r) => next(`${w.id}'s SET fails (${r.message})`),
      timeout: () => (c.onBusy === 'wait'
        ? `${w.id} cannot reach the lease store: its SET gets no reply, so it cannot know whether it took the lease. It will try again in ${retryIn}.`
        : next(`${w.id} cannot reach the lease store: its SET gets no reply, so it cannot know whether it took the lease`)),
    }, w);
    if (reply.kind !== 'ok' && n >= tries) {
      if (c.onBusy === 'skip') return world.jobs.skipRest(w, 'skipped');
      const last = redisClassOf(reply);
      return world.jobs.fail(w, gaveUpReason(L.key, tries, 'the lease store', last === 'timeout' ? { kind: 'noReply' } : reply.kind === 'error' ? { kind: 'error', message: reply.message } : { kind: 'taken' }));
    }
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
    const grantedAtMs = world.nowMs;
    const granted = (): void => {
      world.metrics.acquisitionLatencyMs.push(grantedAtMs - started);
      w.requestStartMs = null;
      scheduleRenewal(world, w, c.renewFrom === 'firstAttempt' ? started : grantedAtMs, renew);
      k();
    };
    if (fencing && world.scenario.mechanism.fenceSource === 'db-sequence') return sequenceToken(world, w, grantedAtMs, granted);
    if (fencing) {
      const earlier = highestTokenGranted(world);
      const noToken = `${w.id} could not get a fencing token: it goes on without one.`;
      runRedis(world, w.id, { op: 'INCR', key: L.fenceKey }, {
        believe: (r) => world.send(w, 'GRANTED', { ownsLease: true, acquiredAtMs: world.nowMs, leaseBelievedUntilMs: world.nowMs + L.ttlMs, renewFailed: false, refusedAsStale: false, fencingToken: r.kind === 'int' ? r.value : null }),
        ok: (r) => (r.kind === 'int'
          ? { text: `${w.id} gets fencing token ${r.value}${compareToken(r.value, earlier)}.`, data: { t: 'lease', op: 'fenced', key: L.key, worker: w.id, fencingToken: r.value } }
          : noToken),
        none: () => noToken,
        error: (r) => `${w.id} could not get a fencing token (${r.message}): it goes on without one.`,
        timeout: () => `${w.id}'s INCR gets no reply: it has no fencing token and goes on without one.`,
      }, w);
    }
    granted();
  };
  attempt();
}

function renew(world: World, w: WorkerRuntime): void {
  if (world.scenario.lockService !== undefined) return keepAliveEtcdLease(world, w);
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
      ok: () => ({ text: explained(`${w.id} "renews" with a plain SET`, ': that overwrites whoever holds the key and discards its TTL — the lease never expires now'), data: { t: 'lease', op: 'renewed', key: L.key, worker: w.id } }),
      none: () => ({ text: `${w.id}'s plain-SET renewal is not applied.`, data: failed }),
      error: (r) => ({ text: `${w.id}'s plain-SET renewal fails (${r.message}): it cannot know whether it still owns the lease.`, data: failed }),
      timeout: () => ({ text: `${w.id}'s plain-SET renewal gets no reply (timed out): it cannot know whether it still owns the lease, and the key is unchanged if the SET never arrived.`, data: failed }),
    }, w);
    return scheduleRenewal(world, w, world.nowMs, renew);
  }
  if (world.scenario.mechanism.renewal === 'set-px') {
    // A client that "extends" by setting the key again with a TTL: SET without NX always succeeds
    // (Redis SET), so it re-creates an expired key and overwrites a successor's.
    const holder = world.leases.entries(world.nowMs).find((e) => e.key === L.key)?.value ?? null;
    runRedis(world, w.id, { op: 'SET', key: L.key, value: token, pxMs: L.ttlMs }, {
      believe: (_r, c) => (c === 'ok' ? world.send(w, 'BELIEVE', { leaseBelievedUntilMs: world.nowMs + L.ttlMs }) : noAnswer()),
      ok: () => {
        const data = { t: 'lease', op: 'renewed', key: L.key, worker: w.id } as const;
        if (holder === token) return { text: `${w.id} renews with SET … PX: the key still held its token, so this only resets the TTL to ${fmtMs(L.ttlMs)}.`, data };
        if (holder === null) return { text: `${w.id}'s SET re-creates ${L.key}, which had expired: ${w.id} re-acquires after a gap in which another worker could have taken the lease and worked, and it cannot tell.`, data };
        return { text: `${w.id}'s SET overwrites ${ownerOfValue(world, holder)}'s lease with its own token: ${holderBelief(world, holder, L.key).text}.`, data };
      },
      none: () => ({ text: `${w.id}'s SET renewal is not applied.`, data: failed }),
      error: (r) => ({ text: `${w.id}'s SET renewal fails (${r.message}): it cannot know whether it still owns the lease.`, data: failed }),
      timeout: () => ({ text: `${w.id}'s SET renewal gets no reply (timed out): it cannot know whether it still owns the lease, and the key is unchanged if the SET never arrived.`, data: failed }),
    }, w);
    return scheduleRenewal(world, w, world.nowMs, renew);
  }
  if (world.scenario.mechanism.renewal === 'pexpire') {
    // Redis PEXPIRE: 1 if the key exists (whoever's it is), 0 if not. No owner check.
    const holder = world.leases.entries(world.nowMs).find((e) => e.key === L.key)?.value ?? null;
    // Two owners only while the key's holder still believes it owns it (not once it crashed or finished).
    const twoOwners = (h: string | null): string => { if (h === null) return ''; const b = holderBelief(world, h, L.key); return b.believes ? ' — two owners now' : ` (${b.text})`; };
    const pexpired = runRedis(world, w.id, { op: 'PEXPIRE', key: L.key, ms: L.ttlMs }, {
      believe: (_r, c) => {
        if (c === 'ok') return world.send(w, 'BELIEVE', { leaseBelievedUntilMs: world.nowMs + L.ttlMs });
        if (c !== 'none') return noAnswer();
        world.metrics.renewFailures += 1;
        world.send(w, 'BELIEVE', { renewFailed: true, ownsLease: false });
      },
      ok: () => (holder === token
        ? { text: explained(`${w.id} extends its lease by ${fmtMs(L.ttlMs)} with a plain PEXPIRE`, ' (the key still holds its token, but PEXPIRE did not check that)'), data: { t: 'lease', op: 'renewed', key: L.key, worker: w.id } }
        : { text: explained(`${w.id}'s plain PEXPIRE extends ${ownerOfValue(world, holder)}'s lease`, `, not its own: PEXPIRE checks no owner, so ${w.id} goes on believing it owns ${L.key}${twoOwners(holder)}`), data: { t: 'lease', op: 'renewed', key: L.key, worker: w.id } }),
      none: () => ({ text: `${w.id}'s PEXPIRE replies 0: ${L.key} no longer exists (it expired). Unless ${w.id} checks, it keeps working.`, data: failed }),
      error: (r) => ({ text: `${w.id}'s PEXPIRE renewal fails (${r.message}): it cannot know whether it still owns the lease.`, data: failed }),
      timeout: () => ({ text: `${w.id}'s PEXPIRE renewal gets no answer: it cannot know whether it still owns the lease.`, data: failed }),
    }, w);
    if (pexpired.kind === 'int' && pexpired.value === 0) return;
    return scheduleRenewal(world, w, world.nowMs, renew);
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
  scheduleRenewal(world, w, world.nowMs, renew);
}

/** Releases the worker's lease with plain `DEL` or the compare-and-delete script (in etcd: `etcdctl del` or a revoke of its lease). */
export function releaseLease(world: World, w: WorkerRuntime, k: () => void): void {
  if (world.scenario.lockService !== undefined) return releaseEtcdLease(world, w, k);
  const L = world.scenario.lease;
  const b = world.beliefs(w);
  const token = b.ownerToken ?? '';
  const holder = world.leases.entries(world.nowMs).find((e) => e.key === L.key)?.value ?? null;
  const ownerOf = (value: string | null): string => ownerOfValue(world, value);
  const checks = world.scenario.client.checkRelease && w.outcome !== 'failed';
  const failsJob = checks ? ` ${w.id}'s client checks the reply and fails the job: it had lost the lease.` : '';
  const lost = `its release found ${L.key} no longer held with its token`;
  w.renewGen += 1;
  world.send(w, 'RELEASE');
  if (world.scenario.mechanism.release === 'del') {
    const deleted = runRedis(world, w.id, { op: 'DEL', keys: [L.key] }, {
      believe: () => world.send(w, 'BELIEVE', { ownsLease: false }),
      ok: () => (holder !== token
        ? { text: explained(`${w.id} releases with plain DEL and deletes ${ownerOf(holder)}'s lease`, `, not its own${holder === null ? '' : `: ${holderBelief(world, holder, L.key).text}`}`), data: { t: 'lease', op: 'deleted', key: L.key, worker: w.id, deletedOwner: ownerOf(holder) } }
        : { text: `${w.id} releases its lease with DEL.`, data: { t: 'lease', op: 'released', key: L.key, worker: w.id } }),
      none: () => `${w.id} runs DEL but the key is already gone.${failsJob}`,
      error: (r) => `${w.id}'s DEL fails (${r.message}): it gives up its lease without knowing whether the key was deleted.`,
      timeout: () => `${w.id}'s DEL gets no reply (timed out): it gives up its lease without knowing whether the key was deleted; if the DEL never arrived, the key stays until its TTL runs out.`,
    }, w);
    if (deleted.kind === 'int' && deleted.value === 0 && failOnLostRelease(world, w, lost)) return;
    return k();
  }
  const compared = runRedis(world, w.id, { op: 'COMPARE_AND_DELETE', key: L.key, token }, {
    believe: () => world.send(w, 'BELIEVE', { ownsLease: false }),
    ok: () => ({ text: `${w.id} releases its own lease (compare-and-delete matched its token).`, data: { t: 'lease', op: 'released', key: L.key, worker: w.id } }),
    none: () => (holder === null ? `${w.id}'s compare-and-delete finds no key: nothing to release.${failsJob}` : `${explained(`${w.id}'s compare-and-delete sees ${ownerOf(holder)}'s token`, ', not its own,', ' and deletes nothing')}${explained('', `: ${ownerOf(holder)}'s lease is safe`)}${failsJob}`),
    error: (r) => `${w.id}'s compare-and-delete fails (${r.message}): it gives up its lease without knowing whether the key was deleted.`,
    timeout: () => `${w.id}'s compare-and-delete gets no reply (timed out): it gives up its lease without knowing whether the key was deleted; if its token is still there, the key stays until its TTL runs out.`,
  }, w);
  if (compared.kind === 'int' && compared.value === 0 && failOnLostRelease(world, w, lost)) return;
  k();
}
