// The destination checkers (noOverlappingWrites, noStaleTokenAccepted) fed hand-made
// events: a checker reads only event data (types.ts), so each rule of destinationWrites.ts is
// pinned on the exact events that decide it — which events are writes, which writes count as
// accepted and performed, how an overlap incident grows through a chain of writes, and when the
// fenced row's committed fence is a new acceptance.
import { describe, expect, it } from 'vitest';
import type { CheckedEvent } from '../engine/trace';
import type { DestinationWrite } from '../resources/destination';
import type { DbReply, Row, Stmt } from '../resources/sqlTypes';
import type { Scenario } from '../scenario/schema';
import { findPreset } from '../presets';
import type { Finding, InvariantChecker } from './types';
import { noOverlappingWrites, noStaleTokenAccepted } from './destinationWrites';

/** export-lease-expiry: an external job writing the file exports/2026-11-30.csv (an upload performs at its end). */
const FILE: Scenario = findPreset('export-lease-expiry')!.withoutFix;
/** The same job calling an API (a call performs when the API receives it, at its begin). */
const API: Scenario = { ...FILE, destination: { ...FILE.destination, kind: 'api', target: 'POST /v1/exports' } };
/** fenced-db-write: a fencedRow job on row 7 of documents. */
const FENCED: Scenario = findPreset('fenced-db-write')!.withoutFix;

/**
 * A destination event `e<id>` at `atMs`: write `w.id` of `w.worker` at `phase`, with the copy of
 * the write as it stood after the command (accepted, not performed, no token unless given).
 */
function write(id: number, atMs: number, phase: 'begin' | 'end', w: Partial<DestinationWrite> & Pick<DestinationWrite, 'id' | 'worker'>): CheckedEvent {
  const reply: DestinationWrite = { startMs: atMs, endMs: phase === 'end' ? atMs : null, token: null, idempotencyKey: null, status: 'accepted', performed: false, reply: '', ...w };
  const command = phase === 'begin' ? { op: 'begin' as const, token: reply.token, idempotencyKey: null } : { op: 'finish' as const, writeId: reply.id, token: reply.token, idempotencyKey: null };
  return { id: `e${id}`, atMs, actor: reply.worker, kind: 'destination', data: { t: 'write', writeId: reply.id, phase }, call: { resource: 'destination', caller: reply.worker, command, reply } } as CheckedEvent;
}

/** A worker's event `e<id>` that calls no resource (a step starting, a pause). */
function plain(id: number, atMs: number, actor: string, more: Partial<CheckedEvent> = {}): CheckedEvent {
  return { id: `e${id}`, atMs, actor, kind: 'worker', ...more } as CheckedEvent;
}

/** A database event `e<id>` of `actor`: `command`, its `reply`, and what the statement reports (inTransaction, committed rows). */
function sql(id: number, atMs: number, actor: string, command: Stmt, reply: DbReply, more: { inTransaction?: boolean; committed?: Record<string, Row[]> } = {}): CheckedEvent {
  return { id: `e${id}`, atMs, actor, kind: 'sql', call: { resource: 'db', caller: actor, command, reply, ...more } } as CheckedEvent;
}
const ok = (tag: string): DbReply => ({ status: 'ok', tag, rows: [] });
/** `UPDATE documents SET fence = <token> WHERE id = 7`. */
const setFence = (token: number): Stmt => ({ op: 'update', table: 'documents', set: { fence: token }, where: { id: 7 } } as unknown as Stmt);
/** The committed documents table with row 7 at `fence` (and other rows given). */
const docs = (fence: number, others: Row[] = []): Record<string, Row[]> => ({ documents: [...others, { id: 7, body: 'report', fence }] });

/** Feeds `events` to the checker `make` builds; returns its findings and what the listener heard ([message, revised message or null]). */
function run(make: (listener: (f: Finding, revises: Finding | null) => void) => InvariantChecker, events: readonly CheckedEvent[]) {
  const heard: [string, string | null][] = [];
  const checker = make((f, revises) => heard.push([f.message, revises?.message ?? null]));
  for (const e of events) checker.onEvent(e);
  checker.finish(Math.max(0, ...events.map((e) => e.atMs)), events.at(-1));
  return { findings: checker.findings.map(({ message, eventIds, severity }) => ({ severity, message, eventIds })), heard };
}
const overlaps = (events: readonly CheckedEvent[]) => run((listener) => noOverlappingWrites({ scenario: FILE, listener }), events);
const stale = (scenario: Scenario, events: readonly CheckedEvent[]) => run((listener) => noStaleTokenAccepted({ scenario, listener }), events).findings;

