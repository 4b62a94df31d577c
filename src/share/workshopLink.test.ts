import { compressToEncodedURIComponent } from 'lz-string';
import { decodeShare, encodeShare, MAX_BOOKMARK_CHARS, MAX_BOOKMARKS, shareFromScenario } from './link';
import { findPreset } from '../sim';

const link = (payload: unknown) => `v=1&s=${compressToEncodedURIComponent(JSON.stringify(payload))}`;
const preset = findPreset('export-lease-expiry')!;
const base = shareFromScenario(preset.withoutFix, {});
const pathsOf = (payload: unknown) => {
  const r = decodeShare(link(payload));
  return r.ok ? [] : r.errors.map((e) => e.path);
};

describe('bookmarks, lessons and workshop windows in a link', () => {
  it('round-trip', () => {
    const st = { ...base, b: [{ m: 3_000, n: 'A pauses' }, { m: 33_000, n: 'here A still believes it owns the lease' }], l: { id: 'fencing' as const, q: 4, st: 2, a: [0, 2] } };
    const r = decodeShare(encodeShare(st));
    expect(r.ok && r.state.b).toEqual(st.b);
    expect(r.ok && r.state.l).toEqual(st.l);
    const w = decodeShare(encodeShare({ ...base, r: { role: 'audience', ch: 'abcdEFGH_123' } }));
    expect(w.ok && w.state.r).toEqual({ role: 'audience', ch: 'abcdEFGH_123' });
  });

  it('refuses hostile values with the field path, never throwing', () => {
    expect(pathsOf({ ...base, b: [{ m: -1, n: 'x' }] })).toEqual(['link.b[0].m']);
    expect(pathsOf({ ...base, b: [{ m: 1, n: 'x'.repeat(MAX_BOOKMARK_CHARS + 1) }] })).toEqual(['link.b[0].n']);
    expect(pathsOf({ ...base, b: Array.from({ length: MAX_BOOKMARKS + 1 }, (_v, i) => ({ m: i, n: '' })) })).toEqual(['link.b']);
    expect(pathsOf({ ...base, b: [{ m: 1, n: 'x', extra: 1 }] })).toEqual(['link.b[0]']);
    expect(pathsOf({ ...base, b: { __proto__: { m: 1 } } })).not.toEqual([]);
    expect(pathsOf({ ...base, l: { id: 'sql-injection', q: 0, st: 0 } })).toEqual(['link.l.id']);
    expect(pathsOf({ ...base, l: { id: 'lease', q: 0, st: 9 } })).toEqual(['link.l.st']);
    expect(pathsOf({ ...base, l: { id: 'lease', q: -1, st: 0 } })).toEqual(['link.l.q']);
    expect(pathsOf({ ...base, r: { role: 'admin', ch: 'abcdefgh' } })).toEqual(['link.r.role']);
    expect(pathsOf({ ...base, r: { role: 'presenter', ch: 'short' } })).toEqual(['link.r.ch']);
    expect(pathsOf({ ...base, r: { role: 'presenter', ch: '../../etc/passwd' } })).toEqual(['link.r.ch']);
  });

  it('keeps lessons and workshops out of interviews', () => {
    const cand = shareFromScenario(preset.withoutFix, { i: 1 });
    expect(pathsOf({ ...cand, l: { id: 'lease', q: 0, st: 0 } })).toContain('link.l');
    expect(pathsOf({ ...cand, r: { role: 'audience', ch: 'abcdefgh' } })).toContain('link.r');
  });
});
