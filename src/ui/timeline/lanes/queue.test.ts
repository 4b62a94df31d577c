import { findPreset } from '../../../sim';
import { deriveRun } from '../../store/derive';
import { buildLanes } from '.';
import { deliveriesOf, queueLanes } from './queue';

const run = (id: string, v: 'withoutFix' | 'withFix' = 'withoutFix') => deriveRun(findPreset(id)![v]);

describe('queue lanes', () => {
  it('an SQS-like queue shows one lane per message, between the lease keys and the database; a table queue shows none (its rows are the database lane\'s)', () => {
    expect(buildLanes(run('queue-redelivery')).lanes.map((l) => [l.id, l.label])).toEqual([['worker-A', 'Worker A'], ['worker-B', 'Worker B'], ['queue-m1', 'charges: m1'], ['destination', 'External API']]);
    expect(buildLanes(run('skip-locked-claim')).lanes.map((l) => l.ref.kind)).not.toContain('queue');
  });

  it('each delivery is a bar from its receive to its deletion or its return to the queue, with the deadline an extension moved', () => {
    const r = run('queue-redelivery');
    expect(deliveriesOf(r.events, 90_000).get('m1')).toEqual([
      { startMs: 0, endMs: 30_000, consumer: 'A', receiptHandle: 'rh-1', receiveCount: 1, visibleAtMs: 30_000, end: 'visible', eventId: 'e1', cited: false },
      { startMs: 31_000, endMs: 61_000, consumer: 'B', receiptHandle: 'rh-2', receiveCount: 2, visibleAtMs: 61_000, end: 'visible', eventId: expect.stringMatching(/^e\d+$/), cited: false },
    ]);
    // The lane marks a delivery a violation cites (the job acknowledged too late cites its first delivery), and only that one.
    expect(queueLanes.lanes(r)[0]!.data.map((d) => d.cited)).toEqual([true, false]);
    const fixed = run('queue-redelivery', 'withFix');
    expect(deliveriesOf(fixed.events, 90_000).get('m1')).toEqual([{ startMs: 0, endMs: 37_000, consumer: 'A', receiptHandle: 'rh-1', receiveCount: 1, visibleAtMs: 50_000, end: 'deleted', eventId: 'e1', cited: false }]);
    const lane = queueLanes.lanes(fixed)[0]!;
    expect(queueLanes.cursorNote!.text(lane.data, 30_000)).toBe('A: invisible 20 s more');
    expect(queueLanes.cursorNote!.text(lane.data, 40_000)).toBe('visible or deleted');
  });
});
