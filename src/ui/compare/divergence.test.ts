import { describe, expect, it } from 'vitest';
import { findPreset, runScenario } from '../../sim';
import { firstDivergence } from './divergence';

const pair = (id: string) => {
  const p = findPreset(id)!;
  return [runScenario(p.withoutFix).events, runScenario({ ...p.withFix, faults: p.withoutFix.faults }).events] as const;
};
// Events that did the same thing (wording aside: see divergence.ts's sig).
const same = (x: { atMs: number; actor: string; kind: string; reply?: string }, y: typeof x) => x.atMs === y.atMs && x.actor === y.actor && x.kind === y.kind && x.reply === y.reply;

describe('firstDivergence', () => {
  const [a, b] = pair('export-lease-expiry');

  it('is null for the same trace', () => {
    expect(firstDivergence(a, a)).toBeNull();
  });

  it('skips events only one mechanism has (the fencing INCR) and wording-only differences, and names the first place both runs do something different: the stale write rejected', () => {
    const d = firstDivergence(a, b)!;
    // The right run has extra events before it (fencing tokens), so the indexes differ.
    expect(d.rightIndex).toBeGreaterThan(d.leftIndex);
    expect(b.slice(0, d.rightIndex).some((e) => /fencing token/.test(e.narration))).toBe(true);
    expect(d.left).toMatchObject({ actor: 'A', reply: '(pending: no reply yet)' });
    expect(d.right).toMatchObject({ actor: 'A', atMs: d.left!.atMs });
    expect(d.right!.reply).toMatch(/^409 Conflict: stale fencing token 33/);
    // Every left event before it has its twin, in order, on the right.
    let j = 0;
    for (const e of a.slice(0, d.leftIndex)) {
      while (j < d.rightIndex && !same(e, b[j]!)) j++;
      expect(j).toBeLessThan(d.rightIndex);
      j++;
    }
  });

  it('renew-partition: the fix is where A stops before its write', () => {
    const [x, y] = pair('renew-partition');
    expect(firstDivergence(x, y)!.right!.narration).toMatch(/stops before its write\./);
  });

  it('a trace that is a prefix of the other diverges where the shorter ends', () => {
    const d = firstDivergence(a.slice(0, 3), a)!;
    expect([d.leftIndex, d.rightIndex]).toEqual([3, 3]);
    expect(d.left).toBeUndefined();
    expect(d.right).toBe(a[3]);
  });

  it('only extra events on one side: the first of them', () => {
    const extra = [...a.slice(0, 5), a[20]!, ...a.slice(5, 10)];
    const d = firstDivergence(a.slice(0, 10), extra)!;
    expect(d.rightIndex).toBe(5);
    expect(d.right).toBe(a[20]);
  });
});
