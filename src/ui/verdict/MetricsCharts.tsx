/**
 * The run's metrics as small d3 bar charts (acquisition latency, lease age at commit, counts),
 * counted either up to the cursor or over the whole run — the reader picks, and the heading says
 * which, so a figure is never read as "now" when it is the run's total.
 */
import { useDeferredValue, useEffect, useId, useRef, useState } from 'react';
import * as d3 from 'd3';
import type { DerivedRun } from '../store/derive';
import { fmtSeconds } from '../faults/faultCatalog';
import { metricsAt, useLockscope, useVisibility } from '../store';
import { typeScaleFor } from '../timeline/fit';
import { runTimeFormatter } from '../timeline/lanes';

/** A text's drawn width in the chart's units; an estimate where nothing is laid out (jsdom). */
function textWidth(el: SVGTextElement): number {
  try {
    const w = el.getComputedTextLength();
    if (w > 0) return w;
  } catch {
    // not laid out
  }
  return (el.textContent ?? '').length * 7.5;
}

/** One bar. */
export interface Bar { readonly label: string; readonly value: number; readonly text: string; readonly bad?: boolean }

/** A small horizontal bar chart drawn by d3 into an SVG React owns; `reference` draws a labelled vertical line. */
export function BarChart({ title, bars, reference }: { title: string; bars: readonly Bar[]; reference?: { value: number; label: string } }) {
  const ref = useRef<SVGSVGElement>(null);
  // Large type enlarges the chart with the page (drawn in units, scaled by the viewBox).
  const k = typeScaleFor(useLockscope((s) => s.largeType));
  const W = 300;
  const rowH = 22;
  const H = bars.length * rowH + 6;
  // Redrawn only when what it shows changed (every run makes new bar objects).
  const content = JSON.stringify([bars, reference ?? null]); // stands for bars and reference in the deps
  useEffect(() => {
    const svg = d3.select(ref.current);
    if (!ref.current) return;
    svg.selectAll('*').remove();
    const max = Math.max(1, reference?.value ?? 0, ...bars.map((b) => b.value));
    // Each value's text follows its bar: the longest text is measured first and the bars shortened
    // so that it ends inside the chart ("1 still waiting, 4 s ⚠" was cut to "1 still waiting").
    const texts = bars.map((b) => svg.append('text').attr('y', 0).attr('font-size', 13).attr('font-weight', 600).style('fill', b.bad ? 'var(--bad)' : 'var(--ink)').text(`${b.text}${b.bad ? ' ⚠' : ''}`));
    const widest = Math.max(0, ...texts.map((t) => textWidth(t.node()!)));
    const x = d3.scaleLinear().domain([0, max]).range([0, Math.max(30, W - 74 - widest - 2)]);
    bars.forEach((b, i) => {
      const y = 3 + i * rowH;
      svg.append('text').attr('x', 0).attr('y', y + 15).attr('font-size', 13).style('fill', 'var(--ink)').text(b.label);
      svg.append('rect').attr('x', 70).attr('y', y + 3).attr('height', rowH - 8).attr('width', Math.max(b.value > 0 ? 3 : 0, x(b.value))).style('fill', b.bad ? 'var(--bad)' : 'var(--accent)');
      texts[i]!.attr('x', 74 + x(b.value)).attr('y', y + 15).raise();
    });
    if (reference) {
      const rx = 70 + x(reference.value);
      svg.append('line').attr('x1', rx).attr('x2', rx).attr('y1', 0).attr('y2', H).style('stroke', 'var(--warn)').attr('stroke-dasharray', '3 2');
    }
  }, [content, H]);
  const summary = `${title}: ${bars.map((b) => `${b.label} ${b.text}`).join(', ')}${reference ? `; ${reference.label}` : ''}`;
  return (
    <figure className="metric">
      <figcaption>{title}{reference ? <span className="muted small"> · dashed: {reference.label}</span> : null}</figcaption>
      <svg ref={ref} width={W * k} height={H * k} viewBox={`0 0 ${W} ${H}`} role="img" aria-label={summary} />
    </figure>
  );
}

