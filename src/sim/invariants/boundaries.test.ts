/**
 * The boundary of every comparison in the invariant checkers, through `runScenario` with small
 * hand-made scenarios: the value just inside the limit holds, the value just outside breaks it,
 * and each finding cites exactly the events that broke it (found in the trace, not hard-coded).
 * A checker that flags an equal fencing token, ignores workers that overlap only while
 * performing the effect, or counts a wait of exactly the limit fails here.
 */
import { runScenario, type RunResult } from '../engine/run';
import { findPreset } from '../presets';
import { scenario, steps } from '../presets/build';
import type { Invariant, Scenario } from '../scenario/schema';
import type { TraceEvent } from '../engine/trace';

type Parts = Parameters<typeof scenario>[0];
/** An external job (file upload unless told) under a lease with a 30 s TTL and no fencing. */
const external = (over: Partial<Parts>): Scenario => scenario({
  id: 'boundary', title: 'boundary', description: '', lesson: 'leases', horizonMs: 120_000,
  job: { kind: 'external', jobKey: 'export-1' },
  mechanism: { lock: 'lease' },
  workers: [],
  invariants: [{ kind: 'mutualExclusion' }],
  ...over,
});
const withInvariants = (s: Scenario, invariants: Invariant[]): Scenario => ({ ...s, invariants });
const preset = (id: string, fixed = false): Scenario => {
  const p = findPreset(id);
  if (!p) throw new Error(`no preset ${id}`);
  return fixed ? p.withFix : p.withoutFix;
};

/** The destination events of one worker's writes: `begin` (request sent) or `end` (upload completed / response). */
const writes = (r: RunResult, actor: string, phase: 'begin' | 'end'): TraceEvent[] =>
  r.events.filter((e) => e.actor === actor && e.data?.t === 'write' && e.data.phase === phase);
/** The first event of `actor` matching `pred`; throws if there is none (so a wrong premise fails loudly). */
const first = (r: RunResult, actor: string, pred: (e: TraceEvent) => boolean): TraceEvent => {
  const e = r.events.find((x) => x.actor === actor && pred(x));
  if (!e) throw new Error(`no matching event for ${actor}`);
  return e;
};
const violations = (r: RunResult) => r.verdict.violations.map((v) => ({ invariant: v.invariant, message: v.message, eventIds: v.eventIds }));

