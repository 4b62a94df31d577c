/** Entry point: creates the app view's store and mounts the app under it. */
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { flushSync } from 'react-dom';
import { App } from './App';
import { createLockscopeStore, LockscopeProvider } from './store';
import { applyPrefs, loadPrefs } from './prefs';
import './styles.css';

const store = createLockscopeStore();
// The reader's large type and theme, before the first paint (no flash of the wrong theme).
store.setState(loadPrefs());
applyPrefs(document, store.getState(), window.matchMedia?.('(prefers-color-scheme: dark)').matches ?? false);

// `?bench` exposes the store to the UI benchmark (bench/ui.bench.ts); nothing else reads it.
if (new URLSearchParams(window.location.search).has('bench')) Object.assign(window, { __lockscope: store, __flushSync: flushSync });

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <LockscopeProvider store={store}>
      <App />
    </LockscopeProvider>
  </StrictMode>,
);
