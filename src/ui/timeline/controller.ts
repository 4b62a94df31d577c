/**
 * What one timeline keeps between draws, in one object the component holds in a ref (nothing is
 * stashed on DOM nodes): the signature table of the keyed joins, the scale the axis was last
 * drawn with, and the latest scale, width and callbacks that handlers bound once read when they
 * fire. It draws the SVG's layers in order: axis, lane backgrounds, lane items, violation marks;
 * the fault markers separately (they change with the selection, not only with the run).
 */
import * as d3 from 'd3';
import type { LaneRef, ViolationMark } from './lanes';
import type { LaneBox } from './layout';
import { r1, type Box } from './fit';
import { Signatures, type G } from './draw/items';
import { drawAxis } from './draw/axis';
import { drawBackgrounds } from './draw/backgrounds';
import { drawLaneContent } from './draw/laneContent';
import { drawViolationMarks } from './draw/violationMarks';
import { drawFaultMarkers, type FaultMarker, type FaultMarkerLive } from './faultMarkers';

/** The latest scale, width and callbacks (set on every render). */
export interface TimelineLive extends FaultMarkerLive {
  onCursorMs(ms: number): void;
  onEventId?(eventId: string): void;
  onLaneActivate?(lane: LaneRef, atMs: number, pos: { x: number; y: number }): void;
}

/** What a lanes draw needs. */
export interface LanesDraw {
  readonly boxes: readonly LaneBox[];
  readonly violations: readonly ViolationMark[];
  readonly x: d3.ScaleLinear<number, number>;
  readonly plotW: number;
  readonly height: number;
  /** Prefix of the SVG pattern ids. */
  readonly uid: string;
  /** The fault markers' boxes, by lane id (lane words keep clear of them). */
  readonly markerBoxes: ReadonlyMap<string, readonly Box[]>;
  /** Draw the findings (violation marks, duplicates): the view's mode may hide them. */
  readonly showFindings: boolean;
}

/** One timeline's drawing state and its draw passes. */
export class TimelineController {
  private readonly sigs = new Signatures();
  /** The scale and width the axis was last drawn with. */
  private axisFor: { readonly x: d3.ScaleLinear<number, number>; readonly plotW: number } | null = null;
  /** The latest scale, width and callbacks. */
  live: TimelineLive = { x: d3.scaleLinear(), plotW: 0, onCursorMs: () => {} };

  /**
   * Draws the axis (only when the scale changed), the lane backgrounds, every lane's items and
   * the violation marks, incrementally: keyed joins keep the elements of everything a re-run did
   * not change, and nothing here reads layout.
   */
  drawLanes(svgEl: SVGSVGElement, a: LanesDraw): void {
    const svg = d3.select(svgEl);
    const { x, plotW } = a;
    const X = (ms: number) => r1(Math.max(-10, Math.min(plotW + 10, x(ms))));
    const W = (s: number, e: number, min = 2) => r1(Math.max(min, X(e) - X(s)));

    if (this.axisFor?.x !== x || this.axisFor.plotW !== plotW) {
      this.axisFor = { x, plotW };
      drawAxis(svg.select<SVGGElement>('g.axis') as unknown as G, x, plotW);
    }
    drawBackgrounds(this.sigs, svg.select<SVGGElement>('g.lanes-bg') as unknown as G, svgEl, a.boxes, plotW, (box, px, page) => {
      this.live.onLaneActivate?.(box.ref, Math.max(0, Math.round(this.live.x.invert(px))), page);
    });
    const content = svg.select<SVGGElement>('g.content') as unknown as G;
    drawLaneContent(this.sigs, content, a.boxes, (b) => ({ y: b.y, h: b.h, X, W, plotW, uid: a.uid, obstacles: a.markerBoxes.get(b.id) ?? [], showFindings: a.showFindings }));
    drawViolationMarks(this.sigs, content, a.showFindings ? a.violations : [], X, a.height, (id) => this.live.onEventId?.(id), this.live.onEventId !== undefined);
  }

  /** Draws the fault markers (keyed by index; only changed ones are touched). */
  drawFaults(svgEl: SVGSVGElement, markers: readonly FaultMarker[], x: d3.ScaleLinear<number, number>, plotW: number, selected: number | null): void {
    drawFaultMarkers(d3.select(svgEl).select<SVGGElement>('g.faults') as unknown as G, svgEl, this.sigs, markers, x, plotW, selected, () => this.live);
  }
}
