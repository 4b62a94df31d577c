/**
 * "Run it yourself": a run as a transcript a reader can replay on real servers — one `psql`
 * session per database session of the run (pool connections `c1`, `c2`, … and the admin script's
 * `admin`) and one `redis-cli`, the statements in trace order, each with the reply the model gave
 * under it, "(blocks)" where a statement waits and a later step where it returns, the way published
 * isolation-anomaly transcripts are written.
 *
 * Built from the trace's structured `call` data (`renderSql`, `renderReply`, `renderRedis`,
 * `renderRedisReply`, `redisArgv`), never by parsing the event texts. What cannot be typed into a
 * server — virtual time passing, a TTL running out, faults (a pause, a crash, a partition), the
 * destination (file store / external API), the SQS-like queue's ReceiveMessage, DeleteMessage and
 * ChangeMessageVisibility (Lockscope's model of SQS: no server a transcript names) — becomes a
 * comment line where it occurs, and the header lists every kind of call the run made that the
 * transcript does not replay (`Transcript.notReplayed`), so a run that only talks to the queue
 * never reads as a transcript with nothing left out. So do the requests to a lock service (etcd,
 * `lockService`): the note gives the literal etcdctl line and the reply the run got, but they are
 * outside what a transcript replays (a real server's lease ids differ, and its TTLs run in real
 * time); the fidelity suite's "etcd lock service" row checks them instead. The fidelity suite
 * (`fidelity/presetReplay.ts`) replays exactly these steps against PostgreSQL and Redis and fails
 * on any reply that differs from the `expect` of a step. Redis time is real: where a TTL runs out
 * the transcript says how long to wait ("wait until 10.5 s after step 1", `RedisWait`, counted from
 * the step that set the TTL) and the replay waits it; a step that relies on a TTL not having run
 * out carries `needsTtl`. A forced expiry is the step `PEXPIRE key 0`; the first Redis failover is
 * replayed on a second server made a replica in the setup (`REPLICAOF`): `WAIT 1 0` and
 * `REPLICAOF NO ONE` where the run's replica stopped receiving writes (its replication lag before
 * the failover), and the steps after the failover go to that server (session `replica`). Only a
 * clock jump, a second failover, a TTL no step set and a forced expiry `PEXPIRE` cannot stand for
 * stop the redis-cli replay (`replayCoverage`); the text says where, in its header and at the
 * note, and the fidelity report records those steps as not replayed.
 *
 * Behind PgBouncer (`database.pooler`) the sessions are PgBouncer's server connections (`s1`, …),
 * the ones the statements ran on (`call.caller`), each step naming the client connection it came
 * from (`call.client`); they are opened on PostgreSQL directly — the transcript and its replay
 * bypass PgBouncer, and say so (`notReplayed`). What PgBouncer itself does to a server connection
 * as a client goes is a step there: `DISCARD ALL`, or the connection closed inside a transaction.
 * The header names only the tools the transcript uses (`transcriptTools`).
 *
 * Pure and deterministic: the same run gives the same transcript, byte for byte.
 */
import type { RunResult } from '../engine/run';
import type { TraceEvent } from '../engine/trace';
import { sqlCallOf } from '../engine/trace';
import { fmtList, fmtTime } from '../engine/fmt';
import { faultKinds as registeredFaultKinds } from '../faults/registry';
import { sequencesFor, tablesFor } from '../engine/tables';
import { renderReply, renderSequenceSetup, renderSql, renderTableSetup, quoteIdent } from '../resources/renderSql';
import { redisArgv, renderRedis, renderRedisReply, type RedisCmd, type RedisReply } from '../resources/redisTypes';
import { renderEtcd, renderEtcdReply, type EtcdCmd, type EtcdReply } from '../resources/lockService';
import { renderQueueCommand, renderQueueReply, type QueueCmd, type QueueReply } from '../resources/messageQueue';
import type { PoolerCmd, PoolerReply } from '../resources/pooler';
import { DEFAULT_DEADLOCK_TIMEOUT_MS } from '../scenario/schema';
import type { Scenario } from '../scenario/schema';

/** One server session of a transcript: a `psql` session (named as the run's database session) or the one `redis-cli`. */
export interface TranscriptSession {
  /** `c1`, `c2`, `admin` (the model's session ids, which the replies also name), or `redis`. */
  readonly id: string;
  readonly client: 'psql' | 'redis-cli';
  /** The workers (or `admin`) that ran commands in it, in order of first use. */
  readonly usedBy: readonly string[];
  /** Statements to run when the session opens (expected reply `SET`), e.g. a long `deadlock_timeout`. */
  readonly preamble: readonly string[];
  /**
   * Behind PgBouncer (`database.pooler`): the session is one of PgBouncer's server connections
   * (`s1`, …), and these are the application's client connections whose statements it ran, as
   * `A via c1`. Absent without a pooler.
   */
  readonly pgbouncerClients?: readonly string[];
  /** The Redis session of a transcript with a failover: the primary, which a `replica` session follows until the failover. */
  readonly primary?: true;
}

/** Fields every numbered step has. */
interface StepBase {
  /** 1-based step number, in trace order across all sessions. */
  readonly n: number;
  /** Virtual time of the step, ms from the start of the run. */
  readonly atMs: number;
  /** The trace event it comes from (none for a setting the transcript adds). */
  readonly eventId: string | null;
  readonly session: string;
  /** The worker (or `admin`) whose command it is. */
  readonly actor: string;
  /** Behind PgBouncer: the application's client connection (`c1`) the statement came from; `session` is the server connection it ran on. */
  readonly via?: string;
}

/** A numbered step: something the reader types (or does) in one session. */
export type TranscriptStep =
  /** A SQL statement; `blocks` = it waits (its reply comes in the `sqlReturns` step numbered `returnsAt`). */
  | (StepBase & { readonly kind: 'sql'; readonly sql: string; readonly expect: string; readonly blocks: boolean; readonly blockedOn?: string; readonly returnsAt?: number })
  /** The statement of step `statement` (which blocked) returns with `expect`. Nothing is typed. */
  | (StepBase & { readonly kind: 'sqlReturns'; readonly statement: number; readonly sql: string; readonly expect: string })
  /** A setting the run's timing needs on a real server (`SET deadlock_timeout …` before the wait the run's deadlock check fails); `why` says which. */
  | (StepBase & { readonly kind: 'sqlSetting'; readonly sql: string; readonly expect: 'SET'; readonly why: string })
  /** The pool destroys the connection: the session ends (`\q`; the harness terminates the backend). */
  | (StepBase & { readonly kind: 'sqlEnd' })
  /** The worker crashes while its statement waits: cancel it (Ctrl+C in psql). */
  | (StepBase & { readonly kind: 'sqlCancel'; readonly statement: number })
  /**
   * A redis-cli command; `argv` is what a client library sends. `session` is `redis` (the Redis
   * server) or, after a failover, `replica` (the promoted replica, `REPLICA_SESSION`). `needsTtl`:
   * the reply relies on a TTL set by an earlier step (`step`, `ttlMs`) not having run out yet — the
   * reader types it within that TTL of that step, and the replay checks it did. `why`: a command
   * the replay adds (no event of the run, `eventId` null) to reproduce a fault for real — the
   * failover's `WAIT 1 0` and `REPLICAOF NO ONE`.
   */
  | (StepBase & { readonly kind: 'redis'; readonly line: string; readonly argv: readonly string[]; readonly expect: string; readonly needsTtl?: TtlSetBy; readonly why?: string });

/** The step that last gave a key its TTL, and that TTL (ms). */
export interface TtlSetBy {
  readonly step: number;
  readonly ttlMs: number;
}

/**
 * A wait in real time before the next step, so that a TTL has really run out on the Redis
 * server: until `ms` after the reply of step `afterStep` (the command that set the TTL of `key`
 * to `ttlMs`; `ms` = `ttlMs` + `TTL_WAIT_MARGIN_MS`). The reader waits it; the fidelity replay
 * sleeps it.
 */
export interface RedisWait {
  readonly afterStep: number;
  readonly ms: number;
  readonly key: string;
  readonly ttlMs: number;
}

