// The overlap checkers (mutualExclusion, singleLeaseOwner) and boundedWait, fed hand-made events:
// a checker reads only event data (types.ts), so each rule of coordination.ts can be pinned on
// the exact events that decide it — who counts as inside, when an incident starts, grows and
// ends, and how a finding names its workers and cites their events.
import { describe, expect, it } from 'vitest';
import type { CheckedEvent } from '../engine/trace';
import type { Beliefs } from '../workers/workerMachine';
import type { Scenario } from '../scenario/schema';
import { FindingLog, type Finding, type InvariantChecker } from './types';
import { boundedWait, mutualExclusion, protectedSteps, singleLeaseOwner } from './coordination';
import { checkersFor, checkTrace, INVARIANT_TEXT } from './index';
import { findPreset } from '../presets';

/** export-lease-expiry: workers A and B, each `acquire, work, effect, release` (steps 1 and 2 protected); horizon 90 s. */
const SCENARIO: Scenario = findPreset('export-lease-expiry')!.withoutFix;

/** An event of `actor` at `atMs` with the given id, state and data. */
function ev(id: number, atMs: number, actor: string, more: Partial<CheckedEvent> = {}): CheckedEvent {
  return { id: `e${id}`, atMs, actor, kind: 'worker', ...more } as CheckedEvent;
}
/** A worker's event whose beliefs say whether it owns the lease. */
function owner(id: number, atMs: number, actor: string, ownsLease: boolean, state: CheckedEvent['state'] = 'holding'): CheckedEvent {
  return ev(id, atMs, actor, { state, beliefs: { ownsLease } as Beliefs });
}

/** Feeds `events` to `checker`, finishes at `endMs`; returns the findings and what the listener heard. */
function run(make: (listener: (f: Finding, revises: Finding | null) => void) => InvariantChecker, events: readonly CheckedEvent[], endMs: number) {
  const heard: [string, string | null][] = [];
  const checker = make((f, revises) => heard.push([f.message, revises?.message ?? null]));
  for (const e of events) checker.onEvent(e);
  checker.finish(endMs, events.at(-1));
  return { findings: checker.findings.map(({ message, eventIds, severity, invariant }) => ({ invariant, severity, message, eventIds })), heard };
}

const leaseOwners = (events: readonly CheckedEvent[], endMs = 60_000) => run((listener) => singleLeaseOwner({ scenario: SCENARIO, listener }), events, endMs);

