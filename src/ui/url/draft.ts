/**
 * The local copy of unsaved edits: the latest edited state's link fragment in localStorage, so
 * that opening another link (or the bare app) never silently loses work; the app offers to
 * restore it. Storage failures (private mode, quota, disabled) are ignored: the URL still holds
 * the state.
 */
import type { DraftOffer } from '../store/types';

const KEY = 'lockscope:draft:v1';

/** Reads the saved draft (null when none or unreadable). */
export function loadDraft(storage: Storage | undefined = safeStorage()): DraftOffer | null {
  try {
    const raw = storage?.getItem(KEY);
    if (!raw || raw.length > 20_000) return null;
    const o: unknown = JSON.parse(raw);
    if (typeof o !== 'object' || o === null) return null;
    const { fragment, savedAt, title } = o as Record<string, unknown>;
    if (typeof fragment !== 'string' || typeof savedAt !== 'number' || typeof title !== 'string') return null;
    return { fragment, savedAt, title: title.slice(0, 120) };
  } catch {
    return null;
  }
}

/** Saves the draft (best effort). */
export function saveDraft(d: DraftOffer, storage: Storage | undefined = safeStorage()): void {
  try {
    storage?.setItem(KEY, JSON.stringify(d));
  } catch {
    /* storage full or disabled: the URL still holds the state */
  }
}

/** Forgets the draft. */
export function clearDraft(storage: Storage | undefined = safeStorage()): void {
  try {
    storage?.removeItem(KEY);
  } catch {
    /* ignore */
  }
}

function safeStorage(): Storage | undefined {
  try {
    return typeof localStorage === 'undefined' ? undefined : localStorage;
  } catch {
    return undefined;
  }
}
