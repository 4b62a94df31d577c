/**
 * The views and panels loaded as their own chunks (./lazyView.ts): not needed for the first paint
 * of the simulator or the catalogue. Declared in the order the app preloads them in idle time
 * (the views a user opens first, first). Each is rendered under a `<Suspense>`.
 */
import { lazyView } from './lazyView';

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
