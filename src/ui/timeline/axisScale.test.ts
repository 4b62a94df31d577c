import { describe, expect, it } from 'vitest';
import { axisEndMs, tickFormatter } from './axisScale';

describe('axis extent', () => {
  it('fits a 120 ms run instead of stretching it over a second', () => {
    const end = axisEndMs(120);
    expect(end).toBeGreaterThanOrEqual(120);
    expect(end).toBeLessThanOrEqual(150);
  });

  it('keeps a long run round and covers every time it must show', () => {
    expect(axisEndMs(65_000)).toBe(70_000);
    expect(axisEndMs(60, [90])).toBeGreaterThanOrEqual(90);
  });
});

describe('tick labels', () => {
  it('speaks ms for short spans and s for long ones, one unit per axis', () => {
    const ms = tickFormatter(0, 140, [0, 20, 40]);
    expect([0, 20, 140].map(ms)).toEqual(['0 ms', '20 ms', '140 ms']);
    const s = tickFormatter(0, 70_000, [0, 10_000, 20_000]);
    expect([0, 10_000, 65_000].map(s)).toEqual(['0 s', '10 s', '65 s']);
    const fine = tickFormatter(30_000, 32_500, [30_000, 30_500, 31_000]);
    expect(fine(30_500)).toBe('30.5 s');
  });
});
