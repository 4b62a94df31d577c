/**
 * The embed view (`e=1`, or the app inside a frame): the verdict, the transport and the timeline,
 * filling its frame (no page scrollbars: the timeline scrolls inside its own box when its lanes
 * are taller than the frame), and "Open in Lockscope" to the full view in a new tab. Read-only:
 * no fault editing, no drafts or preferences written, no history entries (./embed.ts, url/urlSync.ts).
 */
import { useCallback, useEffect, useLayoutEffect, useMemo } from 'react';
import { useLockscope, useLockscopeStore, useRun, indexOfEvent } from '../store';
import { Timeline } from '../timeline/Timeline';
import { Transport, useCursorKeys, usePlayback } from '../timeline/Transport';
import { VerdictPanel } from '../verdict/VerdictPanel';
import { NoticeBanner } from '../notice/NoticeBanner';
import { installUrlSync } from '../url/urlSync';
import { applyPrefs } from '../prefs';
import { fullViewHash } from './embed';

/** The whole embed view (reads and writes the store's cursor only). */
export function EmbedApp() {
  const store = useLockscopeStore();
  const view = useLockscope((s) => s.view);
  const run = useRun();
  const cursorMs = useLockscope((s) => s.cursorMs);
  const cursorIndex = useLockscope((s) => s.cursorIndex);
  const composed = useLockscope((s) => s.composed);
  const variant = useLockscope((s) => s.variant);
  const mode = useLockscope((s) => s.mode);
  const largeType = useLockscope((s) => s.largeType);
  const theme = useLockscope((s) => s.theme);
  const notice = useLockscope((s) => s.notice);

  // In the commit that draws the first view (a layout effect): a key pressed as soon as it shows
  // moves the cursor, and the link must see that move.
  useLayoutEffect(() => installUrlSync(store), [store]);
  // The reader's theme, read but never saved from inside someone else's page.
  useEffect(() => {
    const mq = window.matchMedia?.('(prefers-color-scheme: dark)');
    const apply = () => applyPrefs(document, { largeType, theme }, mq?.matches ?? false);
    apply();
    document.documentElement.classList.add('embedded');
    mq?.addEventListener('change', apply);
    return () => mq?.removeEventListener('change', apply);
  }, [largeType, theme]);
  useCursorKeys(view !== 'catalogue');
  usePlayback();

  const gotoEvent = useCallback((id: string) => {
    const s = store.getState();
    s.setPlaying(false);
    s.setCursorIndex(indexOfEvent(run, id));
  }, [run, store]);
  const onCursorMs = useCallback((ms: number) => {
    const s = store.getState();
    s.setPlaying(false);
    s.setCursorMs(ms);
  }, [store]);
  const full = useMemo(() => {
    const h = view === 'catalogue' ? '#/' : fullViewHash({ composed, variant, view: 'simulate', cursorIndex, cursorMs, compareTarget: { kind: 'otherVariant' }, mode, largeType });
    return `${window.location.origin}${window.location.pathname}${h}`;
  }, [composed, variant, view, cursorIndex, cursorMs, mode, largeType]);

  return (
    <div className="embed" data-testid="embed">
      <header className="embed-bar">
        <span className="brand">Lockscope</span>
        <span className="embed-title" title={composed.title}>{view === 'catalogue' ? 'Nothing to show here' : composed.title}</span>
        <a className="embed-open" href={full} target="_blank" rel="noopener noreferrer">Open in Lockscope<span className="sr-only"> (opens in a new tab)</span></a>
      </header>
      <NoticeBanner notice={notice} onDismiss={() => store.getState().dismissNotice()} />
      {view !== 'catalogue' && (
        <main className="embed-main" id="main">
          <VerdictPanel run={run} onEventId={gotoEvent} />
          <Transport />
          <div className="embed-timeline">
            <Timeline run={run} label="Timeline" cursorMs={cursorMs} onCursorMs={onCursorMs} onEventId={gotoEvent} />
          </div>
        </main>
      )}
    </div>
  );
}
