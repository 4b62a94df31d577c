/** Text widths measured on a canvas in an element's computed font (no layout read): the axis and the cursor's badge. */

/** Canvas contexts by font: measuring text there reads no layout (only the element's computed font). */
const measurers = new Map<string, OffscreenCanvasRenderingContext2D | null>();

/**
 * Width in px of `text` in `el`'s font (its computed style; no layout is read), or `fallbackPx` per
 * character where no canvas can measure (jsdom). A tick label is in drawing units already (the
 * SVG's own font size), the badge in screen px.
 */
export function textWidthPx(text: string, el: Element, fallbackPx: number): number {
  if (typeof OffscreenCanvas === 'undefined' || typeof getComputedStyle !== 'function') return text.length * fallbackPx;
  const cs = getComputedStyle(el);
  const font = `${cs.fontStyle} ${cs.fontWeight} ${cs.fontSize} ${cs.fontFamily}`;
  let ctx = measurers.get(font);
  if (ctx === undefined) {
    ctx = new OffscreenCanvas(1, 1).getContext('2d');
    if (ctx) ctx.font = font;
    measurers.set(font, ctx);
  }
  return ctx ? ctx.measureText(text).width : text.length * fallbackPx;
}
