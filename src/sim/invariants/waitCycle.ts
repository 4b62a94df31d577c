/**
 * Liveness: no wait cycle through the application. PostgreSQL finds a wait cycle inside the
 * database after `deadlock_timeout` and fails one statement with 40P01 (the engine runs that
 * check); a cycle that passes through application code — worker A waits for a Redis lease held by
 * B while B's statement waits in the database for A's row or advisory lock; a worker waits for a
 * pooled connection that only a worker waiting on it could give back; a helper's second connection
 * waits for a lock its own caller's transaction holds — is invisible to it and hangs until a
 * timeout ends it (../shared/semantics.md, "PostgreSQL advisory locks": "A cycle that passes
 * through application code … is invisible to PostgreSQL and hangs").
 *
 * Read from event data only: who holds which connection (pool events; a helper's `connect` is
 * marked `helper`), which server connection a client connection is linked to behind a pooler (a
 * SQL call's `client` and `unlinked`, PgBouncer's hand-overs and closes), who holds the lease
 * (lease events), who waits for whom (a database `waits` reply names the blocking session; a
 * refused `SET … NX` waits for the lease's holder; a `connect` that waits waits for whoever holds
 * its pool's connections, and a statement in PgBouncer's queue for whoever holds its server
 * connections). A wait ends at the worker's `wait end` event, its successful `SET NX`, or when the
 * worker is done or crashed.
 *
 * A database or lease wait is for one worker; a pool wait is for any holder of the pool (it ends
 * when one gives a connection back), so it is stuck only when every holder is stuck too: the
 * stuck workers are found as a fixpoint (drop a waiter whose one target, or any of whose pool's
 * holders, is not stuck), and a cycle is then found by following from each waiter its one target,
 * or a stuck holder of its pool (another worker if there is one). Only cycles with at least one
 * wait outside the database are reported (a cycle inside it is the deadlock detector's); a wait
 * made on a helper's connection counts as outside, since its caller's half — waiting for the
 * helper — is in the application.
 */
import type { CheckedEvent } from '../engine/trace';
import { sqlCallOf } from '../engine/trace';
import type { CheckerContext, Finding, InvariantChecker, WaitCycleEdge } from './types';
import { FindingLog } from './types';
import type { DbReply } from '../resources/sqlTypes';
import { fmtMs } from '../engine/fmt';

/** The database reply of a statement that waits, if the call is one. */
function waitsReply(call: ReturnType<typeof sqlCallOf>): Extract<DbReply, { status: 'waits' }> | undefined {
  if (call === undefined) return undefined;
  const { reply } = call;
  return reply.status === 'waits' ? reply : undefined;
}

interface Wait extends WaitCycleEdge {
  readonly eventId: string;
}

/** A wait for any connection of a pool: the application's pool of a process (`process`; '' the shared one), or PgBouncer's server connections. */
interface PoolWait {
  readonly kind: 'app' | 'pooler';
  readonly process: string;
  readonly helper: boolean;
  readonly eventId: string;
}

