// Scenario version 2's fencing fields (mechanism.fenceSource, the fencedRow job): errors name the
// field path, and a version-1 file that uses them is refused rather than guessed at.
import { validateScenario } from './validate';
import { parseScenario } from './migrate';
import { findPreset } from '../presets';

const fencedRow = () => JSON.parse(JSON.stringify(findPreset('fenced-db-write')!.withoutFix));
const failover = () => JSON.parse(JSON.stringify(findPreset('failover-fence')!.withoutFix));
const errorsOf = (input: unknown) => {
  const r = validateScenario(input);
  return r.ok ? [] : r.errors.map((e) => `${e.path}: ${e.message}`);
};

describe('fencing fields', () => {
  it('accepts both sources and the fencedRow job', () => {
    for (const source of ['redis-incr', 'db-sequence']) expect(errorsOf({ ...failover(), mechanism: { ...failover().mechanism, fenceSource: source } })).toEqual([]);
    expect(errorsOf(fencedRow())).toEqual([]);
  });

  it.each([
    ['an unknown fencing source', (s: any) => (s.mechanism.fenceSource = 'zookeeper'), 'mechanism.fenceSource: must be one of "redis-incr", "db-sequence", "lock-service-revision"'],
    ['a fenced row that writes the fence itself', (s: any) => (s.job.values.fence = 3), 'job.values.fence: is written by the fenced UPDATE itself (SET fence = $token); remove it'],
    ['a fenced row that writes the id', (s: any) => (s.job.values.id = 3), 'job.values.id: is written by the fenced UPDATE itself (WHERE id = job.rowId); remove it'],
    ['the jobs table as the fenced table', (s: any) => (s.job.table = 'jobs'), 'job.table: "jobs" is the durable job records\' table; name the fenced table otherwise'],
    ['a table name that is no SQL name', (s: any) => (s.job.table = 'Docs; DROP'), 'job.table: must be a lower-case SQL table name'],
    ['a row id that is no int4', (s: any) => (s.job.rowId = 1.5), 'job.rowId: must be an integer'],
  ])('%s', (_, edit, message) => {
    const s = fencedRow();
    edit(s);
    expect(errorsOf(s)).toEqual([message]);
  });

  it('refuses a version-1 file that uses a version-2 fencing field, naming it', () => {
    const v1 = (s: any) => {
      const { client: _c, ...rest } = s;
      return { ...rest, version: 1 };
    };
    const withSource = v1(failover());
    withSource.mechanism.fenceSource = 'db-sequence';
    const r1 = parseScenario(withSource);
    expect(r1.ok ? [] : r1.errors).toEqual([{ path: 'mechanism.fenceSource', message: 'exists only in scenario version 2: set "version": 2' }]);
    const r2 = parseScenario(v1(fencedRow()));
    expect(r2.ok ? [] : r2.errors).toEqual([{ path: 'job.kind', message: '"fencedRow" exists only in scenario version 2: set "version": 2' }]);
    // Without them, the same file as version 1 opens (the failover preset uses nothing of version 2 but its client block).
    expect(parseScenario(v1(failover())).ok).toBe(true);
  });
});

describe('the lease in a lock service (lockService, fenceSource "lock-service-revision")', () => {
  const etcd = () => {
    const s = failover();
    s.faults = s.faults.filter((f: any) => f.kind !== 'failover');
    s.lockService = { kind: 'etcd' };
    s.mechanism.fenceSource = 'lock-service-revision';
    return s;
  };

  it('accepts the lease in etcd with the revision or a sequence as the token', () => {
    expect(errorsOf(etcd())).toEqual([]);
    expect(errorsOf({ ...etcd(), mechanism: { ...etcd().mechanism, fenceSource: 'db-sequence' } })).toEqual([]);
    expect(errorsOf({ ...etcd(), mechanism: { ...etcd().mechanism, fencing: false, fenceSource: undefined } })).toEqual([]);
  });

  it.each([
    ['the revision without a lock service', (s: any) => delete s.lockService, 'mechanism.fenceSource: "lock-service-revision" is the revision a lock service issues with the grant: add "lockService": { "kind": "etcd" } (the lease then lives in etcd)'],
    ['a Redis INCR token for a lease in etcd', (s: any) => (s.mechanism.fenceSource = 'redis-incr'), 'mechanism.fenceSource: the lease lives in etcd, so there is no Redis INCR counter next to it: take the token from "lock-service-revision" (the revision etcd issues with the grant) or "db-sequence"'],
    ['no fenceSource (Redis INCR) for a lease in etcd', (s: any) => delete s.mechanism.fenceSource, 'mechanism.fenceSource: the lease lives in etcd, so there is no Redis INCR counter next to it: take the token from "lock-service-revision" (the revision etcd issues with the grant) or "db-sequence"'],
    ['a TTL that is not whole seconds', (s: any) => (s.lease.ttlMs = 1500), 'lease.ttlMs: must be whole seconds (a multiple of 1000) with lockService "etcd": etcd grants a lease TTL in seconds (1.5 s is not)'],
    ['a key etcdctl would need quoted', (s: any) => (s.lease.key = 'lease export'), 'lease.key: must be letters, digits, _ : . / or - with lockService "etcd" (the key etcdctl is given unquoted)'],
    ['a Redis renewal', (s: any) => (s.mechanism.renewal = 'pexpire'), 'mechanism.renewal: "pexpire" renews with a plain PEXPIRE, a Redis command; an etcd lease is renewed by keep-alive: "compare-and-extend" (a keep-alive of the worker\'s own lease) or "none"'],
    ['a Redis failover', (s: any) => s.faults.push({ kind: 'failover', atMs: 1000 }), 'faults[1].kind: "failover" fails over a Redis primary to a lagging replica; the lease lives in etcd, whose quorum keeps every committed write (a leader change is not modelled)'],
    ['a clock jump', (s: any) => s.faults.push({ kind: 'clockJump', atMs: 1000, jumpMs: 5000 }), 'faults[1].kind: "clockJump" moves the lease store\'s wall clock; etcd times leases on a monotonic clock, so a wall-clock jump expires nothing there'],
    ['another lock service', (s: any) => (s.lockService = { kind: 'zookeeper' }), 'lockService.kind: must be "etcd"'],
  ])('%s', (_, edit, message) => {
    const s = etcd();
    edit(s);
    expect(errorsOf(s)).toEqual([message]);
  });

  it('refuses a version-1 file with a lock service, naming it', () => {
    const { client: _c, ...rest } = etcd();
    const r = parseScenario({ ...rest, version: 1 });
    expect(r.ok ? [] : r.errors).toEqual([
      { path: 'lockService', message: 'exists only in scenario version 2: set "version": 2' },
      { path: 'mechanism.fenceSource', message: 'exists only in scenario version 2: set "version": 2' },
    ]);
  });
});