describe('noStaleTokenAccepted: only a lower token is stale', () => {
  // B holds the lease with token 34 and uploads twice (a retry by the same holder, same token).
  const retry = (destination: Scenario['destination'], stale: boolean) => external({
    mechanism: { lock: 'lease', fencing: true },
    destination,
    workers: [
      ...(stale ? [{ id: 'A', startMs: 0, steps: steps('acquire', ['work', 5_000], ['effect', 20_000], 'release') }] : []),
      { id: 'B', startMs: stale ? 1_000 : 0, steps: steps('acquire', ['work', 5_000], ['effect', 2_000], ['effect', 2_000], 'release') },
    ],
    faults: stale ? [{ kind: 'pause', worker: 'A', atMs: 3_000, pauseMs: 40_000 }] : [],
    invariants: [{ kind: 'noStaleTokenAccepted' }],
  });
  const file: Scenario['destination'] = { kind: 'file', target: 'exports/x.csv', checksFencing: false, honoursIdempotencyKeys: false };
  const api: Scenario['destination'] = { kind: 'api', target: 'POST /v1/exports', checksFencing: false, honoursIdempotencyKeys: false };

  it.each([['file', file], ['api', api]] as const)('%s: two writes with the same token by the same holder are not stale', (_, dest) => {
    const r = runScenario(retry(dest, false));
    expect(writes(r, 'B', 'begin').map((e) => e.command)).toEqual([`${dest.kind === 'file' ? 'PUT ' : ''}${dest.target} Fencing-Token: 33`, `${dest.kind === 'file' ? 'PUT ' : ''}${dest.target} Fencing-Token: 33`]);
    expect(r.verdict.held).toBe(true);
    expect(r.verdict.violations).toEqual([]);
  });

  it.each([['file', 'end', file], ['api', 'begin', api]] as const)('%s: a lower token after a retried higher one cites the first acceptance of the higher token (performed at %s)', (_, phase, dest) => {
    const r = runScenario(retry(dest, true));
    const bPerformed = writes(r, 'B', phase);
    const aPerformed = writes(r, 'A', phase);
    expect(bPerformed).toHaveLength(2);
    expect(aPerformed).toHaveLength(1);
    // B's two writes (token 34) come before A's (token 33): the equal second one does not move the cited event.
    expect(Number(bPerformed[1]!.id.slice(1))).toBeLessThan(Number(aPerformed[0]!.id.slice(1)));
    expect(violations(r)).toEqual([{
      invariant: 'noStaleTokenAccepted',
      message: "the destination accepted A's stale token 33 after token 34",
      eventIds: [bPerformed[0]!.id, aPerformed[0]!.id],
    }]);
  });

  it('the highest token rises: a holder that wrote 33, then saw 34 accepted, is stale with its next 33', () => {
    const r = runScenario(external({
      mechanism: { lock: 'lease', fencing: true },
      workers: [
        { id: 'A', startMs: 0, steps: steps('acquire', ['effect', 1_000], ['work', 5_000], ['effect', 1_000], 'release') },
        { id: 'B', startMs: 1_000, steps: steps('acquire', ['effect', 2_000], 'release') },
      ],
      faults: [{ kind: 'pause', worker: 'A', atMs: 3_000, pauseMs: 40_000 }],
      invariants: [{ kind: 'noStaleTokenAccepted' }],
    }));
    const aEnds = writes(r, 'A', 'end');
    const bEnd = writes(r, 'B', 'end')[0]!;
    expect(aEnds.map((e) => e.command)).toEqual(['PUT exports/2026-11-30.csv Fencing-Token: 33', 'PUT exports/2026-11-30.csv Fencing-Token: 33']);
    expect(violations(r)).toEqual([{ invariant: 'noStaleTokenAccepted', message: "the destination accepted A's stale token 33 after token 34", eventIds: [bEnd.id, aEnds[1]!.id] }]);
  });

  it('writes without a fencing token are never stale', () => {
    const r = runScenario(withInvariants(preset('export-lease-expiry'), [{ kind: 'noStaleTokenAccepted' }]));
    expect(writes(r, 'A', 'end')[0]!.command).not.toContain('Fencing-Token');
    expect(r.verdict.held).toBe(true);
  });

  it('a rejected stale write is not an accepted one', () => {
    const r = runScenario(withInvariants(preset('export-lease-expiry', true), [{ kind: 'noStaleTokenAccepted' }]));
    expect(writes(r, 'A', 'begin')[0]!.reply).toMatch(/^409 Conflict/);
    expect(r.verdict.held).toBe(true);
  });
});

