// uniqueBusinessKey, the queue checkers, the overlap rule of coordination.ts, the effect tracker,
// isOk and checkTrace, fed hand-made events: a checker reads only event data (types.ts), so each
// rule is pinned on the exact events that decide it.
import { describe, expect, it } from 'vitest';
import type { CheckedEvent } from '../engine/trace';
import type { DestinationWrite } from '../resources/destination';
import type { DbReply, Row, Stmt } from '../resources/sqlTypes';
import type { Beliefs } from '../workers/workerMachine';
import type { Scenario } from '../scenario/schema';
import { findPreset } from '../presets';
import type { Finding, InvariantChecker } from './types';
import { uniqueBusinessKey } from './uniqueBusinessKey';
import { jobCompletesWithin, oneClaimPerJob } from './queue';
import { singleLeaseOwner } from './coordination';
import { performedEffects } from './effects';
import { isOk } from './data';
import { checkersFor, checkTrace } from './index';

/** invoice-race: an insertOnce job, one row of invoices per order_id = 42. */
const RACE: Scenario = findPreset('invoice-race')!.withoutFix;
/** skip-locked-claim with a 1 s limit on jobs: a table queue (job_queue) and a horizon of 10 s. */
const CLAIM: Scenario = { ...findPreset('skip-locked-claim')!.withFix, horizonMs: 10_000, invariants: [{ kind: 'jobCompletesWithin', withinMs: 1_000 }] };
/** export-lease-expiry: an external job writing the file exports/2026-11-30.csv. */
const FILE: Scenario = findPreset('export-lease-expiry')!.withoutFix;

/** A worker's event `e<id>` that calls no resource. */
function plain(id: number, atMs: number, actor: string, more: Partial<CheckedEvent> = {}): CheckedEvent {
  return { id: `e${id}`, atMs, actor, kind: 'worker', ...more } as CheckedEvent;
}
/** A database event `e<id>` of `actor`: `command`, its `reply`, and the committed rows the statement reports. */
function sql(id: number, atMs: number, actor: string, command: Stmt, reply: DbReply, committed?: Record<string, Row[]>): CheckedEvent {
  return { id: `e${id}`, atMs, actor, kind: 'sql', call: { resource: 'db', caller: actor, command, reply, inTransaction: false, ...(committed ? { committed } : {}) } } as CheckedEvent;
}
const ok = (tag: string, rows: Row[] = []): DbReply => ({ status: 'ok', tag, rows });
/** `INSERT INTO invoices (order_id, amount) VALUES (42, 100)`, ON CONFLICT DO NOTHING when `skip`. */
const insertInvoice = (skip = false): Stmt => ({ op: 'insert', table: 'invoices', values: { order_id: 42, amount: 100 }, ...(skip ? { onConflictDoNothing: true } : {}) });
/** The committed invoices: `n` rows for order 42. */
const invoices = (n: number): Record<string, Row[]> => ({ invoices: Array.from({ length: n }, (_, i) => ({ id: i + 1, order_id: 42, amount: 100 })) });
/** The claim `SELECT … FROM job_queue … FOR UPDATE SKIP LOCKED` that returned row `id`. */
const claimRow = (id: number, atMs: number, eventId: number, actor: string) =>
  sql(eventId, atMs, actor, { op: 'select', table: 'job_queue', where: {}, lock: 'forUpdateSkipLocked' } as unknown as Stmt, ok('SELECT 1', [{ id }]));

/** Feeds `events` to the checker `make` builds, finishes at `endMs`; returns its findings and what the listener heard ([message, revised message or null]). */
function run(make: (listener: (f: Finding, revises: Finding | null) => void) => InvariantChecker, events: readonly CheckedEvent[], endMs: number) {
  const heard: [string, string | null][] = [];
  const checker = make((f, revises) => heard.push([f.message, revises?.message ?? null]));
  for (const e of events) checker.onEvent(e);
  checker.finish(endMs, events.at(-1));
  return { findings: checker.findings.map((f) => ({ ...f })), heard };
}

