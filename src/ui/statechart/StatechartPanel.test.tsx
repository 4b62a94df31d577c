// @vitest-environment jsdom
import ELK from 'elkjs/lib/elk.bundled.js';
import { fireEvent, render, screen } from '@testing-library/react';
import { findPreset } from '../../sim';
import { deriveRun } from '../store/derive';
import StatechartPanel, { WORKER_CHART } from './StatechartPanel';
import { layoutChart, type ChartLayout } from './layout';
import { transitionFor, workerAtCursor } from './cursorState';

let layout: ChartLayout;
beforeAll(async () => { layout = await layoutChart(WORKER_CHART, new ELK()); });

const run = deriveRun(findPreset('export-lease-expiry')!.withoutFix);
const workers = ['A', 'B'];
/** Index of the first event where `worker`'s recorded state (the trace's own field) is `state`. */
const firstIn = (worker: string, state: string) => run.events.findIndex((e) => e.actor === worker && e.state === state);

describe('the statechart panel highlights the state at the cursor and the next transition', () => {
  it('B waiting for the lease: waiting (inside active) is current, and the arrow GRANTED → holding is the next one when B is next granted', () => {
    const i = firstIn('B', 'waiting');
    expect(i).toBeGreaterThan(0);
    // The trace's own next state for B after i.
    const nextB = run.events.slice(i + 1).find((e) => e.actor === 'B')!;
    const { container } = render(<StatechartPanel run={run} index={i} workers={workers} layout={layout} />);
    const current = container.querySelectorAll('.sc-state.current');
    expect([...current].map((n) => n.getAttribute('data-state'))).toEqual(['active.waiting']);
    expect(container.querySelector('[data-state="active"]')!.classList.contains('active')).toBe(true);
    expect(container.querySelector('[data-state="paused"]')!.classList.contains('active')).toBe(false);
    const next = [...container.querySelectorAll('.sc-edge.next')].map((n) => n.getAttribute('data-edge'));
    expect(next).toHaveLength(1);
    expect(next[0]).toBe(`active.waiting|${nextB.state === 'holding' ? 'GRANTED' : 'WAIT'}|active.${nextB.state}`);
    expect(screen.getByTestId('statechart-now').textContent).toContain('B is in waiting');
  });

  it('A paused: paused is current (active is not), and RESUME → the history state is the next arrow', () => {
    const i = run.snapshots.findIndex((s) => s.workers.find((w) => w.id === 'A')?.state === 'paused');
    expect(i).toBeGreaterThan(0);
    const { container } = render(<StatechartPanel run={run} index={i} workers={workers} layout={layout} />);
    // The event at i may be B's: the panel follows the actor at the cursor, so pick A.
    fireEvent.change(container.querySelector('select')!, { target: { value: 'A' } });
    expect(container.querySelector('select')!.value).toBe('A');
    expect(container.querySelector('.sc-state.current')!.getAttribute('data-state')).toBe('paused');
    expect(container.querySelector('[data-state="active"]')!.classList.contains('active')).toBe(false);
    const at = workerAtCursor(run, i, 'A');
    expect(at.next).not.toBeNull();
    const edge = transitionFor(WORKER_CHART, 'paused', at.next!.to);
    expect(edge?.event).toBe(at.next!.to === 'crashed' ? 'CRASH' : 'RESUME');
    expect(container.querySelector('.sc-edge.next')!.getAttribute('data-edge')).toBe(edge!.id);
  });

  it('moving the cursor moves the highlight (before the first event: idle)', () => {
    const { container, rerender } = render(<StatechartPanel run={run} index={-1} workers={workers} layout={layout} />);
    expect(container.querySelector('.sc-state.current')!.getAttribute('data-state')).toBe('active.idle');
    const end = run.events.length - 1;
    rerender(<StatechartPanel run={run} index={end} workers={workers} layout={layout} />);
    const finalState = run.snapshots[end]!.workers.find((w) => w.id === (run.events[end]!.actor === 'B' ? 'B' : 'A'))!.state;
    expect(container.querySelector('.sc-state.current')!.getAttribute('data-state')).toBe(finalState === 'done' || finalState === 'paused' || finalState === 'crashed' ? finalState : `active.${finalState}`);
    expect(container.querySelectorAll('.sc-edge.next')).toHaveLength(0);
    expect(screen.getByTestId('statechart-now').textContent).toContain('No later event concerns it');
  });
});
