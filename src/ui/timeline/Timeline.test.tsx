// @vitest-environment jsdom
import { act } from 'react';
import { findPreset, type Scenario } from '../../sim';
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
});