/** How long past a TTL a wait line waits (ms): Redis drops a key once its expiry millisecond has passed (`now > when`, db.c), about 1 ms precise; the margin absorbs a slow reply and a late timer. */
export const TTL_WAIT_MARGIN_MS = 500;

/** The session of the promoted replica in a transcript with a Redis failover (a second redis-cli). */
export const REPLICA_SESSION = 'replica';

/** The replica's port a transcript names (`redis-cli -p 6380`); the reader's primary is `127.0.0.1:6379`. */
export const REPLICA_PORT = 6380;

/** An unnumbered line: what happened outside the servers, which cannot be typed. */
export interface TranscriptNote {
  readonly kind: 'note';
  readonly atMs: number;
  readonly eventId: string;
  readonly actor: string;
  readonly text: string;
  /**
   * The note needs real time to pass in Redis (a TTL runs out, a forced expiry, a clock jump, a
   * failover): from here the Redis replies depend on timing the reader must reproduce.
   */
  readonly redisTiming: boolean;
  /**
   * Where a replay on one Redis server (and its one replica) stops being the run's: a TTL no step
   * of the transcript set, a forced expiry, a jump of Redis's clock, a second failover (see
   * `REPLAY_LIMIT_WHY`). Absent for a TTL that a wait reproduces and for the first failover.
   */
  readonly replayLimit?: ReplayLimit;
  /** A TTL running out that the reader reproduces by waiting in real time (`RedisWait`). */
  readonly wait?: RedisWait;
  /** The Redis failover the replay reproduces: from here on the redis-cli steps go to the promoted replica (`REPLICA_SESSION`). */
  readonly failover?: true;
}

/**
 * What makes the Redis replies after a note depend on more than typing the steps (and waiting
 * where a wait line says) on one Redis server and its replica.
 */
export type ReplayLimit = 'ttl' | 'expireLease' | 'clockJump' | 'failover';

/**
 * Why the redis-cli steps after a `ReplayLimit` note are not replayed (the words the transcript,
 * the fidelity report and the app use). A TTL that a step set is replayed by waiting (a `wait`
 * note), and the first failover on a real replica; these remain: a TTL no step set (none in the
 * presets), a forced expiry where `PEXPIRE key 0` would not be the same (the key's TTL ends in that
 * very millisecond, or the replies do not show whether it exists; otherwise it is a step), a clock
 * jump (Redis 7 expires keys by the server's wall clock, so only moving the machine's clock jumps
 * it — Redis docs, EXPIRE, "How Redis expires keys"), and a second failover (one replica).
 */
export const REPLAY_LIMIT_WHY: Readonly<Record<ReplayLimit, string>> = {
  ttl: 'a Redis TTL runs out that no step of the transcript set',
  expireLease: 'a forced Redis expiry (a fault) that no command reproduces here: the key\'s TTL ends in the same millisecond, or the replies do not show whether the key exists',
  clockJump: 'a jump of Redis\'s clock (a fault: Redis expires keys by the server\'s wall clock, which only moving the machine\'s clock reproduces)',
  failover: 'a second Redis failover (the replay has one replica)',
};

/** A transcript entry in trace order. */
export type TranscriptEntry = TranscriptStep | TranscriptNote;

/** A whole transcript (render it with `renderTranscript` / `renderSessionScript`). */
export interface Transcript {
  readonly title: string;
  /** The preset id, when the scenario has one. */
  readonly scenarioId?: string;
  readonly traceHash: string;
  readonly seed: number;
  readonly sessions: readonly TranscriptSession[];
  /** psql statements that create the tables as the run starts them (run once, in a scratch database). */
  readonly sqlSetup: readonly string[];
  /** redis-cli commands that clear the run's keys and set the fencing counter's start. */
  readonly redisSetup: readonly { readonly line: string; readonly argv: readonly string[] }[];
  /**
   * With a Redis failover: the redis-cli commands that make a second, empty Redis server (port
   * `REPLICA_PORT`) a replica of the first (`REPLICAOF 127.0.0.1 6379`). Empty otherwise.
   */
  readonly replicaSetup: readonly { readonly line: string; readonly argv: readonly string[] }[];
  readonly entries: readonly TranscriptEntry[];
  /**
   * The calls of the run a transcript does not replay, one line per kind, in words: the SQS-like
   * queue's requests by operation (`the SQS queue charges (…): ReceiveMessage ×9, DeleteMessage ×2`),
   * the destination's requests, the faults, commands a partition kept from Redis. Empty when every
   * call of the run is a step.
   */
  readonly notReplayed: readonly string[];
}

/** `deadlock_timeout` the other sessions get when the run has a deadlock, so the server's check fails the same statement as the run's. */
export const TRANSCRIPT_LONG_DEADLOCK_TIMEOUT = '10min';

const REDIS_TIMING_FAULTS: ReadonlySet<string> = new Set<ReplayLimit>(['expireLease', 'clockJump', 'failover']);

/** A PostgreSQL setting literal for `ms` milliseconds, exact as the scenario gives it: `1000ms`. */
function intervalOf(ms: number): string {
  return `${ms}ms`;
}

/** The actor of a step PgBouncer itself takes on a server connection (`DISCARD ALL`, closing it) as a client goes. */
export const PGBOUNCER_ACTOR = 'pgbouncer';

/** `{ via: 'c1' }` for a statement behind PgBouncer (the client connection it came from), else nothing. */
function viaOf(c: { readonly client?: string }): { via?: string } {
  return c.client !== undefined ? { via: c.client } : {};
}

/** The keys a Redis command touches. */
function redisKeys(cmd: RedisCmd): string[] {
  return cmd.op === 'DEL' ? [...cmd.keys] : [cmd.key];
}

/** The actor of the commands a transcript adds to reproduce a Redis failover on a real replica (`WAIT 1 0`, `REPLICAOF NO ONE`). */
export const FAILOVER_ACTOR = 'failover';

/**
 * What `cmd` with `reply` does to the keys' TTLs, in `ttlBy` (key → the step `n` that set the TTL
 * it has now): Redis docs SET (a successful SET without PX/KEEPTTL discards the TTL), PEXPIRE
 * (`ms <= 0` deletes), DEL, and the two scripts (compare-and-extend runs PEXPIRE, compare-and-delete
 * DEL). INCR, GET and PTTL keep the TTL.
 */
function applyTtlEffect(ttlBy: Map<string, TtlSetBy>, cmd: RedisCmd, reply: RedisReply, n: number): void {
  const one = reply.kind === 'int' && reply.value === 1;
  switch (cmd.op) {
    case 'SET':
      if (reply.kind !== 'ok' || cmd.keepTtl) return;
      if (cmd.pxMs !== undefined) ttlBy.set(cmd.key, { step: n, ttlMs: cmd.pxMs });
      else ttlBy.delete(cmd.key);
      return;
    case 'DEL':
      if (reply.kind === 'int' && reply.value > 0) cmd.keys.forEach((k) => ttlBy.delete(k));
      return;
    case 'PEXPIRE':
    case 'COMPARE_AND_EXTEND':
      if (!one) return;
      if (cmd.ms > 0) ttlBy.set(cmd.key, { step: n, ttlMs: cmd.ms });
      else ttlBy.delete(cmd.key);
      return;
    case 'COMPARE_AND_DELETE':
      if (one) ttlBy.delete(cmd.key);
      return;
    default:
      return;
  }
}

/**
 * What `cmd` with `reply` shows of which keys exist (`alive`: key → exists; absent = not known):
 * SET, GET, PTTL, INCR and PEXPIRE replies say it; after DEL the keys are gone; a compare-and-delete
 * or compare-and-extend that replied 0 leaves it unknown (the key was missing or held another token).
 */