/** The `noWaitCycle` checker (see the module comment). Publishes one finding per cycle (by its set of workers). */
export function noWaitCycle({ scenario, listener }: CheckerContext): InvariantChecker {
  const log = new FindingLog(listener);
  /** Client connection (or, without a pooler, database session) → the worker holding it. */
  const sessionOwner = new Map<string, string>([['admin', 'admin']]);
  /** Connection → the process whose pool it belongs to ('' = the shared pool), from the `connect` that lent it. */
  const connPool = new Map<string, string>();
  /** Connections a helper borrowed (a second connection of its worker). */
  const helperConns = new Set<string>();
  /** Behind a pooler: server connection → the client connection linked to it now. */
  const backendClient = new Map<string, string>();
  /** Lease key → the worker believed to hold it, by the lease events. */
  const leaseHolder = new Map<string, string>();
  const waits = new Map<string, Wait>();
  const poolWaits = new Map<string, PoolWait>();
  const reported = new Set<string>();

  /** The worker holding a database session now: its client connection's borrower (behind a pooler, through the link). */
  const ownerOf = (session: string): string | undefined => sessionOwner.get(backendClient.get(session) ?? session);
  /** The client connection a database session belongs to (itself without a pooler). */
  const clientOf = (session: string): string => backendClient.get(session) ?? session;

  const track = (e: CheckedEvent): void => {
    const call = e.call;
    if (call?.resource === 'pool') {
      const { command, reply } = call as { command: { op: string; connection?: string; process?: string; helper?: boolean }; reply: { status: string; connection?: string } };
      if (command.op === 'connect' && reply.status === 'ok' && reply.connection !== undefined) {
        sessionOwner.set(reply.connection, call.caller);
        connPool.set(reply.connection, command.process ?? '');
        if (command.helper === true) helperConns.add(reply.connection);
        else helperConns.delete(reply.connection);
      } else if (command.op === 'connect' && reply.status === 'waits') {
        poolWaits.set(e.actor, { kind: 'app', process: command.process ?? '', helper: command.helper === true, eventId: e.id });
      } else if (command.op !== 'connect' && command.connection !== undefined) {
        sessionOwner.delete(command.connection);
        helperConns.delete(command.connection);
      }
    }
    if (call?.resource === 'pooler') {
      const { command, reply } = call as { command: { op: string; client?: string }; reply: { status: string; server?: string } };
      if (command.op === 'link' && reply.status === 'ok' && reply.server !== undefined && command.client !== undefined) backendClient.set(reply.server, command.client);
      else if (command.op === 'link' && reply.status === 'waits') poolWaits.set(e.actor, { kind: 'pooler', process: '', helper: command.client !== undefined && helperConns.has(command.client), eventId: e.id });
      else if (command.op === 'close' && reply.server !== undefined) backendClient.delete(reply.server);
    }
    const sql = sqlCallOf(e);
    if (sql?.client !== undefined) {
      if (sql.unlinked === true) backendClient.delete(sql.caller);
      else backendClient.set(sql.caller, sql.client);
    }
    if (e.data?.t === 'lease') {
      const { op, key, worker } = e.data;
      if ((op === 'acquired' || op === 'renewed') && worker !== undefined) leaseHolder.set(key, worker);
      else if (op === 'released' || op === 'deleted' || op === 'expired' || op === 'lost') leaseHolder.delete(key);
    }
    if (e.state === 'done' || e.state === 'crashed') {
      waits.delete(e.actor);
      poolWaits.delete(e.actor);
    }
    if (e.data?.t === 'wait' && e.data.phase === 'end') {
      waits.delete(e.actor);
      poolWaits.delete(e.actor);
    }
    const dbWait = waitsReply(sql);
    if (dbWait?.blockerSession !== undefined && sql !== undefined) {
      const blocker = dbWait.blockerSession;
      const to = ownerOf(blocker);
      // A worker may wait for itself only across two of its connections: its helper's statement waits for its own transaction.
      const fromHelper = helperConns.has(clientOf(sql.caller));
      if (to !== undefined && (to !== e.actor || (fromHelper && clientOf(blocker) !== clientOf(sql.caller)))) {
        const on = `${dbWait.on.replace(`session ${blocker}`, `${to} (session ${blocker})`)}, in the database`;
        const helperConn = clientOf(sql.caller);
        waits.set(e.actor, fromHelper
          ? { from: e.actor, to, on: 'db', what: `${on}, from its helper's connection ${helperConn}, while its own connection waits in the application for that helper`, viaHelper: helperConn, eventId: e.id }
          : { from: e.actor, to, on: 'db', what: on, eventId: e.id });
      }
    }
    if (call?.resource === 'redis') {
      const { command, reply } = call as { command: { op: string; key?: string; nx?: boolean }; reply: { kind: string } };
      if (command.op === 'SET' && command.nx === true && command.key !== undefined) {
        const holder = leaseHolder.get(command.key);
        if (reply.kind === 'ok') waits.delete(e.actor);
        else if (reply.kind === 'nil' && holder !== undefined && holder !== e.actor && waits.get(e.actor)?.to !== holder) {
          waits.set(e.actor, { from: e.actor, to: holder, on: 'lease', what: `${holder}'s lease ${command.key}`, eventId: e.id });
        }
      }
    }
  };

  /** Who holds the connections a pool wait waits for: `[connection, worker | undefined]` (undefined: a linked client no worker holds). */
  const holdersOf = (p: PoolWait): [string, string | undefined][] => {
    if (p.kind === 'pooler') return [...backendClient].map(([server, client]) => [server, sessionOwner.get(client)]);
    return [...connPool].filter(([c, proc]) => proc === p.process && sessionOwner.has(c)).map(([c]) => [c, sessionOwner.get(c)]);
  };

  /** How many connections the pool a wait is for has: the process's `poolSize`, the shared `database.poolSize`, or PgBouncer's `serverConnections`. */
  const sizeOf = (p: PoolWait): number => {
    if (p.kind === 'pooler') return scenario.database.pooler?.serverConnections ?? 0;
    if (p.process === '') return scenario.database.poolSize;
    return scenario.processes?.find((x) => x.id === p.process)?.poolSize ?? 0;
  };

  /** The waiters that can never proceed (see the module comment); computed only when a pool wait exists. */
  const stuckWorkers = (): Set<string> => {
    const stuck = new Set([...waits.keys(), ...poolWaits.keys()]);
    for (let changed = true; changed;) {
      changed = false;
      for (const x of [...stuck]) {
        const single = waits.get(x);
        const pool = poolWaits.get(x);
        const ok = single !== undefined ? stuck.has(single.to) : pool !== undefined && (() => {
          // Every connection of the pool lent out (not a moment between a return and its hand-over), each to a stuck worker.
          const holders = holdersOf(pool);
          return holders.length > 0 && holders.length >= sizeOf(pool) && holders.every(([, h]) => h !== undefined && stuck.has(h));
        })();
        if (!ok) {
          stuck.delete(x);
          changed = true;
        }
      }
    }
    return stuck;
  };

  /** The edge of a stuck pool wait: to a stuck holder (another worker when there is one), with what it waits for in words. */
  const poolEdge = (from: string, p: PoolWait): Wait => {
    const holders = holdersOf(p);
    const to = holders.find(([, h]) => h !== from)?.[1] ?? from;
    const held = holders.map(([c, h]) => `${c} by ${h ?? '?'}`).join(', ');
    if (p.kind === 'pooler') return { from, to, on: 'pool', what: `a server connection from PgBouncer${p.helper ? ' for its helper' : ''} (all ${holders.length} in use: ${held})`, eventId: p.eventId };
    const pool = p.process === '' ? (scenario.processes === undefined ? 'the pool' : 'the shared pool') : `process ${p.process}'s pool`;
    const own = [...sessionOwner].filter(([c, w]) => w === from && !helperConns.has(c)).map(([c]) => c);
    const what = p.helper
      ? `a second connection from ${pool} for its helper, while it keeps ${own.join(' and ') || 'none'} (all ${holders.length} in use: ${held})`
      : `a connection from ${pool} (all ${holders.length} in use: ${held})`;
    return { from, to, on: 'pool', what, eventId: p.eventId };
  };

  /** The cycle through `start`, if following each worker's one wait (or a stuck holder of its pool) comes back to it. */
  const cycleFrom = (start: string, stuck: Set<string> | null): Wait[] | null => {
    const path: Wait[] = [];
    for (let at = start; ;) {
      const pool = poolWaits.get(at);
      const w = waits.get(at) ?? (pool !== undefined && stuck?.has(at) ? poolEdge(at, pool) : undefined);
      if (!w || path.some((p) => p.from === w.from)) return null;
      path.push(w);
      if (w.to === start) return path;
      at = w.to;
    }
  };

  /** What may end a cycle through a pool or a helper: the pools' acquire timeouts, `statement_timeout` for its database waits. */
  const breakers = (cycle: readonly Wait[]): string[] => {
    const out: string[] = [];
    for (const w of cycle) {
      const p = w.on === 'pool' ? poolWaits.get(w.from) : undefined;
      const limitMs = p?.kind === 'app' && p.process !== '' ? scenario.processes?.find((x) => x.id === p.process)?.acquireTimeoutMs : undefined;
      if (limitMs !== undefined) out.push(`process ${p!.process}'s acquire timeout (${fmtMs(limitMs)})`);
    }
    const st = scenario.database.statementTimeoutMs;
    if (st !== undefined && cycle.some((w) => w.on === 'db')) out.push(`statement_timeout (${fmtMs(st)})`);
    return [...new Set(out)];
  };

  const check = (e: CheckedEvent): void => {
    const stuck = poolWaits.size > 0 ? stuckWorkers() : null;
    for (const start of [...new Set([...waits.keys(), ...poolWaits.keys()])].sort()) {
      const cycle = cycleFrom(start, stuck);
      if (!cycle || cycle.every((w) => w.on === 'db' && w.viaHelper === undefined)) continue;
      const key = cycle.map((w) => w.from).sort().join('|');
      if (reported.has(key)) continue;
      reported.add(key);
      const names = [...cycle.map((w) => w.from), start].join('→');
      const ids = [...new Set([...cycle.map((w) => w.eventId), e.id])].sort((a, b) => Number(a.slice(1)) - Number(b.slice(1)));
      // Cycles of leases and database waits keep their wording; one through a pool or a helper says what can end it.
      const throughApp = cycle.some((w) => w.on === 'pool' || w.viaHelper !== undefined);
      const ends = breakers(cycle);
      const tail = !throughApp ? 'PostgreSQL cannot see the wait outside the database, so nothing breaks it'
        : `PostgreSQL cannot see the wait outside the database, so ${ends.length === 0 ? 'nothing breaks it' : `only ${ends.join(' or ')} will end it, failing a job`}`;
      log.publish({
        invariant: 'noWaitCycle',
        severity: 'violation',
        message: `stuck: wait cycle ${names} (${cycle.map((w) => `${w.from} waits for ${w.what}`).join('; ')}); ${tail}`,
        eventIds: ids,
        cycle: cycle.map(({ from, to, on, what, viaHelper }) => (viaHelper === undefined ? { from, to, on, what } : { from, to, on, what, viaHelper })),
      } satisfies Finding);
    }
  };

  return {
    kind: 'noWaitCycle',
    findings: log.findings,
    onEvent(e) {
      track(e);
      if (waits.size > 1 || poolWaits.size > 0 || [...waits.values()].some((w) => w.from === w.to)) check(e);
    },
    finish() {},
  };
}
