/**
 * The cursor: an HTML overlay on its own compositor layer (line, grip, time, the curtain of
 * predict mode and each lane's cursor note). Moving it sets a transform and a few texts; the SVG
 * is not repainted.
 */
import type * as d3 from 'd3';
import { fmtSeconds } from '../faults/faultCatalog';
import { timeOnAxis } from './axisScale';
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
    // In the axis's unit (the ticks under it speak one unit: ./axisScale.ts).
    const [fromMs, toMs] = x.domain() as [number, number];
    const text = timeOnAxis(cursorMs, fromMs, toMs);
    // The badge's width (its text in its own font, plus padding and border) in drawing units.
    const w = (widthInFont(text, badgeFont(time, k), 7.6 * k) + 10 * k) / k;
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
    // Flip to the cursor's left when the note would not fit on its right (estimated width, no
    // layout read) and there is more room on the left.
    const need = Math.max(b.note.flipWithinPx, text.length * 7 + 12) * k;
    const right = (plotW - cx) * k;
    note.classList.toggle('flip', right < need && cx * k > right);
  }
}

/**
 * Hides the axis's tick labels that overlap [lo, hi] (drawing units; label widths measured in their
 * font) and shows the others. All reads come before the writes, and the labels' one font is read
 * once: a computed-style read between two visibility writes made the browser recalculate styles
 * once per tick (~7 ms a click on a preset, in the click's own frame).
 */
function hideTicksUnder(axis: Element, x: d3.ScaleLinear<number, number>, lo: number, hi: number, k: number): void {
  const ticks: { label: SVGTextElement; covered: boolean }[] = [];
  let font: string | null = null;
  for (const tick of axis.querySelectorAll<SVGGElement>('g.tick')) {
    const d = (tick as unknown as { __data__?: number }).__data__;
    const label = tick.querySelector('text');
    if (d === undefined || !label) continue;
    font ??= cachedFont(axis.closest('svg') ?? axis, label, k);
    const tx = x(d);
    const half = widthInFont(label.textContent ?? '', font, 7.2) / 2 + 3;
    ticks.push({ label, covered: tx + half > lo && tx - half < hi });
  }
  for (const { label, covered } of ticks) {
    if ((label.style.visibility === 'hidden') !== covered) label.style.visibility = covered ? 'hidden' : '';
  }
}

/** Canvas contexts by font: measuring text there reads no layout (only the element's computed font). */
const measurers = new Map<string, OffscreenCanvasRenderingContext2D | null>();

/** `el`'s computed font as a canvas font string, or null where none can be read (jsdom). */
function fontOf(el: Element): string | null {
  if (typeof OffscreenCanvas === 'undefined' || typeof getComputedStyle !== 'function') return null;
  const cs = getComputedStyle(el);
  return `${cs.fontStyle} ${cs.fontWeight} ${cs.fontSize} ${cs.fontFamily}`;
}

/** Widths measured, by font and text (tick labels and badges repeat: "2 s", "4 s", …). */
const widths = new Map<string, number>();

/** Width in px of `text` in `font` (a canvas font string), or `fallbackPx` per character where no canvas can measure. */
function widthInFont(text: string, font: string | null, fallbackPx: number): number {
  if (font === null) return text.length * fallbackPx;
  const key = `${font}\u0000${text}`;
  const hit = widths.get(key);
  if (hit !== undefined) return hit;
  let ctx = measurers.get(font);
  if (ctx === undefined) {
    ctx = new OffscreenCanvas(1, 1).getContext('2d');
    if (ctx) ctx.font = font;
    measurers.set(font, ctx);
  }
  const w = ctx ? ctx.measureText(text).width : text.length * fallbackPx;
  if (widths.size > 2000) widths.clear();
  widths.set(key, w);
  return w;
}

const fonts = new WeakMap<Element, { readonly key: string; readonly font: string | null }>();

/**
 * The font of `el`, remembered under `owner` (an element that outlives redraws: the badge itself,
 * the timeline's svg for its tick labels) per type scale `k` and theme (the projector theme sets a
 * heavier weight). Their fonts follow those alone, and reading a computed style on every move forced a style recalculation in the middle of
 * the timeline's redraw (~3 ms a click).
 */
function cachedFont(owner: Element, el: Element, k: number): string | null {
  const key = `${k} ${el.ownerDocument.documentElement.getAttribute('data-theme') ?? ''}`;
  const hit = fonts.get(owner);
  if (hit && hit.key === key) return hit.font;
  const font = fontOf(el);
  fonts.set(owner, { key, font });
  return font;
}

/** The cursor badge's font (screen px), read once per type scale `k` and theme (see `cachedFont`). */
function badgeFont(el: Element, k: number): string | null {
  return cachedFont(el, el, k);
}
