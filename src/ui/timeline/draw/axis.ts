/** The time axis along the top of the plot (d3-axis), seconds as "12 s". */
import * as d3 from 'd3';
import { fmtSeconds } from '../../faults/faultCatalog';

/** Draws the axis into `g` for scale `x` over `plotW` px (about one tick per 90 px, at least 3). */
export function drawAxis(g: d3.Selection<SVGGElement, unknown, null, undefined>, x: d3.ScaleLinear<number, number>, plotW: number): void {
  const axis = d3.axisTop<number>(x).ticks(Math.max(3, Math.floor(plotW / 90))).tickFormat((d) => fmtSeconds(Number(d)));
  g.call(axis as unknown as (sel: d3.Selection<SVGGElement, unknown, null, undefined>) => void).attr('font-size', 13);
}
