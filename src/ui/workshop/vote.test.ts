import { describe, expect, it } from 'vitest';
import { makeVote, NOTHING_HAPPENS, withCount } from './vote';

const ev = (...n: string[]) => n.map((narration) => ({ narration }));

describe('what happens next? (a workshop vote)', () => {
  it('offers the next event among two different later sentences, the answer where it says', () => {
    const events = ev('a', 'b', 'b', 'c', 'd');
    for (let at = -1; at < 2; at++) {
      const v = makeVote(events, at)!;
      expect(v.options[v.answer]).toBe(events[at + 1]!.narration);
      expect(new Set(v.options).size).toBe(v.options.length);
      expect(v.options.length).toBe(3);
      expect(v.tally).toEqual([0, 0, 0]);
      expect(v.revealed).toBe(false);
    }
    expect(makeVote(events, -1)!.options).toEqual(expect.arrayContaining(['a', 'b', 'c']));
  });

  it('fills in with "nothing more happens" near the end, and has no vote after the last event', () => {
    const v = makeVote(ev('a', 'b'), 0)!;
    expect(v.options).toContain(NOTHING_HAPPENS);
    expect(v.options[v.answer]).toBe('b');
    expect(makeVote(ev('a', 'b'), 1)).toBeNull();
  });

  it('keeps a tally the presenter enters, clamped to whole hands', () => {
    const v = makeVote(ev('a', 'b', 'c', 'd'), 0)!;
    expect(withCount(v, 1, 7).tally).toEqual([0, 7, 0]);
    expect(withCount(v, 0, -4).tally[0]).toBe(0);
    expect(withCount(v, 0, 2.6).tally[0]).toBe(3);
    expect(withCount(v, 0, Number.NaN).tally[0]).toBe(0);
    expect(withCount(v, 0, 1e9).tally[0]).toBe(9_999);
  });
});
