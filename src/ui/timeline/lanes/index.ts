/**
 * The lane kinds, registered once: the timeline shows each kind's lanes in this order (workers,
 * lease keys, an SQS-like queue's messages, the database, the destination). Adding a lane kind = its module (a `LaneKind`: its
 * lanes from a run, its items, its background) + one entry in `REGISTERED`; `LaneRef` follows.
 */
import type { DerivedRun } from '../../store/derive';
import { runEndMs } from '../../store/derive';
import type { Item } from '../draw/items';
import type { CursorNote, DrawContext, LaneKind, LaneRefBase } from './types';
import { workerLanes } from './worker';
import { leaseLanes } from './lease';
import { databaseLanes } from './database';
import { destinationLanes } from './destination';
import { queueLanes } from './queue';
import { violationMarks, type ViolationMark } from './violations';
import { citedMark, laneIdOfEvent, triangleBox, violationMessagesByEvent } from './citedMarks';
import { spreadXs } from '../fit';
import { axisEndMs, axisUnit, timeInUnit, type AxisUnit } from '../axisScale';
import type { TraceEvent } from '../../../sim';

const REGISTERED = [workerLanes, leaseLanes, queueLanes, databaseLanes, destinationLanes] as const;

/** Names a lane of any registered kind (where a fault is placed, where the fault menu opened). */
export type LaneRef = RefOf<(typeof REGISTERED)[number]>;
type RefOf<K> = K extends { idOf(ref: infer R): string } ? R : never;

/** One lane of a run, ready to lay out and draw (its kind's data bound in). */
export interface Lane {
  /** Unique across the timeline; keys the lane's elements. */
  readonly id: string;
  readonly ref: LaneRef;
  readonly label: string;
  readonly ariaLabel: string;
  readonly h: number;
  readonly background: string;
  /** The lane's items, drawn at `ctx`. */
  readonly items: (ctx: DrawContext) => Item[];
  /** The text that follows the cursor in this lane, if the kind has one. */
  readonly note?: { readonly className: string; readonly flipWithinPx: number; readonly text: (cursorMs: number) => string };
}

/** A kind with its data type erased: what the registry iterates. */
interface RegisteredKind {
  readonly kind: string;
  readonly traceKinds: readonly string[];
  idOf(ref: LaneRef): string;
  lanes(run: DerivedRun): Lane[];
}

function register<R extends LaneRefBase, D>(k: LaneKind<R, D>): RegisteredKind {
  const note = (n: CursorNote<D>, data: D) => ({ className: n.className, flipWithinPx: n.flipWithinPx, text: (ms: number) => n.text(data, ms) });
  return {
    kind: k.kind,
    traceKinds: k.traceKinds,
    idOf: (ref) => k.idOf(ref as unknown as R),
    lanes: (run) => k.lanes(run).map((spec) => ({
      id: k.idOf(spec.ref),
      ref: spec.ref as unknown as LaneRef,
      label: spec.label,
      ariaLabel: spec.ariaLabel,
      h: spec.h,
      background: k.background,
      items: (ctx: DrawContext) => k.items(spec.data, ctx, spec),
      ...(k.cursorNote ? { note: note(k.cursorNote, spec.data) } : {}),
    })),
  };
}

const KINDS: readonly RegisteredKind[] = REGISTERED.map((k) => register(k as LaneKind<LaneRefBase, unknown>));

/** Id of the lane a ref names (the fault markers find their lane by it). */
export function laneIdOf(ref: LaneRef): string {
  const k = KINDS.find((kind) => kind.kind === ref.kind);
  if (!k) throw new Error(`no lane kind "${ref.kind}" is registered`);
  return k.idOf(ref);
}

/**
 * The lane kind that draws the resource of a trace kind (`sql` → `database`, `redis` → `lease`, …),
 * or undefined when no registered kind declares it (a resource the timeline would not show).
 */
export function laneKindOfTraceKind(traceKind: string): string | undefined {
  return KINDS.find((k) => k.traceKinds.includes(traceKind))?.kind;
}

/** Everything the timeline draws for a run. */
export interface TimelineData {
  /** End of the time axis (see runEndMs). */
  readonly endMs: number;
  /** Every registered kind's lanes, in registration order. */
  readonly lanes: readonly Lane[];
  /** Violation (and harmless-duplicate) marks in the marks row above the lanes. */
  readonly violations: readonly ViolationMark[];
}

