/**
 * The simulated PostgreSQL 15 database: sessions, READ COMMITTED / REPEATABLE READ / SERIALIZABLE
 * transactions (`database.isolation.test.ts`), unique and CHECK
 * constraints, row locks and advisory locks, with the replies (and waits) PostgreSQL gives.
 * The rules, with sources, are in the project's semantics notes ("The semantics Lockscope must
 * reproduce", its PostgreSQL sections).
 *
 * Files: `advisoryLocks.ts` (advisory lock table), `tableStore.ts` (rows, visibility,
 * constraints), `dmlExec.ts` (resumable SELECT/INSERT/UPDATE/DELETE), `stmtValidate.ts`
 * (programming-error checks), `sqlErrors.ts` (error texts), `dbTypes.ts` (state and view types).
 *
 * Pure, deterministic module: no clock, no randomness, no DOM; time is the caller's business
 * (timeouts arrive as `cancelWaiting`).
 */
import {
  acquireAdvisory,
  advisoryFnInfo,
  advisoryKeyId,
  advisoryLockRows,
  compareText,
  describeAdvisoryKey,
  firstGrantable,
  grantQueuedAdvisory,
  heldAdvisoryLocks,
  releaseAdvisoryScope,
  removeQueuedAdvisory,
  unlockAdvisory,
} from './advisoryLocks';
import type { DatabaseSnapshot, LockRow, SerializableTxn, SessionRecord, SessionState, TableState, TxnState, WaitRecord } from './dbTypes';
import { pgLockRows, relationLockOf, waitAssignsXid, type PgLockRow } from './pgLocks';
import { continueInsert, continueScan, runPlainSelect, startInsert, startScan, type ExecContext, type Outcome } from './dmlExec';
import { advisoryLockTag, deadlockDetail, findCycleThrough, waitForEdges, type WaitCycle, type WaitEdge } from './deadlock';
import { ALREADY_IN_TRANSACTION_WARNING, deadlockDetected, inFailedTransaction, NO_TRANSACTION_WARNING, notOwnedWarning, readWriteDependencyError } from './sqlErrors';
import type { CommittedRows, DbCompletion, DbReply, DbResult, IsolationLevel, Row, SqlError, Stmt, TableSpec } from './sqlTypes';
import { createTableState, endTxnRows, project, rowLabel, visibleVersion } from './tableStore';
import { validateStmt } from './stmtValidate';

// The state/view types and the text renderers, re-exported so callers need one import.
export type { DatabaseSnapshot, HeldAdvisoryLock, LockMode, LockRow, SessionState } from './dbTypes';
export type { WaitCycle, WaitEdge, WaitMode } from './deadlock';
export { lockInWords } from './deadlock';
export { renderCreateTable, renderReply, renderSequenceSetup, renderSql, renderTableSetup } from './renderSql';

/** Deep copy of plain JSON data. */
function clone<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}

/** How many values PostgreSQL WAL-logs ahead for a sequence (sequence.c `SEQ_LOG_VALS`). */
const SEQ_LOG_VALS = 32;

function okOutcome(tag: string, rows: readonly Row[] = [], warning?: string): Outcome {
  return warning === undefined ? { kind: 'ok', tag, rows } : { kind: 'ok', tag, rows, warning };
}

function okReply(tag: string, warning?: string): DbReply {
  return warning === undefined ? { status: 'ok', tag, rows: [] } : { status: 'ok', tag, rows: [], warning };
}

type AdvisoryStmt = Extract<Stmt, { op: 'advisory' | 'advisoryUnlockAll' }>;

/** How many soft edges one deadlock check may reverse (PostgreSQL bounds its search by MaxBackends; the model's cycles are short). */
const MAX_REARRANGE_DEPTH = 4;

/**
 * What `Database.checkDeadlock` found for the waiting session:
 * - `none`: its wait is on no cycle; it keeps waiting (PostgreSQL checks once per lock wait, so a
 *   cycle closed later is found only by another waiter's timer);
 * - `soft`: its wait is on a cycle only through soft edges (a conflicting request queued ahead),
 *   and reordering advisory wait queues removes every cycle through it: as PostgreSQL (`process N
 *   avoided deadlock for … by rearranging queue order`), the waiter behind moves just ahead of the
 *   one it was queued behind, and requests the new order makes grantable are granted
 *   (`completions`, possibly the checker's own statement). Checked on PostgreSQL 15 with a shared
 *   request queued behind an exclusive one. When no reordering helps — in particular when a
 *   reordering meets a hard cycle among other sessions — PostgreSQL fails the checker anyway:
 *   `deadlock` with the soft cycle as DETAIL;
 * - `deadlock`: a hard cycle through it: its statement failed with 40P01, `completions` starts with
 *   that failure and continues with the statements of other sessions it unblocked.
 */
