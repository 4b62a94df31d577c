import { describe, expect, it } from 'vitest';
import { PRESETS, runScenario } from '../../sim';
import { isRightOption, makeVote, NOTHING_HAPPENS, withCount, type VoteEvent } from './vote';

/** Events one millisecond apart. */
const ev = (...n: string[]): VoteEvent[] => n.map((narration, i) => ({ narration, atMs: i }));

describe('what happens next? (a workshop vote)', () => {
  it('offers the next event among two different later sentences, the answer where it says', () => {
    const events = ev('a', 'b', 'b', 'c', 'd');
    for (let at = -1; at < 2; at++) {
      const v = makeVote(events, at)!;
      expect(v.answers.map((i) => v.options[i])).toEqual([events[at + 1]!.narration]);
      expect(new Set(v.options).size).toBe(v.options.length);
      expect(v.options.length).toBe(3);
      expect(v.tally).toEqual([0, 0, 0]);
      expect(v.revealed).toBe(false);
    }
    expect(makeVote(events, -1)!.options).toEqual(expect.arrayContaining(['a', 'b', 'c']));
  });

  it('offers no distractor that reads as the sentence at the cursor (a retry loop\'s next attempt read as "what just happened")', () => {
    const events = ev('B is refused (attempt 1)', 'A pauses', 'B is refused (attempt 2)', 'A resumes', 'B takes it');
    const v = makeVote(events, 0)!;
    expect(v.answers.map((i) => v.options[i])).toEqual(['A pauses']);
    expect(v.options).toEqual(expect.arrayContaining(['A resumes', 'B takes it']));
    expect(v.options).not.toContain('B is refused (attempt 2)');
    // The answer itself may read as the cursor's sentence: it is what happens.
    expect(makeVote(ev('B is refused (attempt 1)', 'B is refused (attempt 2)', 'A pauses', 'A resumes'), 0)!.options).toEqual(expect.arrayContaining(['B is refused (attempt 2)', 'A pauses', 'A resumes']));
  });

  it('fills in with "nothing more happens" near the end, and has no vote after the last event', () => {
    const v = makeVote(ev('a', 'b'), 0)!;
    expect(v.options).toContain(NOTHING_HAPPENS);
    expect(v.answers.map((i) => v.options[i])).toEqual(['b']);
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

  it('accepts an option whose event happens at the same virtual millisecond as the one the reveal cites (found by a newcomer)', () => {
    // B's grant and A's expiry at one instant (1,000 ms): whichever the trace lists first, both happen next.
    const events: VoteEvent[] = [
      { narration: 'A acquires the lease', atMs: 0 },
      { narration: "A's lease expires", atMs: 1_000 },
      { narration: 'B acquires the lease', atMs: 1_000 },
      { narration: 'B uploads', atMs: 1_500 },
    ];
    const v = makeVote(events, 0)!;
    const right = v.options.filter((_, i) => isRightOption(v, i));
    expect(right.sort()).toEqual(["A's lease expires", 'B acquires the lease']);
    expect(isRightOption(v, v.options.indexOf('B uploads'))).toBe(false);
    // One millisecond later is not "at the same moment".
    const later = makeVote([...events.slice(0, 2), { narration: 'B acquires the lease', atMs: 1_001 }, events[3]!], 0)!;
    expect(later.options.filter((_, i) => isRightOption(later, i))).toEqual(["A's lease expires"]);
  });

  it('property: for every preset, variant and cursor, an option is right exactly when its sentence is said at the revealed virtual time', () => {
    let sameInstant = 0;
    for (const p of PRESETS) {
      for (const s of [p.withoutFix, p.withFix]) {
        const events = runScenario(s).events;
        for (let at = -1; at < events.length - 1; at++) {
          const v = makeVote(events, at)!;
          const atMs = events[at + 1]!.atMs;
          v.options.forEach((o, i) => {
            const saidThen = o !== NOTHING_HAPPENS && events.some((e, j) => j > at && e.atMs === atMs && e.narration === o);
            expect(isRightOption(v, i), `${p.id} at ${at}: "${o}"`).toBe(saidThen);
            if (saidThen && o !== events[at + 1]!.narration) sameInstant++;
          });
          expect(v.answers.length).toBeGreaterThan(0);
        }
      }
    }
    // The presets do have such votes (else the property above would test nothing new).
    expect(sameInstant).toBeGreaterThan(0);
  });
});

describe('a vote\'s options read differently', () => {
  it('for every preset, both variants, at every event: no two options of a question read the same or nearly the same', async () => {
    const { PRESETS, runScenario } = await import('../../sim');
    const { makeVote: make, wordingKey: key } = await import('./vote');
    let asked = 0;
    for (const p of PRESETS) {
      for (const sc of [p.withoutFix, p.withFix]) {
        const events = runScenario(sc, { text: true }).events;
        for (let i = -1; i < events.length - 1; i++) {
          const v = make(events, i)!;
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
