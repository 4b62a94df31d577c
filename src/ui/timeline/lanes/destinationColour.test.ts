// @vitest-environment jsdom
import * as d3 from 'd3';
import { findPreset } from '../../../sim';
import { deriveRun } from '../../store/derive';
import { lanesOf } from '.';

const run = (id: string) => deriveRun(findPreset(id)!.withoutFix);

describe('the destination lane\'s colours follow what the view may show', () => {
  it('while findings are hidden, an accepted write is drawn slate, not the "fine" green (a candidate saw a green ✓ on the duplicate)', () => {
    const r = run('fence-ignored');
    const dest = lanesOf(r).lanes.find((l) => l.ref.kind === 'destination')!;
    const fills = (showFindings: boolean) => {
      const svg = d3.select(document.createElementNS('http://www.w3.org/2000/svg', 'svg'));
      for (const item of dest.items({ y: 100, h: dest.h, X: (ms: number) => ms / 100, W: (s: number, e: number) => Math.max(2, (e - s) / 100), plotW: 800, uid: 'u', obstacles: [], showFindings })) item.draw(svg.append('g') as never);
      return svg.selectAll('rect').nodes().map((n) => (n as Element).getAttribute('fill'));
    };
    expect(fills(false)).not.toContain('#047857');
    expect(fills(false).filter((f) => f === '#475569')).toHaveLength(2);
    // Shown: the first send is green, the repeat is the duplicate's pattern.
    expect(fills(true)).toContain('#047857');
    expect(fills(true)).toContain('url(#u-dup)');
  });

  it('the lane\'s accessible name lists what this run\'s writes did, not every outcome a destination can give ("rejected as stale" told a candidate the fix)', () => {
    const label = (id: string, v: 'withoutFix' | 'withFix') => lanesOf(deriveRun(findPreset(id)![v])).lanes.find((l) => l.ref.kind === 'destination')!.ariaLabel;
    expect(label('export-lease-expiry', 'withoutFix')).toBe('Destination: 2 writes — accepted');
    expect(label('export-lease-expiry', 'withoutFix')).not.toMatch(/stale/);
    expect(label('export-lease-expiry', 'withFix')).toMatch(/^Destination: 2 writes — .*rejected as stale/);
  });

  const texts = (id: string) => {
    const dest = lanesOf(run(id)).lanes.find((l) => l.ref.kind === 'destination')!;
    const svg = d3.select(document.createElementNS('http://www.w3.org/2000/svg', 'svg'));
    for (const item of dest.items({ y: 100, h: dest.h, X: (ms: number) => ms / 10, W: (s: number, e: number) => Math.max(2, (e - s) / 10), plotW: 8_000, uid: 'u', obstacles: [], showFindings: true })) item.draw(svg.append('g') as never);
    return svg.selectAll('text').nodes().map((n) => (n as Element).textContent ?? '');
  };

  it('a repeat no invariant of the scenario checks (a note) is drawn "↻ … DUPLICATE, not checked", never "harmless": the verdict says "not checked here", and the same run breaks another invariant', () => {
    const t = texts('export-lease-expiry');
    expect(t.some((x) => x.startsWith('↻ A') && x.includes('DUPLICATE, not checked'))).toBe(true);
    expect(t.some((x) => x.includes('harmless'))).toBe(false);
    expect(t.some((x) => x.includes('⚠'))).toBe(false);
  });

  it('a repeat the scenario declares harmless is drawn "↻ … harmless DUPLICATE", not as a warning (a lesson said duplicates are harmless beside a ⚠)', () => {
    const scenario = findPreset('thumbnail')!.withoutFix;
    expect(scenario.invariants).toContainEqual({ kind: 'effectOnce', harmless: true });
    const t = texts('thumbnail');
    expect(t.some((x) => x.startsWith('↻') && x.includes('harmless DUPLICATE'))).toBe(true);
    expect(t.some((x) => x.includes('⚠'))).toBe(false);
  });
});
