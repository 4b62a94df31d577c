/**
 * The database tables a scenario needs, derived from its job and mechanism: the business table
 * (with or without the UNIQUE constraint / CHECK the mechanism switches on; a fenced row with its
 * `fence` column) and the `jobs` table for durable job records; and the sequences.
 */
import type { Row, SqlValue, TableSpec } from '../resources/sqlTypes';
import type { Scenario } from '../scenario/schema';

/** The sequence a `db-sequence` fencing token comes from (`mechanism.fenceSource`). */
export const FENCE_SEQUENCE = 'fence_seq';

/** The `jobs` table: one durable record per job key (`pending` → `done`). */
export const JOBS_TABLE: TableSpec = {
  name: 'jobs',
  columns: [
    { name: 'job_key', type: 'text' },
    { name: 'status', type: 'text' },
  ],
  primaryKey: ['job_key'],
};

function typeOf(v: SqlValue): 'bigint' | 'text' {
  return typeof v === 'number' ? 'bigint' : 'text';
}

/**
 * A table queue's table (version 2): `id`, `status` ('pending' → 'running' → 'done') and
 * `claimed_by`, with the one pending job row.
 */
export function queueTableFor(s: Scenario): TableSpec | null {
  const q = s.queue;
  if (q === undefined || q.kind !== 'table') return null;
  return {
    name: q.table,
    columns: [{ name: 'id', type: 'bigint' }, { name: 'status', type: 'text' }, { name: 'claimed_by', type: 'text' }],
    primaryKey: ['id'],
    initialRows: [{ id: q.jobId, status: 'pending', claimed_by: null }],
  };
}

/** Tables for the scenario, in creation order (a table queue's table last). */
export function tablesFor(s: Scenario): TableSpec[] {
  const queue = queueTableFor(s);
  const tables = jobTablesFor(s);
  return queue === null ? tables : [...tables, queue];
}

function jobTablesFor(s: Scenario): TableSpec[] {
  const job = s.job;
  const m = s.mechanism;
  switch (job.kind) {
    case 'insertOnce': {
      const keyCols = Object.keys(job.key);
      const row: Row = { ...job.key, ...job.values };
      return [
        {
          name: job.table,
          columns: [{ name: 'id', type: 'bigint', serial: true }, ...Object.entries(row).map(([name, v]) => ({ name, type: typeOf(v) }))],
          primaryKey: ['id'],
          unique: m.uniqueKey ? [{ name: `${job.table}_${keyCols.join('_')}_key`, columns: keyCols }] : [],
        },
        JOBS_TABLE,
      ];
    }
    case 'debit':
      return [
        {
          name: 'accounts',
          columns: [{ name: 'id', type: 'bigint' }, { name: 'balance', type: 'bigint' }],
          primaryKey: ['id'],
          initialRows: [{ id: job.accountId, balance: job.initialBalance }],
        },
        JOBS_TABLE,
      ];
    case 'reserve':
      return [
        {
          name: 'items',
          columns: [{ name: 'id', type: 'bigint' }, { name: 'stock', type: 'bigint' }],
          primaryKey: ['id'],
          checks: m.checkConstraint ? [{ name: 'items_stock_check', column: 'stock', min: 0 }] : [],
          initialRows: [{ id: job.itemId, stock: job.initialStock }],
        },
        JOBS_TABLE,
      ];
    case 'external':
      return [JOBS_TABLE];
    case 'fencedRow':
      return [
        {
          name: job.table,
          columns: [{ name: 'id', type: 'bigint' }, ...Object.entries(job.values).map(([name, v]) => ({ name, type: typeOf(v) })), { name: 'fence', type: 'bigint' }],
          primaryKey: ['id'],
          initialRows: [{ id: job.rowId, ...Object.fromEntries(Object.entries(job.values).map(([c, v]) => [c, typeof v === 'string' ? v.replace(/\{worker\}/g, 'nobody') : v])), fence: 0 }],
        },
        JOBS_TABLE,
      ];
  }
}

/**
 * The sequences a scenario needs (name → first value): `fence_seq` starting at `lease.fenceStart
 * + 1` when fencing tokens come from the database (`mechanism.fenceSource: 'db-sequence'`).
 */
export function sequencesFor(s: Scenario): Record<string, number> {
  return s.mechanism.fenceSource === 'db-sequence' ? { [FENCE_SEQUENCE]: s.lease.fenceStart + 1 } : {};
}

/** A fenced row's values as `worker` writes them: `{worker}` in a text value becomes its id. */
export function fencedValuesFor(values: Row, worker: string): Row {
  return Object.fromEntries(Object.entries(values).map(([c, v]) => [c, typeof v === 'string' ? v.replace(/\{worker\}/g, worker) : v]));
}

/** The job key for a worker: `{worker}` in the scenario's jobKey is replaced by the worker id. */
export function jobKeyFor(s: Scenario, workerId: string): string {
  return s.job.kind === 'external' ? s.job.jobKey.replace('{worker}', workerId) : `${s.job.kind}-${workerId}`;
}
