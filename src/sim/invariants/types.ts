/**
 * Invariant checkers: one small module per invariant, each fed every trace event as data (a
 * `CheckedEvent`: no rendered text), each citing the event ids that broke it. A checker needs no
 * World: it runs during a run or over a stored trace (`checkTrace`), given the scenario.
 */
import type { CheckedEvent } from '../engine/trace';
import type { InvariantKind, Scenario } from '../scenario/schema';

/** A broken invariant (or, for a harmless duplicate, a redundancy note). Immutable once published. */
export interface Finding {
  readonly invariant: InvariantKind;
  /**
   * `violation` breaks the verdict; `redundant` is a duplicate the scenario declared harmless;
   * `unchecked` is a duplicate no declared invariant checks (named so the verdict is never silent
   * about a duplicate the timeline marks). Only `violation` breaks the verdict.
   */
  readonly severity: 'violation' | 'redundant' | 'unchecked';
  /** In words, e.g. "2 rows exist for order_id = 42 in invoices". */
  readonly message: string;
  /** Ids of the events that broke it, in trace order. */
  readonly eventIds: readonly string[];
  /** For a wait cycle (`noWaitCycle`): its edges in order, the last one leading back to the first worker — for the UI to draw. */
  readonly cycle?: readonly WaitCycleEdge[];
  /**
   * For a finding about a state still open when the run ended ("still waiting when the run
   * ended", "still not acknowledged when the run ended"): the virtual ms it was judged up to, so a
   * reader (the timeline's axis) reaches the instant the finding speaks of. Absent otherwise.
   */
  readonly untilMs?: number;
}

/**
 * One wait of a cycle between workers: `from` waits for `to`, in the database or outside it (`lease`,
 * or `pool`: a pooled connection — of the application's pool or PgBouncer's — that `to` holds; `from`
 * may be `to` itself when it holds the connection its helper waits for).
 */
export interface WaitCycleEdge {
  readonly from: string;
  readonly to: string;
  readonly on: 'db' | 'lease' | 'pool';
  /**
   * What it waits for, in words: `row lock on accounts row id=1 held by A (session c1), in the
   * database`, `B's lease lease:export`, `a connection from process web-1's pool (all 2 in use: c1 by A, c2 by B)`.
   */
  readonly what: string;
  /**
   * A database wait made on the helper's connection (`c2`) of a step with `helper`: `from`'s own
   * connection waits for that helper in the application, so PostgreSQL sees only half of the
   * cycle (and `to` may be `from` itself). Absent otherwise.
   */
  readonly viaHelper?: string;
}

/**
 * Hears every finding as it is published. A later finding may revise an earlier one (a count
 * grew, another duplicate happened): then `revises` is the finding it replaces in the verdict.
 */
export type FindingListener = (finding: Finding, revises: Finding | null) => void;

/** A checker: sees every event (as data), then the end of the run. */
export interface InvariantChecker {
  readonly kind: InvariantKind;
  onEvent(event: CheckedEvent): void;
  /** The run (or the stored trace) ended at `endMs`, after `last` (undefined for an empty trace). */
  finish(endMs: number, last: CheckedEvent | undefined): void;
  /** Findings so far, in publication order; a revision takes the place of the finding it revises. */
  readonly findings: readonly Finding[];
}

/** What a checker is built from: the scenario (static data) and who hears its findings. */
export interface CheckerContext {
  readonly scenario: Scenario;
  readonly listener?: FindingListener | undefined;
}

/** A checker's published findings: `publish` adds one, `revise` replaces one with a new, revised finding. */
export class FindingLog {
  readonly findings: Finding[] = [];
  constructor(private readonly listener: FindingListener | undefined) {}

  publish(f: Finding): Finding {
    freeze(f);
    this.findings.push(f);
    this.listener?.(f, null);
    return f;
  }

  /** Replaces `old` (which stays as it was) with `next`; returns `next`. */
  revise(old: Finding, next: Finding): Finding {
    const i = this.findings.indexOf(old);
    if (i < 0) throw new Error('revise: the finding was not published by this checker');
    freeze(next);
    this.findings[i] = next;
    this.listener?.(next, old);
    return next;
  }
}

function freeze(f: Finding): void {
  Object.freeze(f.eventIds);
  if (f.cycle) Object.freeze(f.cycle);
  Object.freeze(f);
}
