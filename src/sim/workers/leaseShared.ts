/**
 * What the Redis lease and the etcd lease (etcdLease.ts) share: the fencing token from a database
 * sequence and how a new token compares with earlier ones, the renewal timer, who holds a lease
 * value, and a client that checks its release. Sources: Kleppmann, "How to do distributed
 * locking"; ../shared/semantics.md, "Leases, pauses and fencing" and "Fencing beyond a Redis counter".
 */
import type { World, WorkerRuntime } from '../engine/world';
import { sqlCallOf } from '../engine/trace';
import { FENCE_SEQUENCE } from '../engine/tables';
import { runSql, type SqlDone } from './replyClass';

/** What a lock client's last try to take the lock found (`gaveUpReason`). */
export type LastTry =
  | { readonly kind: 'taken' }
  | { readonly kind: 'noReply' }
  | { readonly kind: 'leaseGone' }
  | { readonly kind: 'error'; readonly message: string };

/**
 * Why a client that gave up after `tries` tries (`client.onBusy` "retry") fails its job, in the
 * words of the outcome ("B's job fails (…)"): from what its last try found, so that a client cut
 * off from `store` is not said to have found the key taken.
 */
export function gaveUpReason(key: string, tries: number, store: string, last: LastTry): string {
  const which = tries === 1 ? 'its only try' : `its last of ${tries} tries`;
  switch (last.kind) {
    case 'taken': return `${key} was still taken after ${tries} ${tries === 1 ? 'try' : 'tries'}`;
    case 'noReply': return `${which} got no reply from ${store}`;
    case 'leaseGone': return `${which} found its own lease gone`;
    case 'error': return `${which} failed (${last.message})`;
  }
}

/**
 * The client checks the release's reply (`client.checkRelease`) and it says the lock was not
 * held: the job fails (its error path runs) instead of going on. Only on the job's own release
 * step (an error path that releases is already failing). Returns true if it failed the job.
 */
export function failOnLostRelease(world: World, w: WorkerRuntime, what: string): boolean {
  if (!world.scenario.client.checkRelease || w.outcome === 'failed') return false;
  world.jobs.fail(w, what);
  return true;
}

/**
 * The highest fencing token granted so far in this run, or null: from the trace's `fenced` events
 * (`INCR`), the `acquired` events that carry their token (an etcd grant's revision) and the replies
 * to `SELECT nextval('fence_seq')`.
 */
export function highestTokenGranted(world: World): number | null {
  let max: number | null = null;
  for (const e of world.events) {
    const d = e.data;
    const sql = sqlCallOf(e);
    const token = d?.t === 'lease' && (d.op === 'fenced' || d.op === 'acquired') ? d.fencingToken
      : sql?.command.op === 'nextval' && sql.reply.status === 'ok' ? sql.reply.rows[0]?.nextval : undefined;
    if (typeof token === 'number' && (max === null || token > max)) max = token;
  }
  return max;
}

/**
 * The fencing token from the database (`mechanism.fenceSource: 'db-sequence'`): `SELECT
 * nextval('fence_seq')` once the lease is granted, on the worker's connection (borrowed if it has
 * none). The sequence is durable and not transactional, so a Redis failover cannot hand a token
 * out twice (semantics.md, "Fencing beyond a Redis counter"). `granted` continues the acquire;
 * `believedUntilMs` is when the worker believes its lease runs out (default: the grant + `lease.ttlMs`).
 */
export function sequenceToken(world: World, w: WorkerRuntime, grantedAtMs: number, granted: () => void, believedUntilMs: number = grantedAtMs + world.scenario.lease.ttlMs): void {
  const earlier = highestTokenGranted(world);
  const tokenOf = (r: SqlDone): number | null => (r.status === 'ok' && typeof r.rows[0]?.nextval === 'number' ? r.rows[0].nextval : null);
  const noToken = `${w.id}'s nextval returns no value: it goes on without a fencing token.`;
  runSql(world, w, { op: 'nextval', seq: FENCE_SEQUENCE }, {
    believe: (r) => world.send(w, 'GRANTED', { ownsLease: true, acquiredAtMs: grantedAtMs, leaseBelievedUntilMs: believedUntilMs, renewFailed: false, refusedAsStale: false, fencingToken: tokenOf(r) }),
    ok: (r) => {
      const token = tokenOf(r);
      return token === null ? noToken : `${w.id} gets fencing token ${token} from the database sequence ${FENCE_SEQUENCE}${compareToken(token, earlier)}.`;
    },
    none: () => noToken,
    refused: () => noToken,
    error: (r) => `${w.id} could not get a fencing token (${r.error.message}): it goes on without one.`,
  }, () => granted());
}

