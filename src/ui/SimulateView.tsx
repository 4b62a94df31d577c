/**
 * The simulator screen. Left (narrow): the preset toggle, the mechanism switches and the faults.
 * Main: the setup in two lines (expandable), a compact verdict bar, the change badge, the
 * transport and the timeline, all visible together at 1280×800; below, the event log beside the
 * inspector and metrics.
 */
import { useFaultEditing } from './timeline/useFaultEditing';
import { memo, Suspense, useCallback, useMemo, useState } from 'react';
import { useAfterPaint } from './useAfterPaint';
import { findPreset } from '../sim';
import { useLockscope, useLockscopeStore, useRun, useVisibility, indexOfEvent } from './store';
import { runUpTo } from './store/derive';
import { Timeline } from './timeline/Timeline';
import { Transport } from './timeline/Transport';
import { VerdictPanel } from './verdict/VerdictPanel';
import { citationsOf } from './verdict/citations';
import { MechanismPanel } from './mechanism/MechanismPanel';
import { FaultList } from './faults/FaultList';
import { ChangeBadge } from './faults/ChangeBadge';
import { SharePanel } from './share/SharePanel';
import { BookmarksPanel } from './bookmarks/BookmarksPanel';
import { HideVerdictToggle } from './verdict/HideVerdictToggle';
import { ExploreAction } from './explore/ExploreAction';
import { OddsSection } from './odds/OddsSection';
import { StatechartSection } from './statechart/StatechartSection';
import { InterviewSetup } from './interview/InterviewSetup';
import { CheckDesign, EventLog as Log, Inspector as World, InterviewerNotesPanel, MetricsCharts as Metrics } from './lazyViews';

/** The setup paragraph, two lines until expanded. */
function Situation({ title, text, fix }: { title: string; text: string; fix?: string }) {
  const [open, setOpen] = useState(false);
  return (
    <section className="situation" aria-label="Situation">
      <h1>{title}</h1>
      <p id="situation-text" className={open ? 'open' : 'clamped'}>{text}{fix ? <> <strong>The fix:</strong> {fix}.</> : null}</p>
      <button type="button" className="link more" aria-expanded={open} aria-controls="situation-text" onClick={() => setOpen(!open)}>{open ? 'Less' : 'More…'}</button>
    </section>
  );
}

// Panels that read the store themselves (or show nothing an edit changes): an edit re-renders
// this view, not them, so the edit's frame does not re-render (and React does not re-commit the
// inputs of) what did not change.
const Setup = memo(Situation);
const Bookmarks = memo(BookmarksPanel);
const Share = memo(SharePanel);
const Explore = memo(ExploreAction);
const Statechart = memo(StatechartSection);
const Odds = memo(OddsSection);
const Interview = memo(InterviewSetup);
const VERDICT_TOOLS = <HideVerdictToggle />;

/** The simulator screen (reads and writes the store). */
export function SimulateView() {
  const store = useLockscopeStore();
  const run = useRun();
  const presetId = useLockscope((s) => s.presetId);
  const scenario = useLockscope((s) => s.scenario);
  const faults = useLockscope((s) => s.faults);
  const cursorMs = useLockscope((s) => s.cursorMs);
  const cursorIndex = useLockscope((s) => s.cursorIndex);
  const selectedFault = useLockscope((s) => s.selectedFault);
  const badge = useLockscope((s) => s.badge);
  const error = useLockscope((s) => s.error);
  // The interview panels (their own chunk) show only in an interview.
  const interviewing = useLockscope((s) => s.interview !== null);
  const st = store.getState();
  const preset = presetId ? findPreset(presetId) : undefined;
  const { showAnswer, showFuture } = useVisibility();

  const gotoEvent = useCallback((id: string) => {
    const s = store.getState();
    s.setPlaying(false);
    s.setCursorIndex(indexOfEvent(run, id));
  }, [run, store]);
  const selectIndex = useCallback((i: number) => {
    const s = store.getState();
    s.setPlaying(false);
    s.setCursorIndex(i);
  }, [store]);
  const editing = useFaultEditing();
  const cited = useMemo(() => citationsOf(run), [run]);
  // The verdict, badge, transport and timeline show an edit in the frame it happens; the log, the
  // inspector and the metrics (below them) follow once that frame is painted, rendered by React
  // as a transition so that they never delay the verdict (./useAfterPaint.ts).
  const below = useMemo(() => ({ run, index: cursorIndex, cursorMs, cited }), [run, cursorIndex, cursorMs, cited]);
  // On the view's first render too: `null` first (the frame shows the verdict and the timeline,
  // and the browser lays out and paints them), then the panels below.
  const deferred = useAfterPaint<typeof below>(below, null);
  const lazy = deferred ?? below;
  // Where the future is hidden, the inspector and the statechart read the run only up to the cursor
  // (the statechart would say where the worker goes next; runUpTo).
  const upToCursor = useMemo(() => (showFuture ? lazy.run : runUpTo(lazy.run, lazy.index)), [showFuture, lazy.run, lazy.index]);
  const workerIds = useMemo(() => scenario.workers.map((w) => w.id), [scenario.workers]);

  return (
    <div className="sim-grid">
      <aside className="col-left" aria-label="Scenario setup">
        <MechanismPanel />
        <FaultList faults={faults} scenario={scenario} run={run} selected={selectedFault} onUpdate={st.updateFault} onRemove={st.removeFault} onSelect={st.selectFault} />
        <Bookmarks />
        <Share />
      </aside>
      <main className="col-main" id="main" tabIndex={-1}>
        <div className="main-top">
        <Setup key={`${presetId}|${scenario.title}`} title={scenario.title} text={preset && scenario.description === preset.withoutFix.description ? preset.situation : scenario.description} fix={showAnswer ? preset?.fix : undefined} />
        {error && <p className="error" role="alert">{error}</p>}
        <VerdictPanel run={run} onEventId={gotoEvent} tools={VERDICT_TOOLS} />
        <ChangeBadge badge={badge} onDismiss={st.dismissBadge} />
        <Transport />
        <Timeline
          run={run}
          label="Timeline"
          cursorMs={cursorMs}
          cursorIndex={cursorIndex}
          onEventId={gotoEvent}
          {...editing}
        />
        </div>
        {interviewing && (
          <Suspense fallback={null}>
            <CheckDesign />
            <InterviewerNotesPanel />
          </Suspense>
        )}
        <Explore />
        <div className="main-bottom">
          <Suspense fallback={null}>
            {deferred && <Log run={lazy.run} index={lazy.index} onSelect={selectIndex} cited={lazy.cited} />}
          </Suspense>
          <aside className="col-right" aria-label="Inspector and metrics">
            <Suspense fallback={null}>
              {deferred && <World run={upToCursor} index={lazy.index} cursorMs={lazy.cursorMs} />}
              {deferred && <Metrics run={lazy.run} />}
            </Suspense>
          </aside>
        </div>
        <Statechart run={upToCursor} index={lazy.index} workers={workerIds} />
        <Odds />
        <Interview />
      </main>
    </div>
  );
}
