import { PRESETS } from '../../sim';
import { deriveRun, metricsAt, runEndMs } from './derive';

describe('metrics at the cursor', () => {
  it.each(PRESETS.flatMap((p) => [[p.id, 'without', p.withoutFix], [p.id, 'with', p.withFix]] as const))('%s %s the fix: counts only grow with the cursor and reach the whole run\'s at its end', (_id, _v, s) => {
    const run = deriveRun(s);
    const end = runEndMs(run);
    expect(metricsAt(run, end)).toEqual(run.metrics);
    let prev = metricsAt(run, 0);
    for (const t of [...new Set(run.events.map((e) => e.atMs))]) {
      const m = metricsAt(run, t);
      expect(m.events).toBe(run.events.filter((e) => e.atMs <= t).length);
      for (const k of ['renewFailures', 'staleWritesRejected', 'duplicateEffects'] as const) expect(m[k], `${k} at ${t} ms`).toBeGreaterThanOrEqual(prev[k]);
      expect(m.acquisitionLatency.count).toBeGreaterThanOrEqual(prev.acquisitionLatency.count);
      prev = m;
    }
    for (const k of ['renewFailures', 'staleWritesRejected', 'duplicateEffects'] as const) expect(prev[k]).toBe(run.metrics[k]);
  });
});

import fc from 'fast-check';
import { findPreset, leaseEntriesOf, sqlCallOf, validateScenario, type RunResult, type Scenario, type TraceEvent } from '../../sim';
import type { DestinationWrite } from '../../sim/resources/destination';
import { scenarioArb } from '../../sim/testing/scenarioArb';
import type { DerivedRun } from './derive';

const VARIANTS = PRESETS.flatMap((p) => [[`${p.id} without the fix`, p.withoutFix], [`${p.id} with the fix`, p.withFix]] as const);
const randomScenarios = (n: number, seed: number): Scenario[] => fc.sample(scenarioArb.filter((s) => validateScenario(s).ok), { numRuns: n, seed });

/**
 * The commits a lease holder made, re-derived from the trace (not the engine's counting): a
 * COMMIT, an autocommit UPDATE that wrote a row, or a destination write that ended accepted, by a
 * worker that believed it owned the lease (for a write: when it sent it); each with whether the lease store (its snapshot after
 * the event) still held that worker's owner token then.
 */
function leaseCommits(r: DerivedRun): { e: TraceEvent; lost: boolean }[] {
  const key = r.scenario.lease.key;
  const beliefsBefore = (i: number, actor: string) => r.events.slice(0, i).findLast((x) => x.actor === actor && x.beliefs !== undefined)?.beliefs;
  return r.events.flatMap((e, i) => {
    // A destination write is judged by what its writer believed when it sent it (its begin event).
    const d = e.data?.t === 'write' ? e.data : undefined;
    const begin = d?.phase === 'end' ? r.events.findIndex((x) => x.data?.t === 'write' && x.data.writeId === d.writeId && x.data.phase === 'begin') : i;
    const before = beliefsBefore(begin, e.actor);
    if (!before?.ownsLease || before.ownerToken === null) return [];
    const sql = sqlCallOf(e);
    const dest = e.call?.resource === 'destination' ? (e.call.reply as DestinationWrite) : undefined;
    const commit = (sql?.command.op === 'commit' && sql.reply.status === 'ok' && sql.reply.tag === 'COMMIT')
      || (sql?.command.op === 'update' && sql.reply.status === 'ok' && sql.reply.tag !== 'UPDATE 0' && sql.inTransaction === false && r.scenario.job.kind === 'fencedRow')
      || (dest !== undefined && dest.status === 'accepted' && e.data?.t === 'write' && e.data.phase === 'end');
    if (!commit) return [];
    const k = leaseEntriesOf(r.snapshots[i]!).find((l) => l.key === key);
    const held = k !== undefined && k.value === before.ownerToken && (k.expiresAtMs === null || k.expiresAtMs > e.atMs);
    return [{ e, lost: !held }];
  });
}

/** Problems of the lease-age metric against the trace (empty: the warning fires iff a commit was made on a lost lease). */
function leaseAgeDisagreements(r: DerivedRun, m: RunResult['metrics'] = r.metrics): string[] {
  const commits = leaseCommits(r);
  const out: string[] = [];
  if (m.leaseAgeAtCommit.count !== commits.length) out.push(`counts ${m.leaseAgeAtCommit.count} commits, the trace has ${commits.length} (${commits.map((c) => c.e.id).join(', ')})`);
  const lost = commits.filter((c) => c.lost).length;
  if ((m.commitsOnLostLease ?? 0) !== lost) out.push(`says ${m.commitsOnLostLease ?? 0} commits on a lost lease, the store shows ${lost}`);
  return out;
}

