/**
 * Fault markers: a diamond per fault on its lane at the time it fires (grey when it did not
 * fire), draggable in time, keyboard-operable (←/→ move by 1 s, Shift by 0.1 s; Delete removes;
 * Enter selects). Keyed by fault index so that a focused marker keeps focus across re-runs.
 */
import * as d3 from 'd3';
import type { Fault } from '../../sim';
import type { DerivedRun } from '../store/derive';
import { describeFault, faultGlyph, faultTimeMs, laneOfFault } from '../faults/faultCatalog';
import { laneIdOf } from './lanes';
import type { LaneBox } from './layout';
import type { Signatures } from './draw/items';
import { r1, type Box } from './fit';

/** One marker's data. */
export interface FaultMarker {
  readonly f: Fault;
  readonly index: number;
  readonly box: LaneBox;
  /** When it fires (0 when it did not). */
  readonly ms: number;
  readonly fired: boolean;
  readonly text: string;
}

/** What the marker handlers read when they fire (the latest scale, width and callbacks). */
export interface FaultMarkerLive {
  readonly x: d3.ScaleLinear<number, number>;
  readonly plotW: number;
  onFaultMove?(index: number, atMs: number): void;
  onFaultSelect?(index: number): void;
  onFaultRemove?(index: number): void;
}

/** The lane box of a fault (by the lane it belongs to), or undefined when that lane is not shown. */
function boxOf(f: Fault, run: DerivedRun, boxes: readonly LaneBox[]): LaneBox | undefined {
  const id = laneIdOf(laneOfFault(f, run.scenario));
  return boxes.find((b) => b.id === id);
}

/** The markers of `faults` on the laid-out lanes (a fault whose lane is not shown goes on the first lane). */
export function faultMarkers(faults: readonly Fault[], run: DerivedRun, boxes: readonly LaneBox[]): FaultMarker[] {
  return faults.map((f, index) => {
    const ms = faultTimeMs(f, index, run);
    return { f, index, box: boxOf(f, run, boxes) ?? boxes[0]!, ms: ms ?? 0, fired: ms !== null, text: describeFault(f, run.scenario) };
  });
}

/** Half the width (and height) of a fault marker's diamond, in drawing units. */
export const MARKER_HALF = 13;

/** The box of each fired fault's diamond, by lane id (lane words keep clear of them: ./fit.ts `placeText`). */
export function markerBoxesByLane(faults: readonly Fault[], run: DerivedRun, boxes: readonly LaneBox[], x: d3.ScaleLinear<number, number>, plotW: number): Map<string, Box[]> {
  const out = new Map<string, Box[]>();
  faults.forEach((f, i) => {
    const box = boxOf(f, run, boxes);
    const ms = faultTimeMs(f, i, run);
    // Only markers in view (./faultMarkers: one out of view is not drawn).
    if (!box || ms === null || x(ms) < -1 || x(ms) > plotW + 1) return;
    const mx = Math.max(0, Math.min(plotW, x(ms)));
    const my = box.y + box.h / 2;
    out.set(box.id, [...(out.get(box.id) ?? []), { x0: mx - MARKER_HALF, x1: mx + MARKER_HALF, y0: my - MARKER_HALF, y1: my + MARKER_HALF }]);
  });
  return out;
}

/**
 * Draws the markers into `g` with a keyed join (index). Handlers are bound once per marker and
 * read `live()` when they fire; a marker whose position, text and selection did not change is
 * not touched.
 */
