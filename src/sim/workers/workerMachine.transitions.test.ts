/**
 * The worker machine's whole transition table: every legal event in every state goes to its
 * declared state and applies the belief patch it carries (the WorkerEvent contract: "each may carry
 * a patch"), except RESUME, which changes no belief (a paused worker does not know it was paused).
 * The machine is imported inside each test, so a definition that cannot even be built (a state
 * with no initial child, a target that does not exist) fails a test here, not only the collection
 * of the files that import it at the top.
 */
import { createActor } from 'xstate';
import type { WorkerEvent, WorkerStateName } from './workerMachine';

type Machine = typeof import('./workerMachine');

const ACTIVE = ['idle', 'requesting', 'waiting', 'holding', 'working', 'performingEffect', 'recordingCompletion', 'releasing'] as const;
/** Where a job step goes from any active state. */
const STEP_TARGET: Partial<Record<WorkerEvent['type'], WorkerStateName>> = {
  REQUEST: 'requesting', WORK: 'working', EFFECT: 'performingEffect', RECORD: 'recordingCompletion', RELEASE: 'releasing',
  FINISH: 'done', PAUSE: 'paused', CRASH: 'crashed',
};

/** The expected target of `type` in `state`: a step's target, BELIEVE stays, WAIT → waiting, GRANTED → holding. */
function expectedTarget(state: WorkerStateName, type: WorkerEvent['type']): WorkerStateName {
  if (state === 'paused') return type === 'CRASH' ? 'crashed' : 'paused';
  if (state === 'crashed') return type === 'RESTART' ? 'idle' : 'done';
  if (type === 'BELIEVE') return state;
  if (type === 'WAIT') return 'waiting';
  if (type === 'GRANTED') return 'holding';
  const target = STEP_TARGET[type];
  if (target === undefined) throw new Error(`no expected target for ${type} in ${state}`);
  return target;
}

/** An actor of `m.workerMachine` driven into `state` by legal events without patches. */
function actorIn(m: Machine, state: WorkerStateName) {
  const actor = createActor(m.workerMachine).start();
  const path: Record<WorkerStateName, WorkerEvent['type'][]> = {
    idle: [], requesting: ['REQUEST'], waiting: ['REQUEST', 'WAIT'], holding: ['REQUEST', 'GRANTED'], working: ['WORK'],
    performingEffect: ['EFFECT'], recordingCompletion: ['RECORD'], releasing: ['RELEASE'], paused: ['WORK', 'PAUSE'], crashed: ['CRASH'], done: ['FINISH'],
  };
  for (const type of path[state]) actor.send({ type });
  expect(m.stateName(actor.getSnapshot().value)).toBe(state);
  return actor;
}

describe('worker machine: the whole transition table', () => {
  it('starts active and idle with the initial beliefs', async () => {
    const m = await import('./workerMachine');
    const snapshot = createActor(m.workerMachine).start().getSnapshot();
    expect(snapshot.value).toEqual({ active: 'idle' });
    expect(snapshot.context).toEqual(m.initialBeliefs);
  });

  it('every legal event of an active state goes to its declared state and applies its belief patch', async () => {
    const m = await import('./workerMachine');
    const seen: string[] = [];
    for (const state of ACTIVE) {
      for (const type of m.legalEvents(state)) {
        const actor = actorIn(m, state);
        actor.send({ type, patch: { incarnation: 7, holdsLock: true } });
        const after = actor.getSnapshot();
        expect({ state, type, to: m.stateName(after.value) }).toEqual({ state, type, to: expectedTarget(state, type) });
        expect({ state, type, incarnation: after.context.incarnation, holdsLock: after.context.holdsLock }).toEqual({ state, type, incarnation: 7, holdsLock: true });
        seen.push(`${state} ${type}`);
        actor.stop();
      }
    }
    // 8 active states × 9 step events, plus WAIT in 5 and GRANTED in 3.
    expect(seen).toHaveLength(8 * 9 + 5 + 3);
  });

  it('paused: BELIEVE and CRASH apply their patch; RESUME returns to the state it left and changes no belief', async () => {
    const m = await import('./workerMachine');
    for (const type of ['BELIEVE', 'CRASH'] as const) {
      const actor = actorIn(m, 'paused');
      actor.send({ type, patch: { incarnation: 7 } });
      expect([type, m.stateName(actor.getSnapshot().value), actor.getSnapshot().context.incarnation]).toEqual([type, expectedTarget('paused', type), 7]);
    }
    const actor = actorIn(m, 'paused');
    actor.send({ type: 'RESUME', patch: { incarnation: 7 } });
    expect(m.stateName(actor.getSnapshot().value)).toBe('working');
    expect(actor.getSnapshot().context).toEqual(m.initialBeliefs);
  });

  it('crashed: RESTART goes back to idle and FINISH to done, each with its patch (the new incarnation, the outcome)', async () => {
    const m = await import('./workerMachine');
    const restarted = actorIn(m, 'crashed');
    restarted.send({ type: 'RESTART', patch: { ...m.initialBeliefs, incarnation: 2 } });
    expect(restarted.getSnapshot().value).toEqual({ active: 'idle' });
    expect(restarted.getSnapshot().context.incarnation).toBe(2);
    const finished = actorIn(m, 'crashed');
    finished.send({ type: 'FINISH', patch: { outcome: 'crashed' } });
    expect(finished.getSnapshot().value).toBe('done');
    expect(finished.getSnapshot().status).toBe('done');
    expect(finished.getSnapshot().context.outcome).toBe('crashed');
  });
});
