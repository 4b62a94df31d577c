// @vitest-environment jsdom
import ELK from 'elkjs/lib/elk.bundled.js';
import { fireEvent, render, screen } from '@testing-library/react';
import { findPreset, PRESETS } from '../../sim';
import { deriveRun } from '../store/derive';
import StatechartPanel, { stateWords, WORKER_CHART } from './StatechartPanel';
import { STATE_TEXT } from '../timeline/lanes/worker';
import { layoutChart, type ChartLayout } from './layout';
import { nodeIdOf, transitionFor, transitionPath, workerAtCursor } from './cursorState';

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
    expect(screen.getByTestId('statechart-now').textContent).toContain('B is waiting');
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

  it('before A\'s first event (SET NX → OK and the machine holding at once): the two arrows REQUEST and GRANTED are drawn, and the sentence says so', () => {
    const { container } = render(<StatechartPanel run={run} index={-1} workers={workers} layout={layout} />);
    const drawn = [...container.querySelectorAll('.sc-edge.next')].map((g) => [g.getAttribute('data-step'), g.getAttribute('data-edge')]).sort();
    expect(drawn).toEqual([['1', 'active|REQUEST|active.requesting'], ['2', 'active.requesting|GRANTED|active.holding']]);
    expect(screen.getByTestId('statechart-now').textContent).toContain(`takes REQUEST → requesting, then GRANTED → ${STATE_TEXT.holding}`);
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

describe('the statechart at the cursor is the trace at the cursor (issue 13)', () => {
  it('failover-fence: at SET NX → OK the log says A takes the lease and the trace says requesting; the panel shows requesting, says why, and the next arrow is INCR\'s, GRANTED → holding', () => {
    const r = deriveRun(findPreset('failover-fence')!.withoutFix);
    const i = r.events.findIndex((e) => e.actor === 'A' && e.data?.t === 'lease' && e.data.op === 'acquired');
    expect(r.events[i]!.state).toBe('requesting');
    const next = r.events[i + 1]!;
    expect([next.actor, next.state, next.data?.t === 'lease' && next.data.op]).toEqual(['A', 'holding', 'fenced']);
    const { container } = render(<StatechartPanel run={r} index={i} workers={['A', 'B']} layout={layout} />);
    expect(container.querySelector('.sc-state.current')!.getAttribute('data-state')).toBe('active.requesting');
    expect(container.querySelector('.sc-edge.next')!.getAttribute('data-edge')).toBe(transitionFor(WORKER_CHART, 'requesting', 'holding')!.id);
    expect(screen.getByTestId('statechart-now').textContent).toContain(`The server granted it lease:export at ${r.events[i]!.id}, but its acquire goes on (for its fencing token) until ${next.id}: the machine is holding the lock only from there.`);
  });

  for (const p of PRESETS) {
    for (const v of ['withoutFix', 'withFix'] as const) {
      it(`${p.id} ${v}: at every event, the highlighted state is the trace's state of the worker at the cursor, and the next arrow ends in the state of its next event`, () => {
        const r = deriveRun(p[v]);
        const ids = p[v].workers.map((w) => w.id);
        const { container, rerender } = render(<StatechartPanel run={r} index={-1} workers={ids} layout={layout} />);
        const last = new Map<string, string>();
        r.events.forEach((e, i) => {
          if (e.state !== undefined && ids.includes(e.actor)) last.set(e.actor, e.state);
          // Every worker: the panel's state is the trace's (and the engine's snapshot agrees).
          for (const w of ids) {
            const at = workerAtCursor(r, i, w);
            expect(at.state, `${e.id} ${w}`).toBe(last.get(w) ?? 'idle');
            expect(at.state, `${e.id} ${w} (snapshot)`).toBe(r.snapshots[i]!.workers.find((x) => x.id === w)!.state);
            const nextOwn = r.events.slice(i + 1).find((x) => x.actor === w && x.state !== undefined);
            expect(at.next?.eventId ?? null).toBe(nextOwn?.id ?? null);
            expect(at.next?.to ?? null).toBe(nextOwn?.state ?? null);
          }
          // The worker the panel follows at the cursor (its actor): what is drawn.
          if (!ids.includes(e.actor)) return;
          rerender(<StatechartPanel run={r} index={i} workers={ids} layout={layout} />);
          expect(container.querySelector('.sc-state.current')!.getAttribute('data-state'), e.id).toBe(nodeIdOf(e.state!));
          const nextOwn = r.events.slice(i + 1).find((x) => x.actor === e.actor && x.state !== undefined);
          // A change of state: the path of transitions it takes, in order; the same state: its self-loop, if any.
          const drawn = nextOwn === undefined ? [] : nextOwn.state === e.state
            ? [transitionFor(WORKER_CHART, e.state!, nextOwn.state!)?.id].filter((id) => id !== undefined)
            : transitionPath(WORKER_CHART, e.state!, nextOwn.state!)!.map((s) => s.edge.id);
          const shown = [...container.querySelectorAll('.sc-edge.next')].sort((a, b) => Number(a.getAttribute('data-step')) - Number(b.getAttribute('data-step')));
          expect(shown.map((g) => g.getAttribute('data-edge')), e.id).toEqual(drawn);
          if (nextOwn !== undefined && nextOwn.state !== e.state) expect(screen.getByTestId('statechart-now').textContent, e.id).not.toMatch(/beliefs change|not its state/);
        });
      });
    }
  }
});

describe('the statechart speaks the timeline\'s words for states, not the machine\'s identifiers (issue 13)', () => {
  /** A camelCase identifier (`performingEffect`, `recordingCompletion`): what a label must never be. */
  const CAMEL = /\b[a-z]+[A-Z][A-Za-z]*\b/;

  it('every state box is labelled as the lanes and the inspector name the state; the machine name is its tooltip', () => {
    const { container } = render(<StatechartPanel run={run} index={-1} workers={workers} layout={layout} />);
    const boxes = [...container.querySelectorAll('[data-state]')].filter((g) => g.tagName === 'g');
    expect(boxes.length).toBeGreaterThan(10);
    for (const g of boxes) {
      const node = WORKER_CHART.nodes.find((n) => n.id === g.getAttribute('data-state'))!;
      const shown = [...g.querySelectorAll('text')].map((t) => t.textContent ?? '');
      if (node.kind === 'history') expect(shown).toEqual(['H']);
      else expect(shown[0]!.startsWith(node.machineName in STATE_TEXT ? STATE_TEXT[node.machineName as keyof typeof STATE_TEXT] : node.machineName), node.id).toBe(true);
      expect(g.querySelector('title')!.textContent, node.id).toContain(`machine state ${node.machineName}`);
    }
    const effect = container.querySelector('[data-state="active.performingEffect"]')!;
    expect(effect.querySelector('text')!.textContent).toBe('performing the effect');
    expect(effect.querySelector('title')!.textContent).toBe('performing the effect (machine state performingEffect)');
  });

  for (const p of PRESETS) {
    it(`${p.id}: at every event of both variants, no text shown (labels, the sentence, the diagram's description) has a camelCase state name`, () => {
      for (const v of ['withoutFix', 'withFix'] as const) {
        const r = deriveRun(p[v]);
        const ids = p[v].workers.map((w) => w.id);
        const { container, rerender, unmount } = render(<StatechartPanel run={r} index={-1} workers={ids} layout={layout} />);
        for (let i = -1; i < r.events.length; i++) {
          rerender(<StatechartPanel run={r} index={i} workers={ids} layout={layout} />);
          // What is shown: the SVG's text (not its tooltips), the sentence, the diagram's accessible name.
          const svgText = [...container.querySelectorAll('svg text')].map((t) => t.textContent ?? '');
          const now = screen.getByTestId('statechart-now').textContent ?? '';
          const described = screen.getByTestId('statechart-svg').getAttribute('aria-label') ?? '';
          for (const text of [...svgText, now, described]) expect(CAMEL.exec(text)?.[0], `${v} at ${i}: ${text}`).toBeUndefined();
          // The sentence names the state as the lanes do.
          const at = workerAtCursor(r, i, i >= 0 && ids.includes(r.events[i]!.actor) ? r.events[i]!.actor : ids[0]!);
          expect(now, `${v} at ${i}`).toContain(`is ${stateWords(at.state)}`);
        }
        unmount();
      }
    });
  }
});
