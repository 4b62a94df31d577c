/**
 * One interface for every resource of the simulated world (database, connection pool, lease
 * store, destination, and whatever comes next: a pooler, a queue), and the registry the World
 * builds its resources from. A resource executes a command for a caller at a virtual time and
 * answers with a reply plus the completions of earlier callers' commands that stopped waiting;
 * it renders commands and replies as a user would type and read them; it gives a snapshot for
 * the inspector; and it says when it next changes on its own (a TTL running out).
 *
 * Adding a resource: write its module (implementing `Resource`), its tests, and one
 * `registerResource` call (built-ins: builtinResources.ts). The World creates it for every run,
 * takes its part of the WorldSnapshot from `snapshot`, and wakes it at `nextWakeMs`.
 */
import type { Scenario } from '../scenario/schema';

/** An earlier command of `caller` that had to wait and has now been answered. */
export interface Completion<Cmd, Reply> {
  /** Who sent it: a database session id, a worker id — whatever the resource calls its callers. */
  readonly caller: string;
  readonly command: Cmd;
  readonly reply: Reply;
}

/** What one command did: the caller's reply, and other callers' waiting commands it let through. */
export interface Execution<Cmd, Reply> {
  readonly reply: Reply;
  readonly completions: readonly Completion<Cmd, Reply>[];
}

/** Something a resource did on its own at a wake-up (a key expired), for the trace. */
export interface ResourceNotice {
  readonly actor: string;
  /** Trace kind of its event (default: the resource's `traceKind`), e.g. `expiry`. */
  readonly kind?: string;
  readonly narration: string;
  /** Structured facts for checkers and the UI (see EventData in src/sim/engine/trace.ts). */
  readonly data?: unknown;
}

/** A resource of the simulated world. Pure and deterministic: time is only the `nowMs` it is given. */
export interface Resource<Cmd = unknown, Reply = unknown, Snapshot = unknown> {
  /** Registry name (`db`, `redis`, `pool`, `destination`, …). */
  readonly name: string;
  /** Trace kind of its events (the timeline lane family): `sql`, `redis`, `pool`, `destination`, … */
  readonly traceKind: string;
  /** Executes `cmd` for `caller` at virtual time `nowMs`. A reply for which `waits` is true is answered later, as a completion. */
  execute(nowMs: number, caller: string, cmd: Cmd): Execution<Cmd, Reply>;
  /** The reply means the caller waits (its command stays with the resource). */
  waits(reply: Reply): boolean;
  /** The literal command, as a user would type it (e.g. `SET lease:export 7f3a NX PX 30000`). */
  renderCommand(cmd: Cmd): string;
  /** The reply as the client prints it (e.g. `OK`, `(nil)`, `ERROR 23505 …`). */
  renderReply(reply: Reply): string;
  /** What the inspector shows of it now. */
  snapshot(nowMs: number): Snapshot;
  /** The next virtual ms at which it changes on its own, or null. */
  nextWakeMs(): number | null;
  /** Lets it change on its own at `nowMs`; returns what happened, for the trace. */
  wake(nowMs: number): readonly ResourceNotice[];
}

/** What a resource's factory may ask of the world being built: the resources registered before it. */
export interface ResourceHost {
  resource<R extends Resource>(name: string): R;
}

/** A registered resource kind. */
export interface ResourceDef<R extends Resource = Resource> {
  readonly name: string;
  /** A fresh resource for one run of the scenario. */
  create(scenario: Scenario, host: ResourceHost): R;
  /** Its fields of the WorldSnapshot (default: `{ [name]: resource.snapshot(nowMs) }`). */
  snapshotFields?(resource: R, nowMs: number, scenario: Scenario): Record<string, unknown>;
}

const defs: ResourceDef[] = [];

/**
 * Registers a resource kind: every World created afterwards has one. Throws if the name is taken.
 * Returns a function that removes it again.
 */
export function registerResource<R extends Resource>(def: ResourceDef<R>): () => void {
  if (defs.some((d) => d.name === def.name)) throw new Error(`resource "${def.name}" is already registered`);
  defs.push(def as unknown as ResourceDef);
  return () => {
    const i = defs.indexOf(def as unknown as ResourceDef);
    if (i >= 0) defs.splice(i, 1);
  };
}

/** The registered resource kinds, in registration order (the order a World creates them in). */
export function resourceDefs(): readonly ResourceDef[] {
  return defs;
}

/** Shared empty completion list. */
export const NO_COMPLETIONS: readonly never[] = [];
