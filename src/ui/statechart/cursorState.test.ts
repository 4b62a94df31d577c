import { createActor } from 'xstate';
import { findPreset, PRESETS, type WorkerStateName } from '../../sim';
import { workerMachine } from '../../sim/workers/workerMachine';
import { deriveRun } from '../store/derive';
import { STATE_TEXT } from '../timeline/lanes/worker';
import { machineGraph, selfAndAncestors } from './machineGraph';
import { nextSentence, nodeIdOf, stateAt, transitionPath, workerAtCursor, type PathStep } from './cursorState';

/** The panel's words for a state (as `StatechartPanel`'s `stateWords`, without loading elkjs). */
const words = (key: string) => (Object.hasOwn(STATE_TEXT, key) ? STATE_TEXT[key as WorkerStateName] : key);
const graph = machineGraph(workerMachine.root, words);
const BELIEFS_ONLY = /beliefs change|not its state/;

/** The flat state the real machine is in after sending `path`'s events one by one from `from` (RESUME: where H sends it, checked to be inside active). */
function replay(from: WorkerStateName, path: readonly PathStep[]): string[] {
  const value = (s: string) => (s.startsWith('active.') ? { active: s.slice('active.'.length) } : s);
  const flat = (v: unknown) => (typeof v === 'string' ? v : `active.${(v as { active: string }).active}`);
  let at: string = nodeIdOf(from);
  const landed: string[] = [];
  for (const step of path) {
    const actor = createActor(workerMachine, { snapshot: workerMachine.resolveState({ value: value(at), context: workerMachine.config.context as never }) }).start();
    actor.send({ type: step.edge.event } as never);
    const after = flat(actor.getSnapshot().value);
    actor.stop();
    // A resolved `paused` has no history: RESUME goes back into active; which state of it is the history's.
    at = step.edge.event === 'RESUME' && after.startsWith('active.') ? step.lands : after;
    landed.push(at);
  }
  return landed;
}

describe('the next event\'s transitions are the ones that take the worker from its state before to its state after (issue 13)', () => {
  it('export-lease-expiry: A\'s first event (SET NX → OK) takes REQUEST then GRANTED, idle → requesting → holding the lock', () => {
    const r = deriveRun(findPreset('export-lease-expiry')!.withoutFix);
    const at = workerAtCursor(r, -1, 'A');
    expect([at.state, at.next?.to]).toEqual(['idle', 'holding']);
    expect(transitionPath(graph, 'idle', 'holding')!.map((s) => `${s.edge.event}>${s.lands}`)).toEqual(['REQUEST>active.requesting', 'GRANTED>active.holding']);
    const said = nextSentence(graph, at, words);
    expect(said).toBe(`Next: ${at.next!.eventId} at 0 ms takes REQUEST → requesting, then GRANTED → ${STATE_TEXT.holding} (2 transitions in one event).`);
  });

  it('a paused worker\'s RESUME is told as a return through H to the state it lands in', () => {
    const path = transitionPath(graph, 'paused', 'holding')!;
    expect(path.map((s) => [s.edge.target, s.lands])).toEqual([['active.hist', 'active.holding']]);
    expect(transitionPath(graph, 'crashed', 'requesting')!.map((s) => s.edge.event)).toEqual(['RESTART', 'REQUEST']);
    expect(transitionPath(graph, 'done', 'idle')).toBeNull();
    expect(transitionPath(graph, 'waiting', 'waiting')).toEqual([]);
  });

  for (const p of PRESETS) {
    for (const v of ['withoutFix', 'withFix'] as const) {
      it(`${p.id} ${v}: at every event and for every worker, a change of state is told as a path of the machine from the state before to the state after`, () => {
        const r = deriveRun(p[v]);
        const ids = p[v].workers.map((w) => w.id);
        let changes = 0;
        for (let i = 0; i < r.events.length; i++) {
          for (const w of ids) {
            const before = stateAt(r, i - 1, w);
            const after = stateAt(r, i, w);
            const at = workerAtCursor(r, i - 1, w);
            const said = nextSentence(graph, at, words);
            const where = `${r.events[i]!.id} ${w} ${before}→${after}: ${said}`;
            expect(at.state, where).toBe(before);
            if (before === after) continue;
            changes += 1;
            // The panel's next event is this one, and it names the state after.
            expect(at.next?.index, where).toBe(i);
            expect(at.next?.to, where).toBe(after);
            const path = transitionPath(graph, before, after);
            expect(path, where).not.toBeNull();
            expect(path!.length, where).toBeGreaterThan(0);
            // Each arrow is one of the chart's, leaves the state the one before landed in (or a state around it), and the last lands in the state after.
            let from = nodeIdOf(before);
            for (const step of path!) {
              expect(graph.edges, where).toContainEqual(step.edge);
              expect(selfAndAncestors(graph, from), where).toContain(step.edge.source);
              from = step.lands;
            }
            expect(from, where).toBe(nodeIdOf(after));
            // The machine the engine runs agrees: sending those events lands where the path says.
            expect(replay(before, path!), where).toEqual(path!.map((s) => s.lands));
            // The sentence names every transition and the state after, and never calls it a belief update.
            expect(said, where).not.toMatch(BELIEFS_ONLY);
            for (const step of path!) expect(said, where).toContain(`${step.edge.event} → `);
            expect(said, where).toContain(words(after));
          }
        }
        expect(changes).toBeGreaterThan(0);
      });
    }
  }
});
