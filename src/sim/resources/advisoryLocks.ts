/**
 * The advisory lock table of the simulated PostgreSQL database: holders with stacking counts per
 * scope, and a FIFO wait queue per key, following lock.c / proc.c of PostgreSQL 15:
 *
 * - A session that already holds the key in the requested mode (either scope) gets it again at
 *   once, even with others queued (the backend-local lock table short-circuits).
 * - Otherwise a request is granted only if it conflicts neither with another session's granted
 *   lock nor with any queued request (fairness: `conflictTab[mode] & waitMask`).
 * - A blocked request from a session that already holds the key in another mode goes ahead of the
 *   first waiter that conflicts with what it holds, and is granted at once if nothing granted or
 *   ahead of that point conflicts (ProcSleep). If that waiter in turn holds a mode the request
 *   conflicts with, the two wait for each other: ProcSleep's "early deadlock", reported at once as
 *   40P01 without waiting for `deadlock_timeout` (checked on PostgreSQL 15: two sessions holding
 *   a shared lock both asking for the exclusive one).
 * - A release grants queued requests in order, each that conflicts neither with granted locks nor
 *   with earlier still-waiting requests (ProcLockWakeup).
 *
 * Sources: PostgreSQL docs, "Advisory Lock Functions" and "Advisory Locks".
 * Pure module over plain data: no DOM, no clock, no randomness.
 */
import type { AdvisoryEntry, AdvisoryRequest, AdvisoryScope, HeldAdvisoryLock, LockMode, LockRow } from './dbTypes';
import type { AdvisoryFn, AdvisoryKey } from './sqlTypes';

/** Advisory lock table: `advisoryKeyId(key)` → entry. Entries with no holder and no waiter are removed. */
export type AdvisoryTable = Record<string, AdvisoryEntry>;

/** Stable identifier of a key: `b:42` for a bigint, `p:1:2` for an int4 pair (the spaces never overlap). */
export function advisoryKeyId(key: AdvisoryKey): string {
  return key.kind === 'bigint' ? `b:${key.key}` : `p:${key.key1}:${key.key2}`;
}

/** A key as users write it: `42` or `(1,2)`. */
export function describeAdvisoryKey(key: AdvisoryKey): string {
  return key.kind === 'bigint' ? String(key.key) : `(${key.key1},${key.key2})`;
}

/** What an advisory function does: lock (waits), try (never waits) or unlock; in which mode and scope. */
export interface AdvisoryFnInfo {
  readonly action: 'lock' | 'try' | 'unlock';
  readonly mode: LockMode;
  readonly scope: AdvisoryScope;
}

/** Decodes an advisory function name (PostgreSQL docs, "Advisory Lock Functions" table). */
export function advisoryFnInfo(fn: AdvisoryFn): AdvisoryFnInfo {
  const action = fn.includes('unlock') ? 'unlock' : fn.startsWith('pg_try_') ? 'try' : 'lock';
  return {
    action,
    mode: fn.endsWith('_shared') ? 'ShareLock' : 'ExclusiveLock',
    scope: fn.includes('_xact_') ? 'transaction' : 'session',
  };
}

/** ShareLock conflicts only with ExclusiveLock; ExclusiveLock conflicts with both. */
function conflicts(a: LockMode, b: LockMode): boolean {
  return a === 'ExclusiveLock' || b === 'ExclusiveLock';
}

/**
 * Result of `acquireAdvisory`: granted; or the session that blocks it (a holder or a queued waiter);
 * or (`reason: 'deadlock'`) ProcSleep's early deadlock with the queued `blockerSession`, which
 * requests `blockerMode` — the request was not queued.
 */
export type AcquireResult =
  | { readonly granted: true }
  | { readonly granted: false; readonly blockerSession: string; readonly reason: 'held' | 'queued' }
  | { readonly granted: false; readonly blockerSession: string; readonly reason: 'deadlock'; readonly blockerMode: LockMode };

function entryFor(table: AdvisoryTable, key: AdvisoryKey): AdvisoryEntry {
  const id = advisoryKeyId(key);
  const entry = table[id] ?? { key, holds: [], queue: [] };
  table[id] = entry;
  return entry;
}

function dropIfEmpty(table: AdvisoryTable, id: string): void {
  const entry = table[id];
  if (entry && entry.holds.length === 0 && entry.queue.length === 0) delete table[id];
}

function addHold(entry: AdvisoryEntry, req: AdvisoryRequest): void {
  const hold = entry.holds.find((h) => h.sessionId === req.sessionId && h.mode === req.mode && h.scope === req.scope);
  if (hold) hold.count += 1;
  else entry.holds.push({ sessionId: req.sessionId, mode: req.mode, scope: req.scope, count: 1 });
}

