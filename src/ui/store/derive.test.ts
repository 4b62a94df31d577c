import { describe, expect, it } from 'vitest';
import { findPreset } from '../../sim';
import { deriveRun, runEndMs } from './derive';

const run = (id: string, fixed = false) => {
  const p = findPreset(id)!;
  return deriveRun(fixed ? p.withFix : p.withoutFix);
};

describe('runEndMs', () => {
  it('ends a SQL race at its last statement, not at a 1 s floor', () => {
    for (const id of ['invoice-race', 'balance-update', 'inventory-reserve', 'admin-bypass']) {
      const r = run(id);
      expect(runEndMs(r)).toBe(r.events.at(-1)!.atMs);
      expect(runEndMs(r)).toBeLessThan(250);
    }
  });

  it('runs to the horizon when a worker is still waiting at the end', () => {
    const r = run('session-lock-pool');
    expect(r.snapshots.at(-1)!.workers.some((w) => w.state === 'waiting')).toBe(true);
    expect(runEndMs(r)).toBe(r.scenario.horizonMs);
  });

  it('covers every event the verdict cites', () => {
    for (const id of ['export-lease-expiry', 'renew-partition', 'invoice-race', 'remote-call-in-txn']) {
      const r = run(id);
      const cited = [...r.verdict.violations, ...r.verdict.notes].flatMap((f) => f.eventIds).map((e) => r.events.find((x) => x.id === e)!.atMs);
      expect(Math.max(...cited)).toBeLessThanOrEqual(runEndMs(r));
    }
  });
});

describe('runEndMs of a run cut short', () => {
  it('ends where the verdict says the run stopped: a 10 s pause in invoice-race runs to the 1 s horizon, not to the last event at 120 ms (newcomer review)', () => {
    const base = findPreset('invoice-race')!.withoutFix;
    const run = deriveRun({ ...base, faults: [{ kind: 'pause', worker: 'A', atMs: 50, pauseMs: 10_000 }] });
    expect(run.verdict.status).toBe('inconclusive');
    expect(run.verdict.cutShort?.reason).toBe('horizon');
    expect(run.events.at(-1)!.atMs).toBeLessThan(base.horizonMs);
    expect(runEndMs(run)).toBe(run.verdict.cutShort!.atMs);
    expect(runEndMs(run)).toBe(base.horizonMs);
  });
});
