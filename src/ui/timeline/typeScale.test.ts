/**
 * The timeline's enlargement: large type times the view's `--timeline-scale` (the workshop
 * audience's projector), with the lane-name gutter growing with it. e2e/workshop.spec.ts measures
 * the drawn result in the audience's window at 1920×1080.
 */
import { describe, expect, it } from 'vitest';
import { gutterFor, parseTimelineScale, typeScaleFor } from './fit';

describe('typeScaleFor', () => {
  it('is 1 in normal type, 1.25 in large type, times --timeline-scale', () => {
    expect(typeScaleFor(false)).toBe(1);
    expect(typeScaleFor(true)).toBe(1.25);
    expect(typeScaleFor(true, 1.4)).toBeCloseTo(1.75);
    expect(typeScaleFor(false, 1.5)).toBe(1.5);
  });
});

describe('gutterFor', () => {
  it('grows with --timeline-scale as the lane names do', () => {
    const labels = ['Worker A', 'lease:export', 'File store'];
    const base = gutterFor(labels, true);
    const big = gutterFor(labels, true, 1.4);
    expect(big).toBeGreaterThanOrEqual(base * 1.4 - 1);
    expect(big).toBeLessThanOrEqual(base * 1.4 + 1);
    // The floor scales too: a short name still gets room for the "+" and padding at that size.
    expect(gutterFor(['A'], false, 2)).toBe(256);
  });
});

describe('parseTimelineScale', () => {
  it('reads a computed custom property, 1 when unset or nonsense, capped at 3', () => {
    expect(parseTimelineScale(' 1.4')).toBe(1.4);
    expect(parseTimelineScale('')).toBe(1);
    expect(parseTimelineScale(null)).toBe(1);
    expect(parseTimelineScale('big')).toBe(1);
    expect(parseTimelineScale('0')).toBe(1);
    expect(parseTimelineScale('-2')).toBe(1);
    expect(parseTimelineScale('10')).toBe(3);
  });
});
