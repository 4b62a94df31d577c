/**
 * The cursor: an HTML overlay on its own compositor layer (line, grip, time, the curtain of
 * predict mode and each lane's cursor note). Moving it sets a transform and a few texts; the SVG
 * is not repainted.
 */
import type * as d3 from 'd3';
import { fmtSeconds } from '../faults/faultCatalog';
import type { LaneBox } from './layout';

/**
 * Places the overlay `el` at `cursorMs` and updates its texts. `x` and `plotW` are in drawing
 * units; `k` (the type scale) turns them into screen px.
 */
export function placeCursor(el: HTMLElement, cursorMs: number, x: d3.ScaleLinear<number, number>, plotW: number, gutter: number, boxes: readonly LaneBox[], k = 1, axis: Element | null = null): void {
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
    const text = fmtSeconds(cursorMs);
    const flip = (plotW - cx) * k < 70;
    time.textContent = text;
    time.classList.toggle('flip', flip);
    // The time sits on the axis: the tick labels it would cover step aside (estimated widths: no
    // layout read). Its font scales with the page as the drawing does, so its width in drawing units is fixed.
    if (axis) {
      const w = text.length * 7.6 + 10;
      const [lo, hi] = flip ? [cx - w - 8, cx] : [cx, cx + 9 + w];
      hideTicksUnder(axis, x, lo, hi);
    }
  }
  for (const b of boxes) {
    if (!b.note) continue;
    const note = el.querySelector<HTMLElement>(`[data-note="${b.id}"]`);
    if (!note) continue;
    const text = b.note.text(cursorMs);
    note.textContent = text;
    // Flip to the cursor's left when the note would not fit on its right (estimated width, no
    // layout read) and there is more room on the left.
    const need = Math.max(b.note.flipWithinPx, text.length * 7 + 12) * k;
    const right = (plotW - cx) * k;
    note.classList.toggle('flip', right < need && cx * k > right);
  }
}

/** Hides the axis's tick labels that overlap [lo, hi] (drawing units; estimated label widths) and shows the others. */
function hideTicksUnder(axis: Element, x: d3.ScaleLinear<number, number>, lo: number, hi: number): void {
  for (const tick of axis.querySelectorAll<SVGGElement>('g.tick')) {
    const d = (tick as unknown as { __data__?: number }).__data__;
    const label = tick.querySelector('text');
    if (d === undefined || !label) continue;
    const tx = x(d);
    const half = ((label.textContent ?? '').length * 7.2) / 2 + 2;
    const covered = tx + half > lo && tx - half < hi;
    if ((label.style.visibility === 'hidden') !== covered) label.style.visibility = covered ? 'hidden' : '';
  }
}
