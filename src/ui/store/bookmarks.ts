/**
 * Bookmarks: moments of the timeline with a short annotation ("here A still believes it owns the
 * lease"), kept in the link (`b`, src/share/link.ts) and stepped through in time order.
 */
import type { ShareState } from '../../share/link';
import type { Bookmark } from './types';

/** Bookmarks in time order, one per moment (the last one given for a moment wins). */
export function sortBookmarks(list: readonly Bookmark[]): Bookmark[] {
  const byMs = new Map<number, Bookmark>();
  for (const b of list) byMs.set(Math.max(0, Math.round(b.atMs)), { atMs: Math.max(0, Math.round(b.atMs)), note: b.note });
  return [...byMs.values()].sort((a, b) => a.atMs - b.atMs);
}

/** The link's form of bookmarks (`b`), or undefined when there are none. */
export function bookmarksToLink(list: readonly Bookmark[]): ShareState['b'] {
  return list.length === 0 ? undefined : list.map((b) => ({ m: b.atMs, n: b.note }));
}

/** Bookmarks from a link's `b` (already checked by the link's schema). */
export function bookmarksFromLink(b: ShareState['b']): Bookmark[] {
  return sortBookmarks((b ?? []).map((x) => ({ atMs: x.m, note: x.n })));
}

/** The bookmark at the cursor (within `toleranceMs`), or null: the presenter's note for this moment. */
export function bookmarkAt(list: readonly Bookmark[], cursorMs: number, toleranceMs = 0): Bookmark | null {
  return list.find((b) => Math.abs(b.atMs - cursorMs) <= toleranceMs) ?? null;
}
