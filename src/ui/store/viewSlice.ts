/** View slice: which screen is shown and in which mode, large type for projectors, the compare target and the fault menu. */
import { sortBookmarks } from './bookmarks';
import { candidateScenario } from '../../share/candidatePrompt';
import type { Slice, ViewSlice } from './types';

/** Creates the view slice. */
export const createViewSlice: Slice<ViewSlice> = (set, get) => ({
  view: 'catalogue',
  embed: false,
  largeType: false,
  theme: 'auto',
  mode: 'explore',
  revealed: false,
  interview: null,
  transcript: [],
  interviewClockMs: null,
  interviewBase: null,
  compareTarget: { kind: 'otherVariant' },
  faultMenu: null,
  notice: null,
  draftOffer: null,
  setView(view) {
    // A lesson's mode (the fix hidden) belongs to the lesson view: leaving it goes back to explore.
    // A candidate's interview stays one whatever view is asked for (App shows the simulator instead).
    const mode = get().mode === 'interview' ? 'interview' : view === 'lesson' ? 'lesson' : get().mode === 'lesson' ? 'explore' : get().mode;
    set({ view, faultMenu: null, playing: false, mode });
  },
  setMode(mode) {
    set({ mode, revealed: false });
  },
  setInterview(interview) {
    const candidate = interview?.role === 'candidate';
    set({ interview, mode: candidate ? 'interview' : 'explore', revealed: false, transcript: [], interviewClockMs: null, interviewBase: null });
    // The candidate's scenario is worded as their link carries it: the neutral prompt, no preset (src/share/candidatePrompt.ts).
    if (candidate) set((s) => ({ presetId: null, scenario: candidateScenario(s.scenario, s.composed), composed: candidateScenario(s.composed) }));
  },
  addTranscript(entry) {
    set((s) => ({ transcript: [...s.transcript, entry] }));
  },
  startInterviewClock(nowMs, base) {
    set((s) => (s.interviewClockMs === null ? { interviewClockMs: nowMs, interviewBase: base } : {}));
  },
  resumeInterview(clockMs, base, transcript) {
    set((s) => (s.interviewClockMs === null ? { interviewClockMs: clockMs, interviewBase: base, transcript: [...transcript] } : {}));
  },
  reveal() {
    set({ revealed: true });
  },
  bookmarks: [],
  addBookmark(b) {
    set((s) => ({ bookmarks: sortBookmarks([...s.bookmarks.filter((x) => x.atMs !== b.atMs), b]) }));
  },
  updateBookmark(index, note) {
    set((s) => ({ bookmarks: s.bookmarks.map((b, i) => (i === index ? { ...b, note } : b)) }));
  },
  removeBookmark(index) {
    set((s) => ({ bookmarks: s.bookmarks.filter((_b, i) => i !== index) }));
  },
  stepBookmark(delta) {
    const s = get();
    const target = delta > 0 ? s.bookmarks.find((b) => b.atMs > s.cursorMs) : [...s.bookmarks].reverse().find((b) => b.atMs < s.cursorMs);
    if (!target) return false;
    s.setPlaying(false);
    s.setCursorMs(target.atMs);
    return true;
  },
  lesson: null,
  setLesson(lesson) {
    set({ lesson });
  },
  workshop: null,
  setWorkshop(workshop) {
    set({ workshop });
  },
  blank: false,
  setBlank(blank) {
    set({ blank });
  },
  vote: null,
  setVote(vote) {
    set({ vote });
  },
  setLargeType(largeType) {
    set({ largeType });
  },
  setTheme(theme) {
    set({ theme });
  },
  setCompareTarget(compareTarget) {
    set({ compareTarget });
  },
  openFaultMenu(faultMenu) {
    set({ faultMenu });
  },
  closeFaultMenu() {
    set({ faultMenu: null });
  },
  showNotice(title, errors) {
    set((s) => ({ notice: { title, errors, serial: (s.notice?.serial ?? 0) + 1 } }));
  },
  dismissNotice() {
    set({ notice: null });
  },
  setDraftOffer(draftOffer) {
    set({ draftOffer });
  },
});
