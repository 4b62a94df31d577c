/**
 * Sharing: copy the link (Clipboard API, or a selected text field when copying is blocked), export
 * and import the scenario as JSON, export the timeline as SVG/PNG, and "About this run": the trace
 * hash (equal to `npm run simulate -- file.json --json`'s traceHash), seed, scenario version and
 * link length.
 */
import { Suspense, useDeferredValue, useMemo, useRef, useState } from 'react';
import { deriveRun, useLockscope, useLockscopeStore, useRun, useVisibility, visibilityOf, type LockscopeState, type LockscopeStore } from '../store';
import { hashOf } from '../url/urlState';
import { download, exportNames, readScenarioFile, scenarioJson, WITHHELD_HASH } from './files';
import { TranscriptExport } from '../lazyViews';
import { EmbedSnippet } from '../embed/EmbedSnippet';

function linkFor(s: Pick<LockscopeState, 'composed' | 'variant' | 'view' | 'cursorIndex' | 'cursorMs' | 'compareTarget' | 'mode' | 'interview' | 'bookmarks'>): string {
  const h = hashOf({ composed: s.composed, variant: s.variant, view: s.view === 'catalogue' ? 'simulate' : s.view, cursorIndex: s.cursorIndex, cursorMs: s.cursorMs, compareTarget: s.compareTarget, mode: s.mode, interview: s.interview, bookmarks: s.bookmarks });
  return `${window.location.origin}${window.location.pathname}${h}`;
}

/** The link to the store's state right now (what "Copy link" copies). */
export function currentShareLink(store: LockscopeStore): string {
  return linkFor(store.getState());
}

/**
 * The link to the current state, for display. Deferred: compressing the link is left out of the
 * frame that shows an edit or a cursor move (React renders it just after).
 */
export function useShareLink(): string {
  const composed = useDeferredValue(useLockscope((s) => s.composed));
  const variant = useDeferredValue(useLockscope((s) => s.variant));
  const view = useDeferredValue(useLockscope((s) => s.view));
  const cursorIndex = useDeferredValue(useLockscope((s) => s.cursorIndex));
  const cursorMs = useDeferredValue(useLockscope((s) => s.cursorMs));
  const compareTarget = useDeferredValue(useLockscope((s) => s.compareTarget));
  const mode = useLockscope((s) => s.mode);
  const interview = useLockscope((s) => s.interview);
  const bookmarks = useLockscope((s) => s.bookmarks);
  return useMemo(() => linkFor({ composed, variant, view, cursorIndex, cursorMs, compareTarget, mode, interview, bookmarks }), [composed, variant, view, cursorIndex, cursorMs, compareTarget, mode, interview, bookmarks]);
}

/** "Copy link": the Clipboard API, or (when it is blocked) the link in a selected text field. */
export function CopyLink({ compact = false }: { compact?: boolean }) {
  const store = useLockscopeStore();
  const link = useShareLink();
  const [copy, setCopy] = useState<'idle' | 'copied' | 'manual'>('idle');
  const fieldRef = useRef<HTMLInputElement>(null);
  const onCopy = async () => {
    try {
      if (!navigator.clipboard?.writeText) throw new Error('no clipboard');
      await navigator.clipboard.writeText(currentShareLink(store));
      setCopy('copied');
    } catch {
      setCopy('manual');
      requestAnimationFrame(() => {
        fieldRef.current?.focus();
        fieldRef.current?.select();
      });
    }
  };
  return (
    <div className={`copy-link${compact ? ' compact' : ''}`}>
      <button type="button" className="button primary" onClick={() => void onCopy()}>Copy link</button>
      {copy !== 'idle' && (
        <div className="copy-field">
          <label htmlFor="share-link">{copy === 'copied' ? 'Copied to the clipboard:' : 'Copying is blocked here. The link is selected: press Ctrl+C (⌘C on a Mac).'}</label>
          <input id="share-link" ref={fieldRef} type="text" readOnly value={link} onFocus={(e) => e.target.select()} data-testid="share-link" />
        </div>
      )}
    </div>
  );
}

/** Props: whether a timeline is on screen to export. */
export interface SharePanelProps {
  readonly timeline?: boolean;
}

