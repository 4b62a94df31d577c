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
 * worker is done or crashed; a wait for a lease also ends when the key is freed (released, deleted,
 * expired; a forced expiry in Redis is read from its fault event): the
 * waiter's next try takes it, so it no longer waits for the key's last holder. A key a clock jump
 * expires early or a failover loses carries no lease event: such a wait ends at the waiter's next
 * successful try.
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
import { etcdCallOf, poolCallOf, poolerCallOf, redisCallOf, sqlCallOf } from '../engine/trace';
import type { CheckerContext, Finding, InvariantChecker, WaitCycleEdge } from './types';
import { FindingLog } from './types';
import type { DbReply } from '../resources/sqlTypes';
import { fmtMs } from '../engine/fmt';

/** The SQLSTATE of a statement that failed, if the call is one. */
function sqlErrorCode(call: NonNullable<ReturnType<typeof sqlCallOf>>): string | undefined {
  return call.reply.status === 'error' ? call.reply.error.code : undefined;
}

/** A COMMIT or ROLLBACK that went through (its session's locks are released), if the call is one. */
function transactionEnd(call: NonNullable<ReturnType<typeof sqlCallOf>>): 'commit' | 'rollback' | undefined {
  if (call.reply.status !== 'ok') return undefined;
  return call.command.op === 'commit' || call.command.op === 'rollback' ? call.command.op : undefined;
}

/** The database reply of a statement that waits, if the call is one. */
function waitsReply(call: ReturnType<typeof sqlCallOf>): Extract<DbReply, { status: 'waits' }> | undefined {
  if (call === undefined) return undefined;
  const { reply } = call;
  return reply.status === 'waits' ? reply : undefined;
}

interface Wait extends WaitCycleEdge {
  readonly eventId: string;
  /** For a wait for a lease: its key (the wait ends when that key is freed). */
  readonly key?: string;
  /** A database wait of an advisory lock request: `mechanism.acquireTimeoutMs` is its `lock_timeout`. */
  readonly lockRequest?: true;
}

/** A wait for any connection of a pool: the application's pool of a process (`process`; '' the shared one), or PgBouncer's server connections. */
interface PoolWait {
  readonly kind: 'app' | 'pooler';
  readonly process: string;
  readonly helper: boolean;
  readonly eventId: string;
}

/** How a lease's holder lost it, by the lease event's `op`. */
const LEASE_GONE: Readonly<Record<'released' | 'deleted' | 'expired', string>> = { released: 'was released', deleted: 'was deleted', expired: 'expired' };

/** What the SQLSTATE of a failed statement says about who ended its wait (PostgreSQL "Appendix A. Error Codes"; ../shared/semantics.md). */
const ENDED_BY_CODE: Readonly<Record<string, (who: string) => string>> = {
  '57014': (who) => `statement_timeout cancelled ${who}'s statement (57014)`,
  '55P03': (who) => `lock_timeout cancelled ${who}'s wait (55P03)`,
  '40P01': (who) => `PostgreSQL's deadlock check failed ${who}'s statement (40P01)`,
  '25P03': (who) => `the server ended ${who}'s session (idle_in_transaction_session_timeout, 25P03)`,
};

/**
 * What ended `who`'s wait at `e`, in words from the event's data (never its texts). `letGo`: what
 * the worker `who` waited for in the database did at this instant to let it through, if anything
 * (a waiter is let through at the instant the lock is released).
 */
function endedBy(e: CheckedEvent, who: string, letGo: string | undefined): string {
  if (e.actor !== who) return `${who} stopped waiting`;
  const sqlCall = sqlCallOf(e);
  if (sqlCall !== undefined) {
    const failed = sqlErrorCode(sqlCall);
    if (failed !== undefined) return ENDED_BY_CODE[failed]?.(who) ?? `${who}'s statement failed (${failed})`;
    return `${letGo === undefined ? '' : `${letGo}, and `}${who}'s statement went through`;
  }
  const poolCall = poolCallOf(e);
  if (poolCall?.reply.status === 'timeout') return `${who}'s pool acquire timeout fired`;
  if (poolCall !== undefined || poolerCallOf(e) !== undefined) return `${who} got a connection`;
  const redisCall = redisCallOf(e);
  if (redisCall?.command.op === 'SET' && redisCall.reply.kind === 'ok') return `${who} got ${redisCall.command.key}`;
  const etcdCall = etcdCallOf(e);
  if (etcdCall?.command.op === 'txnAcquire' && etcdCall.reply.op === 'txnAcquire' && etcdCall.reply.succeeded) return `${who} got ${etcdCall.command.key}`;
  if (e.state === 'crashed') return `${who} crashed`;
  if (e.state === 'done') return `${who} gave up waiting and ended its job`;
  return `${who} stopped waiting`;
}

