// @vitest-environment jsdom
/**
 * Issue 9 ("one vocabulary everywhere"): what the editor, the fault menu and Help show a person
 * speaks the user's words, never the scenario file's internal identifiers. Every option, label,
 * hint, legend and heading is walked; a camelCase identifier (`renewalStall`, `fenceSource`) or a
 * dotted field path (`lease.ttlMs`, `workers[0].id`) is refused, except inside <code>, where a
 * literal command (`SET NX PX`) belongs.
 */
import { cleanup, fireEvent, screen } from '@testing-library/react';
import { act } from 'react';
import { PRESETS } from '../sim';
import { EditorView } from './editor/EditorView';
import { HelpContent } from './help/HelpContent';
import type { HelpTopic } from './help/topic';
import { createLockscopeStore } from './store';
import { renderIn } from './store/testing';
import { faultMenuOptions } from './faults/faultCatalog';
import { lanesOf } from './timeline/lanes';
import { deriveRun } from './store/derive';
import { internalNames } from './fields/internalNames';

afterEach(cleanup);

/** Elements whose text is not words shown to read: code (a literal command), the JSON text itself. */
const NOT_WORDS = 'code, pre, textarea, script, style, .json-view';

/** Every text node of `root` (outside <code> and the JSON text), and every title, aria-label and placeholder, each with where it is. */
function shownTexts(root: Element): { where: string; text: string }[] {
  const out: { where: string; text: string }[] = [];
  const walker = root.ownerDocument.createTreeWalker(root, 4 /* NodeFilter.SHOW_TEXT */);
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    const parent = n.parentElement;
    if (!parent || parent.closest(NOT_WORDS) || !(n.textContent ?? '').trim()) continue;
    out.push({ where: parent.tagName.toLowerCase(), text: n.textContent ?? '' });
  }
  for (const el of [root, ...root.querySelectorAll('[title], [aria-label], [placeholder]')]) {
    if (el.closest(NOT_WORDS)) continue;
    for (const a of ['title', 'aria-label', 'placeholder']) {
      const v = el.getAttribute(a);
      if (v) out.push({ where: `${el.tagName.toLowerCase()}[${a}]`, text: v });
    }
  }
  return out;
}

function refusals(texts: readonly { where: string; text: string }[]): string[] {
  return texts.flatMap((t) => internalNames(t.text).map((n) => `${n} in ${t.where}: "${t.text.slice(0, 120)}"`));
}

describe('the words refused', () => {
  it('finds camelCase identifiers and field paths, and lets words, commands and file names be', () => {
    expect(internalNames('renewalStall')).toEqual(['renewalStall']);
    expect(internalNames('lease.ttlMs: must be ≥ 1')).toEqual(['ttlMs', 'lease.ttlMs']);
    expect(internalNames('workers[0].id is reserved')).toEqual(['workers[0].id']);
    expect(internalNames("stall a worker's renewal timer (e.g. a starved watchdog), SET NX PX, pg_advisory_lock, 1.5 s, invoice-race-c1.sql")).toEqual([]);
    expect(internalNames('Lease TTL: must be more than 0 ms')).toEqual([]);
  });
});

describe('the editor speaks the user\'s words (every preset)', () => {
  for (const p of PRESETS) {
    for (const variant of ['without'] as const) {
      it(`${p.id}, ${variant} the fix`, () => {
        const store = createLockscopeStore();
        act(() => {
          store.getState().setView('edit');
          store.getState().loadPreset(p.id, variant);
        });
        const { container } = renderIn(store, <EditorView />);
        // Every fault kind in each fault's select: add one fault if the preset has none.
        if (store.getState().faults.length === 0) fireEvent.click(screen.getByRole('button', { name: 'Add fault' }));
        expect(refusals(shownTexts(container))).toEqual([]);
      });
    }
  }
});

describe('the fault menu speaks the user\'s words (every preset, every lane)', () => {
  for (const p of PRESETS) {
    it(p.id, () => {
      const run = deriveRun(p.withoutFix);
      const texts = lanesOf(run).lanes.flatMap((lane) => faultMenuOptions(lane.ref, p.withoutFix, 1_000)
        .flatMap((o) => [{ where: `menu ${o.id}`, text: o.label }, { where: `menu ${o.id} hint`, text: o.hint }, ...(o.disabledReason ? [{ where: `menu ${o.id} reason`, text: o.disabledReason }] : [])]));
      expect(texts.length).toBeGreaterThan(0);
      expect(refusals(texts)).toEqual([]);
    });
  }
});

describe('Help speaks the user\'s words (every topic)', () => {
  const topics: readonly HelpTopic[] = ['interview', 'lesson', 'lessons', 'catalogue', 'simulate', 'compare', 'edit', 'workshop'];
  for (const topic of topics) {
    it(topic, () => {
      const store = createLockscopeStore();
      const { container } = renderIn(store, <HelpContent topic={topic} />);
      expect(container.textContent!.length).toBeGreaterThan(200);
      expect(refusals(shownTexts(container))).toEqual([]);
    });
  }
});