export type DeadlockCheck =
  | { readonly kind: 'none' }
  | { readonly kind: 'soft'; readonly cycle: WaitCycle; readonly completions: readonly DbCompletion[] }
  | { readonly kind: 'deadlock'; readonly cycle: WaitCycle; readonly completions: readonly DbCompletion[] };
type TxnWait = WaitRecord & { readonly target: Extract<WaitRecord['target'], { kind: 'transactionid' }> };

/**
 * A PostgreSQL 15 server, driven one statement at a time (READ COMMITTED by default; `BEGIN
 * ISOLATION LEVEL …` opens REPEATABLE READ or SERIALIZABLE: see `TxnState.snapshot`, `SerializableTxn`).
 *
 * - Autocommit without BEGIN; COMMIT/ROLLBACK/BEGIN warnings as psql shows them; a failed
 *   statement in a block aborts it at once (its locks and changes are released then, as
 *   PostgreSQL does) and later statements get 25P02 until COMMIT/ROLLBACK (COMMIT replies
 *   `ROLLBACK`). Sources: PostgreSQL docs, "BEGIN", "COMMIT", "Transaction Isolation".
 * - Unique keys, CHECK, row locks: see `dmlExec.ts` and `tableStore.ts`.
 * - Advisory locks: see `advisoryLocks.ts` (PostgreSQL docs, "Advisory Lock Functions").
 * - A statement that cannot proceed gets a `waits` reply and stays with its session; when what
 *   it waits for is released, waiting statements are resumed in the order they started waiting
 *   (a resumed statement may wait again) and reported as `DbCompletion`s.
 * - Deadlocks as PostgreSQL detects them (`deadlock.ts`): the caller runs `checkDeadlock` for a
 *   waiting session when that session's `deadlock_timeout` has passed since its wait started (once
 *   per wait, as PostgreSQL's timer fires once); a hard cycle through it fails its statement with
 *   40P01 and aborts its transaction. ProcSleep's early deadlock on an advisory lock (a holder
 *   upgrading against a waiter that holds the key too) fails at once. Time is the caller's.
 */
export class Database {
  private state: DatabaseSnapshot;

  /**
   * Creates the tables with their initial rows committed, and the sequences (`CREATE SEQUENCE name
   * START start`: name → the first value `nextval` returns). Throws Error on a duplicate table name,
   * a bad spec or a start that is not a positive safe integer.
   */
  constructor(tables: readonly TableSpec[], sequences: Readonly<Record<string, number>> = {}) {
    const names = tables.map((t) => t.name);
    if (new Set(names).size !== names.length) throw new Error('duplicate table name');
    for (const [name, start] of Object.entries(sequences)) if (!Number.isSafeInteger(start) || start < 1) throw new Error(`sequence ${name}: start must be a positive integer, got ${start}`);
    this.state = { version: 2, tables: tables.map((t) => createTableState(clone(t))), sessions: [], advisory: {}, waits: [], nextTxnId: 1, nextSeq: 1 };
    if (Object.keys(sequences).length > 0) this.state.sequences = Object.fromEntries(Object.entries(sequences).map(([n, start]) => [n, { next: start, logCnt: 0 }]));
  }

  /** Opens a backend session (a connection). Throws Error if the id exists. */
  openSession(sessionId: string): void {
    if (this.state.sessions.some((s) => s.id === sessionId)) throw new Error(`session ${sessionId} already exists`);
    this.state.sessions.push({ id: sessionId, txn: null });
  }

  /**
   * Runs one statement for the session and returns its reply plus other sessions' waiting
   * statements it unblocked. Throws Error only for programming errors: unknown session, unknown
   * table/column, a value that does not fit its column, or a session that already waits.
   */
  execute(sessionId: string, stmt: Stmt): DbResult {
    const session = this.session(sessionId);
    if (this.waitOf(sessionId)) throw new Error(`session ${sessionId} already has a waiting statement`);
    validateStmt(this.state.tables, stmt);
    const reply = this.runStatement(session, stmt);
    const committed = reply.status === 'waits' ? undefined : this.committedAfter(stmt);
    const completions = this.wake();
    return committed === undefined ? { reply, completions } : { reply, completions, committed };
  }

  /** The committed rows a statement may have changed, as they stand now (`CommittedRows`); undefined for a statement that changes none. */
  private committedAfter(stmt: Stmt): CommittedRows | undefined {
    if (stmt.op === 'commit') return Object.fromEntries(this.state.tables.map((t) => [t.spec.name, this.committedRows(t.spec.name)]));
    if (stmt.op === 'insert' || stmt.op === 'update') return { [stmt.table]: this.committedRows(stmt.table) };
    return undefined;
  }

