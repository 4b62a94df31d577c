// @vitest-environment jsdom
/**
 * Nothing a lesson shows before its reveal states the outcome — for all 8 lessons: the question,
 * the setup, the timeline (its words, titles and accessible names), the mechanism panel, the path's
 * cards. The outcome texts are derived, not hand-listed: the catalogue's situation and title, what
 * the preset is expected to show, every finding of the preset's run and of each option's run, and
 * the verdict's words. Also: Help opened inside a lesson describes the lesson, not an interview.
 */
import { act } from 'react';
import { cleanup, fireEvent, screen, waitFor } from '@testing-library/react';
import { createLockscopeStore, deriveRun } from '../store';
import { renderIn } from '../store/testing';
import { LessonPath, LessonView, openLesson } from './LessonView';
import { LESSON_PATH, lessonQuestion } from './lessons';
import { askFor, drawQuestion } from './question';
import { findInThread } from './testing';
import { findPreset } from '../../sim';
import { HelpButton } from '../help/HelpDialog';

globalThis.ResizeObserver ??= class { observe() {} unobserve() {} disconnect() {} } as unknown as typeof ResizeObserver;
window.scrollTo = () => {};
afterEach(() => { cleanup(); localStorage.clear(); });

/** Every word the page shows or names: text, SVG titles, accessible names, tooltips. */
function pageWords(): string {
  const attrs = [...document.body.querySelectorAll('[aria-label], [title]')].flatMap((el) => [el.getAttribute('aria-label') ?? '', el.getAttribute('title') ?? '']);
  return [document.body.textContent ?? '', ...attrs].join('\n');
}

/** Words that state a verdict, whatever the scenario. */
const VERDICT_WORDS = ['✓ Held', '✗ Violated', 'Held', 'Violated', 'no violation', 'violations ▸', 'invariant held', 'invariants broken', 'DUPLICATE', 'redundant', 'no invariant', 'not a violation', 'breaks —', 'holds: no invariant broken', 'cited by a violation'];
/** Words that state what happens in a lesson's own setup texts (which must only set the scene). */
const OUTCOME_WORDS = /\b(no invariant|breaks?|broken|twice|overlap\w*|duplicates?|harmless|redundant|overs[eo]l\w*|for ever|forever|leaks?|stale)\b/i;

describe('a lesson before its reveal states no outcome', () => {
  for (const def of LESSON_PATH) {
    it(`${def.id} (${def.presetId})`, async () => {
      const s = createLockscopeStore();
      openLesson(s, def.id);
      renderIn(s, <LessonView />);
      await waitFor(() => expect(screen.getAllByRole('checkbox', { name: /^[A-C]\./ }).length).toBeGreaterThan(0), { timeout: 30_000 });
      const preset = findPreset(def.presetId)!;
      const run = deriveRun(s.getState().composed);
      const q = await drawQuestion(preset.withoutFix, def.kinds, def.maxFaults, s.getState().lesson!.q, findInThread);
      const spoilers = [
        preset.situation, preset.title, preset.expected.withoutFix, preset.expected.withFix, preset.fix,
        ...run.verdict.violations.map((f) => f.message), ...run.verdict.notes.map((f) => f.message),
        ...q.options.flatMap((o) => (o.broke ? [o.broke] : [])),
        ...VERDICT_WORDS,
      ];
      const check = (stage: string) => {
        const words = pageWords();
        for (const w of spoilers) expect(words.includes(w), `${stage}: the page says “${w}”`).toBe(false);
      };
      check('before the prediction');
      // One question on the page, and it is the one the ticked schedules answer.
      const asked = lessonQuestion(def, askFor(preset.withoutFix));
      expect(screen.getByTestId('lesson-question').textContent).toBe(`Question. ${asked}`);
      expect(screen.getByRole('group', { name: asked })).toBeInTheDocument();
      const main = document.querySelector('main')!.cloneNode(true) as HTMLElement;
      main.querySelector('[data-testid="lesson-options"]')?.remove();
      expect((main.textContent ?? '').split('?').length - 1, 'question marks on the page').toBe(1);
      // Stepping through the run (the timeline, the cursor's narration) shows events, never the verdict.
      act(() => s.getState().end());
      check('at the last event');
      // The lesson's own words only set the scene.
      for (const t of [def.title, def.setup, def.scene]) expect(t).not.toMatch(OUTCOME_WORDS);
      // After the prediction is checked and the reveal asked for, the outcome and the catalogue's account show.
      fireEvent.click(screen.getByTestId('lesson-check'));
      fireEvent.click(screen.getByTestId('lesson-reveal'));
      expect(screen.getByTestId('lesson-catalogue')).toHaveTextContent(preset.situation);
    }, 60_000);
  }

  it('the path names each lesson by its own title, not the catalogue\'s', () => {
    const s = createLockscopeStore();
    renderIn(s, <LessonPath />);
    const words = pageWords();
    for (const def of LESSON_PATH) {
      expect(words).toContain(def.title);
      expect(words.includes(findPreset(def.presetId)!.situation)).toBe(false);
    }
    // "Session advisory lock leaks through the pool", "Overselling the last item": titles that tell the outcome.
    expect(words).not.toMatch(OUTCOME_WORDS);
  });
});

describe('Help opened inside a lesson', () => {
  it('describes the lesson (predict, reveal, exercise), not the interview', () => {
    const s = createLockscopeStore();
    openLesson(s, 'invariant');
    renderIn(s, <HelpButton />);
    fireEvent.click(screen.getByRole('button', { name: 'Help' }));
    const topic = screen.getByTestId('help-topic');
    expect(topic).toHaveAttribute('data-topic', 'lesson');
    expect(screen.getByRole('heading', { name: 'Using a guided lesson', hidden: true })).toBeInTheDocument();
    expect(topic).toHaveTextContent('Check my prediction');
    expect(topic).toHaveTextContent('Reveal what happens');
    expect(document.body.textContent).not.toContain('Choose a mechanism on the left');
  });
});
