/**
 * Bookmarks on moments of the timeline, each with a short annotation ("here A still believes it
 * owns the lease"). Kept in the link (`b`); shown as numbered flags on the time axis; `[` and `]`
 * step through them in time order (../timeline/Transport.tsx). "Present (workshop)…" starts
 * presenter mode from here (../workshop/).
 */
import { useState } from 'react';
import { MAX_BOOKMARK_CHARS, MAX_BOOKMARKS } from '../../share/link';
import { useLockscope, useLockscopeStore, useRun } from '../store';
import { runTimeFormatter } from '../timeline/lanes';
import { randomToken } from '../randomToken';
import type { LockscopeState } from '../store/types';

/** Turns this window into a workshop's presenter window (a new channel id; the audience window opens from there). */
export function startPresenting(s: LockscopeState): void {
  s.setVote(null);
  s.setBlank(false);
  s.setWorkshop({ role: 'presenter', ch: randomToken() });
  s.setView('workshop');
}

/** The bookmarks panel: add one at the cursor, edit or remove one, go to one. */
export function BookmarksPanel() {
  const store = useLockscopeStore();
  const bookmarks = useLockscope((s) => s.bookmarks);
  const cursorMs = useLockscope((s) => s.cursorMs);
  const run = useRun();
  /** Instants in the unit of the run's axis (the bookmarks are drawn on it). */
  const at = runTimeFormatter(run);
  const [draft, setDraft] = useState('');
  const full = bookmarks.length >= MAX_BOOKMARKS;
  // A candidate's interview page has no presenter mode (its notes show the fix).
  const canPresent = useLockscope((s) => s.mode !== 'interview');
  const add = () => {
    store.getState().addBookmark({ atMs: Math.round(cursorMs), note: draft.trim().slice(0, MAX_BOOKMARK_CHARS) });
    setDraft('');
  };
  return (
    <section className="panel bookmarks" aria-label="Bookmarks">
      <h2>Bookmarks</h2>
      <form onSubmit={(e) => { e.preventDefault(); if (!full) add(); }}>
        <label className="small">
          <span>Note for the moment at the cursor ({at(cursorMs)})</span>
          <input type="text" value={draft} maxLength={MAX_BOOKMARK_CHARS} placeholder="here A still believes it owns the lease" onChange={(e) => setDraft(e.target.value)} data-testid="bookmark-note" />
        </label>
        <button type="submit" disabled={full} data-testid="bookmark-add">Bookmark this moment</button>
        {full && <p className="small">At most {MAX_BOOKMARKS} bookmarks.</p>}
      </form>
      {bookmarks.length > 0 && (
        <>
          <ol data-testid="bookmark-list">
            {bookmarks.map((b, i) => (
              <li key={b.atMs} className={Math.round(cursorMs) === b.atMs ? 'at-cursor' : undefined}>
                <button type="button" className="link" onClick={() => { const s = store.getState(); s.setPlaying(false); s.setCursorMs(b.atMs); }} aria-label={`Go to bookmark ${i + 1} at ${at(b.atMs)}`}>{i + 1} · {at(b.atMs)}</button>
                <input type="text" aria-label={`Note of bookmark ${i + 1}`} value={b.note} maxLength={MAX_BOOKMARK_CHARS} onChange={(e) => store.getState().updateBookmark(i, e.target.value)} />
                <button type="button" aria-label={`Remove bookmark ${i + 1}`} onClick={() => store.getState().removeBookmark(i)}>×</button>
              </li>
            ))}
          </ol>
          <p className="small muted">Keys: <kbd>[</kbd> previous bookmark, <kbd>]</kbd> next.</p>
        </>
      )}
      {canPresent && <button type="button" onClick={() => startPresenting(store.getState())} data-testid="present" title="A presenter window with notes and controls, and an audience window kept in step">Present (workshop)…</button>}
    </section>
  );
}