function otherHolderConflict(entry: AdvisoryEntry, sessionId: string, mode: LockMode): string | undefined {
  return entry.holds.find((h) => h.sessionId !== sessionId && conflicts(h.mode, mode))?.sessionId;
}

/**
 * Who blocks `req`: a conflicting holder, else the first conflicting waiter ahead of it (the whole
 * queue when `req` is not queued).
 */
function blockerOf(entry: AdvisoryEntry, req: AdvisoryRequest): AcquireResult {
  const holder = otherHolderConflict(entry, req.sessionId, req.mode);
  if (holder !== undefined) return { granted: false, blockerSession: holder, reason: 'held' };
  const pos = entry.queue.findIndex((q) => q.sessionId === req.sessionId);
  const ahead = (pos < 0 ? entry.queue : entry.queue.slice(0, pos)).find((q) => conflicts(q.mode, req.mode));
  return { granted: false, blockerSession: ahead?.sessionId ?? '', reason: 'queued' };
}

/**
 * ProcSleep for a session that already holds the key: at the first waiter that conflicts with its
 * holds, an early deadlock if the request conflicts with what that waiter holds (nothing queued;
 * returns the waiter), else grant at once when nothing granted or ahead conflicts, else queue
 * before that waiter. Returns 'granted', 'queued' or the waiter it deadlocks with.
 */
function queueHolder(entry: AdvisoryEntry, req: AdvisoryRequest, heldModes: readonly LockMode[]): 'granted' | 'queued' | AdvisoryRequest {
  const ahead: LockMode[] = [];
  for (let i = 0; i < entry.queue.length; i++) {
    const waiter = entry.queue[i] as AdvisoryRequest;
    if (heldModes.some((m) => conflicts(waiter.mode, m))) {
      const waiterHolds = entry.holds.filter((h) => h.sessionId === waiter.sessionId).map((h) => h.mode);
      if (waiterHolds.some((m) => conflicts(req.mode, m))) return waiter;
      const clear = !ahead.some((m) => conflicts(m, req.mode)) && otherHolderConflict(entry, req.sessionId, req.mode) === undefined;
      if (clear) addHold(entry, req);
      else entry.queue.splice(i, 0, req);
      return clear ? 'granted' : 'queued';
    }
    ahead.push(waiter.mode);
  }
  entry.queue.push(req);
  return 'queued';
}

/**
 * Requests an advisory lock for `req.sessionId`. Granted → the hold count goes up. Not granted and
 * `canWait` (the `pg_advisory_lock*` forms) → the request is queued (see the module comment for
 * where); not granted and not `canWait` (`pg_try_*`) → nothing changes.
 * Throws if the session already has a queued request (one waiting statement per session).
 */
export function acquireAdvisory(table: AdvisoryTable, key: AdvisoryKey, req: AdvisoryRequest, canWait: boolean): AcquireResult {
  const entry = entryFor(table, key);
  if (entry.queue.some((q) => q.sessionId === req.sessionId)) throw new Error(`session ${req.sessionId} already waits for an advisory lock`);
  const heldModes = entry.holds.filter((h) => h.sessionId === req.sessionId).map((h) => h.mode);
  const free = otherHolderConflict(entry, req.sessionId, req.mode) === undefined && !entry.queue.some((q) => conflicts(q.mode, req.mode));
  if (heldModes.includes(req.mode) || free) {
    addHold(entry, req);
    return { granted: true };
  }
  if (!canWait) {
    const blocked = blockerOf(entry, req);
    dropIfEmpty(table, advisoryKeyId(key));
    return blocked;
  }
  if (heldModes.length > 0) {
    const placed = queueHolder(entry, req, heldModes);
    if (placed === 'granted') return { granted: true };
    if (placed !== 'queued') return { granted: false, blockerSession: placed.sessionId, reason: 'deadlock', blockerMode: placed.mode };
  } else entry.queue.push(req);
  return blockerOf(entry, req);
}

/**
 * `pg_advisory_unlock` / `_shared`: drops one session-level hold of `mode` on the key.
 * Returns false (the caller adds the WARNING) when the session holds none at session level,
 * including when it holds the key only at transaction level.
 */
export function unlockAdvisory(table: AdvisoryTable, key: AdvisoryKey, sessionId: string, mode: LockMode): boolean {
  const id = advisoryKeyId(key);
  const entry = table[id];
  const hold = entry?.holds.find((h) => h.sessionId === sessionId && h.scope === 'session' && h.mode === mode);
  if (!entry || !hold) return false;
  hold.count -= 1;
  if (hold.count === 0) entry.holds = entry.holds.filter((h) => h !== hold);
  dropIfEmpty(table, id);
  return true;
}