  /**
   * Ends the session however it ends (disconnect/crash): cancels its waiting statement (no
   * completion is reported for it), rolls back its open transaction and releases all its advisory
   * locks (the implicit `pg_advisory_unlock_all`). Returns statements of OTHER sessions unblocked
   * as a result. Throws Error for an unknown session.
   */
  closeSession(sessionId: string): readonly DbCompletion[] {
    const session = this.session(sessionId);
    this.dropWait(sessionId);
    if (session.txn && !session.txn.aborted) endTxnRows(this.state.tables, session.txn.id, false);
    if (session.txn) this.forgetSerializable(session.txn.id);
    releaseAdvisoryScope(this.state.advisory, sessionId, 'transaction');
    releaseAdvisoryScope(this.state.advisory, sessionId, 'session');
    this.state.sessions = this.state.sessions.filter((s) => s !== session);
    return this.wake();
  }

  /**
   * Cancels the session's waiting statement with `error` (lock_timeout: 55P03 `canceling statement
   * due to lock timeout`; statement_timeout: 57014; see `sqlErrors.ts`). The transaction becomes
   * aborted (an autocommit statement's is rolled back); session-level advisory locks stay held.
   * Returns that statement's completion followed by completions of others it unblocked.
   * Throws Error if the session does not exist or nothing waits.
   */
  cancelWaiting(sessionId: string, error: SqlError): readonly DbCompletion[] {
    const session = this.session(sessionId);
    const wait = this.waitOf(sessionId);
    if (!wait) throw new Error(`session ${sessionId} has no waiting statement`);
    this.dropWait(sessionId);
    this.abort(session);
    const own: DbCompletion = { sessionId, stmt: wait.stmt, reply: { status: 'error', error } };
    return [own, ...this.wake()];
  }

  /**
   * The deadlock check of a waiting session whose `deadlock_timeout` timer fired (PostgreSQL 15
   * `CheckDeadLock`): looks for a cycle of the wait-for graph (`waitForGraph`) through that
   * session's wait; see `DeadlockCheck` for the three outcomes. On a deadlock its statement fails
   * with 40P01 (DETAIL: the cycle from this session on), its transaction is aborted at once —
   * locks and row changes of the transaction released before any ROLLBACK, session-level advisory
   * locks kept (checked on PostgreSQL 15) — and waiters it blocked proceed.
   * Throws Error if the session does not exist or does not wait.
   */
  checkDeadlock(sessionId: string): DeadlockCheck {
    const session = this.session(sessionId);
    const wait = this.waitOf(sessionId);
    if (!wait) throw new Error(`session ${sessionId} has no waiting statement`);
    const edges = waitForEdges(this.state);
    const hard = findCycleThrough(edges, sessionId, false);
    const soft = hard ? null : findCycleThrough(edges, sessionId, true);
    if (!hard && !soft) return { kind: 'none' };
    if (soft && this.rearrange(sessionId, MAX_REARRANGE_DEPTH)) return { kind: 'soft', cycle: soft, completions: this.wake() };
    // PostgreSQL reports the first cycle through the checker over all edges, hard and soft, in the
    // state before any reordering (DeadLockCheck calls FindLockCycle once more for the DETAIL).
    const cycle = findCycleThrough(edges, sessionId, true) as WaitCycle;
    this.dropWait(sessionId);
    this.abort(session);
    const own: DbCompletion = { sessionId, stmt: wait.stmt, reply: { status: 'error', error: deadlockDetected(deadlockDetail(cycle)) } };
    return { kind: 'deadlock', cycle, completions: [own, ...this.wake()] };
  }

