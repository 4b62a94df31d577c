/**
 * The derived run: a scenario's RunResult with per-event snapshots, memoised per Scenario object
 * (and, as a second level, per scenario content) so that scrubbing, re-rendering and switching
 * back and forth never re-simulate. Every scenario change creates a new Scenario object; the
 * simulation core (src/sim) is called only here.
 */
import { runScenario, startRun, type RunInProgress, type RunResult, type Scenario, type WorldSnapshot, type TraceEvent } from '../../sim';

/**
 * A run with its snapshots (always captured for the UI). `shownToMs` is set on a run cut at a
 * cursor (`runUpTo`): its events stop there, and a state still open at that instant is open, not
 * ended (a lane says "so far", never "gone at").
 */
export type DerivedRun = RunResult & { readonly snapshots: readonly WorldSnapshot[]; readonly shownToMs?: number };

const byObject = new WeakMap<Scenario, DerivedRun>();
const byContent = new Map<string, DerivedRun>();
const CONTENT_CACHE = 64;

/**
 * Runs begun by `deriveInPieces` and not yet over, by scenario content: `deriveRun` finishes one
 * instead of starting again (a click that comes before the prefetch is done pays only the rest).
 * A few at most; the oldest is cancelled when another starts.
 */
const partial = new Map<string, RunInProgress>();
const PARTIAL_RUNS = 4;

/** Keeps a finished run under its content key (the oldest of `CONTENT_CACHE` goes) and its object. */
function remember(scenario: Scenario, key: string, r: RunResult): DerivedRun {
  const run: DerivedRun = { ...r, snapshots: r.snapshots ?? [] };
  byContent.set(key, run);
  if (byContent.size > CONTENT_CACHE) {
    const oldest = byContent.keys().next().value;
    if (oldest !== undefined) byContent.delete(oldest);
  }
  byObject.set(scenario, run);
  return run;
}

/** Runs the scenario once (snapshots on) and caches the result; same object or same content → same result object. */
export function deriveRun(scenario: Scenario): DerivedRun {
  const hit = byObject.get(scenario);
  if (hit) return hit;
  const key = JSON.stringify(scenario);
  const cached = byContent.get(key);
  if (cached) {
    byObject.set(scenario, cached);
    return cached;
  }
  const begun = partial.get(key);
  if (begun) {
    partial.delete(key);
    begun.advance(Infinity);
    return remember(scenario, key, begun.result());
  }
  return remember(scenario, key, runScenario(scenario, { captureSnapshots: true }));
}

/** World steps per piece of `deriveInPieces`: about 1 ms of a run with snapshots on a busy machine. */
export const DERIVE_PIECE_STEPS = 20;

/**
 * The same run as `deriveRun(scenario)`, made a piece at a time (`DERIVE_PIECE_STEPS` world steps
 * per call of the returned function, which returns true while there is more to do); the finished
 * run goes into `deriveRun`'s cache. Null when the run is cached already. For the idle-time
 * prefetch: a ~2,000-event run (~100 ms in one go) becomes a hundred short pieces, each of which
 * leaves the next click its frame. A run left unfinished stays resumable (`deriveRun` finishes it).
 */
export function deriveInPieces(scenario: Scenario): (() => boolean) | null {
  if (isDerived(scenario)) return null;
  const key = JSON.stringify(scenario);
  let run = partial.get(key);
  if (!run) {
    run = startRun(scenario, { captureSnapshots: true });
    partial.set(key, run);
    if (partial.size > PARTIAL_RUNS) {
      const [oldestKey, oldest] = partial.entries().next().value!;
      partial.delete(oldestKey);
      oldest.cancel();
    }
  }
  const mine = run;
  return () => {
    // deriveRun (a click) may have finished and taken it meanwhile, or a newer piece run evicted it.
    if (partial.get(key) !== mine) return false;
    if (mine.advance(DERIVE_PIECE_STEPS)) return true;
    partial.delete(key);
    remember(scenario, key, mine.result());
    return false;
  };
}

const prefixes = new WeakMap<DerivedRun, Map<number, DerivedRun>>();

/**
 * The run as far as event index `index` (inclusive; −1: before the first event): what a view that
 * hides the future (predict-then-reveal, a lesson before its reveal, the workshop's audience)
 * draws, so that nothing after the cursor — an event, its reply, its narration, a lane only a
 * later event opens, a state's end — is in the page at all (`Visibility.showFuture`). The events
 * and snapshots are the whole run's prefix (the same objects); the verdict is not given (no
 * findings, no summary: a verdict judges the whole run, and a part of it is not judged); `faultTimesMs` and
 * `stepReachedMs` forget what happens later; the scenario's horizon is the cut, so a state still
 * open there lasts until the cut (`runEndMs`) and no later. The whole run itself at or past its
 * last event. Memoised per run and index.
 */
