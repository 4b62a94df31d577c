import { scenario, steps, variant, type Preset } from './build';

const base = scenario({
  id: 'invoice-race',
  title: 'Invoice race: check-then-insert',
  description: 'Two requests create the invoice for order 42. Each SELECTs for an existing invoice, finds none, and INSERTs one.',
  lesson: 'invariants',
  horizonMs: 1_000,
  job: { kind: 'insertOnce', table: 'invoices', key: { order_id: 42 }, values: { amount: 100 } },
  workers: [
    { id: 'A', startMs: 0, steps: steps('begin', 'check', ['work', 50], ['effect', 0], ['work', 50], 'commit') },
    { id: 'B', startMs: 20, steps: steps('begin', 'check', ['work', 50], ['effect', 0], ['work', 50], 'commit') },
  ],
  invariants: [{ kind: 'uniqueBusinessKey' }],
});

/** invoice-race: SELECT-then-INSERT creates two invoices; a unique key on order_id makes the second insert wait, fail with 23505, and load the winner's row. */
export const invoiceRace: Preset = {
  id: 'invoice-race',
  title: base.title,
  lesson: 'invariants',
  situation: 'Two requests for order 42 arrive 20 ms apart. Each checks whether an invoice exists, sees none (the other has not committed), and inserts one. The invariant: one invoice per order.',
  fix: 'UNIQUE (order_id): the second INSERT waits, gets 23505, and loads the winner\'s invoice',
  withoutFix: base,
  withFix: variant(base, { uniqueKey: true }),
  expected: { withoutFix: '2 invoices for order 42', withFix: '1 invoice; B waits, gets 23505, loads A\'s row' },
};
