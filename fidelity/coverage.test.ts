import { describe, expect, it } from 'vitest';
import { buildTranscript, findPreset, runScenario } from '../src/sim/index';
import { coverageOf } from './coverage';

describe('coverageOf: every step of a transcript is replayed or not, with why (issue 13)', () => {
  const t = buildTranscript(runScenario(findPreset('failover-fence')!.withFix));

  it('failover-fence with the fix: the psql step after the failover is replayed, the redis-cli steps after it are not', () => {
    const kinds = t.entries.flatMap((e) => (e.kind === 'note' ? [] : [`${e.n}:${e.kind === 'redis' ? 'redis' : 'psql'}`]));
    expect(kinds).toEqual(['1:redis', '2:psql', '3:redis', '4:redis', '5:psql', '6:redis', '7:redis']);
    const c = coverageOf(t, { ranSteps: [2, 5], outcome: 'agree' }, { ranSteps: [1, 3], outcome: 'agree' });
    expect(c).toEqual({ total: 7, replayed: [{ from: 1, to: 3 }, { from: 5, to: 5 }], notReplayed: [{ from: 4, to: 4, why: 'a Redis failover' }, { from: 6, to: 7, why: 'a Redis failover' }] });
  });

  it('a replay that stopped at a difference says so for the steps it did not send', () => {
    const c = coverageOf(t, { ranSteps: [2, 5], outcome: 'agree' }, { ranSteps: [1], outcome: 'disagree' });
    expect(c.notReplayed[0]).toEqual({ from: 3, to: 3, why: 'the replay stopped at its first difference' });
  });
});
