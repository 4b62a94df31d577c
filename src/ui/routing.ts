/**
 * The first hash routes: `#/` catalogue, `#/sim/<preset>[/fixed]` simulator,
 * `#/compare/<preset>[/fixed]`. Still read so old links open (url/urlState.ts rewrites them to
 * the `#v=1&s=…` form, which holds the whole state).
 */
import { findPreset } from '../sim';
import type { Variant, View } from './store/types';

/** A parsed route. */
export interface Route { readonly view: View; readonly presetId: string | null; readonly variant: Variant }

/** Parses a location hash; anything unknown is the catalogue. */
export function parseHash(hash: string): Route {
  const parts = hash.replace(/^#\/?/, '').split('/').filter(Boolean);
  const [view, id, fixed] = parts;
  if ((view === 'sim' || view === 'compare') && id && findPreset(decodeURIComponent(id))) {
    return { view: view === 'sim' ? 'simulate' : 'compare', presetId: decodeURIComponent(id), variant: fixed === 'fixed' ? 'with' : 'without' };
  }
  return { view: 'catalogue', presetId: null, variant: 'without' };
}

/** The hash for a route. */
export function routeHash(r: Route): string {
  if (r.view === 'catalogue' || !r.presetId) return '#/';
  return `#/${r.view === 'simulate' ? 'sim' : 'compare'}/${encodeURIComponent(r.presetId)}${r.variant === 'with' ? '/fixed' : ''}`;
}
