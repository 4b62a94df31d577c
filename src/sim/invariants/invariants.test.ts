/** Checkers in isolation from the presets' own declarations: each sees every event and cites ids. */
import { runScenario } from '../engine/run';
import { findPreset } from '../presets';
import type { Invariant, Scenario } from '../scenario/schema';
import { checkersFor } from './index';

const withInvariants = (s: Scenario, invariants: Invariant[]): Scenario => ({ ...s, invariants });

describe('invariant checkers', () => {
  it('singleLeaseOwner: a paused owner still believes it owns the lease while its successor does', () => {
    const r = runScenario(withInvariants(findPreset('export-lease-expiry')!.withoutFix, [{ kind: 'singleLeaseOwner' }]));
    expect(r.verdict.violations).toHaveLength(1);
    expect(r.verdict.violations[0]!.message).toBe('A and B both believed they owned the lease (from 30 s)');
  });

  it('singleLeaseOwner holds when nobody pauses', () => {
    const s = findPreset('export-lease-expiry')!.withoutFix;
    expect(runScenario(withInvariants({ ...s, faults: [] }, [{ kind: 'singleLeaseOwner' }])).verdict.held).toBe(true);
  });

  it('mutualExclusion needs a positive overlap: resuming and releasing in the same millisecond is not an overlap', () => {
    const r = runScenario(findPreset('unsafe-release')!.withFix);
    expect(r.verdict.held).toBe(true);
  });

  it('mutualExclusion cites the events where both entered and where the overlap was seen', () => {
    const r = runScenario(findPreset('unsafe-release')!.withoutFix);
    const v = r.verdict.violations[0]!;
    const byId = new Map(r.events.map((e) => [e.id, e]));
    expect(v.eventIds.map((id) => byId.get(id)!.actor)).toEqual(expect.arrayContaining(['B', 'C']));
  });

  it('fencing fixes overlapping uploads but not the belief: both checkers can be declared together', () => {
    const s = findPreset('export-lease-expiry')!.withFix;
    const r = runScenario(withInvariants(s, [{ kind: 'noOverlappingWrites' }, { kind: 'singleLeaseOwner' }]));
    expect(r.verdict.violations.map((v) => v.invariant)).toEqual(['singleLeaseOwner']);
  });

  it('noStaleTokenAccepted fires when the store does not check tokens', () => {
    const s = findPreset('export-lease-expiry')!.withFix;
    const r = runScenario({ ...s, destination: { ...s.destination, checksFencing: false }, invariants: [{ kind: 'noStaleTokenAccepted' }] });
    expect(r.verdict.violations[0]!.message).toBe("the destination accepted A's stale token 33 after token 34");
  });

  it('boundedWait reports a waiter that waited past the limit and then proceeded', () => {
    const s = findPreset('remote-call-in-txn')!.withoutFix;
    const r = runScenario(s);
    expect(r.verdict.violations.map((v) => v.message)).toEqual([
      'C waited 2.8 s for a connection (the limit is 1 s)',
      'D waited 2.8 s for a connection (the limit is 1 s)',
    ]);
  });

  it('checkersFor builds one fresh checker per declared invariant, in order, each of its kind', () => {
    const all: Invariant[] = [
      { kind: 'boundedWait', maxWaitMs: 5 }, { kind: 'uniqueBusinessKey' }, { kind: 'noOverlappingWrites' }, { kind: 'noStaleTokenAccepted' },
      { kind: 'effectOnce', harmless: true }, { kind: 'noLostUpdate' }, { kind: 'noOversell' }, { kind: 'mutualExclusion' }, { kind: 'singleLeaseOwner' },
    ];
    const scenario: Scenario = { ...findPreset('unsafe-release')!.withoutFix, invariants: all };
    const checkers = checkersFor(scenario);
    expect(checkers.map((c) => c.kind)).toEqual([...all.map((i) => i.kind), 'noWaitCycle']); // the liveness check every scenario gets
    // No declared check on repeated effects: the note on duplicates (kind effectOnce) comes last.
    expect(checkersFor({ ...scenario, invariants: [{ kind: 'noWaitCycle' }, { kind: 'noLostUpdate' }] }).map((c) => c.kind)).toEqual(['noWaitCycle', 'noLostUpdate', 'effectOnce']);
    expect(checkers.every((c) => c.findings.length === 0)).toBe(true);
    expect(checkersFor(scenario)[0]!.findings).not.toBe(checkers[0]!.findings);
  });

  it('a held verdict names every invariant it checked, in words', () => {
    const all: Invariant[] = [
      { kind: 'uniqueBusinessKey' }, { kind: 'noOverlappingWrites' }, { kind: 'noStaleTokenAccepted' }, { kind: 'effectOnce', harmless: false }, { kind: 'noLostUpdate' },
      { kind: 'noOversell' }, { kind: 'mutualExclusion' }, { kind: 'singleLeaseOwner' }, { kind: 'boundedWait', maxWaitMs: 1_000 },
    ];
    const r = runScenario(withInvariants(findPreset('invoice-race')!.withFix, all));
    expect(r.verdict.summary).toBe(
      'Held: at most one row per business key; no two overlapping writes to one destination; no stale fencing token accepted; '
      + 'the external effect happens at most once; no lost update; never reserve more than the stock; one worker in the critical section at a time; '
      + 'one live lease owner at a time; no worker waits beyond the limit.',
    );
  });
});
