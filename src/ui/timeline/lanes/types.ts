/**
 * The shape of a lane kind. Each kind (worker, lease key, database, destination, …) derives its
 * own lanes from a run and says how to draw a lane's items; the timeline only lays the lanes out,
 * joins the items and draws them (./index.ts registers the kinds).
 */
import type { DerivedRun } from '../../store/derive';
import type { Item } from '../draw/items';
import type { Box } from '../fit';

/** What names one lane of a kind (a fault's lane, the fault menu's lane). */
export interface LaneRefBase { readonly kind: string }

/** One lane a kind derives from a run, with the kind's data for drawing it. */
export interface LaneSpec<R extends LaneRefBase, D> {
  readonly ref: R;
  /** Name shown in the gutter. */
  readonly label: string;
  /** Longer name for screen readers. */
  readonly ariaLabel: string;
  /** Height in px. */
  readonly h: number;
  readonly data: D;
}

/** Where a lane was laid out, and what drawing it needs from the timeline. */
export interface DrawContext {
  /** Top of the lane (px from the top of the SVG) and its height. */
  readonly y: number;
  readonly h: number;
  /** x of a time, clamped a little outside the plot and rounded to 0.1 px. */
  readonly X: (ms: number) => number;
  /** Width between two times, at least `min` px (2 unless given). */
  readonly W: (startMs: number, endMs: number, min?: number) => number;
  readonly plotW: number;
  /** Prefix of the SVG pattern ids (`${uid}-hatch`, `-dots`, `-cross`, `-dup`). */
  readonly uid: string;
  /**
   * What the lane's words keep clear of (../fit.ts `placeText`): the fault markers on this lane and
   * the violation marks ./citedMarks.ts adds to it, as boxes in drawing units.
   */
  readonly obstacles: readonly Box[];
  /** Draw findings ("DUPLICATE" on a write; the view's mode may hide them). */
  readonly showFindings: boolean;
}

/** A text that follows the cursor inside a lane (e.g. the lease's remaining TTL). */
export interface CursorNote<D> {
  /** CSS class of the note. */
  readonly className: string;
  /** Flip the note to the cursor's left when the cursor is closer than this to the plot's right edge. */
  readonly flipWithinPx: number;
  readonly text: (data: D, cursorMs: number) => string;
}

/** A lane kind: one module per kind, registered once in ./index.ts. */
export interface LaneKind<R extends LaneRefBase, D> {
  readonly kind: R['kind'];
  /** Fill of the lane's background, a CSS colour (a `var(--lane-…)` of styles.css follows the theme); clicking it opens the fault menu there. */
  readonly background: string;
  /**
   * The trace kinds (`TraceEvent.kind`) of the resource this kind draws: a run with any event of
   * these kinds gets at least one lane of this kind, whatever the scenario declares (a lane for
   * every resource the trace touches). Empty for kinds that draw no resource (workers).
   */
  readonly traceKinds: readonly string[];
  /** Id of the lane a ref names (unique across kinds; keys the lane's elements). */
  idOf(ref: R): string;
  /** This kind's lanes in the run, top to bottom (pure; the registry memoises it per run). */
  lanes(run: DerivedRun): readonly LaneSpec<R, D>[];
  /** The items drawn in one of this kind's lanes. */
  items(data: D, ctx: DrawContext, lane: LaneSpec<R, D>): Item[];
  readonly cursorNote?: CursorNote<D>;
}

/** The run has an event of one of `kinds` (its trace touches that resource). */
export function touches(run: DerivedRun, kinds: readonly string[]): boolean {
  return run.events.some((e) => kinds.includes(e.kind));
}

/** Stacks intervals into rows so that overlapping ones do not share a row. */
export function stack<T extends { startMs: number; endMs: number }>(items: T[]): { rows: number; rowOf: number[] } {
  const rowEnds: number[] = [];
  const rowOf = items.map((it) => {
    let r = rowEnds.findIndex((end) => end <= it.startMs);
    if (r < 0) {
      r = rowEnds.length;
      rowEnds.push(it.endMs);
    } else rowEnds[r] = it.endMs;
    return r;
  });
  return { rows: Math.max(1, rowEnds.length), rowOf };
}

/** Baseline of a lease or queue bar's words below the lane's top: the bar is 4–20, the cursor note's strip starts at `h - NOTE_TOP`. */
export const TEXT_BASELINE = 17;

/** Top of a lane's cursor note above the lane's bottom (Timeline.tsx places it; about 14 units tall in 0.75rem type). */
export const NOTE_TOP = 15;

/** Height of one stacked row (database locks, destination writes). */
export const ROW_H = 20;