describe('uniqueBusinessKey over hand-made events', () => {
  it('cites only the INSERTs that inserted a row (not an ON CONFLICT DO NOTHING that inserted none); an autocommitted INSERT reveals the second row', () => {
    const events = [
      sql(1, 100, 'A', insertInvoice(), ok('INSERT 0 1'), invoices(1)),
      sql(2, 200, 'B', insertInvoice(true), ok('INSERT 0 0'), invoices(1)),
      sql(3, 300, 'C', insertInvoice(), ok('INSERT 0 1'), invoices(2)),
    ];
    expect(run((listener) => uniqueBusinessKey({ scenario: RACE, listener }), events, 1_000).findings)
      .toEqual([{ invariant: 'uniqueBusinessKey', severity: 'violation', message: '2 rows exist for order_id = 42 in invoices', eventIds: ['e1', 'e3'] }]);
  });

  it('a later statement that shows the same count leaves the finding as it is; a third row revises it', () => {
    const events = [
      sql(1, 100, 'A', insertInvoice(), ok('INSERT 0 1'), invoices(1)),
      sql(2, 200, 'B', insertInvoice(), ok('INSERT 0 1'), invoices(2)),
      sql(3, 300, 'C', { op: 'commit' }, ok('COMMIT'), invoices(2)),
      sql(4, 400, 'D', insertInvoice(), ok('INSERT 0 1'), invoices(3)),
    ];
    expect(run((listener) => uniqueBusinessKey({ scenario: RACE, listener }), events, 1_000).heard).toEqual([
      ['2 rows exist for order_id = 42 in invoices', null],
      ['3 rows exist for order_id = 42 in invoices', '2 rows exist for order_id = 42 in invoices'],
    ]);
  });
});

describe('jobCompletesWithin over hand-made events (a table queue)', () => {
  it('a job still unacknowledged at the end is reported until the end (untilMs); a job acknowledged late has no untilMs', () => {
    const events = [
      claimRow(7, 0, 1, 'A'),
      claimRow(8, 0, 2, 'B'),
      sql(3, 3_000, 'B', { op: 'commit' }, ok('COMMIT'), { job_queue: [{ id: 7, status: 'claimed' }, { id: 8, status: 'done' }] }),
    ];
    expect(run((listener) => jobCompletesWithin({ scenario: CLAIM, listener }, 1_000), events, 5_000).findings).toEqual([
      { invariant: 'jobCompletesWithin', severity: 'violation', message: 'job job_queue id=8 was acknowledged 3 s after its first delivery (the limit is 1 s)', eventIds: ['e2', 'e3'] },
      { invariant: 'jobCompletesWithin', severity: 'violation', message: 'job job_queue id=7, first delivered at 0 ms, was still not acknowledged when the run ended 5 s later (the limit is 1 s)', eventIds: ['e1'], untilMs: 5_000 },
    ]);
  });

  it('a row committed as done that the trace never delivered completes nothing and is not judged', () => {
    const events = [
      sql(1, 0, 'admin', { op: 'commit' }, ok('COMMIT'), { job_queue: [{ id: 7, status: 'done' }] }),
      claimRow(8, 100, 2, 'A'),
      sql(3, 500, 'A', { op: 'commit' }, ok('COMMIT'), { job_queue: [{ id: 7, status: 'done' }, { id: 8, status: 'done' }] }),
    ];
    expect(run((listener) => jobCompletesWithin({ scenario: CLAIM, listener }, 1_000), events, 5_000).findings).toEqual([]);
  });

  it('the queue checkers are named by their invariant', () => {
    expect([jobCompletesWithin({ scenario: CLAIM }, 1_000).kind, oneClaimPerJob({ scenario: CLAIM }).kind]).toEqual(['jobCompletesWithin', 'oneClaimPerJob']);
  });
});