  /**
   * DeadLockCheckRecurse / TestConfiguration over advisory wait queues: while a cycle through
   * `sessionId` (or, once queues were reordered, through a session a reordering moved or moved
   * ahead of) remains, try reversing each of its soft edges — the waiter moves just ahead of the
   * request it was queued behind, as TopoSort orders it — up to `depth` reversals. A cycle of hard
   * edges found on the way rules out that reordering only: the next soft edge is tried
   * (DeadLockCheckRecurse: TestConfiguration's -1 ends one configuration; checked on PostgreSQL 15).
   * (A hard cycle through the checker itself before any reordering is a deadlock: `checkDeadlock`
   * does not call this then.) Returns true when a reordering removes every such cycle (it is
   * kept), false when none does (queues restored).
   */
  private rearrange(sessionId: string, depth: number, moved: readonly string[] = []): boolean {
    const edges = waitForEdges(this.state);
    let cycle: WaitCycle | null = null;
    for (const node of [...moved, sessionId]) {
      if (moved.length > 0 && findCycleThrough(edges, node, false)) return false;
      cycle = cycle ?? findCycleThrough(edges, node, true);
    }
    if (!cycle) return true;
    if (depth === 0) return false;
    for (const e of cycle.filter((x) => x.kind === 'soft')) {
      const target = this.waitOf(e.from)?.target;
      if (target?.kind !== 'advisory') continue;
      const entry = this.state.advisory[advisoryKeyId(target.key)];
      if (!entry) continue;
      const before = entry.queue;
      const moving = before.find((q) => q.sessionId === e.from);
      const rest = before.filter((q) => q.sessionId !== e.from);
      const at = rest.findIndex((q) => q.sessionId === e.to);
      if (!moving || at < 0) continue;
      entry.queue = [...rest.slice(0, at), moving, ...rest.slice(at)];
      if (this.rearrange(sessionId, depth - 1, [...moved, e.from, e.to])) return true;
      entry.queue = before;
    }
    return false;
  }

  /**
   * Every waiting statement now, in wait-start order: its session and `waitId` (a statement that
   * is resumed and waits again gets a new id, as PostgreSQL starts a new `deadlock_timeout` timer
   * for each lock wait). Cheap: for the caller that schedules deadlock checks after each step.
   */
  waitingStatements(): { readonly sessionId: string; readonly waitId: number }[] {
    return this.state.waits.map((w) => ({ sessionId: w.sessionId, waitId: w.seq })).sort((a, b) => a.waitId - b.waitId);
  }

  /**
   * The wait-for graph now: one edge per (waiter, session it waits for, hard/soft), waiters in
   * wait-start order (see `deadlock.ts` for the edges of each kind of wait).
   */
  waitForGraph(): WaitEdge[] {
    return waitForEdges(this.state);
  }

  /** Committed rows of a table, in insertion order (copies, columns in table order). Throws Error for an unknown table. */
  committedRows(table: string): Row[] {
    const t = this.table(table);
    return t.rows.flatMap((r) => (r.committed ? [project(t.spec, r.committed)] : []));
  }

  /**
   * Rows as the session would see them now under READ COMMITTED: committed data plus its own
   * uncommitted changes (copies, insertion order). Throws Error for an unknown session or table.
   */
  visibleRows(sessionId: string, table: string): Row[] {
    const txn = this.liveTxnOf(this.session(sessionId));
    const t = this.table(table);
    return t.rows.flatMap((r) => {
      const v = visibleVersion(r, txn);
      return v ? [project(t.spec, v)] : [];
    });
  }

  /**
   * `pg_locks`-style view (see `LockRow`): advisory lines (by key), then row locks (by table and
   * row, holder before waiters in wait order), then transaction waits (by key description).
   */
  locks(): LockRow[] {
    return [...advisoryLockRows(this.state.advisory), ...this.tupleLockRows(), ...this.txnWaitRows()];
  }

  /** Whether the session exists (a session the server ended, e.g. by `idle_in_transaction_session_timeout`, does not). */
  hasSession(sessionId: string): boolean {
    return this.state.sessions.some((s) => s.id === sessionId);
  }

  /** The isolation level of the session's open transaction (READ COMMITTED outside one). Throws Error for an unknown session. */
  isolationOf(sessionId: string): IsolationLevel {
    return this.session(sessionId).txn?.isolation ?? 'read committed';
  }

  /** Whether the session is inside an explicit transaction (BEGIN … COMMIT/ROLLBACK): `sessionState(id).inTransaction`, without building the rest. Throws Error for an unknown session. */
  inTransaction(sessionId: string): boolean {
    return this.session(sessionId).txn?.explicit === true;
  }

  /** Per-session state (see `SessionState`). Throws Error for an unknown session. */
  sessionState(sessionId: string): SessionState {
    const session = this.session(sessionId);
    const wait = this.waitOf(sessionId);
    const waiting = wait ? { stmt: clone(wait.stmt), on: wait.on, waitId: wait.seq, ...(wait.blockerSession ? { blockerSession: wait.blockerSession } : {}) } : null;
    const rowLocks = this.state.tables.flatMap((t) => t.rows.filter((r) => r.lock?.sessionId === sessionId).map((r) => rowLabel(t, r)));
    return {
      sessionId,
      inTransaction: session.txn?.explicit === true,
      aborted: session.txn?.aborted === true,
      waiting,
      advisoryLocks: heldAdvisoryLocks(this.state.advisory, sessionId),
      rowLocks,
    };
  }

