/** Scrubbing: dragging on the time-axis strip or the cursor grip moves the cursor (d3-drag). */
import * as d3 from 'd3';

/**
 * Makes `.scrub-strip` in `svg` and `.cursor-grip` in `overlay` drag the cursor: `onCursorMs` gets
 * the time under the pointer, rounded to the millisecond, read through the scale `xNow()` returns
 * when the pointer moves (zooming does not rebind the handlers).
 */
export function attachScrub(svg: SVGSVGElement, overlay: HTMLElement | null, plotW: number, xNow: () => d3.ScaleLinear<number, number>, onCursorMs: (ms: number) => void): void {
  const drag = d3.drag<SVGElement, unknown>()
    .container(svg)
    .subject((event: d3.D3DragEvent<SVGElement, unknown, unknown>) => ({ x: event.x, y: event.y }))
    .on('start drag', (event: d3.D3DragEvent<SVGElement, unknown, unknown>) => {
      const ms = xNow().invert(Math.max(0, Math.min(plotW, event.x)));
      onCursorMs(Math.round(ms));
    });
  d3.select(svg).selectAll<SVGElement, unknown>('.scrub-strip').call(drag);
  if (overlay) d3.select(overlay).selectAll<SVGElement, unknown>('.cursor-grip').call(drag as unknown as d3.DragBehavior<SVGElement, unknown, unknown>);
}
