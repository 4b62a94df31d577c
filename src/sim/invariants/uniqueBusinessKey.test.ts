/**
 * uniqueBusinessKey (at most one committed row per business key) cites the INSERTs into the job's
 * table and the statement that made the second row visible — no other table's INSERT — and counts
 * only the rows of its business key.
 */
import { findPreset } from '../presets';
import { runScenario } from '../engine/run';
import type { Scenario } from '../scenario/schema';
import { checkTrace } from './index';

const race = findPreset('invoice-race')!.withoutFix;

describe('uniqueBusinessKey', () => {
  it('cites the INSERTs into invoices and the COMMIT that made the second row visible, not the job records written into jobs', () => {
    // Each request also records its job as done in the jobs table, in the same transaction.
    const s: Scenario = { ...race, workers: race.workers.map((w) => ({ ...w, steps: [...w.steps.slice(0, -1), { do: 'record' as const }, w.steps.at(-1)!] })) };
    const r = runScenario(s);
    const cited = r.verdict.violations.map((v) => ({ message: v.message, cites: v.eventIds.map((id) => r.events.find((e) => e.id === id)!.command) }));
    expect(cited).toEqual([{
      message: '2 rows exist for order_id = 42 in invoices',
      cites: ['INSERT INTO invoices (order_id, amount) VALUES (42, 100) RETURNING id', 'INSERT INTO invoices (order_id, amount) VALUES (42, 100) RETURNING id', 'COMMIT'],
    }]);
    // The jobs INSERTs happened, and succeeded.
    expect(r.events.filter((e) => (e.command ?? '').startsWith('INSERT INTO jobs')).map((e) => e.reply)).toEqual(['INSERT 0 1', 'INSERT 0 1']);
  });

  it('counts only its business key\'s rows: the same trace judged for another period of account 7 holds', () => {
    const s = findPreset('admin-bypass')!.withoutFix;
    const r = runScenario(s);
    expect(r.verdict.violations.filter((v) => v.invariant === 'uniqueBusinessKey').map((v) => v.message)).toEqual(['2 rows exist for account_id = 7 and period = \'2026-11\' in invoices']);
    const december: Scenario = { ...s, job: { ...s.job, key: { account_id: 7, period: '2026-12' } } as Scenario['job'] };
    expect(checkTrace(december, r.events).filter((f) => f.invariant === 'uniqueBusinessKey')).toEqual([]);
  });

  it('a third row revises the one finding as it happens: the listener hears the first, then its replacement', () => {
    const s: Scenario = { ...race, workers: [...race.workers, { id: 'C', startMs: 40, steps: race.workers[0]!.steps }] };
    const heard: string[] = [];
    const r = runScenario(s, { onFinding: (f, replaced) => heard.push(`${replaced === null ? 'new' : `replaces "${replaced.message}"`}: ${f.message}`) });
    expect(heard.filter((h) => h.includes('rows exist'))).toEqual([
      'new: 2 rows exist for order_id = 42 in invoices',
      'replaces "2 rows exist for order_id = 42 in invoices": 3 rows exist for order_id = 42 in invoices',
    ]);
    expect(r.verdict.violations.map((v) => v.message)).toEqual(['3 rows exist for order_id = 42 in invoices']);
  });
});
