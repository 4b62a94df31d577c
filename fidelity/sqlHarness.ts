/**
 * Runs one SQL operation sequence over N sessions against the model (`Database`) and a real
 * PostgreSQL server in lockstep, and compares after every step:
 * - the step's own reply (command tag, rows, t/f/void, SQLSTATE + message + detail, WARNING), or
 *   that it waits (model `waits` ↔ server: the backend has an ungranted lock once settled);
 * - which other sessions' waiting statements finished during the step, with their replies, and
 *   the order in which they proceeded (server: `pg_stat_activity.state_change`).
 * The server receives exactly `renderSql(stmt)` for every statement.
 *
 * Deadlocks: a `deadlockCheck` step fires one waiter's `deadlock_timeout` timer. The server is made
 * to agree on WHEN: every case session runs with a long `deadlock_timeout` (`CASE_SESSION_SETUP`),
 * except that a statement whose wait the case checks later is sent after `SET deadlock_timeout`
 * to a time sized from the number of steps until the check (`timerMs`). The backend's
 * `log_lock_waits` LOG line (or its 40P01) shows when its check ran; a check that ran before the
 * step it belongs to makes the attempt inconclusive, and the case is run again with longer timers
 * (`MAX_ATTEMPTS`). A 40P01 is compared with its DETAIL normalised on both sides
 * (`normalizeDeadlockDetail`: pids → session ids, OIDs → names, transaction numbers and ctids
 * dropped — the blocker named on each line identifies the transaction).
 *
 * A sequence stops (counted as excluded, not compared further) where the model simplifies on
 * purpose: several inserters of one key released together by a rollback or a deadlock abort
 * (which of them wins is a race in PostgreSQL).
 */
import { Database, renderReply, renderSequenceSetup, renderSql, renderTableSetup } from '../src/sim/resources/database';
import { idleInTransactionTimeoutError, lockTimeoutError, statementTimeoutError } from '../src/sim/resources/sqlErrors';
import type { DbCompletion, DbReply, Row, SqlError } from '../src/sim/resources/sqlTypes';
import { CASE_SESSION_SETUP, LONG_DEADLOCK_TIMEOUT_MS, Monitor, RealSession, textOf, type RealDone, type RealReply } from './pgReal';
import type { CaseResult, SqlCase, SqlOp } from './types';
import { pgLockLine } from '../src/sim/resources/pgLocks';
import { lockLineDiff, realPgLockLines } from './pgLocksCompare';

let schemaCounter = 0;

/**
 * A 40P01 DETAIL in comparable form. Server: `process <pid>` → the case's session id (via `pids`),
 * relation OIDs → names (via `relations`). Both: the database in an advisory tag, transaction
 * numbers and tuple ctids/keys dropped (model: `tuple (id=1) of relation items of database
 * lockscope`; server: `tuple (0,1) of relation 16385 of database 16384`).
 */
export function normalizeDeadlockDetail(detail: string, pids: ReadonlyMap<number, string> = new Map(), relations: ReadonlyMap<string, string> = new Map()): string {
  return detail
    .replace(/\bprocess (\d+)/gi, (m, pid: string) => {
      const id = pids.get(Number(pid));
      return id === undefined ? m : `${m.startsWith('P') ? 'Process' : 'process'} ${id}`;
    })
    .replace(/advisory lock \[[^,\]]+,/g, 'advisory lock [db,')
    .replace(/transaction \d+/g, 'transaction N')
    .replace(/tuple \([^)]*\) of relation ([^\s;]+) of database [^\s;]+/g, (_m, rel: string) => `tuple of relation ${relations.get(rel) ?? rel}`);
}

/** Per case: server pid → session id and relation OID → name, for `normalizeDeadlockDetail`. */
interface Names {
  readonly pids: Map<number, string>;
  readonly relations: Map<string, string>;
}

/** A reply with text values and rows in a canonical order (SQL leaves row order unspecified without ORDER BY). */
function canonical(reply: DbReply | RealReply, names?: Names): string {
  if (reply.status === 'error' && reply.error.code === '40P01') {
    const { code, message, detail, hint } = reply.error;
    return `ERROR ${code} ${message} (${normalizeDeadlockDetail(detail ?? '', names?.pids, names?.relations)}) HINT ${hint ?? ''}`;
  }
  if (reply.status !== 'ok') return renderReply(reply);
  const rows = reply.rows.map((r) => Object.fromEntries(Object.entries(r).map(([k, v]) => [k, textOf(v)])) as Row);
  rows.sort((a, b) => (JSON.stringify(a) < JSON.stringify(b) ? -1 : JSON.stringify(a) > JSON.stringify(b) ? 1 : 0));
  return renderReply({ ...reply, rows });
}

