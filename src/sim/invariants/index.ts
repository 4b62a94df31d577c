/** Builds the checkers a scenario declares. */
import type { Invariant } from '../scenario/schema';
import type { InvariantChecker } from './types';
import { uniqueBusinessKey } from './uniqueBusinessKey';
import { effectOnce, noOverlappingWrites, noStaleTokenAccepted } from './destinationWrites';
import { noLostUpdate, noOversell } from './dataIntegrity';
import { boundedWait, mutualExclusion, singleLeaseOwner } from './coordination';

export type { Finding, InvariantChecker } from './types';

/** One checker per declared invariant, in declaration order. */
export function checkersFor(invariants: readonly Invariant[]): InvariantChecker[] {
  return invariants.map((inv) => {
    switch (inv.kind) {
      case 'uniqueBusinessKey': return uniqueBusinessKey();
      case 'noOverlappingWrites': return noOverlappingWrites();
      case 'noStaleTokenAccepted': return noStaleTokenAccepted();
      case 'effectOnce': return effectOnce(inv.harmless);
      case 'noLostUpdate': return noLostUpdate();
      case 'noOversell': return noOversell();
      case 'mutualExclusion': return mutualExclusion();
      case 'singleLeaseOwner': return singleLeaseOwner();
      case 'boundedWait': return boundedWait(inv.maxWaitMs);
    }
  });
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
};
