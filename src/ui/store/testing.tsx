/** Test helper: render a component under a given view's store (each test creates its own). */
import type { ReactElement, ReactNode } from 'react';
import { render } from '@testing-library/react';
import { LockscopeProvider } from './context';
import type { LockscopeStore } from './types';

/** Renders `ui` under a `LockscopeProvider` of `store`; re-renders keep the provider. */
export function renderIn(store: LockscopeStore, ui: ReactElement) {
  return render(ui, { wrapper: ({ children }: { children: ReactNode }) => <LockscopeProvider store={store}>{children}</LockscopeProvider> });
}
