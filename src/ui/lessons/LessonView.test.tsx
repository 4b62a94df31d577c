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
});
