/**
 * Runs one Redis command sequence against the model (`LeaseStore`) and a real Redis 7 server and
 * compares every reply. The server receives exactly `redisArgv(cmd)`; keys carry a per-sequence
 * prefix (applied to the command before both run, so both see the same command).
 *
 * Time: op `atMs` is virtual time for the model and real elapsed milliseconds for the server
 * (1:1 — the TTLs are literal in the commands). Nothing assumes a quiet machine: for every command
 * the harness measures when it was sent and when its reply came back, relative to its virtual
 * time (`lo`, `hi`: the server ran it somewhere in between). Between two commands i < j the real
 * time that passed minus the virtual time lies in [lo_j − hi_i, hi_j − lo_i], so:
 * - a PTTL is compared within that window (plus 1 ms: both clocks count whole milliseconds);
 * - cases keep every command at least `marginMs` (default 50 ms) away from any expiry instant,
 *   so the model's exact-millisecond boundary (gone at `now >= expiry`, Redis: `now > expiry`)
 *   never decides a reply as long as the spread max(hi) − min(lo) stays under the margin; a
 *   sequence that ran with a wider spread is inconclusive and is retried.
 */
import Redis from 'ioredis';
import { LeaseStore } from '../src/sim/resources/leaseStore';
import { redisArgv, renderRedis, renderRedisReply, type RedisCmd, type RedisReply } from '../src/sim/resources/redisTypes';
import type { CaseResult, RedisCase } from './types';

export const REDIS_CONFIG = { host: process.env.REDIS_HOST ?? '127.0.0.1', port: Number(process.env.REDIS_PORT ?? 6379) };

export function newRedis(db = 0, at: { host: string; port: number } = REDIS_CONFIG): Redis {
  return new Redis({ ...at, db, lazyConnect: true, maxRetriesPerRequest: 1, stringNumbers: true });
}

/** A server reply; integers also keep the exact decimal text the server sent. */
export type RealRedisReply = RedisReply & { readonly exact?: string };

const INTEGER_REPLIES = new Set(['INCR', 'DEL', 'PEXPIRE', 'PTTL', 'EVAL', 'WAIT']);
/** Commands whose `OK` is a status reply (redis-cli prints it bare), not a bulk string. */
const STATUS_OK = new Set(['SET', 'REPLICAOF']);

/**
 * A raw ioredis reply (or thrown error) as a typed `RedisReply`, given the command that produced
 * it. The client runs with `stringNumbers`, so integer replies arrive as exact decimal text and
 * are told apart from bulk strings by the command (the commands the model speaks have fixed reply
 * types: SET status/nil, GET bulk/nil, the rest integers).
 */
export function toReply(cmd: string, raw: unknown, error?: unknown): RealRedisReply {
  if (error !== undefined) return { kind: 'error', message: (error as Error).message };
  if (raw === null || raw === undefined) return { kind: 'nil' };
  const name = cmd.toUpperCase();
  if (typeof raw === 'string' || typeof raw === 'number') {
    if (STATUS_OK.has(name) && raw === 'OK') return { kind: 'ok' };
    if (INTEGER_REPLIES.has(name)) return { kind: 'int', value: Number(raw), exact: String(raw) };
    return { kind: 'bulk', value: String(raw) };
  }
  return { kind: 'error', message: `unexpected reply ${JSON.stringify(raw)}` };
}

/** The reply as redis-cli prints it; integers in their exact decimal form when the server sent one. */
export function replyText(r: RealRedisReply): string {
  return r.kind === 'int' && r.exact !== undefined ? `(integer) ${r.exact}` : renderRedisReply(r);
}

export async function callRaw(redis: Redis, argv: readonly string[]): Promise<RealRedisReply> {
  const [name, ...args] = argv;
  try {
    const raw = await redis.call(name as string, ...args);
    return toReply(name as string, raw);
  } catch (e) {
    return toReply(name as string, undefined, e);
  }
}

function prefixed(cmd: RedisCmd, prefix: string): RedisCmd {
  if (cmd.op === 'DEL') return { ...cmd, keys: cmd.keys.map((k) => prefix + k) };
  return { ...cmd, key: prefix + cmd.key };
}

