import { describe, expect, it } from 'vitest';
import { buildTranscript, findPreset, REPLAY_LIMIT_WHY, replayCoverage, runScenario } from '../src/sim/index';
import { coverageOf } from './coverage';

describe('coverageOf: every step of a transcript is replayed or not, with why (issue 13)', () => {
  const fixed = findPreset('failover-fence')!.withFix;
  const t = buildTranscript(runScenario(fixed));

  it('failover-fence with the fix: the failover replayed on a real replica, every step is covered', () => {
    const kinds = t.entries.flatMap((e) => (e.kind === 'note' ? [] : [`${e.n}:${e.kind === 'redis' ? e.session : 'psql'}`]));
    expect(kinds).toEqual(['1:redis', '2:replica', '3:redis', '4:psql', '5:redis', '6:replica', '7:psql', '8:replica', '9:replica']);
    const c = coverageOf(t, { ranSteps: [4, 7], outcome: 'agree' }, { ranSteps: [1, 2, 3, 5, 6, 8, 9], outcome: 'agree' });
    expect(c).toEqual({ total: 9, replayed: [{ from: 1, to: 9 }], notReplayed: [] });
  });

  it('a second failover stops the redis-cli replay: the psql steps after it are replayed, the redis-cli steps are not, with why', () => {
    // A second failover 0.3 s after the first, before B takes the lease: the replay has one replica.
    const twice = buildTranscript(runScenario({ ...fixed, faults: [...fixed.faults, { kind: 'failover', atMs: 1_800 }] }));
    const stop = replayCoverage(twice).stop!;
    expect(stop.limit).toBe('failover');
    const redisAfter = twice.entries.flatMap((e) => (e.kind === 'redis' && stop.steps.includes(e.n) ? [e.n] : []));
    expect(redisAfter).toEqual([...stop.steps]);
    const ran = (redis: boolean) => twice.entries.flatMap((e) => (e.kind !== 'note' && (e.kind === 'redis') === redis && !stop.steps.includes(e.n) ? [e.n] : []));
    const c = coverageOf(twice, { ranSteps: ran(false), outcome: 'agree' }, { ranSteps: ran(true), outcome: 'agree' });
    expect(c.notReplayed.length).toBeGreaterThan(0);
    expect(c.notReplayed.every((r) => r.why === REPLAY_LIMIT_WHY.failover)).toBe(true);
    expect(c.notReplayed.flatMap((r) => Array.from({ length: r.to - r.from + 1 }, (_, i) => r.from + i))).toEqual([...stop.steps]);
    // The psql steps after the second failover are replayed.
    expect(ran(false).some((n) => n > stop.steps[0]!)).toBe(true);
  });

  it('a replay that stopped at a difference says so for the steps it did not send', () => {
    const c = coverageOf(t, { ranSteps: [4, 7], outcome: 'agree' }, { ranSteps: [1, 2], outcome: 'disagree' });
    expect(c.notReplayed[0]).toEqual({ from: 3, to: 3, why: 'the replay stopped at its first difference' });
  });
});
