import { describe, expect, it } from 'vitest';
import { findPreset, runScenario } from '../../sim';
import { firstDivergence } from './divergence';

describe('firstDivergence', () => {
  const p = findPreset('export-lease-expiry')!;
  const faults = p.withoutFix.faults;
  const a = runScenario({ ...p.withoutFix, faults }).events;
  const b = runScenario({ ...p.withFix, faults }).events;

  it('is null for the same trace', () => {
    expect(firstDivergence(a, a)).toBeNull();
  });

  it('is the first index where the runs differ, every earlier event equal in time, actor, kind and words', () => {
    const d = firstDivergence(a, b)!;
    expect(d).not.toBeNull();
    for (let i = 0; i < d.index; i++) expect([a[i]!.atMs, a[i]!.actor, a[i]!.narration]).toEqual([b[i]!.atMs, b[i]!.actor, b[i]!.narration]);
    expect(d.left).toBe(a[d.index]);
    expect(d.right).toBe(b[d.index]);
  });

  it('a trace that is a prefix of the other diverges where the shorter ends', () => {
    const d = firstDivergence(a.slice(0, 3), a)!;
    expect(d.index).toBe(3);
    expect(d.left).toBeUndefined();
    expect(d.right).toBe(a[3]);
  });
});
