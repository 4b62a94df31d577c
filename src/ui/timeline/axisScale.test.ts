import { describe, expect, it } from 'vitest';
import * as d3 from 'd3';
import { PRESETS } from '../../sim';
import { deriveRun } from '../store/derive';
import { lanesOf } from './lanes';
import { axisEndMs, axisUnit, tickFormatter, timeOnAxis } from './axisScale';

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

// Issue 9: the serializable-retry axis read "1,600 ms" beside a cursor badge of "1.7 s". The
// sweep: every preset's span (both variants, as the timeline computes it), zoomed 1× to 400× at
// the start, the middle and the end, at the widths of 1280 and 1920 px windows: the ticks d3 picks
// and the badge at every tick and between them all speak the one unit of that axis.

describe('one unit per axis, the cursor badge included (every preset, every zoom)', () => {
  const unitOf = (label: string) => /^-?[\d,]+ ms$/.test(label) ? 'ms' : /^-?\d+(\.\d+)? s$/.test(label) ? 's' : `bad: ${label}`;
  for (const p of PRESETS) {
    it(p.id, () => {
      for (const sc of [p.withoutFix, p.withFix]) {
        const data = lanesOf(deriveRun(sc));
        const end = axisEndMs(data.endMs, data.violations.map((v) => v.atMs));
        for (const plotW of [1280 - 300 - 128, 1920 - 300 - 128]) {
          for (const zoom of [1, 2, 4, 16, 64, 400]) {
            for (const at of [0, 0.5, 1]) {
              const span = end / zoom;
              const from = (end - span) * at;
              const x = d3.scaleLinear().domain([from, from + span]).range([0, plotW - 14]);
              const count = Math.max(3, Math.floor(plotW / 90));
              const ticks = x.ticks(count);
              const fmt = tickFormatter(from, from + span, ticks);
              const unit = axisUnit(from, from + span);
              const labels = [...ticks.map(fmt), ...ticks.flatMap((t) => [timeOnAxis(t, from, from + span), timeOnAxis(t + span / 7, from, from + span)])];
              for (const l of labels) expect(unitOf(l), `${p.id} ×${zoom} from ${from}: ${l}`).toBe(unit);
            }
          }
        }
      }
    });
  }

  it('the badge keeps every digit of the instant in the axis\'s unit', () => {
    expect(timeOnAxis(1_700, 0, 1_800)).toBe('1,700 ms');
    expect(timeOnAxis(400, 0, 70_000)).toBe('0.4 s');
    expect(timeOnAxis(12_345, 0, 70_000)).toBe('12.345 s');
    expect(timeOnAxis(0, 0, 70_000)).toBe('0 s');
  });
});
