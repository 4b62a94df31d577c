/**
 * The cursor: an HTML overlay on its own compositor layer (line, grip, time, the curtain of
 * predict mode and each lane's cursor note). Moving it sets a transform and a few texts; the SVG
 * is not repainted.
 */
import type * as d3 from 'd3';
import { fmtSeconds } from '../faults/faultCatalog';
import { timeOnAxis } from './axisScale';
import type { LaneBox } from './layout';
import { tickExtent } from './draw/axis';
import { cachedFont, widthInFont } from './measure';
import type { Box } from './fit';
import { NOTE_TOP } from './lanes/types';

/**
 * Places the overlay `el` at `cursorMs` and updates its texts. `x` and `plotW` are in drawing
 * units; `k` (the type scale) turns them into screen px. A lane's note keeps clear of the fault
 * markers on its lane (`markerBoxes`, drawing units, by lane id): `noteOffset`.
 */
export function placeCursor(el: HTMLElement, cursorMs: number, x: d3.ScaleLinear<number, number>, plotW: number, gutter: number, boxes: readonly LaneBox[], k = 1, axis: Element | null = null, markerBoxes: ReadonlyMap<string, readonly Box[]> = new Map()): void {
  const cx = x(cursorMs);
  const visible = cx >= 0 && cx <= plotW;
  el.style.transform = `translateX(${gutter + cx * k}px)`;
  const curtain = el.querySelector<HTMLElement>('.curtain');
  if (curtain) curtain.style.width = `${Math.max(0, plotW - cx) * k + 8}px`;
  el.style.visibility = visible ? 'visible' : 'hidden';
  const grip = el.querySelector<HTMLElement>('.cursor-grip');
  grip?.setAttribute('aria-valuenow', String(Math.round(cursorMs)));
  grip?.setAttribute('aria-valuetext', fmtSeconds(cursorMs));
  const time = el.querySelector<HTMLElement>('.cursor-time');
  if (time) {
    // In the axis's unit (the ticks under it speak one unit: ./axisScale.ts).
    const [fromMs, toMs] = x.domain() as [number, number];
    const text = timeOnAxis(cursorMs, fromMs, toMs);
    // The badge's width (its text in its own font, plus padding and border) in drawing units.
    const w = (widthInFont(text, cachedFont(time, time, k), 7.6 * k) + 10 * k) / k;
    // To the cursor's left when it would not fit on its right.
    const flip = (plotW - cx) < w + 12;
    time.textContent = text;
    time.classList.toggle('flip', flip);
    // The time sits on the axis: the tick labels it would cover step aside (widths measured on a
    // canvas in each one's computed font: no layout read).
    if (axis) {
      const [lo, hi] = flip ? [cx - w - 8, cx] : [cx, cx + 9 + w];
      hideTicksUnder(axis, x, lo, hi, k);
    }
  }
  for (const b of boxes) {
    if (!b.note) continue;
    const note = el.querySelector<HTMLElement>(`[data-note="${b.id}"]`);
    if (!note) continue;
    const text = b.note.text(cursorMs);
    note.textContent = text;
    // Its width in drawing units (the text in its own font plus 2 px of padding each side; no layout read).
    const w = (widthInFont(text, cachedFont(note, note, k), 7 * k) + 4 * k) / k;
    const y0 = b.y + b.h - NOTE_TOP;
    const at = noteOffset(cx, w, plotW, b.note.flipWithinPx, (markerBoxes.get(b.id) ?? []).filter((m) => m.y1 > y0 && m.y0 < y0 + 14));
    note.classList.remove('flip');
    note.style.left = `${at * k}px`;
  }
}

/**
 * Where a cursor note `w` units wide starts, relative to the cursor at `cx` (drawing units): just
 * right of it (6 units); on its left when it would not fit on the right (within `flipWithinPx` of
 * the plot's edge) and there is more room there; either way clear of `obstacles` (the lane's fault
 * markers) — moved on past the ones it would cover, or to the other side when that one is clear.
 */
export function noteOffset(cx: number, w: number, plotW: number, flipWithinPx: number, obstacles: readonly Box[]): number {
  const clear = (off: number) => !obstacles.some((o) => o.x1 > cx + off && o.x0 < cx + off + w);
  const right = 6;
  const left = -6 - w;
  const flip = plotW - cx < Math.max(flipWithinPx, w + 6) && cx > plotW - cx;
  const [first, second] = flip ? [left, right] : [right, left];
  if (clear(first)) return first;
  if (clear(second) && cx + second >= 0 && cx + second + w <= plotW) return second;
  // Past the markers it would cover, in its own direction.
  let off = first;
  for (let i = 0; i < obstacles.length && !clear(off); i++) {
    const hit = obstacles.filter((o) => o.x1 > cx + off && o.x0 < cx + off + w);
    off = flip ? Math.min(...hit.map((o) => o.x0)) - 3 - w - cx : Math.max(...hit.map((o) => o.x1)) + 3 - cx;
  }
  return off;
}

/**
 * Hides the axis's tick labels that overlap [lo, hi] (drawing units; label widths measured in their
 * font, as anchored by the axis: `tickExtent`) and shows the others. All reads come before the
 * writes, and the labels' one font is read once (`cachedFont`): a computed-style read between two
 * visibility writes made the browser recalculate styles once per tick (~7 ms a click on a preset,
 * in the click's own frame).
 */
function hideTicksUnder(axis: Element, x: d3.ScaleLinear<number, number>, lo: number, hi: number, k: number): void {
  const ticks: { label: SVGTextElement; covered: boolean }[] = [];
  let font: string | null = null;
  for (const tick of axis.querySelectorAll<SVGGElement>('g.tick')) {
    const d = (tick as unknown as { __data__?: number }).__data__;
    const label = tick.querySelector('text');
    if (d === undefined || !label) continue;
    font ??= cachedFont(axis.closest('svg') ?? axis, label, k);
    const [l0, l1] = tickExtent(x(d), widthInFont(label.textContent ?? '', font, 7.2), label.getAttribute('text-anchor'));
    ticks.push({ label, covered: l1 + 3 > lo && l0 - 3 < hi });
  }
  for (const { label, covered } of ticks) {
    if ((label.style.visibility === 'hidden') !== covered) label.style.visibility = covered ? 'hidden' : '';
  }
}
