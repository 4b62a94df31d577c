import { describe, expect, it } from 'vitest';
import { PRESETS, runScenario } from '../../sim';
import { happeningKey, isRightOption, makeVote, NOTHING_HAPPENS, optionsRightAt, voteAlternatives, withCount, wordingKey, type VoteEvent } from './vote';

/** Events one millisecond apart. */
const ev = (...n: string[]): VoteEvent[] => n.map((narration, i) => ({ narration, atMs: i }));

describe('what happens next? (a workshop vote)', () => {
  it('offers the next event among two sentences the run never says, the answer where it says', () => {
    const events = ev('a', 'b', 'b', 'c', 'd');
    const alternatives: VoteEvent[] = [{ narration: 'c', atMs: 1 }, { narration: 'x', atMs: 2 }, { narration: 'y', atMs: 9 }, { narration: 'x', atMs: 3 }, { narration: 'z', atMs: 1 }];
    for (let at = -1; at < 2; at++) {
      const v = makeVote(events, at, alternatives)!;
      expect(v.answers.map((i) => v.options[i])).toEqual([events[at + 1]!.narration]);
      expect(new Set(v.options).size).toBe(v.options.length);
      expect(v.options.length).toBe(3);
      // 'c' is said by the run (later): never a wrong option; 'y' is said farthest from the moment.
      expect(v.options).not.toContain('c');
      expect(v.options.filter((o) => o !== events[at + 1]!.narration).sort()).toEqual(['x', 'z']);
      expect(v.tally).toEqual([0, 0, 0]);
      expect(v.revealed).toBe(false);
    }
  });

  it('fills in with "nothing more happens" when too few sentences are left, and has no vote after the last event', () => {
    const v = makeVote(ev('a', 'b', 'c'), 0, [{ narration: 'x', atMs: 0 }])!;
    expect(v.options).toContain(NOTHING_HAPPENS);
    expect(v.options).toContain('x');
    expect(v.options).not.toContain('c');
    expect(v.answers.map((i) => v.options[i])).toEqual(['b']);
    expect(makeVote(ev('a', 'b'), 1)).toBeNull();
  });

  it('keeps a tally the presenter enters, clamped to whole hands', () => {
    const v = makeVote(ev('a', 'b', 'c', 'd'), 0, ev('x', 'y'))!;
    expect(withCount(v, 1, 7).tally).toEqual([0, 7, 0]);
    expect(withCount(v, 0, -4).tally[0]).toBe(0);
    expect(withCount(v, 0, 2.6).tally[0]).toBe(3);
    expect(withCount(v, 0, Number.NaN).tally[0]).toBe(0);
    expect(withCount(v, 0, 1e9).tally[0]).toBe(9_999);
  });

  it('grades by virtual time: an option whose event happens at the revealed millisecond is right too (found by a newcomer)', () => {
    const events: VoteEvent[] = [
      { narration: 'A acquires the lease', atMs: 0 },
      { narration: "A's lease expires", atMs: 1_000 },
      { narration: 'B acquires the lease', atMs: 1_000 },
      { narration: 'B uploads', atMs: 1_500 },
    ];
    expect(optionsRightAt(events, [1, 2, 3, -1], 1)).toEqual([0, 1]);
    expect(optionsRightAt([...events.slice(0, 2), { narration: 'B acquires the lease', atMs: 1_001 }, events[3]!], [1, 2, 3], 1)).toEqual([0]);
  });

  it('a sentence that differs only in its figures or its parentheses says the same happening', () => {
    expect(happeningKey('B takes the lease lease:export for 30 s (owner token e01d).')).toBe(happeningKey('B takes the lease lease:export for 10 s (owner token 7a2c)'));
    expect(happeningKey('B takes the lease')).not.toBe(happeningKey('A takes the lease'));
  });

  it('property: for every preset, both variants and every cursor, no wrong option is said anywhere in the run (before or after the cursor), the answer is the next event, the options are distinct', () => {
    let asked = 0;
    for (const p of PRESETS) {
      for (const s of [p.withoutFix, p.withFix]) {
        const events = runScenario(s).events;
        const said = new Set(events.map((e) => happeningKey(e.narration)));
        const alternatives = voteAlternatives(s);
        for (let at = -1; at < events.length - 1; at++) {
          const v = makeVote(events, at, alternatives)!;
          const tag = `${p.id} at ${at}: ${JSON.stringify(v.options)}`;
          expect(v.options.length, tag).toBe(3);
          expect(v.answers.map((i) => v.options[i]), tag).toEqual([events[at + 1]!.narration]);
          v.options.forEach((o, i) => {
            if (isRightOption(v, i)) return;
            expect(events.some((e) => e.narration === o), `${tag}: wrong option “${o}” is said by the run`).toBe(false);
            expect(said.has(happeningKey(o)), `${tag}: wrong option “${o}” says what the run says`).toBe(false);
          });
          expect(new Set(v.options.map(wordingKey)).size, tag).toBe(3);
          expect(new Set(v.options.map(happeningKey)).size, tag).toBe(3);
          asked++;
        }
      }
    }
    expect(asked).toBeGreaterThan(1000);
  }, 120_000);
});

describe('a vote\'s options read differently', () => {
  it('for every preset, both variants, at every event: no two options of a question read the same or nearly the same', async () => {
    const { PRESETS, runScenario } = await import('../../sim');
    const { makeVote: make, wordingKey: key } = await import('./vote');
    let asked = 0;
    for (const p of PRESETS) {
      for (const sc of [p.withoutFix, p.withFix]) {
        const events = runScenario(sc, { text: true }).events;
        const alternatives = voteAlternatives(sc);
        for (let i = -1; i < events.length - 1; i++) {
          const v = make(events, i, alternatives)!;
          const keys = v.options.map(key);
          expect(new Set(keys).size, `${p.id} at ${i}: ${JSON.stringify(v.options)}`).toBe(keys.length);
          asked++;
        }
      }
    }
    expect(asked).toBeGreaterThan(1000);
  }, 120_000);

  it('sentences that differ only in their figures read the same', async () => {
    const { wordingKey: key } = await import('./vote');
    expect(key('B tries again: refused (attempt 3)')).toBe(key('B tries again: refused (attempt 14).'));
    expect(key('A renews the lease for 10 s')).not.toBe(key('B renews the lease for 10 s'));
  });
});
