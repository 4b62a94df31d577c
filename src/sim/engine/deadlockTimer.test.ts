/**
 * The engine's deadlock timer (issue 17): one PostgreSQL `deadlock_timeout` check per database
 * wait, `database.deadlockTimeoutMs` after the wait began; the waiter whose timer fires while the
 * cycle exists gets 40P01 and its job fails; the others proceed.
 */
import { findPreset } from '../presets';
import { runScenario, type RunResult } from './run';
import type { Scenario, Step } from '../scenario/schema';

const base = findPreset('lock-order-deadlock')!.withoutFix;
const job = (first: number, second: number, workMs: number): Step[] => [
  { do: 'begin' }, { do: 'acquire', advisoryKey: first }, { do: 'work', ms: workMs }, { do: 'acquire', advisoryKey: second }, { do: 'read' }, { do: 'effect', ms: 0 }, { do: 'commit' },
];
const errors = (r: RunResult) => r.events.filter((e) => (e.reply ?? '').startsWith('ERROR')).map((e) => `${e.atMs} ${e.actor} ${e.reply!.slice(0, 29)}`);

describe('deadlock timer', () => {
  it('checks each wait once: a cycle closed after the first waiter\'s timer fired is broken by the second waiter\'s timer', () => {
    // A waits for lock 2 from 100 ms; its check at 1,100 ms finds no cycle (B is still working).
    // B asks for lock 1 at 1,510 ms and closes the cycle; B's own check at 2,510 ms fails B.
    const s: Scenario = { ...base, horizonMs: 5_000, workers: [{ ...base.workers[0]!, steps: job(1, 2, 100) }, { ...base.workers[1]!, steps: job(2, 1, 1_500) }] };
    const r = runScenario(s);
    expect(errors(r)).toEqual(['2510 B ERROR 40P01 deadlock detected']);
    const a = r.events.filter((e) => e.actor === 'A' && e.command === 'SELECT pg_advisory_xact_lock(2)');
    expect(a.map((e) => `${e.atMs} ${e.reply}`)).toEqual(['100 waits (advisory lock 2 held by session c2)', '2510 (void)']);
    expect(r.events.filter((e) => e.kind === 'outcome').map((e) => `${e.atMs} ${e.narration}`)).toContain('2510 A is done: it completed the job.');
  });

  it('a wait that ends before its timer leaves no trace of the check', () => {
    const r = runScenario(findPreset('lock-order-deadlock')!.withFix);
    expect(errors(r)).toEqual([]);
    expect(r.events.some((e) => e.narration.includes('deadlock'))).toBe(false);
  });

  it('the timer is the server\'s: pausing the waiting worker does not move the 40P01', () => {
    const s: Scenario = { ...base, faults: [{ kind: 'pause', worker: 'A', atMs: 500, pauseMs: 2_000 }], horizonMs: 5_000 };
    const r = runScenario(s);
    expect(errors(r)).toEqual(['1100 A ERROR 40P01 deadlock detected']);
  });

  it('a deadlock timer whose wait has ended does not move the end of the run', () => {
    const r = runScenario(findPreset('lock-order-deadlock')!.withFix);
    expect(r.endMs).toBe(r.events.at(-1)!.atMs); // B's wait (10–150 ms) had a timer due at 1,010 ms
  });

  it('a check that finds no cycle leaves the waiter waiting (a wait with no cycle is no deadlock)', () => {
    const r = runScenario(findPreset('session-lock-pool')!.withoutFix);
    expect(r.events.some((e) => (e.reply ?? '').includes('40P01'))).toBe(false);
    expect(r.verdict.violations.map((v) => v.message)).toEqual([expect.stringContaining('C was still waiting for a lock when the run ended')]);
  });

  it('is deterministic: the same scenario gives the same trace', () => {
    expect(runScenario(base).traceHash).toBe(runScenario(JSON.parse(JSON.stringify(base)) as Scenario).traceHash);
  });
});
