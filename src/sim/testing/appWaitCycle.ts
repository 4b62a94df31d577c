/**
 * The wait cycle through the application the noWaitCycle tests start from: A holds the row lock
 * on accounts row 1 (`SELECT … FOR UPDATE`) and then waits for B's Redis lease, while B holds the
 * lease and its own `SELECT … FOR UPDATE` waits in the database for A's row lock. PostgreSQL's
 * deadlock check cannot see it (../shared/semantics.md, "PostgreSQL advisory locks"). Built on
 * balance-update without its fix; horizon 10 s.
 */
import { findPreset } from '../presets';
import type { Scenario } from '../scenario/schema';

const base = findPreset('balance-update')!.withoutFix;

/** See the module comment. */
export const appWaitCycle: Scenario = {
  ...base,
  horizonMs: 10_000,
  mechanism: { ...base.mechanism, lock: 'lease', rowLock: 'forUpdate' },
  workers: [
    { id: 'A', startMs: 0, amount: 30, steps: [{ do: 'begin' }, { do: 'read' }, { do: 'work', ms: 100 }, { do: 'acquire' }, { do: 'effect', ms: 0 }, { do: 'commit' }, { do: 'release' }] },
    { id: 'B', startMs: 10, amount: 50, steps: [{ do: 'acquire' }, { do: 'begin' }, { do: 'read' }, { do: 'effect', ms: 0 }, { do: 'commit' }, { do: 'release' }] },
  ],
  invariants: [{ kind: 'noLostUpdate' }],
};
