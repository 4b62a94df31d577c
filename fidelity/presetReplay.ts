/**
 * Replays the transcript of every preset (both variants) against the real servers: the text a
 * reader gets from the share panel or `npm run simulate -- <id> --transcript`
 * (`src/sim/transcript/transcript.ts`), step by step, so an exported transcript is known to be true.
 *
 * psql: each session of the transcript (`c1`, `c2`, … `admin`) is one real connection, opened at
 * its first step with the transcript's preamble. Every statement step is sent and its reply
 * compared with the step's `expect`, including "(blocks)"; a `sqlReturns` step (a statement that
 * blocked returns) must be among the statements the real server released at the step just before,
 * in the same order. A `sqlEnd` step ends the real backend (`pg_terminate_backend`); a `sqlCancel`
 * (a worker crashed while its statement waited) cancels the statement, as the engine does.
 * Deadlocks: the transcript gives every session a long `deadlock_timeout` and the session whose
 * wait the run's check failed the scenario's value just before that statement (a `sqlSetting`
 * step), so the server's check fails the same waiter. At its 40P01 the replay waits for the
 * server's reply; the DETAIL is compared with pids and the database OID normalised
 * (`normalizeDeadlockDetail`).
 *
 * redis-cli: the steps run in order under a fresh key prefix (`prefixRedisKeys`), as fast as
 * possible, each line split as redis-cli splits it (`splitCliArgs`, which must give the step's
 * argv). The leases' TTLs (10–30 s) are literal in the commands, so time is not scaled: at each
 * "wait until … after step N" note the replay sleeps until that long after step N's reply, so the
 * key really expires on the server; the replays of all presets run at once, so the suite waits
 * about as long as the longest TTL. A failover transcript runs on a primary and a replica of its
 * own (`redisPair.ts`). Steps after a note no command reproduces (the transcript's own
 * `replayCoverage`, which its text states: a clock jump, a second failover) count as not
 * replayed; the presets have none. Each replay records the step numbers it ran
 * (`ranSteps`); `coverageOf` (./coverage.ts) turns them into the report's per-variant coverage —
 * which steps were replayed, which not and why — that the app's claim states.
 *
 * Behind PgBouncer the transcript's sessions are PgBouncer's server connections: the replay opens
 * each on PostgreSQL directly (it bypasses PgBouncer, `viaPgBouncer: false`; fidelity/pgbouncer.ts
 * checks the routing through a real one). Commands of a
 * worker cut off from Redis are notes in the transcript: they never reach the server.
 */
import { PRESETS, REPLAY_LIMIT_WHY, REPLICA_SESSION, buildTranscript, replayCoverage, runScenario, waitLine, type Scenario, type Transcript, type TranscriptStep } from '../src/sim/index';
import type Redis from 'ioredis';
import { startOwnRedis, type OwnRedis } from './redisPair';
import { renderReply } from '../src/sim/resources/renderSql';
import { CASE_DEADLOCK_TIMEOUT, Monitor, RealSession, type RealDone } from './pgReal';
import { normalizeDeadlockDetail } from './sqlHarness';
import { callRaw, newRedis, replyText, type RealRedisReply } from './redisHarness';
import { formatFlake, runConfirmed } from './confirm';
import type { CaseResult } from './types';
import type { FidelityCoverage } from '../src/ui/fidelity/fidelityStatus';
import { coverageOf } from './coverage';

/** Reply text with multi-row results in a canonical order (no ORDER BY: row order is unspecified). */
function canonicalText(text: string): string {
  const i = text.indexOf(' → ');
  if (i < 0 || !/^SELECT|^INSERT|^UPDATE|^DELETE/.test(text)) return text;
  return text.slice(0, i + 3) + text.slice(i + 3).split(' | ').sort().join(' | ');
}

let schemaCounter = 0;