describe('singleLeaseOwner over hand-made events', () => {
  it('three believers: one finding, published with the first two, revised when the third is inside; ids in numeric order', () => {
    const r = leaseOwners([owner(10, 0, 'A', true), owner(9, 1_000, 'B', true), owner(11, 2_000, 'C', true)], 3_000);
    expect(r.findings).toEqual([{ invariant: 'singleLeaseOwner', severity: 'violation', message: 'A, B and C all believed they owned the lease (from 1 s)', eventIds: ['e9', 'e10', 'e11'] }]);
    expect(r.heard).toEqual([
      ['A and B both believed they owned the lease (from 1 s)', null],
      ['A, B and C all believed they owned the lease (from 1 s)', 'A and B both believed they owned the lease (from 1 s)'],
    ]);
  });

  it('a worker\'s own event without a state (or a state without beliefs) changes nothing it believes', () => {
    const r = leaseOwners([owner(1, 0, 'A', true), ev(2, 500, 'A', { kind: 'fault' }), owner(3, 1_000, 'B', true)], 2_000);
    expect(r.findings.map((f) => f.eventIds)).toEqual([['e1', 'e3']]);
    expect(leaseOwners([owner(1, 0, 'A', true), ev(2, 1_000, 'B', { state: 'holding' })], 2_000).findings).toEqual([]);
  });

  it('once published, a finding is revised only when another worker joins (not at every later event)', () => {
    const r = leaseOwners([owner(1, 0, 'A', true), owner(2, 1_000, 'B', true), owner(3, 2_000, 'A', true), owner(4, 3_000, 'B', true), ev(5, 4_000, 'redis', { kind: 'expiry' })], 5_000);
    expect(r.heard).toEqual([['A and B both believed they owned the lease (from 1 s)', null]]);
  });

  it('a worker that starts and stops believing in the same millisecond overlaps no one', () => {
    expect(leaseOwners([owner(1, 0, 'A', true), owner(2, 1_000, 'B', true), owner(3, 1_000, 'B', false)]).findings).toEqual([]);
  });

  it('an overlap of one millisecond counts', () => {
    expect(leaseOwners([owner(1, 0, 'A', true), owner(2, 1_000, 'B', true), owner(3, 1_001, 'B', false)]).findings.map((f) => f.message))
      .toEqual(['A and B both believed they owned the lease (from 1 s)']);
  });

  it('a crashed or finished worker does not count, whatever its last beliefs', () => {
    expect(leaseOwners([owner(1, 0, 'A', true), owner(2, 1_000, 'B', true, 'crashed'), owner(3, 2_000, 'C', true, 'done')]).findings).toEqual([]);
  });

  it('a paused worker still believes', () => {
    expect(leaseOwners([owner(1, 0, 'A', true, 'paused'), owner(2, 1_000, 'B', true)], 2_000).findings.map((f) => f.eventIds)).toEqual([['e1', 'e2']]);
  });

  it('an event without a worker state (a resource\'s, a fault\'s) changes nothing', () => {
    const r = leaseOwners([owner(1, 0, 'A', true), ev(2, 500, 'redis', { kind: 'expiry' }), owner(3, 1_000, 'B', true), ev(4, 1_500, 'redis', { kind: 'expiry' })], 2_000);
    expect(r.findings).toEqual([{ invariant: 'singleLeaseOwner', severity: 'violation', message: 'A and B both believed they owned the lease (from 1 s)', eventIds: ['e1', 'e3'] }]);
  });

  it('an incident ends when one believer is left: a later overlap is a new finding', () => {
    const r = leaseOwners([owner(1, 0, 'A', true), owner(2, 1_000, 'B', true), owner(3, 2_000, 'B', false), owner(4, 3_000, 'C', true)], 4_000);
    expect(r.findings.map((f) => [f.message, f.eventIds])).toEqual([
      ['A and B both believed they owned the lease (from 1 s)', ['e1', 'e2']],
      ['A and C both believed they owned the lease (from 3 s)', ['e1', 'e4']],
    ]);
  });

  it('a worker that joins an incident and leaves before any later instant is not named', () => {
    // C believes only at 1.5 s (on at e3, off at e4, the same instant): the A–B incident never names it.
    const r = leaseOwners([owner(1, 0, 'A', true), owner(2, 1_000, 'B', true), owner(3, 1_500, 'C', true), owner(4, 1_500, 'C', false)], 2_000);
    expect(r.findings.map((f) => f.message)).toEqual(['A and B both believed they owned the lease (from 1 s)']);
  });

  it('a finding open at the end is counted by finish, up to its end time only', () => {
    // B starts believing at the end time itself: no positive length of overlap.
    expect(leaseOwners([owner(1, 0, 'A', true), owner(2, 2_000, 'B', true)], 2_000).findings).toEqual([]);
  });
});

describe('mutualExclusion over hand-made events', () => {
  const inside = (id: number, atMs: number, actor: string, step: number, state: CheckedEvent['state'] = 'performingEffect') => ev(id, atMs, actor, { state, step });
  const mutex = (events: readonly CheckedEvent[], endMs = 60_000) => run((listener) => mutualExclusion({ scenario: SCENARIO, listener }), events, endMs).findings;

  it('two workers in protected steps at once', () => {
    expect(mutex([inside(1, 0, 'A', 2), inside(2, 1_000, 'B', 1, 'working')], 2_000)).toEqual([
      { invariant: 'mutualExclusion', severity: 'violation', message: 'A and B were inside the critical section at the same time (from 1 s)', eventIds: ['e1', 'e2'] },
    ]);
  });

  it('a step outside the section (acquire, release), a waiting or paused worker, or a worker with no step is not inside', () => {
    expect(mutex([inside(1, 0, 'A', 2), inside(2, 1_000, 'B', 0, 'working')])).toEqual([]);
    expect(mutex([inside(1, 0, 'A', 2), inside(2, 1_000, 'B', 3, 'working')])).toEqual([]);
    expect(mutex([inside(1, 0, 'A', 2), inside(2, 1_000, 'B', 2, 'waiting')])).toEqual([]);
    expect(mutex([inside(1, 0, 'A', 2), inside(2, 1_000, 'B', 2, 'paused')])).toEqual([]);
    expect(mutex([inside(1, 0, 'A', 2), ev(2, 1_000, 'B', { state: 'working' })])).toEqual([]);
  });

  it('every doing state counts: working, performing the effect, recording the completion', () => {
    for (const state of ['working', 'performingEffect', 'recordingCompletion'] as const) {
      expect(mutex([inside(1, 0, 'A', 1, 'working'), inside(2, 1_000, 'B', 2, state)], 2_000)).toHaveLength(1);
    }
  });

  it('a worker\'s event without a state changes nothing (it stays inside)', () => {
    expect(mutex([inside(1, 0, 'A', 2), ev(2, 500, 'A', { kind: 'fault' }), inside(3, 1_000, 'B', 1, 'working')], 2_000).map((f) => f.eventIds)).toEqual([['e1', 'e3']]);
  });

  it('an actor that is not a scenario worker (the admin script) is never inside', () => {
    expect(mutex([inside(1, 0, 'A', 2), inside(2, 1_000, 'admin', 2, 'working')])).toEqual([]);
  });

  it('leaving the section (a waiting state) ends the incident', () => {
    const found = mutex([inside(1, 0, 'A', 2), inside(2, 1_000, 'B', 1, 'working'), inside(3, 2_000, 'B', 1, 'waiting'), inside(4, 3_000, 'B', 2)], 4_000);
    expect(found.map((f) => f.message)).toEqual([
      'A and B were inside the critical section at the same time (from 1 s)',
      'A and B were inside the critical section at the same time (from 3 s)',
    ]);
  });
});

