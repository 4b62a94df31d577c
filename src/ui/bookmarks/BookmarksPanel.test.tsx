// @vitest-environment jsdom
import { act } from 'react';
import { cleanup, fireEvent, screen } from '@testing-library/react';
import { createLockscopeStore } from '../store';
import { renderIn } from '../store/testing';
import { readHash, shareStateOf } from '../url/urlState';
import { encodeShare } from '../../share/link';
import { BookmarksPanel } from './BookmarksPanel';

afterEach(cleanup);

function store() {
  const s = createLockscopeStore();
  s.getState().loadPreset('export-lease-expiry', 'without');
  s.getState().setView('simulate');
  return s;
}

describe('bookmarks', () => {
  it('adds one at the cursor with its note, keeps them in time order, edits and removes one', () => {
    const s = store();
    renderIn(s, <BookmarksPanel />);
    act(() => s.getState().setCursorMs(33_000));
    fireEvent.change(screen.getByTestId('bookmark-note'), { target: { value: 'here A still believes it owns the lease' } });
    fireEvent.click(screen.getByTestId('bookmark-add'));
    act(() => s.getState().setCursorMs(3_000));
    fireEvent.click(screen.getByTestId('bookmark-add'));
    expect(s.getState().bookmarks).toEqual([{ atMs: 3_000, note: '' }, { atMs: 33_000, note: 'here A still believes it owns the lease' }]);
    expect(screen.getByTestId('bookmark-note')).toHaveValue('');
    fireEvent.change(screen.getByRole('textbox', { name: 'Note of bookmark 1' }), { target: { value: 'A pauses' } });
    expect(s.getState().bookmarks[0]).toEqual({ atMs: 3_000, note: 'A pauses' });
    fireEvent.click(screen.getByRole('button', { name: 'Go to bookmark 2 at 33 s' }));
    expect(s.getState().cursorMs).toBe(33_000);
    fireEvent.click(screen.getByRole('button', { name: 'Remove bookmark 1' }));
    expect(s.getState().bookmarks.map((b) => b.atMs)).toEqual([33_000]);
  });

  it('steps through them in order from the cursor, and says when there is none', () => {
    const s = store();
    s.getState().addBookmark({ atMs: 20_000, note: 'b' });
    s.getState().addBookmark({ atMs: 5_000, note: 'a' });
    s.getState().addBookmark({ atMs: 5_000, note: 'a again' });
    expect(s.getState().bookmarks).toEqual([{ atMs: 5_000, note: 'a again' }, { atMs: 20_000, note: 'b' }]);
    s.getState().home();
    expect(s.getState().stepBookmark(1)).toBe(true);
    expect(s.getState().cursorMs).toBe(5_000);
    expect(s.getState().stepBookmark(1)).toBe(true);
    expect(s.getState().cursorMs).toBe(20_000);
    expect(s.getState().stepBookmark(1)).toBe(false);
    expect(s.getState().stepBookmark(-1)).toBe(true);
    expect(s.getState().cursorMs).toBe(5_000);
    expect(s.getState().stepBookmark(-1)).toBe(false);
  });

  it('are kept in the link and come back from it; loading a preset clears them', () => {
    const s = store();
    s.getState().addBookmark({ atMs: 3_000, note: 'A pauses' });
    const st = shareStateOf(s.getState())!;
    expect(st.b).toEqual([{ m: 3_000, n: 'A pauses' }]);
    const intent = readHash(`#${encodeShare(st)}`);
    expect(intent.kind === 'shared' && intent.opts.bookmarks).toEqual([{ atMs: 3_000, note: 'A pauses' }]);
    const t = createLockscopeStore();
    if (intent.kind === 'shared') t.getState().loadShared(intent.scenario, intent.opts);
    expect(t.getState().bookmarks).toEqual([{ atMs: 3_000, note: 'A pauses' }]);
    t.getState().loadPreset('invoice-race');
    expect(t.getState().bookmarks).toEqual([]);
  });
});
