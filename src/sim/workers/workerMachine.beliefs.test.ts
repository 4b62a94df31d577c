/** The worker machine on its own: belief patches and the history state a pause returns to (the legal-event table: workerMachine.test.ts). */
import { createActor } from 'xstate';
import { initialBeliefs, stateName, workerMachine, type WorkerEvent } from './workerMachine';

const start = () => {
  const actor = createActor(workerMachine);
  actor.start();
  const send = (e: WorkerEvent) => actor.send(e);
  const state = () => stateName(actor.getSnapshot().value);
  const beliefs = () => actor.getSnapshot().context;
  return { actor, send, state, beliefs };
};

describe('workerMachine', () => {
  it('starts idle with the initial beliefs', () => {
    const w = start();
    expect(w.state()).toBe('idle');
    expect(w.beliefs()).toEqual(initialBeliefs);
    expect(initialBeliefs).toEqual({
      ownsLease: false, ownerToken: null, fencingToken: null, leaseBelievedUntilMs: null, acquiredAtMs: null, holdsLock: false,
      connection: null, inTransaction: false, renewFailed: false, refusedAsStale: false, readValue: null, outcome: null, incarnation: 1,
    });
  });

  it('each event moves to its state and applies its patch; BELIEVE patches without moving', () => {
    const w = start();
    const path: [WorkerEvent, string][] = [
      [{ type: 'REQUEST', patch: { ownerToken: 't1' } }, 'requesting'],
      [{ type: 'WAIT' }, 'waiting'],
      [{ type: 'GRANTED', patch: { ownsLease: true, acquiredAtMs: 5 } }, 'holding'],
      [{ type: 'WORK' }, 'working'],
      [{ type: 'EFFECT' }, 'performingEffect'],
      [{ type: 'RECORD' }, 'recordingCompletion'],
      [{ type: 'BELIEVE', patch: { inTransaction: true } }, 'recordingCompletion'],
      [{ type: 'RELEASE', patch: { ownsLease: false } }, 'releasing'],
    ];
    for (const [e, expected] of path) {
      w.send(e);
      expect(w.state()).toBe(expected);
    }
    expect(w.beliefs()).toMatchObject({ ownerToken: 't1', ownsLease: false, acquiredAtMs: 5, inTransaction: true });
    w.send({ type: 'FINISH', patch: { outcome: 'completed' } });
    expect(w.state()).toBe('done');
    expect(w.actor.getSnapshot().status).toBe('done');
    expect(w.beliefs().outcome).toBe('completed');
  });

  it('a pause keeps the beliefs and resumes into the state it left; beliefs can still change while paused', () => {
    const w = start();
    // GRANTED is legal only while acquiring (workerMachine.test.ts pins the table).
    w.send({ type: 'REQUEST' });
    w.send({ type: 'GRANTED', patch: { ownsLease: true } });
    w.send({ type: 'EFFECT' });
    w.send({ type: 'PAUSE' });
    expect(w.state()).toBe('paused');
    expect(w.beliefs().ownsLease).toBe(true);
    // While paused, only BELIEVE (a reply landing), RESUME and CRASH do anything.
    w.send({ type: 'WORK' });
    expect(w.state()).toBe('paused');
    w.send({ type: 'BELIEVE', patch: { renewFailed: true } });
    w.send({ type: 'RESUME' });
    expect(w.state()).toBe('performingEffect');
    expect(w.beliefs()).toMatchObject({ ownsLease: true, renewFailed: true });
  });

  it('a crash (also while paused) keeps its patch; a restart starts idle with the restart patch; FINISH after a crash ends it', () => {
    const w = start();
    w.send({ type: 'WORK' });
    w.send({ type: 'PAUSE' });
    w.send({ type: 'CRASH', patch: { outcome: 'crashed' } });
    expect(w.state()).toBe('crashed');
    expect(w.beliefs().outcome).toBe('crashed');
    w.send({ type: 'WORK' });
    expect(w.state()).toBe('crashed');
    w.send({ type: 'RESTART', patch: { ...initialBeliefs, incarnation: 2 } });
    expect(w.state()).toBe('idle');
    expect(w.beliefs()).toEqual({ ...initialBeliefs, incarnation: 2 });
    w.send({ type: 'CRASH' });
    w.send({ type: 'FINISH', patch: { outcome: 'crashed' } });
    expect(w.state()).toBe('done');
  });

  it('stateName flattens snapshot values', () => {
    expect(stateName('paused')).toBe('paused');
    expect(stateName({ active: 'holding' })).toBe('holding');
    expect(stateName({})).toBe('idle');
  });
});