/** The `noWaitCycle` checker (see the module comment). Publishes one finding per cycle (by its set of workers). */
export function noWaitCycle({ scenario, listener }: CheckerContext): InvariantChecker {
  const log = new FindingLog(listener);
  /**
   * Client connection (or, without a pooler, database session) → the worker holding it. The admin
   * script's session has no entry: it never waits outside the database, so no cycle the checker
   * reports runs through it (a wait for it is a wait for no one here).
   */
  const sessionOwner = new Map<string, string>();
  /** Connection → the process whose pool it belongs to ('' = the shared pool), from the `connect` that lent it. */
  const connPool = new Map<string, string>();
  /** Connections a helper borrowed (a second connection of its worker). */
  const helperConns = new Set<string>();
  /** Behind a pooler: server connection → the client connection linked to it now. */
  const backendClient = new Map<string, string>();
  /** Lease key → the worker believed to hold it, by the lease events. */
  const leaseHolder = new Map<string, string>();
  const waits = new Map<string, Wait>();
  /** Refused tries for the lock in a row, per worker (reset by a grant, a crash or the job's end). */
  const refusedTries = new Map<string, number>();
  const poolWaits = new Map<string, PoolWait>();
  const reported = new Set<string>();
  /** Lease key → how its last holder lost it, and when (a cycle through that lease may end there). */
  const leaseGone = new Map<string, { readonly atMs: number; readonly words: string }>();
  /** Worker → the last thing it did that releases database locks (a COMMIT, a ROLLBACK, its session ended by the server), and when. */
  const letGo = new Map<string, { readonly atMs: number; readonly words: string }>();
  /** The reported cycles still going on: their finding, their waits and the words up to what ends them. */
  const open: { readonly finding: Finding; readonly edges: readonly Wait[]; readonly stuckFor: string }[] = [];

  /** The worker holding a database session now: its client connection's borrower (behind a pooler, through the link). */
  const ownerOf = (session: string): string | undefined => sessionOwner.get(backendClient.get(session) ?? session);
  /** The client connection a database session belongs to (itself without a pooler). */
  const clientOf = (session: string): string => backendClient.get(session) ?? session;

  /** `key` is free from `atMs` (`how`: how its holder lost it): a waiter for it no longer waits for that holder. */
  const freed = (key: string, how: string, atMs: number): void => {
    const was = leaseHolder.get(key);
    if (was !== undefined) leaseGone.set(key, { atMs, words: `${was}'s lease ${key} ${how}` });
    leaseHolder.delete(key);
    // Its next try takes the key (or waits for whoever took it first).
    for (const [who, w] of waits) if (w.on === 'lease' && w.key === key) waits.delete(who);
  };

  const track = (e: CheckedEvent): void => {
    const poolCall = poolCallOf(e);
    if (poolCall !== undefined) {
      const { command, reply } = poolCall;
      if (command.op !== 'connect') {
        // A return or a destroy: the connection is nobody's now.
        sessionOwner.delete(command.connection);
        helperConns.delete(command.connection);
      } else if (reply.status === 'ok') {
        sessionOwner.set(reply.connection, poolCall.caller);
        connPool.set(reply.connection, command.process ?? '');
        if (command.helper === true) helperConns.add(reply.connection);
        else helperConns.delete(reply.connection);
      } else if (reply.status === 'waits') poolWaits.set(e.actor, { kind: 'app', process: command.process ?? '', helper: command.helper === true, eventId: e.id });
    }
    const poolerCall = poolerCallOf(e);
    if (poolerCall !== undefined) {
      const { command, reply } = poolerCall;
      if (reply.status === 'ok') backendClient.set(reply.server, command.client);
      else if (reply.status === 'waits') poolWaits.set(e.actor, { kind: 'pooler', process: '', helper: helperConns.has(command.client), eventId: e.id });
      // Any other reply that names a server connection unlinked it from the client (a close: discarded, or the server connection closed).
      else if (reply.status !== 'none') backendClient.delete(reply.server);
    }
    const sql = sqlCallOf(e);
    const txEnd = sql === undefined ? undefined : transactionEnd(sql);
    if (txEnd !== undefined) letGo.set(e.actor, { atMs: e.atMs, words: `${e.actor} ${txEnd === 'commit' ? 'committed' : 'rolled back'}` });
    if (e.data?.t === 'sessionEnded') {
      const owner = ownerOf(e.data.session);
      if (owner !== undefined) letGo.set(owner, { atMs: e.atMs, words: `the server ended ${owner}'s session ${clientOf(e.data.session)} (idle_in_transaction_session_timeout, 25P03)` });
    }
    if (sql?.client !== undefined) {
      if (sql.unlinked === true) backendClient.delete(sql.caller);
      else backendClient.set(sql.caller, sql.client);
    }
    if (e.data?.t === 'lease') {
      const { op, key, worker } = e.data;
      if ((op === 'acquired' || op === 'renewed') && worker !== undefined) leaseHolder.set(key, worker);
      else if (op === 'released' || op === 'deleted' || op === 'expired') freed(key, LEASE_GONE[op], e.atMs);
    }
    // A forced expiry in Redis says so only in its fault event (in etcd the lease's expiry is a lease event of its own).
    if (e.data?.t === 'fault' && e.data.kind === 'expireLease' && scenario.lockService === undefined) freed(scenario.lease.key, 'was forced to expire', e.atMs);
    if (e.state === 'done' || e.state === 'crashed') {
      waits.delete(e.actor);
      poolWaits.delete(e.actor);
      refusedTries.delete(e.actor);
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
        // Only a worker's lock request waits on an advisory lock (a try-lock never does).
        const sqlCall = sql;
        const lockRequest = sqlCall.command.op === 'advisory' ? { lockRequest: true as const } : {};
        waits.set(e.actor, fromHelper
          ? { from: e.actor, to, on: 'db', what: `${on}, from its helper's connection ${helperConn}, while its own connection waits in the application for that helper`, viaHelper: helperConn, eventId: e.id, ...lockRequest }
          : { from: e.actor, to, on: 'db', what: on, eventId: e.id, ...lockRequest });
      }
    }
    const etcdCall = etcdCallOf(e);
    // An etcd lock's acquire transaction: a failed compare means the key is held (like SET NX → nil).
    if (etcdCall?.command.op === 'txnAcquire') {
      const { key } = etcdCall.command;
      if (etcdCall.reply.op === 'txnAcquire' && etcdCall.reply.succeeded) granted(e.actor);
      else {
        refused(e.actor);
        if (etcdCall.reply.op === 'txnAcquire') waitForLease(e, key, (holder) => `${holder}'s lock ${key} (etcd)`);
      }
    }
    const redisCall = redisCallOf(e);
    if (redisCall?.command.op === 'SET' && redisCall.command.nx === true) {
      const { key } = redisCall.command;
      if (redisCall.reply.kind === 'ok') granted(e.actor);
      else {
        // A try that failed otherwise (an error, no reply) counts as a try too.
        refused(e.actor);
        if (redisCall.reply.kind === 'nil') waitForLease(e, key, (holder) => `${holder}'s lease ${key}`);
      }
    }
  };

  /** The worker got the lock: it waits no more, and its next refusal starts a new count of tries. */
  const granted = (worker: string): void => {
    waits.delete(worker);
    refusedTries.delete(worker);
  };

  /** A try for the lock that did not take it. */
  const refused = (worker: string): void => void refusedTries.set(worker, (refusedTries.get(worker) ?? 0) + 1);

  /**
   * A try for `key` found it held: the worker now waits for its holder (unless it is the holder, or
   * already waits for it) — if it will try again. A client that does not wait (`client.onBusy`
   * `skip`, or `retry` on its last try: `retries` + 1 tries in all) gives up at this refusal, so a
   * refusal that is its first and last try starts no wait (etcdLease.ts and coordination.ts count
   * tries the same way). A try the trace does not show (an etcd lease grant that failed) is not
   * counted: the refusal is then taken for a wait, as for a client that waits.
   */
  const waitForLease = (e: CheckedEvent, key: string, what: (holder: string) => string): void => {
    const tries = refusedTries.get(e.actor) ?? 1;
    const client = scenario.client;
    const lastTry = client?.onBusy === 'skip' || (client?.onBusy === 'retry' && tries > client.retries);
    const holder = leaseHolder.get(key);
    if (holder === undefined || holder === e.actor || waits.get(e.actor)?.to === holder || (lastTry && !waits.has(e.actor))) return;
    waits.set(e.actor, { from: e.actor, to: holder, on: 'lease', what: what(holder), eventId: e.id, key });
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
      ? `a second connection from ${pool} for its helper, while it keeps ${own.join(' and ')} (all ${holders.length} in use: ${held})`
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

  /**
   * The limits the scenario sets that may end a cycle, failing a job: a process pool's acquire
   * timeout for a wait for its connections, the lock client's acquire timeout for a wait for a
   * lease (`mechanism.acquireTimeoutMs`: it stops retrying), `lock_timeout` for an advisory lock
   * request (`mechanism.acquireTimeoutMs`), `statement_timeout` for a wait in the database.
   */
  const breakers = (cycle: readonly Wait[]): string[] => {
    const out: string[] = [];
    for (const w of cycle) {
      const p = w.on === 'pool' ? poolWaits.get(w.from) : undefined;
      // Only a process's own pool has an acquire timeout (the shared pool's and PgBouncer's waits name process '', which no process id is).
      const limitMs = p === undefined ? undefined : scenario.processes?.find((x) => x.id === p.process)?.acquireTimeoutMs;
      if (limitMs !== undefined) out.push(`process ${p!.process}'s acquire timeout (${fmtMs(limitMs)})`);
      const giveUpMs = w.on === 'lease' && (scenario.client?.onBusy ?? 'wait') === 'wait' ? scenario.mechanism.acquireTimeoutMs : undefined;
      if (giveUpMs !== undefined && giveUpMs !== null) out.push(`${w.from}'s acquire timeout (${fmtMs(giveUpMs)})`);
      const lockTimeoutMs = w.lockRequest === true ? scenario.mechanism.acquireTimeoutMs : undefined;
      if (lockTimeoutMs !== undefined && lockTimeoutMs !== null) out.push(`lock_timeout (${fmtMs(lockTimeoutMs)})`);
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
      // What the scenario sets that may end it; whether something does is said when it happens (`ended`).
      const ends = breakers(cycle);
      const stuckFor = `stuck: wait cycle ${names} (${cycle.map((w) => `${w.from} waits for ${w.what}`).join('; ')}); PostgreSQL cannot see the wait outside the database`;
      const finding = log.publish({
        invariant: 'noWaitCycle',
        severity: 'violation',
        message: `${stuckFor}, so its deadlock check does not break it${ends.length === 0 ? '' : `; ${ends.join(' or ')} may end it, failing a job`}`,
        eventIds: ids,
        cycle: cycle.map(({ from, to, on, what, viaHelper }) => (viaHelper === undefined ? { from, to, on, what } : { from, to, on, what, viaHelper })),
      } satisfies Finding);
      open.push({ finding, edges: cycle, stuckFor });
    }
  };

  /**
   * What the one waited for did at `e` that let `w`'s waiter through: released its database locks,
   * or lost the lease `w` waits for (it expired, was released or deleted).
   */
  const why = (w: Wait, e: CheckedEvent): string | undefined => {
    if (w.on === 'db') {
      const g = letGo.get(w.to);
      return g?.atMs === e.atMs ? g.words : undefined;
    }
    // Only a wait for a lease has a key.
    const gone = w.key === undefined ? undefined : leaseGone.get(w.key);
    return gone?.atMs === e.atMs ? gone.words : undefined;
  };

  /** What ended `over`, one of a cycle's waits, at `e`: its lease freed (the waiter's next try takes it), a wait for another worker, or `endedBy`. */
  const how = (over: Wait, e: CheckedEvent): string => {
    const letGo = why(over, e);
    if (over.on === 'lease' && letGo !== undefined) return `${letGo}, so ${over.from} no longer waited for ${over.to}`;
    // Still waiting, but for someone else now (the key it tries changed hands): say for whom.
    const now = waits.get(over.from);
    if (now !== undefined && now.to !== over.to) return `${over.from} waited for ${now.what} instead`;
    return endedBy(e, over.from, letGo);
  };

  /**
   * Ends the reported cycles one of whose waits is over at `e` (its waiter stopped waiting, or now
   * waits for another): the finding is revised to say until when the cycle lasted and what ended
   * it, citing `e` — a lease's TTL, a timeout or a crash can end a cycle PostgreSQL never sees.
   */
  const ended = (e: CheckedEvent): void => {
    for (let i = open.length - 1; i >= 0; i--) {
      const c = open[i]!;
      const over = c.edges.find((w) => (w.on === 'pool' ? !poolWaits.has(w.from) : waits.get(w.from)?.to !== w.to));
      if (over === undefined) continue;
      open.splice(i, 1);
      log.revise(c.finding, {
        ...c.finding,
        message: `${c.stuckFor}: it lasted until ${fmtMs(e.atMs)}, when ${how(over, e)}`,
        eventIds: [...new Set([...c.finding.eventIds, e.id])],
      });
    }
  };

  return {
    kind: 'noWaitCycle',
    findings: log.findings,
    onEvent(e) {
      track(e);
      if (open.length > 0) ended(e);
      if (waits.size > 1 || poolWaits.size > 0 || [...waits.values()].some((w) => w.from === w.to)) check(e);
    },
    finish() {},
  };
}
