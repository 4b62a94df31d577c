/**
 * Scenario schema migrations. Every scenario (file or link) carries `version`; links made today
 * must keep opening after the schema changes. When version N+1 is introduced, add
 * `MIGRATIONS[N]` (N → N+1) and bump CURRENT_SCENARIO_VERSION; `upgradeScenario` chains them.
 * A scenario newer than this build is refused with a message, never guessed at.
 */
import type { ValidationError, ValidationResult } from './validate';
import { validateScenario } from './validate';
import { DEFAULT_CLIENT } from './schema';

/** The version this build writes and reads natively. */
export const CURRENT_SCENARIO_VERSION = 2;

/**
 * Migration from version N (the key) to N + 1. Pure functions over parsed JSON.
 * 1 → 2: adds `client` with the defaults that reproduce version 1 (wait for the lock, ignore the
 * release's reply, renew from the grant without a margin); nothing else changes, so a version-1
 * scenario gives the same trace, byte for byte, and the same trace hash.
 */
export const MIGRATIONS: Readonly<Record<number, (old: Record<string, unknown>) => Record<string, unknown>>> = {
  1: (old) => ({ ...old, version: 2, client: { ...DEFAULT_CLIENT } }),
};

/** Database settings that version 2 introduced (server timeouts, isolation, the retry policy). */
const V2_DATABASE_FIELDS = ['statementTimeoutMs', 'idleInTransactionSessionTimeoutMs', 'isolation', 'serializationRetries'] as const;

/** Fault kinds that version 2 introduced (a version-1 scenario cannot name them). */
const FAULT_KINDS_SINCE_V2 = new Set(['renewalStall', 'shutdown']);
/** Queue steps and invariants that version 2 introduced. */
const STEPS_SINCE_V2 = new Set(['receive', 'markClaimed', 'extendVisibility', 'ack']);
const INVARIANTS_SINCE_V2 = new Set(['jobCompletesWithin', 'oneClaimPerJob']);

/**
 * What a version-`version` scenario uses that only a later version has (`client`, the `pexpire`
 * renewal, the `renewalStall` fault, `mechanism.fenceSource`, the `fencedRow` job, `database.pooler`, `processes`, a worker's
 * `process`, a step's `helper`), each with its path: such a file says `"version": 1` but was
 * not written for version 1, so it is refused rather than guessed at.
 */
export function laterVersionFields(value: Record<string, unknown>, version: number): ValidationError[] {
  if (version >= 2) return [];
  const errors: ValidationError[] = [];
  const since2 = 'exists only in scenario version 2: set "version": 2';
  if ('client' in value) errors.push({ path: 'client', message: since2 });
  if ('queue' in value) errors.push({ path: 'queue', message: since2 });
  if ('processes' in value) errors.push({ path: 'processes', message: since2 });
  if (Array.isArray(value.workers)) {
    value.workers.forEach((w: unknown, i) => {
      if (typeof w === 'object' && w !== null && 'process' in w) errors.push({ path: `workers[${i}].process`, message: since2 });
      const steps = typeof w === 'object' && w !== null ? (w as Record<string, unknown>).steps : undefined;
      if (!Array.isArray(steps)) return;
      steps.forEach((st: unknown, j) => {
        const d = typeof st === 'object' && st !== null ? (st as Record<string, unknown>).do : undefined;
        if (typeof d === 'string' && STEPS_SINCE_V2.has(d)) errors.push({ path: `workers[${i}].steps[${j}].do`, message: `"${d}" ${since2}` });
      });
    });
  }
  if (Array.isArray(value.invariants)) {
    value.invariants.forEach((inv: unknown, i) => {
      const kind = typeof inv === 'object' && inv !== null ? (inv as Record<string, unknown>).kind : undefined;
      if (typeof kind === 'string' && INVARIANTS_SINCE_V2.has(kind)) errors.push({ path: `invariants[${i}].kind`, message: `"${kind}" ${since2}` });
    });
  }
  const m = value.mechanism;
  const renewal = typeof m === 'object' && m !== null ? (m as Record<string, unknown>).renewal : undefined;
  if (renewal === 'pexpire' || renewal === 'set-px') errors.push({ path: 'mechanism.renewal', message: `"${renewal}" ${since2}` });
  const db = value.database;
  if (typeof db === 'object' && db !== null) {
    for (const field of V2_DATABASE_FIELDS) if (field in db) errors.push({ path: `database.${field}`, message: since2 });
  }
  if (Array.isArray(value.workers)) {
    value.workers.forEach((w: unknown, i) => {
      const steps = typeof w === 'object' && w !== null ? (w as Record<string, unknown>).steps : undefined;
      if (!Array.isArray(steps)) return;
      steps.forEach((st: unknown, j) => {
        if (typeof st === 'object' && st !== null && 'isolation' in st) errors.push({ path: `workers[${i}].steps[${j}].isolation`, message: since2 });
        if (typeof st === 'object' && st !== null && 'helper' in st) errors.push({ path: `workers[${i}].steps[${j}].helper`, message: since2 });
      });
    });
  }
  if (typeof m === 'object' && m !== null && 'fenceSource' in m) errors.push({ path: 'mechanism.fenceSource', message: since2 });
  const job = value.job;
  const jobKind = typeof job === 'object' && job !== null ? (job as Record<string, unknown>).kind : undefined;
  if (jobKind === 'fencedRow') errors.push({ path: 'job.kind', message: `"fencedRow" ${since2}` });
  if (typeof db === 'object' && db !== null && 'pooler' in db) errors.push({ path: 'database.pooler', message: since2 });
  if (Array.isArray(value.faults)) {
    value.faults.forEach((f: unknown, i) => {
      const kind = typeof f === 'object' && f !== null ? (f as Record<string, unknown>).kind : undefined;
      if (typeof kind === 'string' && FAULT_KINDS_SINCE_V2.has(kind)) errors.push({ path: `faults[${i}].kind`, message: `"${kind}" ${since2}` });
    });
  }
  return errors;
}

/** Brings parsed JSON up to CURRENT_SCENARIO_VERSION, or says why it cannot. Never throws. */
export function upgradeScenario(input: unknown): { ok: true; value: unknown } | { ok: false; errors: ValidationError[] } {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) return { ok: false, errors: [{ path: '(root)', message: 'must be a JSON object (a scenario)' }] };
  let value = input as Record<string, unknown>;
  const version = value.version;
  if (typeof version !== 'number' || !Number.isInteger(version) || version < 1) return { ok: false, errors: [{ path: 'version', message: `must be an integer from 1 to ${CURRENT_SCENARIO_VERSION}` }] };
  if (version > CURRENT_SCENARIO_VERSION) {
    return { ok: false, errors: [{ path: 'version', message: `is ${version}, but this Lockscope reads up to version ${CURRENT_SCENARIO_VERSION}: the scenario was made by a newer Lockscope` }] };
  }
  const later = laterVersionFields(value, version);
  if (later.length > 0) return { ok: false, errors: later };
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
