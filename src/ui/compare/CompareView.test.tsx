// @vitest-environment jsdom
import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { act } from 'react';
import { CompareView } from './CompareView';
import { createLockscopeStore, type LockscopeStore } from '../store';
import { renderIn } from '../store/testing';
import { findPreset } from '../../sim';

globalThis.ResizeObserver ??= class { observe() {} unobserve() {} disconnect() {} } as unknown as typeof ResizeObserver;

describe('CompareView', () => {
  let store: LockscopeStore;
  beforeEach(() => {
    store = createLockscopeStore();
  });

  it('names the sides by the preset variant they equal', () => {
    act(() => store.getState().setView('compare'));
    renderIn(store, <CompareView />);
    expect(screen.getByTestId('compare-left')).toHaveTextContent('Left: Without the fix');
    expect(screen.getByTestId('compare-right')).toHaveTextContent('Right: With the fix');
    expect(screen.queryByTestId('same-mechanism')).toBeNull();
    expect(screen.getByRole('toolbar', { name: 'Cursor' })).toBeInTheDocument();
  });

  it('says "same scenario" when both sides are equal (and their runs byte-identical), and offers a different right-hand side', async () => {
    const user = userEvent.setup();
    // A scenario that is no preset: "the other variant" is the same scenario.
    const custom = { ...findPreset('export-lease-expiry')!.withoutFix, id: undefined, title: 'Mine' };
    act(() => store.getState().loadShared(custom, { view: 'compare' }));
    renderIn(store, <CompareView />);
    expect(screen.getByTestId('same-mechanism')).toHaveTextContent('Both sides run the same scenario, so both runs are identical');
    expect(screen.getByTestId('compare-right')).toHaveTextContent('the same scenario as the left');
    await user.click(within(screen.getByTestId('same-mechanism')).getByRole('button'));
    expect(store.getState().compareTarget).toEqual({ kind: 'switch', switchId: 'fencing' });
    expect(screen.queryByTestId('same-mechanism')).toBeNull();
    expect(screen.getByTestId('compare-right')).toHaveTextContent('Fencing token (checked by the destination): on');
  });

  it('at 0 ms both sides say "before the first event", and both follow a step to the same time', () => {
    act(() => store.getState().loadPreset('invoice-race', 'without'));
    act(() => store.getState().setView('compare'));
    renderIn(store, <CompareView />);
    for (const side of ['left', 'right']) expect(screen.getByTestId(`compare-${side}`)).toHaveTextContent('Before the first event');
    act(() => store.getState().end());
    const at = store.getState().cursorMs;
    for (const side of ['left', 'right']) {
      const h = within(screen.getByTestId(`compare-${side}`)).getByRole('heading', { name: /World at the cursor/ });
      expect(h).toHaveTextContent(new RegExp(`${at} ms · after e\\d+`));
    }
  });

  it('a "left, but …" side that would run the same as the left is offered disabled, with why', async () => {
    act(() => store.getState().loadPreset('remote-call-in-txn', 'with'));
    act(() => store.getState().setView('compare'));
    renderIn(store, <CompareView />);
    const idle = await screen.findByRole('option', { name: /Left, but Check the durable job record first: on — no effect in this run/ }, { timeout: 15_000 });
    expect(idle).toBeDisabled();
    const pool = screen.getAllByRole('option').filter((o) => !(o as HTMLOptionElement).disabled);
    expect(pool.length).toBeGreaterThan(1);
  });
});

describe('CompareView divergence', () => {
  it('names the first event where the two runs diverge and moves the cursor there', async () => {
    const user = userEvent.setup();
    const store = createLockscopeStore();
    act(() => store.getState().setView('compare'));
    renderIn(store, <CompareView />);
    const note = screen.getByTestId('divergence');
    expect(note).toHaveTextContent(/The runs first differ at [\d.]+ s \(left event \d+, right event \d+\): left .*; right /);
    // The quoted sentences lose their own full stop: no "yet.; right" or "token.." (newcomer review).
    expect(note.textContent).not.toMatch(/\.;|\.\./);
    await user.click(within(note).getByRole('button', { name: 'Go there' }));
    expect(screen.getByTestId('divergence')).toHaveClass('at-cursor');
    expect(within(screen.getByTestId('divergence')).queryByRole('button', { name: 'Go there' })).toBeNull();
  });
});
