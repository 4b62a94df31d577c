/** Lane backgrounds: one rectangle per lane in its kind's colour; clicking (or right-clicking) one opens the fault menu there. */
import * as d3 from 'd3';
import type { LaneBox } from '../layout';
import { joinItems, type G, type Signatures } from './items';

/**
 * Draws the backgrounds (redrawn only when a lane's position or the width changes).
 * `onActivate` gets the lane and the pointer's x in the SVG and the page.
 */
export function drawBackgrounds(sigs: Signatures, bg: G, svgEl: SVGSVGElement, boxes: readonly LaneBox[], plotW: number, onActivate: (box: LaneBox, px: number, page: { x: number; y: number }) => void): void {
  joinItems(sigs, bg, boxes.map((b) => ({
    key: b.id,
    sig: `${b.y}|${b.h}|${plotW}`,
    draw: (g: G) => {
      g.append('rect').attr('class', 'lane-bg').attr('x', 0).attr('y', b.y).attr('width', plotW).attr('height', b.h)
        .style('fill', b.background)
        .on('click contextmenu', (event: MouseEvent) => {
          event.preventDefault();
          const [px] = d3.pointer(event, svgEl);
          onActivate(b, px, { x: event.pageX, y: event.pageY });
        });
    },
  })), 'bg-item', null);
}
