/**
 * The trace: what happened in a run, event by event. Every event has a stable id, a virtual time,
 * an actor and a one-sentence narration; resource operations also carry the literal command (SQL,
 * Redis or HTTP, as a user would type it) and the reply.
 */
import { hashString } from './hash';
import type { Beliefs, WorkerStateName } from '../workers/workerMachine';
import type { DbReply, Row, Stmt } from '../resources/sqlTypes';
import type { RedisCmd, RedisReply } from '../resources/redisTypes';
import type { DestinationWrite } from '../resources/destination';
import type { DestinationCmd, PoolCmd, PoolReply } from '../resources/builtinResources';
import type { EtcdCmd, EtcdReply } from '../resources/lockService';
import type { PoolerCmd, PoolerReply } from '../resources/pooler';

/** The trace kinds of the built-in resources and of the engine itself. */
export type BuiltinTraceKind = 'sql' | 'redis' | 'etcd' | 'destination' | 'pool' | 'step' | 'fault' | 'expiry' | 'outcome';

/**
 * Which part of the world an event belongs to (also the timeline lane family): a built-in kind,
 * or the `traceKind` of a registered resource (src/sim/resources/resource.ts).
 */
export type TraceKind = BuiltinTraceKind | (string & {});

/** Structured facts invariant checkers and the UI read (the text fields are for people). */
export type EventData =
  | { readonly t: 'write'; readonly writeId: number; readonly phase: 'begin' | 'end' }
  | { readonly t: 'commit'; readonly session: string }
  /** The server ended a session on its own (`idle_in_transaction_session_timeout`, FATAL 25P03): its transaction rolled back, its locks went. */
  | { readonly t: 'sessionEnded'; readonly session: string }
  /**
   * A lease changed hands or state. `worker` is whose lease it is (or who acted); `fencingToken`
   * comes with `fenced` (Redis `INCR`), or with `acquired` when the grant itself carries it (the
   * revision of an etcd lock's put); `deletedOwner` names whose lease a plain DEL removed. A key a
   * failover or a clock jump loses has no lease event (the fault's own event says so).
   */
  | {
      readonly t: 'lease';
      readonly op: 'acquired' | 'fenced' | 'released' | 'renewed' | 'renewFailed' | 'deleted' | 'expired';
      readonly key: string;
      readonly worker?: string;
      readonly fencingToken?: number;
      readonly deletedOwner?: string;
    }
  | { readonly t: 'wait'; readonly on: 'db' | 'pool' | 'lease'; readonly phase: 'begin' | 'end'; readonly sinceMs: number }
  | { readonly t: 'step'; readonly step: number; readonly name: string }
  | { readonly t: 'fault'; readonly faultIndex: number; readonly kind: string }
  /** A queue's message became visible again on its own (its visibility timeout passed, or a stalled-job checker moved it back). */
  | { readonly t: 'queue'; readonly op: 'visible'; readonly messageId: string; readonly job: string };

/**
 * The resource command behind an event, as data: which resource, who called it (a database
 * session, a worker), the command and the reply. The event's `command` and `reply` texts are
 * rendered from these (see each resource's `renderCommand` / `renderReply`).
 */
export type ResourceCall = BuiltinCall | { readonly resource: string; readonly caller: string; readonly command: unknown; readonly reply: unknown };

/** The calls of the built-in resources (narrow an event's `call` with `sqlCallOf` & co.). */
export type BuiltinCall =
  | {
      readonly resource: 'db';
      /** The database session (connection id, or `admin`). */
      readonly caller: string;
      readonly command: Stmt;
      readonly reply: DbReply;
      /** For INSERT, UPDATE and COMMIT: whether the session is inside an explicit transaction after the statement. */
      readonly inTransaction?: boolean;
      /** Committed rows after the statement (what other sessions see): for INSERT and UPDATE of the statement's table, for COMMIT of every table. */
      readonly committed?: Readonly<Record<string, readonly Row[]>>;
      /** Behind a pooler: the client connection (`c1`) whose statement ran on the server connection `caller` (`s2`). */
      readonly client?: string;
      /** Behind a pooler in transaction mode: after this statement the server connection went back to PgBouncer's pool (linked to no client). */
      readonly unlinked?: true;
    }
  | {
      readonly resource: 'redis';
      readonly caller: string;
      readonly command: RedisCmd;
      readonly reply: RedisReply;
      /** The caller was cut off from the lease store: the command never arrived and `reply` is the client's timeout. */
      readonly cutOff?: true;
    }
  /** The lock service (etcd, `lockService`): one etcdctl request and its answer. */
  | {
      readonly resource: 'etcd';
      readonly caller: string;
      readonly command: EtcdCmd;
      readonly reply: EtcdReply;
      /** The caller was cut off from etcd: the request never arrived and `reply` is the client's timeout. */
      readonly cutOff?: true;
    }
  | { readonly resource: 'pool'; readonly caller: string; readonly command: PoolCmd; readonly reply: PoolReply }
  /** PgBouncer (`database.pooler`): a client connection linked to a server connection, unlinked, or closed; `caller` is the worker. */
  | { readonly resource: 'pooler'; readonly caller: string; readonly command: PoolerCmd; readonly reply: PoolerReply }
  /** `reply` is a copy of the write as it stands after the command. */
  | { readonly resource: 'destination'; readonly caller: string; readonly command: DestinationCmd; readonly reply: DestinationWrite };

