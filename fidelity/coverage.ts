/**
 * The coverage of a transcript's replay (`fidelity/presetReplay.ts`), for the fidelity report:
 * which numbered steps the servers ran and which they did not, and why. Pure (no server), so the
 * app's tests can build the report a clean replay writes.
 */
import { REPLAY_LIMIT_WHY, replayCoverage, stepRanges, type Transcript, type TranscriptStep } from '../src/sim/index';
import type { FidelityCoverage } from '../src/ui/fidelity/fidelityStatus';
import type { CaseResult } from './types';

/**
 * What a transcript's replay covered: every numbered step of `t` either among the steps a replay
 * ran (`ranSteps` of `sql` and `redis`) or in a range of steps not replayed, with why — the
 * transcript's own limit (`replayCoverage`: a TTL running out, a forced expiry, a clock jump, a
 * failover), or the replay stopping at its first difference (the steps after it were not sent).
 * Pure (no server): what the report records and the app states.
 */
export function coverageOf(t: Transcript, sql: Pick<CaseResult, 'ranSteps' | 'outcome'> | undefined, redis: Pick<CaseResult, 'ranSteps' | 'outcome'> | undefined): FidelityCoverage {
  const { total, stop } = replayCoverage(t);
  const ran = new Set([...(sql?.ranSteps ?? []), ...(redis?.ranSteps ?? [])]);
  const limited = new Set(stop?.steps ?? []);
  const all = t.entries.flatMap((e) => (e.kind === 'note' ? [] : [e]));
  const why = (e: TranscriptStep): string => {
    if (limited.has(e.n) && stop) return REPLAY_LIMIT_WHY[stop.limit];
    const replay = e.kind === 'redis' ? redis : sql;
    if (replay === undefined) return 'no replay of this client ran';
    return replay.outcome === 'disagree' ? 'the replay stopped at its first difference' : 'the replay ended before it';
  };
  const missed: { from: number; to: number; why: string }[] = [];
  for (const e of all) {
    if (ran.has(e.n)) continue;
    const w = why(e);
    const last = missed.at(-1);
    // A range is of consecutive step numbers not replayed for the same reason.
    if (last !== undefined && last.to === e.n - 1 && last.why === w) last.to = e.n;
    else missed.push({ from: e.n, to: e.n, why: w });
  }
  return { total, replayed: stepRanges([...ran]), notReplayed: missed };
}