/** Replays the psql steps of one transcript (see the file's comment). */
async function replaySql(name: string, scenario: Scenario, t: Transcript): Promise<CaseResult> {
  const transcript: string[] = [];
  const problems: string[] = [];
  const monitor = new Monitor();
  await monitor.open();
  const schema = `fid_preset_${process.pid}_${++schemaCounter}`;
  const sessions = new Map<string, RealSession>();
  const preambles = new Map(t.sessions.map((s) => [s.id, s.preamble] as const));
  /** Statements the server released at the last step, oldest first, not yet matched to transcript steps. */
  let released: { id: string; done: RealDone }[] = [];
  let compared = 0;
  /** The transcript steps the server ran (compared, or done: a \\q, a cancel). */
  const ran: number[] = [];
  const session = async (id: string): Promise<RealSession> => {
    let s = sessions.get(id);
    if (!s) {
      s = new RealSession(id);
      // The transcript's own preamble (a long deadlock_timeout when the run has a deadlock) after the harness's setup.
      await s.open([`SET search_path TO ${schema}`, `SET deadlock_timeout = '${CASE_DEADLOCK_TIMEOUT}'`, ...(preambles.get(id) ?? [])]);
      sessions.set(id, s);
    }
    return s;
  };
  const open = (): RealSession[] => [...sessions.values()].filter((s) => !s.closed);
  /** A reply in comparable form: rows in canonical order; a 40P01 DETAIL with server pids as session ids and the database OID dropped. */
  const comparable = (text: string): string => {
    const pids = new Map([...sessions.values()].map((x) => [x.pid, x.id] as const));
    return text.startsWith('ERROR 40P01') ? normalizeDeadlockDetail(text, pids) : canonicalText(text);
  };
  /** Settles, then collects statements of sessions other than `except` that finished. */
  const collect = async (except: string | null): Promise<Set<string>> => {
    const waiting = (await monitor.settle(open())).waiting;
    if (released.length > 0) problems.push(`the server released ${released.map((r) => `${r.id} (${renderReply(r.done.reply)})`).join(', ')} but the transcript shows no such step`);
    const done = open().filter((s) => s.id !== except && s.peekDone());
    const stamps = await monitor.stateChanges(done.map((s) => s.pid));
    released = done.map((s) => {
      const d = s.takeDone() as RealDone;
      d.stateChange = stamps.get(s.pid) ?? '';
      return { id: s.id, done: d };
    });
    released.sort((a, b) => (a.done.stateChange ?? '').localeCompare(b.done.stateChange ?? '') || a.done.seq - b.done.seq);
    return waiting;
  };
  const steps = t.entries.filter((e): e is TranscriptStep => e.kind !== 'note' && e.kind !== 'redis');
  try {
    await monitor.client.query(`CREATE SCHEMA ${schema}`);
    await monitor.client.query(`SET search_path TO ${schema}`);
    for (const sql of t.sqlSetup) await monitor.client.query(sql);
    for (const [i, step] of steps.entries()) {
      if (problems.length > 0) break;
      const id = step.session;
      if (step.kind === 'sqlEnd') {
        const s = sessions.get(id);
        if (s && !s.closed) {
          await monitor.terminate(s.pid);
          s.closed = true;
          void s.client.end().catch(() => undefined);
          transcript.push(`${step.n} ${id}> \\q (connection destroyed)`);
          await collect(null);
        }
        ran.push(step.n);
        continue;
      }
      if (step.kind === 'sqlCancel') {
        const s = sessions.get(id);
        if (s && s.inFlight) {
          await monitor.cancel(s.pid);
          await monitor.awaitReply(s);
          await monitor.settle(open());
          s.takeDone();
          await collect(s.id);
        }
        ran.push(step.n);
        continue;
      }
      if (step.kind === 'redis') continue;
      compared += 1;
      ran.push(step.n);
      if (step.kind === 'sqlReturns') {
        // A statement that had been waiting: the server must have released it at the step before.
        // Statements released together by one step run concurrently on the server, so they are
        // matched as a set, not in order. A 40P01 comes from the server's deadlock timer: wait for it.
        const waiter = sessions.get(id);
        if (step.expect.startsWith('ERROR 40P01') && !released.some((r) => r.id === id) && waiter?.inFlight) {
          // PostgreSQL sends the 40P01 before its abort releases the locks: also wait for the
          // statements the transcript shows returning at the same moment (bounded by the settle timeout).
          await monitor.awaitReply(waiter);
          const alsoReleased = steps.slice(i + 1).filter((x) => x.atMs === step.atMs && x.kind === 'sqlReturns');
          for (const x of alsoReleased) {
            const other = sessions.get(x.session);
            if (other?.inFlight) await monitor.awaitReply(other);
          }
          await collect(null);
        }
        const at = released.findIndex((r) => r.id === id);
        const next = at >= 0 ? released.splice(at, 1)[0] : released[0];
        const got = next ? `${next.id} → ${renderReply(next.done.reply)}` : '(nothing released)';
        transcript.push(`${step.n} ${id}> (step ${step.statement} returns) ${step.sql}\n      expect: ${id} → ${step.expect}\n      server: ${got}`);
        if (!next || next.id !== id || comparable(renderReply(next.done.reply)) !== comparable(step.expect)) {
          problems.push(`step ${step.n} ${id}> ${step.sql}: the transcript expects ${id} to return ${step.expect}; the server released ${got}`);
        }
        continue;
      }
      const s = await session(id);
      s.send(step.sql);
      const waiting = await collect(id);
      const own = s.takeDone();
      const got = own ? renderReply(own.reply) : waiting.has(id) ? 'waits' : '(no reply)';
      transcript.push(`${step.n} ${id}> ${step.sql}\n      expect: ${step.expect}\n      server: ${got}`);
      const blocks = step.kind === 'sql' && step.blocks;
      if (blocks ? got !== 'waits' : comparable(got) !== comparable(step.expect)) problems.push(`step ${step.n} ${id}> ${step.sql}: expect ${blocks ? '(blocks) ' : ''}${step.expect} ≠ server ${got}`);
    }
    if (problems.length === 0 && released.length > 0) problems.push(`the server released ${released.map((r) => r.id).join(', ')} but the transcript shows no such step`);
  } catch (err) {
    problems.push(`harness error: ${(err as Error).message}`);
  } finally {
    for (const s of sessions.values()) {
      if (s.closed) continue;
      if (s.inFlight) await monitor.terminate(s.pid).catch(() => undefined);
      await s.close();
    }
    await monitor.client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`).catch(() => undefined);
    await monitor.close();
  }
  transcript.unshift(`${compared} psql steps replayed`);
  void scenario;
  return { name, primitive: 'transcript replay (psql)', outcome: problems.length > 0 ? 'disagree' : 'agree', transcript, problems, steps: compared, ranSteps: ran, stepsOf: steps.map((x) => x.n) };
}

/** Splits a redis-cli command line into argv (sdssplitargs: double quotes with \\xhh and C escapes). */
export function splitCliArgs(line: string): string[] {
  const out: string[] = [];
  let i = 0;
  const esc: Record<string, string> = { n: '\n', r: '\r', t: '\t', a: '\x07', b: '\b', '\\': '\\', '"': '"' };
  while (i < line.length) {
    while (line[i] === ' ') i++;
    if (i >= line.length) break;
    let arg = '';
    if (line[i] === '"') {
      const bytes: number[] = [];
      i++;
      while (i < line.length && line[i] !== '"') {
        if (line[i] === '\\' && line[i + 1] === 'x') {
          bytes.push(parseInt(line.slice(i + 2, i + 4), 16));
          i += 4;
        } else if (line[i] === '\\') {
          bytes.push(...Buffer.from(esc[line[i + 1] as string] ?? (line[i + 1] as string)));
          i += 2;
        } else {
          bytes.push(...Buffer.from(line[i] as string));
          i++;
        }
      }
      i++;
      arg = Buffer.from(bytes).toString('utf8');
    } else {
      while (i < line.length && line[i] !== ' ') arg += line[i++];
    }
    out.push(arg);
  }
  return out;
}

/**
 * `argv` with every key argument prefixed (the key positions of the commands the model speaks:
 * SET/GET/PEXPIRE/PTTL/INCR take one key first, DEL a list, EVAL `numkeys` keys after the script;
 * WAIT and REPLICAOF, which the failover's replay adds, take none).
 * The preset replay runs on the shared Redis database like every other case, isolated by the
 * prefix, so two runs at once (or another program's keys) never meet. Throws on another command.
 */
export function prefixRedisKeys(argv: readonly string[], prefix: string): string[] {
  const [name = '', ...rest] = argv;
  switch (name.toUpperCase()) {
    case 'SET': case 'GET': case 'PEXPIRE': case 'PTTL': case 'INCR':
      return [name, ...rest.map((a, i) => (i === 0 ? prefix + a : a))];
    case 'DEL':
      return [name, ...rest.map((a) => prefix + a)];
    case 'WAIT': case 'REPLICAOF':
      return [name, ...rest];
    case 'EVAL': case 'EVALSHA': {
      const numKeys = Number(rest[1]);
      return [name, ...rest.map((a, i) => (i >= 2 && i < 2 + numKeys ? prefix + a : a))];
    }
    default:
      throw new Error(`no key positions known for Redis command ${name}`);
  }
}

let redisReplayCounter = 0;

/** How long the replay waits for one Redis reply before it calls the step a harness problem (a `WAIT 1 0` whose replica never syncs). */
const REDIS_REPLY_TIMEOUT_MS = 15_000;

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/**
 * Replays the redis-cli steps of one transcript under a fresh key prefix, in order, up to the
 * first note that needs Redis to do what no command does (`replayCoverage`: a forced expiry, a
 * clock jump, a second failover, a TTL no step set). Where the transcript says "wait until … after
 * step N" (a TTL running out), it sleeps until that long after step N's reply, so the key really
 * expires on the server; a step whose reply relies on a TTL not having run out yet (`needsTtl`)
 * must have had its reply within that TTL of the setting step's send (else a timing problem,
 * re-run by the confirmation rule). A transcript with a failover runs on two servers of its own
 * (`redisPair.ts`): session `redis` on the primary, `replica` on the second server, whose setup
 * line `REPLICAOF 127.0.0.1 6379` names the primary the replay started (the one substitution,
 * besides the key prefix).
 */
export async function replayRedis(name: string, t: Transcript): Promise<CaseResult> {
  const transcript: string[] = [];
  const problems: string[] = [];
  let compared = 0;
  const ran: number[] = [];
  const prefix = `fid:${process.pid}:preset${++redisReplayCounter}:`;
  const touched = new Set<string>();
  const own: OwnRedis[] = [];
  const conns = new Map<string, Redis>();
  // Where the servers stop being the run's Redis: the transcript's own rule, which its text states.
  const { stop } = replayCoverage(t);
  const skipped = stop?.steps.length ?? 0;
  const stoppedAt = stop ? `${stop.eventId} at ${stop.atMs} ms (${REPLAY_LIMIT_WHY[stop.limit]})` : null;
  const beyond = new Set(stop?.steps ?? []);
  /** Step → when it was sent and when its reply came (performance.now(), ms). */
  const sent = new Map<number, number>();
  const replied = new Map<number, number>();
  let waitedMs = 0;
  const call = async (session: string, argv: readonly string[]): Promise<RealRedisReply> => {
    const redis = conns.get(session);
    if (redis === undefined) throw new Error(`no server for session ${session}`);
    const p = prefixRedisKeys(argv, prefix);
    const keys = p[0]?.toUpperCase().startsWith('EVAL') ? p.slice(3, 3 + Number(p[2])) : p[0]?.toUpperCase() === 'DEL' ? p.slice(1) : p[0]?.toUpperCase() === 'WAIT' || p[0]?.toUpperCase() === 'REPLICAOF' ? [] : [p[1] ?? ''];
    keys.forEach((k) => touched.add(k));
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<never>((_, reject) => { timer = setTimeout(() => reject(new Error(`no reply to ${argv[0] ?? ''} within ${REDIS_REPLY_TIMEOUT_MS} ms`)), REDIS_REPLY_TIMEOUT_MS); });
    try {
      return await Promise.race([callRaw(redis, p), timeout]);
    } finally {
      clearTimeout(timer);
    }
  };
  try {
    if (t.replicaSetup.length > 0) {
      const primary = await startOwnRedis();
      own.push(primary);
      const replica = await startOwnRedis();
      own.push(replica);
      conns.set('redis', primary.client);
      conns.set(REPLICA_SESSION, replica.client);
      transcript.push(`own servers: primary redis-server ${primary.version} on 127.0.0.1:${primary.port}, replica ${replica.version} on 127.0.0.1:${replica.port}`);
    } else {
      const redis = newRedis();
      await redis.connect();
      conns.set('redis', redis);
    }
    // The transcript's setup: clear the run's keys, start the fencing counter where the world starts it; a replica follows the primary.
    for (const x of t.redisSetup) await call('redis', x.argv);
    const primary = own[0];
    for (const x of t.replicaSetup) {
      const argv = primary !== undefined && x.argv[0] === 'REPLICAOF' ? ['REPLICAOF', primary.host, String(primary.port)] : x.argv;
      const real = await call(REPLICA_SESSION, argv);
      if (replyText(real) !== 'OK') problems.push(`replica setup ${argv.join(' ')}: ${replyText(real)}`);
    }
    for (const e of t.entries) {
      if (problems.length > 0) break;
      if (e.kind === 'note') {
        // A TTL runs out: wait as the transcript says, in real time.
        if (e.wait !== undefined && !beyond.has(e.wait.afterStep)) {
          const from = replied.get(e.wait.afterStep);
          if (from === undefined) { problems.push(`${e.eventId}: the wait counts from step ${e.wait.afterStep}, which the replay did not run`); break; }
          const left = from + e.wait.ms - performance.now();
          if (left > 0) { await sleep(left); waitedMs += left; }
          transcript.push(`   ${waitLine(e.wait)} (the TTL of ${e.wait.key}): waited ${Math.max(0, Math.round(left))} ms`);
        }
        continue;
      }
      if (e.kind !== 'redis' || beyond.has(e.n)) continue;
      // The line the reader types is the argv a client sends, as redis-cli splits it.
      const argv = splitCliArgs(e.line);
      if (JSON.stringify(argv) !== JSON.stringify(e.argv)) problems.push(`step ${e.n}: redis-cli would read ${JSON.stringify(argv)} from the line, not the command ${JSON.stringify(e.argv)}`);
      sent.set(e.n, performance.now());
      const real = await call(e.session, argv);
      replied.set(e.n, performance.now());
      compared += 1;
      ran.push(e.n);
      transcript.push(`${e.n} ${e.session} ${e.actor}> ${e.line}\n      expect: ${e.expect}\n      server: ${replyText(real)}`);
      if (replyText(real) !== e.expect) problems.push(`step ${e.n} ${e.session}> ${e.line}: expect ${e.expect} ≠ server ${replyText(real)}`);
      // The TTL this reply relies on must not have run out on the server: the reply came within it.
      const setAt = e.needsTtl !== undefined ? sent.get(e.needsTtl.step) : undefined;
      if (e.needsTtl !== undefined && setAt !== undefined && (replied.get(e.n) ?? 0) - setAt >= e.needsTtl.ttlMs) {
        problems.push(`timing: step ${e.n} relies on the ${e.needsTtl.ttlMs} ms TTL set by step ${e.needsTtl.step}, but its reply came ${Math.round((replied.get(e.n) ?? 0) - setAt)} ms after that step was sent`);
      }
    }
  } catch (err) {
    problems.push(`harness error: ${(err as Error).message}`);
  } finally {
    const shared = own.length === 0 ? conns.get('redis') : undefined;
    if (shared !== undefined && touched.size > 0) await shared.call('DEL', ...touched).catch(() => undefined);
    shared?.disconnect();
    for (const s of own) await s.stop();
  }
  transcript.unshift(`${compared} redis-cli steps replayed${waitedMs > 0 ? `, ${Math.round(waitedMs)} ms spent waiting for TTLs` : ''}${stoppedAt ? `; stopped at ${stoppedAt}, ${skipped} later steps not replayed` : ''}`);
  return { name, primitive: 'transcript replay (redis-cli)', outcome: problems.length > 0 ? 'disagree' : 'agree', transcript, problems, steps: compared, notReplayed: skipped, ranSteps: ran, stepsOf: t.entries.filter((e) => e.kind === 'redis').map((e) => e.n) };
}

/** One preset variant's replay, for the fidelity report. */
export interface PresetReplayRow {
  readonly presetId: string;
  readonly variant: 'withoutFix' | 'withFix';
  readonly sql?: CaseResult;
  readonly redis?: CaseResult;
  /** Which of the transcript's steps the replay ran, and which it did not, and why (`coverageOf`). */
  readonly coverage: FidelityCoverage;
}


/**
 * Replays every preset's transcript (`buildTranscript`, the text `npm run simulate -- <id>
 * --transcript` prints), both variants: its psql steps (when it has any) and its redis-cli steps
 * (when it has any), each under the confirmation rule (`confirm.ts`); `flakes` holds the printed
 * flake warnings, `rows` the results per preset variant (for the report). `ids` limits it to
 * those presets (a quick check while working on one).
 */
export async function replayPresets(ids?: readonly string[]): Promise<{ results: CaseResult[]; notes: string[]; flakes: string[]; rows: PresetReplayRow[] }> {
  const results: CaseResult[] = [];
  const notes: string[] = [];
  const flakes: string[] = [];
  const rows: PresetReplayRow[] = [];
  const confirmed = async (run: () => Promise<CaseResult>): Promise<CaseResult> => {
    const { result, flake } = await runConfirmed(run);
    results.push(result);
    if (flake) flakes.push(formatFlake(`${result.primitive} — ${result.name}`, flake));
    return result;
  };
  const jobs = PRESETS.filter((x) => ids === undefined || ids.includes(x.id)).flatMap((p) => (['withoutFix', 'withFix'] as const).map((variant) => {
    const t = buildTranscript(runScenario(p[variant]));
    const label = `${p.id} (${variant})`;
    // The redis-cli replays run all at once (each under its own key prefix, a failover's on servers
    // of its own): most of their time is waiting for TTLs, which they spend side by side and
    // alongside the psql replays below.
    const redis = t.sessions.some((s) => s.client === 'redis-cli') ? runConfirmed(() => replayRedis(label, t)) : undefined;
    redis?.catch(() => undefined);
    return { p, variant, t, label, redis };
  }));
  const sqlOf = new Map<string, CaseResult>();
  for (const j of jobs) {
    // psql replays one at a time: each compares the server's pg_locks with the model's.
    if (j.t.sessions.some((s) => s.client === 'psql')) sqlOf.set(j.label, await confirmed(() => replaySql(j.label, j.p[j.variant], j.t)));
  }
  for (const j of jobs) {
    const sql = sqlOf.get(j.label);
    let redis: CaseResult | undefined;
    if (j.redis !== undefined) {
      const { result, flake } = await j.redis;
      results.push(result);
      if (flake) flakes.push(formatFlake(`${result.primitive} — ${result.name}`, flake));
      redis = result;
    }
    rows.push({ presetId: j.p.id, variant: j.variant, ...(sql ? { sql } : {}), ...(redis ? { redis } : {}), coverage: coverageOf(j.t, sql, redis) });
  }
  return { results, notes, flakes, rows };
}
