/**
 * The lease of a worker whose lock lives in etcd (`lockService: { kind: 'etcd' }`), as an etcd
 * lock client takes it: grant a lease (`etcdctl lease grant <ttl>`), take the lock key with one
 * transaction that attaches it to the lease (`create("<key>") = "0"` → `put <key> <owner token>
 * --lease=<id>`, else `get <key>`), keep the lease alive from its grant while waiting and working
 * (`mechanism.renewal` "compare-and-extend": `etcdctl lease keep-alive --once <id>` every
 * `lease.renewEveryMs` − `client.renewMarginMs`), and give the lock back by revoking the lease
 * ("compare-and-delete": only its own lease's key goes) or by a plain `etcdctl del <key>` ("del":
 * whoever's key it is). With `mechanism.fenceSource` "lock-service-revision" the fencing token is
 * the revision of the put that took the lock — issued with the grant, kept by etcd's quorum, higher
 * for every later grant. Sources: etcd v3 API reference (Lease, KV Txn), "Interacting with etcd",
 * etcd's `concurrency` package (a Session keeps its lease alive from the grant; a Mutex's key is
 * ordered by its create revision); ../shared/semantics.md, "Fencing beyond a Redis counter".
 *
 * `client.onBusy`, `client.retries`, `mechanism.acquireTimeoutMs` and `client.checkRelease` work as
 * for a Redis lease (a transaction whose compare failed is a `SET NX` that answered nil); the
 * keep-alive timer counts from the lease grant, whatever `client.renewFrom` says (etcd's TTL runs
 * from there).
 */
import type { World, WorkerRuntime } from '../engine/world';
import { fmtMs } from '../engine/fmt';
import { explained } from '../engine/narration';
import { ETCD_MIN_LEASE_TTL_S, ttlSecondsOf, type EtcdReply } from '../resources/lockService';
import { etcdClassOf, runEtcd } from './replyClass';
import { compareToken, failOnLostRelease, gaveUpReason, highestTokenGranted, holderBelief, ownerOfValue, scheduleRenewal, sequenceToken, type LastTry } from './leaseShared';

/** The lease TTL the client asks for, in seconds: `lease.ttlMs` rounded up (validation keeps it whole). */
function ttlSeconds(world: World): number {
  return ttlSecondsOf(world.scenario.lease.ttlMs);
}

/** A TTL of whole seconds, in words. */
const secs = (ttlS: number): string => fmtMs(ttlS * 1000);

/** A reply that cannot come for the request it answers (the model's replies are typed per request). */
function unexpected(r: EtcdReply): never {
  throw new Error(`etcd answered with ${r.op} where another reply was expected`);
}

/** What a try that did not take the lock found, from etcd's reply to its grant or transaction. */
function lastTry(r: EtcdReply): LastTry {
  const c = etcdClassOf(r);
  if (c === 'timeout') return { kind: 'noReply' };
  if (r.op === 'error') return c === 'none' ? { kind: 'leaseGone' } : { kind: 'error', message: r.message };
  return { kind: 'taken' };
}

/**
 * Takes the lock in etcd for the worker: a lease grant, then the acquire transaction, retried
 * every `lease.retryEveryMs` while someone holds the key (as `client.onBusy` says); calls `k` once
 * the worker holds it (after `SELECT nextval('fence_seq')` when the token comes from a sequence).
 * A lease found gone at the transaction (it ran out while the worker waited without keep-alive) is
 * replaced by a new grant at the next try.
 */
