/// <reference types="vitest/config" />
import { defineConfig, type Plugin } from 'vite';
import react from '@vitejs/plugin-react';
import { readReport, simSourceHash } from './scripts/fidelityReport.mjs';
import { VitePWA } from 'vite-plugin-pwa';

/**
 * The Content-Security-Policy, as a <meta> tag. The build forbids inline scripts, eval and every
 * connection (the app makes no requests after load). The dev server needs an inline module script
 * (React Fast Refresh's preamble), a WebSocket for HMR, and inline styles (in dev, Vite injects
 * every imported CSS file as a `<style>` element), so dev relaxes exactly those three. The
 * dev-server smoke test (`e2e/dev/`) fails on any CSP violation in the console.
 */
export const CSP_BUILD = [
  "default-src 'self'",
  "script-src 'self'",
  // No inline styles either: React and d3 set element.style through the CSSOM (not governed by CSP), and the SVG export uses presentation attributes.
  "style-src 'self'",
  "img-src 'self' data: blob:",
  "font-src 'self'",
  "connect-src 'none'",
  // The fault search's Web Workers (src/ui/explore/search.worker.ts), built as same-origin module files, and the
  // offline service worker (`sw.js`, production build only).
  "worker-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
].join('; ');
export const CSP_DEV = CSP_BUILD.replace("script-src 'self'", "script-src 'self' 'unsafe-inline'")
  .replace("style-src 'self'", "style-src 'self' 'unsafe-inline'")
  .replace("connect-src 'none'", "connect-src 'self' ws: wss:");

/**
 * Who may frame the app: any page (a blog post, a slide deck: the embed view, issue 13). Browsers
 * ignore `frame-ancestors` in a `<meta>` policy (and log an error), so it travels as an HTTP
 * header: the dev and preview servers send it, and README tells a host to send it too. Allowing
 * every ancestor is safe because a framed page shows only the read-only embed view
 * (src/ui/embed/embed.ts `isFramed`): no import, no drafts or preferences written, no history
 * entries, and "Open in Lockscope" opens a new tab. The app has no account, cookie or request to
 * hijack.
 */
export const FRAME_HEADERS: Readonly<Record<string, string>> = { 'Content-Security-Policy': 'frame-ancestors *' };

function csp(): Plugin {
  let dev = false;
  return {
    name: 'lockscope-csp',
    configResolved(c) {
      dev = c.command === 'serve';
    },
    transformIndexHtml: {
      order: 'pre',
      handler: () => [{ tag: 'meta', attrs: { 'http-equiv': 'Content-Security-Policy', content: dev ? CSP_DEV : CSP_BUILD }, injectTo: 'head-prepend' }],
    },
  };
}

// Vite serves and builds the app; Vitest runs unit (src/sim, node), component (src/ui, jsdom), the UI bench's goal table (bench/goals.test.ts) and the
// fidelity harness's pure helpers (fidelity/*.test.ts: no servers needed) tests.
// The last fidelity run's report and the hash of the model's sources this build is made from: the
// app shows "checked against PostgreSQL … / Redis …" only when they match (src/ui/fidelity/).
// Read when the config loads: a dev server started before an edit of src/sim keeps the old hash
// until it restarts.
const FIDELITY = { report: readReport(), buildSimHash: simSourceHash() };

export default defineConfig({
  define: { __LOCKSCOPE_FIDELITY__: JSON.stringify(FIDELITY) },
  plugins: [
    csp(),
    react(),
    // Offline after the first visit: a Workbox service worker precaches the build (production only; the dev server
    // has none). The app registers it itself (src/ui/offline.ts: not inside a frame, a refusal is not an error); the
    // plugin's inline registration would need 'unsafe-inline'. No manifest: the goal is the cache, not an installable app.
    VitePWA({
      registerType: 'autoUpdate',
      injectRegister: false,
      manifest: false,
      workbox: {
        globPatterns: ['**/*.{js,css,html,svg,png,ico,woff2}'],
        // The statechart panel's lazily loaded layout chunk (elkjs) is over Workbox's 2 MiB default.
        maximumFileSizeToCacheInBytes: 4 * 1024 * 1024,
        navigateFallback: 'index.html',
        cleanupOutdatedCaches: true,
      },
    }),
  ],
  build: {
    rolldownOptions: {
      // src/sim/transcript has no side effects (a module-level `new Set` the bundler cannot prove
      // pure): without this rule the sim's index re-exporting it kept it in the initial chunk, though
      // only "Run it yourself" (its own chunk) uses it.
      treeshake: { moduleSideEffects: [{ test: /\/src\/sim\/transcript\//, sideEffects: false }] },
    },
  },
  server: { headers: { ...FRAME_HEADERS } },
  preview: { headers: { ...FRAME_HEADERS } },
  test: {
    globals: true,
    include: ['src/**/*.test.{ts,tsx}', 'fidelity/**/*.test.ts', 'bench/**/*.test.ts'],
    environment: 'node',
    setupFiles: ['./src/test-setup.ts'],
    // A timeout is a hang guard, not a speed goal (those live in `npm run bench`): jsdom component
    // tests that take 1 s on a quiet machine took over 5 s (Vitest's default) on a loaded 2-core one.
    testTimeout: 30_000,
  },
});
