/** The store's shape: four slices combined once in ./index.ts. */
import type { StateCreator } from 'zustand';
import type { StoreApi } from 'zustand/vanilla';
import type { LaneRef } from '../timeline/lanes';
import type { Fault, Scenario, ValidationError } from '../../sim';
import type { ShareState } from '../../share/link';

/** The interviewer's notes, as the interviewer's link holds them (src/share/link.ts). */
export type InterviewerNotes = NonNullable<ShareState['z']>;

/**
 * An interview open in this view. The candidate's side (mode `interview`) holds only what grading
 * needs; the interviewer's side (mode `explore`) holds the notes too.
 */
export interface InterviewSetup {
  readonly role: 'candidate' | 'interviewer';
  /** The faults "Check my design" grades against: kinds (empty = every kind that applies) and at most `maxFaults` per schedule. */
  readonly kinds: readonly string[];
  readonly maxFaults: number;
  /** The interview's id, shared by its two links (the link's `g.d`; absent in older links): what its timer and transcript are kept under across a reload (../interview/session.ts). */
  readonly id?: string;
  /** Only on the interviewer's side. */
  readonly notes: InterviewerNotes | null;
}

/** A bookmark: a moment of the timeline and a short annotation (kept in the link as `b`). */
export interface Bookmark {
  /** The moment, in virtual ms. */
  readonly atMs: number;
  /** The annotation ("here A still believes it owns the lease"; may be empty). */
  readonly note: string;
}

/** A guided lesson's state, as its link holds it (src/share/link.ts `l`). */
export type LessonState = NonNullable<ShareState['l']>;

/** A workshop window (presenter or audience) and its channel, as its link holds it (`r`). */
export type Workshop = NonNullable<ShareState['r']>;

/**
 * A "what happens next?" vote of a workshop: the options (the next event's sentence among two
 * later ones), the tally the presenter enters, and whether the answer is revealed.
 */
export interface Vote {
  /** The cursor's event index when the vote was asked (the answer is the event after it). */
  readonly atIndex: number;
  readonly options: readonly string[];
  /**
   * Indexes of the options that happen next: the next event's and every other whose event happens
   * at the same virtual millisecond (`workshop/vote.ts` `optionsRightAt`; never empty).
   */
  readonly answers: readonly number[];
  /** Hands counted per option (entered by the presenter). */
  readonly tally: readonly number[];
  readonly revealed: boolean;
}

/** Which preset variant is loaded. */
export type Variant = 'without' | 'with';

/** The scenario being simulated (its `faults` field is ignored: faults live in the faults slice). */
export interface ScenarioSlice {
  presetId: string | null;
  variant: Variant;
  /** The scenario's setup and mechanism (faults excluded). */
  scenario: Scenario;
  /** scenario + faults, validated: the object every panel derives its run from. */
  composed: Scenario;
  /** Set when the last edit produced an invalid scenario (the previous one stays). */
  error: string | null;
  /** Loads a preset variant (its faults too) and resets the cursor. */
  loadPreset(id: string, variant?: Variant): void;
  /**
   * Replaces the scenario's setup (mechanism switches, parameters); keeps the faults. `key` names
   * the control that made the edit: consecutive edits with one key (typing, nudging) share one
   * history entry.
   */
  setScenario(next: Scenario, what?: string, key?: string): void;
  /** Replaces setup and faults at once (editor, import); validated like every edit. */
  replaceScenario(next: Scenario, what: string | null, key: string): void;
  /** Loads a whole state (from a link, the history or a restored draft) without a badge. */
  loadShared(scenario: Scenario, opts: SharedOpts): void;
  /** The control behind the last scenario edit (for coalescing history entries). */
  lastEdit: { readonly key: string; readonly serial: number } | null;
}

/** One line of an interview's transcript: what the candidate checked and what the search answered. */
export interface TranscriptEntry {
  /** Milliseconds since the interview's clock started (wall clock: this is the UI, not the simulation). */
  readonly atMs: number;
  /** The mechanism checked, in words. */
  readonly design: string;
  readonly result: string;
}