describe('noOverlappingWrites over hand-made events', () => {
  it('events that are no destination write are skipped: a worker event, and a write event that carries no destination call', () => {
    const events = [
      plain(1, 0, 'A'),
      write(2, 0, 'begin', { id: 1, worker: 'A', status: 'inFlight' }),
      plain(3, 500, 'B', { data: { t: 'write', writeId: 1, phase: 'end' } }),
      write(4, 1_000, 'begin', { id: 2, worker: 'B', status: 'inFlight' }),
      write(5, 2_000, 'end', { id: 1, worker: 'A', startMs: 0 }),
      write(6, 3_000, 'end', { id: 2, worker: 'B', startMs: 1_000 }),
    ];
    expect(overlaps(events).findings).toEqual([{ severity: 'violation', message: "A's and B's writes to exports/2026-11-30.csv overlapped from 1 s to 2 s, and both were accepted", eventIds: ['e2', 'e4', 'e6'] }]);
  });

  it('a write rejected when it ends overlaps no one, even an accepted write it was in flight with', () => {
    const events = [
      write(1, 0, 'begin', { id: 1, worker: 'A', status: 'inFlight' }),
      write(2, 1_000, 'begin', { id: 2, worker: 'B', status: 'inFlight' }),
      write(3, 2_000, 'end', { id: 1, worker: 'A', startMs: 0 }),
      write(4, 3_000, 'end', { id: 2, worker: 'B', startMs: 1_000, status: 'rejected' }),
    ];
    expect(overlaps(events).findings).toEqual([]);
  });

  it('a write whose copy at its end carries no end time is taken to end at that event', () => {
    const events = [
      write(1, 0, 'begin', { id: 1, worker: 'A', status: 'inFlight' }),
      write(2, 1_000, 'begin', { id: 2, worker: 'B', status: 'inFlight' }),
      write(3, 5_000, 'end', { id: 1, worker: 'A', startMs: 0 }),
      write(4, 3_000, 'end', { id: 2, worker: 'B', startMs: 1_000, endMs: null }),
    ];
    expect(overlaps(events).findings.map((f) => f.message)).toEqual(["A's and B's writes to exports/2026-11-30.csv overlapped from 1 s to 3 s, and both were accepted"]);
  });

  it('a write whose begin is not in the trace is cited by the others\' events only (no empty id)', () => {
    const events = [
      // Write 1 began before the trace starts: only its end is seen.
      write(1, 1_000, 'begin', { id: 2, worker: 'B', status: 'inFlight' }),
      write(2, 2_000, 'end', { id: 1, worker: 'A', startMs: 0 }),
      write(3, 3_000, 'end', { id: 2, worker: 'B', startMs: 1_000 }),
    ];
    expect(overlaps(events).findings).toEqual([{ severity: 'violation', message: "A's and B's writes to exports/2026-11-30.csv overlapped from 1 s to 2 s, and both were accepted", eventIds: ['e1', 'e3'] }]);
  });

  /** Four uploads chained by overlaps: A 0–2 s, B 1–3 s, C 2.5–7 s, D 6.5–8 s; each overlaps only its neighbours. */
  const chain = [
    write(1, 0, 'begin', { id: 1, worker: 'A', status: 'inFlight' }),
    write(2, 1_000, 'begin', { id: 2, worker: 'B', status: 'inFlight' }),
    write(3, 2_000, 'end', { id: 1, worker: 'A', startMs: 0 }),
    write(4, 2_500, 'begin', { id: 3, worker: 'C', status: 'inFlight' }),
    write(5, 3_000, 'end', { id: 2, worker: 'B', startMs: 1_000 }),
    write(6, 6_500, 'begin', { id: 4, worker: 'D', status: 'inFlight' }),
    write(7, 7_000, 'end', { id: 3, worker: 'C', startMs: 2_500 }),
    write(8, 8_000, 'end', { id: 4, worker: 'D', startMs: 6_500 }),
  ];

  it('a chain of overlaps is one incident: each write that joins through its neighbour revises the one finding, naming every writer', () => {
    const r = overlaps(chain);
    expect(r.findings).toEqual([{
      severity: 'violation',
      message: "A's, B's, C's and D's writes to exports/2026-11-30.csv overlapped from 1 s to 7 s, and all were accepted",
      eventIds: ['e1', 'e2', 'e4', 'e5', 'e6', 'e7', 'e8'],
    }]);
    expect(r.heard.map(([m]) => m)).toEqual([
      "A's and B's writes to exports/2026-11-30.csv overlapped from 1 s to 2 s, and both were accepted",
      "A's, B's and C's writes to exports/2026-11-30.csv overlapped from 1 s to 3 s, and all were accepted",
      "A's, B's, C's and D's writes to exports/2026-11-30.csv overlapped from 1 s to 7 s, and all were accepted",
    ]);
  });

  it('a write that overlaps one write of an incident and one write outside it joins the incident (one finding, not two)', () => {
    // A 0–2 s and B 1–3 s overlap; D 5–6 s overlaps no write that had ended; C 2.5–7 s overlaps B and D.
    const events = [
      write(1, 0, 'begin', { id: 1, worker: 'A', status: 'inFlight' }),
      write(2, 1_000, 'begin', { id: 2, worker: 'B', status: 'inFlight' }),
      write(3, 2_000, 'end', { id: 1, worker: 'A', startMs: 0 }),
      write(4, 2_500, 'begin', { id: 3, worker: 'C', status: 'inFlight' }),
      write(5, 3_000, 'end', { id: 2, worker: 'B', startMs: 1_000 }),
      write(6, 5_000, 'begin', { id: 4, worker: 'D', status: 'inFlight' }),
      write(7, 6_000, 'end', { id: 4, worker: 'D', startMs: 5_000 }),
      write(8, 7_000, 'end', { id: 3, worker: 'C', startMs: 2_500 }),
    ];
    expect(overlaps(events).findings.map((f) => [f.message, f.eventIds])).toEqual([
      ["A's, B's, D's and C's writes to exports/2026-11-30.csv overlapped from 1 s to 6 s, and all were accepted", ['e1', 'e2', 'e4', 'e5', 'e6', 'e8']],
    ]);
  });
});

