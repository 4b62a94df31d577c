// noStaleTokenAccepted on a fenced database row (semantics.md, "Fencing beyond a Redis counter"):
// judged on the row's committed fence from the events' data, with the boundary at an equal token.
import { runScenario } from '../engine/run';
import { checkTrace } from './index';
import { findPreset } from '../presets';
import { scenario, steps } from '../presets/build';
import type { Scenario } from '../scenario/schema';

const fenced = (over: Partial<Parameters<typeof scenario>[0]> = {}): Scenario => scenario({
  id: 'fenced-row', title: 'fenced row', description: '', lesson: 'leases', horizonMs: 120_000,
  job: { kind: 'fencedRow', table: 'documents', rowId: 7, values: { body: 'by {worker}' } },
  mechanism: { lock: 'lease', fencing: true },
  workers: [{ id: 'B', startMs: 0, steps: steps('acquire', ['effect', 1_000], ['effect', 1_000], 'release') }],
  invariants: [{ kind: 'noStaleTokenAccepted' }],
  ...over,
});

describe('noStaleTokenAccepted on a fenced row', () => {
  it('one holder writing its token twice is not stale (equal token, same holder)', () => {
    const r = runScenario(fenced());
    expect(r.events.filter((e) => (e.command ?? '').startsWith('UPDATE documents')).map((e) => e.reply)).toEqual(['UPDATE 1', 'UPDATE 1']);
    expect(r.verdict.held).toBe(true);
  });

  it('an admin UPDATE that sets no fence is no fenced write, and a stale token after it is still judged', () => {
    const p = findPreset('fenced-db-write')!.withoutFix;
    const r = runScenario({ ...p, faults: [...p.faults, { kind: 'adminBypass', atMs: 40_000 }] });
    const admin = r.events.find((e) => e.actor === 'admin' && (e.command ?? '').startsWith('UPDATE'));
    expect(admin?.command).toBe("UPDATE documents SET body = 'report by admin' WHERE id = 7");
    expect(r.verdict.violations.map((v) => v.invariant)).toEqual(['noStaleTokenAccepted']);
    expect(r.verdict.violations[0]!.eventIds).not.toContain(admin!.id);
  });

  it('re-checks a stored trace from data alone, with the same verdict', () => {
    const r = runScenario(findPreset('fenced-db-write')!.withoutFix);
    const stripped = r.events.map(({ command: _c, reply: _r, narration: _n, ...rest }) => rest);
    const again = checkTrace(r.scenario, stripped).filter((f) => f.severity === 'violation');
    expect(again.map((v) => [v.invariant, v.eventIds])).toEqual(r.verdict.violations.map((v) => [v.invariant, v.eventIds]));
    expect(again).toHaveLength(1);
  });

  it('a fenced write inside a transaction is judged at its COMMIT, when the row takes the fence', () => {
    const p = findPreset('fenced-db-write')!.withoutFix;
    const inTxn: Scenario = { ...p, workers: p.workers.map((w) => ({ ...w, steps: w.steps.flatMap<Scenario['workers'][number]['steps'][number]>((s) => (s.do === 'effect' ? [{ do: 'begin' }, s, { do: 'commit' }] : [s])) })) };
    const r = runScenario(inTxn);
    const at = (id: string) => { const e = r.events.find((x) => x.id === id)!; return `${e.atMs} ${e.actor} ${e.command}`; };
    expect(r.verdict.violations.map((v) => [v.message, v.eventIds.map(at)])).toEqual([
      ["the database accepted A's stale token 33 after token 34: A's UPDATE overwrote the row B had written", ['36000 B COMMIT', '46000 A COMMIT']],
    ]);
    expect(checkTrace(inTxn, r.events).filter((f) => f.severity === 'violation')).toEqual(r.verdict.violations);
  });
});

describe('a duplicate row of an insertOnce job, in words', () => {
  it('is named as the row, whether it breaks effectOnce, is declared harmless or is only noted', () => {
    const p = findPreset('invoice-race')!.withoutFix;
    const said = (invariants: Scenario['invariants']) => { const r = runScenario({ ...p, invariants }); return [...r.verdict.violations, ...r.verdict.notes].map((f) => `${f.severity}: ${f.message}`); };
    expect(said([{ kind: 'effectOnce', harmless: false }])).toEqual(['violation: the row for order_id = 42 was inserted 2 times']);
    expect(said([{ kind: 'effectOnce', harmless: true }])).toEqual(['redundant: the row for order_id = 42 was produced 2 times — redundant, not a violation (duplicates are harmless here)']);
    expect(said([])).toEqual(['unchecked: the row for order_id = 42 was inserted 2 times — a duplicate this scenario\'s invariants do not check']);
  });
});
