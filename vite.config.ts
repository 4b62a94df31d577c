/// <reference types="vitest/config" />
import { defineConfig, type Plugin } from 'vite';
import react from '@vitejs/plugin-react';

/**
 * The Content-Security-Policy, as a <meta> tag. The build forbids inline scripts, eval and every
 * connection (the app makes no requests after load). The dev server needs an inline module script
 * (React Fast Refresh's preamble) and a WebSocket for HMR, so dev relaxes exactly those two.
 */
export const CSP_BUILD = [
  "default-src 'self'",
  "script-src 'self'",
  // No inline styles either: React and d3 set element.style through the CSSOM (not governed by CSP), and the SVG export uses presentation attributes.
  "style-src 'self'",
  "img-src 'self' data: blob:",
  "font-src 'self'",
  "connect-src 'none'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
].join('; ');
const CSP_DEV = CSP_BUILD.replace("script-src 'self'", "script-src 'self' 'unsafe-inline'").replace("connect-src 'none'", "connect-src 'self' ws: wss:");

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

// Vite serves and builds the app; Vitest runs unit (src/sim, node), component (src/ui, jsdom) and the
// fidelity harness's pure helpers (fidelity/*.test.ts: no servers needed) tests.
export default defineConfig({
  plugins: [csp(), react()],
  test: {
    globals: true,
    include: ['src/**/*.test.{ts,tsx}', 'fidelity/**/*.test.ts'],
    environment: 'node',
    setupFiles: ['./src/test-setup.ts'],
  },
});
