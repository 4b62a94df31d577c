// @vitest-environment jsdom
import { afterEach, describe, expect, it, vi } from 'vitest';
import * as d3 from 'd3';
import { placeCursor } from './cursor';

/** A canvas that measures 7 px per character, so widths are known in jsdom. */
class FakeCanvas {
  getContext() {
    return { font: '', measureText: (t: string) => ({ width: t.length * 7 }) };
  }
}

function setup(): { overlay: HTMLElement; axis: SVGGElement; labels: SVGTextElement[] } {
  document.body.innerHTML = `<svg><g class="axis"></g></svg><div class="cursor"><span class="cursor-time"></span></div>`;
  const axis = document.querySelector<SVGGElement>('g.axis')!;
  const labels: SVGTextElement[] = [];
  for (const ms of [0, 1000, 2000, 3000, 4000]) {
    const g = document.createElementNS('http://www.w3.org/2000/svg', 'g');
    g.setAttribute('class', 'tick');
    (g as unknown as { __data__: number }).__data__ = ms;
    const t = document.createElementNS('http://www.w3.org/2000/svg', 'text');
    t.textContent = `${ms / 1000} s`;
    g.appendChild(t);
    axis.appendChild(g);
    labels.push(t);
  }
  return { overlay: document.querySelector<HTMLElement>('.cursor')!, axis, labels };
}

describe('placeCursor: the badge and the tick labels it covers', () => {
  afterEach(() => {
    vi.unstubAllGlobals();
    vi.restoreAllMocks();
  });

  it('hides exactly the tick labels under the time badge, and shows them again when it moves on', () => {
    vi.stubGlobal('OffscreenCanvas', FakeCanvas);
    const { overlay, axis, labels } = setup();
    const x = d3.scaleLinear().domain([0, 4000]).range([0, 400]);
    placeCursor(overlay, 900, x, 400, 0, [], 1, axis);
    // Badge "0.9 s" (5 chars → 35 px + 10 px padding) spans 90..144; the "1 s" label at 100 (half width 10.5 + 3) is covered.
    expect(labels.map((l) => l.style.visibility === 'hidden')).toEqual([false, true, false, false, false]);
    placeCursor(overlay, 2900, x, 400, 0, [], 1, axis);
    expect(labels.map((l) => l.style.visibility === 'hidden')).toEqual([false, false, false, true, false]);
  });

  it('reads computed styles once per type scale, not once per tick label and move (each read forced a style recalculation in the click’s frame)', () => {
    vi.stubGlobal('OffscreenCanvas', FakeCanvas);
    const spy = vi.spyOn(window, 'getComputedStyle');
    const { overlay, axis } = setup();
    const x = d3.scaleLinear().domain([0, 4000]).range([0, 400]);
    for (const ms of [500, 1500, 2500, 3500]) placeCursor(overlay, ms, x, 400, 0, [], 1, axis);
    // One read for the badge, one for the tick labels' shared font.
    expect(spy).toHaveBeenCalledTimes(2);
    placeCursor(overlay, 500, x, 400, 0, [], 1.25, axis);
    expect(spy).toHaveBeenCalledTimes(4);
  });
});
