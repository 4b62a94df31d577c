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

  it('says "same mechanism" when both sides are equal, and offers a different right-hand side', async () => {
    const user = userEvent.setup();
    // A scenario that is no preset: "the other variant" is the same scenario.
    const custom = { ...findPreset('export-lease-expiry')!.withoutFix, id: undefined, title: 'Mine' };
    act(() => store.getState().loadShared(custom, { view: 'compare' }));
    renderIn(store, <CompareView />);
    expect(screen.getByTestId('same-mechanism')).toHaveTextContent('same mechanism');
    expect(screen.getByTestId('compare-right')).toHaveTextContent('the same mechanism as the left');
    await user.click(within(screen.getByTestId('same-mechanism')).getByRole('button'));
    expect(store.getState().compareTarget).toEqual({ kind: 'switch', switchId: 'fencing' });
    expect(screen.queryByTestId('same-mechanism')).toBeNull();
    expect(screen.getByTestId('compare-right')).toHaveTextContent('Fencing token (checked by the destination): on');
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
    await user.click(within(note).getByRole('button', { name: 'Go there' }));
    expect(screen.getByTestId('divergence')).toHaveClass('at-cursor');
    expect(within(screen.getByTestId('divergence')).queryByRole('button', { name: 'Go there' })).toBeNull();
  });
});
