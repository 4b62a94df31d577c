import { describe, expect, it } from 'vitest';
import { fmtList, fmtTime } from './fmt';

describe('fmtList: the one way a sentence lists names', () => {
  it('lists none, one, two and more, with "and" by default and no serial comma', () => {
    expect(fmtList([])).toBe('');
    expect(fmtList(['A'])).toBe('A');
    expect(fmtList(['A', 'B'])).toBe('A and B');
    expect(fmtList(['A', 'B', 'C'])).toBe('A, B and C');
    expect(fmtList(['A', 'B', 'C', 'D'])).toBe('A, B, C and D');
  });

  it('says "or" when asked', () => {
    expect(fmtList(['A'], 'or')).toBe('A');
    expect(fmtList(['A', 'B'], 'or')).toBe('A or B');
    expect(fmtList(['A', 'B', 'C'], 'or')).toBe('A, B or C');
  });

  it('does not change its input', () => {
    const names = ['A', 'B', 'C'] as const;
    fmtList(names);
    expect(names).toEqual(['A', 'B', 'C']);
  });
});

describe('fmtTime at its boundaries', () => {
  it('words under a second in milliseconds and from a second on in seconds', () => {
    expect(fmtTime(0)).toBe('0 ms');
    expect(fmtTime(999)).toBe('999 ms');
    expect(fmtTime(999.6)).toBe('1 s');
    expect(fmtTime(1000)).toBe('1 s');
    expect(fmtTime(1250)).toBe('1.25 s');
    expect(fmtTime(12345)).toBe('12.345 s');
    expect(fmtTime(-1500)).toBe('-1.5 s');
    expect(fmtTime(-999)).toBe('-999 ms');
  });
});
