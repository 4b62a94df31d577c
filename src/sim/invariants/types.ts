/**
 * Invariant checkers: one small module per invariant, each fed every trace event as it is
 * emitted (and the world it happened in), each citing the event ids that broke it.
 */
import type { World } from '../engine/world';
import type { TraceEvent } from '../engine/trace';
import type { InvariantKind } from '../scenario/schema';

/** A broken invariant (or, for a harmless duplicate, a redundancy note). */
export interface Finding {
  readonly invariant: InvariantKind;
  /** `violation` breaks the verdict; `redundant` is a duplicate the scenario declared harmless. */
  readonly severity: 'violation' | 'redundant';
  /** In words, e.g. "2 rows exist for order_id = 42 in invoices". */
  message: string;
  /** Ids of the events that broke it, in trace order. */
  eventIds: string[];
}

/** A checker: sees every event, then the end of the run. */
export interface InvariantChecker {
  readonly kind: InvariantKind;
  onEvent(event: TraceEvent, world: World): void;
  finish(world: World): void;
  readonly findings: Finding[];
}
