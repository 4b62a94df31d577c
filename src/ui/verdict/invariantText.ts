/**
 * An invariant's name as a view shows it (issue 12, interview mode): `INVARIANT_TEXT`'s words, or,
 * for a view without hints (the interview's candidate), words that say only what must never
 * happen where the usual name tells the fix — "no stale fencing token accepted" names the fencing
 * token, the answer of export-lease-expiry. Same kind, same check: only the words differ.
 */
import { INVARIANT_TEXT, type Invariant } from '../../sim';

/** The candidate's words for the invariants whose usual name names a mechanism (the others keep theirs). */
export const NEUTRAL_INVARIANT_TEXT: Readonly<Partial<Record<Invariant['kind'], string>>> = {
  noStaleTokenAccepted: 'no write accepted from an earlier lease holder after a later holder\'s',
};

/** The name of invariant `kind`; with `hints` false, its neutral words when it has some. */
export function invariantText(kind: Invariant['kind'], hints: boolean): string {
  return (hints ? undefined : NEUTRAL_INVARIANT_TEXT[kind]) ?? INVARIANT_TEXT[kind];
}
