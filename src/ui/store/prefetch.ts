/**
 * Runs the user is likely to ask for next, derived in the browser's idle time so that the click
 * that asks finds them cached (`deriveRun`'s content cache) and pays only for drawing: the first
 * click on a switch not yet simulated cost a whole run with snapshots inside its frame (3–15 ms on
 * a preset). One run per idle slice (`runWhenIdle`); a run too long for a slice is not prefetched,
 * since it would be a long task of its own (a ~2,000-event run takes ~100 ms).
 */
import { validateScenario, type Scenario } from '../../sim';
import { runWhenIdle } from '../idle';
import { deriveInPieces } from './derive';

/** Scenario contents already checked by `validateScenario` and found valid (the JSON text of each). */
const validContent = new Set<string>();
const VALID_CACHE = 256;

/**
 * `validateScenario(s).ok`, remembered by content: an edit that a prefetch already checked skips
 * the schema walk (~1 ms) inside the click. Only valid results are kept; an invalid scenario is
 * always re-checked, so its errors come from `validateScenario` itself.
 */
export function knownValid(s: Scenario, json: string = JSON.stringify(s)): boolean {
  return validContent.has(json);
}

/** Marks `s` as valid after the caller validated it (commitScenario), so the next identical edit skips the check. */
export function noteValid(s: Scenario, json: string = JSON.stringify(s)): void {
  // The oldest entry goes first (a Set keeps insertion order), so a prefetch round never loses its own.
  validContent.delete(json);
  if (validContent.size >= VALID_CACHE) validContent.delete(validContent.values().next().value!);
  validContent.add(json);
}

/**
 * Derives each scenario of `next` (valid ones only) in idle time, in order, a piece of a run per
 * step (`deriveInPieces`), so that neither a short run nor a ~2,000-event one delays a frame.
 * Returns the cancel function: a run cut off midway stays resumable (`deriveRun` finishes it
 * when asked).
 */
export function prefetchRuns(next: readonly Scenario[]): () => void {
  if (next.length === 0) return () => {};
  let i = 0;
  let piece: (() => boolean) | null = null;
  return runWhenIdle(() => {
    if (piece) {
      if (piece()) return true;
      piece = null;
      return i < next.length;
    }
    const s = next[i++];
    if (s === undefined) return false;
    const json = JSON.stringify(s);
    if (!knownValid(s, json)) {
      if (!validateScenario(s).ok) return i < next.length;
      noteValid(s, json);
    }
    piece = deriveInPieces(s);
    return piece !== null || i < next.length;
  });
}
