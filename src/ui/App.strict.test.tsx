// @vitest-environment jsdom
/**
 * Opening a link in development (React StrictMode mounts, unmounts and re-mounts every effect)
 * must open what the link says, and the address bar must keep saying it: no stale store → URL
 * write may send the user to the catalogue.
 */
import { StrictMode, act } from 'react';
import { render, cleanup } from '@testing-library/react';
import { App } from './App';
import { createLockscopeStore, LockscopeProvider, type LockscopeStore } from './store';
import { hashOf, readHash } from './url/urlState';
import { flipSwitch } from './mechanism/switches';
import { findPreset } from '../sim';

// jsdom has no ResizeObserver (the timeline follows its container's width with one).
globalThis.ResizeObserver ??= class { observe() {} unobserve() {} disconnect() {} } as unknown as typeof ResizeObserver;

async function settle(): Promise<void> {
  // Past the deferred URL writes, the cursor throttle and the draft timer.
  await act(async () => {
    await new Promise((r) => setTimeout(r, 700));
  });
}

/** The app as start.tsx mounts it: under StrictMode, with its view's store. */
const app = (store: LockscopeStore) => <StrictMode><LockscopeProvider store={store}><App /></LockscopeProvider></StrictMode>;

describe('opening a link under StrictMode', () => {
  let store: LockscopeStore;
  beforeEach(() => {
    localStorage.clear();
    store = createLockscopeStore();
  });
  afterEach(() => cleanup());

  const cases: [string, () => string, string][] = [
    ['an old simulator route', () => '#/sim/invoice-race', 'simulate'],
    ['an old compare route', () => '#/compare/export-lease-expiry/fixed', 'compare'],
    ['a compare link with an edited scenario', () => hashOf({ composed: flipSwitch(findPreset('unsafe-release')!.withoutFix, 'fencing'), variant: 'without', view: 'compare', cursorIndex: 5, compareTarget: { kind: 'otherVariant' } }), 'compare'],
    ['a simulator link at a cursor', () => hashOf({ composed: findPreset('export-lease-expiry')!.withFix, variant: 'with', view: 'simulate', cursorIndex: 12, compareTarget: { kind: 'otherVariant' } }), 'simulate'],
  ];
  for (const [name, hash, view] of cases) {
    it(`${name} opens the ${view} view and the address keeps it`, async () => {
      window.history.replaceState(null, '', hash());
      render(app(store));
      await settle();
      expect(store.getState().view).toBe(view);
      const r = readHash(window.location.hash);
      expect(r.kind).toBe('shared');
      expect(r.kind === 'shared' && r.opts.view).toBe(view);
      expect(document.querySelector('.catalogue')).toBeNull();
    });
  }

  it('reloading (a second mount on the rewritten address) keeps the view', async () => {
    window.history.replaceState(null, '', '#/compare/export-lease-expiry');
    const first = render(app(store));
    await settle();
    const h = window.location.hash;
    first.unmount();
    store = createLockscopeStore();
    render(app(store));
    await settle();
    expect(store.getState().view).toBe('compare');
    expect(window.location.hash).toBe(h);
  });
});
