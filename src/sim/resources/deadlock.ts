/**
 * PostgreSQL's deadlock detector for the simulated database: the wait-for graph over every kind of
 * wait the model has, and the check a waiting backend runs when its `deadlock_timeout` timer fires
 * (`CheckDeadLock` / `DeadLockCheck` in PostgreSQL 15's deadlock.c; PostgreSQL docs,
 * "Deadlocks" in explicit-locking and "deadlock_timeout" in runtime-config-locks).
 *
 * Edges (`WaitEdge`), as deadlock.c builds them:
 * - hard: the waiter's requested mode conflicts with a lock another session HOLDS;
 * - soft: the waiter is queued behind another waiter whose requested mode conflicts with its own
 *   (a queue order that the detector may rearrange).
 * Per kind of wait:
 * - advisory lock: hard edges to conflicting holders (either scope), soft edges to conflicting
 *   requests queued ahead;
 * - row lock (UPDATE / DELETE / `SELECT … FOR UPDATE`): the first waiter for a row holds the
 *   row's tuple lock and waits for `ShareLock on transaction <holder's xid>`; later waiters for the
 *   same row wait for that tuple lock (hard edge to the first waiter, soft edges to waiters queued
 *   between). Checked on PostgreSQL 15: `FOR UPDATE` holds the tuple in `AccessExclusiveLock`, an
 *   UPDATE of non-key columns requests `ExclusiveLock` (`heap_acquire_tuplock`, tupleLockExtraInfo);
 * - unique-insert and key-changing UPDATE waits: `ShareLock on transaction <xid>`, hard edge to the
 *   writer of the conflicting key.
 *
 * The DETAIL of 40P01 lists the cycle starting at the checking backend, one line per member:
 * `Process <pid> waits for <mode> on <lock>; blocked by process <pid>.` The model has no pids and
 * no OIDs, so it names sessions by their id, the database as `lockscope`, a relation by its name
 * and a tuple by its key instead of its ctid:
 * `advisory lock [lockscope,0,42,1]` (PostgreSQL: `[<db oid>,<key high 32 bits>,<low 32 bits>,1]`,
 * or `[<db oid>,key1,key2,2]` for an int4 pair), `transaction 7` (the model's transaction number),
 * `tuple (id=7) of relation items of database lockscope` (PostgreSQL: `tuple (0,1) of relation
 * 16385 of database 16384`).
 *
 * Pure module over plain data: no DOM, no clock, no randomness.
 */
import { advisoryKeyId, compareText } from './advisoryLocks';
import type { DatabaseSnapshot, LockMode, WaitRecord } from './dbTypes';
import { applySet } from './dmlExec';
import type { AdvisoryKey } from './sqlTypes';
import { describeRow, uniqueConstraints } from './tableStore';

/** The database name the model writes where PostgreSQL writes the database OID. */
export const MODEL_DATABASE_NAME = 'lockscope';

/** Lock modes a waiter can request, as PostgreSQL names them in the 40P01 DETAIL. */
export type WaitMode = LockMode | 'AccessExclusiveLock';

/** One edge of the wait-for graph: `from` waits for `to`. */
export interface WaitEdge {
  readonly from: string;
  readonly to: string;
  /** `hard`: `to` holds a conflicting lock; `soft`: `to` is queued ahead with a conflicting request. */
  readonly kind: 'hard' | 'soft';
  /** The mode `from` requests. */
  readonly mode: WaitMode;
  /** The lock as the DETAIL names it, e.g. `advisory lock [lockscope,0,42,1]`, `transaction 7`. */
  readonly lock: string;
}

/** A cycle through the checking session: its edges in order, the first starting at that session. */
export type WaitCycle = readonly WaitEdge[];

function conflicts(a: WaitMode, b: WaitMode): boolean {
  return a !== 'ShareLock' || b !== 'ShareLock';
}

/** `advisory lock [lockscope,hi,lo,1]` for a bigint key, `[lockscope,key1,key2,2]` for a pair (lockfuncs.c SET_LOCKTAG_INT64 / INT32). */
export function advisoryLockTag(key: AdvisoryKey): string {
  if (key.kind === 'bigint') {
    const v = BigInt.asUintN(64, BigInt(key.key));
    return `advisory lock [${MODEL_DATABASE_NAME},${String(v >> 32n)},${String(v & 0xffffffffn)},1]`;
  }
  const u = (n: number): string => String(BigInt.asUintN(32, BigInt(n)));
  return `advisory lock [${MODEL_DATABASE_NAME},${u(key.key1)},${u(key.key2)},2]`;
}

/**
 * The tuple lock mode a row-locking statement requests (PostgreSQL 15 heapam.c tupleLockExtraInfo):
 * `SELECT … FOR UPDATE`, DELETE and an UPDATE that changes a unique-key column take
 * `LockTupleExclusive` = `AccessExclusiveLock`; an UPDATE of other columns `LockTupleNoKeyExclusive`
 * = `ExclusiveLock`.
 */
export function tupleMode(state: DatabaseSnapshot, w: WaitRecord): WaitMode {
  const { stmt, progress } = w;
  if (stmt.op !== 'update') return 'AccessExclusiveLock';
  const table = state.tables.find((t) => t.spec.name === stmt.table);
  const cand = progress?.kind === 'scan' ? progress.candidates[progress.index] : undefined;
  if (!table || !cand) return 'ExclusiveLock';
  const next = applySet(cand.values, stmt.set);
  const keyCols = new Set(uniqueConstraints(table.spec).flatMap((c) => c.columns));
  return [...keyCols].some((c) => (next[c] ?? null) !== (cand.values[c] ?? null)) ? 'AccessExclusiveLock' : 'ExclusiveLock';
}

