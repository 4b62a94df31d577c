/**
 * The trace: what happened in a run, event by event. Every event has a stable id, a virtual time,
 * an actor and a one-sentence narration; resource operations also carry the literal command (SQL,
 * Redis or HTTP, as a user would type it) and the reply.
 */
import { hashString } from './hash';
import type { WorkerStateName } from '../workers/workerMachine';

/** The trace kinds of the built-in resources and of the engine itself. */
export type BuiltinTraceKind = 'sql' | 'redis' | 'destination' | 'pool' | 'step' | 'fault' | 'expiry' | 'outcome';

/**
 * Which part of the world an event belongs to (also the timeline lane family): a built-in kind,
 * or the `traceKind` of a registered resource (src/sim/resources/resource.ts).
 */
export type TraceKind = BuiltinTraceKind | (string & {});

/** Structured facts invariant checkers and the UI read (the text fields are for people). */
export type EventData =
  | { readonly t: 'write'; readonly writeId: number; readonly phase: 'begin' | 'end' }
  | { readonly t: 'commit'; readonly session: string }
  /**
   * A lease changed hands or state. `worker` is whose lease it is (or who acted); `fencingToken`
   * comes with `fenced`; `deletedOwner` names whose lease a plain DEL removed.
   */
  | {
      readonly t: 'lease';
      readonly op: 'acquired' | 'fenced' | 'released' | 'renewed' | 'renewFailed' | 'deleted' | 'expired' | 'lost';
      readonly key: string;
      readonly worker?: string;
      readonly fencingToken?: number;
      readonly deletedOwner?: string;
    }
  | { readonly t: 'wait'; readonly on: 'db' | 'pool' | 'lease'; readonly phase: 'begin' | 'end'; readonly sinceMs: number }
  | { readonly t: 'step'; readonly step: number; readonly name: string }
  | { readonly t: 'fault'; readonly faultIndex: number; readonly kind: string };

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
  /** The actor's machine state after the event (workers only). */
  readonly state?: WorkerStateName;
  readonly data?: EventData;
}

/** A stable hash of the whole trace (ids, times, actors, commands, replies, narration, states). */
export function traceHash(events: readonly TraceEvent[]): string {
  return hashString(JSON.stringify(events));
}
