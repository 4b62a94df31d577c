/** The worker machine declares which events are legal in each state and refuses the others. */
import { createActor } from 'xstate';
import { initialBeliefs, legalEvents, workerMachine, stateName, WORKER_EVENT_TYPES, type WorkerEvent, type WorkerStateName } from './workerMachine';

const STEP_EVENTS = ['REQUEST', 'WORK', 'EFFECT', 'RECORD', 'RELEASE', 'BELIEVE', 'FINISH', 'PAUSE', 'CRASH'] as const;

/** An actor driven into `state` by legal events only. */
function actorIn(state: WorkerStateName) {
  const actor = createActor(workerMachine);
  actor.start();
  const path: Record<WorkerStateName, WorkerEvent['type'][]> = {
    idle: [], requesting: ['REQUEST'], waiting: ['REQUEST', 'WAIT'], holding: ['REQUEST', 'GRANTED'], working: ['WORK'],
    performingEffect: ['EFFECT'], recordingCompletion: ['RECORD'], releasing: ['RELEASE'], paused: ['WORK', 'PAUSE'], crashed: ['CRASH'], done: ['FINISH'],
  };
  for (const type of path[state]) actor.send({ type });
  expect(stateName(actor.getSnapshot().value)).toBe(state);
  return actor;
}

describe('worker machine: legal transitions', () => {
  it('declares the legal events of each state', () => {
    const table = Object.fromEntries((['idle', 'requesting', 'waiting', 'holding', 'working', 'performingEffect', 'recordingCompletion', 'releasing', 'paused', 'crashed', 'done'] as const).map((s) => [s, legalEvents(s).sort()]));
    const steps = [...STEP_EVENTS];
    expect(table).toEqual({
      idle: [...steps].sort(),
      requesting: [...steps, 'WAIT', 'GRANTED'].sort(),
      waiting: [...steps, 'WAIT', 'GRANTED'].sort(),
      holding: [...steps].sort(),
      working: [...steps, 'WAIT', 'GRANTED'].sort(),
      performingEffect: [...steps, 'WAIT'].sort(),
      recordingCompletion: [...steps, 'WAIT'].sort(),
      releasing: [...steps].sort(),
      paused: ['BELIEVE', 'CRASH', 'RESUME'],
      crashed: ['FINISH', 'RESTART'],
      done: [],
    });
  });

  it('refuses an illegal event: the state and the beliefs stay as they were', () => {
    const cases: [WorkerStateName, WorkerEvent['type']][] = [
      ['idle', 'GRANTED'], ['idle', 'RESUME'], ['holding', 'WAIT'], ['releasing', 'GRANTED'], ['working', 'RESTART'],
      ['paused', 'GRANTED'], ['paused', 'FINISH'], ['paused', 'WORK'], ['crashed', 'BELIEVE'], ['crashed', 'WORK'],
    ];
    for (const [state, type] of cases) {
      const actor = actorIn(state);
      const before = actor.getSnapshot();
      expect(before.can({ type, patch: { holdsLock: true } })).toBe(false);
      actor.send({ type, patch: { holdsLock: true, ownsLease: true } });
      const after = actor.getSnapshot();
      expect(stateName(after.value)).toBe(state);
      expect(after.context).toBe(before.context);
      actor.stop();
    }
  });

  it('accepts a legal event with its belief patch', () => {
    const actor = actorIn('requesting');
    actor.send({ type: 'GRANTED', patch: { holdsLock: true } });
    expect(stateName(actor.getSnapshot().value)).toBe('holding');
    expect(actor.getSnapshot().context).toEqual({ ...initialBeliefs, holdsLock: true });
  });

  it('a paused worker resumes in the state it was paused in, believing what it believed', () => {
    const actor = actorIn('waiting');
    actor.send({ type: 'PAUSE' });
    actor.send({ type: 'GRANTED', patch: { holdsLock: true } });
    actor.send({ type: 'RESUME' });
    expect(stateName(actor.getSnapshot().value)).toBe('waiting');
    expect(actor.getSnapshot().context.holdsLock).toBe(false);
  });

  it('every event type is legal somewhere', () => {
    const states = ['idle', 'requesting', 'waiting', 'holding', 'working', 'performingEffect', 'recordingCompletion', 'releasing', 'paused', 'crashed', 'done'] as const;
    expect(new Set(states.flatMap((s) => legalEvents(s)))).toEqual(new Set(WORKER_EVENT_TYPES));
  });
});