describe('noStaleTokenAccepted at the destination over hand-made events', () => {
  it('events that are no destination write are skipped: a worker event, and a write event that carries no destination call', () => {
    const events = [
      plain(1, 0, 'A'),
      write(2, 1_000, 'end', { id: 1, worker: 'B', startMs: 500, token: 34, performed: true }),
      plain(3, 1_500, 'A', { data: { t: 'write', writeId: 2, phase: 'end' } }),
      write(4, 2_000, 'end', { id: 2, worker: 'A', startMs: 1_200, token: 33, performed: true }),
    ];
    expect(stale(FILE, events)).toEqual([{ severity: 'violation', message: "the destination accepted A's stale token 33 after token 34", eventIds: ['e2', 'e4'] }]);
  });

  it('a write the destination did not perform is no acceptance, whatever its token', () => {
    const events = [
      write(1, 1_000, 'end', { id: 1, worker: 'B', startMs: 500, token: 34, performed: true }),
      write(2, 2_000, 'end', { id: 2, worker: 'A', startMs: 1_200, token: 33, status: 'rejected', performed: false }),
    ];
    expect(stale(FILE, events)).toEqual([]);
  });

  it('an upload is judged at its end, not at a begin event: the acceptance cited is the end of the higher token\'s upload', () => {
    // The copies say "performed" from the begin on; for a file only the upload's end performs it.
    const events = [
      write(1, 500, 'begin', { id: 1, worker: 'B', token: 34, performed: true }),
      write(2, 1_000, 'begin', { id: 2, worker: 'A', token: 33, performed: true }),
      write(3, 2_000, 'end', { id: 1, worker: 'B', startMs: 500, token: 34, performed: true }),
      write(4, 3_000, 'end', { id: 2, worker: 'A', startMs: 1_000, token: 33, performed: true }),
    ];
    expect(stale(FILE, events)).toEqual([{ severity: 'violation', message: "the destination accepted A's stale token 33 after token 34", eventIds: ['e3', 'e4'] }]);
    // An API call performs when received: the same events judged at the begins.
    expect(stale(API, events)).toEqual([{ severity: 'violation', message: "the destination accepted A's stale token 33 after token 34", eventIds: ['e1', 'e2'] }]);
  });
});