function applyLiveness(alive: Map<string, boolean>, cmd: RedisCmd, reply: RedisReply): void {
  switch (cmd.op) {
    case 'SET':
      if (reply.kind === 'ok' || (reply.kind === 'nil' && cmd.nx === true)) alive.set(cmd.key, true);
      else if (reply.kind === 'nil') alive.set(cmd.key, false);
      return;
    case 'GET':
      alive.set(cmd.key, reply.kind === 'bulk');
      return;
    case 'DEL':
      cmd.keys.forEach((k) => alive.set(k, false));
      return;
    case 'PTTL':
      if (reply.kind === 'int') alive.set(cmd.key, reply.value !== -2);
      return;
    case 'INCR':
      alive.set(cmd.key, true);
      return;
    case 'PEXPIRE':
      if (reply.kind === 'int') alive.set(cmd.key, reply.value === 1 && cmd.ms > 0);
      return;
    case 'COMPARE_AND_DELETE':
      if (reply.kind === 'int' && reply.value === 1) alive.set(cmd.key, false);
      else alive.delete(cmd.key);
      return;
    case 'COMPARE_AND_EXTEND':
      if (reply.kind === 'int' && reply.value === 1) alive.set(cmd.key, cmd.ms > 0);
      else alive.delete(cmd.key);
      return;
  }
}

/** The actor of the command a transcript adds to reproduce a forced expiry (`PEXPIRE key 0`). */
export const FORCED_EXPIRY_ACTOR = 'forced expiry';

/** A wait in words: `wait until 10.5 s after step 1`. */
export function waitLine(w: RedisWait): string {
  return `wait until ${fmtTime(w.ms)} after step ${w.afterStep}`;
}

/**
 * The ids of the `wait begin` events whose statement the run later fails with 40P01 (the waits
 * the model's deadlock check chose): the same session's next `wait end` carries SQLSTATE 40P01.
 */
export function deadlockVictimEvents(events: readonly TraceEvent[]): Set<string> {
  const victims = new Set<string>();
  const open = new Map<string, string>();
  for (const e of events) {
    const call = sqlCallOf(e);
    if (!call || e.data?.t !== 'wait') continue;
    if (e.data.phase === 'begin') open.set(call.caller, e.id);
    else {
      const begin = open.get(call.caller);
      open.delete(call.caller);
      if (begin && call.reply.status === 'error' && call.reply.error.code === '40P01') victims.add(begin);
    }
  }
  return victims;
}

/**
 * The transcript of a run. `run` needs its events with `call` data (any `runScenario` result:
 * `text: false` runs carry it too). Never throws.
 */
