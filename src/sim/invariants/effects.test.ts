/**
 * What counts as a performed effect, and as a duplicate, in the catalogue's runs (effects.ts's
 * definition): the verdict's effectOnce, the duplicate-effects metric and the timeline's DUPLICATE
 * marks all read it, so who performed which effect, when, for which business key and as the
 * how-manieth is pinned here preset by preset, without and with the fix.
 */
import { findPreset } from '../presets';
import { runScenario } from '../engine/run';
import type { Scenario } from '../scenario/schema';
import { duplicateEffects, performedEffects } from './effects';

/** The effects of a run as `event at ms by worker: business key (write id) #nth`. */
function effectsOf(s: Scenario): string[] {
  const r = runScenario(s);
  return performedEffects(s, r.events).map((e) => `${e.eventId} at ${e.atMs} by ${e.worker}: ${e.businessKey}${e.writeId === null ? '' : ` (write ${e.writeId})`} #${e.nth}`);
}
const variant = (id: string, v: 'withoutFix' | 'withFix'): Scenario => findPreset(id)![v];

describe('performed effects: an insertOnce job\'s committed rows for its business key', () => {
  it('invoice-race: each COMMIT that makes a row for order 42 visible is an effect; with the UNIQUE key the loser\'s 23505 commits nothing', () => {
    expect(effectsOf(variant('invoice-race', 'withoutFix'))).toEqual(['e13 at 100 by A: order_id = 42 #1', 'e16 at 120 by B: order_id = 42 #2']);
    expect(effectsOf(variant('invoice-race', 'withFix'))).toEqual(['e12 at 100 by A: order_id = 42 #1']);
  });

  it('admin-bypass: the admin script\'s autocommitted INSERT counts as the admin\'s effect; a key of two columns, a text value quoted', () => {
    expect(effectsOf(variant('admin-bypass', 'withoutFix'))).toEqual([
      'e12 at 150 by admin: account_id = 7 and period = \'2026-11\' #1',
      'e13 at 200 by A: account_id = 7 and period = \'2026-11\' #2',
    ]);
    expect(effectsOf(variant('admin-bypass', 'withFix'))).toEqual(['e13 at 200 by A: account_id = 7 and period = \'2026-11\' #1']);
  });

  it('rows for another business key are not this job\'s effect: every key column must match, not one of them', () => {
    const s = variant('admin-bypass', 'withoutFix');
    const r = runScenario(s);
    // The same trace read for the period 2026-12 of account 7: the rows of 2026-11 share the account, not the period.
    const december: Scenario = { ...s, job: { ...s.job, key: { account_id: 7, period: '2026-12' } } as Scenario['job'] };
    expect(performedEffects(december, r.events)).toEqual([]);
  });
});

describe('performed effects: an external job\'s writes the destination performed', () => {
  it('an API call is performed when the API receives it: fence-ignored\'s two e-mails, the second deduplicated by its idempotency key with the fix', () => {
    expect(effectsOf(variant('fence-ignored', 'withoutFix'))).toEqual(['e38 at 35000 by B: report-email-2026-11-30 (write 1) #1', 'e43 at 45000 by A: report-email-2026-11-30 (write 2) #2']);
    expect(effectsOf(variant('fence-ignored', 'withFix'))).toEqual(['e38 at 35000 by B: report-email-2026-11-30 (write 1) #1']);
  });

  it('an upload is performed when it completes and is accepted: export-lease-expiry\'s stale upload rejected by the fencing token performs nothing', () => {
    expect(effectsOf(variant('export-lease-expiry', 'withoutFix'))).toEqual(['e39 at 55000 by B: export-2026-11-30 (write 1) #1', 'e42 at 65000 by A: export-2026-11-30 (write 2) #2']);
    expect(effectsOf(variant('export-lease-expiry', 'withFix'))).toEqual(['e44 at 55000 by B: export-2026-11-30 (write 1) #1']);
  });

  it('crash-after-effect: the retry after the crash charges again; the idempotency key makes the retry a replay', () => {
    expect(effectsOf(variant('crash-after-effect', 'withoutFix'))).toEqual(['e3 at 0 by A: charge-order-42 (write 1) #1', 'e10 at 2500 by A: charge-order-42 (write 2) #2']);
    expect(effectsOf(variant('crash-after-effect', 'withFix'))).toEqual(['e3 at 0 by A: charge-order-42 (write 1) #1']);
  });

  it('the duplicates are the effects after the first for their key', () => {
    const s = variant('thumbnail', 'withoutFix');
    const r = runScenario(s);
    expect(effectsOf(s)).toEqual(['e5 at 300 by A: thumb-42 (write 1) #1', 'e7 at 350 by B: thumb-42 (write 2) #2']);
    expect(duplicateEffects(s, r.events).map((d) => `${d.eventId} ${d.worker} #${d.nth}`)).toEqual(['e7 B #2']);
  });
});
