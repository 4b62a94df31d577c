/**
 * Keyed, incremental drawing: every drawn thing (a segment, a mark, a bar) is an `Item` with a
 * key that names it across runs and a signature of everything it draws. `joinItems` enters new
 * items, removes gone ones and redraws only those whose signature changed, so that a fault edit
 * touches only what it changed (ARCHITECTURE.md, "Keeping a fault edit within one frame").
 * Signatures are kept in a `Signatures` table owned by the timeline, not on the elements.
 */
import * as d3 from 'd3';
import { r1, type Box } from '../fit';

/** A d3 selection of one SVG group. */
export type G = d3.Selection<SVGGElement, unknown, null, undefined>;

/**
 * One drawn thing. `key` names it across runs (so a re-run that keeps it keeps its element);
 * `sig` is everything it draws (positions, text, colours): an element whose signature did not
 * change is not touched at all.
 */
export interface Item {
  readonly key: string;
  readonly sig: string;
  /** Accessible name of the element. */
  readonly label?: string;
  /**
   * The events a violation cites that this item draws in the violation colour (`data-cites` on its
   * element). Only such an item may draw red (../../verdict/citations.ts); absent: it draws none.
   */
  readonly cites?: readonly string[];
  /** Draws the item into its (emptied) group. */
  readonly draw: (g: G) => void;
}

/** The signature each element was last drawn with (one table per timeline; entries go with their elements). */
export class Signatures {
  private readonly drawn = new WeakMap<Element, string>();

  /** Records `sig` for `el`; false when `el` already shows it (nothing to redraw). */
  update(el: Element, sig: string): boolean {
    if (this.drawn.get(el) === sig) return false;
    this.drawn.set(el, sig);
    return true;
  }

  /** Forgets what `el` shows: its next join redraws it (a dragged fault marker moved by hand). */
  forget(el: Element): void {
    this.drawn.delete(el);
  }
}

/** Keyed join of `items` into `parent`'s `g.<cls>` children: enter, exit, and redraw only what changed. */
export function joinItems(sigs: Signatures, parent: G, items: readonly Item[], cls: string, role: string | null = 'listitem'): void {
  // Keys must be unique for a keyed join.
  const seen = new Map<string, number>();
  const data = items.map((it) => {
    const n = seen.get(it.key) ?? 0;
    seen.set(it.key, n + 1);
    return n === 0 ? it : { ...it, key: `${it.key}#${n}` };
  });
  const sel = parent.selectChildren<SVGGElement, Item>(`g.${cls}`).data(data, (d) => d.key);
  sel.exit().remove();
  const all = sel.enter().append('g').attr('class', cls).merge(sel);
  all.each(function (d) {
    if (!sigs.update(this, `${d.sig}|${d.cites?.join(' ') ?? ''}`)) return;
    this.replaceChildren();
    if (role) this.setAttribute('role', role);
    if (d.label !== undefined) this.setAttribute('aria-label', d.label);
    if (d.cites && d.cites.length > 0) this.setAttribute('data-cites', d.cites.join(' '));
    else this.removeAttribute('data-cites');
    d.draw(d3.select(this));
  });
  all.order();
}

/** A persistent group per lane (role list), keyed by lane id. */
export function laneGroup(content: G, id: string, ariaLabel: string): G {
  let g = content.selectChildren<SVGGElement, unknown>(`g.lane[data-lane="${id}"]`) as unknown as G;
  if (g.empty()) g = content.append('g').attr('class', 'lane').attr('data-lane', id).attr('role', 'list').attr('pointer-events', 'none') as unknown as G;
  if (g.attr('aria-label') !== ariaLabel) g.attr('aria-label', ariaLabel);
  return g;
}

/**
 * A backing for words drawn over a pattern (a waiting bar's dots, a paused bar's hatching): a
 * rect in the bar's own `fill` under the text line `line` (drawing units), from 2 units left of
 * the words at `x` to `estimatePx` (the width their placement reserved) and a tenth more right of it, never past
 * `maxX` (the bar's or the plot's right edge). Drawn before the words, so the pattern cannot show
 * between or inside the letters (e2e/collisions.ts checks every such label has one).
 */
export function labelBacking(g: G, x: number, maxX: number, line: Box, estimatePx: number, fill: string): void {
  const x0 = x - 2;
  // 10 % over the estimate: bold glyphs run wider than placeText's per-character guess.
  const x1 = Math.min(x + estimatePx * 1.1 + 2, maxX);
  if (x1 <= x0) return;
  g.append('rect').attr('class', 'label-backing').attr('x', r1(x0)).attr('y', r1(line.y0)).attr('width', r1(x1 - x0)).attr('height', r1(line.y1 - line.y0)).attr('fill', fill).attr('pointer-events', 'none');
}
