/**
 * The views and panels loaded as their own chunks (./lazyView.ts): not needed for the first paint
 * of the simulator or the catalogue. Declared in the order the app preloads them in idle time
 * (the views a user opens first, first). Each is rendered under a `<Suspense>`.
 */
import { memo } from 'react';
import { lazyView } from './lazyView';

/**
 * The simulator's panels below the timeline: the event log (with its windowing library and the
 * replies' glossary), the inspector and the metrics. The first frame shows the verdict and the
 * timeline without them (SimulateView renders them at low priority); start.tsx starts loading them
 * at once. Memoised: an edit's frame passes them their previous (deferred) props.
 */
export const EventLog = lazyView(() => import('./log/EventLog').then((m) => memo(m.EventLog)));
export const Inspector = lazyView(() => import('./inspector/Inspector').then((m) => memo(m.Inspector)));
export const MetricsCharts = lazyView(() => import('./verdict/MetricsCharts').then((m) => memo(m.MetricsCharts)));

/** Starts loading the panels below the timeline (resolves when loaded; never rejects: a failed one loads when rendered). */
export function preloadBelowTimeline(): Promise<void> {
  return Promise.all([EventLog.preload(), Inspector.preload(), MetricsCharts.preload()]).then(() => undefined, () => undefined);
}

/** The Edit view (form and JSON). */
export const EditorView = lazyView(() => import('./editor/EditorView').then((m) => m.EditorView));
/** The Compare view. */
export const CompareView = lazyView(() => import('./compare/CompareView').then((m) => m.CompareView));
/** The share panel's "Run it yourself" (the run's transcript). */
export const TranscriptExport = lazyView(() => import('./share/TranscriptExport').then((m) => m.TranscriptExport));
/** The fault search panel ("Break my design"), opened from its disclosure. */
export const ExplorePanel = lazyView(() => import('./explore/ExplorePanel').then((m) => m.ExplorePanel));
/** "How often? (the odds)", opened from its disclosure. */
export const OddsPanel = lazyView(() => import('./odds/OddsPanel').then((m) => m.OddsPanel));
/** The help dialog's content (the header's Help button opens it). */
export const HelpContent = lazyView(() => import('./help/HelpContent').then((m) => m.HelpContent));
/** "How faithful is the model?" (the catalogue's foot and the help dialog). */
export const ModelNotes = lazyView(() => import('./help/ModelNotes').then((m) => m.ModelNotes));
/** The guided lessons' path and one lesson. */
export const LessonPath = lazyView(() => import('./lessons/LessonView').then((m) => m.LessonPath));
export const LessonView = lazyView(() => import('./lessons/LessonView').then((m) => m.LessonView));
/** The workshop's presenter or audience window. */
export const WorkshopView = lazyView(() => import('./workshop/WorkshopView').then((m) => m.WorkshopView));
/** The interview panels: the form that makes the two links (opened from its disclosure), "Check my design" and the interviewer's notes. */
export const InterviewSetupForm = lazyView(() => import('./interview/InterviewPanel').then((m) => m.InterviewSetupForm));
export const CheckDesign = lazyView(() => import('./interview/InterviewPanel').then((m) => m.CheckDesign));
export const InterviewerNotesPanel = lazyView(() => import('./interview/InterviewPanel').then((m) => m.InterviewerNotesPanel));
