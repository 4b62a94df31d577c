import { createLockscopeStore, deriveRun, visibilityOf } from '.';
import { LESSON_REVEAL_STAGE } from './visibility';
import { LESSON_PATH } from '../lessons/lessons';

describe('visibility from the mode', () => {
  it('explore shows everything, wherever the cursor is', () => {
    const store = createLockscopeStore();
    store.getState().setView('simulate');
    const v = visibilityOf(store.getState());
    expect(v).toMatchObject({ showVerdict: true, showFindings: true, showFuture: true, showEditOutcome: true, showMetrics: true, offerReveal: false, showAnswer: true, showHints: true, offerModeToggle: true });
  });

  it('predict hides the outcome until the last event, and a reveal shows it until the mode changes', () => {
    const store = createLockscopeStore();
    const st = store.getState();
    st.setView('simulate');
    st.setMode('predict');
    const hidden = visibilityOf(store.getState());
    expect(hidden).toMatchObject({ showVerdict: false, showFindings: false, showFuture: false, showEditOutcome: false, showMetrics: false, offerReveal: true });
    // Same answer, same object: a selector that re-renders only when visibility flips.
    st.stepEvent(1);
    expect(visibilityOf(store.getState())).toBe(hidden);
    const n = deriveRun(store.getState().composed).events.length;
    st.setCursorIndex(n - 1);
    expect(visibilityOf(store.getState()).showVerdict).toBe(true);
    st.home();
    expect(visibilityOf(store.getState()).showVerdict).toBe(true);
    st.setMode('predict');
    expect(visibilityOf(store.getState()).showVerdict).toBe(false);
    st.reveal();
    expect(visibilityOf(store.getState()).showVerdict).toBe(true);
  });

  it('the editor (no cursor to step to the end) shows the verdict in predict mode', () => {
    const store = createLockscopeStore();
    store.getState().setMode('predict');
    store.getState().setView('edit');
    expect(visibilityOf(store.getState()).showVerdict).toBe(true);
    store.getState().setView('compare');
    expect(visibilityOf(store.getState()).showVerdict).toBe(false);
  });

  it('interview hides every hint of the answer in every view and wherever the cursor is, and offers no reveal or mode toggle', () => {
    const store = createLockscopeStore();
    const st = store.getState();
    st.setView('simulate');
    st.setInterview({ role: 'candidate', kinds: [], maxFaults: 2, notes: null });
    expect(store.getState().mode).toBe('interview');
    const hidden = visibilityOf(store.getState());
    expect(hidden).toMatchObject({ showVerdict: false, showFindings: false, showEditOutcome: false, showMetrics: false, showAnswer: false, showHints: false, offerReveal: false, offerModeToggle: false });
    const n = deriveRun(store.getState().composed).events.length;
    st.setCursorIndex(n - 1);
    st.reveal();
    for (const view of ['simulate', 'compare', 'edit', 'catalogue'] as const) {
      st.setView(view);
      expect(visibilityOf(store.getState())).toBe(hidden);
    }
  });

  it('a lesson never says which switches change its run, before or after its reveal (the folded "no effect" list told the learner which ones matter)', () => {
    const store = createLockscopeStore();
    const st = store.getState();
    st.loadPreset(LESSON_PATH[0]!.presetId, 'without');
    st.setView('lesson');
    for (const stage of [0, 1, LESSON_REVEAL_STAGE, 3]) {
      st.setLesson({ id: LESSON_PATH[0]!.id, q: 0, st: stage });
      expect(store.getState().mode).toBe('lesson');
      expect(visibilityOf(store.getState())).toMatchObject({ showSwitchEffects: false, showAnswer: false });
    }
    st.setView('simulate');
    expect(visibilityOf(store.getState()).showSwitchEffects).toBe(true);
  });

  it("the interviewer's side, and explore and predict, show the answer", () => {
    const store = createLockscopeStore();
    store.getState().setView('simulate');
    store.getState().setInterview({ role: 'interviewer', kinds: [], maxFaults: 2, notes: { t: 'x'.repeat(16), a: '', q: [], r: [] } });
    expect(store.getState().mode).toBe('explore');
    expect(visibilityOf(store.getState())).toMatchObject({ showAnswer: true, showHints: true, showVerdict: true });
    store.getState().setMode('predict');
    expect(visibilityOf(store.getState())).toMatchObject({ showAnswer: true, showHints: true, showVerdict: false });
    store.getState().setInterview(null);
    expect(store.getState().mode).toBe('explore');
  });
});
