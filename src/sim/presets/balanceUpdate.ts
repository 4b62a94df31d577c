import { scenario, steps, variant, type Preset } from './build';

const transfer = steps('begin', 'read', ['work', 50], ['effect', 0], 'commit');
const base = scenario({
  id: 'balance-update',
  title: 'Lost update on a balance',
  description: 'Two transfers read-modify-write one balance: SELECT balance, compute in the app, UPDATE with the computed value.',
  lesson: 'invariants',
  horizonMs: 1_000,
  job: { kind: 'debit', accountId: 1, initialBalance: 100 },
  workers: [
    { id: 'A', startMs: 0, amount: 30, steps: transfer },
    { id: 'B', startMs: 10, amount: 50, steps: transfer },
  ],
  invariants: [{ kind: 'noLostUpdate' }],
});

/** balance-update: read-modify-write under READ COMMITTED loses an update; SELECT … FOR UPDATE serialises the two transfers. */
export const balanceUpdate: Preset = {
  id: 'balance-update',
  title: base.title,
  lesson: 'invariants',
  situation: 'Account 1 holds 100. Transfer A debits 30, transfer B debits 50. Both read 100 before either writes; each writes its own result. The invariant: the balance equals 100 minus every committed debit.',
  fix: 'a short transaction with SELECT … FOR UPDATE',
  withoutFix: base,
  withFix: variant(base, { rowLock: 'forUpdate' }),
  expected: { withoutFix: 'lost update: balance 50 instead of 20', withFix: 'balance 20; B\'s SELECT … FOR UPDATE waits for A' },
};
