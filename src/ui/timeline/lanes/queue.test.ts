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
      { startMs: 0, endMs: 30_000, consumer: 'A', receiptHandle: 'rh-1', receiveCount: 1, visibleAtMs: 30_000, visibility: [{ fromMs: 0, visibleAtMs: 30_000 }], end: 'visible', eventId: 'e1', cited: false },
      { startMs: 31_000, endMs: 61_000, consumer: 'B', receiptHandle: 'rh-2', receiveCount: 2, visibleAtMs: 61_000, visibility: [{ fromMs: 31_000, visibleAtMs: 61_000 }], end: 'visible', eventId: expect.stringMatching(/^e\d+$/), cited: false },
    ]);
    // The lane marks a delivery a violation cites (the job acknowledged too late cites its first delivery), and only that one.
    expect(queueLanes.lanes(r)[0]!.data.map((d) => d.cited)).toEqual([true, false]);
    const fixed = run('queue-redelivery', 'withFix');
    expect(deliveriesOf(fixed.events, 90_000).get('m1')).toEqual([{ startMs: 0, endMs: 37_000, consumer: 'A', receiptHandle: 'rh-1', receiveCount: 1, visibleAtMs: 50_000, visibility: [{ fromMs: 0, visibleAtMs: 30_000 }, { fromMs: 20_000, visibleAtMs: 50_000 }], end: 'deleted', eventId: 'e1', cited: false }]);
    const lane = queueLanes.lanes(fixed)[0]!;
    expect(queueLanes.cursorNote!.text(lane.data, 30_000)).toBe('A: invisible 20 s more');
    // Deleted at 37 s: nothing keeps it invisible, so no note.
    expect(queueLanes.cursorNote!.text(lane.data, 40_000)).toBe('');
  });

  it('queue-redelivery with the fix: the note counts down the deadline in effect at the cursor — 30 s at 0 ms (the receive\'s), not the 50 s the extension at 20 s sets later', () => {
    const lane = queueLanes.lanes(run('queue-redelivery', 'withFix'))[0]!;
    const note = (t: number) => queueLanes.cursorNote!.text(lane.data, t);
    expect([0, 19_999, 20_000, 36_999, 37_000].map(note)).toEqual(['A: invisible 30 s more', 'A: invisible 10.001 s more', 'A: invisible 30 s more', 'A: invisible 13.001 s more', '']);
    // Without the fix: A's 30 s run out at 30 s (no note until B's receive at 31 s).
    const broken = queueLanes.lanes(run('queue-redelivery'))[0]!;
    expect([0, 29_999, 30_000, 30_500, 31_000].map((t) => queueLanes.cursorNote!.text(broken.data, t))).toEqual(['A: invisible 30 s more', 'A: invisible 1 ms more', '', '', 'B: invisible 30 s more']);
  });
});
