/**
 * Runs the user is likely to ask for next, derived in the browser's idle time so that the click
 * that asks finds them cached (`deriveRun`'s content cache) and pays only for drawing: the first
 * click on a switch not yet simulated cost a whole run with snapshots inside its frame (3–15 ms on
 * a preset). One run per idle slice (`runWhenIdle`); a run too long for a slice is not prefetched,
 * since it would be a long task of its own (a ~2,000-event run takes ~100 ms).
 */
import { validateScenario, type Scenario } from '../../sim';
import { runWhenIdle } from '../idle';
import { deriveRun } from './derive';

/** Prefetching stops above this many events in the run on screen: its alternatives would each be a long task. */
export const PREFETCH_MAX_EVENTS = 400;

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
 * Derives each scenario of `next` (valid ones only) in idle time, one per slice, unless `current`
 * (the run on screen) has more than `PREFETCH_MAX_EVENTS` events. Returns the cancel function.
 */
export function prefetchRuns(current: Scenario, next: readonly Scenario[]): () => void {
  if (next.length === 0 || deriveRun(current).events.length > PREFETCH_MAX_EVENTS) return () => {};
  let i = 0;
  return runWhenIdle(() => {
    const s = next[i++];
    if (s === undefined) return false;
    const json = JSON.stringify(s);
    if (!knownValid(s, json)) {
      if (!validateScenario(s).ok) return i < next.length;
      noteValid(s, json);
    }
    deriveRun(s);
    return i < next.length;
  });
}
