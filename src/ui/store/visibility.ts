/**
 * What the view shows of the run right now, derived from the store's one `mode` field. Every
 * component that hides something in a mode reads it here (`useVisibility()`), never from a prop
 * passed down: a new mode (interview, presenter) is a new `ViewMode` value and a row below.
 *
 * - `explore`: everything is shown.
 * - `predict` (predict-then-reveal, for workshops): in the views with a cursor (simulate,
 *   compare) the outcome stays hidden until the cursor reaches the last event or the user
 *   reveals it; the editor, which has no cursor to step to the end, shows it.
 * - `interview` (the candidate's link): every hint of the answer, for good and in every view —
 *   the verdict, findings, metrics, the preset's fix and the "with the fix" variant, the mechanism
 *   hints, the catalogue's verdicts, the search and odds panels, the compare view, the verdict in
 *   an exported image's title — and no way to reveal or to leave the mode from the page.
 * - `lesson` (a guided lesson): until the reveal (stage < 2) the outcome stays hidden — the verdict,
 *   findings, metrics, an edit's outcome and the events after the cursor — since the lesson asks
 *   for a prediction first; from the reveal on, everything but the preset's fix (the exercise asks
 *   for it).
 */
import { deriveRun } from './derive';
import { useLockscope } from './context';
import type { LockscopeState } from './types';
import type { TraceEvent } from '../../sim';

/** What is shown. Values are shared constants: compare them by identity. */
export interface Visibility {
  /** The verdict: held or violated, and its findings. */
  readonly showVerdict: boolean;
  /** Findings drawn on the run: violation marks, events marked as cited, "DUPLICATE" on writes. */
  readonly showFindings: boolean;
  /** Events after the cursor: the event log lists them and the timeline draws them (no curtain). */
  readonly showFuture: boolean;
  /** What an edit changed in the outcome (the change badge's second half). */
  readonly showEditOutcome: boolean;
  readonly showMetrics: boolean;
  /** Offer "Reveal now" (something is hidden that the user may ask to see). */
  readonly offerReveal: boolean;
  /**
   * The answer itself: the preset's fix ("The fix: …" after the description, the "with the fix"
   * variant, the catalogue's fix line and verdicts), the compare view, the fault search and odds
   * panels (their results grade the design), and the verdict in an exported image's title.
   */
  readonly showAnswer: boolean;
  /**
   * What each mechanism switch's value does ("DEL removes the key, whoever holds it"), and the
   * explanation part of a narration (`TraceEvent.fact` is shown instead: `narrationShown`).
   */
  readonly showHints: boolean;
  /**
   * Which mechanism switches change nothing in this run (disabled, folded into "N more switches:
   * no effect in this run", a select's "(same run)" values): telling which switches matter is a
   * hint too, so the candidate's panel shows every switch alike.
   */
  readonly showSwitchEffects: boolean;
  /** Offer the predict-then-reveal toggle (a mode the user may switch). */
  readonly offerModeToggle: boolean;
}

const EVERYTHING: Visibility = Object.freeze({ showVerdict: true, showFindings: true, showFuture: true, showEditOutcome: true, showMetrics: true, offerReveal: false, showAnswer: true, showHints: true, showSwitchEffects: true, offerModeToggle: true });
const PREDICTING: Visibility = Object.freeze({ showVerdict: false, showFindings: false, showFuture: false, showEditOutcome: false, showMetrics: false, offerReveal: true, showAnswer: true, showHints: true, showSwitchEffects: true, offerModeToggle: true });
const INTERVIEWING: Visibility = Object.freeze({ showVerdict: false, showFindings: false, showFuture: true, showEditOutcome: false, showMetrics: false, offerReveal: false, showAnswer: false, showHints: false, showSwitchEffects: false, offerModeToggle: false });

/**
 * A guided lesson after its reveal: the run and the hints shown; the preset's fix hidden (the
 * lesson's exercise asks for it), and so is which switches change this run (the folded "no effect"
 * list told the learner which ones matter).
 */
const LESSON: Visibility = Object.freeze({ ...EVERYTHING, showAnswer: false, showSwitchEffects: false, offerModeToggle: false });
/** A guided lesson before its reveal: nothing of the outcome (the lesson asks for a prediction first), nor which switches matter; its own Reveal button, not the view's. */
const LESSON_PREDICTING: Visibility = Object.freeze({ ...PREDICTING, offerReveal: false, showAnswer: false, showSwitchEffects: false, offerModeToggle: false });

/** The lesson stage from which the outcome shows (LessonView: 0 predict, 1 prediction checked, 2 reveal, 3 exercise). */
export const LESSON_REVEAL_STAGE = 2;

/** Predict mode's condition: not revealed yet, and the cursor before the run's last event. */
function outcomeStillAhead(s: LockscopeState): boolean {
  if (s.revealed || s.view === 'edit') return false;
  const n = deriveRun(s.composed).events.length;
  return n > 0 && s.cursorIndex < n - 1;
}

/** The store's visibility (a selector: returns one of a few constants, so re-renders happen only when it changes). */
export function visibilityOf(s: LockscopeState): Visibility {
  switch (s.mode) {
    case 'explore':
      return EVERYTHING;
    case 'predict':
      return outcomeStillAhead(s) ? PREDICTING : EVERYTHING;
    case 'interview':
      return INTERVIEWING;
    case 'lesson':
      return s.lesson && s.lesson.st < LESSON_REVEAL_STAGE ? LESSON_PREDICTING : LESSON;
  }
}

/**
 * An event's sentence as the view shows it: the whole narration, or with `factsOnly` (a view whose
 * visibility has no `showHints`: the interview's candidate) its fact alone — the words that name
 * a missing mechanism or the fix left out, as the trace's data marks them (`TraceEvent.fact`).
 */
export function narrationShown(e: Pick<TraceEvent, 'narration' | 'fact'>, factsOnly: boolean): string {
  return factsOnly ? e.fact ?? e.narration : e.narration;
}

/** The enclosing view's visibility. */
export function useVisibility(): Visibility {
  return useLockscope(visibilityOf);
}
