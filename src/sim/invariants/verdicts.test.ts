/**
 * Issue 8, "Verdicts": mutual exclusion is judged on what workers do (their protected steps),
 * whatever the mechanism — `lock: none` included; one incident yields one finding; wasted work
 * counts the time an interrupted step ran.
 */
import { runScenario } from '../engine/run';
import { findPreset } from '../presets';
import { scenario, steps } from '../presets/build';
import type { Scenario } from '../scenario/schema';
import { protectedSteps } from './coordination';

const preset = (id: string, fixed = false): Scenario => {
  const p = findPreset(id);
  if (!p) throw new Error(`no preset ${id}`);
  return fixed ? p.withFix : p.withoutFix;
};
const lockNone = (s: Scenario): Scenario => ({ ...s, mechanism: { ...s.mechanism, lock: 'none' } });
const withMutex = (s: Scenario): Scenario => ({ ...s, invariants: [...s.invariants.filter((i) => i.kind !== 'mutualExclusion'), { kind: 'mutualExclusion' }] });

describe('mutualExclusion judges overlapping protected steps, not beliefs', () => {
  it('the protected steps are those between acquire and release that do work; a debit/reserve job without acquire protects read … commit', () => {
    const job = { kind: 'external', jobKey: 'k' } as const;
    expect([...protectedSteps(steps('connect', 'acquire', ['work', 1], ['effect', 1], 'record', 'release', ['work', 1], 'disconnect'), job)]).toEqual([2, 3, 4]);
    expect([...protectedSteps(steps('acquire', ['work', 1]), job)]).toEqual([1]);
    expect([...protectedSteps(steps(['work', 1], ['effect', 1]), job)]).toEqual([]);
    const debit = { kind: 'debit', accountId: 1, initialBalance: 100 } as const;
    expect([...protectedSteps(steps('begin', 'read', ['work', 1], ['effect', 0], 'commit', ['work', 1]), debit)]).toEqual([1, 2, 3]);
    // With an acquire step, the author's acquire … release is the section, for a debit job too.
    expect([...protectedSteps(steps('begin', 'read', 'acquire', ['effect', 0], 'release', 'commit'), debit)]).toEqual([3]);
  });

  it('unsafe-release with Lock "none": A, B and C work at once — violated, one finding naming all three', () => {
    const r = runScenario(lockNone(preset('unsafe-release')));
    expect(r.events.some((e) => e.kind === 'redis')).toBe(false);
    expect(r.verdict.status).toBe('violated');
    expect(r.verdict.violations.map((v) => v.message)).toEqual(['A, B and C were inside the critical section at the same time (from 1 s)']);
    const entered = ['A', 'B', 'C'].map((id) => r.events.find((e) => e.actor === id && e.kind === 'step')!.id);
    expect(r.verdict.violations[0]!.eventIds).toEqual(entered);
  });

  it('session-lock-pool with Lock "none": B and C work at once (A\'s job fails first) — violated', () => {
    const r = runScenario(lockNone(preset('session-lock-pool')));
    expect(r.events.some((e) => (e.command ?? '').includes('pg_advisory'))).toBe(false);
    expect(r.verdict.violations.map((v) => `${v.invariant}: ${v.message}`)).toEqual(['mutualExclusion: B and C were inside the critical section at the same time (from 200 ms)']);
  });

  it('export-lease-expiry with Lock "none": A and B work at once; the verdict says so when it checks mutual exclusion, and names the repeated upload either way', () => {
    const s = lockNone(preset('export-lease-expiry'));
    const r = runScenario(withMutex(s));
    expect(r.verdict.violations.map((v) => v.message)).toEqual(['A and B were inside the critical section at the same time (from 1 s)']);
    const plain = runScenario(s);
    // Its own invariants (no overlapping uploads, no stale token) hold: B uploads 6–26 s, A 45–65 s.
    expect(plain.verdict.status).toBe('held');
    expect(plain.verdict.summary).toBe('Held: exports/2026-11-30.csv (job key export-2026-11-30) was performed 2 times — a duplicate this scenario\'s invariants do not check.');
    expect(plain.metrics.duplicateEffects).toBe(1);
  });

  it('with their fixes, unsafe-release and session-lock-pool hold: the lock keeps the protected steps apart', () => {
    expect(runScenario(preset('unsafe-release', true)).verdict.status).toBe('held');
    expect(runScenario(preset('session-lock-pool', true)).verdict.status).toBe('held');
  });

  it('export-lease-expiry with its fix still has A working while B uploads: fencing saves the file, not mutual exclusion', () => {
    // A resumes at 43 s inside its work step (the lease expired under it) while B uploads.
    const r = runScenario(withMutex(preset('export-lease-expiry', true)));
    expect(r.verdict.violations.map((v) => `${v.invariant}: ${v.message}`)).toEqual(['mutualExclusion: A and B were inside the critical section at the same time (from 43 s)']);
  });

  it('work after the release is not protected: two workers doing it at once overlap no one, whatever the lock', () => {
    for (const lock of ['none', 'advisory-session', 'lease'] as const) {
      const s = scenario({
        id: 'x', title: 'x', description: '', lesson: 'locks', horizonMs: 10_000,
        job: { kind: 'external', jobKey: 'k' },
        mechanism: { lock },
        workers: ['A', 'B'].map((id) => ({ id, startMs: 0, steps: steps('connect', 'acquire', 'release', ['work', 1_000], 'disconnect') })),
        invariants: [{ kind: 'mutualExclusion' }],
      });
      const r = runScenario(s);
      expect(r.events.filter((e) => e.kind === 'step').map((e) => e.atMs)).toEqual([0, 0]);
      expect(r.verdict.status).toBe('held');
    }
  });
});

