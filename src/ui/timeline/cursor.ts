/**
 * The cursor: an HTML overlay on its own compositor layer (line, grip, time, the curtain of
 * predict mode and each lane's cursor note). Moving it sets a transform and a few texts; the SVG
 * is not repainted.
 */
import type * as d3 from 'd3';
import { fmtSeconds } from '../faults/faultCatalog';
import type { LaneBox } from './layout';

/** Places the overlay `el` at `cursorMs` and updates its texts. */
export function placeCursor(el: HTMLElement, cursorMs: number, x: d3.ScaleLinear<number, number>, plotW: number, gutter: number, boxes: readonly LaneBox[]): void {
  const cx = x(cursorMs);
  const visible = cx >= 0 && cx <= plotW;
  el.style.transform = `translateX(${gutter + cx}px)`;
  const curtain = el.querySelector<HTMLElement>('.curtain');
  if (curtain) curtain.style.width = `${Math.max(0, plotW - cx) + 8}px`;
  el.style.visibility = visible ? 'visible' : 'hidden';
  const grip = el.querySelector<HTMLElement>('.cursor-grip');
  grip?.setAttribute('aria-valuenow', String(Math.round(cursorMs)));
  grip?.setAttribute('aria-valuetext', fmtSeconds(cursorMs));
  const time = el.querySelector<HTMLElement>('.cursor-time');
  if (time) {
    time.textContent = fmtSeconds(cursorMs);
    time.classList.toggle('flip', cx > plotW - 60);
  }
  for (const b of boxes) {
    if (!b.note) continue;
    const note = el.querySelector<HTMLElement>(`[data-note="${b.id}"]`);
    if (!note) continue;
    note.textContent = b.note.text(cursorMs);
    note.classList.toggle('flip', cx > plotW - b.note.flipWithinPx);
  }
}
