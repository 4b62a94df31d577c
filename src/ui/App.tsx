/**
 * The app shell: header (preset picker grouped by lesson, view tabs, large type), the address bar
 * as state (./url), refused-input notices, the current view, the fault menu and the cursor keys.
 * The views other than the catalogue and the simulator are their own chunks (./lazyViews.ts),
 * loaded in idle time after the first paint.
 */
import { Suspense, useEffect, useLayoutEffect, useRef } from 'react';
import { LESSONS, PRESETS } from '../sim';
import { useLockscope, useLockscopeStore } from './store';
import { Catalogue } from './catalogue/Catalogue';
import { SimulateView } from './SimulateView';
import { FaultMenu } from './faults/FaultMenu';
import { NoticeBanner, DraftOfferBanner } from './notice/NoticeBanner';
import { useCursorKeys, usePlayback } from './timeline/Transport';
import { installUrlSync, restoreDraft, discardDraft } from './url/urlSync';
import { applyPrefs, savePrefs, THEMES } from './prefs';
import { HelpButton } from './help/HelpDialog';
import { useMenuDetails } from './useMenuDetails';
import type { Theme, View } from './store/types';
import { CompareView, EditorView, LessonPath, LessonView, WorkshopView } from './lazyViews';
import { preloadViewsWhenIdle } from './lazyView';

const TABS = [['catalogue', 'Catalogue'], ['simulate', 'Simulate'], ['compare', 'Compare'], ['edit', 'Edit']] as const;

/** A view the top navigation has a tab for. */
export type TabView = (typeof TABS)[number][0];

/**
 * The tab that stands for the view on screen, or null when it has none (the lessons, a lesson,
 * the presenter's workshop): the one source of the navigation's current-view indicator, which is
 * its `aria-current="page"` (styles.css lights `.tab[aria-current="page"]`, nothing else), so the
 * lit tab and the announced one cannot differ. A `Record` over `View`: a new view must say which.
 */
export function tabOf(shown: View): TabView | null {
  const tab: Record<View, TabView | null> = { catalogue: 'catalogue', simulate: 'simulate', compare: 'compare', edit: 'edit', lessons: null, lesson: null, workshop: null };
  return tab[shown];
}

/**
 * "Skip to content": focuses the view's main region without touching the address (the route is
 * the URL fragment, so following `#main` would replace it).
 */
export function skipToContent(e: React.MouseEvent | React.KeyboardEvent): void {
  e.preventDefault();
  const main = document.getElementById('main');
  if (!main) return;
  if (!main.hasAttribute('tabindex')) main.setAttribute('tabindex', '-1');
  main.focus({ preventScroll: true });
  main.scrollIntoView({ block: 'start' });
}

/** What a lazily loaded view shows while its chunk loads (only when opened before the idle preload got to it). */
function ViewLoading() {
  return <p className="small muted view-loading" role="status">Loading…</p>;
}

