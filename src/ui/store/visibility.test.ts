import { createLockscopeStore, deriveRun, visibilityOf } from '.';

describe('visibility from the mode', () => {
  it('explore shows everything, wherever the cursor is', () => {
    const store = createLockscopeStore();
    store.getState().setView('simulate');
    const v = visibilityOf(store.getState());
    expect(v).toMatchObject({ showVerdict: true, showFindings: true, showFuture: true, showEditOutcome: true, showMetrics: true, offerReveal: false });
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
});