describe('noStaleTokenAccepted on the fenced row over hand-made events', () => {
  it('a COMMIT that leaves the row\'s fence as it was is no new acceptance (another holder\'s transaction that updated nothing)', () => {
    const events = [
      sql(1, 1_000, 'B', setFence(34), ok('UPDATE 1'), { inTransaction: false, committed: docs(34) }),
      plain(2, 1_500, 'A'),
      sql(3, 2_000, 'A', { op: 'commit' }, ok('COMMIT'), { inTransaction: false, committed: docs(34) }),
    ];
    expect(stale(FENCED, events)).toEqual([]);
  });

  it('a COMMIT that moves the fence is the acceptance of the new fence, by the committer', () => {
    const events = [
      sql(1, 1_000, 'B', setFence(34), ok('UPDATE 1'), { inTransaction: false, committed: docs(34) }),
      sql(2, 2_000, 'A', { op: 'commit' }, ok('COMMIT'), { inTransaction: false, committed: docs(33) }),
    ];
    expect(stale(FENCED, events)).toEqual([{ severity: 'violation', message: "the database accepted A's stale token 33 after token 34: A's UPDATE overwrote the row B had written", eventIds: ['e1', 'e2'] }]);
  });

  it('a failed UPDATE accepts nothing, even though the event shows the committed row', () => {
    const events = [
      sql(1, 1_000, 'B', setFence(34), ok('UPDATE 1'), { inTransaction: false, committed: docs(34) }),
      sql(2, 2_000, 'A', setFence(34), { status: 'error', error: { code: '55P03', message: 'canceling statement due to lock timeout' } }, { inTransaction: false, committed: docs(34) }),
    ];
    expect(stale(FENCED, events)).toEqual([]);
  });

  it('a COMMIT that PostgreSQL answered with ROLLBACK (its transaction had failed) commits no fence, whatever the row shows', () => {
    // The trace starts after B's first write of 34: A's failed transaction ends first, then B writes 34 again.
    const events = [
      sql(1, 1_000, 'A', { op: 'commit' }, ok('ROLLBACK'), { inTransaction: false, committed: docs(34) }),
      sql(2, 2_000, 'B', setFence(34), ok('UPDATE 1'), { inTransaction: false, committed: docs(34) }),
    ];
    expect(stale(FENCED, events)).toEqual([]);
  });

  it('a statement whose committed rows do not include the fenced table commits no fence', () => {
    const events = [
      sql(1, 1_000, 'B', setFence(34), ok('UPDATE 1'), { inTransaction: false, committed: docs(34) }),
      sql(2, 2_000, 'A', { op: 'commit' }, ok('COMMIT'), { inTransaction: false, committed: { jobs: [] } }),
      sql(3, 3_000, 'A', setFence(33), ok('UPDATE 1'), { inTransaction: false, committed: docs(33) }),
    ];
    expect(stale(FENCED, events).map((f) => f.eventIds)).toEqual([['e1', 'e3']]);
  });

  it('the fence read is the fenced row\'s (id 7), not another row\'s of the same table', () => {
    const events = [
      sql(1, 1_000, 'B', setFence(34), ok('UPDATE 1'), { inTransaction: false, committed: docs(34, [{ id: 3, body: 'other', fence: 99 }]) }),
      sql(2, 2_000, 'A', setFence(33), ok('UPDATE 1'), { inTransaction: false, committed: docs(33, [{ id: 3, body: 'other', fence: 99 }]) }),
    ];
    expect(stale(FENCED, events).map((f) => f.message)).toEqual(["the database accepted A's stale token 33 after token 34: A's UPDATE overwrote the row B had written"]);
  });
});

