/** The time axis along the top of the plot (d3-axis), in the unit that suits the visible span (../axisScale.ts). */
import * as d3 from 'd3';
import { tickFormatter } from '../axisScale';
import { fontOf, widthInFont } from '../measure';

/**
 * Draws the axis into `g` for scale `x` over `plotW` drawing units (about one tick per 90 units,
 * at least 3). Every tick label stays inside the plot: one that would run past an edge is aligned
 * to its tick from that side (text-anchor start at the left, end at the right; `tickExtent`), and
 * an edge label that would then touch its neighbour's is not shown (its tick line stays).
 */
export function drawAxis(g: d3.Selection<SVGGElement, unknown, null, undefined>, x: d3.ScaleLinear<number, number>, plotW: number): void {
  const count = Math.max(3, Math.floor(plotW / 90));
  const [from, to] = x.domain() as [number, number];
  const fmt = tickFormatter(from, to, x.ticks(count));
  const axis = d3.axisTop<number>(x).ticks(count).tickFormat((d) => fmt(Number(d)));
  g.call(axis as unknown as (sel: d3.Selection<SVGGElement, unknown, null, undefined>) => void).attr('font-size', 13);
  const labels: { el: SVGTextElement; lo: number; hi: number; edge: boolean }[] = [];
  // One font for every label, read once before any label's anchor is written (a read after a write recalculates styles).
  let font: string | null | undefined;
  g.selectAll<SVGGElement, number>('g.tick').each(function (d) {
    const label = this.querySelector('text');
    if (!label) return;
    if (font === undefined) font = fontOf(label);
    const w = widthInFont(label.textContent ?? '', font, 7.6);
    const anchor = tickAnchor(x(d), w, plotW);
    label.setAttribute('text-anchor', anchor);
    label.removeAttribute('display');
    const [lo, hi] = tickExtent(x(d), w, anchor);
    labels.push({ el: label, lo, hi, edge: anchor !== 'middle' });
  });
  labels.sort((a, b) => a.lo - b.lo);
  // Left to right against the last label shown: of two that touch, the edge one goes (else the later).
  let shown = labels[0];
  for (const b of labels.slice(1)) {
    if (!shown || shown.hi + 4 <= b.lo) shown = b;
    else if (b.edge || !shown.edge) b.el.setAttribute('display', 'none');
    else {
      shown.el.setAttribute('display', 'none');
      shown = b;
    }
  }
}

/** How a tick label of width `w` at `tx` is anchored so that it stays inside [0, plotW]: centred when it fits, else from the edge it would cross. */
export function tickAnchor(tx: number, w: number, plotW: number): 'start' | 'middle' | 'end' {
  return tx - w / 2 < 0 ? 'start' : tx + w / 2 > plotW ? 'end' : 'middle';
}

/** The x range [lo, hi] a tick label of width `w` at `tx` covers under its anchor. */
export function tickExtent(tx: number, w: number, anchor: string | null): [number, number] {
  return anchor === 'start' ? [tx, tx + w] : anchor === 'end' ? [tx - w, tx] : [tx - w / 2, tx + w / 2];
}