export const USER_CANCEL: SqlError = { code: '57014', message: 'canceling statement due to user request' };

function opText(op: SqlOp): string {
  if ('stmt' in op) return `${op.s}> ${renderSql(op.stmt)}`;
  if ('close' in op) return `${op.s}> (session ends)`;
  if ('deadlockCheck' in op) return `${op.s}> (deadlock_timeout fires: deadlock check)`;
  if ('idleTimeout' in op) return `${op.s}> (idle_in_transaction_session_timeout fires)`;
  return `${op.s}> (${op.cancel === 'userRequest' ? 'pg_cancel_backend' : op.cancel === 'statementTimeout' ? 'statement_timeout fires' : 'lock_timeout fires'})`;
}

/** Two or more statements waiting for the same uncommitted key of `session`'s transaction. */
function racingInserters(db: Database, sessions: readonly string[], session: string): boolean {
  const counts = new Map<string, number>();
  for (const s of sessions) {
    const w = db.sessionState(s).waiting;
    if (w && w.blockerSession === session && w.on.startsWith('transaction of session')) counts.set(w.on, (counts.get(w.on) ?? 0) + 1);
  }
  return [...counts.values()].some((n) => n >= 2);
}

interface ModelStep {
  readonly own: DbReply | null;
  readonly completions: readonly DbCompletion[];
}

function modelStep(db: Database, op: SqlOp): ModelStep {
  if ('stmt' in op) {
    const r = db.execute(op.s, op.stmt);
    return { own: r.reply, completions: r.completions };
  }
  if ('close' in op) return { own: null, completions: db.closeSession(op.s) };
  if ('idleTimeout' in op) return { own: { status: 'error', error: idleInTransactionTimeoutError() }, completions: db.closeSession(op.s) };
  if ('deadlockCheck' in op) {
    const waiting = db.sessionState(op.s).waiting;
    if (!waiting) throw new Error(`deadlockCheck for ${op.s}, which does not wait`);
    const check = db.checkDeadlock(op.s);
    if (check.kind === 'none') return { own: { status: 'waits', on: waiting.on }, completions: [] };
    // The checker's own completion (its 40P01, or its grant after a queue rearrangement) is the step's reply.
    const mine = check.completions.find((x) => x.sessionId === op.s);
    return { own: mine ? mine.reply : { status: 'waits', on: waiting.on }, completions: check.completions.filter((x) => x !== mine) };
  }
  const [first, ...rest] = db.cancelWaiting(op.s, op.cancel === 'userRequest' ? USER_CANCEL : op.cancel === 'statementTimeout' ? statementTimeoutError() : lockTimeoutError());
  return { own: first ? first.reply : null, completions: rest };
}

/** Looks at the server's `pg_locks` (25 ms apart) before a difference from the model counts. */
const PG_LOCKS_LOOKS = 20;

/** Attempts per case when a server deadlock timer fired before the step that schedules it. */
const MAX_ATTEMPTS = 3;

/**
 * When (ms after the case's sessions are open) the timer checked at step `checkAt` is to fire: a
 * fixed schedule, so that timers fire in the order of their steps whatever the order of the
 * statements that armed them; 100 ms per step (a send plus a settle takes tens of ms on a loaded
 * machine), times `scale` on a retry. A statement is sent with `deadlock_timeout` = planned time
 * − now; a harness running behind that plan makes the attempt inconclusive.
 */
export function plannedFireMs(checkAt: number, scale: number): number {
  return scale * (250 + 100 * checkAt);
}

/** Index of the `deadlockCheck` of the wait `ops[index]` may start: the session's next op, if it is one. */
export function checkOf(ops: readonly SqlOp[], index: number): number | null {
  const s = ops[index]?.s;
  for (let j = index + 1; j < ops.length; j++) {
    const op = ops[j] as SqlOp;
    if (op.s !== s) continue;
    return 'deadlockCheck' in op ? j : null;
  }
  return null;
}

class TimerEarly extends Error {}

/** Runs the case; never throws for a disagreement (it is reported in the result). */
export async function runSqlCase(c: SqlCase, lane = 'm'): Promise<CaseResult> {
  let scale = 1;
  for (let attempt = 1; ; attempt++) {
    try {
      return await runSqlCaseOnce(c, lane, scale);
    } catch (e) {
      if (!(e instanceof TimerEarly)) throw e;
      if (attempt >= MAX_ATTEMPTS) {
        const excludedBecause = `timing: a server deadlock timer fired before its step in ${MAX_ATTEMPTS} attempts (${e.message})`;
        return { name: c.name, primitive: c.primitive, outcome: 'excluded', transcript: [`[not compared: ${excludedBecause}]`], problems: [], excludedBecause };
      }
      scale *= 4;
    }
  }
}

