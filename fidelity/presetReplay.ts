/**
 * Replays the traces of every preset (both variants) against the real servers.
 *
 * SQL: every `sql` event's literal command runs, in trace order, on the real connection of the
 * model session that ran it (pooled connections `c1`, `c2`, … as named by the `pool` events, and
 * the admin script's own session `admin`); one real connection per model session. Each reply is
 * checked against the trace's reply text, including `waits (…)`; a statement the trace shows
 * finishing later ("After waiting …", a `wait` end event) must be among the statements the real
 * server released at the step just before, in the same order. A `connection.destroy()` ends the
 * real backend (`pg_terminate_backend`); a crash of a worker waiting in the database first cancels
 * its statement, as the engine does.
 * Deadlocks: every statement runs with a long `deadlock_timeout`, except one whose wait the trace
 * ends with 40P01 — it is sent after `SET deadlock_timeout` to the scenario's value
 * (`database.deadlockTimeoutMs`), so the server's check fails the same waiter (the other waits of
 * the cycle start later, their timers fire later). At its 40P01 the replay waits for the server's
 * reply; the DETAIL is compared with pids and the database OID normalised (`normalizeDeadlockDetail`).
 *
 * Redis: the commands run in trace order under a fresh key prefix (`prefixRedisKeys`), as fast as possible.
 * The leases' TTLs (5–60 s) are literal in the commands, so time cannot be scaled: the replay
 * compares every command up to the first event that needs time to pass or an unrepeatable fault
 * (a TTL running out, forced expiry, clock jump, failover) and counts the rest as not replayed.
 * Commands of a worker cut off from Redis (`no reply`) never reached the server and are skipped.
 */
import { PRESETS, runScenario, type Scenario, type TraceEvent } from '../src/sim/index';
import { tablesFor } from '../src/sim/engine/tables';
import { renderTableSetup } from '../src/sim/resources/database';
import { renderReply } from '../src/sim/resources/renderSql';
import { redisArgv } from '../src/sim/resources/redisTypes';
import { CASE_DEADLOCK_TIMEOUT, LONG_DEADLOCK_TIMEOUT_MS, Monitor, RealSession, type RealDone } from './pgReal';
import { normalizeDeadlockDetail } from './sqlHarness';
import { DEFAULT_DEADLOCK_TIMEOUT_MS } from '../src/sim/scenario/schema';
import { callRaw, newRedis, replyText, type RealRedisReply } from './redisHarness';
import { formatFlake, runConfirmed } from './confirm';
import type { CaseResult } from './types';

/** Reply text with multi-row results in a canonical order (no ORDER BY: row order is unspecified). */
function canonicalText(text: string): string {
  const i = text.indexOf(' → ');
  if (i < 0 || !/^SELECT|^INSERT|^UPDATE|^DELETE/.test(text)) return text;
  return text.slice(0, i + 3) + text.slice(i + 3).split(' | ').sort().join(' | ');
}

let schemaCounter = 0;

/**
 * Ids of the `wait begin` events whose statement the trace later fails with 40P01 (the waits the
 * model's deadlock check chose): the worker's next `wait end` event has that reply.
 */
export function deadlockVictims(events: readonly TraceEvent[]): Set<string> {
  const victims = new Set<string>();
  events.forEach((e, i) => {
    if (e.kind !== 'sql' || e.data?.t !== 'wait' || e.data.phase !== 'begin') return;
    const end = events.slice(i + 1).find((x) => x.actor === e.actor && x.data?.t === 'wait' && x.data.phase === 'end');
    if (end?.reply?.startsWith('ERROR 40P01')) victims.add(e.id);
  });
  return victims;
}

