/** Builds the checkers a scenario declares, and runs them over a stored trace. */
import type { Invariant, Scenario } from '../scenario/schema';
import type { CheckedEvent } from '../engine/trace';
import type { Finding, FindingListener, InvariantChecker } from './types';
import { uniqueBusinessKey } from './uniqueBusinessKey';
import { effectOnce, noOverlappingWrites, noStaleTokenAccepted, repeatedEffectsNote } from './destinationWrites';
import { noLostUpdate, noOversell } from './dataIntegrity';
import { boundedWait, mutualExclusion, singleLeaseOwner } from './coordination';
import { noWaitCycle } from './waitCycle';
import { jobCompletesWithin, oneClaimPerJob } from './queue';

export type { Finding, FindingListener, InvariantChecker } from './types';
export { performedEffects, duplicateEffects, EffectTracker, type PerformedEffect, type DuplicateEffect } from './effects';
export { protectedSteps } from './coordination';

/**
 * One checker per invariant the scenario declares, in declaration order, then `noWaitCycle` (a
 * liveness check every scenario gets) unless declared, then — when the scenario declares no check
 * on repeated effects (`effectOnce`; `uniqueBusinessKey` for an insertOnce job) — the note on
 * duplicate effects (`repeatedEffectsNote`). `listener` hears each finding as it is published.
 */
export function checkersFor(scenario: Scenario, listener?: FindingListener): InvariantChecker[] {
  const ctx = { scenario, listener };
  const always: InvariantChecker[] = scenario.invariants.some((i) => i.kind === 'noWaitCycle') ? [] : [noWaitCycle(ctx)];
  const declared = scenario.invariants.map((inv) => {
    switch (inv.kind) {
      case 'uniqueBusinessKey': return uniqueBusinessKey(ctx);
      case 'noOverlappingWrites': return noOverlappingWrites(ctx);
      case 'noStaleTokenAccepted': return noStaleTokenAccepted(ctx);
      case 'effectOnce': return effectOnce(ctx, inv.harmless);
      case 'noLostUpdate': return noLostUpdate(ctx);
      case 'noOversell': return noOversell(ctx);
      case 'mutualExclusion': return mutualExclusion(ctx);
      case 'singleLeaseOwner': return singleLeaseOwner(ctx);
      case 'boundedWait': return boundedWait(ctx, inv.maxWaitMs);
      case 'noWaitCycle': return noWaitCycle(ctx);
      case 'jobCompletesWithin': return jobCompletesWithin(ctx, inv.withinMs);
      case 'oneClaimPerJob': return oneClaimPerJob(ctx);
    }
  });
  const checksRepeats = scenario.invariants.some((i) => i.kind === 'effectOnce' || (i.kind === 'uniqueBusinessKey' && scenario.job.kind === 'insertOnce'));
  return checksRepeats ? [...declared, ...always] : [...declared, ...always, repeatedEffectsNote(ctx)];
}

/**
 * Runs the scenario's checkers over a stored trace (no World needed: events carry their data)
 * and returns their findings, in checker order. `endMs` is the time up to which the run is
 * judged (a run's `checkedToMs`); by default the scenario's horizon, as for a run that ran to it.
 */
export function checkTrace(scenario: Scenario, events: readonly CheckedEvent[], endMs?: number): Finding[] {
  const checkers = checkersFor(scenario);
  for (const e of events) for (const c of checkers) c.onEvent(e);
  const last = events[events.length - 1];
  for (const c of checkers) c.finish(endMs ?? Math.max(scenario.horizonMs, last?.atMs ?? 0), last);
  return checkers.flatMap((c) => c.findings);
}

/** Plain-words name of each invariant, for the verdict and the UI. */
export const INVARIANT_TEXT: Record<Invariant['kind'], string> = {
  uniqueBusinessKey: 'at most one row per business key',
  noOverlappingWrites: 'no two overlapping writes to one destination',
  noStaleTokenAccepted: 'no stale fencing token accepted',
  effectOnce: 'the external effect happens at most once',
  noLostUpdate: 'no lost update',
  noOversell: 'never reserve more than the stock',
  mutualExclusion: 'one worker in the critical section at a time',
  singleLeaseOwner: 'one live lease owner at a time',
  boundedWait: 'no worker waits beyond the limit',
  noWaitCycle: 'no wait cycle through the application (always checked)',
  jobCompletesWithin: 'every delivered job completes in time',
  oneClaimPerJob: 'at most one claim per job row',
};