export function acquireEtcdLease(world: World, w: WorkerRuntime, k: () => void): void {
  const L = world.scenario.lease;
  const m = world.scenario.mechanism;
  const c = world.scenario.client;
  const key = L.key;
  const token = world.rng.hexToken();
  const started = world.nowMs;
  w.requestStartMs = started;
  const revisionToken = m.fencing && m.fenceSource === 'lock-service-revision';
  const sequence = m.fencing && m.fenceSource === 'db-sequence';
  // A new acquire asks for a new lease: the keep-alive of an earlier one (if any) stops.
  w.renewGen += 1;
  w.etcdLease = null;
  world.send(w, 'REQUEST', { ownerToken: token });
  const retryIn = fmtMs(L.retryEveryMs);
  // How many transactions the client sends at most (`wait`: until acquireTimeoutMs, if any).
  const tries = c.onBusy === 'retry' ? 1 + c.retries : c.onBusy === 'skip' ? 1 : Infinity;
  let n = 0;
  /** What the client does after a try that did not take the lock. */
  const next = (failed: string): string => {
    if (c.onBusy === 'wait') return `${failed}; it will try again in ${retryIn}.`;
    if (n < tries) return `${failed}; try ${n} of ${tries}, it tries again in ${retryIn}.`;
    return c.onBusy === 'skip' ? `${failed}; ${w.id} tried once and skips the job without an error.` : `${failed}; that was try ${n} of ${tries}, so ${w.id} gives up and fails the job.`;
  };
  const waiting = (): void => {
    if (world.stateOf(w) !== 'waiting') world.send(w, 'WAIT');
  };
  /** The try did not take the lock (`reply` says why): give up (skip, fail: its lease is no longer kept alive) or try again later. */
  const notTaken = (reply: EtcdReply): void => {
    if (n >= tries) {
      w.renewGen += 1;
      if (c.onBusy === 'skip') return world.jobs.skipRest(w, 'skipped');
      return world.jobs.fail(w, gaveUpReason(key, tries, 'etcd', lastTry(reply)));
    }
    const giveUpAtMs = m.acquireTimeoutMs == null ? null : started + m.acquireTimeoutMs;
    if (giveUpAtMs !== null && world.nowMs + L.retryEveryMs > giveUpAtMs) {
      // A pause can carry the worker past its deadline: then it gives up as soon as it runs again.
      const atMs = Math.max(world.nowMs, giveUpAtMs);
      world.at(atMs, () => {
        w.renewGen += 1;
        world.jobs.fail(w, `it gave up waiting for ${key} after ${fmtMs(atMs - started)}`);
      }, w);
      return;
    }
    world.at(world.nowMs + L.retryEveryMs, attempt, w);
  };
  /** `etcdctl lease grant <ttl>`; null when the worker got a lease (its keep-alive timer then starts), else etcd's reply. */
  const grant = (): EtcdReply | null => {
    const ttlS = ttlSeconds(world);
    const reply = runEtcd(world, w.id, { op: 'leaseGrant', ttlS }, {
      believe: (r) => {
        if (r.op === 'leaseGrant') w.etcdLease = { id: r.id, ttlS: r.ttlS, sinceMs: world.nowMs };
        else waiting();
      },
      ok: (r) => {
        if (r.op !== 'leaseGrant') return unexpected(r);
        const raised = r.ttlS > ttlS ? ` (it asked for ${secs(ttlS)}: etcd raises a TTL below its minimum, ${secs(ETCD_MIN_LEASE_TTL_S)})` : '';
        return `${w.id} asks etcd for a lease and gets lease ${r.id} for ${secs(r.ttlS)}${raised}; the lock key will be attached to it, and deleted with it.`;
      },
      none: (r) => unexpected(r),
      error: (r) => next(`${w.id}'s lease grant fails (${r.message})`),
      timeout: () => next(`${w.id} cannot reach etcd: its lease grant gets no reply`),
    }, w);
    if (reply.op !== 'leaseGrant') return reply;
    scheduleRenewal(world, w, world.nowMs, keepAliveEtcdLease);
    return null;
  };
  const attempt = (): void => {
    n += 1;
    const refused = w.etcdLease === null ? grant() : null;
    if (refused !== null) return notTaken(refused);
    const lease = w.etcdLease!;
    const earlier = highestTokenGranted(world);
    const believedUntilMs = lease.sinceMs + lease.ttlS * 1000;
    const reply = runEtcd(world, w.id, { op: 'txnAcquire', key, value: token, lease: lease.id }, {
      believe: (r, cl) => {
        if (cl === 'ok') {
          if (!sequence) world.send(w, 'GRANTED', { ownsLease: true, acquiredAtMs: world.nowMs, leaseBelievedUntilMs: believedUntilMs, renewFailed: false, refusedAsStale: false, fencingToken: revisionToken && r.op === 'txnAcquire' ? r.revision : null });
          return;
        }
        // The lease the put names is gone: the client drops it and asks for a new one next time.
        if (r.op === 'error' && cl === 'none') w.etcdLease = null;
        waiting();
      },
      ok: (r) => {
        if (r.op !== 'txnAcquire') return unexpected(r);
        const tokenText = revisionToken ? ` Revision ${r.revision} is its fencing token${compareToken(r.revision, earlier)}.` : '';
        return {
          text: `${w.id}'s transaction finds ${key} absent and puts it with lease ${lease.id}: ${w.id} holds the lock, created at revision ${r.revision}.${tokenText}`,
          data: revisionToken ? { t: 'lease', op: 'acquired', key, worker: w.id, fencingToken: r.revision } : { t: 'lease', op: 'acquired', key, worker: w.id },
        };
      },
      none: (r) => {
        if (r.op === 'txnAcquire' && r.kv !== null) return next(`${key} is held by ${ownerOfValue(world, r.kv.value)} (created at revision ${r.kv.createRevision} with lease ${r.kv.lease ?? 'none'}): the compare fails and ${w.id}'s transaction only reads it`);
        return next(`${w.id}'s lease ${lease.id} is gone (nothing kept it alive for its ${secs(lease.ttlS)}), so etcd refuses the put; ${w.id} will ask for a new lease`);
      },
      error: (r) => next(`${w.id}'s transaction fails (${r.message})`),
      timeout: () => next(`${w.id} cannot reach etcd: its transaction gets no reply, so it cannot know whether it took the lock`),
    }, w);
    if (reply.op !== 'txnAcquire' || !reply.succeeded) return notTaken(reply);
    const grantedAtMs = world.nowMs;
    const granted = (): void => {
      world.metrics.acquisitionLatencyMs.push(grantedAtMs - started);
      w.requestStartMs = null;
      k();
    };
    if (sequence) return sequenceToken(world, w, grantedAtMs, granted, believedUntilMs);
    granted();
  };
  attempt();
}

