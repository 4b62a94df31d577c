import { goalTable, mark, met, worstOf } from './goals';

describe('UI speed goals table', () => {
  it('a value at its target meets it, above it does not, and n/a (NaN) never does', () => {
    expect(met({ value: 16, target: 16 })).toBe(true);
    expect(met({ value: 16.1, target: 16 })).toBe(false);
    expect(met({ value: Number.NaN, target: 16 })).toBe(false);
    expect(mark(12, 16)).toBe('✓');
    expect(mark(40, 33)).toBe('✗');
  });

  it('the worst preset decides a per-preset goal, and the detail names it and counts the presets that meet it', () => {
    const r = worstOf('click → repaint, median', 16, 'ms', [{ name: 'a', value: 9 }, { name: 'b', value: 21.5 }, { name: 'c', value: 16 }]);
    expect(r.value).toBe(21.5);
    expect(r.detail).toBe('worst: b; 2/3 meet it');
    expect(met(r)).toBe(false);
    expect(() => worstOf('x', 1, 'ms', [])).toThrow(/no items measured/);
  });

  it('prints each goal with its target, the figure and whether it is met, then the count', () => {
    const t = goalTable([
      { goal: 'load → verdict', target: 1000, unit: 'ms', value: 812.4 },
      { goal: 'initial JS, gzip', target: 300, unit: 'kB', value: 301.26, detail: '12 files' },
    ]);
    const lines = t.split('\n');
    expect(lines[0]).toMatch(/^goal\s+target\s+measured\s+met\s+detail$/);
    expect(lines[2]).toMatch(/^load → verdict\s+≤ 1000 ms\s+812 ms\s+✓ met$/);
    expect(lines[3]).toMatch(/^initial JS, gzip\s+≤ 300.0 kB\s+301.3 kB\s+✗ not met\s+12 files$/);
    expect(lines.at(-1)).toBe('1 of 2 goals met');
  });
});