/** The whole app. */
export function App() {
  const store = useLockscopeStore();
  const view = useLockscope((s) => s.view);
  const presetId = useLockscope((s) => s.presetId);
  const largeType = useLockscope((s) => s.largeType);
  const theme = useLockscope((s) => s.theme);
  const notice = useLockscope((s) => s.notice);
  const draftOffer = useLockscope((s) => s.draftOffer);

  // The URL holds the state (store ↔ address bar, back/forward).
  // In the commit that draws the first view (a layout effect): a key pressed as soon as it shows
  // moves the cursor, and the link must see that move.
  useLayoutEffect(() => installUrlSync(store), [store]);
  const displayMenu = useRef<HTMLDetailsElement>(null);
  useMenuDetails(displayMenu);
  // The other views' chunks, once the first screen is up (opening one then costs no fetch).
  useEffect(() => preloadViewsWhenIdle(), []);

  // Large type and the theme: on the document, kept on this device; `auto` follows the system.
  useEffect(() => {
    const mq = window.matchMedia?.('(prefers-color-scheme: dark)');
    const apply = () => applyPrefs(document, { largeType, theme }, mq?.matches ?? false);
    apply();
    savePrefs({ largeType, theme });
    mq?.addEventListener('change', apply);
    return () => mq?.removeEventListener('change', apply);
  }, [largeType, theme]);

  const mode = useLockscope((s) => s.mode);
  const workshopRole = useLockscope((s) => s.workshop?.role ?? null);
  const interviewing = mode === 'interview';
  const showAnswer = !interviewing;
  // Interview mode has no compare view (its other side is the preset's fix), no catalogue (its verdicts), no lessons and no workshop: the simulator instead.
  const shown = interviewing && view !== 'simulate' && view !== 'edit' ? 'simulate' : view === 'workshop' && workshopRole === null ? 'simulate' : view;
  useCursorKeys(shown === 'simulate' || shown === 'compare' || shown === 'lesson');
  usePlayback();

  const open = (id: string, v: 'without' | 'with') => {
    const s = store.getState();
    s.loadPreset(id, v);
    s.setView('simulate');
    window.scrollTo(0, 0);
  };

  // The audience's window is the timeline, large: no header, nothing to click.
  if (shown === 'workshop' && workshopRole === 'audience') return <div className="app"><Suspense fallback={<ViewLoading />}><WorkshopView /></Suspense></div>;

  return (
    <div className="app">
      <a className="skip-link" href="#main" onClick={skipToContent}>Skip to content</a>
      <header className="app-header">
        {showAnswer ? <a className="brand" href="#/" onClick={(e) => { e.preventDefault(); store.getState().setView('catalogue'); }}>Lockscope</a> : <span className="brand">Lockscope · interview</span>}
        <nav aria-label="Views" className="tabs">
          {TABS.filter(([v]) => showAnswer || (v !== 'compare' && v !== 'catalogue')).map(([v, label]) => (
            <button key={v} type="button" aria-current={tabOf(shown) === v ? 'page' : undefined} className="tab" onClick={() => store.getState().setView(v)}>
              {label}
            </button>
          ))}
        </nav>
        {(view === 'simulate' || view === 'compare' || view === 'edit') && showAnswer && (
          <label className="preset-picker">
            <span>Scenario</span>
            <select value={presetId ?? ''} onChange={(e) => e.target.value && store.getState().loadPreset(e.target.value, 'without')}>
              {presetId === null && <option value="">(custom scenario)</option>}
              {LESSONS.map((l) => (
                <optgroup key={l.id} label={l.title}>
                  {PRESETS.filter((p) => p.lesson === l.id).map((p) => <option key={p.id} value={p.id}>{p.title}</option>)}
                </optgroup>
              ))}
            </select>
          </label>
        )}
        <HelpButton />
        <details className="display-prefs" ref={displayMenu}>
          <summary>Display{largeType ? ' · large' : ''}</summary>
          <div className="display-panel">
            <label className="large-toggle">
              <input type="checkbox" checked={largeType} onChange={(e) => store.getState().setLargeType(e.target.checked)} /> Large type
            </label>
            <label className="theme-picker">
              <span>Theme</span>
              <select value={theme} onChange={(e) => store.getState().setTheme(e.target.value as Theme)}>
                {THEMES.map((t) => <option key={t.id} value={t.id}>{t.label}</option>)}
              </select>
            </label>
            <p className="small">Kept on this device; a link you share keeps large type.</p>
          </div>
        </details>
      </header>
      <DraftOfferBanner offer={draftOffer} onRestore={() => restoreDraft(store)} onDiscard={() => discardDraft(store)} />
      <NoticeBanner notice={notice} onDismiss={() => store.getState().dismissNotice()} />
      {shown === 'catalogue' && <Catalogue onOpen={open} />}
      {shown === 'simulate' && <SimulateView />}
      <Suspense fallback={<ViewLoading />}>
        {shown === 'compare' && <CompareView />}
        {shown === 'edit' && <EditorView />}
        {shown === 'workshop' && <WorkshopView />}
        {shown === 'lessons' && <LessonPath />}
        {shown === 'lesson' && <LessonView />}
      </Suspense>
      <FaultMenu />
    </div>
  );
}