/**
 * One keep-alive of the worker's lease (`etcdctl lease keep-alive --once <id>`), run by the renewal
 * timer; the next is scheduled unless etcd answered that the lease is gone. A keep-alive extends the
 * lease, not the key: it succeeds even when the key was deleted by someone else, and the worker
 * cannot tell. Every keep-alive without a success reply counts as a failed renewal.
 */
export function keepAliveEtcdLease(world: World, w: WorkerRuntime): void {
  const lease = w.etcdLease;
  if (lease === null) return;
  const key = world.scenario.lease.key;
  const owns = world.beliefs(w).ownsLease;
  const failed = { t: 'lease', op: 'renewFailed', key, worker: w.id } as const;
  const reply = runEtcd(world, w.id, { op: 'leaseKeepAlive', id: lease.id }, {
    believe: (r, c) => {
      if (r.op === 'leaseKeepAlive') {
        lease.sinceMs = world.nowMs;
        if (owns) world.send(w, 'BELIEVE', { leaseBelievedUntilMs: world.nowMs + r.ttlS * 1000 });
        return;
      }
      world.metrics.renewFailures += 1;
      if (c === 'none') w.etcdLease = null;
      world.send(w, 'BELIEVE', c === 'none' && owns ? { renewFailed: true, ownsLease: false } : { renewFailed: true });
    },
    ok: (r) => {
      if (r.op !== 'leaseKeepAlive') return unexpected(r);
      if (!owns) return `${w.id} keeps its lease ${lease.id} alive (another ${secs(r.ttlS)}) while it waits for ${key}.`;
      const now = world.etcd.kv(world.nowMs, key);
      if (now?.lease === lease.id) return { text: `${w.id} keeps its lease ${lease.id} alive: ${key}, attached to it, lives another ${secs(r.ttlS)}.`, data: { t: 'lease', op: 'renewed', key, worker: w.id } };
      const holder = now === null ? 'nobody holds it now' : `${ownerOfValue(world, now.value)} holds it now`;
      return `${w.id} keeps its lease ${lease.id} alive, but ${key} is no longer attached to it (it was deleted; ${holder}): a keep-alive extends the lease, not the key, so ${w.id} cannot tell and goes on believing it holds the lock.`;
    },
    none: () => ({
      text: owns
        ? `${w.id}'s keep-alive fails: lease ${lease.id} no longer exists (it ran out or was revoked), and ${key} went with it. Unless ${w.id} checks, it keeps working.`
        : `${w.id}'s keep-alive fails: lease ${lease.id} no longer exists (it ran out or was revoked).`,
      data: failed,
    }),
    error: (r) => ({ text: `${w.id}'s keep-alive fails (${r.message}): it cannot know whether its lease is still alive.`, data: failed }),
    timeout: () => ({ text: `${w.id}'s keep-alive gets no reply (timed out): it cannot know whether its lease ${lease.id} is still alive; etcd deletes ${key} when the lease runs out.`, data: failed }),
  }, w);
  if (reply.op === 'error' && w.etcdLease === null) return;
  scheduleRenewal(world, w, world.nowMs, keepAliveEtcdLease);
}

