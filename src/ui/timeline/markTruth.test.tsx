// @vitest-environment jsdom
/**
 * A mark's colour comes from the verdict's findings, over every preset × variant: nothing on the
 * timeline or in the event log is drawn as a violation when the verdict holds, and every element in
 * a violation red belongs to an item that cites events a violation cites (`data-cites`). An error
 * the scenario expects and handles (serializable-retry's 40001, retried) is an error reply.
 */
import { cleanup, render, screen } from '@testing-library/react';
import { PRESETS, findPreset, type Scenario } from '../../sim';
import { createLockscopeStore, deriveRun, LockscopeProvider } from '../store';
import { Timeline } from './Timeline';
import { EventLog } from '../log/EventLog';
import { citationsOf, VIOLATION_REDS } from '../verdict/citations';

globalThis.ResizeObserver ??= class { observe() {} unobserve() {} disconnect() {} } as unknown as typeof ResizeObserver;
afterEach(cleanup);

const REDS = new Set(VIOLATION_REDS.map((c) => c.toLowerCase()));
/** The colours an element paints with: fill and stroke attributes and inline style, patterns by id. */
function paints(el: Element): string[] {
  const style = (el as SVGElement).style;
  return [el.getAttribute('fill'), el.getAttribute('stroke'), style?.fill, style?.stroke].filter((x): x is string => !!x).map((x) => x.toLowerCase());
}
const isRed = (el: Element) => paints(el).some((c) => REDS.has(c) || /^url\(#.*-dup\)$/.test(c));

function drawn(s: Scenario) {
  const run = deriveRun(s);
  const store = createLockscopeStore();
  const r = render(
    <LockscopeProvider store={store}>
      <Timeline run={run} label="T" cursorMs={0} onCursorMs={() => {}} faults={s.faults} selectedFault={null} />
      <EventLog run={run} index={run.events.length - 1} onSelect={() => {}} />
    </LockscopeProvider>,
  );
  return { run, container: r.container };
}

describe('marks take their colour from the verdict', () => {
  for (const p of PRESETS) {
    for (const [variant, s] of [['without the fix', p.withoutFix], ['with the fix', p.withFix]] as const) {
      it(`${p.id} ${variant}`, () => {
        const { run, container } = drawn(s);
        const { violation } = citationsOf(run);
        const svg = container.querySelector('svg.timeline-svg') ?? container.querySelector('svg')!;
        // The patterns' own swatches (<defs>) are not drawn marks; an item that fills with the duplicate pattern is.
        const red = [...svg.querySelectorAll('*')].filter((el) => !el.closest('defs') && isRed(el));
        if (run.verdict.status !== 'violated') expect(red.map((el) => el.closest('g')?.getAttribute('aria-label') ?? el.tagName)).toEqual([]);
        for (const el of red) {
          const cites = el.closest('[data-cites]')?.getAttribute('data-cites')?.split(' ') ?? [];
          expect(cites.length, `a red ${el.tagName} in ${el.closest('g[aria-label]')?.getAttribute('aria-label') ?? '?'} cites no violation`).toBeGreaterThan(0);
          for (const id of cites) expect(violation.has(id), `${id} is not cited by a violation`).toBe(true);
        }
        // The marks row's label: "violations" only when there is one.
        expect(container.querySelector('.marks-note')).toHaveTextContent(run.verdict.status === 'violated' ? 'violations ▸' : /^(no violation|notes, no violation ▸)$/);
        // The event log: ⚠ (the violation's mark) only on the events a violation cites.
        const warned = [...container.querySelectorAll('.cited-mark')].map((m) => m.closest('[data-event-id]')?.getAttribute('data-event-id'));
        if (run.verdict.status !== 'violated') expect(warned).toEqual([]);
        for (const id of warned) expect(violation.has(id ?? '')).toBe(true);
        // An error reply in the log is styled as one, never as the violation.
        for (const reply of container.querySelectorAll('.log-reply')) {
          if (/^(ERROR|FATAL)/.test(reply.textContent ?? '')) expect(reply).toHaveClass('error-reply');
        }
      });
    }
  }

  it('serializable-retry with the fix: the retried 40001 is an error reply under a held verdict, not a violation', () => {
    const { run, container } = drawn(findPreset('serializable-retry')!.withFix);
    expect(run.verdict.status).toBe('held');
    const db = container.querySelector('g.lane[data-lane="database"]')!;
    const marks = [...db.querySelectorAll('[aria-label^="Error"]')];
    expect(marks.map((m) => m.getAttribute('aria-label'))).toEqual([expect.stringMatching(/^Error reply at [\d.]+ m?s \(not a violation\): B: ERROR 40001/)]);
    expect([...db.querySelectorAll('*')].some(isRed)).toBe(false);
    expect(screen.queryAllByLabelText('cited by a violation')).toEqual([]);
  });

  it('a note (a harmless duplicate) is marked as a note in the log, not with the violation ⚠', () => {
    const { run, container } = drawn(findPreset('thumbnail')!.withoutFix);
    expect(run.verdict.status).toBe('held');
    expect(run.verdict.notes.length).toBeGreaterThan(0);
    expect(container.querySelectorAll('.cited-mark')).toHaveLength(0);
    expect(container.querySelectorAll('.note-mark').length).toBeGreaterThan(0);
  });
});