/** What a link says besides the scenario. */
export interface SharedOpts {
  readonly variant?: Variant;
  readonly view?: View;
  /** Index of the current event (-1: before the first). */
  readonly cursorIndex?: number;
  /** The cursor's exact time in virtual ms, when the link has one (a cursor between events); wins over `cursorIndex`. */
  readonly cursorMs?: number;
  readonly compareTarget?: CompareTarget;
  /** The view mode the link asks for (explore when absent). */
  readonly mode?: ViewMode;
  /** The link asks for large type (absent: the reader's own setting stays). */
  readonly largeType?: boolean;
  /** The interview the link opens (absent: none). */
  readonly interview?: InterviewSetup;
  /** The link asks for the embed view (`e=1`; absent: the view stays as it was). */
  readonly embed?: boolean;
  /** The link's bookmarks (absent: none). */
  readonly bookmarks?: readonly Bookmark[];
  /** The guided lesson the link opens (absent: none). */
  readonly lesson?: LessonState;
  /** The workshop window the link opens (absent: none). */
  readonly workshop?: Workshop;
}

/** What the last edit changed, for the badge. */
export interface ChangeBadge {
  /** What the user did, e.g. "Added: pause A for 10 s at 12 s". */
  readonly action: string;
  /** Differences in the outcome, e.g. ["verdict: held → violated", "+1 duplicate upload"]. */
  readonly changes: readonly string[];
  /** Increments with every edit (lets the badge re-announce). */
  readonly serial: number;
}

/** The faults injected into the scenario (plain data, as in the scenario format). */
export interface FaultsSlice {
  faults: Fault[];
  badge: ChangeBadge | null;
  /** Index of the fault selected on the timeline or in the list. */
  selectedFault: number | null;
  addFault(f: Fault): void;
  updateFault(index: number, f: Fault): void;
  removeFault(index: number): void;
  selectFault(index: number | null): void;
  dismissBadge(): void;
}

/** The cursor: a time and the index of the last event at or before it (-1: before the first event). */
export interface CursorSlice {
  cursorMs: number;
  cursorIndex: number;
  playing: boolean;
  /** Playback speed: virtual seconds per real second. */
  speed: number;
  /** Moves to an event (the time follows). */
  setCursorIndex(index: number): void;
  /** Moves to a time (the index follows). */
  setCursorMs(ms: number): void;
  stepEvent(delta: 1 | -1): void;
  home(): void;
  end(): void;
  setPlaying(playing: boolean): void;
  togglePlay(): void;
  setSpeed(speed: number): void;
}

/**
 * How a view presents the run. `explore`: everything shown. `predict` (predict-then-reveal, for
 * workshops): the verdict, the badges' outcome, the violation marks, the metrics and the events
 * after the cursor stay hidden until the cursor reaches the last event or the user reveals them.
 * The link keeps it (`h=1`). `interview` (the candidate's side of an interview link, `i=1`): every
 * hint of the answer hidden for good — the verdict, findings, metrics, the preset's fix, the
 * mechanism hints, the search panels — with no reveal. `lesson` (a guided lesson): the run and
 * the mechanism hints shown, the preset's fix hidden (the exercise asks for it).
 */
export type ViewMode = 'explore' | 'predict' | 'interview' | 'lesson';

/** Colour theme: `auto` follows the system's `prefers-color-scheme`; `projector` is high-contrast light. */
export type Theme = 'auto' | 'light' | 'dark' | 'projector';

/** Top-level screen. */
export type View = 'catalogue' | 'simulate' | 'compare' | 'edit' | 'lessons' | 'lesson' | 'workshop';

/** A visible, dismissible message about input the app refused (a link, a file). */
export interface Notice {
  readonly title: string;
  readonly errors: readonly ValidationError[];
  /** Increments with every notice (re-announces). */
  readonly serial: number;
}

/** Unsaved edits found in local storage that differ from what is open. */
export interface DraftOffer {
  readonly fragment: string;
  readonly savedAt: number;
  readonly title: string;
}

/** What the compare view puts on the right-hand side. */
export type CompareTarget = { readonly kind: 'otherVariant' } | { readonly kind: 'switch'; readonly switchId: string };

/** Where the fault menu is open. */
export interface FaultMenuState {
  readonly lane: LaneRef;
  readonly atMs: number;
  /** Page position of the menu. */
  readonly x: number;
  readonly y: number;
}