/**
 * Gives the lock back: `etcdctl lease revoke <id>` (`mechanism.release` "compare-and-delete": etcd
 * deletes the keys attached to that lease only, so a successor's key is safe; its reply says
 * nothing about which keys went) or `etcdctl del <key>` ("del": whoever's key it is; the lease
 * stays until its TTL runs out). A revoke answered "lease not found" and a delete answered 0 tell a
 * checking client (`client.checkRelease`) that it had lost the lock: the job fails.
 */
export function releaseEtcdLease(world: World, w: WorkerRuntime, k: () => void): void {
  const key = world.scenario.lease.key;
  const token = world.beliefs(w).ownerToken;
  const lease = w.etcdLease;
  const checks = world.scenario.client.checkRelease && w.outcome !== 'failed';
  const failsJob = checks ? ` ${w.id}'s client checks the reply and fails the job: it had lost the lock.` : '';
  const lost = `its release found ${key} no longer held with its lease`;
  w.renewGen += 1;
  world.send(w, 'RELEASE');
  const before = world.etcd.kv(world.nowMs, key);
  if (world.scenario.mechanism.release === 'del') {
    const holder = before?.value ?? null;
    const reply = runEtcd(world, w.id, { op: 'del', key }, {
      believe: () => world.send(w, 'BELIEVE', { ownsLease: false }),
      ok: () => (holder !== token
        ? { text: explained(`${w.id} releases with a plain etcdctl del and deletes ${ownerOfValue(world, holder)}'s lock`, `, not its own${holder === null ? '' : `: ${holderBelief(world, holder, key, 'holds').text}`}`), data: { t: 'lease', op: 'deleted', key, worker: w.id, deletedOwner: ownerOfValue(world, holder) } }
        : { text: `${w.id} releases the lock with etcdctl del${lease === null ? '' : ` (its lease ${lease.id} stays until its TTL runs out, nothing keeps it alive now)`}.`, data: { t: 'lease', op: 'released', key, worker: w.id } }),
      none: () => `${w.id} runs etcdctl del but ${key} is already gone.${failsJob}`,
      error: (r) => `${w.id}'s etcdctl del fails (${r.message}): it gives up the lock without knowing whether the key was deleted.`,
      timeout: () => `${w.id}'s etcdctl del gets no reply (timed out): it gives up the lock without knowing whether the key was deleted; if the request never arrived, the key stays until its lease runs out.`,
    }, w);
    if (reply.op === 'del' && reply.deleted === 0 && failOnLostRelease(world, w, lost)) return;
    return k();
  }
  if (lease === null) {
    // Its client holds no lease: etcd answered a keep-alive "lease not found" (the client dropped
    // the lease then), or it never took the lock with a live one. There is nothing to revoke, and
    // the release step says so rather than passing without a word.
    const why = world.beliefs(w).renewFailed ? `its keep-alive found its lease gone, and ${key} with it` : `it never took ${key} with a live lease`;
    world.emit(w.id, 'step', `${w.id} has no etcd lease to revoke (${why}), so its client sends nothing.`, { worker: w });
    return k();
  }
  const reply = runEtcd(world, w.id, { op: 'leaseRevoke', id: lease.id }, {
    believe: (_r, c) => {
      world.send(w, 'BELIEVE', { ownsLease: false });
      if (c === 'ok' || c === 'none') w.etcdLease = null;
    },
    ok: (r) => {
      if (r.op !== 'leaseRevoke') return unexpected(r);
      if (r.deleted.includes(key)) return { text: `${w.id} revokes its lease ${lease.id}: etcd deletes ${key} with it (revision ${r.revision}), and the lock is free.`, data: { t: 'lease', op: 'released', key, worker: w.id } };
      const holder = before === null ? '' : ` (${ownerOfValue(world, before.value)} holds it now, with its own lease, which stays)`;
      return `${w.id} revokes its lease ${lease.id}; ${key} was not attached to it any more${holder}, so nothing else changes — and the revoke's reply cannot tell ${w.id} that.`;
    },
    none: () => `${w.id}'s revoke fails: lease ${lease.id} no longer exists (it ran out, nothing kept it alive), and ${key} went with it.${failsJob}`,
    error: (r) => `${w.id}'s revoke fails (${r.message}): it gives up the lock without knowing whether its lease is gone.`,
    timeout: () => `${w.id}'s revoke gets no reply (timed out): it gives up the lock without knowing whether its lease is gone; if the request never arrived, ${key} stays until the lease runs out.`,
  }, w);
  if (reply.op === 'error' && w.etcdLease === null && failOnLostRelease(world, w, lost)) return;
  k();
}
