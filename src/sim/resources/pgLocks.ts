/**
 * The `pg_locks` view as PostgreSQL 15 shows it for the model's sessions (PostgreSQL docs,
 * "pg_locks", "Table-Level Locks", "Row-Level Locks"; ../shared/semantics.md).
 *
 * What the real view holds, and therefore what `pgLockRows` lists (checked step by step against
 * a real server by the fidelity suite, `fidelity/pgLocksCompare.ts`):
 * - `virtualxid` ExclusiveLock: every transaction in progress — an explicit block after BEGIN, or
 *   the implicit transaction of an autocommit statement that waits. None in an aborted block
 *   (PostgreSQL aborts at the error and releases every lock then).
 * - `relation`: one line per table and mode a statement of the transaction touched, held to its
 *   end: SELECT → AccessShareLock, SELECT … FOR UPDATE (NOWAIT / SKIP LOCKED) → RowShareLock,
 *   INSERT / UPDATE / DELETE → RowExclusiveLock. (Index relations are left out: when PostgreSQL
 *   locks an index depends on its plan, not on the statement's meaning.)
 * - `transactionid` ExclusiveLock on the transaction's own xid once one is assigned (see
 *   `TxnState.xidAssigned`); a statement waiting for another transaction's end (a row locked or
 *   written by it, a unique key it inserted) holds a `transactionid` ShareLock request on that
 *   xid, not granted.
 * - `tuple`: row locks themselves live in the tuple header, not in `pg_locks`; only waiters show
 *   here. The first statement waiting for a row holds the row's tuple lock (granted) while it
 *   waits for the holder's xid; later ones wait for the tuple lock (not granted). Mode: FOR UPDATE
 *   and DELETE AccessExclusiveLock; UPDATE ExclusiveLock, or AccessExclusiveLock when it changes a
 *   key column (primary key or unique). A waiter that followed the row's update chain to a newest
 *   version another open transaction wrote waits for that xid without the tuple lock.
 * - `advisory`: one line per key, session and mode, granted (session- and transaction-level holds
 *   of one key share the line), plus one not-granted line per queued request.
 *
 * Pure module: no DOM, no clock, no randomness.
 */
import { describeAdvisoryKey } from './advisoryLocks';
import { tupleMode } from './deadlock';
import type { DatabaseSnapshot, SessionRecord, TableState } from './dbTypes';
import type { Stmt } from './sqlTypes';

/** Lock modes that appear in the model's `pg_locks` lines (PostgreSQL docs, "Table-Level Lock Modes"). */
export type PgLockMode = 'AccessShareLock' | 'RowShareLock' | 'RowExclusiveLock' | 'ShareLock' | 'ExclusiveLock' | 'AccessExclusiveLock';

/**
 * One line of `pg_locks`, with object identities in the model's terms instead of OIDs and xids:
 * - `relation`: `relation` = table name;
 * - `transactionid`: `xactOf` = the session whose transaction the xid is (itself for its own
 *   ExclusiveLock, the blocker for a ShareLock wait);
 * - `tuple`: `relation` = table, `row` = the row as `id=7` (primary key, else all columns);
 * - `advisory`: `advisoryKey` = `42` or `(1,2)`;
 * - `virtualxid`: the session's own transaction.
 */
export interface PgLockRow {
  readonly locktype: 'relation' | 'virtualxid' | 'transactionid' | 'tuple' | 'advisory';
  readonly sessionId: string;
  readonly mode: PgLockMode;
  readonly granted: boolean;
  readonly relation?: string;
  readonly row?: string;
  readonly xactOf?: string;
  readonly advisoryKey?: string;
}

/** The table-level lock a data statement takes (PostgreSQL docs, "Table-Level Locks"), or null (BEGIN, advisory functions, …). */
export function relationLockOf(stmt: Stmt): { readonly table: string; readonly mode: PgLockMode } | null {
  switch (stmt.op) {
    case 'select':
      return { table: stmt.table, mode: stmt.lock ? 'RowShareLock' : 'AccessShareLock' };
    case 'insert':
    case 'update':
    case 'delete':
      return { table: stmt.table, mode: 'RowExclusiveLock' };
    case 'nextval':
      // nextval opens the sequence with RowExclusiveLock, held until the transaction ends (sequence.c).
      return { table: stmt.seq, mode: 'RowExclusiveLock' };
    default:
      return null;
  }
}

/** Whether a statement that waits already has its own xid: UPDATE, DELETE and a plain INSERT do (they write before or while they wait); SELECT … FOR UPDATE and INSERT … ON CONFLICT DO NOTHING do not. */
export function waitAssignsXid(stmt: Stmt): boolean {
  return stmt.op === 'update' || stmt.op === 'delete' || (stmt.op === 'insert' && stmt.onConflictDoNothing !== true);
}

