/**
 * The odds' two charts, drawn by d3 into SVGs React owns, coloured only through the theme's CSS
 * variables (set with `.style()`, so the light, dark and projector themes all apply):
 * - `OddsLineChart`: P(violation) against the lease TTL, with the 95% Wilson band and the
 *   scenario's current TTL marked;
 * - `OddsHeatMap`: TTL (rows) × pause length (columns) → P(violation | one pause of that length),
 *   a cell with no violation drawn as safe, the rest in the theme's "bad" colour whose opacity
 *   grows with P, and its legend.
 */
import { useEffect, useRef } from 'react';
import * as d3 from 'd3';
import type { HeatCell, OddsPoint } from '../../sim/search/odds';
import { useLockscope } from '../store';
import { typeScaleFor } from '../timeline/fit';
import { fmtTime } from '../../sim';

/** Percent with one decimal below 10 %, whole above. */
export function fmtP(p: number): string {
  const v = p * 100;
  return `${v > 0 && v < 10 ? Math.round(v * 10) / 10 : Math.round(v)}%`;
}

/** Opacity of a heat-map cell's "bad" fill for a probability (> 0). */
export function heatOpacity(p: number): number {
  return 0.15 + 0.85 * p;
}

const FONT = 12;

/** A duration for an axis or a title: the app's one time formatter (`fmtTime`). */
export const fmtSeconds = fmtTime;

/** P(violation) against TTL with its confidence band. */
export function OddsLineChart({ points, currentTtlMs, runs }: { points: readonly OddsPoint[]; currentTtlMs: number; runs: number }) {
  const ref = useRef<SVGSVGElement>(null);
  const k = typeScaleFor(useLockscope((s) => s.largeType));
  const W = 520;
  const H = 250;
  const m = { top: 12, right: 16, bottom: 40, left: 48 };
  const content = JSON.stringify([points, currentTtlMs]);
  useEffect(() => {
    if (!ref.current) return;
    const svg = d3.select(ref.current);
    svg.selectAll('*').remove();
    const ttls = points.map((p) => p.ttlMs);
    const lo = Math.min(...ttls, currentTtlMs);
    const hi = Math.max(...ttls, currentTtlMs);
    const x = d3.scaleLinear().domain([lo, hi === lo ? lo + 1 : hi]).nice().range([m.left, W - m.right]);
    const y = d3.scaleLinear().domain([0, 1]).range([H - m.bottom, m.top]);
    const axisX = svg.append('g').attr('transform', `translate(0,${H - m.bottom})`).style('color', 'var(--muted)')
      .call(d3.axisBottom(x).ticks(6).tickFormat((v) => fmtSeconds(Number(v))));
    const axisY = svg.append('g').attr('transform', `translate(${m.left},0)`).style('color', 'var(--muted)')
      .call(d3.axisLeft(y).ticks(5).tickFormat((v) => `${Math.round(Number(v) * 100)}%`));
    for (const a of [axisX, axisY]) a.selectAll('text').attr('font-size', FONT).style('fill', 'var(--ink)');
    svg.append('g').selectAll('line').data(y.ticks(5)).join('line')
      .attr('x1', m.left).attr('x2', W - m.right).attr('y1', (d) => y(d)).attr('y2', (d) => y(d))
      .style('stroke', 'var(--row-line)').attr('stroke-width', 1);
    svg.append('text').attr('x', (m.left + W - m.right) / 2).attr('y', H - 6).attr('text-anchor', 'middle').attr('font-size', FONT).style('fill', 'var(--ink)').text('lease TTL');
    svg.append('text').attr('transform', `translate(12,${(H - m.bottom + m.top) / 2}) rotate(-90)`).attr('text-anchor', 'middle').attr('font-size', FONT).style('fill', 'var(--ink)').text('P(violation)');
    const band = d3.area<OddsPoint>().x((d) => x(d.ttlMs)).y0((d) => y(d.low)).y1((d) => y(d.high));
    svg.append('path').datum(points).attr('class', 'odds-band').attr('d', band).style('fill', 'var(--accent)').style('fill-opacity', '0.2');
    const line = d3.line<OddsPoint>().x((d) => x(d.ttlMs)).y((d) => y(d.p));
    svg.append('path').datum(points).attr('class', 'odds-line').attr('d', line).style('fill', 'none').style('stroke', 'var(--accent)').attr('stroke-width', 2);
    svg.append('g').selectAll('circle').data(points).join('circle').attr('class', 'odds-point')
      .attr('cx', (d) => x(d.ttlMs)).attr('cy', (d) => y(d.p)).attr('r', 3.5)
      .style('fill', (d) => (d.violations > 0 ? 'var(--bad)' : 'var(--held)'))
      .append('title').text((d) => `TTL ${fmtSeconds(d.ttlMs)}: ${d.violations} of ${d.runs} runs violated (${fmtP(d.p)}, 95% CI ${fmtP(d.low)}–${fmtP(d.high)})`);
    const cx = x(currentTtlMs);
    svg.append('line').attr('x1', cx).attr('x2', cx).attr('y1', m.top).attr('y2', H - m.bottom).style('stroke', 'var(--warn)').attr('stroke-dasharray', '4 3').attr('stroke-width', 1.5);
    svg.append('text').attr('x', cx + 4).attr('y', m.top + 10).attr('font-size', FONT).style('fill', 'var(--warn)').text(`current TTL ${fmtSeconds(currentTtlMs)}`);
  }, [content, H]);
  const summary = `P(violation) against lease TTL, ${runs} runs per TTL: ${points.map((p) => `${fmtSeconds(p.ttlMs)} ${fmtP(p.p)} (95% CI ${fmtP(p.low)}–${fmtP(p.high)})`).join('; ')}`;
  return (
    <figure className="odds-figure">
      <figcaption>P(violation) by lease TTL <span className="muted small">· band: 95% confidence (Wilson) · dashed: the scenario's TTL</span></figcaption>
      <svg ref={ref} className="odds-line-chart" width={W * k} height={H * k} viewBox={`0 0 ${W} ${H}`} role="img" aria-label={summary} />
    </figure>
  );
}

