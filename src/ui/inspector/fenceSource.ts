/**
 * Where the run's fencing tokens come from, as the inspector says it: the source the scenario
 * actually uses (`mechanism.fenceSource`, ../../sim/scenario/schema.ts: `redis-incr` — absent —,
 * `db-sequence`, `lock-service-revision`) and the last token that source handed out up to the
 * cursor, read from the trace's calls (an `INCR` of the fence key, a `nextval('fence_seq')`, the
 * etcd put that created the lock key). A counter the run does not take tokens from is never
 * presented as the fencing counter (failover-fence with the fix: Redis still holds `fence:export`,
 * which nobody increments; its tokens come from `fence_seq`).
 */
import { sqlCallOf, type TraceEvent, type WorldSnapshot } from '../../sim';
import { etcdCallOf } from '../../sim/engine/trace';
import type { FenceSource } from '../../sim/scenario/schema';
import type { RedisCmd, RedisReply } from '../../sim/resources/redisTypes';
import { FENCE_SEQUENCE } from '../../sim/engine/tables';
import type { DerivedRun } from '../store/derive';

/** What the inspector says about the fencing source at one cursor position. */
export interface FencingSourceView {
  readonly source: FenceSource;
  /** Where the tokens come from, in words with the literal name (`fence:export`, `fence_seq`). */
  readonly where: string;
  /** The last token the source handed out at or before the cursor (null: none yet). */
  readonly lastToken: number | null;
  /** The counter the source holds now, when the inspector can read it (Redis's fence key; etcd's revision); null otherwise. */
  readonly current: number | null;
  /** A counter present in a store that the run takes no token from (e.g. Redis's fence key under db-sequence), or null. */
  readonly unused: string | null;
}

/** The token an event handed out from `source`, or null when it is not one (read from its call's data). */
export function tokenIssuedBy(e: TraceEvent, source: FenceSource, fenceKey: string): number | null {
  if (source === 'redis-incr') {
    if (e.call?.resource !== 'redis') return null;
    const cmd = e.call.command as RedisCmd;
    const reply = e.call.reply as RedisReply;
    return cmd.op === 'INCR' && cmd.key === fenceKey && reply.kind === 'int' && !(e.call as { cutOff?: true }).cutOff ? reply.value : null;
  }
  if (source === 'db-sequence') {
    const call = sqlCallOf(e);
    if (call?.command.op !== 'nextval' || call.command.seq !== FENCE_SEQUENCE || call.reply.status !== 'ok') return null;
    const v = Number(call.reply.rows[0]?.nextval);
    return Number.isFinite(v) ? v : null;
  }
  const etcd = etcdCallOf(e);
  return etcd?.reply.op === 'txnAcquire' && etcd.reply.succeeded ? etcd.reply.revision : null;
}

/** The fencing source of `run` after event `index` (-1: before the first), or null when the scenario sends no fencing token. */
export function fencingSourceAt(run: Pick<DerivedRun, 'scenario' | 'events' | 'snapshots'>, index: number): FencingSourceView | null {
  const { mechanism, lease } = run.scenario;
  if (!mechanism.fencing) return null;
  const source: FenceSource = mechanism.fenceSource ?? 'redis-incr';
  let lastToken: number | null = null;
  for (let i = 0; i <= index && i < run.events.length; i++) lastToken = tokenIssuedBy(run.events[i]!, source, lease.fenceKey) ?? lastToken;
  const snap: WorldSnapshot | undefined = index >= 0 ? run.snapshots[index] : undefined;
  const redisFence = snap?.leases.find((l) => l.key === lease.fenceKey);
  const redisValue = redisFence === undefined ? null : Number(redisFence.value);
  const revision = (snap?.lockService as { revision?: number } | undefined)?.revision ?? null;
  if (source === 'redis-incr') {
    return { source, where: `Redis INCR of ${lease.fenceKey}`, lastToken, current: redisValue, unused: null };
  }
  const unused = redisFence === undefined ? null : `${lease.fenceKey} = ${redisFence.value} in Redis`;
  if (source === 'db-sequence') return { source, where: `PostgreSQL sequence ${FENCE_SEQUENCE} (SELECT nextval('${FENCE_SEQUENCE}'))`, lastToken, current: null, unused };
  return { source, where: "etcd: the revision of the put that created the lock key", lastToken, current: revision, unused };
}