/** A timeline lane a fault can be placed on: one of the registered lane kinds (timeline/lanes). */
export type { LaneRef };

/** Screen-level state. */
export interface ViewSlice {
  view: View;
  /**
   * The embed view (`e=1`, or the app loaded inside a frame): only the timeline, the verdict and
   * the transport, read-only. Once on, it stays on for the page ("Open in Lockscope" opens the
   * full view in a new tab).
   */
  embed: boolean;
  /** Large type: the page and the timeline scaled up (for projectors); kept in the link and on this device. */
  largeType: boolean;
  /** Colour theme (kept on this device: ../prefs.ts). */
  theme: Theme;
  setTheme(theme: Theme): void;
  /** How the view presents the run; what it shows follows from it (./visibility.ts). */
  mode: ViewMode;
  /** Revealed for the run on screen (by reaching the last event, or "Reveal"); reset when a preset or link loads or the mode changes. */
  revealed: boolean;
  /** Changes the mode (and hides again what a reveal had shown). */
  setMode(mode: ViewMode): void;
  /** The interview open in this view (kept in the link), or null. */
  interview: InterviewSetup | null;
  /** Opens an interview (the candidate's side switches to interview mode) or closes it (null: back to explore); the transcript and clock start afresh. */
  setInterview(interview: InterviewSetup | null): void;
  /** What the candidate checked, in order, for the debrief (kept in this tab across a reload of the interview's link: ../interview/session.ts). */
  transcript: readonly TranscriptEntry[];
  addTranscript(entry: TranscriptEntry): void;
  /** When the interview's clock started (`performance.now()`-like ms), null until the first look. */
  interviewClockMs: number | null;
  /** The design on screen when the clock started (the transcript says what each check changed from it). */
  interviewBase: Scenario | null;
  /** Starts the clock (once per interview) and notes the starting design. */
  startInterviewClock(nowMs: number, base: Scenario): void;
  /** Takes up an interview kept across a reload (../interview/session.ts): its clock's start (`performance.now()`-like ms), starting design and transcript — unless the clock has started already. */
  resumeInterview(clockMs: number, base: Scenario, transcript: readonly TranscriptEntry[]): void;
  reveal(): void;
  /** Bookmarks on the timeline, in time order (kept in the link). */
  bookmarks: readonly Bookmark[];
  /** Adds a bookmark (kept in time order; one per moment: a second at the same moment replaces the note). */
  addBookmark(b: Bookmark): void;
  updateBookmark(index: number, note: string): void;
  removeBookmark(index: number): void;
  /** Moves the cursor to the next (+1) or previous (−1) bookmark after/before the cursor; false when there is none. */
  stepBookmark(delta: 1 | -1): boolean;
  /** The guided lesson open (view `lesson`), or null. */
  lesson: LessonState | null;
  setLesson(lesson: LessonState | null): void;
  /** The workshop window this is (view `workshop`), or null. */
  workshop: Workshop | null;
  setWorkshop(workshop: Workshop | null): void;
  /** The audience's screen is blanked (a workshop's "blank screen"). */
  blank: boolean;
  setBlank(blank: boolean): void;
  /** The workshop's "what happens next?" vote, or null. */
  vote: Vote | null;
  setVote(vote: Vote | null): void;
  compareTarget: CompareTarget;
  faultMenu: FaultMenuState | null;
  notice: Notice | null;
  draftOffer: DraftOffer | null;
  setView(view: View): void;
  showNotice(title: string, errors: readonly ValidationError[]): void;
  dismissNotice(): void;
  setDraftOffer(offer: DraftOffer | null): void;
  setLargeType(on: boolean): void;
  setCompareTarget(t: CompareTarget): void;
  openFaultMenu(m: FaultMenuState): void;
  closeFaultMenu(): void;
}

/** The whole store. */
export type LockscopeState = ScenarioSlice & FaultsSlice & CursorSlice & ViewSlice;

/** A slice creator over the whole store. */
export type Slice<T> = StateCreator<LockscopeState, [], [], T>;

/** One view's store (Zustand's vanilla store API: getState, setState, subscribe). */
export type LockscopeStore = StoreApi<LockscopeState>;