describe('mutualExclusion: working, performing the effect and recording are all inside', () => {
  // B uploads for 60 s under a 30 s lease (no renewal); A takes the expired lease at 30 s and uploads too.
  const uploads = (bEffectMs: number, aEffectMs = 10_000) => external({
    workers: [
      { id: 'B', startMs: 0, steps: steps('acquire', ['effect', bEffectMs], 'release') },
      { id: 'A', startMs: 1_000, steps: steps('acquire', ['effect', aEffectMs], 'release') },
    ],
  });

  it('two workers that overlap only while performing the effect break it; the finding cites where each entered', () => {
    const r = runScenario(uploads(60_000));
    const bEnters = writes(r, 'B', 'begin')[0]!;
    const aEnters = writes(r, 'A', 'begin')[0]!;
    // Neither ever works: both are inside only as performingEffect.
    expect(r.events.filter((e) => e.state === 'working')).toEqual([]);
    expect([bEnters.state, aEnters.state]).toEqual(['performingEffect', 'performingEffect']);
    expect(violations(r)).toEqual([{
      invariant: 'mutualExclusion',
      message: 'A and B were inside the critical section at the same time (from 30 s)',
      eventIds: [bEnters.id, aEnters.id],
    }]);
  });

  it('an overlap of 1 ms counts; none when the first leaves as the second enters', () => {
    const oneMs = runScenario(uploads(30_001));
    expect(violations(oneMs).map((v) => v.message)).toEqual(['A and B were inside the critical section at the same time (from 30 s)']);
    const aEnters = writes(oneMs, 'A', 'begin')[0]!;
    expect(writes(oneMs, 'B', 'end')[0]!.atMs - aEnters.atMs).toBe(1);
    const touching = runScenario(uploads(30_000));
    expect(writes(touching, 'B', 'end')[0]!.atMs).toBe(writes(touching, 'A', 'begin')[0]!.atMs);
    expect(touching.verdict.held).toBe(true);
  });

  it('a worker that does not believe it holds anything is outside, whatever it does', () => {
    const r = runScenario(external({
      mechanism: { lock: 'none' },
      workers: [{ id: 'A', startMs: 0, steps: steps(['work', 1_000], ['effect', 5_000]) }, { id: 'B', startMs: 0, steps: steps(['work', 1_000], ['effect', 5_000]) }],
    }));
    expect(r.verdict.held).toBe(true);
  });

  it('three workers inside at once: one incident, one finding naming all three in name order', () => {
    const r = runScenario(external({
      lease: { key: 'lease:x', fenceKey: 'fence:x', fenceStart: 0, ttlMs: 1_000, retryEveryMs: 1_000, renewEveryMs: 1_000, replicationLagMs: 0 },
      workers: ['C', 'B', 'A'].map((id, i) => ({ id, startMs: i * 1_000, steps: steps('acquire', ['effect', 10_000], 'release') })),
    }));
    // B joins C at 1 s (the incident starts), A joins at 2 s: the finding is revised, not repeated.
    expect(violations(r).map((v) => v.message)).toEqual(['A, B and C were inside the critical section at the same time (from 1 s)']);
    expect(r.verdict.violations[0]!.eventIds).toEqual(['C', 'B', 'A'].map((id) => writes(r, id, 'begin')[0]!.id));
    for (const v of r.verdict.violations) {
      expect(new Set(v.eventIds).size).toBe(v.eventIds.length);
      expect(v.eventIds.map((id) => Number(id.slice(1)))).toEqual([...v.eventIds.map((id) => Number(id.slice(1)))].sort((a, b) => a - b));
    }
  });

  it('an overlap still open when the run ends is reported at the end, each cited event once', () => {
    // C's 40 s of work is cut short by a crash at 1 s; its cancelled timer still moves the clock
    // to 40 s after the last event (A entering at 30 s), so only finish() sees the overlap.
    const s = uploads(60_000, 60_000);
    const r = runScenario({ ...s, horizonMs: 45_000, workers: [...s.workers, { id: 'C', startMs: 0, steps: steps(['work', 40_000]) }], faults: [{ kind: 'crash', worker: 'C', atMs: 1_000, restartAfterMs: null }] });
    const aEnters = writes(r, 'A', 'begin')[0]!;
    expect(r.events.at(-1)).toBe(aEnters);
    expect(r.endMs).toBe(40_000);
    expect(violations(r)).toEqual([{
      invariant: 'mutualExclusion',
      message: 'A and B were inside the critical section at the same time (from 30 s)',
      eventIds: [writes(r, 'B', 'begin')[0]!.id, aEnters.id],
    }]);
  });

  // Once a bug: overlapCheck's finish() measured the overlap up to world.nowMs, the time of the
  // last processed queue item, not to the horizon. A and B are both inside from 30 s to the 35 s
  // horizon with no event after A's entry; the checkers are now finished at the horizon.
  it('an overlap from 30 s to the 35 s horizon with no later event is still a violation', () => {
    const r = runScenario({ ...uploads(60_000, 60_000), horizonMs: 35_000 });
    expect(r.events.at(-1)!.atMs).toBe(30_000);
    expect(r.checkedToMs).toBe(35_000);
    expect(r.verdict.status).toBe('violated');
    expect(violations(r)).toEqual([{
      invariant: 'mutualExclusion',
      message: 'A and B were inside the critical section at the same time (from 30 s)',
      eventIds: [writes(r, 'B', 'begin')[0]!.id, writes(r, 'A', 'begin')[0]!.id],
    }]);
    // singleLeaseOwner, finished the same way: B (expired, still believing) and A own it from 30 s to the horizon.
    const owners = runScenario({ ...uploads(60_000, 60_000), horizonMs: 35_000, invariants: [{ kind: 'singleLeaseOwner' }] });
    expect(violations(owners).map((v) => v.message)).toEqual(['A and B both believed they owned the lease (from 30 s)']);
    // An overlap that starts exactly at the horizon has no length: nothing to report.
    expect(runScenario({ ...uploads(60_000, 60_000), horizonMs: 30_000 }).verdict.violations).toEqual([]);
  });
});

