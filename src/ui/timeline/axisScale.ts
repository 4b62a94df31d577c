/**
 * The time axis's extent and words: the plot spans the run (from 0 to its last event, padded to
 * a round figure) so that a run whose statements happen within 120 ms fills the width, and the
 * ticks speak the unit that suits what is on screen (ms for spans under 2 s, otherwise s with as
 * many decimals as the tick step needs).
 */
import * as d3 from 'd3';

/**
 * End of the axis for a run ending at `endMs` that must also show `mustShowMs` (the events the
 * verdict cites, fault times): the latest of them plus 3 %, rounded up to a round figure.
 */
export function axisEndMs(endMs: number, mustShowMs: readonly number[] = []): number {
  const hi = Math.max(1, endMs, ...mustShowMs);
  const end = d3.scaleLinear().domain([0, hi * 1.03]).nice(8).domain()[1]!;
  return Math.max(end, hi);
}

/** The one unit of an axis. */
export type AxisUnit = 'ms' | 's';

/** The unit of the axis over the visible domain [fromMs, toMs]: ms while it ends by 2 s, else s. */
export function axisUnit(_fromMs: number, toMs: number): AxisUnit {
  return toMs <= 2_000 ? 'ms' : 's';
}

/** The tick labels for a visible domain [fromMs, toMs] and its ticks: all in ms or all in s. */
export function tickFormatter(fromMs: number, toMs: number, ticks: readonly number[]): (ms: number) => string {
  if (axisUnit(fromMs, toMs) === 'ms') return (ms) => `${d3.format(',')(Math.round(ms))} ms`;
  const step = ticks.length > 1 ? Math.abs(ticks[1]! - ticks[0]!) : Math.max(1, toMs - fromMs);
  const decimals = Math.min(3, d3.precisionFixed(step / 1000));
  return (ms) => `${(ms / 1000).toFixed(decimals)} s`;
}

/**
 * An instant in the unit of the axis it sits on (the cursor's time badge): "1,700 ms" on an axis of
 * ms ticks, "1.7 s" (or "0.4 s") on one of seconds, with every digit the instant has (to the ms), so
 * the badge never speaks another unit than the ticks beside it (issue 9: "1,600 ms" next to "1.7 s").
 */
export function timeOnAxis(ms: number, fromMs: number, toMs: number): string {
  return timeInUnit(ms, axisUnit(fromMs, toMs));
}

/**
 * An instant in `unit` with every digit it has (to the ms): "1,100 ms" or "1.1 s". The event log
 * and the cursor readout word times in the unit of the run's fitted axis (`axisUnit(0,
 * fitAxisEndMs(run))`), so a run drawn on a 0–2,000 ms axis never reads "1.1 s" beside it.
 */
export function timeInUnit(ms: number, unit: AxisUnit): string {
  const r = Math.round(ms);
  if (unit === 'ms') return `${d3.format(',')(r)} ms`;
  return `${String(Number((r / 1000).toFixed(3)))} s`;
}