  /** A deep, independent, JSON-serialisable copy of the whole state (for UI scrubbing). */
  snapshot(): DatabaseSnapshot {
    return clone(this.state);
  }

  /** Restores a database from `snapshot()` output (copied; the argument stays independent). Throws Error on an unknown version. */
  static fromSnapshot(s: DatabaseSnapshot): Database {
    if (s.version !== 2) throw new Error(`unsupported database snapshot version ${String(s.version)}`);
    const db = new Database([]);
    db.state = clone(s);
    return db;
  }

  private session(id: string): SessionRecord {
    const s = this.state.sessions.find((x) => x.id === id);
    if (!s) throw new Error(`unknown session ${id}`);
    return s;
  }

  private table(name: string): TableState {
    const t = this.state.tables.find((x) => x.spec.name === name);
    if (!t) throw new Error(`unknown table ${name}`);
    return t;
  }

  private waitOf(sessionId: string): WaitRecord | undefined {
    return this.state.waits.find((w) => w.sessionId === sessionId);
  }

  private dropWait(sessionId: string): void {
    this.state.waits = this.state.waits.filter((w) => w.sessionId !== sessionId);
    removeQueuedAdvisory(this.state.advisory, sessionId);
  }

  private liveTxnOf(session: SessionRecord): number | null {
    return session.txn && !session.txn.aborted ? session.txn.id : null;
  }

  private isLive(txnId: number): boolean {
    return this.state.sessions.some((s) => s.txn?.id === txnId && !s.txn.aborted);
  }

  private newTxn(explicit: boolean, isolation?: IsolationLevel): TxnState {
    const txn: TxnState = { id: this.state.nextTxnId, explicit, aborted: false };
    if (isolation !== undefined && isolation !== 'read committed') txn.isolation = isolation;
    this.state.nextTxnId += 1;
    return txn;
  }

  /** Ends the session's live transaction: rows committed or rolled back, transaction-level advisory locks released. */
  private endTxn(session: SessionRecord, commit: boolean): void {
    const txn = session.txn;
    if (txn && !txn.aborted) {
      if (commit) {
        const seq = (this.state.commitSeq ?? 0) + 1;
        this.state.commitSeq = seq;
        const keepHistory = this.state.sessions.some((s) => s !== session && s.txn?.snapshot !== undefined && !s.txn.aborted);
        endTxnRows(this.state.tables, txn.id, true, seq, keepHistory);
        this.commitSerializable(txn.id, seq);
      } else {
        endTxnRows(this.state.tables, txn.id, false);
      }
    }
    if (txn && !commit) this.forgetSerializable(txn.id);
    releaseAdvisoryScope(this.state.advisory, session.id, 'transaction');
  }

  // ---- SERIALIZABLE: serializable snapshot isolation, reduced to read/write cycles of two transactions ----

  private serializableOf(txnId: number): SerializableTxn | undefined {
    return this.state.serializable?.find((x) => x.txn === txnId);
  }

  /** Each saw the database without the other's changes: neither committed before the other's snapshot. */
  private static concurrent(a: SerializableTxn, b: SerializableTxn): boolean {
    return (a.commitSeq === null || a.commitSeq > b.snapshot) && (b.commitSeq === null || b.commitSeq > a.snapshot);
  }

  /** A read/write dependency `r` → `w`: `r` read a table that the concurrent `w` writes (SIREAD locks are per table in the model). */
  private static rw(r: SerializableTxn, w: SerializableTxn): boolean {
    return r !== w && Database.concurrent(r, w) && r.reads.some((t) => w.writes.includes(t));
  }

  /**
   * A write by serializable transaction `txnId` to `table`: when it closes a read/write cycle with a
   * transaction that has already committed, the statement fails with 40001 (`during write`; checked
   * on PostgreSQL 15 with check-then-insert, with and without a unique key). Null: it may go on.
   */
  private serializableWrite(txnId: number, table: string): SqlError | null {
    const me = this.serializableOf(txnId);
    if (!me) return null;
    if (me.doomed) return readWriteDependencyError('conflict in checking');
    if (!me.writes.includes(table)) me.writes.push(table);
    const other = (this.state.serializable ?? []).find((y) => y.commitSeq !== null && Database.rw(me, y) && Database.rw(y, me));
    return other ? readWriteDependencyError('write') : null;
  }

  /** A COMMIT of a serializable transaction: the open transactions of a read/write cycle with it are doomed (their COMMIT fails with 40001). */
  private commitSerializable(txnId: number, seq: number): void {
    const me = this.serializableOf(txnId);
    if (!me) return;
    me.commitSeq = seq;
    for (const y of this.state.serializable ?? []) if (y.commitSeq === null && Database.rw(me, y) && Database.rw(y, me)) y.doomed = true;
    this.pruneSerializable();
  }

