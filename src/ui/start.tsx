/// <reference types="vite/client" />
/**
 * The app's start, run by main.tsx once the simulation core is evaluated: creates the app view's
 * store, applies the reader's prefs and the address to it, makes the link's first run in pieces
 * and mounts the app under it.
 */
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { flushSync } from 'react-dom';
import { App } from './App';
import { EmbedApp } from './embed/EmbedApp';
import { embedRequested, isFramed } from './embed/embed';
import { createLockscopeStore, LockscopeProvider, useLockscope } from './store';
import { deriveInPieces } from './store/derive';
import { applyPrefs, loadPrefs } from './prefs';
import { registerOffline } from './offline';
import { applyInitialUrl } from './url/urlSync';
import { preloadBelowTimeline } from './lazyViews';
import { nextTask } from './nextTask';

/** The full app, or the embed view (the store's `embed`, which a link may turn on later). */
function Root() {
  return useLockscope((s) => s.embed) ? <EmbedApp /> : <App />;
}

/**
 * Creates the store, applies the reader's prefs and the address to it, makes the link's first run
 * and mounts the app (or the embed view) in `root`. Resolves once the first render is scheduled;
 * throws nothing (a run that throws is left to the render, which runs it again and shows the error).
 */
export async function start(root: HTMLElement): Promise<void> {
  const store = createLockscopeStore();
  // The reader's large type and theme, before the first paint (no flash of the wrong theme).
  store.setState(loadPrefs());
  // Inside a frame, or asked for by the link (`e=1`): the embed view, never the full app.
  const framed = isFramed(window);
  store.setState({ embed: framed || embedRequested(window.location.hash) });
  // What the address says, before the first render: the first frame is the link's view (not the
  // catalogue, with a simulation per preset, and then the link's).
  applyInitialUrl(store);
  // The simulator's panels below the timeline are a chunk of their own: fetched now, in parallel with the first render.
  if (!store.getState().embed) void preloadBelowTimeline();
  // Offline after the first visit (the production build's service worker; never inside a frame).
  registerOffline(window, { enabled: import.meta.env.PROD, framed, baseUrl: import.meta.env.BASE_URL });
  applyPrefs(document, store.getState(), window.matchMedia?.('(prefers-color-scheme: dark)').matches ?? false);

  // `?bench` exposes the store to the UI benchmark (bench/ui.bench.ts); nothing else reads it.
  if (new URLSearchParams(window.location.search).has('bench')) Object.assign(window, { __lockscope: store, __flushSync: flushSync });

  // The link's run, a piece at a time (`deriveInPieces`), each piece a task of its own, before the
  // first render: the first run of a page load is slow (every function of the simulation runs for
  // the first time: ~120 ms for an 18-event preset on a busy 2-core machine), and inside the
  // render it made one long task of the run, the render and the first layout. The render then
  // finds the run in `deriveRun`'s cache.
  try {
    await nextTask();
    const more = deriveInPieces(store.getState().composed);
    while (more?.()) await nextTask();
  } catch {
    // Left to the render, which runs it again and shows the error where it belongs.
  }
  createRoot(root).render(
    <StrictMode>
      <LockscopeProvider store={store}>
        <Root />
      </LockscopeProvider>
    </StrictMode>,
  );
}