describe('singleLeaseOwner: only live workers count', () => {
  const crashOwner = (restartAfterMs: number | null) => external({
    workers: [
      { id: 'A', startMs: 0, steps: steps('acquire', ['effect', 60_000], 'release') },
      { id: 'B', startMs: 1_000, steps: steps('acquire', ['effect', 10_000], 'release') },
    ],
    faults: [{ kind: 'crash', worker: 'A', atMs: 10_000, restartAfterMs }],
    invariants: [{ kind: 'singleLeaseOwner' }],
  });

  it('a crashed owner that still "believes" does not count', () => {
    const r = runScenario(crashOwner(null));
    expect(first(r, 'A', (e) => e.kind === 'fault').state).toBe('crashed');
    expect(first(r, 'B', (e) => e.data?.t === 'lease' && e.data.op === 'acquired').atMs).toBe(30_000);
    expect(r.verdict.held).toBe(true);
  });

  it('a paused owner counts (existing lesson), from the moment the successor takes the lease', () => {
    const r = runScenario(withInvariants(preset('export-lease-expiry'), [{ kind: 'singleLeaseOwner' }]));
    const bTakes = first(r, 'B', (e) => e.data?.t === 'lease' && e.data.op === 'acquired');
    const aTakes = first(r, 'A', (e) => e.data?.t === 'lease' && e.data.op === 'acquired');
    expect(violations(r)).toEqual([{ invariant: 'singleLeaseOwner', message: 'A and B both believed they owned the lease (from 30 s)', eventIds: [aTakes.id, bTakes.id] }]);
  });
});