export function buildTranscript(run: Pick<RunResult, 'scenario' | 'events' | 'traceHash'>): Transcript {
  const scenario: Scenario = run.scenario;
  const events = run.events;
  const victims = deadlockVictimEvents(events);
  const deadlockTimeoutMs = scenario.database.deadlockTimeoutMs ?? DEFAULT_DEADLOCK_TIMEOUT_MS;
  const sessions = new Map<string, { client: 'psql' | 'redis-cli'; usedBy: string[]; via: string[] }>();
  const use = (id: string, client: 'psql' | 'redis-cli', actor: string | null, via?: string): void => {
    const s = sessions.get(id) ?? { client, usedBy: [], via: [] };
    if (actor !== null && !s.usedBy.includes(actor)) s.usedBy.push(actor);
    if (via !== undefined && !s.via.includes(`${actor} via ${via}`)) s.via.push(`${actor} via ${via}`);
    sessions.set(id, s);
  };
  const entries: TranscriptEntry[] = [];
  let n = 0;
  /** Session → the step number of its statement that blocks and has not returned yet. */
  const blocked = new Map<string, number>();
  /** Worker → the database session it holds (from the pool's events). */
  const connectionOf = new Map<string, string>();
  const redisKeySet = new Set<string>();
  const note = (e: TraceEvent, text: string, limit?: ReplayLimit): void => {
    entries.push({ kind: 'note', atMs: e.atMs, eventId: e.id, actor: e.actor, text, redisTiming: limit !== undefined, ...(limit !== undefined ? { replayLimit: limit } : {}) });
  };
  /** PgBouncer between the pool and PostgreSQL (`database.pooler`): the pool's connections are its clients, the sessions its server connections. */
  const pooler = scenario.database.pooler;
  /** Calls outside the transcript, counted by what they went to and their operation. */
  const queueOps = new Map<string, number>();
  let destinationRequests = 0;
  let etcdRequests = 0;
  const faultKinds = new Map<number, string>();
  let cutOffCommands = 0;
  const queueName = scenario.queue?.kind === 'sqs' ? scenario.queue.name : 'the queue';
  /** Key → the step that gave it the TTL it has now (the keys of the Redis session's server, as the run's Redis holds them). */
  let ttlBy = new Map<string, TtlSetBy>();
  /**
   * Key → whether it exists on the Redis session's server now, as the replies show it (absent =
   * not known, e.g. after a compare-and-delete that replied 0). The setup clears the run's keys
   * and sets the fencing counter.
   */
  let aliveNow = new Map<string, boolean>([[scenario.lease.key, false], ...(scenario.lease.fenceStart > 0 ? [[scenario.lease.fenceKey, true] as const] : [[scenario.lease.fenceKey, false] as const])]);
  let aliveOnReplica = new Map(aliveNow);
  const atMsOf = (step: number): number => entries.find((x) => x.kind !== 'note' && x.n === step)?.atMs ?? 0;
  /**
   * The first Redis failover: the replica has every write made up to `replicationLagMs` before it
   * (`LeaseStore.advance`), so the replay breaks replication (`WAIT 1 0` on the primary, then
   * `REPLICAOF NO ONE` on the replica) just before the first redis-cli step after that instant,
   * and sends every step after the failover to the promoted replica.
   */
  const firstFailover = events.find((e) => e.kind === 'fault' && e.data?.t === 'fault' && e.data.kind === 'failover');
  const replicatedUntilMs = firstFailover !== undefined ? firstFailover.atMs - scenario.lease.replicationLagMs : null;
  let replicationBroken = false;
  let failovers = 0;
  /** The TTLs as the replica holds them once replication is broken (restored at the failover). */
  let ttlOnReplica = new Map<string, TtlSetBy>();
  let redisSession = 'redis';
  /** The step that stopped replication (`REPLICAOF NO ONE`). */
  let replicationStoppedAt = 0;
  const breakReplication = (atMs: number, failoverAtMs: number): void => {
    replicationBroken = true;
    ttlOnReplica = new Map(ttlBy);
    aliveOnReplica = new Map(aliveNow);
    const lag = fmtTime(scenario.lease.replicationLagMs);
    const add = (session: string, cmd: readonly string[], line: string, expect: string, why: string): void => {
      n += 1;
      use(session, 'redis-cli', null);
      entries.push({ kind: 'redis', n, atMs, eventId: null, session, actor: FAILOVER_ACTOR, line, argv: cmd, expect, why });
    };
    add('redis', ['WAIT', '1', '0'], 'WAIT 1 0', '(integer) 1', `the replica has every write up to here: in the run it lags ${lag} behind, so at the failover (${fmtTime(failoverAtMs)}) it holds what the primary held at ${fmtTime(Math.max(0, failoverAtMs - scenario.lease.replicationLagMs))}`);
    add(REPLICA_SESSION, ['REPLICAOF', 'NO', 'ONE'], 'REPLICAOF NO ONE', 'OK', 'replication stops here: the later writes reach only the primary, and the failover loses them');
    replicationStoppedAt = n;
  };

  for (const e of events) {
    const call = e.call;
    if (call?.resource === 'db') {
      const c = sqlCallOf(e);
      if (!c) continue;
      use(c.caller, 'psql', e.actor, c.client);
      if (e.data?.t === 'wait' && e.data.phase === 'end') {
        const statement = blocked.get(c.caller) ?? 0;
        blocked.delete(c.caller);
        n += 1;
        const at = entries.findIndex((x) => x.kind === 'sql' && x.n === statement);
        const stmtStep = entries[at];
        if (stmtStep && stmtStep.kind === 'sql') entries[at] = { ...stmtStep, returnsAt: n };
        entries.push({ kind: 'sqlReturns', n, atMs: e.atMs, eventId: e.id, session: c.caller, actor: e.actor, ...viaOf(c), statement, sql: renderSql(c.command), expect: renderReply(c.reply) });
        continue;
      }
      if (victims.has(e.id)) {
        n += 1;
        entries.push({
          kind: 'sqlSetting', n, atMs: e.atMs, eventId: null, session: c.caller, actor: e.actor, ...viaOf(c), expect: 'SET',
          sql: `SET deadlock_timeout = '${intervalOf(deadlockTimeoutMs)}'`,
          why: `the run's deadlock check fails the next statement deadlock_timeout (${fmtTime(deadlockTimeoutMs)}) after it begins to wait; the other sessions wait ${TRANSCRIPT_LONG_DEADLOCK_TIMEOUT}, so the server picks the same statement. By hand, raise it (say '30s') and type the next steps within that time`,
        });
      }
      n += 1;
      const blocks = c.reply.status === 'waits';
      if (blocks) blocked.set(c.caller, n);
      entries.push({
        kind: 'sql', n, atMs: e.atMs, eventId: e.id, session: c.caller, actor: e.actor, ...viaOf(c), sql: renderSql(c.command),
        expect: renderReply(c.reply), blocks, ...(c.reply.status === 'waits' ? { blockedOn: c.reply.on } : {}),
      });
      continue;
    }
    if (call?.resource === 'redis') {
      const cmd = call.command as RedisCmd;
      const reply = call.reply as RedisReply;
      const line = renderRedis(cmd);
      if ('cutOff' in call && call.cutOff) {
        cutOffCommands += 1;
        note(e, `${e.actor} is cut off from Redis: its \`${line.length > 80 ? `${line.slice(0, 77)}…` : line}\` never reaches the server; its client times out (${renderRedisReply(reply)}). Nothing to type.`);
        continue;
      }
      redisKeys(cmd).forEach((k) => redisKeySet.add(k));
      if (firstFailover !== undefined && replicatedUntilMs !== null && !replicationBroken && e.atMs > replicatedUntilMs) breakReplication(e.atMs, firstFailover.atMs);
      use(redisSession, 'redis-cli', e.actor);
      n += 1;
      // The TTL this command relies on (the first of its keys to run out), then what it does to the TTLs.
      const needsTtl = redisKeys(cmd).flatMap((k) => ttlBy.get(k) ?? []).sort((x, y) => x.step + x.ttlMs - (y.step + y.ttlMs))[0];
      entries.push({ kind: 'redis', n, atMs: e.atMs, eventId: e.id, session: redisSession, actor: e.actor, line, argv: redisArgv(cmd), expect: renderRedisReply(reply), ...(needsTtl !== undefined ? { needsTtl } : {}) });
      applyTtlEffect(ttlBy, cmd, reply, n);
      applyLiveness(aliveNow, cmd, reply);
      continue;
    }
    if (call?.resource === 'etcd') {
      etcdRequests += 1;
      // The lock service: outside what a transcript replays (lease ids and TTLs are the server's
      // and real-time), so a note with the literal etcdctl line and the reply the run got.
      const cmd = call.command as EtcdCmd;
      const reply = call.reply as EtcdReply;
      const line = renderEtcd(cmd);
      const got = renderEtcdReply(reply).replace(/\n+/g, ' ');
      if ('cutOff' in call && call.cutOff) note(e, `${e.actor} is cut off from etcd: its \`${line}\` never reaches the server; etcdctl prints ${got}. Nothing to type.`);
      else note(e, `${e.actor} → etcd (not replayed by this transcript: lease ids are the server's and TTLs run in real time): \`${line}\` → ${got === '' ? '(no output)' : got}`);
      continue;
    }
    if (call?.resource === 'pool') {
      const cmd = call.command as { op: string; connection?: string; process?: string; helper?: boolean };
      const reply = call.reply as { status: string; connection?: string };
      // Version 2: a process's own pool, and a helper's second connection (its worker keeps its own).
      const pool = cmd.process === undefined ? 'the pool' : `process ${cmd.process}'s pool`;
      const who = cmd.helper === true ? `${e.actor}'s helper` : e.actor;
      if (pooler !== undefined && cmd.op === 'connect' && reply.status === 'ok' && typeof reply.connection === 'string') {
        // Behind PgBouncer the pool's connection is PgBouncer's client, not a database session: the steps name the server connection.
        if (cmd.helper !== true) connectionOf.set(e.actor, reply.connection);
        const linking = pooler.mode === 'transaction' ? 'links a server connection to it for each statement or transaction' : 'links one server connection to it for as long as it is connected';
        note(e, `${who} borrows connection ${reply.connection} from ${pool}: a client connection of PgBouncer (${pooler.mode} mode), not a database session. PgBouncer ${linking}: each step names the server session (s1, s2, …) the statement ran on.`);
      } else if (pooler !== undefined && cmd.op === 'destroy' && cmd.connection) {
        connectionOf.delete(e.actor);
        note(e, `${e.actor}'s connection ${cmd.connection} to PgBouncer closes (a client connection: what happens to its server connection is PgBouncer's, next).`);
      } else if (pooler !== undefined && cmd.op === 'release') {
        if (cmd.connection === connectionOf.get(e.actor)) connectionOf.delete(e.actor);
        note(e, `${who} returns connection ${cmd.connection ?? ''} to the pool; its connection to PgBouncer stays open, and the server sessions keep whatever they hold.`);
      } else if (cmd.op === 'connect' && reply.status === 'ok' && typeof reply.connection === 'string') {
        if (cmd.helper === true) {
          note(e, `${who} borrows connection ${reply.connection} from ${pool} while ${e.actor} keeps ${connectionOf.get(e.actor) ?? 'none'}: the helper's statements run in session ${reply.connection}.`);
        } else {
          connectionOf.set(e.actor, reply.connection);
          note(e, cmd.process === undefined ? `${e.actor} borrows pool connection ${reply.connection}: its statements run in session ${reply.connection}.` : `${e.actor} borrows connection ${reply.connection} from ${pool}: its statements run in session ${reply.connection}.`);
        }
      } else if (cmd.op === 'connect' && reply.status === 'timeout') {
        note(e, `${who} gives up waiting for a connection from ${pool} (its acquire timeout): the pool throws "timeout exceeded when trying to connect" (the application's pool, not a server's).`);
      } else if (cmd.op === 'connect') {
        note(e, cmd.process === undefined && cmd.helper !== true
          ? `${e.actor} asks the pool for a connection and waits: the pool is exhausted (the pool is the application's, not a server's).`
          : `${who} asks ${pool} for a connection and waits: the pool is exhausted (the pool is the application's, not a server's).`);
      } else if (cmd.op === 'release' && cmd.connection !== undefined && cmd.connection !== connectionOf.get(e.actor)) {
        note(e, `${e.actor}'s helper returns connection ${cmd.connection} to the pool; the session stays open.`);
      } else if (cmd.op === 'release') {
        connectionOf.delete(e.actor);
        note(e, `${e.actor} returns connection ${cmd.connection ?? ''} to the pool; the session stays open, with whatever it still holds.`);
      } else if (cmd.op === 'destroy' && cmd.connection) {
        connectionOf.delete(e.actor);
        const waiting = blocked.get(cmd.connection);
        if (waiting !== undefined) blocked.delete(cmd.connection);
        n += 1;
        entries.push({ kind: 'sqlEnd', n, atMs: e.atMs, eventId: e.id, session: cmd.connection, actor: e.actor });
      }
      continue;
    }
    if (call?.resource === 'pooler') {
      const cmd = call.command as PoolerCmd;
      const reply = call.reply as PoolerReply;
      if (cmd.op === 'close' && reply.status === 'discarded') {
        // PgBouncer resets the server connection: a statement it sends on that session.
        n += 1;
        entries.push({ kind: 'sql', n, atMs: e.atMs, eventId: e.id, session: reply.server, actor: PGBOUNCER_ACTOR, via: cmd.client, sql: 'DISCARD ALL', expect: 'DISCARD ALL', blocks: false });
        use(reply.server, 'psql', PGBOUNCER_ACTOR);
      } else if (cmd.op === 'close' && reply.status === 'serverClosed') {
        const waiting = blocked.get(reply.server);
        if (waiting !== undefined) blocked.delete(reply.server);
        n += 1;
        entries.push({ kind: 'sqlEnd', n, atMs: e.atMs, eventId: e.id, session: reply.server, actor: PGBOUNCER_ACTOR, via: cmd.client });
      } else {
        note(e, `PgBouncer (not replayed: the sessions here connect to PostgreSQL directly): ${e.narration}`);
      }
      continue;
    }
    if (call?.resource === 'destination') {
      if ((call.command as { op?: string }).op === 'begin') destinationRequests += 1;
      note(e, `${e.actor} → the destination (an external API or file store, not a server this transcript reaches): ${e.command ?? ''} → ${e.reply ?? ''}`);
      continue;
    }
    if (e.kind === 'expiry' && e.actor === 'etcd') {
      note(e, `(${fmtTime(e.atMs)}, virtual time) ${e.narration} In etcd the lease runs out in real time, and etcd revokes it within about half a second.`);
        continue;
      }
    if (call?.resource === 'queue') {
      const cmd = call.command as QueueCmd;
      queueOps.set(cmd.op, (queueOps.get(cmd.op) ?? 0) + 1);
      note(e, `${e.actor} → the SQS queue ${cmd.queue} (Lockscope's model of SQS, not replayed): ${renderQueueCommand(cmd)} → ${renderQueueReply(call.reply as QueueReply)}. Nothing to type.`);
      continue;
    }
    if (e.data?.t === 'queue' && e.data.op === 'visible') {
      note(e, `wait until ${fmtTime(e.atMs)} (virtual time), in the queue's model: ${e.narration} Not replayed: nothing to type.`);
      continue;
    }
    if (e.kind === 'expiry' && e.data?.t === 'lease') {
      const key = e.data.key;
      const by = ttlBy.get(key);
      ttlBy.delete(key);
      aliveNow.set(key, false);
      if (by === undefined) {
        note(e, `(${fmtTime(e.atMs)}, virtual time) the TTL of ${key} runs out and Redis deletes the key; no step of this transcript set that TTL, so the replies from here on depend on timing it does not give.`, 'ttl');
        continue;
      }
      const wait: RedisWait = { afterStep: by.step, ms: by.ttlMs + TTL_WAIT_MARGIN_MS, key, ttlMs: by.ttlMs };
      entries.push({
        kind: 'note', atMs: e.atMs, eventId: e.id, actor: e.actor, redisTiming: true, wait,
        text: `${waitLine(wait)} (real time): the TTL of ${key} (${fmtTime(by.ttlMs)}, set by step ${by.step}) runs out and Redis deletes the key — in the run at ${fmtTime(e.atMs)} (virtual time). The steps from here on give these replies only after that wait.`,
      });
      continue;
    }
    if (e.kind === 'fault' && e.data?.t === 'fault') {
      const kind = e.data.kind;
      // In the user's words (the registry's label), as the editor names the kind.
      // The first Redis failover is replayed on a real replica (below), so it is not among what the transcript leaves out.
      const leaseKey = scenario.lease.key;
      const by = ttlBy.get(leaseKey);
      // A forced expiry removes the key now if it is live (LeaseStore.forceExpire): PEXPIRE key 0 does exactly that on a real server.
      // Not when the key's TTL ends this very millisecond (the run's and the server's order would differ) or its existence is unknown.
      const forcedExpiryStep = kind === 'expireLease' && scenario.lockService === undefined && aliveNow.has(leaseKey) && (by === undefined || atMsOf(by.step) + by.ttlMs > e.atMs);
      if ((kind !== 'failover' || failovers > 0) && !forcedExpiryStep) faultKinds.set(e.data.faultIndex, registeredFaultKinds().find((d) => d.kind === kind)?.label ?? kind);
      const session = connectionOf.get(e.actor);
      const waiting = session !== undefined ? blocked.get(session) : undefined;
      // The admin script's statements are steps of their own (session admin); every other fault happens outside the servers.
      const tail = kind === 'adminBypass' ? ' Its statements are the admin session\'s steps.' : ' Not replayable: it happens outside the servers; the steps that follow show what they see of it.';
      if (kind === 'failover' && failovers === 0) {
        // The first failover is replayed on a real replica: replication broke where the run's replica stopped, and from here the steps go to it.
        failovers += 1;
        if (!replicationBroken) breakReplication(e.atMs, e.atMs);
        redisSession = REPLICA_SESSION;
        ttlBy = ttlOnReplica;
        aliveNow = aliveOnReplica;
        entries.push({
          kind: 'note', atMs: e.atMs, eventId: e.id, actor: e.actor, redisTiming: true, failover: true,
          text: `fault (${kind}): ${e.narration} Replayed for real: the replica stopped replicating at step ${replicationStoppedAt}; from here on the redis-cli steps go to the promoted replica (session ${REPLICA_SESSION}), the primary is not used again.`,
        });
        continue;
      }
      if (kind === 'failover') failovers += 1;
      if (forcedExpiryStep) {
        const alive = aliveNow.get(leaseKey) ?? false;
        entries.push({ kind: 'note', atMs: e.atMs, eventId: e.id, actor: e.actor, redisTiming: true, text: `fault (${kind}): ${e.narration} Replayed with a real command, the next step.` });
        redisKeySet.add(leaseKey);
        use(redisSession, 'redis-cli', null);
        n += 1;
        const cmd: RedisCmd = { op: 'PEXPIRE', key: leaseKey, ms: 0 };
        const reply: RedisReply = { kind: 'int', value: alive ? 1 : 0 };
        entries.push({
          kind: 'redis', n, atMs: e.atMs, eventId: null, session: redisSession, actor: FORCED_EXPIRY_ACTOR, line: renderRedis(cmd), argv: redisArgv(cmd), expect: renderRedisReply(reply),
          ...(by !== undefined && alive ? { needsTtl: by } : {}),
          why: `the forced expiry: a TTL of 0 ms deletes ${leaseKey} now if it exists, as the fault removes it (Redis docs, EXPIRE: a non-positive timeout deletes the key)`,
        });
        applyTtlEffect(ttlBy, cmd, reply, n);
        ttlBy.delete(leaseKey);
        applyLiveness(aliveNow, cmd, reply);
        continue;
      }
      note(e, `fault (${kind}): ${e.narration}${tail}`, REDIS_TIMING_FAULTS.has(kind) ? (kind as ReplayLimit) : undefined);
      if (kind === 'crash' && session !== undefined && waiting !== undefined) {
        blocked.delete(session);
        n += 1;
        entries.push({ kind: 'sqlCancel', n, atMs: e.atMs, eventId: e.id, session, actor: e.actor, statement: waiting });
      }
      continue;
    }
    if (e.kind === 'step' && e.data?.t === 'step' && e.data.name !== 'work') continue;
    if (e.kind === 'step') note(e, `${e.narration} (virtual time: nothing to type)`);
  }

  const hasVictim = victims.size > 0;
  const sessionList: TranscriptSession[] = [...sessions.entries()]
    // psql sessions first (in order of first use), then redis-cli; Array.prototype.sort is stable.
    .sort(([, x], [, y]) => (x.client === y.client ? 0 : x.client === 'psql' ? -1 : 1))
    .map(([id, s]) => ({
      id, client: s.client, usedBy: s.usedBy, preamble: s.client === 'psql' && hasVictim ? [`SET deadlock_timeout = '${TRANSCRIPT_LONG_DEADLOCK_TIMEOUT}'`] : [],
      ...(pooler !== undefined && s.client === 'psql' && id !== 'admin' ? { pgbouncerClients: s.via } : {}),
      ...(id === 'redis' && sessions.has(REPLICA_SESSION) ? { primary: true as const } : {}),
    }));
  const usesDb = sessionList.some((s) => s.client === 'psql');
  const sqlSetup = usesDb ? [
    ...tablesFor(scenario).flatMap((t) => [`DROP TABLE IF EXISTS ${quoteIdent(t.name)}`, ...renderTableSetup(t)]),
    // A fencing sequence (mechanism.fenceSource "db-sequence") starts where the run's does.
    ...Object.entries(sequencesFor(scenario)).flatMap(([name, start]) => [`DROP SEQUENCE IF EXISTS ${quoteIdent(name)}`, renderSequenceSetup(name, start)]),
  ] : [];
  const usesRedis = sessionList.some((s) => s.client === 'redis-cli');
  if (usesRedis && scenario.lease.fenceStart > 0) redisKeySet.add(scenario.lease.fenceKey);
  const setupCmds: RedisCmd[] = [];
  if (usesRedis && redisKeySet.size > 0) setupCmds.push({ op: 'DEL', keys: [...redisKeySet].sort() });
  // The world's setup before the first event (src/sim/engine/world.ts): the fencing counter starts at fenceStart.
  if (usesRedis && scenario.lease.fenceStart > 0) setupCmds.push({ op: 'SET', key: scenario.lease.fenceKey, value: String(scenario.lease.fenceStart) });
  const redisSetup = setupCmds.map((cmd) => ({ line: renderRedis(cmd), argv: redisArgv(cmd) }));
  const replicaSetup = sessionList.some((s) => s.id === REPLICA_SESSION) ? [{ line: 'REPLICAOF 127.0.0.1 6379', argv: ['REPLICAOF', '127.0.0.1', '6379'] }] : [];
  const times = (n: number) => (n === 1 ? '' : ` ×${n}`);
  const notReplayed: string[] = [];
  if (queueOps.size > 0) notReplayed.push(`the SQS queue ${queueName} (Lockscope's model of SQS, no server): ${[...queueOps].map(([op, n]) => `${op}${times(n)}`).join(', ')}`);
  if (destinationRequests > 0) notReplayed.push(`the destination ${scenario.destination.target} (${scenario.destination.kind === 'api' ? 'an external API' : 'a file store'}, no server): ${destinationRequests} request${destinationRequests === 1 ? '' : 's'}`);
  if (faultKinds.size > 0) notReplayed.push(`faults (they happen outside the servers): ${[...faultKinds.values()].join(', ')}`);
  if (etcdRequests > 0) notReplayed.push(`the lock service etcd (its lease ids are the server's and its TTLs run in real time; the fidelity suite's "etcd lock service" row checks it instead): ${etcdRequests} request${etcdRequests === 1 ? '' : 's'}`);
  if (pooler !== undefined && sessionList.some((s) => s.client === 'psql')) notReplayed.push(`PgBouncer (${pooler.mode} mode, ${pooler.serverConnections} server connection${pooler.serverConnections === 1 ? '' : 's'}): its routing is not replayed — each psql session is one of its server connections, opened on PostgreSQL directly, and each statement goes to the server session it ran on in the run; the fidelity suite replays it the same way, bypassing PgBouncer (its PgBouncer rows check the routing on a real PgBouncer)`);
  if (cutOffCommands > 0) notReplayed.push(`Redis commands a partition kept from the server: ${cutOffCommands}`);
  return {
    title: scenario.title,
    ...(scenario.id !== undefined ? { scenarioId: scenario.id } : {}),
    traceHash: run.traceHash,
    seed: scenario.seed,
    sessions: sessionList,
    sqlSetup,
    redisSetup,
    replicaSetup,
    entries,
    notReplayed,
  };
}