describe('boundedWait over hand-made events', () => {
  const scenario: Scenario = { ...SCENARIO, horizonMs: 10_000 };
  const wait = (events: readonly CheckedEvent[], maxWaitMs = 1_000) => run((listener) => boundedWait({ scenario, listener }, maxWaitMs), events, scenario.horizonMs).findings;
  const w = (id: number, atMs: number, actor: string, state: CheckedEvent['state'], kind: CheckedEvent['kind'] = 'sql') => ev(id, atMs, actor, { state, kind });

  it('names what the worker waited for by the event that started the wait: a connection, the lease (Redis or etcd), a lock', () => {
    const on = (kind: CheckedEvent['kind']) => wait([w(1, 0, 'A', 'waiting', kind), w(2, 2_000, 'A', 'working')])[0]?.message;
    expect(on('pool')).toBe('A waited 2 s for a connection (the limit is 1 s)');
    expect(on('redis')).toBe('A waited 2 s for the lease (the limit is 1 s)');
    expect(on('etcd')).toBe('A waited 2 s for the lease (the limit is 1 s)');
    expect(on('sql')).toBe('A waited 2 s for a lock (the limit is 1 s)');
  });

  it('a wait starts at its first waiting event: later waiting events (retries) and a pause do not restart or end it', () => {
    expect(wait([w(1, 0, 'A', 'waiting', 'redis'), w(2, 500, 'A', 'waiting', 'redis'), w(3, 800, 'A', 'paused'), w(4, 1_500, 'A', 'holding')]))
      .toEqual([{ invariant: 'boundedWait', severity: 'violation', message: 'A waited 1.5 s for the lease (the limit is 1 s)', eventIds: ['e1', 'e4'] }]);
  });

  it('each worker\'s wait is its own; a wait of exactly the limit is within it', () => {
    expect(wait([w(1, 0, 'A', 'waiting'), w(2, 100, 'B', 'waiting'), w(3, 1_000, 'A', 'working'), w(4, 1_200, 'B', 'working')]).map((f) => f.message))
      .toEqual(['B waited 1.1 s for a lock (the limit is 1 s)']);
  });

  it('an event of another actor or one of its own without a state neither starts nor ends a wait', () => {
    expect(wait([w(1, 0, 'A', 'waiting'), ev(2, 100, 'A', { kind: 'sql' }), w(3, 200, 'B', 'working'), w(4, 1_500, 'A', 'working')]).map((f) => f.eventIds)).toEqual([['e1', 'e4']]);
    expect(wait([ev(1, 0, 'A', { kind: 'sql' }), w(2, 1_500, 'A', 'working')])).toEqual([]);
  });

  it('at the end: a worker still waiting (or paused while waiting) is reported up to the horizon; one that crashed or finished while waiting is not', () => {
    const atEnd = (...more: CheckedEvent[]) => wait([w(1, 2_000, 'A', 'waiting'), ...more]);
    expect(atEnd()).toEqual([{ invariant: 'boundedWait', severity: 'violation', message: 'A was still waiting for a lock when the run ended, 8 s after it started (the limit is 1 s)', eventIds: ['e1'] }]);
    expect(atEnd(w(2, 3_000, 'A', 'paused')).map((f) => f.eventIds)).toEqual([['e1']]);
    expect(atEnd(w(2, 2_500, 'A', 'crashed'))).toEqual([]);
    expect(atEnd(w(2, 2_500, 'A', 'done'))).toEqual([]);
  });

  it('the finding about a wait still open at the end says until when it was judged', () => {
    const c = boundedWait({ scenario }, 1_000);
    c.onEvent(w(1, 2_000, 'A', 'waiting'));
    c.finish(scenario.horizonMs, undefined);
    expect(c.findings[0]?.untilMs).toBe(10_000);
  });

  it('a finished wait carries no untilMs', () => {
    const c = boundedWait({ scenario }, 1_000);
    c.onEvent(w(1, 0, 'A', 'waiting'));
    c.onEvent(w(2, 5_000, 'A', 'working'));
    c.finish(scenario.horizonMs, undefined);
    expect(c.findings).toHaveLength(1);
    expect(c.findings[0]).not.toHaveProperty('untilMs');
  });
});

