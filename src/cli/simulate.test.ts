import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { main, EXIT, USAGE } from './simulate';
import { findPreset } from '../sim';

function cli(...argv: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = main(argv, (s) => out.push(s), (s) => err.push(s));
  return { code, out: out.join('\n'), err: err.join('\n') };
}

describe('simulate CLI', () => {
  it('--list prints the 22 preset ids', () => {
    const r = cli('--list');
    expect(r.code).toBe(0);
    expect(r.out.split('\n')).toHaveLength(22);
    expect(r.out).toContain('export-lease-expiry');
  });

  it('exits 1 for a violated invariant and prints the timeline and verdict', () => {
    const r = cli('export-lease-expiry');
    expect(r.code).toBe(1);
    expect(r.out).toContain('SET lease:export');
    expect(r.out).toMatch(/Violated: .*overlapped/);
  });

  it('exits 0 with --fixed when the fix holds', () => {
    expect(cli('export-lease-expiry', '--fixed').code).toBe(0);
  });

  it('--json prints one object with scenario, verdict, traceHash, events and metrics', () => {
    const r = cli('invoice-race', '--json');
    const o = JSON.parse(r.out);
    expect(Object.keys(o)).toEqual(expect.arrayContaining(['scenario', 'verdict', 'traceHash', 'events', 'metrics']));
    expect(o.verdict.held).toBe(false);
    expect(o.verdict.violations[0].eventIds.length).toBeGreaterThan(0);
    expect(o.traceHash).toMatch(/^[0-9a-f]{14}$/);
  });

  it('runs a scenario file and gives the same trace hash as the preset', () => {
    const dir = mkdtempSync(join(tmpdir(), 'lockscope-'));
    const file = join(dir, 'scenario.json');
    writeFileSync(file, JSON.stringify(findPreset('unsafe-release')!.withoutFix));
    const fromFile = JSON.parse(cli(file, '--json').out);
    const fromPreset = JSON.parse(cli('unsafe-release', '--json').out);
    expect(fromFile.traceHash).toBe(fromPreset.traceHash);
  });

  it.each([
    [['no-such-preset'], /unknown preset "no-such-preset"/],
    [['--bogus'], /unknown option --bogus/],
    [[], /give a preset id or a scenario file/],
    [['/nonexistent/x.json'], /cannot read/],
  ])('exits 2 for bad input %j', (argv, message) => {
    const r = cli(...argv);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(message);
  });

  it('exits 2 naming the field for an invalid scenario file', () => {
    const dir = mkdtempSync(join(tmpdir(), 'lockscope-'));
    const file = join(dir, 'bad.json');
    const s = JSON.parse(JSON.stringify(findPreset('export-lease-expiry')!.withoutFix));
    s.faults[0].pauseMs = 0;
    writeFileSync(file, JSON.stringify(s));
    const r = cli(file);
    expect(r.code).toBe(2);
    expect(r.err).toContain('faults[0].pauseMs: must be ≥ 1');
    writeFileSync(file, '{ not json');
    expect(cli(file).err).toMatch(/is not valid JSON: .* \(line 1, column \d+\)/);
  });

  it('--help prints the usage and every exit code, 3 (inconclusive) included', () => {
    const r = cli('--help');
    expect(r.code).toBe(0);
    expect(r.out).toBe(USAGE);
    for (const line of [/^ {2}0 {2}held/m, /^ {2}1 {2}violated/m, /^ {2}2 {2}bad input/m, /^ {2}3 {2}inconclusive: the run was cut short/m]) expect(r.out).toMatch(line);
    expect(EXIT).toEqual({ held: 0, violated: 1, badInput: 2, inconclusive: 3 });
  });

  it('exits 3 for a run cut short before any violation (the horizon came while C still waited), with the status in --json', () => {
    const dir = mkdtempSync(join(tmpdir(), 'lockscope-'));
    const file = join(dir, 'cut.json');
    const s = findPreset('session-lock-pool')!.withoutFix;
    writeFileSync(file, JSON.stringify({ ...s, invariants: [{ kind: 'boundedWait', maxWaitMs: 9_800 }] }));
    const r = cli(file);
    expect(r.code).toBe(3);
    expect(r.out).toMatch(/Inconclusive — cut short at \d+ events \/ 10 s: the 10 s horizon came while C had not finished/);
    expect(r.out).toContain('exit code 3: inconclusive');
    const json = cli(file, '--json');
    expect(json.code).toBe(3);
    expect(JSON.parse(json.out).verdict).toMatchObject({ status: 'inconclusive', held: false, cutShort: { reason: 'horizon', unfinished: ['C'] } });
  });

  it('--json carries the verdict status of held and violated runs too', () => {
    expect(JSON.parse(cli('invoice-race', '--json').out).verdict.status).toBe('violated');
    expect(JSON.parse(cli('invoice-race', '--fixed', '--json').out).verdict.status).toBe('held');
  });

  it('--transcript prints the run to replay on real servers, and exits 0 once written whatever the verdict (issue 13)', () => {
    // Without --transcript the violated run exits 1; the export of it is no error.
    expect(cli('lock-order-deadlock').code).toBe(EXIT.violated);
    const r = cli('lock-order-deadlock', '--transcript');
    expect(r.code).toBe(0);
    expect(cli('lock-order-deadlock', '--transcript=c1').code).toBe(0);
    expect(r.out).toMatch(/^-- Run it yourself: .*\(lock-order-deadlock, without the fix\)/);
    expect(r.out).toContain('--   c1     psql (pool connection c1; used by A)');
    expect(r.out).toContain('SELECT pg_advisory_xact_lock(2);\n-- expect: (blocks) waits (advisory lock 2 held by session c2)');
    expect(cli('export-lease-expiry', '--fixed', '--transcript').code).toBe(EXIT.held);
  });

  it('--transcript of a run that only talks to the SQS queue says so at the top and at every call (issue 13)', () => {
    const r = cli('queue-redelivery', '--transcript');
    expect(r.out).toContain('-- Not replayed: no server this transcript names receives these calls of the run');
    expect(r.out).toMatch(/-- {3}the SQS queue charges \(Lockscope's model of SQS, no server\): ReceiveMessage ×\d+, DeleteMessage ×2/);
    expect(r.out.match(/→ the SQS queue charges \(Lockscope's model of SQS, not replayed\): (ReceiveMessage|DeleteMessage)/g)?.length).toBeGreaterThan(2);
    expect(cli('queue-redelivery', '--fixed', '--transcript').out).toContain('ChangeMessageVisibility QueueUrl=charges ReceiptHandle=rh-1 VisibilityTimeout=30 → 200 OK');
  });

  it('--transcript=<session> prints one session\'s script; an unknown session is bad input naming the ones there are', () => {
    const r = cli('export-lease-expiry', '--transcript=redis');
    // Commands only: redis-cli has no comment syntax (issue 13).
    expect(r.out).toContain('SET lease:export e01d NX PX 30000\n');
    expect(r.out.split('\n').some((l) => l.startsWith('#'))).toBe(false);
    const bad = cli('export-lease-expiry', '--transcript=c1');
    expect(bad.code).toBe(EXIT.badInput);
    expect(bad.err).toContain('no session c1 in this transcript (sessions: redis)');
    expect(cli('invoice-race', '--transcript', '--json').code).toBe(EXIT.badInput);
    expect(USAGE).toContain('--transcript');
  });
});