/** The header's lines on what the transcript leaves out (`--` comments, or `#` for a redis-cli file). */
function notReplayedLines(t: Transcript, c: string): string[] {
  if (t.notReplayed.length === 0) return [];
  return [
    `${c} Not replayed: no server this transcript names receives these calls of the run; they appear below, where they occur, as unnumbered comment lines:`,
    ...t.notReplayed.map((x) => `${c}   ${x}`),
  ];
}

/** An inclusive range of step numbers. */
export interface StepRange {
  readonly from: number;
  readonly to: number;
}

/** Where a replay on one server stops being meaningful: the first `ReplayLimit` note and the redis-cli steps after it. */
export interface ReplayStop {
  readonly limit: ReplayLimit;
  /** The note's event (the fault, or the key's expiry). */
  readonly eventId: string;
  readonly atMs: number;
  /** The redis-cli steps after it, in order. */
  readonly steps: readonly number[];
}

/**
 * What a replay of the transcript on one PostgreSQL and one Redis server (and its replica, for a
 * failover), typing each step as fast as it can and waiting where a wait note says (the fidelity
 * suite's `fidelity/presetReplay.ts`), checks: every psql step, and the redis-cli steps before the
 * first note that needs Redis to do what no command does (`ReplayLimit`: a clock jump, a second
 * failover, a TTL no step set, a forced expiry `PEXPIRE key 0` cannot stand for). From that note
 * on, the server's replies are not the run's; `stop` names it and the redis-cli steps after it.
 * The transcript's text says the same (`renderTranscript`). Pure; never throws.
 */
