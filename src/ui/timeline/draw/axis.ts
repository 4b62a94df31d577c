/** The time axis along the top of the plot (d3-axis), in the unit that suits the visible span (../axisScale.ts). */
import * as d3 from 'd3';
import { tickFormatter } from '../axisScale';

/** Draws the axis into `g` for scale `x` over `plotW` drawing units (about one tick per 90 units, at least 3). */
export function drawAxis(g: d3.Selection<SVGGElement, unknown, null, undefined>, x: d3.ScaleLinear<number, number>, plotW: number): void {
  const count = Math.max(3, Math.floor(plotW / 90));
  const [from, to] = x.domain() as [number, number];
  const fmt = tickFormatter(from, to, x.ticks(count));
  const axis = d3.axisTop<number>(x).ticks(count).tickFormat((d) => fmt(Number(d)));
  g.call(axis as unknown as (sel: d3.Selection<SVGGElement, unknown, null, undefined>) => void).attr('font-size', 13);
}