  /** A serializable transaction rolled back: its reads and writes no longer count. */
  private forgetSerializable(txnId: number): void {
    if (!this.state.serializable) return;
    this.state.serializable = this.state.serializable.filter((x) => x.txn !== txnId);
    this.pruneSerializable();
  }

  /** Committed entries stay only while an open serializable transaction is concurrent with them. */
  private pruneSerializable(): void {
    const list = this.state.serializable ?? [];
    const open = list.filter((x) => x.commitSeq === null);
    const kept = list.filter((x) => x.commitSeq === null || open.some((o) => o.snapshot < (x.commitSeq as number)));
    if (kept.length === 0) delete this.state.serializable;
    else this.state.serializable = kept;
  }

  /** A statement failed: roll back now; an explicit block stays open but aborted. */
  private abort(session: SessionRecord): void {
    this.endTxn(session, false);
    session.txn = session.txn?.explicit ? { ...session.txn, aborted: true } : null;
  }

  private runStatement(session: SessionRecord, stmt: Stmt): DbReply {
    if (stmt.op === 'begin') return this.transactionControl(session, stmt.op, stmt.isolation);
    if (stmt.op === 'commit' || stmt.op === 'rollback') return this.transactionControl(session, stmt.op);
    if (session.txn?.aborted) return { status: 'error', error: inFailedTransaction() };
    const unknownSequence = stmt.op === 'nextval' && this.state.sequences?.[stmt.seq] === undefined;
    if (!session.txn) session.txn = this.newTxn(false);
    if (session.txn.isolation !== undefined && session.txn.snapshot === undefined) {
      // REPEATABLE READ / SERIALIZABLE: the snapshot is taken by the first statement, not by BEGIN.
      session.txn.snapshot = this.state.commitSeq ?? 0;
      if (session.txn.isolation === 'serializable') {
        (this.state.serializable ??= []).push({ txn: session.txn.id, sessionId: session.id, snapshot: session.txn.snapshot, commitSeq: null, reads: [], writes: [], doomed: false });
      }
    }
    const relationLock = unknownSequence ? null : relationLockOf(stmt);
    if (relationLock) {
      const entry = `${relationLock.table}:${relationLock.mode}`;
      const held = (session.txn.relationLocks ??= []);
      if (!held.includes(entry)) held.push(entry);
    }
    if (stmt.op === 'nextval') return this.settle(session, stmt, this.nextval(session.txn, stmt.seq));
    return this.settle(session, stmt, this.start(session, stmt));
  }

  /**
   * `nextval(seq)`: the sequence's next value, taken at once and never given back — a ROLLBACK of
   * the transaction that took it does not return it (PostgreSQL docs, "Sequence Manipulation
   * Functions"). An unknown sequence fails with 42P01 (in a transaction, which is then aborted).
   */
  private nextval(txn: TxnState, seq: string): Outcome {
    const s = this.state.sequences?.[seq];
    if (s === undefined) return { kind: 'error', error: { code: '42P01', message: `relation "${seq}" does not exist` } };
    const value = s.next;
    s.next += 1;
    // nextval_internal: when log_cnt has run out it WAL-logs 32 values ahead and takes an xid.
    if (s.logCnt === 0) {
      s.logCnt = SEQ_LOG_VALS;
      txn.xidAssigned = true;
    } else s.logCnt -= 1;
    return { kind: 'ok', tag: 'SELECT 1', rows: [{ nextval: value }] };
  }

  /** The value the next `nextval(seq)` returns, or undefined if there is no such sequence. For tests and the inspector. */
  sequenceNext(seq: string): number | undefined {
    return this.state.sequences?.[seq]?.next;
  }

  /** BEGIN / COMMIT / ROLLBACK (PostgreSQL docs, "BEGIN", "COMMIT", "ROLLBACK"). */
  private transactionControl(session: SessionRecord, op: 'begin' | 'commit' | 'rollback', isolation?: IsolationLevel): DbReply {
    const txn = session.txn;
    if (op === 'begin') {
      if (!txn) session.txn = this.newTxn(true, isolation);
      if (txn?.aborted) return { status: 'error', error: inFailedTransaction() };
      return okReply('BEGIN', txn ? ALREADY_IN_TRANSACTION_WARNING : undefined);
    }
    const tag = op === 'commit' ? 'COMMIT' : 'ROLLBACK';
    if (!txn) return okReply(tag, NO_TRANSACTION_WARNING);
    if (op === 'commit' && !txn.aborted && this.serializableOf(txn.id)?.doomed) {
      // Doomed when the other side of a read/write cycle committed first (predicate.c PreCommit_CheckForSerializationFailure).
      this.endTxn(session, false);
      session.txn = null;
      return { status: 'error', error: readWriteDependencyError('commit attempt') };
    }
    this.endTxn(session, op === 'commit' && !txn.aborted);
    session.txn = null;
    return okReply(txn.aborted ? 'ROLLBACK' : tag);
  }