describe('boundedWait: a wait of exactly the limit is within it', () => {
  // remote-call-in-txn: C and D wait 2.8 s for a pooled connection.
  const pool = (maxWaitMs: number, faults: Scenario['faults'] = []) => ({ ...withInvariants(preset('remote-call-in-txn'), [{ kind: 'boundedWait', maxWaitMs }]), faults });

  it('2.8 s against a limit of 2.8 s holds; against 2.799 s it breaks, citing where each wait began and ended', () => {
    expect(runScenario(pool(2_800)).verdict.held).toBe(true);
    const r = runScenario(pool(2_799));
    const began = (id: string) => first(r, id, (e) => e.reply === 'waits (pool exhausted)');
    // The wait ends at the worker's first event in another state than waiting (after it got the connection).
    const ended = (id: string) => first(r, id, (e) => e.atMs > began(id).atMs && e.state !== undefined && e.state !== 'waiting').id;
    expect(violations(r)).toEqual(['C', 'D'].map((id) => ({
      invariant: 'boundedWait',
      message: `${id} waited 2.8 s for a connection (the limit is 2.799 s)`,
      eventIds: [began(id).id, ended(id)],
    })));
  });

  it('a pause while waiting does not end the wait', () => {
    const r = runScenario(pool(1_000, [{ kind: 'pause', worker: 'C', atMs: 1_000, pauseMs: 500 }]));
    expect(first(r, 'C', (e) => e.kind === 'fault').state).toBe('paused');
    expect(violations(r).map((v) => v.message)).toEqual([
      'C waited 2.8 s for a connection (the limit is 1 s)',
      'D waited 2.8 s for a connection (the limit is 1 s)',
    ]);
  });

  it('a worker retrying SET NX waits for the lease', () => {
    const r = runScenario(withInvariants(preset('export-lease-expiry'), [{ kind: 'boundedWait', maxWaitMs: 29_000 }]));
    expect(r.verdict.held).toBe(true);
    const over = runScenario(withInvariants(preset('export-lease-expiry'), [{ kind: 'boundedWait', maxWaitMs: 28_999 }]));
    expect(violations(over)).toEqual([{
      invariant: 'boundedWait',
      message: 'B waited 29 s for the lease (the limit is 28.999 s)',
      eventIds: [first(over, 'B', (e) => e.state === 'waiting').id, first(over, 'B', (e) => e.data?.t === 'lease' && e.data.op === 'acquired').id],
    }]);
  });

  it('a waiter still waiting at the end counts from its start to the horizon; exactly the limit is no violation', () => {
    // session-lock-pool: C waits for advisory lock 42 from 0.2 s to the 10 s horizon.
    const slp = (maxWaitMs: number) => withInvariants(preset('session-lock-pool'), [{ kind: 'boundedWait', maxWaitMs }]);
    // Within the limit, but C is still waiting when the horizon comes: the run proves nothing.
    const within = runScenario(slp(9_800));
    expect(within.verdict.violations).toEqual([]);
    expect(within.verdict.status).toBe('inconclusive');
    expect(within.verdict.cutShort).toEqual({ reason: 'horizon', events: within.events.length, atMs: 10_000, unfinished: ['C'] });
    const r = runScenario(slp(9_799));
    expect(violations(r)).toEqual([{
      invariant: 'boundedWait',
      message: 'C was still waiting for a lock when the run ended, 9.8 s after it started (the limit is 9.799 s)',
      eventIds: [first(r, 'C', (e) => (e.reply ?? '').startsWith('waits')).id],
    }]);
  });

  it('a waiter that crashed for good is not still waiting', () => {
    const s = preset('session-lock-pool');
    const r = runScenario({ ...withInvariants(s, [{ kind: 'boundedWait', maxWaitMs: 1_000 }]), faults: [...s.faults, { kind: 'crash', worker: 'C', atMs: 1_000, restartAfterMs: null }] });
    expect(first(r, 'C', (e) => e.kind === 'fault').state).toBe('crashed');
    expect(r.verdict.held).toBe(true);
  });
});

