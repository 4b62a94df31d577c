import { validateScenario, formatErrors } from './validate';
import { findPreset } from '../presets';

const base = () => JSON.parse(JSON.stringify(findPreset('export-lease-expiry')!.withoutFix));
const errorsOf = (input: unknown) => {
  const r = validateScenario(input);
  return r.ok ? [] : r.errors.map((e) => `${e.path}: ${e.message}`);
};

describe('validateScenario', () => {
  it('accepts every preset as JSON', () => {
    expect(validateScenario(base()).ok).toBe(true);
  });

  it.each([
    ['a pause of 0 ms', (s: any) => (s.faults = [{ kind: 'pause', worker: 'A', atMs: 10, pauseMs: 0 }]), 'faults[0].pauseMs: must be ≥ 1'],
    ['a negative start', (s: any) => (s.workers[1].startMs = -5), 'workers[1].startMs: must be ≥ 0'],
    ['a fractional TTL', (s: any) => (s.lease.ttlMs = 1.5), 'lease.ttlMs: must be an integer'],
    ['NaN seed', (s: any) => (s.seed = Number.NaN), 'seed: must be'],
    ['Infinity horizon', (s: any) => (s.horizonMs = Number.POSITIVE_INFINITY), 'horizonMs: must be'],
    ['a huge duration', (s: any) => (s.workers[0].steps[1].ms = 1e12), 'workers[0].steps[1].ms: must be ≤ 3600000'],
    ['an unknown version', (s: any) => (s.version = 3), 'version: must be 2'],
    ['version 1 (validate reads only the current version; parseScenario migrates)', (s: any) => (s.version = 1), 'version: must be 2'],
    ['a margin as long as the renewal period', (s: any) => { s.mechanism.renewal = 'compare-and-extend'; s.client.renewMarginMs = s.lease.renewEveryMs; }, 'client.renewMarginMs: must be < lease.renewEveryMs (10000)'],
    ['an unknown onBusy', (s: any) => (s.client.onBusy = 'spin'), 'client.onBusy: must be one of "wait", "skip", "retry"'],
    ['an unknown fault kind', (s: any) => (s.faults = [{ kind: 'meteor', atMs: 1 }]), 'faults[0].kind: is not a known kind; use one of "pause", "expireLease"'],
    ['an unknown field', (s: any) => (s.mechanism.fencingg = true), 'mechanism: unknown field "fencingg"'],
    ['a missing field', (s: any) => delete s.lease.ttlMs, 'lease.ttlMs: must be a number'],
    ['an unknown lock', (s: any) => (s.mechanism.lock = 'zookeeper'), 'mechanism.lock: must be one of'],
    ['a fault for a missing worker', (s: any) => (s.faults = [{ kind: 'pause', worker: 'Z', atMs: 10, pauseMs: 5 }]), 'faults[0].worker: no worker "Z" in workers'],
    ['a fault after the run', (s: any) => (s.faults = [{ kind: 'expireLease', atMs: 3_000_000 }]), 'faults[0].atMs: must be ≤ horizonMs (90000)'],
    ['a fault at a missing step', (s: any) => (s.faults = [{ kind: 'crash', worker: 'A', step: 9, restartAfterMs: null }]), 'faults[0].step: must be < 4'],
    ['a fault with both time and step', (s: any) => (s.faults = [{ kind: 'crash', worker: 'A', step: 1, atMs: 5, restartAfterMs: null }]), 'faults[0]: must give exactly one of atMs or step'],
    ['duplicate worker ids', (s: any) => (s.workers[1].id = 'A'), 'workers[1].id: duplicates workers[0].id "A"'],
    ['a deadlock_timeout of 0 ms', (s: any) => (s.database.deadlockTimeoutMs = 0), 'database.deadlockTimeoutMs: must be ≥ 1'],
    ['a step advisory key with a lease mechanism', (s: any) => (s.workers[0].steps[0] = { do: 'acquire', advisoryKey: 2 }), 'workers[0].steps[0].advisoryKey: only applies with mechanism.lock "advisory-xact"'],
    ['too many workers', (s: any) => (s.workers = Array.from({ length: 17 }, (_, i) => ({ ...s.workers[0], id: `W${i}` }))), 'workers: must have at most 16 item(s)'],
  ])('rejects %s with the field path and the rule', (_name, mutate, expected) => {
    const s = base();
    mutate(s);
    expect(errorsOf(s).join('\n')).toContain(expected);
  });

  describe('a "commit" step needs a transaction a "begin" opened (PostgreSQL would only warn 25P01; the worker would do nothing)', () => {
    const invoice = () => JSON.parse(JSON.stringify(findPreset('invoice-race')!.withoutFix));
    const stepsOf = (s: any) => s.workers[0].steps.map((x: { do: string }) => x.do).join(',');

    it('accepts the preset plan and a second transaction that begins again', () => {
      const s = invoice();
      expect(stepsOf(s)).toMatch(/^(connect,)?begin,.*commit/);
      expect(errorsOf(s)).toEqual([]);
      const i = s.workers[0].steps.findIndex((x: { do: string }) => x.do === 'commit');
      s.workers[0].steps.splice(i + 1, 0, { do: 'begin' }, { do: 'commit' });
      expect(errorsOf(s)).toEqual([]);
    });

    it('rejects a commit with no begin before it, naming the step', () => {
      const s = invoice();
      const i = s.workers[1].steps.findIndex((x: { do: string }) => x.do === 'begin');
      const commitAt = s.workers[1].steps.findIndex((x: { do: string }) => x.do === 'commit') - 1;
      s.workers[1].steps.splice(i, 1);
      expect(errorsOf(s)).toEqual([`workers[1].steps[${commitAt}]: "commit" with no transaction open: add a "begin" step before it`]);
    });

    it('rejects a second commit and says the first one ended the transaction', () => {
      const s = invoice();
      const at = s.workers[0].steps.findIndex((x: { do: string }) => x.do === 'commit');
      s.workers[0].steps.splice(at + 1, 0, { do: 'commit' });
      expect(errorsOf(s)).toEqual([`workers[0].steps[${at + 1}]: "commit" with no transaction open: add a "begin" step before it (the earlier "commit" ended the last one)`]);
    });
  });

  it('rejects non-objects and __proto__ keys without throwing', () => {
    for (const input of [null, 42, 'x', [], undefined, JSON.parse('{"__proto__": {"polluted": true}}')]) {
      expect(validateScenario(input).ok).toBe(false);
    }
    const s = base();
    const hostile = JSON.parse(JSON.stringify(s).replace('"mechanism":{', '"mechanism":{"__proto__":{"x":1},'));
    expect(errorsOf(hostile).join()).toMatch(/mechanism/);
    expect(({} as Record<string, unknown>).x).toBeUndefined();
  });

  it('accepts a deadlock_timeout and a step advisory key under advisory-xact', () => {
    const s = base();
    s.database.deadlockTimeoutMs = 50;
    s.mechanism.lock = 'advisory-xact';
    s.workers[0].steps[0] = { do: 'acquire', advisoryKey: 2 };
    expect(errorsOf(s)).toEqual([]);
  });

  it('lists a rule across fields beside a field the schema rejects (zod skips every such rule once one field is wrong: a newcomer saw "1 problem" over two)', () => {
    const s = base();
    s.faults = [...s.faults, { kind: 'expireLease', atMs: 500_000 }];
    s.lease.ttlMs = 0;
    expect(errorsOf(s)).toEqual(['lease.ttlMs: must be ≥ 1', 'faults[1].atMs: must be ≤ horizonMs (90000): the fault would fire after the run ends']);
    // A rule that compares with the rejected field stays silent (its bound is not known)…
    s.lease.ttlMs = 30_000;
    s.horizonMs = -5;
    expect(errorsOf(s)).toEqual(['horizonMs: must be ≥ 1']);
    // …as does one on a field the schema already rejected, and one the input's shape keeps from running.
    const t = base();
    t.faults = [{ kind: 'pause', worker: 'Z', atMs: 10, pauseMs: 0 }];
    expect(errorsOf(t)).toEqual(['faults[0].pauseMs: must be ≥ 1', 'faults[0].worker: no worker "Z" in workers']);
    const u = base();
    u.workers = 'A,B';
    u.faults = [{ kind: 'expireLease', atMs: 500_000 }];
    expect(errorsOf(u)).toEqual(['workers: must be an array']);
  });

  it('formats errors one per line', () => {
    expect(formatErrors([{ path: 'a.b', message: 'must be ≥ 1' }, { path: '(root)', message: 'x' }])).toBe('a.b: must be ≥ 1\n(root): x');
  });
});
