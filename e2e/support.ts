/** Shared helpers for the Playwright journeys. */
import type { Page } from '@playwright/test';
import * as lzModule from 'lz-string';

type Lz = typeof lzModule;
/** lz-string (CommonJS): `default` under Node's ESM loader, the namespace elsewhere. */
export const lz: Lz = (lzModule as unknown as { default?: Lz }).default ?? lzModule;

/** A link fragment (with `#`) carrying this raw text as its compressed payload. */
export const rawLink = (text: string) => `#v=1&s=${lz.compressToEncodedURIComponent(text)}`;
/** A link fragment (with `#`) carrying this value as JSON. */
export const jsonLink = (value: unknown) => rawLink(JSON.stringify(value));

/** Collects uncaught page errors and console errors (CSP violations included). */
export function watchErrors(page: Page): string[] {
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(`pageerror: ${e.message}`));
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(`console: ${m.text()}`);
  });
  return errors;
}