describe('lease age at commit: the warning is the lease store\'s word', () => {
  it.each(VARIANTS)('%s: a commit counts as on a lost lease iff the store no longer held the committer\'s token', (_n, s) => {
    expect(leaseAgeDisagreements(deriveRun(s))).toEqual([]);
  });

  it('over random scenarios', () => {
    for (const s of randomScenarios(200, 23)) {
      if (s.mechanism.lock !== 'lease') continue;
      expect(leaseAgeDisagreements(deriveRun(s)), `${s.id} ${JSON.stringify(s.mechanism)} ${JSON.stringify(s.faults)}`).toEqual([]);
    }
  });

  it('watchdog-starved with the fix: the renewed lease is 3 s old at commit, not 12 s, and no warning (the lease was valid); without the fix A commits on a lease B holds', () => {
    const fixed = deriveRun(findPreset('watchdog-starved')!.withFix);
    expect(fixed.metrics.leaseAgeAtCommit).toEqual({ count: 1, meanMs: 3_000, maxMs: 3_000 });
    expect(fixed.metrics.commitsOnLostLease).toBeUndefined();
    const broken = deriveRun(findPreset('watchdog-starved')!.withoutFix);
    expect(broken.metrics.commitsOnLostLease).toBe(1);
  });
});

/**
 * The lock requests still open where the run was judged, re-derived from the trace: a scenario
 * worker whose last event is at an `acquire` step (its `step`), in a state that is still asking
 * (requesting, waiting, paused), holding nothing, that did ask (a requesting or waiting event at
 * that step: a worker paused before its first request asked nothing); its wait counted from its
 * first event at that step.
 */
function openRequests(r: DerivedRun, endMs: number): number[] {
  return r.scenario.workers.flatMap((w) => {
    const own = r.events.filter((e) => e.actor === w.id && e.state !== undefined && e.step !== undefined);
    const last = own.at(-1);
    if (!last || !['requesting', 'waiting', 'paused'].includes(last.state!) || w.steps[last.step!]?.do !== 'acquire') return [];
    if (last.beliefs?.holdsLock || last.beliefs?.ownsLease) return [];
    let i = own.length - 1;
    while (i > 0 && own[i - 1]!.step === last.step && own[i - 1]!.state !== 'idle') i--;
    // A worker paused before it sent its request (a pause at its start) asked nothing yet.
    if (!own.slice(i).some((e) => e.state === 'requesting' || e.state === 'waiting')) return [];
    return [endMs - own[i]!.atMs];
  });
}

describe('acquisition latency counts the waits never granted', () => {
  it.each(VARIANTS)('%s: every request still open at the end is counted, with its wait so far', (_n, s) => {
    const r = deriveRun(s);
    const open = openRequests(r, r.checkedToMs);
    expect(r.metrics.acquisitionStillWaiting ?? null).toEqual(open.length ? { count: open.length, maxMs: Math.max(...open) } : null);
  });

  it('over random scenarios', () => {
    for (const s of randomScenarios(200, 29)) {
      const r = deriveRun(s);
      if (r.verdict.cutShort?.reason === 'eventLimit') continue;
      const open = openRequests(r, r.checkedToMs);
      expect(r.metrics.acquisitionStillWaiting?.count ?? 0, `${s.id} ${JSON.stringify(s.faults)}`).toBe(open.length);
    }
  });

  it('pooler-session-lock without the fix: C waits 8.5 s for advisory lock 42 and never gets it — counted, though the granted max is 0 ms; at the cursor 5 s, 3.5 s so far', () => {
    const r = deriveRun(findPreset('pooler-session-lock')!.withoutFix);
    expect(r.metrics.acquisitionLatency.maxMs).toBe(0);
    expect(r.metrics.acquisitionStillWaiting).toEqual({ count: 1, maxMs: 8_500 });
    expect(metricsAt(r, 5_000).acquisitionStillWaiting).toEqual({ count: 1, maxMs: 3_500 });
    expect(metricsAt(r, 1_000).acquisitionStillWaiting).toBeUndefined();
  });
});