export function replayCoverage(t: Transcript): { readonly total: number; readonly replayable: readonly number[]; readonly stop: ReplayStop | null } {
  const replayable: number[] = [];
  let stop: { limit: ReplayLimit; eventId: string; atMs: number; steps: number[] } | null = null;
  let total = 0;
  for (const e of t.entries) {
    if (e.kind === 'note') {
      if (stop === null && e.replayLimit !== undefined) stop = { limit: e.replayLimit, eventId: e.eventId, atMs: e.atMs, steps: [] };
      continue;
    }
    total += 1;
    if (e.kind === 'redis' && stop !== null) stop.steps.push(e.n);
    else replayable.push(e.n);
  }
  return { total, replayable, stop: stop !== null && stop.steps.length > 0 ? stop : null };
}

/** Step numbers (any order, duplicates allowed) as inclusive ranges, ascending: [1,2,3,5] → 1–3, 5. */
export function stepRanges(steps: readonly number[]): StepRange[] {
  const sorted = [...new Set(steps)].sort((a, b) => a - b);
  const out: { from: number; to: number }[] = [];
  for (const n of sorted) {
    const last = out.at(-1);
    if (last !== undefined && n === last.to + 1) last.to = n;
    else out.push({ from: n, to: n });
  }
  return out;
}

/** Ranges in words: `step 4`, `steps 1–14`, `steps 1–3, 5 and 7–9`; `no steps` for none. */
export function stepRangesText(ranges: readonly StepRange[]): string {
  const parts = ranges.map((r) => (r.from === r.to ? `${r.from}` : `${r.from}–${r.to}`));
  if (parts.length === 0) return 'no steps';
  const single = ranges.length === 1 && ranges[0]!.from === ranges[0]!.to;
  return `${single ? 'step' : 'steps'} ${fmtList(parts)}`;
}

/** The header's lines on where a replay on one server stops being meaningful (none when it never does). */
function replayLimitLines(t: Transcript, c: string): string[] {
  const { stop } = replayCoverage(t);
  if (stop === null) return [];
  const after = stepRangesText(stepRanges(stop.steps));
  const how = stop.limit === 'ttl'
    ? 'no wait line can say when to type them, so their replies need not be these'
    : stop.limit === 'failover'
      ? 'the replay has one replica, so its replies to them need not be these'
      : 'no command makes a Redis server do this, so its replies to them need not be these';
  return [
    c,
    `${c} Replaying on one server stops being meaningful at ${stop.eventId} (${fmtTime(stop.atMs)}): ${REPLAY_LIMIT_WHY[stop.limit]}.`,
    `${c}   The redis-cli ${after} come after it: ${how}; they show what the run saw.`,
    `${c}   The fidelity suite replays every other step and leaves these out.`,
  ];
}

/** The tools a transcript's lines use: a client per session kind, and etcdctl when its notes quote etcd requests. */
export function transcriptTools(t: Transcript): { readonly psql: boolean; readonly redisCli: boolean; readonly etcdctl: boolean } {
  return {
    psql: t.sessions.some((s) => s.client === 'psql'),
    redisCli: t.sessions.some((s) => s.client === 'redis-cli'),
    etcdctl: t.notReplayed.some((x) => x.startsWith('the lock service etcd')),
  };
}