function keysOf(cmd: RedisCmd): string[] {
  return cmd.op === 'DEL' ? [...cmd.keys] : [cmd.key];
}

/**
 * Equal replies; a PTTL may differ by the measured lateness: model − server (ms) within
 * [`window.low`, `window.high`] (see the module comment).
 */
function sameReply(cmd: RedisCmd, model: RedisReply, real: RealRedisReply, window: { low: number; high: number }): boolean {
  if (cmd.op === 'PTTL' && model.kind === 'int' && real.kind === 'int' && model.value >= 0 && real.value >= 0) {
    const d = model.value - real.value;
    return d >= window.low && d <= window.high;
  }
  return renderRedisReply(model) === replyText(real);
}

/** How far the run of a case strayed from its virtual times, measured (ms). */
export const REDIS_TIMING = { maxSpreadMs: 0 };

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

let prefixCounter = 0;

async function runOnce(c: RedisCase, redis: Redis): Promise<CaseResult & { late: boolean }> {
  const prefix = `fid:${process.pid}:${++prefixCounter}:`;
  const store = new LeaseStore();
  const transcript: string[] = [];
  const problems: string[] = [];
  const keys = new Set<string>();
  const margin = c.marginMs ?? 50;
  let late = false;
  const start = performance.now();
  // Lateness of the commands so far: min over lo, max over hi (ms; see the module comment).
  let minLo = Infinity;
  let maxHi = -Infinity;
  try {
    for (const op of c.ops) {
      const cmd = prefixed(op.cmd, prefix);
      keysOf(cmd).forEach((k) => keys.add(k));
      const wait = start + op.atMs - performance.now();
      if (wait > 0) await sleep(wait);
      const model = store.execute(op.atMs, cmd);
      const lo = performance.now() - start - op.atMs;
      const real = await callRaw(redis, redisArgv(cmd));
      const hi = performance.now() - start - op.atMs;
      minLo = Math.min(minLo, lo);
      maxHi = Math.max(maxHi, hi);
      const spread = maxHi - minLo;
      REDIS_TIMING.maxSpreadMs = Math.max(REDIS_TIMING.maxSpreadMs, spread);
      if (spread >= margin) late = true;
      const window = { low: Math.floor(lo - maxHi) - 1, high: Math.ceil(hi - minLo) + 1 };
      transcript.push(`t=${op.atMs} ${renderRedis(cmd)}\n      model:  ${renderRedisReply(model)}\n      server: ${replyText(real)}`);
      if (!sameReply(cmd, model, real, window)) {
        const tol = cmd.op === 'PTTL' ? ` (measured lateness allows model − server in [${window.low}, ${window.high}] ms)` : '';
        problems.push(`t=${op.atMs} ${renderRedis(cmd)}: model ${renderRedisReply(model)} ≠ server ${replyText(real)}${tol}`);
      }
      if (op.expect !== undefined && !renderRedisReply(model).startsWith(op.expect)) {
        problems.push(`t=${op.atMs} ${renderRedis(cmd)}: the case expects "${op.expect}…" (semantics.md) but the model replied ${renderRedisReply(model)}`);
      }
      if (problems.length > 0) break;
    }
  } finally {
    if (keys.size > 0) await redis.call('DEL', ...keys).catch(() => undefined);
  }
  return { name: c.name, primitive: c.primitive, outcome: problems.length > 0 ? 'disagree' : 'agree', transcript, problems, late };
}

/** Runs the case (retrying up to twice when the measured lateness spread reached the case's timing margin). */
export async function runRedisCase(c: RedisCase, redis: Redis): Promise<CaseResult> {
  let result = await runOnce(c, redis);
  for (let i = 0; i < 2 && result.late; i++) result = await runOnce(c, redis);
  const { late, ...rest } = result;
  if (late && rest.outcome === 'disagree') {
    return { ...rest, outcome: 'excluded', excludedBecause: `the machine ran the commands with a lateness spread of ${c.marginMs ?? 50} ms or more (the case's distance from any expiry instant) three times: timing inconclusive` };
  }
  return rest;
}