/** How a new token compares with the highest granted before: "higher" only when strictly higher. */
export function compareToken(token: number, earlier: number | null): string {
  if (earlier === null) return ' (the first token granted in this run)';
  if (token > earlier) return `, higher than any granted before (${earlier})`;
  if (token === earlier) return `, the same token as an earlier grant: the counter lost its increments (a failover?), so two holders now carry token ${token}`;
  return `, lower than one granted before (${earlier}): the counter went back (a failover?), so a stale holder outranks it`;
}

/**
 * Schedules the next renewal of the worker's lease (a background timer; a pause delays it too):
 * `renew` runs `lease.renewEveryMs - client.renewMarginMs` after `fromMs` (the grant, the first
 * acquire attempt, or the last renewal: now), and never before now; not at all when the mechanism
 * does not renew, or once the worker's renewal generation changed (release, crash).
 */
export function scheduleRenewal(world: World, w: WorkerRuntime, fromMs: number, renew: (world: World, w: WorkerRuntime) => void): void {
  const m = world.scenario.mechanism;
  if (m.renewal === 'none') return;
  const gen = w.renewGen;
  const periodMs = Math.max(1, world.scenario.lease.renewEveryMs - world.scenario.client.renewMarginMs);
  const due = (): void => {
    if (w.renewGen !== gen || !world.isAlive(w)) return;
    // A starved renewal timer (the renewalStall fault) runs only once its thread or event loop is free again.
    const stall = w.renewStall;
    if (stall !== null && world.nowMs < stall.untilMs) {
      if (world.beliefs(w).ownsLease) stall.say(`${w.id}'s renewal of ${world.scenario.lease.key} is due now, but its stalled timer cannot run it: the lease is not extended, and ${w.id} does not know.`);
      return void world.at(stall.untilMs, due, w);
    }
    renew(world, w);
  };
  world.at(Math.max(world.nowMs, fromMs + periodMs), due, w);
}

/**
 * What the worker whose owner token is `value` believes about lease `key` now, for a sentence that
 * deletes, overwrites or extends its key. `believes` is true only for a worker still at its job that
 * believes it owns the lease (paused or not): `A still believes it owns lease:x` (`holds` for an etcd
 * lock). Otherwise the text says why nobody acts on the key any more: `A had crashed`, `A had
 * finished its job`, `A no longer believes it owns lease:x`, or — a token no worker carries now
 * (its worker restarted with a new one) — `no worker at its job holds token …`.
 */
export function holderBelief(world: World, value: string, key: string, verb: 'owns' | 'holds' = 'owns'): { readonly believes: boolean; readonly text: string } {
  const owner = [...world.workers.values()].find((o) => world.beliefs(o).ownerToken === value);
  // A crashed worker stays 'crashed' until its restart (and for good without one); 'done' is a job that ended.
  const state = owner === undefined ? null : world.stateOf(owner);
  const lost = owner === undefined ? `no worker at its job holds token ${value}`
    : state === 'crashed' ? `${owner.id} had crashed`
      : state === 'done' ? `${owner.id} had finished its job`
        : world.beliefs(owner).ownsLease ? null : `${owner.id} no longer believes it ${verb} ${key}`;
  return lost === null ? { believes: true, text: `${owner!.id} still believes it ${verb} ${key}` } : { believes: false, text: lost };
}

/** Who holds a lease value: the worker whose owner token it is, `token …` otherwise, `nobody` for null. */
export function ownerOfValue(world: World, value: string | null): string {
  if (value === null) return 'nobody';
  for (const other of world.workers.values()) if (world.beliefs(other).ownerToken === value) return other.id;
  return `token ${value}`;
}