function describeRowKey(table: TableState | undefined, rid: number): string {
  const row = table?.rows.find((r) => r.rid === rid);
  const values = row?.committed ?? row?.pending?.values ?? row?.pending?.superseded.at(-1) ?? {};
  const cols = table?.spec.primaryKey?.length ? table.spec.primaryKey : Object.keys(values);
  return cols.map((c) => `${c}=${String(values[c] ?? 'NULL')}`).join(',');
}

function liveTxn(session: SessionRecord): SessionRecord['txn'] {
  return session.txn && !session.txn.aborted ? session.txn : null;
}

/**
 * The model's `pg_locks` (see the module comment), per session in the order sessions were opened:
 * virtualxid, transactionid, relation, tuple, advisory lines. Pure: reads the state, changes nothing.
 */
export function pgLockRows(state: DatabaseSnapshot): PgLockRow[] {
  const out: PgLockRow[] = [];
  const sessionOfTxn = new Map<number, string>();
  for (const s of state.sessions) if (s.txn && !s.txn.aborted) sessionOfTxn.set(s.txn.id, s.id);
  const firstTupleWaiter = new Map<string, number>();
  for (const w of state.waits) {
    if (w.target.kind !== 'tuple' || w.target.viaUpdateChain) continue;
    const id = `${w.target.table}:${w.target.rid}`;
    const seen = firstTupleWaiter.get(id);
    if (seen === undefined || w.seq < seen) firstTupleWaiter.set(id, w.seq);
  }
  for (const session of state.sessions) {
    const sid = session.id;
    const txn = liveTxn(session);
    if (txn) {
      out.push({ locktype: 'virtualxid', sessionId: sid, mode: 'ExclusiveLock', granted: true });
      if (txn.xidAssigned) out.push({ locktype: 'transactionid', sessionId: sid, mode: 'ExclusiveLock', granted: true, xactOf: sid });
      for (const entry of txn.relationLocks ?? []) {
        const cut = entry.lastIndexOf(':');
        out.push({ locktype: 'relation', sessionId: sid, mode: entry.slice(cut + 1) as PgLockMode, granted: true, relation: entry.slice(0, cut) });
      }
    }
    const wait = state.waits.find((w) => w.sessionId === sid);
    if (wait?.target.kind === 'tuple' && wait.target.viaUpdateChain) {
      const holder = sessionOfTxn.get(wait.target.txn);
      if (holder !== undefined) out.push({ locktype: 'transactionid', sessionId: sid, mode: 'ShareLock', granted: false, xactOf: holder });
    } else if (wait?.target.kind === 'tuple') {
      const t = wait.target;
      const table = state.tables.find((x) => x.spec.name === t.table);
      const first = firstTupleWaiter.get(`${t.table}:${t.rid}`) === wait.seq;
      out.push({ locktype: 'tuple', sessionId: sid, mode: tupleMode(state, wait), granted: first, relation: t.table, row: describeRowKey(table, t.rid) });
      const holder = sessionOfTxn.get(t.txn);
      if (first && holder !== undefined) out.push({ locktype: 'transactionid', sessionId: sid, mode: 'ShareLock', granted: false, xactOf: holder });
    } else if (wait?.target.kind === 'transactionid') {
      out.push({ locktype: 'transactionid', sessionId: sid, mode: 'ShareLock', granted: false, xactOf: wait.target.blockerSession });
    }
    for (const entry of Object.values(state.advisory)) {
      const advisoryKey = describeAdvisoryKey(entry.key);
      for (const mode of ['ExclusiveLock', 'ShareLock'] as const) {
        if (entry.holds.some((h) => h.sessionId === sid && h.mode === mode && h.count > 0)) out.push({ locktype: 'advisory', sessionId: sid, mode, granted: true, advisoryKey });
      }
      for (const q of entry.queue) if (q.sessionId === sid) out.push({ locktype: 'advisory', sessionId: sid, mode: q.mode, granted: false, advisoryKey });
    }
  }
  return out;
}

/** One line of `pg_locks` in a comparable form: `s1 relation items RowExclusiveLock t`, `s2 transactionid of s1 ShareLock f`. */
export function pgLockLine(l: PgLockRow): string {
  const object =
    l.locktype === 'relation' ? l.relation :
    l.locktype === 'tuple' ? `${l.relation ?? '?'}` :
    l.locktype === 'transactionid' ? (l.xactOf === l.sessionId ? 'own' : `of ${l.xactOf ?? '?'}`) :
    l.locktype === 'advisory' ? l.advisoryKey :
    'own';
  return `${l.sessionId} ${l.locktype} ${object ?? '?'} ${l.mode} ${l.granted ? 't' : 'f'}`;
}
