// @vitest-environment jsdom
/**
 * Where the view hides the future (predict-then-reveal, a lesson before its reveal, the workshop's
 * audience) the timeline draws the run only up to the cursor (`runUpTo`): nothing after it is in
 * the page — not a lane only a later event opens, not a later state, write or reply, not a time
 * after the cursor in any word, title or accessible name — for every preset. Once the future shows,
 * it is all there again.
 */
import { act } from 'react';
import { cleanup } from '@testing-library/react';
import { PRESETS } from '../../sim';
import { createLockscopeStore, deriveRun } from '../store';
import { renderIn } from '../store/testing';
import { runUpTo } from '../store/derive';
import { Timeline } from './Timeline';

globalThis.ResizeObserver ??= class { observe() {} unobserve() {} disconnect() {} } as unknown as typeof ResizeObserver;
afterEach(() => cleanup());

/** Every word the timeline shows or names, the time axis's ticks and the cursor's own notes aside. */
function timelineWords(root: HTMLElement): string {
  const copy = root.cloneNode(true) as HTMLElement;
  copy.querySelectorAll('g.axis, .cursor-overlay').forEach((n) => n.remove());
  const attrs = [...copy.querySelectorAll('[aria-label], [title]')].flatMap((el) => [el.getAttribute('aria-label') ?? '', el.getAttribute('title') ?? '']);
  return [copy.textContent ?? '', ...attrs].join('\n');
}

/** The virtual times (ms) the words name ("12.5 s", "40 ms"). */
function timesIn(words: string): number[] {
  return [...words.matchAll(/(\d+(?:\.\d+)?) (ms|s)\b/g)].map((m) => Number(m[1]) * (m[2] === 's' ? 1000 : 1));
}

describe('the timeline draws nothing after the cursor while the future is hidden', () => {
  for (const p of PRESETS) {
    it(p.id, () => {
      const store = createLockscopeStore();
      store.getState().loadPreset(p.id, 'without');
      store.getState().setMode('predict');
      const run = deriveRun(store.getState().composed);
      const i = Math.floor(run.events.length / 3);
      act(() => store.getState().setCursorIndex(i));
      const cutMs = run.events[i]!.atMs;
      const el = (idx: number) => <Timeline run={run} label="T" cursorMs={run.events[Math.max(0, idx)]!.atMs} cursorIndex={idx} onCursorMs={() => {}} />;
      const r = renderIn(store, el(i));
      const words = timelineWords(r.container);
      // No time after the cursor is named (a state's end, a write's reply, a later segment).
      // (A deadline the store set before the cursor — "invisible until 30 s", a TTL — is known there: not a later event.)
      const later = timesIn(words.replace(/invisible until [^;]*;/g, '')).filter((t) => t > Math.max(1, cutMs));
      expect(later, `${p.id} at ${cutMs} ms names later times`).toEqual([]);
      // A lane only a later event opens (an operator's script) is not drawn.
      const shownLanes = [...r.container.querySelectorAll('.lane-label')].map((n) => n.textContent);
      const cut = runUpTo(run, i);
      expect(cut.events).toHaveLength(i + 1);
      expect(shownLanes.length).toBeGreaterThan(0);
      // The events after the cursor, by id, nowhere.
      for (const e of run.events.slice(i + 1)) expect(words.includes(`(${e.id} `) || words.includes(` ${e.id})`), e.id).toBe(false);
      // Revealed: the whole run, its later times included.
      act(() => store.getState().reveal());
      const after = timelineWords(r.container);
      if (run.events.at(-1)!.atMs > cutMs + 1000) expect(timesIn(after).some((t) => t > cutMs)).toBe(true);
    });
  }
});
