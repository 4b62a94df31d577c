/**
 * The confirmation rule of the fidelity suite: a disagreement is reported only when it reproduces.
 *
 * A sequence whose run disagrees is run again, from scratch (new schema, new sessions, new key
 * prefix), up to `CONFIRM_RERUNS` more times:
 * - every re-run disagrees at the same place (the first problem names the same step) → a
 *   DISAGREEMENT (the suite fails);
 * - some re-run agrees, or disagrees elsewhere → a FLAKE WARNING: the sequence is counted as
 *   excluded ("did not reproduce"), both transcripts are printed (the disagreeing run and the
 *   re-run that differed from it), and the suite does not fail on it.
 * Real PostgreSQL has genuine races the model resolves one way (for example two UPDATEs waiting on
 * one row whose holder commits a new version: after the commit each re-locks the newest version,
 * and a first waiter that is not scheduled in time is overtaken), so a single run cannot tell a
 * model difference from a race lost on a loaded machine; a deterministic model difference
 * reproduces every time.
 */
import type { CaseResult } from './types';

/** Re-runs of a disagreeing sequence before it counts as a disagreement. */
export const CONFIRM_RERUNS = 2;

/** A disagreement that did not reproduce. */
export interface Flake {
  readonly first: CaseResult;
  readonly rerun: CaseResult;
}

/** The place a result disagrees: its first problem up to the first `: ` (the step). */
function place(r: CaseResult): string {
  return (r.problems[0] ?? '').split(': ')[0] ?? '';
}

/** Runs `run` and applies the rule above. `result` is the confirmed result (a flake is `excluded`). */
export async function runConfirmed(run: () => Promise<CaseResult>): Promise<{ result: CaseResult; flake: Flake | null }> {
  const first = await run();
  if (first.outcome !== 'disagree') return { result: first, flake: null };
  let last = first;
  for (let i = 0; i < CONFIRM_RERUNS; i++) {
    const again = await run();
    if (again.outcome !== 'disagree' || place(again) !== place(first)) {
      const because = `a disagreement that did not reproduce on re-run (flake warning): ${first.problems[0] ?? ''}`;
      return { result: { ...first, outcome: 'excluded', excludedBecause: because }, flake: { first, rerun: again } };
    }
    last = again;
  }
  return { result: { ...last, reproducedRuns: CONFIRM_RERUNS }, flake: null };
}

/** The printed form of a flake warning: the differing step, then both transcripts. */
export function formatFlake(label: string, f: Flake): string {
  return [
    `${label}: FLAKE WARNING — disagreed once, then ${f.rerun.outcome === 'disagree' ? 'disagreed elsewhere' : 'agreed'} on re-run (not counted as a disagreement)`,
    ...f.first.problems.map((p) => `  ✗ first run: ${p}`),
    ...f.rerun.problems.map((p) => `  ✗ re-run: ${p}`),
    '  first run:',
    ...f.first.transcript.map((l) => `    ${l}`),
    `  re-run (${f.rerun.outcome}):`,
    ...f.rerun.transcript.map((l) => `    ${l}`),
  ].join('\n');
}

/** The printed form of a confirmed disagreement: what differs first, then the transcript. */
export function formatDisagreement(header: string, r: CaseResult): string {
  return [
    `${header}: DISAGREEMENT (${r.reproducedRuns !== undefined ? `reproduced on ${r.reproducedRuns} re-runs` : 'not re-run'})`,
    ...r.problems.map((p) => `  ✗ ${p}`),
    '  transcript:',
    ...r.transcript.map((l) => `    ${l}`),
  ].join('\n');
}
