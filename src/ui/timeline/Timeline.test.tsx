// @vitest-environment jsdom
import { act } from 'react';
import { PRESETS, findPreset, type Scenario } from '../../sim';
import { createLockscopeStore, deriveRun } from '../store';
import { renderIn } from '../store/testing';
import { Timeline } from './Timeline';

globalThis.ResizeObserver ??= class { observe() {} unobserve() {} disconnect() {} } as unknown as typeof ResizeObserver;

const base = findPreset('export-lease-expiry')!.withoutFix;
const el = (sc: Scenario) => <Timeline run={deriveRun(sc)} label="T" cursorMs={0} onCursorMs={() => {}} faults={sc.faults} selectedFault={null} />;

describe('Timeline drawing', () => {
  it('a re-run keeps (and does not redraw) the items it did not change, and keeps no state on DOM nodes', () => {
    const store = createLockscopeStore();
    const r = renderIn(store, el(base));
    const first = (lane: string) => r.container.querySelector(`g.lane[data-lane="${lane}"] g.item`)!;
    const aItem = first('worker-A');
    const aRect = aItem.firstElementChild;
    const items = r.container.querySelectorAll('g.item').length;
    expect(items).toBeGreaterThan(10);
    // A fault on B late in the run: A's first segment is untouched.
    const edited = { ...base, faults: [...base.faults, { kind: 'pause' as const, worker: 'B', atMs: 60_000, pauseMs: 1_000 }] };
    act(() => r.rerender(el(edited)));
    expect(first('worker-A')).toBe(aItem);
    expect(aItem.firstElementChild).toBe(aRect);
    expect(r.container.querySelectorAll('g.fault-marker')).toHaveLength(2);
    // Nothing of ours stashed on the elements (d3's and React's own keys aside).
    const d3Keys = new Set(['__data__', '__on', '__zoom', '__axis']);
    for (const node of r.container.querySelectorAll('svg, svg *')) {
      expect(Object.keys(node).filter((k) => k.startsWith('__') && !k.startsWith('__react') && !d3Keys.has(k))).toEqual([]);
    }
  });

  it('hides the violation marks and draws a curtain in predict mode', () => {
    const store = createLockscopeStore();
    store.getState().setView('simulate');
    const r = renderIn(store, el(base));
    // The overlap (a violation); the repeated upload's note is revealed by the same event (e42), so it has no mark of its own.
    expect(r.container.querySelectorAll('.violation-mark')).toHaveLength(1);
    expect(r.container.querySelector('.curtain')).toBeNull();
    act(() => store.getState().setMode('predict'));
    expect(r.container.querySelectorAll('.violation-mark')).toHaveLength(0);
    expect(r.container.querySelector('.curtain')).not.toBeNull();
    expect(r.container.querySelector('.marks-note')).toHaveTextContent('verdict hidden');
  });

  // Issue 9: on the serializable-retry axis (ms ticks) the cursor's badge read "1.7 s".
  it('the cursor badge speaks the unit of the ticks under it', () => {
    const sc = findPreset('serializable-retry')!.withoutFix;
    const store = createLockscopeStore();
    const r = renderIn(store, <Timeline run={deriveRun(sc)} label="T" cursorMs={1_700} onCursorMs={() => {}} />);
    const ticks = [...r.container.querySelectorAll('g.axis g.tick text')].map((t) => t.textContent ?? '');
    expect(ticks.length).toBeGreaterThan(3);
    for (const t of ticks) expect(t).toMatch(/ ms$/);
    expect(r.container.querySelector('.cursor-time')).toHaveTextContent(/^1,700 ms$/);
  });

  // Issue 9: dotted "waiting" bars were seen running through the lane names. Every element a
  // pattern fills (dots, hatching, crosses, duplicates) and every lane item sits in a group clipped
  // to the plot, [0, plotW]: nothing a lane draws can reach the gutter, whatever it is.
  for (const p of PRESETS) {
    it(`every lane item, pattern-filled ones included, is clipped to the plot: ${p.id}`, () => {
      const store = createLockscopeStore();
      const sc = p.withoutFix;
      const r = renderIn(store, <Timeline run={deriveRun(sc)} label="T" cursorMs={0} onCursorMs={() => {}} faults={sc.faults} selectedFault={null} />);
      const svg = r.container.querySelector('svg.timeline-svg')!;
      const plotW = Number(svg.getAttribute('viewBox')!.split(' ')[2]);
      const clipOf = (el: Element) => {
        const g = el.closest('[clip-path]');
        const id = /^url\(#(.+)\)$/.exec(g?.getAttribute('clip-path') ?? '')?.[1];
        return id ? svg.querySelector(`clipPath[id="${id}"] rect`) : null;
      };
      const filled = [...svg.querySelectorAll('[fill^="url(#"]')];
      const items = [...svg.querySelectorAll('g.item, g.bg-item')];
      expect(items.length).toBeGreaterThan(3);
      for (const el of [...filled, ...items]) {
        const rect = clipOf(el);
        expect(rect, `${el.tagName} ${el.getAttribute('fill') ?? el.getAttribute('aria-label') ?? ''}`).not.toBeNull();
        expect(Number(rect!.getAttribute('x'))).toBe(0);
        expect(Number(rect!.getAttribute('width'))).toBe(plotW);
      }
      // The pattern-filled elements are those the lanes draw (none elsewhere).
      for (const el of filled) expect(el.closest('g.content, g.lanes-bg')).not.toBeNull();
    });
  }
});

