/**
 * Pure derivation of the timeline's lanes from a run: worker state segments (from the events'
 * `state`), lease ownership segments (from the snapshots), database locks held and waited for,
 * rows written and errors, destination writes with their status, and violation marks. No DOM.
 */
import type { WorkerStateName } from '../../sim';
import type { DerivedRun } from '../store/derive';
import { runEndMs } from '../store/derive';

/** A span of one worker's machine state. */
export interface StateSegment { readonly startMs: number; readonly endMs: number; readonly state: WorkerStateName }
/** A span during which the lease key had one value. */
export interface LeaseSegment {
  readonly startMs: number;
  readonly endMs: number;
  /** Owner token stored as the key's value. */
  readonly value: string;
  /** Worker whose owner token this is (or the value when nobody claims it). */
  readonly owner: string;
  readonly token: number | null;
  /** When the key would expire per its last TTL (null: no TTL). */
  readonly expiresAtMs: number | null;
}
/** A span during which a session held (or waited for) one database lock. */
export interface LockSegment { readonly startMs: number; readonly endMs: number; readonly what: string; readonly holder: string; readonly granted: boolean; readonly row: number }
/** A point mark on the database lane. */
export interface DbMark { readonly atMs: number; readonly kind: 'row' | 'error'; readonly eventId: string; readonly label: string }
/** A destination write as a bar. */
export interface WriteBar {
  readonly id: number;
  readonly worker: string;
  readonly startMs: number;
  readonly endMs: number;
  readonly token: number | null;
  readonly status: 'inFlight' | 'accepted' | 'rejected' | 'deduplicated' | 'aborted';
  readonly performed: boolean;
  /** Performed after another write already performed the effect. */
  readonly duplicate: boolean;
  readonly row: number;
  readonly reply: string;
}
/** A violation (or harmless-duplicate note) mark. */
export interface ViolationMark { readonly atMs: number; readonly message: string; readonly eventId: string; readonly severity: 'violation' | 'redundant' }

/** Everything the timeline draws. */
export interface Lanes {
  readonly endMs: number;
  readonly workers: readonly { readonly id: string; readonly segments: readonly StateSegment[] }[];
  readonly leases: readonly { readonly key: string; readonly segments: readonly LeaseSegment[] }[];
  readonly locks: readonly LockSegment[];
  readonly lockRows: number;
  readonly dbMarks: readonly DbMark[];
  readonly writes: readonly WriteBar[];
  readonly writeRows: number;
  readonly violations: readonly ViolationMark[];
}

/** The session → worker map at one snapshot (pool borrowers; the admin's own session). */
function holderOf(sessionId: string, borrowers: ReadonlyMap<string, string | null>): string {
  if (borrowers.has(sessionId)) {
    const b = borrowers.get(sessionId);
    return b ?? `${sessionId} (idle in pool)`;
  }
  return sessionId;
}

/** Stacks intervals into rows so that overlapping ones do not share a row. */
function stack<T extends { startMs: number; endMs: number }>(items: T[]): { rows: number; rowOf: number[] } {
  const rowEnds: number[] = [];
  const rowOf = items.map((it) => {
    let r = rowEnds.findIndex((end) => end <= it.startMs);
    if (r < 0) {
      r = rowEnds.length;
      rowEnds.push(it.endMs);
    } else rowEnds[r] = it.endMs;
    return r;
  });
  return { rows: Math.max(1, rowEnds.length), rowOf };
}

/** Appends a state segment, merging it with the previous one when the state is the same. */
function pushSeg(list: StateSegment[], seg: StateSegment): void {
  const prev = list.at(-1);
  if (prev && prev.state === seg.state && prev.endMs === seg.startMs) list[list.length - 1] = { ...prev, endMs: seg.endMs };
  else list.push(seg);
}