describe('one incident, one finding', () => {
  it('three overlapping uploads are one noOverlappingWrites finding, revised as each completes', () => {
    const s = scenario({
      id: 'x', title: 'x', description: '', lesson: 'leases', horizonMs: 60_000,
      job: { kind: 'external', jobKey: 'export-1' },
      workers: ['A', 'B', 'C'].map((id, i) => ({ id, startMs: i * 1_000, steps: steps(['effect', 10_000]) })),
      invariants: [{ kind: 'noOverlappingWrites' }],
    });
    const heard: string[] = [];
    const r = runScenario(s, { onFinding: (f) => { if (f.invariant === 'noOverlappingWrites') heard.push(f.message); } });
    expect(r.verdict.violations.map((v) => v.message)).toEqual(['A\'s, B\'s and C\'s writes to exports/2026-11-30.csv overlapped from 1 s to 11 s, and all were accepted']);
    expect(heard).toEqual([
      'A\'s and B\'s writes to exports/2026-11-30.csv overlapped from 1 s to 10 s, and both were accepted',
      'A\'s, B\'s and C\'s writes to exports/2026-11-30.csv overlapped from 1 s to 11 s, and all were accepted',
    ]);
    const begins = r.events.filter((e) => e.data?.t === 'write' && e.data.phase === 'begin').map((e) => e.id);
    expect(r.verdict.violations[0]!.eventIds).toEqual(expect.arrayContaining(begins));
  });

  it('two separate overlaps are two findings', () => {
    const s = scenario({
      id: 'x', title: 'x', description: '', lesson: 'leases', horizonMs: 60_000,
      job: { kind: 'external', jobKey: 'export-1' },
      workers: [['A', 0], ['B', 1_000], ['C', 20_000], ['D', 21_000]].map(([id, startMs]) => ({ id: String(id), startMs: Number(startMs), steps: steps(['effect', 5_000]) })),
      invariants: [{ kind: 'noOverlappingWrites' }, { kind: 'mutualExclusion' }],
    });
    // No acquire step: no protected steps, so mutual exclusion has nothing to judge.
    expect(runScenario(s).verdict.violations.map((v) => v.invariant)).toEqual(['noOverlappingWrites', 'noOverlappingWrites']);
  });
});

describe('wasted work counts the time an interrupted step ran', () => {
  const crashing = (pauseMs: number | null): Scenario => scenario({
    id: 'x', title: 'x', description: '', lesson: 'recovery', horizonMs: 60_000,
    job: { kind: 'external', jobKey: 'k' },
    workers: [{ id: 'A', startMs: 0, steps: steps(['work', 1_000], ['work', 10_000], ['effect', 100]) }],
    faults: [
      ...(pauseMs === null ? [] : [{ kind: 'pause' as const, worker: 'A', atMs: 2_000, pauseMs }]),
      { kind: 'crash', worker: 'A', atMs: 4_000 + (pauseMs ?? 0), restartAfterMs: null },
    ],
    invariants: [{ kind: 'effectOnce', harmless: false }],
  });

  it('a crash 3 s into a planned 10 s step wastes 1 s + 3 s, not 11 s', () => {
    expect(runScenario(crashing(null)).metrics.wastedWorkMs).toBe(4_000);
  });

  it('time paused inside the step is not work', () => {
    // Paused 2–7 s, crashed at 9 s: the second step ran 1–2 s and 7–9 s.
    expect(runScenario(crashing(5_000)).metrics.wastedWorkMs).toBe(4_000);
  });

  it('a crash after the step completed counts its whole length once', () => {
    const s = crashing(null);
    expect(runScenario({ ...s, faults: [{ kind: 'crash', worker: 'A', atMs: 11_050, restartAfterMs: null }] }).metrics.wastedWorkMs).toBe(11_000);
  });
});
