import ELK from 'elkjs/lib/elk.bundled.js';
import { createActor } from 'xstate';
import { legalEvents, workerMachine, type WorkerStateName } from '../../sim/workers/workerMachine';
import { machineGraph, selfAndAncestors, type StateNodeLike } from './machineGraph';
import { elkGraphOf, layoutChart } from './layout';
import { nodeIdOf } from './cursorState';

const graph = machineGraph(workerMachine.root);
const STATES: WorkerStateName[] = ['idle', 'requesting', 'waiting', 'holding', 'working', 'performingEffect', 'recordingCompletion', 'releasing', 'paused', 'crashed', 'done'];

describe('the statechart is read from the machine the engine runs', () => {
  it('labels a state by the words it is given and keeps its key as its machine name', () => {
    const named = machineGraph(workerMachine.root, (key) => `<${key}>`);
    const effect = named.nodes.find((n) => n.id === 'active.performingEffect')!;
    expect([effect.label, effect.machineName]).toEqual(['<performingEffect>', 'performingEffect']);
    // The history pseudo-state is drawn as H whatever the words; without words, the key is the label.
    expect(named.nodes.find((n) => n.id === 'active.hist')!.label).toBe('H');
    expect(graph.nodes.find((n) => n.id === 'active.performingEffect')!.label).toBe('performingEffect');
  });

  it('has one node per state of the machine, in its hierarchy, and nothing else but initial dots', () => {
    const real = graph.nodes.filter((n) => n.kind !== 'initial');
    expect(real.map((n) => n.id).sort()).toEqual(['active', 'active.hist', ...STATES.map(nodeIdOf)].sort());
    expect(graph.nodes.find((n) => n.id === 'active')!.kind).toBe('compound');
    expect(graph.nodes.find((n) => n.id === 'active.hist')!.kind).toBe('history');
    expect(graph.nodes.find((n) => n.id === 'done')!.kind).toBe('final');
    for (const s of ['idle', 'waiting', 'releasing'] as const) expect(graph.nodes.find((n) => n.id === nodeIdOf(s))!.parent).toBe('active');
    // The initial arrows: into active, and into idle inside it.
    expect(graph.edges.filter((e) => e.event === '').map((e) => e.target)).toEqual(['active', 'active.idle']);
  });

  it('the arrows out of each state (and the states around it) are exactly the events the machine accepts there', () => {
    for (const s of STATES) {
      const sources = selfAndAncestors(graph, nodeIdOf(s));
      const drawn = new Set<string>();
      for (const e of graph.edges) if (e.event && sources.includes(e.source)) drawn.add(e.event);
      for (const id of sources) for (const ev of graph.nodes.find((n) => n.id === id)!.internal) drawn.add(ev);
      expect([...drawn].sort(), s).toEqual(legalEvents(s).sort());
    }
  });

  it('each arrow goes where the machine goes: sending its event from its source lands in its target', () => {
    for (const s of STATES) {
      for (const e of graph.edges) {
        if (!e.event || !selfAndAncestors(graph, nodeIdOf(s)).includes(e.source)) continue;
        // An event a state nearer the current one also declares is taken there (XState picks the innermost).
        const chain = selfAndAncestors(graph, nodeIdOf(s));
        const inner = chain.slice(0, chain.indexOf(e.source));
        if (graph.edges.some((o) => o.event === e.event && inner.includes(o.source))) continue;
        const value = s === 'paused' || s === 'crashed' || s === 'done' ? s : { active: s };
        const actor = createActor(workerMachine, { snapshot: workerMachine.resolveState({ value, context: workerMachine.config.context as never }) }).start();
        actor.send({ type: e.event } as never);
        const after = actor.getSnapshot().value;
        const flat = typeof after === 'string' ? after : `active.${(after as { active: string }).active}`;
        // RESUME goes to the history state: the state the worker was paused in (idle when it was never active here).
        if (e.target === 'active.hist') expect(flat.startsWith('active.'), `${s} ${e.event}`).toBe(true);
        else expect(flat, `${s} ${e.event}`).toBe(e.target);
        actor.stop();
      }
    }
  });

  it('follows the machine: a transition added to a machine appears in its chart', () => {
    const toy = { key: 't', id: 't', type: 'compound', initial: undefined, transitions: new Map(), states: {} } as unknown as StateNodeLike;
    const a = { key: 'a', id: 't.a', type: 'atomic', states: {}, transitions: new Map() } as unknown as StateNodeLike;
    const b = { key: 'b', id: 't.b', type: 'atomic', states: {}, transitions: new Map() } as unknown as StateNodeLike;
    (a.transitions as Map<string, unknown>).set('GO', [{ eventType: 'GO', target: [b] }]);
    (a.transitions as Map<string, unknown>).set('NOTE', [{ eventType: 'NOTE', target: undefined }]);
    Object.assign(toy, { states: { a, b } });
    const g = machineGraph(toy);
    expect(g.edges).toEqual([{ id: 'a|GO|b', source: 'a', target: 'b', event: 'GO' }]);
    expect(g.nodes.find((n) => n.id === 'a')!.internal).toEqual(['NOTE']);
  });
});

describe('layout (ELK)', () => {
  it('nests the children of active inside it in the ELK graph', () => {
    const elk = elkGraphOf(graph);
    const active = elk.children!.find((c) => c.id === 'active')!;
    expect(active.children!.map((c) => c.id)).toContain('active.waiting');
    expect(elk.edges).toHaveLength(graph.edges.length);
  });

  it('places every state inside the drawing and each child inside active, and routes every arrow', async () => {
    const l = await layoutChart(graph, new ELK());
    expect(l.nodes).toHaveLength(graph.nodes.length);
    expect(l.edges).toHaveLength(graph.edges.length);
    const active = l.nodes.find((n) => n.node.id === 'active')!;
    for (const n of l.nodes) {
      expect(n.x).toBeGreaterThanOrEqual(0);
      expect(n.x + n.width).toBeLessThanOrEqual(l.width + 0.5);
      if (n.node.parent === 'active') {
        expect(n.x).toBeGreaterThanOrEqual(active.x);
        expect(n.y).toBeGreaterThanOrEqual(active.y);
        expect(n.x + n.width).toBeLessThanOrEqual(active.x + active.width + 0.5);
        expect(n.y + n.height).toBeLessThanOrEqual(active.y + active.height + 0.5);
      }
    }
    for (const e of l.edges) expect(e.points.length).toBeGreaterThanOrEqual(2);
  });
});
