/**
 * Views and panels that the first paint of the simulator does not need (the editor, compare,
 * lessons, workshop, the fault search, the odds, the interview panels, "Run it yourself", the help
 * dialog's notes) are separate chunks of the build, loaded by `import()` (issue 9: the initial
 * JavaScript). `lazyView` wraps such a component for React:
 *  - before its chunk has loaded, rendering it suspends (the nearest `<Suspense>` shows its
 *    fallback) and starts the load;
 *  - once loaded — by a render or by `preload()` — it renders synchronously, like a component
 *    imported statically: no fallback for a frame, no remount.
 * `preloadViews()` loads every declared one (the app calls it in idle time after the first paint,
 * so that opening a view later costs no fetch; component tests call it before rendering). The
 * production build's service worker precaches every chunk (vite.config.ts), so they load offline.
 */
import { lazy, type ComponentType, type LazyExoticComponent } from 'react';

/** A lazily loaded component with its `preload()` (resolves once the chunk is loaded; rejects when the import fails). */
export type LazyView<P> = LazyExoticComponent<ComponentType<P>> & { readonly preload: () => Promise<void> };

const declared: (() => Promise<void>)[] = [];

/**
 * A thenable that calls back at once. React's `lazy` calls `then` once and, when the callback ran
 * synchronously, renders the module without suspending; it uses nothing else of the thenable.
 */
function settled<T>(value: T): Promise<T> {
  return { then: (onFulfilled: (v: T) => unknown) => void onFulfilled(value) } as unknown as Promise<T>;
}

/**
 * Declares a lazily loaded component: `load` imports its module and returns the component, e.g.
 * `lazyView(() => import('./editor/EditorView').then((m) => m.EditorView))`. A failed import
 * (offline without the service worker's copy) may be retried by a later `preload()`; a render
 * that saw it fail shows the error to the nearest error boundary, as React's `lazy` does.
 */
export function lazyView<P>(load: () => Promise<ComponentType<P>>): LazyView<P> {
  let loaded: ComponentType<P> | null = null;
  let pending: Promise<ComponentType<P>> | null = null;
  const start = (): Promise<ComponentType<P>> => {
    pending ??= load().then(
      (c) => (loaded = c),
      (e: unknown) => {
        pending = null;
        throw e;
      },
    );
    return pending;
  };
  const Lazy = lazy(() => (loaded ? settled({ default: loaded }) : start().then((c) => ({ default: c }))));
  const preload = () => start().then(() => undefined);
  declared.push(preload);
  return Object.assign(Lazy, { preload });
}

/** Loads every lazy view declared so far (the modules that declare them must have been imported). */
export function preloadViews(): Promise<void> {
  return Promise.all(declared.map((p) => p())).then(() => undefined);
}

/**
 * Loads every declared lazy view one after the other in the browser's idle time (`requestIdleCallback`,
 * else a timer), never during a frame's work; failures are ignored (the view loads when opened).
 * Returns a function that stops before the next one.
 */
export function preloadViewsWhenIdle(): () => void {
  let stopped = false;
  let i = 0;
  const ric = (globalThis as { requestIdleCallback?: (cb: () => void, o?: { timeout: number }) => number }).requestIdleCallback;
  const next = () => {
    if (stopped || i >= declared.length) return;
    const p = declared[i++]!;
    const go = () => {
      if (!stopped) void p().catch(() => undefined).then(next);
    };
    if (ric) ric(go, { timeout: 2000 });
    else setTimeout(go, 50);
  };
  next();
  return () => {
    stopped = true;
  };
}
