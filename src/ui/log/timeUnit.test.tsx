// @vitest-environment jsdom
/**
 * One unit per run: the log and the cursor readout word every time in the unit of the run's fitted
 * axis, so a run drawn on a 0–2,000 ms axis never reads "1.1 s" beside its "1,100 ms" tick (a
 * newcomer's finding), and a run of seconds keeps seconds.
 */
import { act } from '@testing-library/react';
import { EventLog } from './EventLog';
import { Transport } from '../timeline/Transport';
import { createLockscopeStore, deriveRun, useLockscope, useLockscopeStore, useRun, type LockscopeStore } from '../store';
import { renderIn } from '../store/testing';
import { runTimeUnit } from '../timeline/lanes';
import { VerdictPanel } from '../verdict/VerdictPanel';
import { Inspector } from '../inspector/Inspector';
import { BookmarksPanel } from '../bookmarks/BookmarksPanel';

function Harness() {
  const run = useRun();
  const index = useLockscope((s) => s.cursorIndex);
  const store = useLockscopeStore();
  const cursorMs = useLockscope((s) => s.cursorMs);
  return (
    <>
      <VerdictPanel run={run} onEventId={() => undefined} />
      <Inspector run={run} index={index} cursorMs={cursorMs} />
      <BookmarksPanel />
      <Transport />
      <EventLog run={run} index={index} onSelect={(i) => store.getState().setCursorIndex(i)} />
    </>
  );
}

const times = (): string[] => [...document.querySelectorAll('.log-time')].map((x) => x.textContent ?? '');
const readoutTime = (): string => document.querySelector('[data-testid="cursor-readout"] strong')?.textContent ?? '';

describe('times in the log and the cursor readout', () => {
  let store: LockscopeStore;
  beforeEach(() => {
    store = createLockscopeStore();
  });

  it('serializable-retry (its events within 1.7 s, an axis of ms): every log time and the readout in ms, past a second too', () => {
    act(() => store.getState().loadPreset('serializable-retry', 'without'));
    expect(runTimeUnit(deriveRun(store.getState().composed))).toBe('ms');
    renderIn(store, <Harness />);
    act(() => store.getState().end());
    expect(times().length).toBeGreaterThan(3);
    for (const t of times()) expect(t).toMatch(/^[\d,]+ ms(–[\d,]+ ms)?$/);
    expect(times().some((t) => /^1,\d{3} ms/.test(t))).toBe(true);
    expect(readoutTime()).toMatch(/^1,\d{3} ms$/);
    // The verdict's citations, the inspector's and the bookmark form's instant: the same unit.
    const cites = [...document.querySelectorAll('.cites button')].map((b) => b.textContent ?? '');
    expect(cites).toEqual(['e10 at 400 ms', 'e23 at 1,200 ms']);
    const inspector = document.querySelector('.inspector h2 .muted')?.textContent ?? '';
    expect(inspector).toMatch(/^1,\d{3} ms/);
    expect(document.querySelector('.bookmarks label span')?.textContent).toMatch(/\(1,\d{3} ms\)$/);
  });

  it('export-lease-expiry (a run of a minute, an axis of s): times past a second in s, and under a second too', () => {
    act(() => store.getState().loadPreset('export-lease-expiry', 'without'));
    expect(runTimeUnit(deriveRun(store.getState().composed))).toBe('s');
    renderIn(store, <Harness />);
    act(() => store.getState().end());
    for (const t of times()) expect(t).toMatch(/^[\d.]+ s(–[\d.]+ s)?$/);
    expect(times()).toContain('0 s');
    expect(readoutTime()).toMatch(/^[\d.]+ s$/);
  });
});