export function drawFaultMarkers(g: d3.Selection<SVGGElement, unknown, null, undefined>, svgEl: SVGSVGElement, sigs: Signatures, data: readonly FaultMarker[], x: d3.ScaleLinear<number, number>, plotW: number, selected: number | null, live: () => FaultMarkerLive): void {
  type D = FaultMarker;
  const sel = g.selectAll<SVGGElement, D>('g.fault-marker').data(data, (d) => String(d.index));
  sel.exit().remove();
  const enter = sel.enter().append('g').attr('class', 'fault-marker no-zoom').attr('tabindex', 0).attr('role', 'button').style('cursor', 'grab');
  enter.append('path').attr('class', 'fault-shape').attr('d', `M0,${-MARKER_HALF} L${MARKER_HALF},0 L0,${MARKER_HALF} L${-MARKER_HALF},0 Z`).attr('stroke', '#111827');
  enter.append('text').attr('class', 'fault-glyph').attr('aria-hidden', 'true').attr('text-anchor', 'middle').attr('font-size', 13).attr('font-weight', 700).attr('y', 5).attr('fill', '#111827');
  enter.on('keydown', (event: KeyboardEvent, d) => {
    const cb = live();
    if (event.key === 'ArrowLeft' || event.key === 'ArrowRight') {
      event.preventDefault();
      event.stopPropagation();
      const step = event.shiftKey ? 100 : 1000;
      cb.onFaultMove?.(d.index, Math.max(0, d.ms + (event.key === 'ArrowLeft' ? -step : step)));
    } else if (event.key === 'Delete' || event.key === 'Backspace') {
      event.preventDefault();
      event.stopPropagation();
      cb.onFaultRemove?.(d.index);
    } else if (event.key === 'Enter' || event.key === ' ') {
      event.preventDefault();
      event.stopPropagation();
      cb.onFaultSelect?.(d.index);
    }
  });
  enter.on('click', (event: MouseEvent, d) => {
    event.stopPropagation();
    live().onFaultSelect?.(d.index);
  });
  const drag = d3.drag<SVGGElement, D>()
    .container(svgEl)
    .subject((event: d3.D3DragEvent<SVGGElement, D, D>) => ({ x: event.x, y: event.y }) as unknown as D)
    .on('start', function () {
      d3.select(this).style('cursor', 'grabbing');
    })
    .on('drag', function (event: d3.D3DragEvent<SVGGElement, D, D>, d) {
      const px = Math.max(0, Math.min(live().plotW, event.x));
      d3.select(this).attr('transform', `translate(${px},${d.box.y + d.box.h / 2})`);
    })
    .on('end', function (event: d3.D3DragEvent<SVGGElement, D, D>, d) {
      const cur = live();
      d3.select(this).style('cursor', 'grab');
      // Moved by hand: the next draw must place it, whatever it drew before.
      sigs.forget(this);
      const px = Math.max(0, Math.min(cur.plotW, event.x));
      const ms = Math.round(cur.x.invert(px) / 100) * 100;
      if (Math.abs(px - cur.x(d.ms)) > 2) cur.onFaultMove?.(d.index, ms);
      else d3.select(this).attr('transform', `translate(${Math.max(0, Math.min(cur.plotW, cur.x(d.ms)))},${d.box.y + d.box.h / 2})`);
    });
  enter.call(drag);
  enter.merge(sel).each(function (d) {
    const tx = r1(Math.max(0, Math.min(plotW, x(d.ms))));
    // A fault whose time is outside the zoomed view is not drawn at the edge (it would read as firing there).
    const inView = x(d.ms) >= -1 && x(d.ms) <= plotW + 1;
    const isSelected = d.index === selected;
    if (!sigs.update(this, `${tx}|${inView}|${d.box.y}|${d.box.h}|${d.text}|${d.fired}|${isSelected}|${faultGlyph(d.f)}`)) return;
    const m = d3.select(this);
    m.attr('visibility', inView ? null : 'hidden');
    m.attr('data-fault-index', d.index)
      .attr('transform', `translate(${tx},${d.box.y + d.box.h / 2})`)
      .attr('aria-label', `Fault: ${d.text}${d.fired ? '' : ' (did not fire)'}. Drag or press left and right arrows to move it by 1 s, Delete to remove, Enter to edit.`)
      .attr('aria-pressed', isSelected ? 'true' : 'false')
      .classed('selected', isSelected);
    m.select('path.fault-shape').attr('fill', d.fired ? '#fde047' : '#e5e7eb').attr('stroke-width', isSelected ? 3 : 1.5);
    m.select('text.fault-glyph').text(faultGlyph(d.f));
  });
}
