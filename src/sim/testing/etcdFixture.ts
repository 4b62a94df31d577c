/**
 * Test support (imported by tests only, never by the app): the etcd example file
 * (scenario/fixtures/scenario-v2-etcd.json, README "Scenario format, version 2") and a run of a
 * variant of it, shared by the etcd lease tests (workers/etcdLease.test.ts, etcdLease.paths.test.ts).
 */
import fixture from '../scenario/fixtures/scenario-v2-etcd.json';
import { parseScenario } from '../scenario/migrate';
import { runScenario, type RunResult } from '../engine/run';

/** The ids etcd gives the fixture's first two leases: A's, granted first, and B's. */
export const LEASE_A = '694d71ddacfda227';
export const LEASE_B = '694d71ddacfda229';

/**
 * The fixture with `edit` applied to a deep copy (a plain object: any field may be changed or
 * deleted), validated and run. Throws when the edited scenario does not validate.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- an edit may reshape any field of the raw scenario file
export function runEtcdVariant(edit: (s: any) => void = () => undefined): RunResult {
  const s = structuredClone(fixture) as Record<string, unknown>;
  edit(s);
  const parsed = parseScenario(s);
  if (!parsed.ok) throw new Error(`invalid variant: ${JSON.stringify(parsed.errors)}`);
  return runScenario(parsed.scenario);
}