describe('data integrity checkers', () => {
  it('noLostUpdate: the exact balance arithmetic, citing the updates and the commit that exposed it', () => {
    const r = runScenario(preset('balance-update'));
    const updates = r.events.filter((e) => (e.command ?? '').startsWith('UPDATE accounts'));
    expect(violations(r)).toEqual([{
      invariant: 'noLostUpdate',
      message: 'the balance is 50, but 100 minus the committed debits (80) is 20: an update was lost',
      eventIds: [...updates.map((e) => e.id), first(r, 'B', (e) => e.command === 'COMMIT').id],
    }]);
    expect(runScenario(preset('balance-update', true)).verdict.held).toBe(true);
  });

  it('noLostUpdate: autocommitted UPDATEs (no transaction) count as committed at once', () => {
    const s = preset('balance-update');
    const r = runScenario({ ...s, workers: s.workers.map((w) => ({ ...w, steps: steps('read', ['work', 100], ['effect', 0]) })) });
    expect(r.events.some((e) => e.command === 'BEGIN')).toBe(false);
    expect(violations(r).map((v) => v.message)).toEqual(['the balance is 50, but 100 minus the committed debits (80) is 20: an update was lost']);
  });

  // Once a bug: when the event that exposes a lost update is itself an autocommitted UPDATE,
  // noLostUpdate cited that event id twice (once as an update, once as the breaking event).
  // Finding.eventIds are the events in trace order, each once (the UI keys highlights by id).
  it('noLostUpdate: each cited event id appears once, even when the breaking event is an autocommitted UPDATE', () => {
    const s = preset('balance-update');
    const r = runScenario({ ...s, workers: s.workers.map((w) => ({ ...w, steps: steps('read', ['work', 100], ['effect', 0]) })) });
    const ids = r.verdict.violations[0]!.eventIds;
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('noLostUpdate: a debit that rolls back is not committed', () => {
    const s = preset('balance-update', true);
    // B's job throws after its UPDATE: its error path rolls back; the balance stays 100 - 30.
    const r = runScenario({ ...s, faults: [{ kind: 'jobError', worker: 'B', step: s.workers[1]!.steps.findIndex((x) => x.do === 'effect'), phase: 'after' }] });
    expect(first(r, 'B', (e) => e.command === 'ROLLBACK').reply).toBe('ROLLBACK');
    expect(r.verdict.held).toBe(true);
  });

  it('noLostUpdate: a debit without an amount takes 10', () => {
    const s = preset('balance-update');
    const r = runScenario({ ...s, workers: s.workers.map(({ amount: _, ...w }) => w) });
    expect(r.events.filter((e) => (e.command ?? '').startsWith('UPDATE accounts')).map((e) => e.command)).toEqual([
      'UPDATE accounts SET balance = 90 WHERE id = 1',
      'UPDATE accounts SET balance = 90 WHERE id = 1',
    ]);
    expect(violations(r).map((v) => v.message)).toEqual(['the balance is 90, but 100 minus the committed debits (20) is 80: an update was lost']);
  });

  it('noOversell: counts reservations of the job\'s quantity against the initial stock', () => {
    const s = preset('inventory-reserve');
    const r = runScenario({ ...s, job: { kind: 'reserve', itemId: 7, initialStock: 3, quantity: 2 } });
    expect(violations(r).map((v) => v.message)).toEqual(['stock is -1: 2 reservations were made for 3 item(s) in stock']);
  });

  it('noLostUpdate: a third lost update rewrites the one finding; a waiting UPDATE counts once, when it proceeds', () => {
    const s = preset('balance-update');
    const third = runScenario({ ...s, workers: [...s.workers, { id: 'C', startMs: 20, amount: 10, steps: s.workers[0]!.steps }] });
    expect(violations(third).map((v) => v.message)).toEqual(['the balance is 90, but 100 minus the committed debits (90) is 10: an update was lost']);
    // A keeps its transaction open 50 ms after its UPDATE, so B's UPDATE waits for A's row lock.
    const slow = runScenario({ ...s, workers: s.workers.map((w) => ({ ...w, steps: steps('begin', 'read', ['work', 50], ['effect', 0], ['work', 50], 'commit') })) });
    expect(slow.events.some((e) => e.actor === 'B' && (e.reply ?? '').startsWith('waits'))).toBe(true);
    expect(violations(slow).map((v) => v.message)).toEqual(['the balance is 50, but 100 minus the committed debits (80) is 20: an update was lost']);
  });

  it('noLostUpdate: a read-only transaction and a job record are not debits', () => {
    const s = preset('balance-update', true);
    const r = runScenario({
      ...s,
      mechanism: { ...s.mechanism, jobRecord: true },
      workers: [
        { ...s.workers[0]!, steps: steps('begin', 'read', ['effect', 0], 'record', 'commit') },
        { ...s.workers[1]!, steps: steps('begin', 'read', 'commit') },
      ],
    });
    expect(r.events.filter((e) => (e.command ?? '').startsWith('INSERT INTO jobs')).map((e) => e.reply)).toEqual(['INSERT 0 1']);
    expect(r.verdict.held).toBe(true);
  });

  it('the data checkers ignore jobs of another kind', () => {
    const invoice = runScenario(withInvariants(preset('invoice-race'), [{ kind: 'noLostUpdate' }, { kind: 'noOversell' }]));
    expect(invoice.verdict.held).toBe(true);
    const debit = runScenario(withInvariants(preset('balance-update'), [{ kind: 'noOversell' }, { kind: 'uniqueBusinessKey' }]));
    expect(debit.verdict.held).toBe(true);
    const reserve = runScenario(withInvariants(preset('inventory-reserve'), [{ kind: 'noLostUpdate' }]));
    expect(reserve.verdict.held).toBe(true);
  });

  it('noOversell and uniqueBusinessKey: a third offender rewrites the one finding', () => {
    const inv = preset('inventory-reserve');
    const r = runScenario({ ...inv, workers: [...inv.workers, { id: 'C', startMs: 20, steps: inv.workers[0]!.steps }] });
    expect(violations(r).map((v) => v.message)).toEqual(['stock is -2: 3 reservations were made for 1 item(s) in stock']);
    const ir = preset('invoice-race');
    const u = runScenario({ ...ir, workers: [...ir.workers, { id: 'C', startMs: 40, steps: ir.workers[0]!.steps }] });
    expect(violations(u).map((v) => v.message)).toEqual(['3 rows exist for order_id = 42 in invoices']);
  });

  it('noOversell: stock 0 holds, stock -1 breaks, citing both reservations and the commit', () => {
    expect(runScenario(preset('inventory-reserve', true)).verdict.held).toBe(true);
    const r = runScenario(preset('inventory-reserve'));
    const reservations = r.events.filter((e) => (e.command ?? '').startsWith('UPDATE items') && (e.reply ?? '').startsWith('UPDATE 1'));
    expect(reservations).toHaveLength(2);
    expect(violations(r)).toEqual([{
      invariant: 'noOversell',
      message: 'stock is -1: 2 reservations were made for 1 item(s) in stock',
      eventIds: [...reservations.map((e) => e.id), first(r, 'B', (e) => e.command === 'COMMIT').id],
    }]);
  });

  it('uniqueBusinessKey: one row holds, two rows break, citing both inserts and the commit of the second', () => {
    expect(runScenario(preset('invoice-race', true)).verdict.held).toBe(true);
    const r = runScenario(preset('invoice-race'));
    const inserts = r.events.filter((e) => (e.command ?? '').startsWith('INSERT INTO invoices'));
    expect(violations(r)).toEqual([{
      invariant: 'uniqueBusinessKey',
      message: '2 rows exist for order_id = 42 in invoices',
      eventIds: [...inserts.map((e) => e.id), first(r, 'B', (e) => e.command === 'COMMIT').id],
    }]);
  });
});

describe('destination checkers', () => {
  // Two unlocked uploads of one file: A from 0 to 10 s, B from bStartMs for 5 s.
  const twoUploads = (bStartMs: number) => external({
    mechanism: { lock: 'none' },
    workers: [{ id: 'A', startMs: 0, steps: steps(['effect', 10_000]) }, { id: 'B', startMs: bStartMs, steps: steps(['effect', 5_000]) }],
    invariants: [{ kind: 'noOverlappingWrites' }, { kind: 'effectOnce', harmless: true }],
  });

  it('noOverlappingWrites: an upload that starts as the other ends does not overlap; 1 ms earlier it does', () => {
    const touching = runScenario(twoUploads(10_000));
    expect(touching.verdict.violations).toEqual([]);
    const r = runScenario(twoUploads(9_999));
    expect(violations(r)).toEqual([{
      invariant: 'noOverlappingWrites',
      message: "A's and B's writes to exports/2026-11-30.csv overlapped from 9.999 s to 10 s, and both were accepted",
      eventIds: [writes(r, 'A', 'begin')[0]!.id, writes(r, 'B', 'begin')[0]!.id, writes(r, 'B', 'end')[0]!.id],
    }]);
  });

  it('noOverlappingWrites: an upload inside a longer one is cited in time order', () => {
    const s = twoUploads(2_000);
    const r = runScenario({ ...s, workers: [s.workers[0]!, { ...s.workers[1]!, steps: steps(['effect', 3_000]) }] });
    expect(violations(r)).toEqual([{
      invariant: 'noOverlappingWrites',
      message: "B's and A's writes to exports/2026-11-30.csv overlapped from 2 s to 5 s, and both were accepted",
      eventIds: [writes(r, 'A', 'begin')[0]!.id, writes(r, 'B', 'begin')[0]!.id, writes(r, 'A', 'end')[0]!.id],
    }]);
  });

  it('noOverlappingWrites: a write rejected at the end does not count', () => {
    const r = runScenario(withInvariants(preset('export-lease-expiry', true), [{ kind: 'noOverlappingWrites' }]));
    expect(r.events.filter((e) => e.data?.t === 'write' && (e.reply ?? '').startsWith('409'))).toHaveLength(1);
    expect(r.verdict.held).toBe(true);
  });

  it('noOverlappingWrites: an upload aborted by a crash does not count', () => {
    const s = twoUploads(5_000);
    const r = runScenario({ ...s, faults: [{ kind: 'crash', worker: 'A', atMs: 8_000, restartAfterMs: null }] });
    expect(first(r, 'A', (e) => e.kind === 'destination' && e.reply === 'upload aborted (connection closed)').atMs).toBe(8_000);
    expect(r.verdict.held).toBe(true);
    expect(r.verdict.notes).toEqual([]);
  });

  it('effectOnce: one effect is fine; two are reported (as redundant when harmless); a third updates the same finding', () => {
    const one = runScenario(twoUploads(10_000));
    expect(one.verdict.notes.map((n) => [n.severity, n.message, n.eventIds])).toEqual([
      ['redundant', 'exports/2026-11-30.csv was produced 2 times — redundant, not a violation (duplicates are harmless here)', [writes(one, 'A', 'end')[0]!.id, writes(one, 'B', 'end')[0]!.id]],
    ]);
    const s = external({
      mechanism: { lock: 'none' },
      destination: { kind: 'api', target: 'POST /v1/charges', checksFencing: false, honoursIdempotencyKeys: false },
      workers: [{ id: 'A', startMs: 0, steps: steps(['effect', 100]) }, { id: 'B', startMs: 10, steps: steps(['effect', 100]) }, { id: 'C', startMs: 20, steps: steps(['effect', 100]) }],
      invariants: [{ kind: 'effectOnce', harmless: false }],
    });
    const three = runScenario(s);
    expect(violations(three)).toEqual([{
      invariant: 'effectOnce',
      message: 'the effect POST /v1/charges was performed 3 times',
      eventIds: ['A', 'B', 'C'].map((id) => writes(three, id, 'begin')[0]!.id),
    }]);
    const single = runScenario({ ...s, workers: s.workers.slice(0, 1) });
    expect(single.verdict.violations).toEqual([]);
    expect(single.verdict.notes).toEqual([]);
  });

  it('effectOnce: a replayed idempotency key performs nothing', () => {
    const r = runScenario(withInvariants(preset('fence-ignored', true), [{ kind: 'effectOnce', harmless: false }]));
    expect(r.events.filter((e) => (e.reply ?? '').includes('replayed'))).toHaveLength(1);
    expect(r.verdict.held).toBe(true);
  });
});
