/** View slice: which screen is shown and in which mode, large type for projectors, the compare target and the fault menu. */
import type { Slice, ViewSlice } from './types';

/** Creates the view slice. */
export const createViewSlice: Slice<ViewSlice> = (set) => ({
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
    set({ view, faultMenu: null, playing: false });
  },
  setMode(mode) {
    set({ mode, revealed: false });
  },
  setInterview(interview) {
    set({ interview, mode: interview?.role === 'candidate' ? 'interview' : 'explore', revealed: false, transcript: [], interviewClockMs: null, interviewBase: null });
  },
  addTranscript(entry) {
    set((s) => ({ transcript: [...s.transcript, entry] }));
  },
  startInterviewClock(nowMs, base) {
    set((s) => (s.interviewClockMs === null ? { interviewClockMs: nowMs, interviewBase: base } : {}));
  },
  reveal() {
    set({ revealed: true });
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
