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
