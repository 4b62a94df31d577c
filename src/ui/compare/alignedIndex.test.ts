import fc from 'fast-check';
import { alignedIndex } from './compareScenario';
import { indexAtMs } from '../store/derive';
import type { TraceEvent } from '../../sim';

const ev = (times: number[]) => [...times].sort((a, b) => a - b).map((atMs, i) => ({ atMs, id: `e${i + 1}` }));

describe('compare: both sides describe the cursor the same way', () => {
  it('at Home (0 ms, before the first event) both sides are before their first event, even with events at 0 ms', () => {
    const left = ev([0, 0, 0, 100]);
    const right = ev([0, 0, 50]);
    expect(alignedIndex(left, -1, 0, right)).toBe(-1);
    // Stepping through the events at 0 ms: the right follows one by one, then stays on its last.
    expect(alignedIndex(left, 0, 0, right)).toBe(0);
    expect(alignedIndex(left, 1, 0, right)).toBe(1);
    expect(alignedIndex(left, 2, 0, right)).toBe(1);
    // Scrubbed between events: everything up to the time on both sides.
    expect(alignedIndex(left, 2, 60, right)).toBe(2);
  });

  it('with the same run on both sides, the right side is exactly the left (property)', () => {
    fc.assert(fc.property(fc.array(fc.integer({ min: 0, max: 20 }), { minLength: 1, maxLength: 30 }), fc.nat(), fc.integer({ min: 0, max: 25 }), (times, pick, scrubMs) => {
      const events = ev(times);
      // A cursor on an event (stepping) …
      const i = (pick % (events.length + 1)) - 1;
      const atMs = i < 0 ? 0 : events[i]!.atMs;
      expect(alignedIndex(events, i, atMs, events)).toBe(i);
      // … and a cursor scrubbed to a time (the store's index is the last event at or before it).
      const j = indexAtMs(events as unknown as TraceEvent[], scrubMs);
      expect(alignedIndex(events, j, scrubMs, events)).toBe(j);
    }));
  });

  it('never puts the right side past the cursor time, nor short of the events before it (property)', () => {
    fc.assert(fc.property(fc.array(fc.integer({ min: 0, max: 20 }), { maxLength: 20 }), fc.array(fc.integer({ min: 0, max: 20 }), { maxLength: 20 }), fc.integer({ min: 0, max: 25 }), (lt, rt, t) => {
      const left = ev(lt);
      const right = ev(rt);
      const r = alignedIndex(left, indexAtMs(left as unknown as TraceEvent[], t), t, right);
      expect(r).toBe(indexAtMs(right as unknown as TraceEvent[], t));
    }));
  });
});