describe('protectedSteps: the critical section its author wrote', () => {
  const steps = (...dos: string[]) => dos.map((d) => ({ do: d, ...(d === 'work' || d === 'effect' ? { ms: 10 } : {}) })) as Scenario['workers'][number]['steps'];
  const debit = { kind: 'debit', accountId: 1, initialBalance: 100 } as const;
  const reserve = { kind: 'reserve', itemId: 7, initialStock: 1, quantity: 1 } as const;
  const external = { kind: 'external', jobKey: 'k' } as const;

  it('from an acquire to the next release, only the steps that do work (enqueue and check included)', () => {
    expect([...protectedSteps(steps('work', 'acquire', 'enqueue', 'check', 'record', 'release', 'effect'), external)]).toEqual([2, 3, 4]);
  });

  it('a read-modify-write job (debit or reserve) without an acquire protects its read … commit; another job protects nothing', () => {
    const rmw = steps('begin', 'work', 'read', 'work', 'commit', 'work');
    expect([...protectedSteps(rmw, debit)]).toEqual([2, 3]);
    expect([...protectedSteps(rmw, reserve)]).toEqual([2, 3]);
    expect([...protectedSteps(rmw, external)]).toEqual([]);
    // With an acquire, the acquire decides, also for a debit.
    expect([...protectedSteps(steps('begin', 'read', 'acquire', 'work', 'release', 'commit'), debit)]).toEqual([3]);
  });
});

describe('checkersFor and checkTrace', () => {
  it('the note on duplicates is added unless the scenario checks repeats (effectOnce, or uniqueBusinessKey for an insertOnce job)', () => {
    const kinds = (s: Scenario) => checkersFor(s).map((c) => c.kind);
    const insertOnce = findPreset('invoice-race')!.withoutFix;
    expect(insertOnce.job.kind).toBe('insertOnce');
    expect(kinds({ ...insertOnce, invariants: [{ kind: 'uniqueBusinessKey' }] })).toEqual(['uniqueBusinessKey', 'noWaitCycle']);
    expect(kinds({ ...SCENARIO, invariants: [{ kind: 'uniqueBusinessKey' }] })).toEqual(['uniqueBusinessKey', 'noWaitCycle', 'effectOnce']);
    expect(kinds({ ...SCENARIO, invariants: [{ kind: 'effectOnce', harmless: false }] })).toEqual(['effectOnce', 'noWaitCycle']);
  });

  it('without an end time a stored trace is judged to the horizon, or to its last event when that is later; an empty trace has no finding', () => {
    const s: Scenario = { ...SCENARIO, horizonMs: 10_000, invariants: [{ kind: 'singleLeaseOwner' }] };
    const owners = (findings: readonly Finding[]) => findings.filter((f) => f.invariant === 'singleLeaseOwner').map((f) => f.eventIds);
    expect(owners(checkTrace(s, [owner(1, 0, 'A', true), owner(2, 5_000, 'B', true)]))).toEqual([['e1', 'e2']]);
    expect(owners(checkTrace(s, [owner(1, 0, 'A', true), owner(2, 11_000, 'B', true), ev(3, 12_000, 'redis', { kind: 'expiry' })]))).toEqual([['e1', 'e2']]);
    expect(owners(checkTrace(s, [owner(1, 0, 'A', true), owner(2, 5_000, 'B', true)], 5_000))).toEqual([]);
    expect(checkTrace(s, [])).toEqual([]);
  });

  it('every invariant has its own plain-words name', () => {
    const texts = Object.values(INVARIANT_TEXT);
    expect(texts.every((t) => /^[a-z].{8,}/.test(t))).toBe(true);
    expect(new Set(texts).size).toBe(texts.length);
  });
});

describe('FindingLog', () => {
  it('revises only a finding it published, and freezes what it publishes (a wait cycle\'s edges too)', () => {
    const log = new FindingLog(undefined);
    const f = log.publish({ invariant: 'noWaitCycle', severity: 'violation', message: 'm', eventIds: ['e1'], cycle: [{ from: 'A', to: 'B', on: 'lease', what: 'x' }] });
    expect(Object.isFrozen(f) && Object.isFrozen(f.eventIds) && Object.isFrozen(f.cycle)).toBe(true);
    expect(() => log.revise({ ...f }, { ...f, message: 'n' })).toThrow('revise: the finding was not published by this checker');
    expect(log.revise(f, { ...f, message: 'n' }).message).toBe('n');
    expect(log.findings.map((x) => x.message)).toEqual(['n']);
  });
});
