// @vitest-environment jsdom
/**
 * The top navigation's current-view indicator follows the view on screen, for every view: the lit
 * tab is the one with `aria-current="page"` (the stylesheet lights nothing else), it is the tab of
 * the view shown, and a view without a tab (the lessons, a lesson, the presenter's workshop) lights
 * none. A newcomer found "Catalogue" lit inside a guided lesson.
 */
import { readFileSync } from 'node:fs';
import { act } from 'react';
import { render, cleanup, fireEvent, screen } from '@testing-library/react';
import { App } from './App';
import { createLockscopeStore, LockscopeProvider, type LockscopeStore } from './store';
import type { View } from './store/types';
import { LESSON_PATH } from './lessons/lessons';

globalThis.ResizeObserver ??= class { observe() {} unobserve() {} disconnect() {} } as unknown as typeof ResizeObserver;

/** Every view, with the label of the tab that must be lit (null: none). A `Record`, so a new view fails to compile here until it is listed. */
const EXPECTED: Record<View, string | null> = { catalogue: 'Catalogue', simulate: 'Simulate', compare: 'Compare', edit: 'Edit', lessons: null, lesson: null, workshop: null };

/** The app with `view` on screen (set after the first render: the empty address opens the catalogue). */
async function open(view: View, interview = false): Promise<LockscopeStore> {
  const store = createLockscopeStore();
  render(<LockscopeProvider store={store}><App /></LockscopeProvider>);
  await settle();
  act(() => {
    const s = store.getState();
    s.loadPreset(LESSON_PATH[0]!.presetId, 'without');
    if (view === 'lesson') s.setLesson({ id: LESSON_PATH[0]!.id, q: 0, st: 0 });
    if (view === 'workshop') s.setWorkshop({ role: 'presenter', ch: 'navtestch1' });
    if (interview) s.setInterview({ role: 'candidate', kinds: [], maxFaults: 1, notes: null });
    s.setView(view);
  });
  await settle();
  expect(store.getState().view).toBe(view);
  return store;
}

/** The labels of the lit tabs: those announced as the current page, and (checked) no other marking. */
function litTabs(): string[] {
  const tabs = [...screen.getByRole('navigation', { name: 'Views' }).querySelectorAll('button')];
  for (const t of tabs) expect(t.className, `"${t.textContent}" carries a class of its own for being current`).toBe('tab');
  return tabs.filter((t) => t.getAttribute('aria-current') === 'page').map((t) => t.textContent ?? '');
}

async function settle(): Promise<void> {
  await act(async () => { await new Promise((r) => setTimeout(r, 30)); });
}

describe('the current-view indicator of the top navigation', () => {
  afterEach(() => { cleanup(); window.location.hash = ''; localStorage.clear(); });

  it.each(Object.keys(EXPECTED) as View[])('%s: lights exactly its own tab, or none', async (view) => {
    await open(view);
    const want = EXPECTED[view];
    expect(litTabs()).toEqual(want === null ? [] : [want]);
  });

  it('inside a guided lesson, "Catalogue" is not lit (found by a newcomer)', async () => {
    await open('lesson');
    expect(screen.getByRole('button', { name: 'Catalogue' })).not.toHaveAttribute('aria-current');
    expect(litTabs()).toEqual([]);
  });

  it.each(Object.keys(EXPECTED) as View[])('%s asked for in interview mode: the tab of the view shown instead (the simulator, or the editor)', async (view) => {
    await open(view, true);
    expect(litTabs()).toEqual([view === 'edit' ? 'Edit' : 'Simulate']);
  });

  it('follows each click on a tab', async () => {
    const store = await open('catalogue');
    for (const label of ['Simulate', 'Compare', 'Edit', 'Catalogue']) {
      fireEvent.click(screen.getByRole('button', { name: label }));
      await settle();
      expect(litTabs()).toEqual([label]);
    }
    act(() => { store.getState().setView('lessons'); });
    await settle();
    expect(litTabs()).toEqual([]);
  });

  it('the stylesheet lights a tab by its aria-current alone', () => {
    const css = readFileSync('src/ui/styles.css', 'utf8');
    expect(css).toContain('.tab[aria-current="page"]');
    expect(css).not.toMatch(/\.tab\.active/);
  });
});