/**
 * Drops every hold of the session at `scope`: `session` = `pg_advisory_unlock_all()` (also run
 * implicitly at session end), `transaction` = COMMIT/ROLLBACK/abort. Waiters are not granted here;
 * call `firstGrantable` afterwards.
 */
export function releaseAdvisoryScope(table: AdvisoryTable, sessionId: string, scope: AdvisoryScope): void {
  for (const [id, entry] of Object.entries(table)) {
    entry.holds = entry.holds.filter((h) => h.sessionId !== sessionId || h.scope !== scope);
    dropIfEmpty(table, id);
  }
}

/** Removes the session's queued request, if any (its statement was cancelled or the session ended). */
export function removeQueuedAdvisory(table: AdvisoryTable, sessionId: string): void {
  for (const [id, entry] of Object.entries(table)) {
    entry.queue = entry.queue.filter((q) => q.sessionId !== sessionId);
    dropIfEmpty(table, id);
  }
}

/**
 * The first request of the key's queue that could be granted now (ProcLockWakeup's walk): it
 * conflicts neither with another session's granted lock nor with an earlier waiter. Granting it and
 * asking again yields the same sequence as PostgreSQL's single wake-up pass.
 */
export function firstGrantable(entry: AdvisoryEntry): AdvisoryRequest | undefined {
  const ahead: LockMode[] = [];
  for (const req of entry.queue) {
    if (!ahead.some((m) => conflicts(m, req.mode)) && otherHolderConflict(entry, req.sessionId, req.mode) === undefined) return req;
    ahead.push(req.mode);
  }
  return undefined;
}

/** Grants the session's queued request on `key` (it must be `firstGrantable`). */
export function grantQueuedAdvisory(table: AdvisoryTable, key: AdvisoryKey, sessionId: string): void {
  const entry = table[advisoryKeyId(key)];
  const req = entry?.queue.find((q) => q.sessionId === sessionId);
  if (!entry || !req) throw new Error(`session ${sessionId} has no queued request for advisory ${describeAdvisoryKey(key)}`);
  entry.queue = entry.queue.filter((q) => q !== req);
  addHold(entry, req);
}

/** Orders keys: bigint keys first, then pairs, numerically. */
function compareKeys(a: AdvisoryKey, b: AdvisoryKey): number {
  if (a.kind !== b.kind) return a.kind === 'bigint' ? -1 : 1;
  if (a.kind === 'bigint' && b.kind === 'bigint') return a.key - b.key;
  if (a.kind === 'pair' && b.kind === 'pair') return a.key1 - b.key1 || a.key2 - b.key2;
  return 0;
}

/** Locale-independent string order (UTF-16 code units), for deterministic sorting. */
export function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function sortedEntries(table: AdvisoryTable): AdvisoryEntry[] {
  return Object.values(table).sort((a, b) => compareKeys(a.key, b.key));
}

/**
 * `pg_locks`-style lines of the advisory table: per key (bigint keys first, numerically), granted
 * holds ordered by session, scope (session first) and mode, then waiters in queue order.
 */
export function advisoryLockRows(table: AdvisoryTable): LockRow[] {
  const rows: LockRow[] = [];
  for (const entry of sortedEntries(table)) {
    const objectDescription = `advisory ${describeAdvisoryKey(entry.key)}`;
    const holds = [...entry.holds].sort(
      (a, b) => compareText(a.sessionId, b.sessionId) || compareText(a.scope, b.scope) || compareText(a.mode, b.mode),
    );
    for (const h of holds) rows.push({ locktype: 'advisory', objectDescription, sessionId: h.sessionId, mode: h.mode, granted: true, scope: h.scope, count: h.count });
    for (const q of entry.queue) rows.push({ locktype: 'advisory', objectDescription, sessionId: q.sessionId, mode: q.mode, granted: false, scope: q.scope });
  }
  return rows;
}

/** The advisory locks a session holds, per key and mode, with session-level and transaction-level counts. */
export function heldAdvisoryLocks(table: AdvisoryTable, sessionId: string): HeldAdvisoryLock[] {
  const out: HeldAdvisoryLock[] = [];
  for (const entry of sortedEntries(table)) {
    for (const mode of ['ExclusiveLock', 'ShareLock'] as const) {
      const count = (scope: AdvisoryScope): number =>
        entry.holds.find((h) => h.sessionId === sessionId && h.mode === mode && h.scope === scope)?.count ?? 0;
      const sessionCount = count('session');
      const xactCount = count('transaction');
      if (sessionCount + xactCount > 0) {
        const key = describeAdvisoryKey(entry.key);
        out.push({ key, advisoryKey: entry.key, description: `advisory ${key}`, mode, sessionCount, xactCount });
      }
    }
  }
  return out;
}
