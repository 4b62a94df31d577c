/**
 * The timeline's horizontal scale: the width follows the container (ResizeObserver), d3-zoom
 * zooms and pans in x only (1× to 400×), and the zoom resets when the run's length changes.
 */
import { flushSync } from 'react-dom';
import { useEffect, useLayoutEffect, useMemo, useRef, useState, type RefObject } from 'react';
import * as d3 from 'd3';
import { parseTimelineScale } from './fit';

/** What the scale hook gives the timeline. */
export interface TimeScale {
  /** Width of the plot in drawing units (the SVG's viewBox: screen px divided by the type scale). */
  readonly plotW: number;
  /** Width of the plot on screen, px. */
  readonly screenW: number;
  /** Time (ms) → x (px) at the current zoom. */
  readonly x: d3.ScaleLinear<number, number>;
  /** Zooms by factor `k` around x position `aroundX`. */
  readonly zoomBy: (k: number, aroundX: number) => void;
  /** Back to the whole run. */
  readonly zoomReset: () => void;
}

/**
 * Width of `wrapRef` minus the gutter, and the zoomed scale of [startMs, endMs] over it. The plot
 * is drawn in units of `typeScale` screen px (the SVG's viewBox scales words, bars and marks
 * together: large type enlarges the timeline as it does the page). `height` (drawing units) is
 * the zoom's extent. Elements marked `.no-zoom` (markers, the scrub strip) never start a zoom.
 */
export function useTimeScale(wrapRef: RefObject<HTMLElement | null>, svgRef: RefObject<SVGSVGElement | null>, gutter: number, startMs: number, endMs: number, height: number, typeScale = 1): TimeScale {
  const [width, setWidth] = useState(800);
  const [transform, setTransform] = useState<d3.ZoomTransform>(d3.zoomIdentity);
  const zoomRef = useRef<d3.ZoomBehavior<SVGSVGElement, unknown> | null>(null);
  const screenW = Math.max(200, width - gutter - 8);
  const plotW = screenW / typeScale;
  const x = useMemo(() => transform.rescaleX(d3.scaleLinear().domain([startMs, endMs]).range([0, plotW - 14])), [transform, startMs, endMs, plotW]);

  // Width follows the container.
  useEffect(() => {
    const el = wrapRef.current;
    if (!el) return;
    const ro = new ResizeObserver((entries) => {
      const w = Math.round(entries[0]?.contentRect.width ?? 800);
      if (w > 0) setWidth(w);
    });
    ro.observe(el);
    setWidth(el.clientWidth || 800);
    return () => ro.disconnect();
  }, [wrapRef]);

  // Zoom and pan, x only.
  useEffect(() => {
    const svg = svgRef.current;
    if (!svg) return;
    const zoom = d3.zoom<SVGSVGElement, unknown>()
      .scaleExtent([1, 400])
      .translateExtent([[0, 0], [plotW, height]])
      .extent([[0, 0], [plotW, height]])
      .filter((event: Event) => {
        const t = event.target as Element;
        if (t.closest('.no-zoom')) return false;
        return (!(event as MouseEvent).button || event.type === 'wheel') && !(event as MouseEvent).ctrlKey;
      })
      .on('zoom', (event: d3.D3ZoomEvent<SVGSVGElement, unknown>) => setTransform(event.transform));
    zoomRef.current = zoom;
    d3.select(svg).call(zoom).on('dblclick.zoom', null);
    return () => {
      d3.select(svg).on('.zoom', null);
    };
  }, [svgRef, plotW, height]);

  // Reset the zoom when the scenario's length changes.
  useEffect(() => {
    const svg = svgRef.current;
    if (svg && zoomRef.current) d3.select(svg).call(zoomRef.current.transform, d3.zoomIdentity);
  }, [svgRef, startMs, endMs]);

  const zoomBy = (k: number, aroundX: number) => {
    const svg = svgRef.current;
    if (svg && zoomRef.current) d3.select(svg).transition().duration(0).call(zoomRef.current.scaleBy, k, [aroundX, 0]);
  };
  const zoomReset = () => {
    const svg = svgRef.current;
    if (svg && zoomRef.current) d3.select(svg).call(zoomRef.current.transform, d3.zoomIdentity);
  };
  return { plotW, screenW, x, zoomBy, zoomReset };
}

/**
 * The view's `--timeline-scale` (CSS custom property, inherited) at `wrapRef`: 1 unless a view's
 * styles set it (the workshop audience's window, at projector sizes). Read in a ResizeObserver
 * callback — when the element is first laid out, and whenever its size changes (a media query
 * that sets it follows the viewport, which resizes the timeline too) —, where layout is already
 * done: the page has container queries (`.transport`), so a computed-style read at commit forced
 * the page's first layout inside the render's task (~90 ms of a 250 ms long task at load on a
 * busy 2-core machine). A changed value is rendered at once (`flushSync`), before that frame is
 * painted: no frame is drawn at the wrong scale. Where there is no ResizeObserver (jsdom), read
 * once at commit.
 */
export function useTimelineScale(wrapRef: RefObject<HTMLElement | null>): number {
  const [scale, setScale] = useState(1);
  useLayoutEffect(() => {
    const el = wrapRef.current;
    if (!el || typeof getComputedStyle !== 'function') return;
    const valueNow = () => parseTimelineScale(getComputedStyle(el).getPropertyValue('--timeline-scale'));
    if (typeof ResizeObserver === 'undefined') {
      setScale(valueNow());
      return;
    }
    let current = 1;
    const ro = new ResizeObserver(() => {
      const next = valueNow();
      if (next === current) return;
      current = next;
      flushSync(() => setScale(next));
    });
    ro.observe(el);
    return () => ro.disconnect();
  }, [wrapRef]);
  return scale;
}
