// The explore CLI: exit codes (1 found, 0 none within the bound, 2 bad input, 3 budget ran out), its JSON, its link.
import { decodeShare } from '../share/link';
import { main, parseExploreArgs } from './explore';

function runCli(argv: string[]): { code: number; out: string; err: string } {
  let out = '';
  let err = '';
  const code = main(argv, (s) => { out += `${s}\n`; }, (s) => { err += `${s}\n`; });
  return { code, out, err };
}

describe('npm run explore', () => {
  it('exits 1 with the shortest counterexample, as a link that opens the same faults and as a scenario file', () => {
    const r = runCli(['unsafe-release', '--max-faults', '1']);
    expect(r.code).toBe(1);
    expect(r.out).toMatch(/Broken with 1 fault:\n {2}- Pause A for 11 s before step 2 \(work\)/);
    expect(r.out).toMatch(/✗ mutualExclusion/);
    const link = /Open it: (\S+)/.exec(r.out)![1]!;
    const decoded = decodeShare(link.slice(link.indexOf('#')));
    expect(decoded.ok && decoded.scenario.faults).toEqual([{ kind: 'pause', worker: 'A', step: 1, phase: 'before', pauseMs: 11_000 }]);
    expect(JSON.parse(r.out.slice(r.out.indexOf('As a scenario file:') + 'As a scenario file:'.length)).faults).toHaveLength(1);
  });

  it('exits 0 when no schedule within the bound breaks the design, and says how many it tried', () => {
    const r = runCli(['thumbnail', '--max-faults', '1']);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/No violation with ≤ 1 faults of these kinds/);
  });

  it('--json prints the bound, the counts and the counterexample', () => {
    const r = runCli(['unsafe-release', '--max-faults=1', '--json']);
    const j = JSON.parse(r.out) as { bound: number; tried: number; distinct: number; elapsedMs: number; counterexample: { faults: unknown[]; violations: { invariant: string }[]; link: string } };
    expect(r.code).toBe(1);
    expect(j.bound).toBe(1);
    expect(j.tried).toBeGreaterThan(0);
    expect(j.distinct).toBeLessThanOrEqual(j.tried);
    expect(j.counterexample.violations[0]!.invariant).toBe('mutualExclusion');
    expect(j.counterexample.link).toMatch(/^http:\/\/localhost:5173\/#v=1&s=/);
  });

  it('exits 3 when the time budget runs out before the bound is covered', () => {
    const r = runCli(['renew-partition', '--fixed', '--max-faults', '3', '--budget-ms', '1']);
    expect(r.code).toBe(3);
    expect(r.out).toMatch(/the budget ran out/);
  });

  it('exits 2 on bad input, naming what is wrong', () => {
    expect(runCli(['nope']).err).toMatch(/unknown preset "nope"/);
    expect(runCli(['nope']).code).toBe(2);
    expect(runCli(['thumbnail', '--max-faults', '4']).err).toMatch(/--max-faults needs a whole number from 1 to 3, got "4"/);
    expect(runCli(['thumbnail', '--budget-ms']).err).toMatch(/--budget-ms needs a whole number/);
    expect(runCli(['thumbnail', '--what']).err).toMatch(/unknown option --what/);
    expect(runCli([]).code).toBe(2);
  });

  it('parses flags with a space or an equals sign', () => {
    expect(parseExploreArgs(['x', '--seed', '9', '--budget-ms=50', '--fixed'])).toMatchObject({ target: 'x', seed: 9, budgetMs: 50, fixed: true });
  });
});