  /** Turns a run's outcome into the reply: registers a wait, aborts on error, autocommits on success. */
  private settle(session: SessionRecord, stmt: Stmt, outcome: Outcome): DbReply {
    if (outcome.kind !== 'error') this.noteXid(session, stmt, outcome.kind === 'wait');
    if (outcome.kind === 'wait') {
      const { target, progress, on, blockerSession } = outcome;
      this.state.waits.push({ sessionId: session.id, stmt, seq: this.state.nextSeq, target, progress, on, blockerSession });
      this.state.nextSeq += 1;
      return { status: 'waits', on, blockerSession };
    }
    if (outcome.kind === 'error') {
      this.abort(session);
      return { status: 'error', error: outcome.error };
    }
    if (session.txn && !session.txn.explicit) {
      this.endTxn(session, true);
      session.txn = null;
    }
    const { tag, rows, warning } = outcome;
    return warning === undefined ? { status: 'ok', tag, rows } : { status: 'ok', tag, rows, warning };
  }

  /**
   * Marks the session's transaction as having a real xid once it holds a row lock (it wrote or
   * locked a row), or waits in an UPDATE, DELETE or plain INSERT (see `TxnState.xidAssigned`).
   */
  private noteXid(session: SessionRecord, stmt: Stmt, waits: boolean): void {
    const txn = session.txn;
    if (!txn || txn.aborted || txn.xidAssigned) return;
    if ((waits && waitAssignsXid(stmt)) || this.state.tables.some((t) => t.rows.some((r) => r.lock?.txn === txn.id))) txn.xidAssigned = true;
  }

  /**
   * `pg_locks` as PostgreSQL shows it for these sessions (virtualxid, transactionid, relation,
   * tuple and advisory lines; see `pgLocks.ts`). Unlike `locks()`, it lists no holder of a row
   * lock: PostgreSQL keeps those in the tuple header.
   */
  pgLocks(): PgLockRow[] {
    return pgLockRows(this.state);
  }

  private context(session: SessionRecord, table: string): ExecContext {
    const txn = this.liveTxnOf(session);
    if (txn === null) throw new Error(`session ${session.id} has no live transaction`);
    const ctx: ExecContext = { table: this.table(table), txn, sessionId: session.id };
    const snapshot = session.txn?.snapshot;
    if (snapshot === undefined) return ctx;
    const ssi = this.serializableOf(txn);
    if (!ssi) return { ...ctx, snapshot };
    return {
      ...ctx,
      snapshot,
      onRead: () => {
        if (ssi.doomed) return readWriteDependencyError('conflict out checking');
        if (!ssi.reads.includes(table)) ssi.reads.push(table);
        return null;
      },
      onWrite: () => this.serializableWrite(txn, table),
    };
  }

  private start(session: SessionRecord, stmt: Stmt): Outcome {
    switch (stmt.op) {
      case 'advisory':
      case 'advisoryUnlockAll':
        return this.runAdvisory(session, stmt);
      case 'select':
        return stmt.lock ? startScan(this.context(session, stmt.table), stmt) : runPlainSelect(this.context(session, stmt.table), stmt);
      case 'insert':
        return startInsert(this.context(session, stmt.table), stmt);
      case 'update':
      case 'delete':
        return startScan(this.context(session, stmt.table), stmt);
      default:
        throw new Error(`not a data statement: ${stmt.op}`);
    }
  }