/** The share panel. */
export function SharePanel({ timeline = true }: SharePanelProps) {
  // "About this run" follows an edit at low priority (after the frame that shows the verdict).
  const store = useLockscopeStore();
  const run = useDeferredValue(useRun());
  const composed = useDeferredValue(useLockscope((s) => s.composed));
  const link = useShareLink();
  const [status, setStatus] = useState('');
  const { showFuture, showHints } = useVisibility();
  const fileRef = useRef<HTMLInputElement>(null);

  const onImport = async (file: File | undefined) => {
    if (!file) return;
    const r = await readScenarioFile(file);
    const s = store.getState();
    if (!r.ok) {
      s.showNotice(`The file “${file.name.slice(0, 80)}” is not a valid scenario. Nothing was changed.`, r.errors);
      setStatus('');
      return;
    }
    s.loadShared(r.scenario, { view: s.view === 'catalogue' ? 'simulate' : s.view });
    s.dismissNotice();
    setStatus(`Imported ${file.name.slice(0, 80)}.`);
  };

  const exportImage = async (kind: 'svg' | 'png') => {
    const root = document.querySelector('.timeline');
    if (!root) return;
    try {
      const st = store.getState();
      const now = st.composed;
      // The exporter is its own chunk, loaded on the first export.
      const { svgToPng, timelineSvg } = await import('./exportTimeline');
      const vis = visibilityOf(st);
      const names = exportNames(now, deriveRun(now).verdict.status, vis.showVerdict, !vis.showHints);
      const t = timelineSvg(root, names.imageTitle);
      if (kind === 'svg') download(new Blob([t.svg], { type: 'image/svg+xml' }), names.svg);
      else download(await svgToPng(t.svg, t.width, t.height, 2, names.imageTitle), names.png);
      setStatus(`Exported the timeline as ${kind.toUpperCase()}.`);
    } catch (e) {
      store.getState().showNotice('The timeline could not be exported.', [{ path: kind, message: String((e as Error)?.message ?? e) }]);
    }
  };

  return (
    <section className="panel share" aria-label="Share and export">
      <h2>Share</h2>
      <CopyLink />
      <div className="share-actions">
        <button type="button" onClick={() => { const now = store.getState().composed; download(new Blob([scenarioJson(now)], { type: 'application/json' }), exportNames(now, '', false, !visibilityOf(store.getState()).showHints).json); setStatus('Exported the scenario as JSON.'); }}>Export JSON</button>
        <button type="button" onClick={() => fileRef.current?.click()}>Import JSON…</button>
        <input ref={fileRef} type="file" accept=".json,application/json" className="sr-only" tabIndex={-1} aria-label="Scenario file to import" data-testid="import-file"
          onChange={(e) => { void onImport(e.target.files?.[0]); e.target.value = ''; }} />
        {timeline && <button type="button" onClick={() => void exportImage('svg')}>Timeline SVG</button>}
        {timeline && <button type="button" onClick={() => void exportImage('png')}>Timeline PNG</button>}
      </div>
      <p className="small share-status" role="status">{status}</p>
      <Suspense fallback={null}>
        <TranscriptExport run={run} hidden={!showFuture} withholdHash={!showHints} />
      </Suspense>
      <EmbedSnippet />
      <h3>About this run</h3>
      <dl className="about" data-testid="about-run">
        <dt>Trace hash</dt><dd>{showHints ? <code data-testid="trace-hash">{run.traceHash}</code> : <span data-testid="trace-hash">{WITHHELD_HASH}: it could be looked up to identify this scenario</span>}</dd>
        <dt>Seed</dt><dd data-testid="seed">{composed.seed}</dd>
        <dt>Scenario version</dt><dd>{composed.version}</dd>
        <dt>Events</dt><dd>{run.events.length}{run.error ? ' (stopped early)' : ''}</dd>
        <dt>Link length</dt><dd data-testid="link-length">{link.length} characters</dd>
      </dl>
      <p className="small muted">The same scenario file gives the same hash in <code>npm run simulate -- file.json --json</code>.</p>
    </section>
  );
}
