/**
 * Offline after the first visit: registers the service worker that the production build's
 * vite-plugin-pwa (Workbox) writes as `sw.js`, precaching the whole build. The dev server has
 * none. Not inside a frame: an embed is a guest in someone else's page and does not install the
 * whole app there (a browser that blocks third-party storage would refuse it anyway). A refused
 * registration (private mode, storage blocked) only means no offline copy: it is never an error
 * on the page.
 */

/** Where the build's service worker lives, below the app's base path. */
export const SERVICE_WORKER_FILE = 'sw.js';

/**
 * Registers the service worker once the page has loaded (so precaching never competes with the
 * first paint). `enabled`: the production build only. Returns whether it tried.
 */
export function registerOffline(win: Window, opts: { enabled: boolean; framed: boolean; baseUrl: string }): boolean {
  if (!opts.enabled || opts.framed || !('serviceWorker' in win.navigator)) return false;
  const register = () => {
    win.navigator.serviceWorker.register(`${opts.baseUrl}${SERVICE_WORKER_FILE}`, { scope: opts.baseUrl }).catch(() => {
      // No offline copy in this browser; the app works as before.
    });
  };
  if (win.document.readyState === 'complete') register();
  else win.addEventListener('load', register, { once: true });
  return true;
}