/**
 * Whether the transcript (or, with `sessionId`, that session's part) runs `SET deadlock_timeout`:
 * a preamble or a `sqlSetting` step. On PostgreSQL 15 the parameter is superuser-only
 * (PostgreSQL docs, 20.12 "Lock Management", deadlock_timeout: "Only superusers and users with the
 * appropriate SET privilege can change this setting"; GRANT … ON PARAMETER is new in 15), so a
 * normal role's SET fails with `permission denied to set parameter`, aborting its transaction.
 */
export function setsDeadlockTimeout(t: Transcript, sessionId?: string): boolean {
  const mine = (id: string) => sessionId === undefined || id === sessionId;
  return t.sessions.some((s) => mine(s.id) && s.preamble.some((p) => /^SET deadlock_timeout\b/.test(p)))
    || t.entries.some((e) => e.kind === 'sqlSetting' && mine(e.session) && /^SET deadlock_timeout\b/.test(e.sql));
}

/** The header lines that say who may `SET deadlock_timeout` (empty when the lines do not set it). */
function deadlockTimeoutPrivilegeLines(c: string): string[] {
  return [
    c,
    `${c} deadlock_timeout: these steps SET it, which PostgreSQL 15 allows only a superuser or a role granted it (otherwise`,
    `${c}   ERROR: permission denied to set parameter "deadlock_timeout", and the open transaction aborts). Connect as a superuser,`,
    `${c}   or first run as one: GRANT SET ON PARAMETER deadlock_timeout TO <you>;`,
  ];
}

/** The header's "how to read this" lines, naming only the tools and kinds of line the transcript has. */
function howToRead(t: Transcript): string[] {
  const tools = transcriptTools(t);
  const needs = [...(tools.psql ? ['psql needs PostgreSQL 15'] : []), ...(tools.redisCli ? ['redis-cli Redis 7'] : []), ...(tools.etcdctl ? ['the etcdctl lines in the notes, etcd 3.4 (they are notes, not steps)'] : [])];
  const hasBlocks = t.entries.some((e) => e.kind === 'sql' && e.blocks);
  const hasNotes = t.entries.some((e) => e.kind === 'note');
  const out = ['--'];
  out.push(t.sessions.length === 0
    ? `-- Nothing to type: there are no numbered steps${needs.length > 0 ? ` (${needs.join(', ')})` : ''}.`
    : `-- Run the numbered steps in order, each in the session it names (${needs.join(', ')}).`);
  if (t.sessions.length > 0) out.push(`--   "-- expect:" is the reply the run got${tools.psql ? ' (psql prints results as a table; here on one line)' : ''}.`);
  if (hasBlocks) out.push('--   "(blocks)": the statement waits. Leave it and go on; the step it "returns" at shows its reply.');
  if (hasNotes) out.push('--   Lines without a number happened outside the servers: nothing to type.');
  out.push(`--   The times are the run's virtual time.${tools.psql ? ' Between psql steps no real waiting is needed.' : ''}`);
  const waits = t.entries.some((e) => e.kind === 'note' && e.wait !== undefined);
  if (tools.redisCli && waits) {
    out.push(
      '--   Redis TTLs are real time: type (or paste) the redis-cli steps without pausing — each within the TTL of the step',
      '--   that set it — and where a line says "wait until … after step N", wait that long after step N replied before the next step.',
    );
  } else if (tools.redisCli) out.push('--   Redis TTLs are real time: type (or paste) the redis-cli steps without pausing, each within the TTL of the step that set it.');
  if (tools.redisCli) {
    out.push(redisFilesPipeable(t)
      ? '--   Each redis-cli session\'s own file holds only its commands, one a line: `redis-cli < file` runs them; the replies to expect are here.'
      : `--   Do not pipe the redis-cli files: this run needs ${t.replicaSetup.length > 0 ? 'the failover between two servers' : 'real-time waits'}${t.replicaSetup.length > 0 && waits ? ' and real-time waits' : ''}. Type the redis-cli commands one by one in step order${waits ? ', waiting where a line says' : ''}; each session's file lists only its commands, to copy from (redis-cli has no comments).`);
  }
  if (t.replicaSetup.length > 0) {
    out.push(
      `--   The failover runs on a real replica: a second, empty Redis server on port ${REPLICA_PORT} (${REPLICA_SERVER_COMMAND}),`,
      `--   session ${REPLICA_SESSION} (redis-cli -p ${REPLICA_PORT}); the steps say which server each command goes to. Its --dir is a scratch directory:`,
      '--   a replica writes the dump.rdb it loads from the primary there, which in your current directory would overwrite one.',
    );
  }
  const cleanup = redisCleanup(t);
  if (cleanup.length > 0) out.push(`--   Afterwards: ${cleanup.join('; ')}.`);
  return out;
}

/**
 * The second Redis server a failover transcript replicates to: port `REPLICA_PORT`, no persistence,
 * and a scratch working directory — during a full sync a replica saves the primary's RDB as
 * `dump.rdb` in its `dir` (Redis docs, "Redis replication", and redis.conf `dir`), which by
 * default is the directory it was started in.
 */
export const REPLICA_SERVER_COMMAND = `redis-server --port ${REPLICA_PORT} --save '' --appendonly no --dir "$(mktemp -d)"`;

/** How to put the reader's Redis back after the transcript: stop the replica without saving, and delete the run's keys on the primary (the setup's `DEL`). */
export function redisCleanup(t: Transcript): string[] {
  const del = t.redisSetup.find((x) => x.argv[0] === 'DEL');
  return [
    ...(t.replicaSetup.length > 0 ? [`redis-cli -p ${REPLICA_PORT} shutdown nosave`] : []),
    ...(del !== undefined ? [`redis-cli ${del.line}`] : []),
  ];
}

/** `text` as `--` comment lines (multi-line replies continue indented under the first line). */
function comment(first: string, text: string): string[] {
  const lines = text.split('\n');
  return [`-- ${first}${lines[0] ?? ''}`, ...lines.slice(1).map((l) => `--${' '.repeat(first.length + 1)}${l}`)];
}

/** The typed line of a step, or null when nothing is typed. */
function typedLine(s: TranscriptStep): string | null {
  switch (s.kind) {
    case 'sql':
    case 'sqlSetting':
      return `${s.sql};`;
    case 'redis':
      return s.line;
    default:
      return null;
  }
}

/** The lines under a step's header: what to type and what to expect. */
function stepBody(s: TranscriptStep): string[] {
  switch (s.kind) {
    case 'sql':
      return [`${s.sql};`, ...(s.blocks ? [`-- expect: (blocks) ${s.expect}${s.returnsAt !== undefined ? ` — returns at step ${s.returnsAt}` : ' — and never returns in the run'}`] : comment('expect: ', s.expect))];
    case 'sqlReturns':
      return comment('expect: ', s.expect);
    case 'sqlSetting':
      return [`${s.sql};`, `-- expect: SET`, ...comment('why: ', s.why)];
    case 'sqlEnd':
      return s.actor === PGBOUNCER_ACTOR
        ? [`\\q`, `-- PgBouncer closes server connection ${s.session} (its client ${s.via ?? ''} went inside a transaction): end this session (the transaction rolls back, its locks are released; a waiting statement elsewhere may return now)`]
        : [`\\q`, `-- the pool destroys connection ${s.session}: end this session (its locks are released; a waiting statement elsewhere may return now)`];
    case 'sqlCancel':
      return [`-- press Ctrl+C in ${s.session}: ${s.actor} crashed while step ${s.statement} waited, and its client gives up the statement`, '-- expect: ERROR 57014 canceling statement due to user request'];
    case 'redis':
      return [s.line, ...comment('expect: ', s.expect), ...(s.why !== undefined ? comment('why: ', s.why) : [])];
  }
}

