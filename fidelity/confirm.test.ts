import { describe, expect, it } from 'vitest';
import { CONFIRM_RERUNS, formatDisagreement, formatFlake, runConfirmed } from './confirm';
import type { CaseResult } from './types';

const agree: CaseResult = { name: 'c', primitive: 'generated SQL', outcome: 'agree', transcript: ['#1 s1> BEGIN'], problems: [] };
const disagreeAt = (step: number): CaseResult => ({
  name: 'c', primitive: 'generated SQL', outcome: 'disagree', transcript: [`#${step} s1> INSERT …`],
  problems: [`step ${step} s1> INSERT INTO invoices (order_id, amount) VALUES (2, 5): model INSERT 0 1 ≠ server waits (blocked by s2)`],
});

/** A run function that answers the given results in turn and counts its calls. */
function scripted(...results: CaseResult[]): { run: () => Promise<CaseResult>; calls: () => number } {
  let i = 0;
  return { run: () => Promise.resolve(results[Math.min(i++, results.length - 1)] as CaseResult), calls: () => i };
}

describe('runConfirmed: a disagreement counts only when it reproduces', () => {
  it('runs an agreeing sequence once', async () => {
    const s = scripted(agree);
    const { result, flake } = await runConfirmed(s.run);
    expect(result).toBe(agree);
    expect(flake).toBeNull();
    expect(s.calls()).toBe(1);
  });

  it('reports a disagreement that every re-run shows at the same step', async () => {
    const s = scripted(disagreeAt(9), disagreeAt(9), disagreeAt(9));
    const { result, flake } = await runConfirmed(s.run);
    expect(result.outcome).toBe('disagree');
    expect(flake).toBeNull();
    expect(s.calls()).toBe(1 + CONFIRM_RERUNS);
  });

  it('turns a disagreement whose re-run agrees into an excluded flake with both runs', async () => {
    const first = disagreeAt(9);
    const s = scripted(first, agree);
    const { result, flake } = await runConfirmed(s.run);
    expect(result.outcome).toBe('excluded');
    expect(result.excludedBecause).toContain('did not reproduce');
    expect(flake).toEqual({ first, rerun: agree });
    expect(s.calls()).toBe(2);
  });

  it('treats a re-run that disagrees at another step as not reproduced', async () => {
    const s = scripted(disagreeAt(9), disagreeAt(9), disagreeAt(4));
    const { result, flake } = await runConfirmed(s.run);
    expect(result.outcome).toBe('excluded');
    expect(flake?.rerun.problems[0]).toMatch(/^step 4 /);
  });

  it('says a disagreement was reproduced only when runConfirmed re-ran it', async () => {
    const s = scripted(disagreeAt(9), disagreeAt(9), disagreeAt(9));
    const { result } = await runConfirmed(s.run);
    expect(result.reproducedRuns).toBe(CONFIRM_RERUNS);
    expect(formatDisagreement('x', result)).toContain(`DISAGREEMENT (reproduced on ${CONFIRM_RERUNS} re-runs)`);
    expect(formatDisagreement('x', disagreeAt(9))).toContain('DISAGREEMENT (not re-run)');
  });

  it('prints the differing step with both answers, and both transcripts of a flake', () => {
    const text = formatDisagreement('generated SQL seed 1', disagreeAt(9));
    expect(text).toContain('DISAGREEMENT');
    expect(text).toContain('step 9 s1> INSERT INTO invoices (order_id, amount) VALUES (2, 5): model INSERT 0 1 ≠ server waits (blocked by s2)');
    const flake = formatFlake('generated SQL seed 1 #3', { first: disagreeAt(9), rerun: agree });
    expect(flake).toContain('FLAKE WARNING');
    expect(flake).toContain('first run: step 9');
    expect(flake).toContain('#9 s1> INSERT …');
    expect(flake).toContain('#1 s1> BEGIN');
  });
});
