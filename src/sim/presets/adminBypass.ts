import { scenario, steps, variant, type Preset } from './build';

const worker = steps('begin', 'acquire', 'check', ['work', 100], ['effect', 0], ['work', 100], 'commit');
const base = scenario({
  id: 'admin-bypass',
  title: 'Admin script bypasses the advisory lock',
  description: 'The daily invoice per (account, period) is guarded only by pg_advisory_xact_lock. An admin script inserts one directly.',
  lesson: 'locks',
  horizonMs: 2_000,
  job: { kind: 'insertOnce', table: 'invoices', key: { account_id: 7, period: '2026-11' }, values: { amount: 250 } },
  mechanism: { lock: 'advisory-xact', advisoryKey: 7 },
  workers: [
    { id: 'A', startMs: 0, steps: worker },
    { id: 'B', startMs: 10, steps: worker },
  ],
  faults: [{ kind: 'adminBypass', atMs: 150 }],
  invariants: [{ kind: 'uniqueBusinessKey' }],
});

/** admin-bypass: an advisory lock is cooperative — an admin script's INSERT ignores it; only a unique key stops the duplicate. */
export const adminBypass: Preset = {
  id: 'admin-bypass',
  title: base.title,
  lesson: 'locks',
  situation: 'Workers create the daily invoice for account 7, period 2026-11, under pg_advisory_xact_lock(7): B waits for A and then finds A\'s invoice. But an admin script inserts the same invoice directly, without asking for the lock.',
  fix: 'UNIQUE (account_id, period) rejects the script\'s row',
  withoutFix: base,
  withFix: variant(base, { uniqueKey: true }),
  expected: { withoutFix: 'duplicate invoice (A\'s and the admin\'s)', withFix: '1 invoice; the admin INSERT fails with 23505' },
};
