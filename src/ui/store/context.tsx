/**
 * The store of the view being rendered, provided by React context. Every component under a
 * `LockscopeProvider` reads and writes that provider's store; nothing reaches a module-level store.
 */
import { createContext, useContext, type ReactNode } from 'react';
import { useStore } from 'zustand';
import { deriveRun, type DerivedRun } from './derive';
import type { LockscopeState, LockscopeStore } from './types';

const StoreContext = createContext<LockscopeStore | null>(null);

/** Provides `store` to everything below it (one per view). */
export function LockscopeProvider({ store, children }: { store: LockscopeStore; children?: ReactNode }) {
  return <StoreContext value={store}>{children}</StoreContext>;
}

/**
 * The store of the enclosing view, for handlers and effects that read the state when they run
 * (`getState()`) or subscribe to it. Throws when no `LockscopeProvider` is above: a component
 * outside every view has no state to show.
 */
export function useLockscopeStore(): LockscopeStore {
  const store = useContext(StoreContext);
  if (!store) throw new Error('useLockscopeStore: no LockscopeProvider above this component');
  return store;
}

/** Selects from the enclosing view's store; re-renders when the selected value changes (Object.is). */
export function useLockscope<T>(selector: (s: LockscopeState) => T): T {
  return useStore(useLockscopeStore(), selector);
}

/** The run of the current scenario (cached; same object until the scenario changes). */
export function useRun(): DerivedRun {
  return useLockscope((s) => deriveRun(s.composed));
}
