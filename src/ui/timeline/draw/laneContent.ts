/** Every lane's items, each lane in its own group (a list for screen readers), in lane order. */
import type { LaneBox } from '../layout';
import type { DrawContext } from '../lanes';
import { joinItems, laneGroup, type G, type Signatures } from './items';

/** Joins each lane's items into its group, removes the groups of lanes that are gone and keeps the rest in lane order. */
export function drawLaneContent(sigs: Signatures, content: G, boxes: readonly LaneBox[], contextOf: (box: LaneBox) => DrawContext): void {
  for (const b of boxes) joinItems(sigs, laneGroup(content, b.id, b.ariaLabel), b.items(contextOf(b)), 'item');

  // Lanes that no longer exist go; the rest stay in lane order (the order screen readers list them).
  const ids = boxes.map((b) => b.id);
  content.selectChildren<SVGGElement, unknown>('g.lane').filter(function () { return !ids.includes(this.getAttribute('data-lane') ?? ''); }).remove();
  const groups = content.selectChildren<SVGGElement, unknown>('g.lane').nodes();
  const order = (el: SVGGElement) => ids.indexOf(el.getAttribute('data-lane') ?? '');
  if (groups.some((el, i) => i > 0 && order(groups[i - 1]!) > order(el))) {
    for (const el of [...groups].sort((p, q) => order(p) - order(q))) content.node()!.appendChild(el);
  }
}