describe('checkTrace', () => {
  it('judges a trace up to its last event when that comes after the horizon', () => {
    const events = [claimRow(7, 0, 1, 'A'), plain(2, 60_000, 'A')];
    expect(checkTrace(CLAIM, events).filter((f) => f.severity === 'violation').map((f) => [f.message, f.untilMs]))
      .toEqual([['job job_queue id=7, first delivered at 0 ms, was still not acknowledged when the run ended 60 s later (the limit is 1 s)', 60_000]]);
    // Up to the horizon when the trace ends before it.
    expect(checkTrace(CLAIM, [claimRow(7, 0, 1, 'A')]).filter((f) => f.severity === 'violation').map((f) => f.untilMs)).toEqual([10_000]);
  });

  it('uniqueBusinessKey declared for a job that is not insertOnce does not check repeated effects: the note on duplicates is still added', () => {
    const s: Scenario = { ...FILE, invariants: [{ kind: 'uniqueBusinessKey' }] };
    expect(checkersFor(s).map((c) => c.kind)).toEqual(['uniqueBusinessKey', 'noWaitCycle', 'effectOnce']);
    const insertOnce: Scenario = { ...RACE, invariants: [{ kind: 'uniqueBusinessKey' }] };
    expect(checkersFor(insertOnce).map((c) => c.kind)).toEqual(['uniqueBusinessKey', 'noWaitCycle']);
    // An insertOnce job that declares another invariant, neither effectOnce nor uniqueBusinessKey, still gets the note.
    expect(checkersFor({ ...RACE, invariants: [{ kind: 'mutualExclusion' }] }).map((c) => c.kind)).toEqual(['mutualExclusion', 'noWaitCycle', 'effectOnce']);
  });
});

describe('the overlap rule over hand-made events (singleLeaseOwner)', () => {
  /** A worker's event whose beliefs say whether it owns the lease. */
  const owner = (id: number, atMs: number, actor: string, owns: boolean): CheckedEvent => plain(id, atMs, actor, { state: 'holding', beliefs: { ownsLease: owns } as Beliefs });

  it('a worker that leaves in the millisecond two others enter overlaps neither of them', () => {
    const events = [owner(1, 0, 'A', true), owner(2, 1_000, 'B', true), owner(3, 1_000, 'C', true), owner(4, 1_000, 'A', false), owner(5, 2_000, 'B', true)];
    expect(run((listener) => singleLeaseOwner({ scenario: FILE, listener }), events, 3_000).findings.map((f) => [f.message, f.eventIds]))
      .toEqual([['B and C both believed they owned the lease (from 1 s)', ['e2', 'e3']]]);
  });
});

describe('performed effects over hand-made events', () => {
  it('an external job\'s effect is a destination write event: an event without a destination call is none, whatever its data says', () => {
    const w: DestinationWrite = { id: 1, worker: 'B', startMs: 500, endMs: 1_000, token: null, idempotencyKey: null, status: 'accepted', performed: true, reply: '200 OK' };
    const end = { id: 'e3', atMs: 1_000, actor: 'B', kind: 'destination', data: { t: 'write', writeId: 1, phase: 'end' }, call: { resource: 'destination', caller: 'B', command: { op: 'finish', writeId: 1, token: null, idempotencyKey: null }, reply: w } } as CheckedEvent;
    const events = [plain(1, 0, 'A'), plain(2, 500, 'A', { data: { t: 'write', writeId: 2, phase: 'end' } }), end];
    expect(performedEffects(FILE, events).map((e) => `${e.eventId} ${e.worker} ${e.businessKey} #${e.nth}`)).toEqual(['e3 B export-2026-11-30 #1']);
  });
});

describe('isOk', () => {
  it('is a success with exactly the given command tag (its row count included), without a WARNING', () => {
    expect(isOk(ok('INSERT 0 1'), 'INSERT 0 1')).toBe(true);
    expect(isOk(ok('UPDATE 1'), 'UPDATE 1')).toBe(true);
    // A tag is not a prefix: ten rows updated is not one, nor is a bare 'INSERT' the tag of one row.
    expect(isOk(ok('UPDATE 10'), 'UPDATE 1')).toBe(false);
    expect(isOk(ok('INSERT 0 10'), 'INSERT 0 1')).toBe(false);
    expect(isOk(ok('INSERT 0 1'), 'INSERT')).toBe(false);
    expect(isOk({ status: 'ok', tag: 'SELECT 1', rows: [], warning: 'you don\'t own a lock of type ExclusiveLock' }, 'SELECT 1')).toBe(false);
    expect(isOk({ status: 'error', error: { code: '23505', message: 'duplicate key value violates unique constraint' } }, 'INSERT')).toBe(false);
  });
});
