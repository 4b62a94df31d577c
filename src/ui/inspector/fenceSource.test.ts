/**
 * The inspector names the fencing source the run uses and the last token it handed out, over every
 * preset and random scenarios: re-derived here from the workers' beliefs (the token each was
 * granted), never from fenceSource.ts's own reading of the calls.
 */
import fc from 'fast-check';
import { PRESETS, findPreset, validateScenario } from '../../sim';
import type { RedisCmd } from '../../sim/resources/redisTypes';
import { scenarioArb } from '../../sim/testing/scenarioArb';
import { deriveRun, type DerivedRun } from '../store/derive';
import { fencingSourceAt } from './fenceSource';

const VARIANTS = PRESETS.flatMap((p) => [[`${p.id} without the fix`, p.withoutFix], [`${p.id} with the fix`, p.withFix]] as const);

/** Problems of the fencing source shown at every cursor position of a run (empty: it tells the truth). */
function fencingDisagreements(r: DerivedRun): string[] {
  const out: string[] = [];
  const { mechanism, lease } = r.scenario;
  const incrs = r.events.filter((e) => e.call?.resource === 'redis' && (e.call.command as RedisCmd).op === 'INCR' && (e.call.command as { key: string }).key === lease.fenceKey);
  let highest: number | null = null;
  for (let i = -1; i < r.events.length; i++) {
    const v = fencingSourceAt(r, i);
    if (!mechanism.fencing) {
      if (v !== null) out.push(`${i}: a fencing source shown for a run that sends no token`);
      continue;
    }
    // The tokens the workers were granted so far (their beliefs after each event).
    const e = r.events[i];
    const t = e?.beliefs?.fencingToken;
    if (t != null && (highest === null || t > highest)) highest = t;
    const want = mechanism.fenceSource ?? 'redis-incr';
    if (v?.source !== want) { out.push(`${i}: shows ${v?.source}, the scenario uses ${want}`); continue; }
    // It never names the Redis counter as the source unless the tokens come from it, and then it is what Redis holds.
    if (want !== 'redis-incr' && v.where.includes(lease.fenceKey)) out.push(`${i}: names ${lease.fenceKey} as the source under ${want}`);
    if (want === 'db-sequence' && !v.where.includes('fence_seq')) out.push(`${i}: does not name fence_seq`);
    if (want === 'redis-incr' && i >= 0) {
      const k = r.snapshots[i]!.leases.find((l) => l.key === lease.fenceKey);
      if ((k === undefined ? null : Number(k.value)) !== v.current) out.push(`${i}: shows ${lease.fenceKey} = ${v.current}, Redis holds ${k?.value}`);
    }
    // A counter called unused is one the run never increments.
    if (v.unused !== null && incrs.length > 0) out.push(`${i}: calls ${v.unused} unused, but the run INCRs it (${incrs[0]!.id})`);
    // The last token issued is at least every token granted so far (a token issued to a worker that then lost it counts too).
    if (highest !== null && (v.lastToken === null || v.lastToken < highest)) out.push(`${i}: last token ${v.lastToken}, a worker already holds ${highest}`);
  }
  return out.slice(0, 5);
}

describe('the inspector shows the fencing source the run uses', () => {
  it.each(VARIANTS)('%s', (_n, s) => {
    expect(fencingDisagreements(deriveRun(s))).toEqual([]);
  });

  it('over random scenarios', () => {
    const all = fc.sample(scenarioArb.filter((s) => validateScenario(s).ok), { numRuns: 150, seed: 19 });
    for (const s of all) expect(fencingDisagreements(deriveRun(s)), `${s.id} ${JSON.stringify(s.mechanism)}`).toEqual([]);
  });

  it('failover-fence with the fix: tokens from fence_seq (33, then 34), not the Redis key fence:export = 32 that nobody increments', () => {
    const r = deriveRun(findPreset('failover-fence')!.withFix);
    const end = fencingSourceAt(r, r.events.length - 1)!;
    expect(end).toEqual({ source: 'db-sequence', where: "PostgreSQL sequence fence_seq (SELECT nextval('fence_seq'))", lastToken: 34, current: null, unused: 'fence:export = 32 in Redis' });
    const broken = deriveRun(findPreset('failover-fence')!.withoutFix);
    expect(fencingSourceAt(broken, broken.events.length - 1)).toMatchObject({ source: 'redis-incr', where: 'Redis INCR of fence:export', unused: null });
  });
});
