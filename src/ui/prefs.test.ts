// @vitest-environment jsdom
import { describe, expect, it } from 'vitest';
import { applyPrefs, loadPrefs, resolveTheme, savePrefs } from './prefs';

function memoryStorage(): Storage {
  const m = new Map<string, string>();
  return {
    get length() { return m.size; },
    clear: () => m.clear(),
    getItem: (k) => m.get(k) ?? null,
    key: (i) => [...m.keys()][i] ?? null,
    removeItem: (k) => void m.delete(k),
    setItem: (k, v) => void m.set(k, String(v)),
  };
}

describe('display preferences', () => {
  it('round-trips large type and the theme through storage', () => {
    const s = memoryStorage();
    expect(loadPrefs(s)).toEqual({ largeType: false, theme: 'auto' });
    savePrefs({ largeType: true, theme: 'projector' }, s);
    expect(loadPrefs(s)).toEqual({ largeType: true, theme: 'projector' });
  });

  it('ignores unreadable or unknown values', () => {
    const s = memoryStorage();
    s.setItem('lockscope:prefs:v1', '{"largeType":"yes","theme":"neon"}');
    expect(loadPrefs(s)).toEqual({ largeType: false, theme: 'auto' });
    s.setItem('lockscope:prefs:v1', 'not json');
    expect(loadPrefs(s)).toEqual({ largeType: false, theme: 'auto' });
  });

  it('resolves auto from the system colour scheme, keeps an explicit choice', () => {
    expect(resolveTheme('auto', true)).toBe('dark');
    expect(resolveTheme('auto', false)).toBe('light');
    expect(resolveTheme('light', true)).toBe('light');
    expect(resolveTheme('projector', true)).toBe('projector');
  });

  it('marks the document with the resolved theme and large type', () => {
    applyPrefs(document, { largeType: true, theme: 'auto' }, true);
    expect(document.documentElement.dataset.theme).toBe('dark');
    expect(document.documentElement.classList.contains('large-type')).toBe(true);
    applyPrefs(document, { largeType: false, theme: 'projector' }, true);
    expect(document.documentElement.dataset.theme).toBe('projector');
    expect(document.documentElement.classList.contains('large-type')).toBe(false);
  });
});
