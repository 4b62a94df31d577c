/**
 * The one definition of a performed effect and of a duplicate effect, read from the trace alone
 * (events' data). The verdict (`effectOnce`, the note on repeats no invariant forbids), the
 * `duplicateEffects` metric and the timeline's DUPLICATE marks all use it.
 *
 * - **Effect performed**: for an `external` job, a destination write the destination performed —
 *   an API call when the API received it and accepted it (not rejected as stale, not deduplicated
 *   by its idempotency key), an upload when it completed and was accepted (an aborted or rejected
 *   upload performed nothing). For an `insertOnce` job, a committed row for the business key (the
 *   COMMIT, or the autocommitted INSERT, that made it visible to other sessions). Read-modify-write
 *   jobs (`debit`, `reserve`) have no effect that can repeat: each worker's update is its own.
 * - **Business key**: the job key the effect is for (`jobKeyFor`: the scenario's `jobKey`, with
 *   `{worker}` replaced by the worker), or an insertOnce job's key columns.
 * - **Duplicate**: an effect performed for a business key that already had one — the second,
 *   third, … effect for that key. Effects for different keys (four payments by four requests)
 *   are never duplicates of each other. (product.md: "an external effect performed more than
 *   once"; semantics.md, "Idempotency keys": the key is the business operation, not the attempt.)
 */
import type { Scenario } from '../scenario/schema';
import { destinationCallOf, sqlCallOf, type CheckedEvent } from '../engine/trace';
import { jobKeyFor } from '../engine/tables';

/** One effect performed, as the trace shows it. */
export interface PerformedEffect {
  /** The event at which the effect happened (the destination performed it, or the row became committed). */
  readonly eventId: string;
  readonly atMs: number;
  /** Who performed it (the event's actor: a worker, or `admin`). */
  readonly worker: string;
  /** The business key it is for (a job key, or an insertOnce row key such as `order_id = 42`). */
  readonly businessKey: string;
  /** The destination write's id for an external job, else null. */
  readonly writeId: number | null;
  /** 1 for the first effect for its business key, 2 for the second, … */
  readonly nth: number;
}

/** An effect whose business key already had one (`nth` ≥ 2). */
export type DuplicateEffect = PerformedEffect;

/**
 * Follows a trace event by event; `note(e)` returns the effect `e` performed, or null. Used by
 * the checkers while a run goes on, and by `performedEffects` over a stored trace.
 */
export class EffectTracker {
  private readonly counts = new Map<string, number>();
  /** insertOnce: committed rows for the key after the latest statement that reported them. */
  private committedRows = 0;
  readonly effects: PerformedEffect[] = [];

  constructor(private readonly scenario: Scenario) {}

  note(e: CheckedEvent): PerformedEffect | null {
    const job = this.scenario.job;
    if (job.kind === 'external') {
      const call = destinationCallOf(e);
      if (e.data?.t !== 'write' || !call) return null;
      const w = call.reply;
      // A refused, replayed, conflicting or aborted write performs nothing (Destination never sets
      // `performed` on one; the consistency property pins it), so the flag alone says whether it did.
      if (!w.performed) return null;
      const performedNow = this.scenario.destination.kind === 'api' ? e.data.phase === 'begin' : e.data.phase === 'end';
      if (!performedNow) return null;
      return this.add(e, w.worker, jobKeyFor(this.scenario, w.worker), w.id);
    }
    if (job.kind !== 'insertOnce') return null;
    const call = sqlCallOf(e);
    if (!call || (call.command.op !== 'commit' && call.command.op !== 'insert')) return null;
    const rows = call.committed?.[job.table];
    if (rows === undefined) return null;
    const keyCols = Object.entries(job.key);
    const count = rows.filter((r) => keyCols.every(([c, v]) => r[c] === v)).length;
    const grew = count - this.committedRows;
    this.committedRows = count;
    if (grew <= 0) return null;
    const key = keyCols.map(([c, v]) => `${c} = ${typeof v === 'string' ? `'${v}'` : String(v)}`).join(' and ');
    let last: PerformedEffect | null = null;
    for (let i = 0; i < grew; i++) last = this.add(e, e.actor, key, null);
    return last;
  }

  private add(e: CheckedEvent, worker: string, businessKey: string, writeId: number | null): PerformedEffect {
    const nth = (this.counts.get(businessKey) ?? 0) + 1;
    this.counts.set(businessKey, nth);
    const effect: PerformedEffect = { eventId: e.id, atMs: e.atMs, worker, businessKey, writeId, nth };
    this.effects.push(effect);
    return effect;
  }
}

/** Every effect the trace shows performed, in trace order (see the module's definition). */
export function performedEffects(scenario: Scenario, events: readonly CheckedEvent[]): PerformedEffect[] {
  const t = new EffectTracker(scenario);
  for (const e of events) t.note(e);
  return t.effects;
}

/** The duplicate effects of a trace: every effect after the first for its business key, in trace order. */
export function duplicateEffects(scenario: Scenario, events: readonly CheckedEvent[]): DuplicateEffect[] {
  return performedEffects(scenario, events).filter((e) => e.nth > 1);
}