function tupleTag(state: DatabaseSnapshot, tableName: string, rid: number): string {
  const table = state.tables.find((t) => t.spec.name === tableName);
  const row = table?.rows.find((r) => r.rid === rid);
  const values = row?.committed ?? row?.pending?.values ?? row?.pending?.superseded.at(-1) ?? {};
  const label = table ? describeRow(table.spec, values).replace(`${tableName} row `, '') : `rid=${rid}`;
  return `tuple (${label}) of relation ${tableName} of database ${MODEL_DATABASE_NAME}`;
}

/** Session whose open (not aborted) transaction is `txn`, if any. */
function sessionOfTxn(state: DatabaseSnapshot, txn: number): string | undefined {
  return state.sessions.find((s) => s.txn?.id === txn && !s.txn.aborted)?.id;
}

/**
 * Every edge of the wait-for graph, grouped by waiter in wait-start order; within a waiter, hard
 * edges first (holders in the order they were granted), then soft edges (queue order).
 */
export function waitForEdges(state: DatabaseSnapshot): WaitEdge[] {
  const edges: WaitEdge[] = [];
  const waits = [...state.waits].sort((a, b) => a.seq - b.seq);
  for (const w of waits) {
    const t = w.target;
    const add = (to: string | undefined, kind: 'hard' | 'soft', mode: WaitMode, lock: string): void => {
      if (to === undefined || to === w.sessionId) return;
      if (edges.some((e) => e.from === w.sessionId && e.to === to && e.kind === kind)) return;
      edges.push({ from: w.sessionId, to, kind, mode, lock });
    };
    if (t.kind === 'advisory') {
      const entry = state.advisory[advisoryKeyId(t.key)];
      if (!entry) continue;
      const lock = advisoryLockTag(t.key);
      for (const h of entry.holds) if (conflicts(h.mode, t.mode)) add(h.sessionId, 'hard', t.mode, lock);
      for (const q of entry.queue) {
        if (q.sessionId === w.sessionId) break;
        if (conflicts(q.mode, t.mode)) add(q.sessionId, 'soft', t.mode, lock);
      }
    } else if (t.kind === 'transactionid') {
      add(sessionOfTxn(state, t.txn) ?? t.blockerSession, 'hard', 'ShareLock', `transaction ${t.txn}`);
    } else if (t.viaUpdateChain) {
      // Followed the update chain: waits for the writer's xid, outside the row's tuple-lock queue.
      add(sessionOfTxn(state, t.txn), 'hard', 'ShareLock', `transaction ${t.txn}`);
    } else {
      const sameRow = waits.filter((x) => x.target.kind === 'tuple' && !x.target.viaUpdateChain && x.target.table === t.table && x.target.rid === t.rid);
      const first = sameRow[0];
      if (first === w) {
        add(sessionOfTxn(state, t.txn), 'hard', 'ShareLock', `transaction ${t.txn}`);
      } else if (first) {
        const mode = tupleMode(state, w);
        const lock = tupleTag(state, t.table, t.rid);
        add(first.sessionId, 'hard', mode, lock);
        for (const q of sameRow.slice(1)) {
          if (q === w) break;
          add(q.sessionId, 'soft', mode, lock);
        }
      }
    }
  }
  return edges;
}

/**
 * A cycle of the graph that starts and ends at `start` (depth-first, edges in `waitForEdges`
 * order, like FindLockCycle), using soft edges only when `withSoft`. Null when there is none.
 */
export function findCycleThrough(edges: readonly WaitEdge[], start: string, withSoft: boolean): WaitCycle | null {
  const usable = edges.filter((e) => withSoft || e.kind === 'hard');
  const visited = new Set<string>();
  const path: WaitEdge[] = [];
  const visit = (node: string): boolean => {
    visited.add(node);
    for (const e of usable.filter((x) => x.from === node)) {
      path.push(e);
      if (e.to === start) return true;
      if (!visited.has(e.to) && visit(e.to)) return true;
      path.pop();
    }
    return false;
  };
  return visit(start) ? [...path] : null;
}

/** The 40P01 DETAIL of a cycle: one line per edge (deadlock.c DeadLockReport). */
export function deadlockDetail(cycle: WaitCycle): string {
  return cycle.map((e) => `Process ${e.from} waits for ${e.mode} on ${e.lock}; blocked by process ${e.to}.`).join('\n');
}

/**
 * The lock of an edge in plain words, for narration and the inspector: `advisory lock 42`,
 * `advisory lock (1,2)`, `row id=7 of items`, `the end of transaction 7`.
 */
export function lockInWords(lock: string): string {
  const adv = /^advisory lock \[[^,]+,(\d+),(\d+),([12])\]$/.exec(lock);
  if (adv) {
    const [, a = '0', b = '0', space] = adv;
    if (space === '2') return `advisory lock (${BigInt.asIntN(32, BigInt(a)).toString()},${BigInt.asIntN(32, BigInt(b)).toString()})`;
    return `advisory lock ${BigInt.asIntN(64, (BigInt(a) << 32n) | BigInt(b)).toString()}`;
  }
  const tuple = /^tuple \((.*)\) of relation (\S+) of database/.exec(lock);
  if (tuple) return `row ${tuple[1] ?? ''} of ${tuple[2] ?? ''}`;
  const txn = /^transaction (\d+)$/.exec(lock);
  return txn ? `the end of transaction ${txn[1] ?? ''}` : lock;
}

/** Session ids on any cycle of hard edges (for the inspector and the harness), sorted. */
export function sessionsOnHardCycles(edges: readonly WaitEdge[]): string[] {
  const nodes = [...new Set(edges.map((e) => e.from))];
  return nodes.filter((n) => findCycleThrough(edges, n, false) !== null).sort(compareText);
}
