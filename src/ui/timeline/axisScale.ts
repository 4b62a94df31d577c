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

/** The tick labels for a visible domain [fromMs, toMs] and its ticks: all in ms or all in s. */
export function tickFormatter(fromMs: number, toMs: number, ticks: readonly number[]): (ms: number) => string {
  if (toMs <= 2_000) return (ms) => `${d3.format(',')(Math.round(ms))} ms`;
  const step = ticks.length > 1 ? Math.abs(ticks[1]! - ticks[0]!) : Math.max(1, toMs - fromMs);
  const decimals = Math.min(3, d3.precisionFixed(step / 1000));
  return (ms) => `${(ms / 1000).toFixed(decimals)} s`;
}