  /** Advisory lock functions (PostgreSQL docs, "Advisory Lock Functions"): void → '', boolean → 't'/'f'. */
  private runAdvisory(session: SessionRecord, stmt: AdvisoryStmt): Outcome {
    const table = this.state.advisory;
    if (stmt.op === 'advisoryUnlockAll') {
      releaseAdvisoryScope(table, session.id, 'session');
      return okOutcome('SELECT 1', [{ pg_advisory_unlock_all: '' }]);
    }
    const { action, mode, scope } = advisoryFnInfo(stmt.fn);
    const result = (value: string, warning?: string): Outcome => okOutcome('SELECT 1', [{ [stmt.fn]: value }], warning);
    if (action === 'unlock') {
      return unlockAdvisory(table, stmt.key, session.id, mode) ? result('t') : result('f', notOwnedWarning(mode));
    }
    const got = acquireAdvisory(table, stmt.key, { sessionId: session.id, mode, scope }, action === 'lock');
    if (got.granted) return result(action === 'try' ? 't' : '');
    if (action === 'try') return result('f');
    if (got.reason === 'deadlock') {
      const tag = advisoryLockTag(stmt.key);
      const detail = deadlockDetail([
        { from: session.id, to: got.blockerSession, kind: 'hard', mode, lock: tag },
        { from: got.blockerSession, to: session.id, kind: 'hard', mode: got.blockerMode, lock: tag },
      ]);
      return { kind: 'error', error: deadlockDetected(detail) };
    }
    const how = got.reason === 'held' ? 'held by' : 'queued behind';
    const on = `advisory lock ${describeAdvisoryKey(stmt.key)} ${how} session ${got.blockerSession}`;
    return { kind: 'wait', target: { kind: 'advisory', key: stmt.key, mode, scope }, progress: null, on, blockerSession: got.blockerSession };
  }

  /** Continues a waiting statement whose blocker is gone (`isReady`). */
  private resume(wait: WaitRecord, session: SessionRecord): Outcome {
    const { stmt, target, progress } = wait;
    if (target.kind === 'advisory') {
      grantQueuedAdvisory(this.state.advisory, target.key, wait.sessionId);
      return okOutcome('SELECT 1', [{ [stmt.op === 'advisory' ? stmt.fn : 'pg_advisory_lock']: '' }]);
    }
    if (stmt.op === 'insert' && progress?.kind === 'insert') return continueInsert(this.context(session, stmt.table), stmt, progress);
    if ((stmt.op === 'select' || stmt.op === 'update' || stmt.op === 'delete') && progress?.kind === 'scan') {
      const outcome = continueScan(this.context(session, stmt.table), stmt, progress);
      if (progress.followedUpdate && session.txn && !session.txn.aborted) session.txn.xidAssigned = true;
      return outcome;
    }
    throw new Error(`cannot resume ${stmt.op}`);
  }

  private isReady(wait: WaitRecord): boolean {
    const t = wait.target;
    if (t.kind !== 'advisory') return !this.isLive(t.txn);
    const entry = this.state.advisory[advisoryKeyId(t.key)];
    return entry !== undefined && firstGrantable(entry)?.sessionId === wait.sessionId;
  }

  /** Resumes ready waiters one at a time in wait-start order until none is ready. */
  private wake(): DbCompletion[] {
    const done: DbCompletion[] = [];
    for (let wait = this.state.waits.find((w) => this.isReady(w)); wait; wait = this.state.waits.find((w) => this.isReady(w))) {
      const current = wait;
      this.state.waits = this.state.waits.filter((w) => w !== current);
      const session = this.session(current.sessionId);
      const reply = this.settle(session, current.stmt, this.resume(current, session));
      if (reply.status === 'waits') continue;
      const committed = this.committedAfter(current.stmt);
      done.push(committed === undefined ? { sessionId: current.sessionId, stmt: current.stmt, reply } : { sessionId: current.sessionId, stmt: current.stmt, reply, committed });
    }
    return done;
  }

  private tupleLockRows(): LockRow[] {
    const rows: LockRow[] = [];
    for (const table of this.state.tables) {
      for (const row of table.rows) {
        if (!row.lock) continue;
        const objectDescription = rowLabel(table, row);
        rows.push({ locktype: 'tuple', objectDescription, sessionId: row.lock.sessionId, mode: 'ExclusiveLock', granted: true });
        for (const w of this.state.waits) {
          if (w.target.kind === 'tuple' && w.target.table === table.spec.name && w.target.rid === row.rid) {
            rows.push({ locktype: 'tuple', objectDescription, sessionId: w.sessionId, mode: 'ExclusiveLock', granted: false });
          }
        }
      }
    }
    return rows;
  }

  private txnWaitRows(): LockRow[] {
    const waits = this.state.waits
      .filter((w): w is TxnWait => w.target.kind === 'transactionid')
      .sort((a, b) => compareText(a.target.description, b.target.description) || compareText(a.target.blockerSession, b.target.blockerSession) || a.seq - b.seq);
    const rows: LockRow[] = [];
    let previous = '';
    for (const w of waits) {
      const { description, blockerSession } = w.target;
      if (`${description}\n${blockerSession}` !== previous) {
        rows.push({ locktype: 'transactionid', objectDescription: description, sessionId: blockerSession, mode: 'ExclusiveLock', granted: true });
      }
      previous = `${description}\n${blockerSession}`;
      rows.push({ locktype: 'transactionid', objectDescription: description, sessionId: w.sessionId, mode: 'ShareLock', granted: false });
    }
    return rows;
  }
}