/** Derives every lane of the run (memoise per run). */
export function buildLanes(run: DerivedRun): Lanes {
  const { events, snapshots, scenario } = run;
  const endMs = runEndMs(run);

  // Workers: a segment per state change, from the events' `state`.
  const workerIds = scenario.workers.map((w) => w.id);
  const open = new Map<string, { startMs: number; state: WorkerStateName }>();
  const segs = new Map<string, StateSegment[]>(workerIds.map((id) => [id, []]));
  for (const e of events) {
    if (e.state === undefined) continue;
    if (!segs.has(e.actor)) {
      segs.set(e.actor, []);
      workerIds.push(e.actor);
    }
    const cur = open.get(e.actor);
    if (cur && cur.state === e.state) continue;
    if (cur && e.atMs > cur.startMs) pushSeg(segs.get(e.actor)!, { startMs: cur.startMs, endMs: e.atMs, state: cur.state });
    open.set(e.actor, { startMs: e.atMs, state: e.state });
  }
  for (const [id, cur] of open) if (cur.state !== 'done') pushSeg(segs.get(id)!, { startMs: cur.startMs, endMs: Math.max(endMs, cur.startMs), state: cur.state });

  // Leases: one lane per lease key (the fencing counter is not a lease).
  const leaseSegs: LeaseSegment[] = [];
  const leaseKey = scenario.lease.key;
  type OpenLease = { startMs: number; value: string; owner: string; token: number | null; expiresAtMs: number | null };
  const L: { cur: OpenLease | null } = { cur: null };
  const close = (atMs: number) => {
    if (L.cur) leaseSegs.push({ ...L.cur, endMs: Math.max(atMs, L.cur.startMs) });
    L.cur = null;
  };
  // Locks: open segments keyed by lock object + session + granted.
  const openLocks = new Map<string, { startMs: number; what: string; holder: string; granted: boolean }>();
  const lockSegs: Omit<LockSegment, 'row'>[] = [];
  snapshots.forEach((snap, i) => {
    const atMs = events[i]?.atMs ?? snap.atMs;
    const lease = snap.leases.find((l) => l.key === leaseKey);
    // A key past its expiry time is gone even before the expiry event.
    if (L.cur && L.cur.expiresAtMs !== null && L.cur.expiresAtMs < atMs && (!lease || lease.value !== L.cur.value)) close(L.cur.expiresAtMs);
    if (!lease) close(atMs);
    else {
      const owner = snap.workers.find((w) => w.beliefs.ownerToken === lease.value);
      if (!L.cur || L.cur.value !== lease.value) {
        close(atMs);
        L.cur = { startMs: atMs, value: lease.value, owner: owner?.id ?? lease.value, token: owner?.beliefs.fencingToken ?? null, expiresAtMs: lease.expiresAtMs };
      } else {
        L.cur.expiresAtMs = lease.expiresAtMs;
        if (L.cur.token === null && owner?.beliefs.fencingToken != null) L.cur.token = owner.beliefs.fencingToken;
      }
    }
    const borrowers = new Map(snap.pool.connections.map((c) => [c.id, c.borrower] as const));
    const seen = new Set<string>();
    for (const l of snap.locks) {
      const holder = holderOf(l.sessionId, borrowers);
      const key = `${l.locktype}|${l.objectDescription}|${l.sessionId}|${l.granted}`;
      seen.add(key);
      const o = openLocks.get(key);
      if (!o) openLocks.set(key, { startMs: atMs, what: `${l.objectDescription} ${l.mode}${l.scope ? ` (${l.scope})` : ''}`, holder, granted: l.granted });
      else if (o.holder !== holder && !holder.includes('idle')) o.holder = holder;
    }
    for (const [key, o] of openLocks) {
      if (!seen.has(key)) {
        lockSegs.push({ ...o, endMs: atMs });
        openLocks.delete(key);
      }
    }
  });
  const finalExp = L.cur ? (L.cur as OpenLease).expiresAtMs : null;
  close(finalExp !== null ? Math.min(finalExp, endMs) : endMs);
  for (const o of openLocks.values()) lockSegs.push({ ...o, endMs });
  lockSegs.sort((a, b) => a.startMs - b.startMs);
  const lockStack = stack(lockSegs.map((l) => ({ startMs: l.startMs, endMs: Math.max(l.endMs, l.startMs + 1) })));

  // Database marks: rows written, errors.
  const dbMarks: DbMark[] = [];
  for (const e of events) {
    if (e.kind !== 'sql' || !e.reply) continue;
    if (/^ERROR/.test(e.reply)) dbMarks.push({ atMs: e.atMs, kind: 'error', eventId: e.id, label: e.reply.slice(0, 80) });
    else if (/^(INSERT 0 [1-9]|UPDATE [1-9])/.test(e.reply)) dbMarks.push({ atMs: e.atMs, kind: 'row', eventId: e.id, label: `${e.actor}: ${e.reply}` });
  }

  // Destination writes from the final snapshot.
  const last = snapshots.at(-1);
  const rawWrites = last?.destination.writes ?? [];
  let performedSoFar = 0;
  const byPerformOrder = [...rawWrites].filter((w) => w.performed).sort((a, b) => (a.endMs ?? endMs) - (b.endMs ?? endMs) || a.id - b.id);
  const dupIds = new Set<number>();
  for (const w of byPerformOrder) {
    performedSoFar += 1;
    if (performedSoFar > 1) dupIds.add(w.id);
  }
  const items = rawWrites.map((w) => ({ ...w, startMs: w.startMs, endMs: Math.max(w.endMs ?? endMs, w.startMs) }));
  const wStack = stack(items.map((w) => ({ startMs: w.startMs, endMs: w.endMs === w.startMs ? w.startMs + 1 : w.endMs })));
  const writes: WriteBar[] = items.map((w, i) => ({
    id: w.id, worker: w.worker, startMs: w.startMs, endMs: w.endMs, token: w.token, status: w.status, performed: w.performed,
    duplicate: dupIds.has(w.id), row: wStack.rowOf[i]!, reply: w.reply,
  }));

  const timeOf = (id: string) => events.find((e) => e.id === id)?.atMs ?? 0;
  const violations: ViolationMark[] = [...run.verdict.violations, ...run.verdict.notes].map((f) => {
    const eventId = f.eventIds.at(-1) ?? '';
    return { atMs: timeOf(eventId), message: f.message, eventId, severity: f.severity };
  });

  return {
    endMs,
    workers: workerIds.map((id) => ({ id, segments: segs.get(id) ?? [] })),
    leases: scenario.mechanism.lock === 'lease' || leaseSegs.length > 0 || scenario.faults.some((f) => ['expireLease', 'manualDelete', 'failover', 'clockJump'].includes(f.kind))
      ? [{ key: leaseKey, segments: leaseSegs }] : [],
    locks: lockSegs.map((l, i) => ({ ...l, row: lockStack.rowOf[i]! })),
    lockRows: lockStack.rows,
    dbMarks,
    writes,
    writeRows: wStack.rows,
    violations,
  };
}

/** Plain-words name of a worker state. */
export const STATE_TEXT: Record<WorkerStateName, string> = {
  idle: 'idle',
  requesting: 'requesting',
  waiting: 'waiting',
  holding: 'holding the lock',
  working: 'working',
  performingEffect: 'performing the effect',
  recordingCompletion: 'recording completion',
  releasing: 'releasing',
  paused: 'paused',
  crashed: 'crashed',
  done: 'done',
};
