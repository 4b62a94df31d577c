/**
 * Text widths measured on a canvas in an element's computed font (no layout read): the axis, the
 * cursor's badge and its lane notes. A computed-style read right after a DOM write makes the
 * browser recalculate styles, so fonts are read once (`cachedFont`, `fontOf` once per pass) and
 * widths remembered by font and text.
 */

/** Canvas contexts by font: measuring text there reads no layout (only the element's computed font). */
const measurers = new Map<string, OffscreenCanvasRenderingContext2D | null>();

/** `el`'s computed font as a canvas font string, or null where none can be read (jsdom). */
export function fontOf(el: Element): string | null {
  if (typeof OffscreenCanvas === 'undefined' || typeof getComputedStyle !== 'function') return null;
  const cs = getComputedStyle(el);
  return `${cs.fontStyle} ${cs.fontWeight} ${cs.fontSize} ${cs.fontFamily}`;
}

/** Widths measured, by font and text (tick labels and badges repeat: "2 s", "4 s", …). */
const widths = new Map<string, number>();

/** Width in px of `text` in `font` (a canvas font string, `fontOf`), or `fallbackPx` per character where no canvas can measure. */
export function widthInFont(text: string, font: string | null, fallbackPx: number): number {
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
 * The font of `el`, remembered under `owner` (an element that outlives redraws: the badge, a lane
 * note, the timeline's svg for its tick labels) per type scale `k` and theme (the projector theme
 * sets a heavier weight). Their fonts follow those alone, and reading a computed style on every
 * cursor move forced a style recalculation in the middle of the timeline's redraw (~3–7 ms a click).
 */
export function cachedFont(owner: Element, el: Element, k: number): string | null {
  const key = `${k} ${el.ownerDocument.documentElement.getAttribute('data-theme') ?? ''}`;
  const hit = fonts.get(owner);
  if (hit && hit.key === key) return hit.font;
  const font = fontOf(el);
  fonts.set(owner, { key, font });
  return font;
}