/** Replays the SQL part of one trace. */
async function replaySql(name: string, scenario: Scenario, events: readonly TraceEvent[]): Promise<CaseResult> {
  const victims = deadlockVictims(events);
  const victimTimeoutMs = scenario.database.deadlockTimeoutMs ?? DEFAULT_DEADLOCK_TIMEOUT_MS;
  const transcript: string[] = [];
  const problems: string[] = [];
  const monitor = new Monitor();
  await monitor.open();
  const schema = `fid_preset_${process.pid}_${++schemaCounter}`;
  const sessions = new Map<string, RealSession>();
  const actorSession = new Map<string, string>();
  /** Statements the server released at the last step, oldest first, not yet matched to trace events. */
  let released: { id: string; done: RealDone }[] = [];
  let compared = 0;
  const session = async (id: string): Promise<RealSession> => {
    let s = sessions.get(id);
    if (!s) {
      s = new RealSession(id);
      await s.open([`SET search_path TO ${schema}`, `SET deadlock_timeout = '${CASE_DEADLOCK_TIMEOUT}'`]);
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
    if (released.length > 0) problems.push(`the server released ${released.map((r) => `${r.id} (${renderReply(r.done.reply)})`).join(', ')} but the trace shows no such completion`);
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
  try {
    await monitor.client.query(`CREATE SCHEMA ${schema}`);
    await monitor.client.query(`SET search_path TO ${schema}`);
    for (const t of tablesFor(scenario)) for (const sql of renderTableSetup(t)) await monitor.client.query(sql);
    for (const e of events) {
      if (problems.length > 0) break;
      if (e.kind === 'pool') {
        if (e.command === 'pool.connect()' && e.reply && /^c\d+$/.test(e.reply)) {
          actorSession.set(e.actor, e.reply);
          await session(e.reply);
        } else if (e.command === 'client.release()') {
          actorSession.delete(e.actor);
        } else if (e.command === 'connection.destroy()') {
          const id = actorSession.get(e.actor);
          const s = id ? sessions.get(id) : undefined;
          actorSession.delete(e.actor);
          if (s && !s.closed) {
            await monitor.terminate(s.pid);
            s.closed = true;
            void s.client.end().catch(() => undefined);
            transcript.push(`${e.id} ${id}> (connection destroyed)`);
            await collect(null);
          }
        }
        continue;
      }
      if (e.kind === 'fault' && e.data?.t === 'fault' && e.data.kind === 'crash') {
        const id = actorSession.get(e.actor);
        const s = id ? sessions.get(id) : undefined;
        if (s && s.inFlight) {
          await monitor.cancel(s.pid);
          await monitor.awaitReply(s);
          await monitor.settle(open());
          s.takeDone();
          await collect(s.id);
        }
        continue;
      }
      if (e.kind !== 'sql' || e.command === undefined || e.reply === undefined) continue;
      // Behind a pooler the statement ran on the server connection PgBouncer linked (the session the
      // database saw, in the event's data), not necessarily the one the worker's client used before.
      const id = e.actor === 'admin' ? 'admin' : scenario.database.pooler !== undefined ? e.call?.caller : actorSession.get(e.actor);
      if (!id) {
        problems.push(`${e.id}: no connection known for ${e.actor}`);
        break;
      }
      compared += 1;
      if (e.data?.t === 'wait' && e.data.phase === 'end') {
        // A statement that had been waiting: the server must have released it at the step before.
        // Statements released together by one step run concurrently on the server, so they are
        // matched as a set, not in order. A 40P01 comes from the server's deadlock timer: wait for it.
        const waiter = sessions.get(id);
        if (e.reply.startsWith('ERROR 40P01') && !released.some((r) => r.id === id) && waiter?.inFlight) {
          // PostgreSQL sends the 40P01 before its abort releases the locks: also wait for the
          // statements the trace shows proceeding at the same moment (bounded by the settle timeout).
          await monitor.awaitReply(waiter);
          const at = events.indexOf(e);
          const alsoReleased = events.slice(at + 1).filter((x) => x.atMs === e.atMs && x.kind === 'sql' && x.data?.t === 'wait' && x.data.phase === 'end');
          for (const x of alsoReleased) {
            const other = sessions.get(actorSession.get(x.actor) ?? '');
            if (other?.inFlight) await monitor.awaitReply(other);
          }
          await collect(null);
        }
        const at = released.findIndex((r) => r.id === id);
        const next = at >= 0 ? released.splice(at, 1)[0] : released[0];
        const got = next ? `${next.id} → ${renderReply(next.done.reply)}` : '(nothing released)';
        transcript.push(`${e.id} ${id}> ${e.command}  [completion]\n      trace:  ${id} → ${e.reply}\n      server: ${got}`);
        if (!next || next.id !== id || comparable(renderReply(next.done.reply)) !== comparable(e.reply)) {
          problems.push(`${e.id} ${id}> ${e.command}: trace shows ${id} proceeding with ${e.reply}; server released ${got}`);
        }
        continue;
      }
      const s = await session(id);
      // Back to the long timer after a victim's statement; inside the transaction its 40P01 aborted
      // the SET itself is refused (25P02, changing nothing): it is tried again at the next statement.
      await s.setDeadlockTimeout(victims.has(e.id) ? victimTimeoutMs : LONG_DEADLOCK_TIMEOUT_MS).catch(() => undefined);
      s.send(e.command);
      const waiting = await collect(id);
      const own = s.takeDone();
      const got = own ? renderReply(own.reply) : waiting.has(id) ? 'waits' : '(no reply)';
      transcript.push(`${e.id} ${id}> ${e.command}\n      trace:  ${e.reply}\n      server: ${got}`);
      const expectWait = e.reply.startsWith('waits (');
      if (expectWait ? got !== 'waits' : comparable(got) !== comparable(e.reply)) problems.push(`${e.id} ${id}> ${e.command}: trace ${e.reply} ≠ server ${got}`);
    }
    if (problems.length === 0 && released.length > 0) problems.push(`the server released ${released.map((r) => r.id).join(', ')} but the trace shows no such completion`);
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
  transcript.unshift(`${compared} SQL events replayed`);
  return { name, primitive: 'preset replay (SQL)', outcome: problems.length > 0 ? 'disagree' : 'agree', transcript, problems };
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

const TIME_FAULTS = new Set(['expireLease', 'clockJump', 'failover']);

/**
 * `argv` with every key argument prefixed (the key positions of the commands the model speaks:
 * SET/GET/PEXPIRE/PTTL/INCR take one key first, DEL a list, EVAL `numkeys` keys after the script).
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
    case 'EVAL': case 'EVALSHA': {
      const numKeys = Number(rest[1]);
      return [name, ...rest.map((a, i) => (i >= 2 && i < 2 + numKeys ? prefix + a : a))];
    }
    default:
      throw new Error(`no key positions known for Redis command ${name}`);
  }
}

let redisReplayCounter = 0;

/** Replays the Redis part of one trace under a fresh key prefix, up to the first event that needs time or an unrepeatable fault. */
async function replayRedis(name: string, scenario: Scenario, events: readonly TraceEvent[]): Promise<CaseResult> {
  const redis = newRedis();
  await redis.connect();
  const prefix = `fid:${process.pid}:preset${++redisReplayCounter}:`;
  const touched = new Set<string>();
  const run = (argv: readonly string[]): Promise<RealRedisReply> => {
    const p = prefixRedisKeys(argv, prefix);
    const keys = p[0]?.toUpperCase().startsWith('EVAL') ? p.slice(3, 3 + Number(p[2])) : p[0]?.toUpperCase() === 'DEL' ? p.slice(1) : [p[1] ?? ''];
    keys.forEach((k) => touched.add(k));
    return callRaw(redis, p);
  };
  const transcript: string[] = [];
  const problems: string[] = [];
  let compared = 0;
  let skipped = 0;
  let stoppedAt: string | null = null;
  try {
    // The world's setup, as src/sim/engine/world.ts does it before the first event: the fencing
    // counter starts at fenceStart (so the first token is fenceStart + 1).
    if (scenario.lease.fenceStart > 0) await run(redisArgv({ op: 'SET', key: scenario.lease.fenceKey, value: String(scenario.lease.fenceStart) }));
    const redisEvents = events.filter((e) => e.kind === 'redis' || e.kind === 'expiry' || (e.kind === 'fault' && e.data?.t === 'fault' && TIME_FAULTS.has(e.data.kind)));
    for (const [i, e] of redisEvents.entries()) {
      if (e.kind !== 'redis') {
        stoppedAt = `${e.id} (${e.kind === 'expiry' ? 'a TTL runs out' : `fault ${e.data?.t === 'fault' ? e.data.kind : ''}`})`;
        skipped = redisEvents.slice(i).filter((x) => x.kind === 'redis').length;
        break;
      }
      if (e.command === undefined || e.reply === undefined || e.reply.startsWith('(no reply')) continue;
      const real = await run(splitCliArgs(e.command));
      compared += 1;
      transcript.push(`${e.id} ${e.actor}> ${e.command}\n      trace:  ${e.reply}\n      server: ${replyText(real)}`);
      if (replyText(real) !== e.reply) problems.push(`${e.id} ${e.command}: trace ${e.reply} ≠ server ${replyText(real)}`);
      if (problems.length > 0) break;
    }
  } catch (err) {
    problems.push(`harness error: ${(err as Error).message}`);
  } finally {
    if (touched.size > 0) await redis.call('DEL', ...touched).catch(() => undefined);
    redis.disconnect();
  }
  transcript.unshift(`${compared} Redis commands replayed${stoppedAt ? `; stopped at ${stoppedAt}, ${skipped} later commands not replayed` : ''}`);
  return { name, primitive: 'preset replay (Redis)', outcome: problems.length > 0 ? 'disagree' : 'agree', transcript, problems };
}

/**
 * Replays every preset, both variants: SQL (when the trace has SQL) and Redis (when it has Redis),
 * each under the confirmation rule (`confirm.ts`); `flakes` holds the printed flake warnings.
 * `ids` limits it to those presets (a quick check while working on one).
 */
export async function replayPresets(ids?: readonly string[]): Promise<{ results: CaseResult[]; notes: string[]; flakes: string[] }> {
  const results: CaseResult[] = [];
  const notes: string[] = [];
  const flakes: string[] = [];
  const confirmed = async (run: () => Promise<CaseResult>): Promise<void> => {
    const { result, flake } = await runConfirmed(run);
    results.push(result);
    if (flake) flakes.push(formatFlake(`${result.primitive} — ${result.name}`, flake));
  };
  for (const p of PRESETS.filter((x) => ids === undefined || ids.includes(x.id))) {
    for (const variant of ['withoutFix', 'withFix'] as const) {
      const run = runScenario(p[variant]);
      const label = `${p.id} (${variant})`;
      if (run.events.some((e) => e.kind === 'sql')) await confirmed(() => replaySql(label, p[variant], run.events));
      if (run.events.some((e) => e.kind === 'redis')) await confirmed(() => replayRedis(label, p[variant], run.events));
    }
  }
  return { results, notes, flakes };
}
