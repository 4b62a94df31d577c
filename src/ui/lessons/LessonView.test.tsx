// @vitest-environment jsdom
import { act } from 'react';
import { cleanup, fireEvent, screen, waitFor } from '@testing-library/react';
import { createLockscopeStore } from '../store';
import { renderIn } from '../store/testing';
import { LessonPath, LessonView, openLesson } from './LessonView';
import { loadProgress, PROGRESS_KEY } from './progress';
import { rightOptions, drawQuestion } from './question';
import { findInThread } from './testing';
import { findPreset } from '../../sim';

globalThis.ResizeObserver ??= class { observe() {} unobserve() {} disconnect() {} } as unknown as typeof ResizeObserver;
afterEach(() => { cleanup(); localStorage.clear(); });

describe('a guided lesson', () => {
  it('question → prediction checked → reveal with cited events → exercise graded by the search → done, kept on this device', async () => {
    const s = createLockscopeStore();
    openLesson(s, 'unique');
    expect(s.getState().view).toBe('lesson');
    expect(s.getState().mode).toBe('lesson');
    expect(s.getState().lesson).toEqual({ id: 'unique', q: 0, st: 0 });
    renderIn(s, <LessonView />);
    // The exercise asks for the fix: neither the fix nor the "with the fix" radio shows.
    expect(document.body.textContent).not.toContain('with the fix');
    expect(document.body.textContent).not.toContain('The fix');
    await waitFor(() => expect(screen.getAllByRole('checkbox', { name: /^[A-C]\./ }).length).toBeGreaterThan(0), { timeout: 20_000 });
    const boxes = screen.getAllByRole('checkbox', { name: /^[A-C]\./ });
    // The right pick is what the simulation says (the same seeded question, drawn here in-thread).
    const q = await drawQuestion(findPreset('invoice-race')!.withoutFix, ['pause'], 1, 0, findInThread);
    expect(q.options.map((o) => o.words)).toEqual(boxes.map((b) => b.closest('label')!.textContent!.replace(/^[A-C]\. /, '')));
    for (const i of rightOptions(q)) fireEvent.click(boxes[i]!);
    fireEvent.click(screen.getByTestId('lesson-check'));
    expect(s.getState().lesson?.st).toBe(1);
    expect(screen.getByTestId('lesson-verdict')).toHaveTextContent(/^Right\./);
    fireEvent.click(screen.getByTestId('lesson-reveal'));
    expect(screen.getByTestId('lesson-reveal-panel').querySelectorAll('.cited li').length).toBeGreaterThan(0);
    fireEvent.click(screen.getByTestId('lesson-to-exercise'));
    fireEvent.click(screen.getByTestId('lesson-grade'));
    await waitFor(() => expect(screen.getByTestId('lesson-grade-result')).toHaveTextContent('Not yet.'), { timeout: 20_000 });
    expect(loadProgress().done).toEqual([]);
    act(() => { const st = s.getState(); st.setScenario({ ...st.scenario, mechanism: { ...st.scenario.mechanism, uniqueKey: true } }); });
    fireEvent.click(screen.getByTestId('lesson-grade'));
    await waitFor(() => expect(screen.getByTestId('lesson-grade-result')).toHaveTextContent('It holds.'), { timeout: 20_000 });
    expect(screen.getByTestId('lesson-done')).toHaveTextContent('unique constraint');
    expect(loadProgress().done).toEqual(['unique']);
    fireEvent.click(screen.getByTestId('lesson-next'));
    expect(s.getState().lesson?.id).toBe('row-lock');
    expect(s.getState().presetId).toBe('inventory-reserve');
  }, 60_000);

  it('draws a new question each time a lesson opens (the seed counts on this device); the path shows progress; bad stored data is no progress', () => {
    const s = createLockscopeStore();
    openLesson(s, 'lease');
    openLesson(s, 'lease');
    expect(s.getState().lesson?.q).toBe(1);
    localStorage.setItem(PROGRESS_KEY, '{"v":1,"done":["lease","nonsense"]');
    renderIn(s, <LessonPath />);
    expect(screen.getByTestId('lesson-progress')).toHaveTextContent('0 of 8 lessons done.');
    expect(screen.getByRole('button', { name: 'Start: lesson 1, Start from the invariant' })).toBeInTheDocument();
  });

  it('the mechanism is locked until the exercise (the prediction is about the lesson\'s design); in the exercise a schedule is tried on the learner\'s own design', async () => {
    const s = createLockscopeStore();
    openLesson(s, 'fencing');
    renderIn(s, <LessonView />);
    await waitFor(() => expect(screen.getAllByRole('checkbox', { name: /^[A-C]\./ }).length).toBeGreaterThan(0), { timeout: 20_000 });
    const panel = document.querySelector('fieldset.lesson-mechanism') as HTMLFieldSetElement;
    expect(panel.disabled).toBe(true);
    expect(screen.getByTestId('lesson-mechanism-locked')).toBeInTheDocument();
    fireEvent.click(screen.getByTestId('lesson-check'));
    fireEvent.click(screen.getByTestId('lesson-reveal'));
    expect(panel.disabled).toBe(true);
    fireEvent.click(screen.getByTestId('lesson-to-exercise'));
    expect((document.querySelector('fieldset.lesson-mechanism') as HTMLFieldSetElement).disabled).toBe(false);
    expect(screen.queryByTestId('lesson-mechanism-locked')).toBeNull();
    // The learner's design: fencing on and a longer TTL; trying schedule A keeps both.
    act(() => { const st = s.getState(); st.setScenario({ ...st.scenario, mechanism: { ...st.scenario.mechanism, fencing: true }, destination: { ...st.scenario.destination, checksFencing: true }, lease: { ...st.scenario.lease, ttlMs: 45_000 } }); });
    const aWords = screen.getByTestId('lesson-reveal-panel').querySelector('li > strong')!.textContent!.replace(/^A\. /, '').replace(/:$/, '');
    fireEvent.click(screen.getByRole('button', { name: 'Try A on your design' }));
    const after = s.getState().composed;
    expect(after.mechanism.fencing).toBe(true);
    expect(after.lease.ttlMs).toBe(45_000);
    const q = await drawQuestion(findPreset('export-lease-expiry')!.withoutFix, ['pause'], 1, 0, findInThread);
    expect(q.options[0]!.words).toBe(aWords);
    expect(after.faults).toEqual(q.options[0]!.faults);
  }, 60_000);

  it('a design that holds but is stronger than it needs to be is told so, and the lesson is not done', async () => {
    const s = createLockscopeStore();
    openLesson(s, 'invariant');
    renderIn(s, <LessonView />);
    await waitFor(() => expect(screen.getAllByRole('checkbox', { name: /^[A-C]\./ }).length).toBeGreaterThan(0), { timeout: 20_000 });
    fireEvent.click(screen.getByTestId('lesson-check'));
    fireEvent.click(screen.getByTestId('lesson-reveal'));
    fireEvent.click(screen.getByTestId('lesson-to-exercise'));
    // The thumbnail job needs no lock (a second render is harmless): a lease is more than it needs.
    act(() => { const st = s.getState(); st.setScenario(findPreset('thumbnail')!.withFix); });
    fireEvent.click(screen.getByTestId('lesson-grade'));
    await waitFor(() => expect(screen.getByTestId('lesson-grade-result')).toHaveTextContent('It holds.'), { timeout: 30_000 });
    expect(screen.getByTestId('lesson-needless')).toHaveTextContent(/Stronger than it needs to be\..*Lock: Redis lease/);
    expect(screen.queryByTestId('lesson-done')).toBeNull();
    expect(loadProgress().done).toEqual([]);
    // The starting design itself is the weakest that holds: done.
    act(() => { s.getState().setScenario(findPreset('thumbnail')!.withoutFix); });
    fireEvent.click(screen.getByTestId('lesson-grade'));
    await waitFor(() => expect(screen.getByTestId('lesson-done')).toBeInTheDocument(), { timeout: 30_000 });
    expect(screen.queryByTestId('lesson-needless')).toBeNull();
    expect(loadProgress().done).toEqual(['invariant']);
  }, 90_000);
});