export function runUpTo(run: DerivedRun, index: number): DerivedRun {
  if (index >= run.events.length - 1) return run;
  let byIndex = prefixes.get(run);
  if (!byIndex) prefixes.set(run, (byIndex = new Map()));
  const i = Math.max(-1, Math.floor(index));
  const hit = byIndex.get(i);
  if (hit) return hit;
  const events = run.events.slice(0, i + 1);
  const cutMs = events.at(-1)?.atMs ?? 0;
  const seen = (ms: number | null) => (ms !== null && ms <= cutMs && i >= 0 ? ms : null);
  const cut: DerivedRun = {
    scenario: { ...run.scenario, horizonMs: Math.max(1, cutMs) },
    events,
    snapshots: run.snapshots.slice(0, i + 1),
    verdict: { held: false, status: 'inconclusive', violations: [], notes: [], summary: '' },
    // The whole run's figures: every view that hides the future hides the metrics too (Visibility).
    metrics: run.metrics,
    traceHash: '',
    endMs: cutMs,
    checkedToMs: cutMs,
    faultTimesMs: run.faultTimesMs.map(seen),
    stepReachedMs: Object.fromEntries(Object.entries(run.stepReachedMs).map(([w, steps]) => [w, steps.map(seen)])),
    shownToMs: cutMs,
  };
  if (byIndex.size > 512) byIndex.clear();
  byIndex.set(i, cut);
  return cut;
}

/** Whether `deriveRun(scenario)` would answer from its cache (no run), for the prefetch's tests and callers that only want a cached run. */
export function isDerived(scenario: Scenario): boolean {
  return byObject.has(scenario) || byContent.has(JSON.stringify(scenario));
}

/** Index of the last event at or before `ms` (-1 when the cursor is before the first event). Binary search. */
export function indexAtMs(events: readonly TraceEvent[], ms: number): number {
  let lo = 0;
  let hi = events.length - 1;
  let found = -1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (events[mid]!.atMs <= ms) {
      found = mid;
      lo = mid + 1;
    } else hi = mid - 1;
  }
  return found;
}

/** Index of the event with this id, or -1. Event ids are `e1`, `e2`, … in order. */
export function indexOfEvent(run: DerivedRun, id: string): number {
  const n = Number(id.slice(1)) - 1;
  if (run.events[n]?.id === id) return n;
  return run.events.findIndex((e) => e.id === id);
}

/**
 * End of the run's time range: the last event or the run's end (a lease still held, a timer
 * pending), whichever is later, within the horizon. No floor: a run whose statements all happen
 * within 120 ms ends at 120 ms (the timeline pads it to a round figure: timeline/axisScale.ts).
 * A worker still waiting when the events stop waits until the horizon: the run ends there; so does
 * a run whose verdict speaks of a state still open at its end (`Finding.untilMs`), and a run cut
 * short, at the instant its verdict says it stopped (`Verdict.cutShort.atMs`).
 */
export function runEndMs(run: DerivedRun): number {
  const last = run.events.at(-1)?.atMs ?? 0;
  // A worker still waiting at the end waits until the horizon (the bounded-wait check counts it so).
  if (run.snapshots.at(-1)?.workers.some((w) => w.state === 'waiting')) return Math.max(1, run.scenario.horizonMs);
  // A finding about a state still open at the end (a job never acknowledged) speaks of that instant.
  const spokenOf = [...run.verdict.violations, ...run.verdict.notes].reduce((m, f) => Math.max(m, f.untilMs ?? 0), 0);
  // A run cut short ends where the verdict says it stopped ("cut short at 14 events / 1 s"): a
  // worker paused past the horizon is paused until then, not until the last event (120 ms).
  const stoppedAt = run.verdict.cutShort?.atMs ?? 0;
  return Math.max(1, Math.min(run.scenario.horizonMs, Math.max(last, run.endMs, spokenOf, stoppedAt)));
}

const metricsCache = new WeakMap<Scenario, Map<number, RunResult['metrics']>>();

/**
 * The run's metrics counted up to `atMs` (virtual ms, inclusive): the same scenario run with its
 * horizon at the cursor (text off), so the figures use the simulation core's one definition of
 * each metric. Same seed, same events up to there: the prefix of the whole run. Memoised per
 * scenario object and time; at or past the run's end it is the whole run's metrics.
 */
export function metricsAt(run: DerivedRun, atMs: number): RunResult['metrics'] {
  const s = run.scenario;
  if (atMs >= runEndMs(run)) return run.metrics;
  let byMs = metricsCache.get(s);
  if (!byMs) metricsCache.set(s, (byMs = new Map()));
  const t = Math.max(0, Math.round(atMs));
  let m = byMs.get(t);
  if (!m) {
    m = runScenario({ ...s, horizonMs: t }, { text: false }).metrics;
    if (byMs.size > 256) byMs.clear();
    byMs.set(t, m);
  }
  return m;
}