/** TTL × pause length → P(violation | one pause of that length), with its legend. */
export function OddsHeatMap({ cells, runs }: { cells: readonly HeatCell[]; runs: number }) {
  const ref = useRef<SVGSVGElement>(null);
  const k = typeScaleFor(useLockscope((s) => s.largeType));
  const ttls = [...new Set(cells.map((c) => c.ttlMs))];
  const pauses = [...new Set(cells.map((c) => c.pauseMs))];
  const m = { top: 8, right: 12, bottom: 96, left: 70 };
  const cellW = Math.max(44, Math.min(64, 440 / Math.max(1, pauses.length)));
  const cellH = 26;
  const W = m.left + pauses.length * cellW + m.right;
  const H = m.top + ttls.length * cellH + m.bottom;
  const content = JSON.stringify(cells);
  useEffect(() => {
    if (!ref.current) return;
    const svg = d3.select(ref.current);
    svg.selectAll('*').remove();
    const x = d3.scaleBand<number>().domain(pauses).range([m.left, m.left + pauses.length * cellW]).padding(0.06);
    const y = d3.scaleBand<number>().domain(ttls).range([m.top, m.top + ttls.length * cellH]).padding(0.08);
    const g = svg.append('g').selectAll('g').data(cells).join('g').attr('class', 'odds-cell')
      .attr('transform', (c) => `translate(${x(c.pauseMs)},${y(c.ttlMs)})`);
    g.append('rect').attr('width', x.bandwidth()).attr('height', y.bandwidth()).attr('rx', 3)
      .style('fill', (c) => (c.violations === 0 ? 'var(--held-bg)' : 'var(--bad)'))
      .style('fill-opacity', (c) => (c.violations === 0 ? '1' : String(heatOpacity(c.p))))
      .style('stroke', (c) => (c.violations === 0 ? 'var(--held)' : 'none')).attr('stroke-width', 0.75);
    g.append('text').attr('x', x.bandwidth() / 2).attr('y', y.bandwidth() / 2 + 4).attr('text-anchor', 'middle').attr('font-size', 11).attr('font-weight', 600)
      .style('fill', (c) => (c.violations === 0 ? 'var(--held)' : c.p >= 0.5 ? 'var(--on-accent)' : 'var(--ink)'))
      .text((c) => fmtP(c.p));
    g.append('title').text((c) => `TTL ${fmtSeconds(c.ttlMs)}, one pause of ${fmtSeconds(c.pauseMs)}: ${c.violations} of ${c.runs} runs violated (${fmtP(c.p)})`);
    const axisX = svg.append('g').attr('transform', `translate(0,${m.top + ttls.length * cellH})`).style('color', 'var(--muted)').call(d3.axisBottom(x).tickFormat((v) => fmtSeconds(v)));
    const axisY = svg.append('g').attr('transform', `translate(${m.left},0)`).style('color', 'var(--muted)').call(d3.axisLeft(y).tickFormat((v) => fmtSeconds(v)));
    for (const a of [axisX, axisY]) a.selectAll('text').attr('font-size', FONT).style('fill', 'var(--ink)');
    const plotBottom = m.top + ttls.length * cellH;
    svg.append('text').attr('x', m.left + (pauses.length * cellW) / 2).attr('y', plotBottom + 32).attr('text-anchor', 'middle').attr('font-size', FONT).style('fill', 'var(--ink)').text('pause length');
    svg.append('text').attr('transform', `translate(12,${m.top + (ttls.length * cellH) / 2}) rotate(-90)`).attr('text-anchor', 'middle').attr('font-size', FONT).style('fill', 'var(--ink)').text('lease TTL');
    // Legend: safe, then P in steps of 10 %.
    const ly = plotBottom + 48;
    const legend = svg.append('g').attr('class', 'odds-legend').attr('transform', `translate(${m.left},${ly})`);
    legend.append('rect').attr('width', 18).attr('height', 12).attr('rx', 2).style('fill', 'var(--held-bg)').style('stroke', 'var(--held)').attr('stroke-width', 0.75);
    legend.append('text').attr('x', 22).attr('y', 10).attr('font-size', 11).style('fill', 'var(--ink)').text(`no violation in ${runs} runs`);
    // Second row: the "bad" scale, from just above 0 % to 100 % in steps of 10 %.
    const sx = 30;
    const steps = d3.range(1, 11).map((i) => i / 10);
    legend.selectAll('rect.step').data(steps).join('rect').attr('class', 'step').attr('x', (_d, i) => sx + i * 14).attr('y', 20).attr('width', 14).attr('height', 12)
      .style('fill', 'var(--bad)').style('fill-opacity', (p) => String(heatOpacity(p)));
    legend.append('text').attr('x', sx - 4).attr('y', 30).attr('text-anchor', 'end').attr('font-size', 11).style('fill', 'var(--ink)').text('>0%');
    legend.append('text').attr('x', sx + steps.length * 14 + 4).attr('y', 30).attr('font-size', 11).style('fill', 'var(--ink)').text('100% of runs violated');
  }, [content, cellW, H]);
  const safe = cells.filter((c) => c.violations === 0).length;
  const summary = `Heat map of P(violation) by lease TTL and pause length, ${runs} runs per cell: ${safe} of ${cells.length} cells without a violation. ${cells.map((c) => `TTL ${fmtSeconds(c.ttlMs)} pause ${fmtSeconds(c.pauseMs)}: ${fmtP(c.p)}`).join('; ')}`;
  return (
    <figure className="odds-figure">
      <figcaption>If one worker pauses this long: P(violation) <span className="muted small">· rows: lease TTL · columns: pause length</span></figcaption>
      <svg ref={ref} className="odds-heat-map" width={Math.max(W, 380) * k} height={H * k} viewBox={`0 0 ${Math.max(W, 380)} ${H}`} role="img" aria-label={summary} />
    </figure>
  );
}