/** The call of the built-in resource `resource` behind an event, if any (the one narrowing the accessors below share). */
function builtinCallOf<R extends BuiltinCall['resource']>(e: { readonly call?: ResourceCall }, resource: R): Extract<BuiltinCall, { resource: R }> | undefined {
  return e.call?.resource === resource ? (e.call as Extract<BuiltinCall, { resource: R }>) : undefined;
}

/** The database call behind an event, if any. */
export const sqlCallOf = (e: { readonly call?: ResourceCall }) => builtinCallOf(e, 'db');

/** The lock service (etcd) call behind an event, if any. */
export const etcdCallOf = (e: { readonly call?: ResourceCall }) => builtinCallOf(e, 'etcd');

/** The Redis call behind an event, if any. */
export const redisCallOf = (e: { readonly call?: ResourceCall }) => builtinCallOf(e, 'redis');

/** The application connection pool's call behind an event, if any. */
export const poolCallOf = (e: { readonly call?: ResourceCall }) => builtinCallOf(e, 'pool');

/** PgBouncer's call behind an event, if any. */
export const poolerCallOf = (e: { readonly call?: ResourceCall }) => builtinCallOf(e, 'pooler');

/** The destination call behind an event, if any. */
export const destinationCallOf = (e: { readonly call?: ResourceCall }) => builtinCallOf(e, 'destination');

/** One event of a run. */
export interface TraceEvent {
  /** Stable id: `e1`, `e2`, … in order; the same scenario always gives the same ids. */
  readonly id: string;
  /** Virtual time, integer ms from the start of the run. */
  readonly atMs: number;
  /** Worker id (`A`), `admin`, `operator`, `redis` (expiry), `fault`. */
  readonly actor: string;
  readonly kind: TraceKind;
  /** Literal command, e.g. `SET lease:export 7f3a NX PX 30000`. */
  readonly command?: string;
  /** Reply or error, e.g. `OK`, `(nil)`, `ERROR 23505 …`, `waits (…)`. */
  readonly reply?: string;
  /** One sentence in plain words: what happened and why it matters. */
  readonly narration: string;
  /**
   * The narration without its explanation part, when it has one (worded with `explained`,
   * ./narration.ts): what happened, without the words that name a missing mechanism or the fix.
   * Interview mode shows this. Absent when the whole sentence is fact, and in a text-less run.
   * Not part of the trace hash (the narration is, whole).
   */
  readonly fact?: string;
  /** The actor's machine state after the event (workers only). */
  readonly state?: WorkerStateName;
  readonly data?: EventData;
  /** What the actor believes after the event (workers only). Not part of the trace hash. */
  readonly beliefs?: Beliefs;
  /** The resource command behind the event, as data. Not part of the trace hash. */
  readonly call?: ResourceCall;
  /**
   * Workers only: the index (0-based, into the worker's `steps`) of the job step the worker was
   * running when the event was emitted. Lets a checker tell what a worker was doing (a protected
   * step or not) from the trace alone. Not part of the trace hash.
   */
  readonly step?: number;
}

/**
 * An event as invariant checkers see it: data only. The texts (`command`, `reply`,
 * `narration`) are for people and are rendered from the data; a checker cannot read them.
 */
export type CheckedEvent = Omit<TraceEvent, 'command' | 'reply' | 'narration' | 'fact'>;



/**
 * A stable hash of the whole trace (ids, times, actors, commands, replies, narration, states,
 * data). The structured `beliefs`, `call` and `step` are left out: the texts are rendered from
 * them (or, for `step`, it adds nothing a person reads), and the hash of a trace stays what it was
 * before events carried them.
 */
export function traceHash(events: readonly TraceEvent[]): string {
  // The hashed fields, in the order World.emit sets them (JSON.stringify drops the undefined ones).
  const hashed = events.map((e) => ({ id: e.id, atMs: e.atMs, actor: e.actor, kind: e.kind, narration: e.narration, command: e.command, reply: e.reply, state: e.state, data: e.data }));
  return hashString(JSON.stringify(hashed));
}
