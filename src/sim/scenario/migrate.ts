/**
 * Scenario schema migrations. Every scenario (file or link) carries `version`; links made today
 * must keep opening after the schema changes. When version N+1 is introduced, add
 * `MIGRATIONS[N]` (N → N+1) and bump CURRENT_SCENARIO_VERSION; `upgradeScenario` chains them.
 * A scenario newer than this build is refused with a message, never guessed at.
 */
import type { ValidationError, ValidationResult } from './validate';
import { validateScenario } from './validate';

/** The version this build writes and reads natively. */
export const CURRENT_SCENARIO_VERSION = 1;

/** Migration from version N (the key) to N + 1. Pure functions over parsed JSON. */
export const MIGRATIONS: Readonly<Record<number, (old: Record<string, unknown>) => Record<string, unknown>>> = {};

/** Brings parsed JSON up to CURRENT_SCENARIO_VERSION, or says why it cannot. Never throws. */
export function upgradeScenario(input: unknown): { ok: true; value: unknown } | { ok: false; errors: ValidationError[] } {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) return { ok: false, errors: [{ path: '(root)', message: 'must be a JSON object (a scenario)' }] };
  let value = input as Record<string, unknown>;
  const version = value.version;
  if (typeof version !== 'number' || !Number.isInteger(version) || version < 1) return { ok: false, errors: [{ path: 'version', message: `must be an integer from 1 to ${CURRENT_SCENARIO_VERSION}` }] };
  if (version > CURRENT_SCENARIO_VERSION) {
    return { ok: false, errors: [{ path: 'version', message: `is ${version}, but this Lockscope reads up to version ${CURRENT_SCENARIO_VERSION}: the scenario was made by a newer Lockscope` }] };
  }
  for (let v = version; v < CURRENT_SCENARIO_VERSION; v++) {
    const step = MIGRATIONS[v];
    if (!step) return { ok: false, errors: [{ path: 'version', message: `no migration from version ${v}` }] };
    value = step(value);
  }
  return { ok: true, value };
}

/** Upgrade, then validate: the one entry point for scenarios from outside (files, links). Never throws. */
export function parseScenario(input: unknown): ValidationResult {
  const up = upgradeScenario(input);
  return up.ok ? validateScenario(up.value) : { ok: false, errors: up.errors };
}
