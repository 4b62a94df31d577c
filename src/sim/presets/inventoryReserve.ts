import { scenario, steps, variant, type Preset } from './build';

const reserve = steps('begin', 'read', ['work', 50], ['effect', 0], ['work', 20], 'commit');
const base = scenario({
  id: 'inventory-reserve',
  title: 'Overselling the last item',
  description: 'Two customers reserve the last unit of item 7 at the same time: each reads stock = 1, then decrements it.',
  lesson: 'invariants',
  horizonMs: 1_000,
  job: { kind: 'reserve', itemId: 7, initialStock: 1, quantity: 1 },
  workers: [
    { id: 'A', startMs: 0, steps: reserve },
    { id: 'B', startMs: 10, steps: reserve },
  ],
  invariants: [{ kind: 'noOversell' }],
});

/** inventory-reserve: both see stock 1 and both decrement; a row lock (or CHECK (stock >= 0)) stops the oversell. */
export const inventoryReserve: Preset = {
  id: 'inventory-reserve',
  title: base.title,
  lesson: 'invariants',
  situation: 'Item 7 has one unit left. Two reservations read stock = 1, and both run UPDATE items SET stock = stock - 1. The second UPDATE waits for the first transaction, then applies to the new value: stock becomes -1.',
  fix: 'a row lock (SELECT … FOR UPDATE), or CHECK (stock >= 0)',
  withoutFix: base,
  withFix: variant(base, { rowLock: 'forUpdate' }),
  expected: { withoutFix: 'oversold: stock -1', withFix: 'B waits, reads 0, reserves nothing' },
};

/** The other fix of inventory-reserve: CHECK (stock >= 0) makes the second UPDATE fail with 23514. */
export const inventoryReserveCheck = variant(base, { checkConstraint: true });