/** The metrics panel for a run (hidden while the view's mode hides the outcome). */
export function MetricsCharts({ run }: { run: DerivedRun }) {
  const { showMetrics, offerReveal } = useVisibility();
  const [scope, setScope] = useState<'cursor' | 'run'>('cursor');
  const group = useId();
  // Counted at low priority: a cursor move repaints the timeline first.
  const cursorMs = useDeferredValue(useLockscope((s) => s.cursorMs));
  const m = scope === 'run' ? run.metrics : metricsAt(run, cursorMs);
  const lease = run.scenario.mechanism.lock === 'lease';
  const waiting = m.acquisitionStillWaiting;
  const lost = m.commitsOnLostLease ?? 0;
  // A count only where the scenario can make it (a renewal, a fencing token, an effect per business
  // key), or once it is not 0: balance-update listed "0 renew failures, 0 stale writes rejected,
  // 0 duplicates" beside its lost update, none of which it has.
  const sc = run.scenario;
  const counts: Bar[] = [
    ...(m.renewFailures > 0 || (lease && sc.mechanism.renewal !== 'none') ? [{ label: 'renew ✕', value: m.renewFailures, text: `${m.renewFailures} renew failure${m.renewFailures === 1 ? '' : 's'}`, bad: m.renewFailures > 0 }] : []),
    ...(m.staleWritesRejected > 0 || sc.mechanism.fencing || sc.job.kind === 'fencedRow' ? [{ label: 'stale ✕', value: m.staleWritesRejected, text: `${m.staleWritesRejected} stale write${m.staleWritesRejected === 1 ? '' : 's'} rejected` }] : []),
    ...(m.duplicateEffects > 0 || sc.job.kind === 'external' || sc.job.kind === 'insertOnce' ? [{ label: 'dup', value: m.duplicateEffects, text: `${m.duplicateEffects} duplicate${m.duplicateEffects === 1 ? '' : 's'}`, bad: m.duplicateEffects > 0 }] : []),
  ];
  if (!showMetrics) {
    return (
      <section className="panel metrics" aria-label="Metrics">
        <h2>Metrics</h2>
        <p className="small muted">{offerReveal ? 'Hidden with the verdict until the last event.' : 'Hidden with the verdict.'}</p>
      </section>
    );
  }
  return (
    <section className="panel metrics" aria-label="Metrics">
      <h2>Metrics <span className="muted" data-testid="metrics-scope">{scope === 'run' ? '· whole run' : `· up to the cursor (${runTimeFormatter(run)(cursorMs)})`}</span></h2>
      <fieldset className="metrics-scope">
        <legend className="sr-only">Count the metrics</legend>
        <label><input type="radio" name={group} checked={scope === 'cursor'} onChange={() => setScope('cursor')} /> at the cursor</label>
        <label><input type="radio" name={group} checked={scope === 'run'} onChange={() => setScope('run')} /> whole run</label>
      </fieldset>
      {/* Each chart only where the scenario has what it measures (a lock, a pool wait, lost work). */}
      {run.scenario.mechanism.lock !== 'none' && (
        <BarChart
          title="Acquisition latency"
          bars={[
            { label: 'mean', value: m.acquisitionLatency.meanMs, text: m.acquisitionLatency.count ? `${fmtSeconds(m.acquisitionLatency.meanMs)}${waiting ? ' (granted)' : ''}` : waiting ? 'none granted' : '—' },
            { label: 'max', value: m.acquisitionLatency.maxMs, text: m.acquisitionLatency.count ? `${fmtSeconds(m.acquisitionLatency.maxMs)}${waiting ? ' (granted)' : ''}` : waiting ? 'none granted' : '—' },
            // A request never granted is a wait too: still open at the cursor (or the run's end).
            ...(waiting ? [{ label: 'waiting', value: waiting.maxMs, text: `${waiting.count === 1 ? '1 still waiting' : `${waiting.count} still waiting`}, ${fmtSeconds(waiting.maxMs)}${waiting.count === 1 ? '' : ' the longest'}`, bad: true }] : []),
          ]}
        />
      )}
      {m.connectionWait.count > 0 && m.connectionWait.maxMs > 0 && (
        <BarChart
          title="Waiting for a pooled connection"
          bars={[
            { label: 'mean', value: m.connectionWait.meanMs, text: fmtSeconds(m.connectionWait.meanMs) },
            { label: 'max', value: m.connectionWait.maxMs, text: fmtSeconds(m.connectionWait.maxMs), bad: true },
          ]}
        />
      )}
      {m.wastedWorkMs > 0 && (
        <BarChart
          title="Wasted work (work a failed or crashed attempt threw away)"
          bars={[{ label: 'lost', value: m.wastedWorkMs, text: fmtSeconds(m.wastedWorkMs), bad: true }]}
        />
      )}
      {lease && (
        <BarChart
          title="Lease age at commit (since its last renewal)"
          reference={{ value: run.scenario.lease.ttlMs, label: `TTL ${fmtSeconds(run.scenario.lease.ttlMs)}` }}
          bars={[
            { label: 'mean', value: m.leaseAgeAtCommit.meanMs, text: m.leaseAgeAtCommit.count ? fmtSeconds(m.leaseAgeAtCommit.meanMs) : '—' },
            // The warning is the lease store's word, not a comparison with the TTL: a commit made when the
            // store no longer held the committer's lease (expired, deleted, another owner's).
            { label: 'max', value: m.leaseAgeAtCommit.maxMs, text: m.leaseAgeAtCommit.count ? fmtSeconds(m.leaseAgeAtCommit.maxMs) : '—', bad: lost > 0 },
            ...(lost > 0 ? [{ label: 'lost', value: 0, text: `${lost} commit${lost === 1 ? '' : 's'} on a lost lease`, bad: true }] : []),
          ]}
        />
      )}
      {counts.length > 0 && <BarChart title="Counts" bars={counts} />}
    </section>
  );
}