/**
 * Every event a violation cites is drawn as a violation mark on its own lane (./citedMarks.ts): a
 * lane's items, plus the generic mark of each cited event of the lane that none of them cites
 * (only while findings are shown).
 */
function withCitedMarks(run: DerivedRun, lanes: readonly Lane[]): Lane[] {
  const messages = violationMessagesByEvent(run);
  if (messages.size === 0) return [...lanes];
  const byLane = new Map<string, TraceEvent[]>();
  for (const e of run.events) {
    if (!messages.has(e.id)) continue;
    const id = laneIdOfEvent(e, lanes, laneKindOfTraceKind);
    if (id !== undefined) byLane.set(id, [...(byLane.get(id) ?? []), e]);
  }
  return lanes.map((l) => {
    const cited = byLane.get(l.id);
    if (!cited) return l;
    return {
      ...l,
      items: (ctx: DrawContext) => {
        const own = l.items(ctx);
        if (!ctx.showFindings) return own;
        const drawn = new Set(own.flatMap((it) => it.cites ?? []));
        const extra = cited.filter((e) => !drawn.has(e.id));
        if (extra.length === 0) return own;
        // The lane's words keep clear of the marks added to it: its items again, with the marks as obstacles
        // (what an item cites does not depend on where its words go).
        // Two cited events at nearby times stand side by side (spreadXs), never on top of each other.
        // Clear of the lane's own cited marks, too (at their events' times, or moved right of them by the lane).
        const ownXs = cited.filter((e) => drawn.has(e.id)).map((e) => ctx.X(e.atMs));
        const xs = spreadXs(extra.map((e) => ctx.X(e.atMs)), 7.5, 1, spreadXs(ownXs, 7.5));
        const boxes = xs.map((x) => triangleBox(x, ctx.y)).filter((b) => b.x1 > 0 && b.x0 < ctx.plotW);
        const placed = boxes.length > 0 ? l.items({ ...ctx, obstacles: [...ctx.obstacles, ...boxes] }) : own;
        return [...placed, ...extra.map((e, i) => citedMark(e, messages.get(e.id)!, ctx, xs[i]))];
      },
    };
  });
}

/** Derives the timeline's lanes and marks from a run (pure, no DOM; memoise per run: see lanesOf). */
export function buildLanes(run: DerivedRun): TimelineData {
  return { endMs: runEndMs(run), lanes: withCitedMarks(run, KINDS.flatMap((k) => k.lanes(run))), violations: violationMarks(run) };
}

const cache = new WeakMap<DerivedRun, TimelineData>();
/** The timeline's lanes of a run, memoised per run object. */
export function lanesOf(run: DerivedRun): TimelineData {
  let l = cache.get(run);
  if (!l) cache.set(run, (l = buildLanes(run)));
  return l;
}

export type { ViolationMark } from './violations';
export type { DrawContext, LaneKind, LaneSpec } from './types';

/**
 * The end of the time axis fitted to the whole run (the Fit view): the run's end and every instant
 * the verdict cites, padded to a round figure (`axisEndMs`), as the timeline draws it.
 */
export function fitAxisEndMs(run: DerivedRun): number {
  const d = lanesOf(run);
  return axisEndMs(d.endMs, d.violations.map((v) => v.atMs));
}

/** The unit of the run's fitted axis ('ms' for a run drawn within 2 s): the unit the log and the cursor readout word times in. */
export function runTimeUnit(run: DerivedRun): AxisUnit {
  return axisUnit(0, fitAxisEndMs(run));
}

/**
 * Words an instant of `run` in its axis unit ("1,200 ms" in a run drawn within 2 s, "1.2 s"
 * otherwise): every instant the page shows beside the timeline (the log, the cursor readout, the
 * inspector, the verdict's citations, bookmarks, the fault menu) uses it. Durations in prose
 * ("waited 1 s") keep `fmtTime`.
 */
export function runTimeFormatter(run: DerivedRun): (ms: number) => string {
  const unit = runTimeUnit(run);
  return (ms) => timeInUnit(ms, unit);
}
