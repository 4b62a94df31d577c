// Pure parts of the SQL harness's deadlock comparison (no server needed).
import { checkOf, normalizeDeadlockDetail, plannedFireMs } from './sqlHarness';
import type { SqlOp } from './types';

describe('normalizeDeadlockDetail', () => {
  it('maps the server DETAIL (pids, OIDs, xids, ctids) and the model DETAIL to the same text', () => {
    // Server text as PostgreSQL 15 printed it for the three-session case of sqlCases.ts.
    const server =
      'Process 29752 waits for ExclusiveLock on tuple (0,1) of relation 120270 of database 115862; blocked by process 29751.\n' +
      'Process 29751 waits for ShareLock on transaction 65437; blocked by process 29750.\n' +
      'Process 29750 waits for ExclusiveLock on advisory lock [115862,0,1001,1]; blocked by process 29752.';
    const model =
      'Process s3 waits for ExclusiveLock on tuple (id=7) of relation items of database lockscope; blocked by process s2.\n' +
      'Process s2 waits for ShareLock on transaction 1; blocked by process s1.\n' +
      'Process s1 waits for ExclusiveLock on advisory lock [lockscope,0,1001,1]; blocked by process s3.';
    const pids = new Map([[29750, 's1'], [29751, 's2'], [29752, 's3']]);
    const relations = new Map([['120270', 'items']]);
    expect(normalizeDeadlockDetail(server, pids, relations)).toBe(normalizeDeadlockDetail(model));
    expect(normalizeDeadlockDetail(model)).toContain('Process s3 waits for ExclusiveLock on tuple of relation items; blocked by process s2.');
  });

  it('keeps what tells two DETAILs apart: who waits, the mode, the key, who blocks', () => {
    const a = 'Process s1 waits for ExclusiveLock on advisory lock [lockscope,0,1,1]; blocked by process s2.';
    expect(normalizeDeadlockDetail(a)).not.toBe(normalizeDeadlockDetail(a.replace('blocked by process s2', 'blocked by process s3')));
    expect(normalizeDeadlockDetail(a)).not.toBe(normalizeDeadlockDetail(a.replace('ExclusiveLock', 'ShareLock')));
    expect(normalizeDeadlockDetail(a)).not.toBe(normalizeDeadlockDetail(a.replace('0,1,1]', '0,2,1]')));
  });
});

describe('deadlock timer plan', () => {
  const ops: SqlOp[] = [
    { s: 's1', stmt: { op: 'begin' } },
    { s: 's1', stmt: { op: 'advisory', fn: 'pg_advisory_lock', key: { kind: 'bigint', key: 1 } } },
    { s: 's2', stmt: { op: 'begin' } },
    { s: 's1', deadlockCheck: true },
    { s: 's1', stmt: { op: 'rollback' } },
  ];

  it('finds the check of a statement only when it is the session\'s next step', () => {
    expect(checkOf(ops, 1)).toBe(3);
    expect(checkOf(ops, 0)).toBeNull();
    expect(checkOf(ops, 2)).toBeNull();
  });

  it('plans later checks later, and stretches the plan on a retry', () => {
    expect(plannedFireMs(4, 1)).toBeGreaterThan(plannedFireMs(3, 1));
    expect(plannedFireMs(3, 4)).toBe(4 * plannedFireMs(3, 1));
  });
});
