// @vitest-environment jsdom
import { decodeShare, encodeShare, shareFromScenario } from '../../share/link';
import { findPreset } from '../../sim';
import { createLockscopeStore } from '../store';
import { installUrlSync } from '../url/urlSync';
import { readHash } from '../url/urlState';
import { embedHash, embedRequested, embedSnippet, escapeAttr, fullViewHash, isFramed } from './embed';

const preset = findPreset('export-lease-expiry')!;
const fields = { composed: preset.withoutFix, variant: 'without' as const, view: 'simulate' as const, cursorIndex: 4, compareTarget: { kind: 'otherVariant' as const } };

describe('embed links (e=1)', () => {
  it('an embed link decodes to the same scenario and cursor, and asks for the embed; the full view drops the flag', () => {
    const e = readHash(embedHash(fields));
    expect(e.kind).toBe('shared');
    if (e.kind !== 'shared') return;
    expect(e.state.e).toBe(1);
    expect(e.opts.embed).toBe(true);
    expect(e.opts.cursorIndex).toBe(4);
    const plain = readHash(fullViewHash(fields));
    expect(plain.kind === 'shared' && plain.scenario).toEqual(e.scenario);
    const full = readHash(fullViewHash({ ...fields, embed: true }));
    expect(full.kind === 'shared' && full.state.e).toBe(undefined);
    expect(embedRequested(embedHash(fields))).toBe(true);
    expect(embedRequested(fullViewHash(fields))).toBe(false);
    expect(embedRequested('#/')).toBe(false);
  });

  it('an embed of the compare view or the editor is the simulator (never an undecodable link)', () => {
    for (const view of ['compare', 'edit'] as const) {
      const r = readHash(embedHash({ ...fields, view }));
      expect(r.kind === 'shared' && r.opts.view).toBe('simulate');
    }
  });

  it('a hostile link cannot combine the embed with an interview or another view: refused with the field path', () => {
    const interview = decodeShare(encodeShare({ ...shareFromScenario(preset.withoutFix), s: { ...preset.withoutFix }, p: undefined, e: 1, i: 1, g: { k: [], n: 1 } }));
    expect(interview.ok).toBe(false);
    if (!interview.ok) expect(interview.errors.map((x) => x.path)).toContain('link.e');
    const compare = decodeShare(encodeShare({ p: preset.id, e: 1, w: 'compare' }));
    expect(compare.ok).toBe(false);
    if (!compare.ok) expect(compare.errors).toEqual([{ path: 'link.e', message: 'an embed shows the simulator only, not the compare view' }]);
    const two = decodeShare(encodeShare({ p: preset.id, e: 2 } as never));
    expect(two.ok).toBe(false);
    if (!two.ok) expect(two.errors[0]!.path).toBe('link.e');
  });

  it('the <iframe> snippet escapes the title and the address (a title is the author’s text, never markup)', () => {
    const s = embedSnippet('https://x.test/#v=1&s=a"b', 'Bad "title" <script>alert(1)</script> & co');
    expect(s).toBe('<iframe src="https://x.test/#v=1&amp;s=a&quot;b" width="960" height="540" title="Lockscope: Bad &quot;title&quot; &lt;script&gt;alert(1)&lt;/script&gt; &amp; co" style="border:0" loading="lazy" referrerpolicy="no-referrer"></iframe>');
    const doc = new DOMParser().parseFromString(s, 'text/html');
    const frame = doc.querySelector('iframe')!;
    expect(doc.querySelectorAll('script')).toHaveLength(0);
    expect(frame.getAttribute('src')).toBe('https://x.test/#v=1&s=a"b');
    expect(frame.getAttribute('title')).toBe('Lockscope: Bad "title" <script>alert(1)</script> & co');
    expect(escapeAttr('&<>"')).toBe('&amp;&lt;&gt;&quot;');
  });

  it('isFramed compares the top window with this one', () => {
    const self = {};
    expect(isFramed({ top: self, self })).toBe(false);
    expect(isFramed({ top: {}, self })).toBe(true);
    expect(isFramed({ get top(): unknown { throw new Error('blocked'); }, self })).toBe(true);
  });
});

describe('the embed in the address bar', () => {
  beforeEach(() => {
    vi.useFakeTimers();
    localStorage.clear();
  });
  afterEach(() => vi.useRealTimers());

  it('keeps e=1 in its own address, adds no history entry to the page around it and saves no draft', () => {
    const store = createLockscopeStore();
    window.history.replaceState(null, '', embedHash(fields));
    const uninstall = installUrlSync(store);
    expect(store.getState().embed).toBe(true);
    const n0 = window.history.length;
    // A structural change (a new scenario): the full app would push an entry; the embed replaces.
    store.getState().loadPreset('admin-bypass', 'with');
    vi.advanceTimersByTime(1_000);
    expect(store.getState().presetId).toBe('admin-bypass');
    expect(window.history.length).toBe(n0);
    const r = readHash(window.location.hash);
    expect(r.kind === 'shared' && r.state.e).toBe(1);
    expect(localStorage.length).toBe(0);
    uninstall();
  });
});