async function runSqlCaseOnce(c: SqlCase, lane: string, scale: number): Promise<CaseResult> {
  const transcript: string[] = [];
  const problems: string[] = [];
  const db = new Database(c.tables, c.sequences ?? {});
  for (const s of c.sessions) db.openSession(s);
  const monitor = new Monitor();
  await monitor.open();
  const schema = `fid_${lane}_${process.pid}_${++schemaCounter}`;
  const real = new Map<string, RealSession>();
  let excludedBecause: string | undefined;
  let pgLockSteps = 0;
  let pgLocksDisagree = false;
  try {
    await monitor.client.query(`CREATE SCHEMA ${schema}`);
    await monitor.client.query(`SET search_path TO ${schema}`);
    for (const t of c.tables) for (const sql of renderTableSetup(t)) await monitor.client.query(sql);
    for (const [name, start] of Object.entries(c.sequences ?? {})) await monitor.client.query(renderSequenceSetup(name, start));
    for (const id of c.sessions) {
      const rs = new RealSession(id);
      await rs.open([`SET search_path TO ${schema}`, ...CASE_SESSION_SETUP, ...(c.sessionSetup?.[id] ?? [])]);
      real.set(id, rs);
    }
    const names: Names = { pids: new Map([...real.values()].map((r) => [r.pid, r.id])), relations: new Map() };
    const rels = await monitor.client.query('SELECT oid::text AS oid, relname FROM pg_class WHERE relnamespace = $1::regnamespace', [schema]);
    for (const r of rels.rows as { oid: string; relname: string }[]) names.relations.set(r.oid, r.relname);
    const open = (): RealSession[] => [...real.values()].filter((r) => !r.closed);
    /** Sessions whose statement in flight has a `deadlockCheck` ahead, with that step's index. */
    const checkAhead = new Map<string, number>();
    let previousStepEnd = 0;
    const caseStart = performance.now();

    /** A server deadlock timer that fired before the step scheduled for it: this attempt cannot say anything. */
    const assertNoEarlyTimer = (index: number): void => {
      for (const [sid, at] of checkAhead) {
        const r = real.get(sid);
        const done = r?.peekDone()?.reply;
        if (at > index && r && (r.checkLogs.length > 0 || (done?.status === 'error' && done.error.code === '40P01'))) {
          throw new TimerEarly(`${sid}'s timer (${Math.round(r.deadlockTimeoutMs)} ms) fired before step ${at + 1}`);
        }
      }
    };

    for (const [index, op] of c.ops.entries()) {
      const stepLabel = `step ${index + 1} ${opText(op)}`;
      // Where the model simplifies on purpose, stop comparing (before the step that would show it).
      // (A deadlock check may abort the session's transaction: a rollback too.)
      if ('stmt' in op && op.stmt.op !== 'commit' || 'close' in op || 'deadlockCheck' in op) {
        if (racingInserters(db, c.sessions.filter((s) => real.get(s)?.closed === false), op.s)) {
          excludedBecause = 'several inserters of one key released together by a rollback: which wins is a race in PostgreSQL';
          transcript.push(`#${index + 1} ${opText(op)}  [not compared: ${excludedBecause}]`);
          break;
        }
      }
      const live = c.sessions.filter((s) => !real.get(s)?.closed);
      const blockersBefore = new Map(live.map((s) => [s, db.sessionState(s).waiting?.blockerSession ?? null]));
      const abortedBefore = db.sessionState(op.s).aborted;
      const m = modelStep(db, op);
      const rs = real.get(op.s);
      if (!rs) throw new Error(`unknown session ${op.s}`);

      if ('stmt' in op) {
        const at = checkOf(c.ops, index);
        const timer = at === null ? LONG_DEADLOCK_TIMEOUT_MS : caseStart + plannedFireMs(at, scale) - performance.now();
        if (timer < 30) throw new TimerEarly(`the harness is ${Math.round(30 - timer)} ms behind the timer plan at step ${index + 1}`);
        // In an aborted block nothing can wait (and SET would fail with 25P02).
        if (!abortedBefore) await rs.setDeadlockTimeout(timer);
        // SET is transactional: COMMIT/ROLLBACK may restore the value from before the block.
        if (op.stmt.op === 'commit' || op.stmt.op === 'rollback') rs.deadlockTimeoutMs = Number.NaN;
        if (at === null) checkAhead.delete(op.s);
        else checkAhead.set(op.s, at);
        rs.send(renderSql(op.stmt));
      } else if ('deadlockCheck' in op) {
        // Wait for the backend's check: its reply (40P01) or its log_lock_waits line.
        const deadline = rs.sentAt + rs.deadlockTimeoutMs + 20_000;
        while (rs.inFlight && rs.checkLogs.length === 0 && performance.now() < deadline) await new Promise((r) => setTimeout(r, 2));
        const firedAt = rs.checkLogs[0]?.at ?? performance.now();
        checkAhead.delete(op.s);
        // Fired before the previous step had settled: it may have run before the cycle closed.
        const doneNow = rs.peekDone();
        const agrees = doneNow ? m.own?.status !== 'waits' : m.own?.status === 'waits';
        if (!agrees && firedAt < previousStepEnd) throw new TimerEarly(`${op.s}'s timer fired during the previous step`);
      } else if ('close' in op) {
        await monitor.terminate(rs.pid);
        rs.closed = true;
        void rs.client.end().catch(() => undefined);
      } else if ('idleTimeout' in op) {
        // The server's own timer: wait for the FATAL on the client and for the backend to be gone.
        const deadline = performance.now() + 20_000;
        while (performance.now() < deadline && (rs.fatal === null || await monitor.backendAlive(rs.pid))) await new Promise((r) => setTimeout(r, 10));
        const gone = !(await monitor.backendAlive(rs.pid));
        rs.idleEnded = rs.fatal && gone ? { status: 'error', error: { ...rs.fatal, detail: 'server closed the connection unexpectedly' } } : null;
        rs.closed = true;
        void rs.client.end().catch(() => undefined);
      } else if (op.cancel === 'userRequest') {
        // The cancelled backend keeps its ungranted lock until it is scheduled and sees the
        // interrupt; its reply (57014) is the answer to wait for, not the lock table.
        await monitor.cancel(rs.pid);
        if (m.own !== null) await monitor.awaitReply(rs);
      } else await monitor.awaitReply(rs);
      const settled = await monitor.settle(open());
      const waitingNow = settled.waiting;
      previousStepEnd = performance.now();
      assertNoEarlyTimer(index);
      const serverWaits = (s: string): string => {
        const by = settled.blockedBy.get(s) ?? [];
        return by.length > 0 ? `waits (blocked by ${by.join(', ')})` : 'waits';
      };

      // The step's own reply.
      const ownDone = 'close' in op ? null : 'idleTimeout' in op ? (rs.idleEnded ? { reply: rs.idleEnded } : null) : rs.takeDone();
      const modelOwn = m.own === null ? '(none)' : m.own.status === 'waits' ? 'waits' : canonical(m.own, names);
      const realOwn = 'close' in op ? '(none)' : ownDone ? canonical(ownDone.reply, names) : waitingNow.has(op.s) ? 'waits' : '(no reply)';
      const realOwnText = ownDone ? renderReply(ownDone.reply) : realOwn === 'waits' ? serverWaits(op.s) : realOwn;
      const line = `#${index + 1} ${opText(op)}\n      model:  ${m.own ? renderReply(m.own) : '(none)'}\n      server: ${realOwnText}`;
      transcript.push(line);
      if (modelOwn !== realOwn) problems.push(`${stepLabel}: model ${m.own ? renderReply(m.own) : '(none)'} ≠ server ${realOwnText}`);
      if ('expect' in op && op.expect !== undefined && m.own && !renderReply(m.own).startsWith(op.expect)) {
        problems.push(`${stepLabel}: the case expects "${op.expect}…" (semantics.md) but the model replied ${renderReply(m.own)}`);
      }

      // Other sessions' statements that stopped waiting.
      const others = open().filter((r) => r.id !== op.s && r.peekDone());
      const stamps = await monitor.stateChanges(others.map((r) => r.pid));
      const realDone: { id: string; done: RealDone }[] = others.map((r) => {
        const done = r.takeDone() as RealDone;
        done.stateChange = stamps.get(r.pid) ?? '';
        return { id: r.id, done };
      });
      realDone.sort((a, b) => (a.done.stateChange ?? '').localeCompare(b.done.stateChange ?? '') || a.done.seq - b.done.seq);
      for (const comp of m.completions) transcript.push(`      model:  ${comp.sessionId} proceeds → ${renderReply(comp.reply)}`);
      for (const d of realDone) transcript.push(`      server: ${d.id} proceeds → ${renderReply(d.done.reply)}`);
      const modelIds = m.completions.map((x) => x.sessionId);
      const realIds = realDone.map((x) => x.id);
      if ([...modelIds].sort().join() !== [...realIds].sort().join()) {
        const stillWaiting = [...waitingNow].filter((x) => x !== op.s).map((x) => `${x} ${serverWaits(x)}`);
        problems.push(`${stepLabel}: sessions that proceed: model [${m.completions.map((x) => `${x.sessionId} → ${renderReply(x.reply)}`).join('; ')}] ≠ server [${realDone.map((x) => `${x.id} → ${renderReply(x.done.reply)}`).join('; ')}]${stillWaiting.length > 0 ? `; on the server ${stillWaiting.join(', ')}` : ''}`);
      } else {
        for (const comp of m.completions) {
          const d = realDone.find((x) => x.id === comp.sessionId);
          if (d && canonical(comp.reply, names) !== canonical(d.done.reply, names)) {
            problems.push(`${stepLabel}: ${comp.sessionId} proceeds with model ${renderReply(comp.reply)} ≠ server ${renderReply(d.done.reply)}`);
          }
        }
        // Statements released by one step are compared as a set: on the server they run
        // concurrently, and even a cascade (s3's autocommit lock released at its statement end,
        // waking s4) can report s4 first. The order in which waiters proceed is checked across
        // steps instead: each step says exactly who proceeds and who still waits (see the FIFO cases).
        void blockersBefore;
      }
      // Still-waiting sessions must agree too.
      for (const s of live) {
        if (s === op.s && ('close' in op || 'idleTimeout' in op)) continue;
        const modelWaits = db.sessionState(s).waiting !== null;
        const realWaits = waitingNow.has(s);
        if (modelWaits !== realWaits) {
          const modelWait = db.sessionState(s).waiting;
          problems.push(`after ${stepLabel}: ${s} ${modelWaits ? `waits in the model (on ${modelWait?.on ?? '?'}) but not on the server` : `${serverWaits(s)} on the server but not in the model`}`);
        }
      }
      // pg_locks: the model's view of the lock table against the server's, once both have settled.
      if (problems.length === 0) {
        const pidsNow = new Map(open().map((r) => [r.pid, r.id] as const));
        const modelLines = db.pgLocks().map(pgLockLine).sort();
        // A backend sends an error reply before its abort releases the locks (PostgreSQL's
        // PostgresMain: EmitErrorReport, then AbortCurrentTransaction): look again for a short,
        // bounded while before calling a difference one.
        let serverLines = await realPgLockLines(monitor.client, schema, pidsNow);
        let diff = lockLineDiff(modelLines, serverLines);
        for (let look = 1; diff && look < PG_LOCKS_LOOKS; look++) {
          await new Promise((r) => setTimeout(r, 25));
          serverLines = await realPgLockLines(monitor.client, schema, pidsNow);
          diff = lockLineDiff(modelLines, serverLines);
        }
        pgLockSteps += 1;
        if (diff) {
          transcript.push(`      pg_locks model:  ${modelLines.join('; ') || '(none)'}\n      pg_locks server: ${serverLines.join('; ') || '(none)'}`);
          problems.push(`after ${stepLabel}: pg_locks differ: only in the model [${diff.onlyModel.join('; ')}], only on the server [${diff.onlyServer.join('; ')}]`);
          pgLocksDisagree = true;
        }
      }
      if (problems.length > 0) break;
    }
  } catch (e) {
    if (e instanceof TimerEarly) throw e;
    problems.push(`harness error: ${(e as Error).message}`);
  } finally {
    for (const rs of real.values()) {
      if (rs.closed) continue;
      if (rs.inFlight) await monitor.terminate(rs.pid).catch(() => undefined);
      await rs.close();
    }
    // The next case of this lane uses the same advisory keys: it starts only once these backends are gone.
    await monitor.awaitExit([...real.values()].map((rs) => rs.pid).filter((pid) => pid > 0)).catch((e: Error) => problems.push(`harness error: ${e.message}`));
    await monitor.client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`).catch(() => undefined);
    await monitor.close();
  }
  const outcome = problems.length > 0 ? 'disagree' : excludedBecause ? 'excluded' : 'agree';
  return { name: c.name, primitive: c.primitive, outcome, transcript, problems, pgLocks: { steps: pgLockSteps, disagree: pgLocksDisagree }, ...(excludedBecause ? { excludedBecause } : {}) };
}
