// @vitest-environment jsdom
import { createLockscopeStore, deriveRun, type LockscopeStore } from '.';
import { replaceCursor } from './commit';
import { flipSwitch } from '../mechanism/switches';
import type { TraceEvent } from '../../sim';

const ev = (id: number, atMs: number) => ({ id: `e${id}`, atMs }) as unknown as TraceEvent;

describe('the cursor after an edit', () => {
  let store: LockscopeStore;
  beforeEach(() => {
    store = createLockscopeStore();
  });

  it('stays before the first event when it was there (same readout before and after a switch change)', () => {
    const st = store.getState();
    expect(st.cursorIndex).toBe(-1);
    st.setScenario(flipSwitch(st.scenario, 'fencing'), 'fencing', 'switch:fencing#t');
    expect(store.getState().cursorIndex).toBe(-1);
    expect(store.getState().cursorMs).toBe(0);
  });

  it('keeps its position among events at the same millisecond', () => {
    const before = [ev(1, 0), ev(2, 0), ev(3, 0), ev(4, 5)];
    const after = [ev(1, 0), ev(2, 0), ev(3, 0), ev(4, 0), ev(5, 5)];
    expect(replaceCursor(before, after, 0, 0)).toBe(0);
    expect(replaceCursor(before, after, 1, 0)).toBe(1);
    // Between events: the last event at or before the time.
    expect(replaceCursor(before, after, 3, 7)).toBe(4);
    expect(replaceCursor(before, [ev(1, 0)], 2, 0)).toBe(0);
  });

  it('stepping to the last event reveals a hidden verdict, and it stays revealed', () => {
    const st = store.getState();
    st.setMode('predict');
    expect(store.getState().revealed).toBe(false);
    const n = deriveRun(store.getState().composed).events.length;
    st.setCursorIndex(n - 2);
    expect(store.getState().revealed).toBe(false);
    st.stepEvent(1);
    expect(store.getState().revealed).toBe(true);
    st.home();
    expect(store.getState().revealed).toBe(true);
    st.loadPreset('unsafe-release');
    expect(store.getState().revealed).toBe(false);
    expect(store.getState().mode).toBe('predict');
  });
});
