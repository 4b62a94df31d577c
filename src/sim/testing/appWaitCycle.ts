/**
 * The wait cycle through the application the noWaitCycle tests start from: A holds the row lock
 * on accounts row 1 (`SELECT … FOR UPDATE`) and then waits for B's Redis lease, while B holds the
 * lease and its own `SELECT … FOR UPDATE` waits in the database for A's row lock. PostgreSQL's
 * deadlock check cannot see it (../shared/semantics.md, "PostgreSQL advisory locks"). Built on
 * balance-update without its fix; horizon 10 s.
 */
import { findPreset } from '../presets';
import type { Scenario } from '../scenario/schema';
import { runScenario } from '../engine/run';
import { checkTrace } from '../invariants';

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

/** The opening of `appWaitCycle`'s noWaitCycle finding (what follows says whether, and how, it ended). */
export const APP_CYCLE_STUCK = 'stuck: wait cycle A→B→A (A waits for B\'s lease lease:export; B waits for row lock on accounts row id=1 held by A (session c1), in the database); PostgreSQL cannot see the wait outside the database';

/**
 * Runs `s` and returns its noWaitCycle findings, each with the events it cites as "ms actor";
 * asserts (Vitest's `expect`) that re-checking the stored trace (`checkTrace`) gives the same findings.
 */
export function waitCycleFindings(s: Scenario) {
  const r = runScenario(s);
  const found = r.verdict.violations.filter((v) => v.invariant === 'noWaitCycle');
  expect(checkTrace(s, r.events).filter((f) => f.invariant === 'noWaitCycle')).toEqual(found);
  return found.map((f) => ({ message: f.message, cited: f.eventIds.map((id) => { const e = r.events.find((x) => x.id === id)!; return `${e.atMs} ${e.actor}`; }), cycle: f.cycle }));
}