/** A step's header line, e.g. `-- 9. c1 (A) at 100 ms` or `-- 11. c1 (A) at 1.100 s: step 9 returns`. */
function stepHeader(s: TranscriptStep): string {
  const who = s.actor === PGBOUNCER_ACTOR
    ? `${s.session} (PgBouncer, as its client ${s.via ?? ''} goes)`
    : s.actor === FAILOVER_ACTOR || s.actor === FORCED_EXPIRY_ACTOR
      ? `${s.session} (the ${s.actor})`
      : `${s.session} (${s.actor}${s.via !== undefined ? ` via PgBouncer client ${s.via}` : ''})`;
  const tail = s.kind === 'sqlReturns' ? `: step ${s.statement} returns` : s.kind === 'sqlSetting' ? ': a setting for the replay' : s.kind === 'redis' && s.why !== undefined ? `: a command that reproduces the ${s.actor}` : '';
  return `-- ${s.n}. ${who} at ${fmtTime(s.atMs)}${tail}`;
}

/** `the primary; ` for the Redis session of a transcript with a failover (its `usedBy` lists the workers only). */
function t0(s: TranscriptSession): string {
  return s.primary === true ? 'the primary; ' : '';
}

function describeSession(s: TranscriptSession): string {
  const who = s.usedBy.join(', ');
  if (s.client === 'redis-cli' && s.id === REPLICA_SESSION) return `redis-cli -p ${REPLICA_PORT} (the replica: a second, empty Redis server on port ${REPLICA_PORT}, made a replica of the first in the setup and promoted at the failover${who !== '' ? `; commands of ${who}` : ''})`;
  if (s.client === 'redis-cli') return `redis-cli (${t0(s)}commands of ${who})`;
  if (s.id === 'admin') return 'psql (the admin script’s own session)';
  if (s.pgbouncerClients !== undefined) return `psql (PgBouncer's server connection ${s.id}, opened on PostgreSQL directly; it ran the statements of ${s.pgbouncerClients.join(', ') || who})`;
  return `psql (pool connection ${s.id}; used by ${who})`;
}

function label(t: Transcript, variant?: string): string {
  return `${t.title}${t.scenarioId ? ` (${t.scenarioId}${variant ? `, ${variant}` : ''})` : ''}`;
}

/**
 * The whole transcript as one text with sections: a header naming the sessions, the psql and
 * redis-cli setup, then every step in trace order (`-- N. session (actor) at time`, the line to
 * type, `-- expect: …`) with the notes between them. For reading and for copying step by step
 * into the terminals it names; `renderSessionScript` gives one session's part as a file.
 * `variant` (e.g. `without the fix`) is added to the title line.
 */
export function renderTranscript(t: Transcript, variant?: string): string {
  const out: string[] = [
    `-- Run it yourself: ${label(t, variant)}`,
    `-- Generated by Lockscope from the run's trace (trace hash ${t.traceHash}, seed ${t.seed}). The same scenario gives this text, byte for byte.`,
    '--',
    ...(t.sessions.length === 0
      ? ['-- Sessions: none. This run sends nothing to PostgreSQL or Redis: there is nothing to type, and every line below is a comment.']
      : ['-- Sessions: open one terminal per session, side by side.', ...t.sessions.map((s) => `--   ${s.id.padEnd(Math.max(6, ...t.sessions.map((x) => x.id.length)))} ${describeSession(s)}`)]),
    ...(t.notReplayed.length > 0 ? ['--', ...notReplayedLines(t, '--')] : []),
    ...howToRead(t),
    ...(setsDeadlockTimeout(t) ? deadlockTimeoutPrivilegeLines('--') : []),
    ...replayLimitLines(t, '--'),
  ];
  if (t.sqlSetup.length > 0 || t.sessions.some((s) => s.preamble.length > 0)) {
    out.push('--', '-- ==== setup: psql, once, in a scratch database (createdb lockscope_demo) ====', ...t.sqlSetup.map((s) => `${s};`));
    for (const s of t.sessions.filter((x) => x.preamble.length > 0)) out.push(`-- then in ${s.id}:`, ...s.preamble.map((p) => `${p};`));
  }
  if (t.redisSetup.length > 0) out.push('--', '-- ==== setup: redis-cli, once ====', ...t.redisSetup.map((x) => x.line));
  if (t.replicaSetup.length > 0) out.push('--', `-- ==== setup: redis-cli -p ${REPLICA_PORT} (session ${REPLICA_SESSION}), once: the second server replicates the first ====`, ...t.replicaSetup.map((x) => x.line));
  out.push('--', '-- ==== steps ====');
  const { stop } = replayCoverage(t);
  for (const e of t.entries) {
    if (e.kind === 'note') {
      out.push(...comment(`   (${fmtTime(e.atMs)}) `, e.text));
      if (stop !== null && e.eventId === stop.eventId && e.replayLimit === stop.limit) {
        out.push(`--    From here on, replaying on one Redis server stops being meaningful (${REPLAY_LIMIT_WHY[stop.limit]}): the redis-cli ${stepRangesText(stepRanges(stop.steps))} show what the run saw.`);
      }
      continue;
    }
    out.push('--', stepHeader(e), ...stepBody(e));
  }
  out.push('--', '-- end of the run');
  return `${out.join('\n')}\n`;
}

/**
 * One session's part as a file to paste into its client, step by step: for `psql`, SQL with `--`
 * comments (psql ignores them), each step saying after which step of another session it comes;
 * for `redis-cli`, its commands only (`redisSessionCommands`: redis-cli has no comments). Throws Error for a session id the
 * transcript does not have.
 */
export function renderSessionScript(t: Transcript, sessionId: string, variant?: string): string {
  const s = t.sessions.find((x) => x.id === sessionId);
  if (!s) throw new Error(`no session ${sessionId} in this transcript (sessions: ${t.sessions.map((x) => x.id).join(', ') || 'none'})`);
  if (s.client === 'redis-cli') return redisSessionCommands(t, sessionId);
  const c = '--';
  const out: string[] = [
    `${c} ${s.id}: ${describeSession(s)} — ${label(t, variant)}`,
    `${c} Part of a Lockscope transcript (trace hash ${t.traceHash}): run each step when the combined transcript reaches it.`,
    ...notReplayedLines(t, c),
    ...(setsDeadlockTimeout(t, sessionId) ? deadlockTimeoutPrivilegeLines(c) : []),
  ];
  const first = t.sessions.find((x) => x.client === 'psql');
  if (first?.id === sessionId) out.push('-- setup (once, before the steps; the other sessions\' files leave it to this one):', ...t.sqlSetup.map((x) => `${x};`));
  else out.push(`-- setup: the tables are created in ${first?.id ?? 'the first session'} (see its file)`);
  out.push(...s.preamble.map((p) => `${p};`));
  let previous: TranscriptStep | null = null;
  for (const e of t.entries) {
    if (e.kind === 'note') continue;
    if (e.session === sessionId) {
      const after = previous && previous.session !== sessionId ? ` (after step ${previous.n} in ${previous.session})` : '';
      out.push(`${c} step ${e.n}${after}`);
      const typed = typedLine(e);
      const body = stepBody(e).filter((l) => l !== typed);
      if (typed !== null) out.push(typed);
      out.push(...body);
    }
    previous = e;
  }
  return `${out.join('\n')}\n`;
}

/**
 * Whether a redis-cli session's file can be piped (`redis-cli < file`) and give the transcript's
 * replies: not when a TTL must run out in real time between two commands (a wait line) or a
 * failover orders the two servers' commands (the primary's, `WAIT`, then the replica's).
 */
export function redisFilesPipeable(t: Transcript): boolean {
  return t.replicaSetup.length === 0 && !t.entries.some((e) => e.kind === 'note' && e.wait !== undefined);
}

/**
 * A redis-cli session's file: its setup and its commands in step order, one a line, quoted as
 * redis-cli splits arguments (`sdssplitargs`), and nothing else — redis-cli has no comment syntax
 * (a `#` line is `ERR unknown command '#'`). The expected replies, the waits and the order across
 * sessions are in the whole transcript (`renderTranscript`), whose header says whether the file
 * pipes (`redisFilesPipeable`).
 */
function redisSessionCommands(t: Transcript, sessionId: string): string {
  const setup = sessionId === REPLICA_SESSION ? t.replicaSetup : t.redisSetup;
  const steps = t.entries.flatMap((e) => (e.kind === 'redis' && e.session === sessionId ? [e.line] : []));
  return `${[...setup.map((x) => x.line), ...steps].join('\n')}\n`;
}
