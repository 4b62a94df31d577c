/**
 * The reader's display preferences kept on this device (localStorage): large type and the theme.
 * A link may also turn large type on (`t=1`, see url/urlState.ts); the theme is the device's own.
 * Storage failures (private mode, quota, disabled) are ignored: the defaults apply.
 */
import type { Theme } from './store/types';

const KEY = 'lockscope:prefs:v1';

/** What is kept. */
export interface Prefs {
  readonly largeType: boolean;
  readonly theme: Theme;
}

/** The themes a reader can choose (`auto` follows `prefers-color-scheme`). */
export const THEMES: readonly { readonly id: Theme; readonly label: string }[] = [
  { id: 'auto', label: 'Auto' },
  { id: 'light', label: 'Light' },
  { id: 'dark', label: 'Dark' },
  { id: 'projector', label: 'Projector' },
];

const DEFAULTS: Prefs = { largeType: false, theme: 'auto' };

function safeStorage(): Storage | undefined {
  try {
    return typeof localStorage === 'undefined' ? undefined : localStorage;
  } catch {
    return undefined;
  }
}

/** Reads the saved preferences (the defaults for anything missing or unreadable). */
export function loadPrefs(storage: Storage | undefined = safeStorage()): Prefs {
  try {
    const raw = storage?.getItem(KEY);
    if (!raw || raw.length > 1_000) return DEFAULTS;
    const o: unknown = JSON.parse(raw);
    if (typeof o !== 'object' || o === null) return DEFAULTS;
    const { largeType, theme } = o as Record<string, unknown>;
    return {
      largeType: largeType === true,
      theme: THEMES.some((t) => t.id === theme) ? (theme as Theme) : DEFAULTS.theme,
    };
  } catch {
    return DEFAULTS;
  }
}

/** Saves the preferences (best effort). */
export function savePrefs(p: Prefs, storage: Storage | undefined = safeStorage()): void {
  try {
    storage?.setItem(KEY, JSON.stringify({ largeType: p.largeType, theme: p.theme }));
  } catch {
    /* the defaults apply next time */
  }
}

/** The theme actually shown: `auto` resolved with the system's colour scheme. */
export function resolveTheme(theme: Theme, prefersDark: boolean): Exclude<Theme, 'auto'> {
  return theme === 'auto' ? (prefersDark ? 'dark' : 'light') : theme;
}

/**
 * Applies the preferences to the document: `large-type` on <html> and `data-theme` (the resolved
 * theme, so CSS needs one block per theme), and `color-scheme` so form controls follow.
 */
export function applyPrefs(doc: Document, p: Prefs, prefersDark: boolean): void {
  const root = doc.documentElement;
  root.classList.toggle('large-type', p.largeType);
  const shown = resolveTheme(p.theme, prefersDark);
  root.dataset.theme = shown;
  root.style.colorScheme = shown === 'dark' ? 'dark' : 'light';
}
