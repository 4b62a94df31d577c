/**
 * The app shell: header (preset picker grouped by lesson, view tabs, large type), hash routing,
 * the current view, the fault menu and the global cursor keys.
 */
import { useEffect } from 'react';
import { LESSONS, PRESETS } from '../sim';
import { useLockscope } from './store';
import { Catalogue } from './catalogue/Catalogue';
import { SimulateView } from './SimulateView';
import { CompareView } from './compare/CompareView';
import { FaultMenu } from './faults/FaultMenu';
import { useCursorKeys, usePlayback } from './timeline/Transport';
import { parseHash, routeHash } from './routing';

/** The whole app. */
export function App() {
  const view = useLockscope((s) => s.view);
  const presetId = useLockscope((s) => s.presetId);
  const variant = useLockscope((s) => s.variant);
  const largeType = useLockscope((s) => s.largeType);

  // Route → store.
  useEffect(() => {
    const apply = () => {
      const r = parseHash(window.location.hash);
      const s = useLockscope.getState();
      if (r.presetId && (r.presetId !== s.presetId || r.variant !== s.variant)) s.loadPreset(r.presetId, r.variant);
      if (r.view !== s.view) s.setView(r.view);
    };
    apply();
    window.addEventListener('hashchange', apply);
    return () => window.removeEventListener('hashchange', apply);
  }, []);

  // Store → route.
  useEffect(() => {
    const h = routeHash({ view, presetId, variant });
    if (window.location.hash !== h && !(h === '#/' && window.location.hash === '')) window.history.replaceState(null, '', h);
  }, [view, presetId, variant]);

  useEffect(() => {
    document.documentElement.classList.toggle('large-type', largeType);
  }, [largeType]);

  useCursorKeys(view !== 'catalogue');
  usePlayback();

  const open = (id: string, v: 'without' | 'with') => {
    const s = useLockscope.getState();
    s.loadPreset(id, v);
    s.setView('simulate');
    window.scrollTo(0, 0);
  };

  return (
    <div className="app">
      <a className="skip-link" href="#main">Skip to content</a>
      <header className="app-header">
        <a className="brand" href="#/" onClick={(e) => { e.preventDefault(); useLockscope.getState().setView('catalogue'); }}>Lockscope</a>
        <nav aria-label="Views" className="tabs">
          {(['catalogue', 'simulate', 'compare'] as const).map((v) => (
            <button key={v} type="button" aria-current={view === v ? 'page' : undefined} className={view === v ? 'tab active' : 'tab'} onClick={() => useLockscope.getState().setView(v)}>
              {v === 'catalogue' ? 'Catalogue' : v === 'simulate' ? 'Simulate' : 'Compare'}
            </button>
          ))}
        </nav>
        {view !== 'catalogue' && (
          <label className="preset-picker">
            <span>Scenario</span>
            <select value={presetId ?? ''} onChange={(e) => useLockscope.getState().loadPreset(e.target.value, 'without')}>
              {LESSONS.map((l) => (
                <optgroup key={l.id} label={l.title}>
                  {PRESETS.filter((p) => p.lesson === l.id).map((p) => <option key={p.id} value={p.id}>{p.title}</option>)}
                </optgroup>
              ))}
            </select>
          </label>
        )}
        <label className="large-toggle">
          <input type="checkbox" checked={largeType} onChange={(e) => useLockscope.getState().setLargeType(e.target.checked)} /> Large type
        </label>
      </header>
      {view === 'catalogue' && <Catalogue onOpen={open} />}
      {view === 'simulate' && <SimulateView />}
      {view === 'compare' && <CompareView />}
      <FaultMenu />
    </div>
  );
}
