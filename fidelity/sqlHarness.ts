/**
 * Runs one SQL operation sequence over N sessions against the model (`Database`) and a real
 * PostgreSQL server in lockstep, and compares after every step:
 * - the step's own reply (command tag, rows, t/f/void, SQLSTATE + message + detail, WARNING), or
 *   that it waits (model `waits` ↔ server: the backend has an ungranted lock once settled);
 * - which other sessions' waiting statements finished during the step, with their replies, and
 *   the order in which they proceeded (server: `pg_stat_activity.state_change`).
 * The server receives exactly `renderSql(stmt)` for every statement.
 *
 * A sequence stops (counted as excluded, not compared further) where the model simplifies on
 * purpose: a wait cycle (no deadlock detector), or several inserters of one key released together
 * by a rollback (which of them wins is a race in PostgreSQL).
 */
import { Database, renderReply, renderSql, renderTableSetup } from '../src/sim/resources/database';
import { lockTimeoutError } from '../src/sim/resources/sqlErrors';
import type { DbCompletion, DbReply, Row, SqlError } from '../src/sim/resources/sqlTypes';
import { CASE_DEADLOCK_TIMEOUT, Monitor, RealSession, textOf, type RealDone, type RealReply } from './pgReal';
import type { CaseResult, SqlCase, SqlOp } from './types';

let schemaCounter = 0;

/** A reply with text values and rows in a canonical order (SQL leaves row order unspecified without ORDER BY). */
function canonical(reply: DbReply | RealReply): string {
  if (reply.status !== 'ok') return renderReply(reply);
  const rows = reply.rows.map((r) => Object.fromEntries(Object.entries(r).map(([k, v]) => [k, textOf(v)])) as Row);
  rows.sort((a, b) => (JSON.stringify(a) < JSON.stringify(b) ? -1 : JSON.stringify(a) > JSON.stringify(b) ? 1 : 0));
  return renderReply({ ...reply, rows });
}

export const USER_CANCEL: SqlError = { code: '57014', message: 'canceling statement due to user request' };

function opText(op: SqlOp): string {
  if ('stmt' in op) return `${op.s}> ${renderSql(op.stmt)}`;
  if ('close' in op) return `${op.s}> (session ends)`;
  return `${op.s}> (${op.cancel === 'userRequest' ? 'pg_cancel_backend' : 'lock_timeout fires'})`;
}

/** Waits-for edges of the model's current state (advisory: conflicting holders and conflicting waiters ahead). */
function waitEdges(db: Database, sessions: readonly string[]): Map<string, Set<string>> {
  const edges = new Map<string, Set<string>>();
  const add = (a: string, b: string): void => {
    if (a === b || b === '') return;
    const set = edges.get(a) ?? new Set<string>();
    set.add(b);
    edges.set(a, set);
  };
  const locks = db.locks();
  const conflicts = (a: string, b: string): boolean => a === 'ExclusiveLock' || b === 'ExclusiveLock';
  const byObject = new Map<string, typeof locks>();
  for (const l of locks.filter((x) => x.locktype === 'advisory')) {
    byObject.set(l.objectDescription, [...(byObject.get(l.objectDescription) ?? []), l]);
  }
  for (const lines of byObject.values()) {
    const waiters = lines.filter((l) => !l.granted);
    waiters.forEach((w, i) => {
      for (const h of lines.filter((l) => l.granted && l.sessionId !== w.sessionId && conflicts(l.mode, w.mode))) add(w.sessionId, h.sessionId);
      for (const q of waiters.slice(0, i)) if (conflicts(q.mode, w.mode)) add(w.sessionId, q.sessionId);
    });
  }
  for (const s of sessions) {
    const st = db.sessionState(s);
    if (st.waiting?.blockerSession && !st.waiting.on.startsWith('advisory')) add(s, st.waiting.blockerSession);
  }
  return edges;
}

function findCycle(edges: Map<string, Set<string>>): string[] | null {
  const state = new Map<string, 'open' | 'done'>();
  const path: string[] = [];
  const visit = (n: string): string[] | null => {
    state.set(n, 'open');
    path.push(n);
    for (const m of edges.get(n) ?? []) {
      if (state.get(m) === 'open') return [...path.slice(path.indexOf(m)), m];
      if (!state.has(m)) {
        const c = visit(m);
        if (c) return c;
      }
    }
    path.pop();
    state.set(n, 'done');
    return null;
  };
  for (const n of edges.keys()) {
    if (!state.has(n)) {
      const c = visit(n);
      if (c) return c;
    }
  }
  return null;
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
  const [first, ...rest] = db.cancelWaiting(op.s, op.cancel === 'userRequest' ? USER_CANCEL : lockTimeoutError());
  return { own: first ? first.reply : null, completions: rest };
}

/** Runs the case; never throws for a disagreement (it is reported in the result). */
export async function runSqlCase(c: SqlCase, lane = 'm'): Promise<CaseResult> {
  const transcript: string[] = [];
  const problems: string[] = [];
  const db = new Database(c.tables);
  for (const s of c.sessions) db.openSession(s);
  const monitor = new Monitor();
  await monitor.open();
  const schema = `fid_${lane}_${process.pid}_${++schemaCounter}`;
  const real = new Map<string, RealSession>();
  let excludedBecause: string | undefined;
  try {
    await monitor.client.query(`CREATE SCHEMA ${schema}`);
    await monitor.client.query(`SET search_path TO ${schema}`);
    for (const t of c.tables) for (const sql of renderTableSetup(t)) await monitor.client.query(sql);
    for (const id of c.sessions) {
      const rs = new RealSession(id);
      await rs.open([`SET search_path TO ${schema}`, `SET deadlock_timeout = '${CASE_DEADLOCK_TIMEOUT}'`, ...(c.sessionSetup?.[id] ?? [])]);
      real.set(id, rs);
    }
    const open = (): RealSession[] => [...real.values()].filter((r) => !r.closed);

    for (const [index, op] of c.ops.entries()) {
      const stepLabel = `step ${index + 1} ${opText(op)}`;
      // Where the model simplifies on purpose, stop comparing (before the step that would show it).
      if ('stmt' in op && op.stmt.op !== 'commit' || 'close' in op) {
        if (racingInserters(db, c.sessions.filter((s) => real.get(s)?.closed === false), op.s)) {
          excludedBecause = 'several inserters of one key released together by a rollback: which wins is a race in PostgreSQL';
          transcript.push(`#${index + 1} ${opText(op)}  [not compared: ${excludedBecause}]`);
          break;
        }
      }
      const live = c.sessions.filter((s) => !real.get(s)?.closed);
      const blockersBefore = new Map(live.map((s) => [s, db.sessionState(s).waiting?.blockerSession ?? null]));
      const m = modelStep(db, op);
      const rs = real.get(op.s);
      if (!rs) throw new Error(`unknown session ${op.s}`);

      if ('stmt' in op) rs.send(renderSql(op.stmt));
      else if ('close' in op) {
        await monitor.terminate(rs.pid);
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
      const serverWaits = (s: string): string => {
        const by = settled.blockedBy.get(s) ?? [];
        return by.length > 0 ? `waits (blocked by ${by.join(', ')})` : 'waits';
      };

      // The step's own reply.
      const ownDone = 'close' in op ? null : rs.takeDone();
      const modelOwn = m.own === null ? '(none)' : m.own.status === 'waits' ? 'waits' : canonical(m.own);
      const realOwn = 'close' in op ? '(none)' : ownDone ? canonical(ownDone.reply) : waitingNow.has(op.s) ? 'waits' : '(no reply)';
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
          if (d && canonical(comp.reply) !== canonical(d.done.reply)) {
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
        if (s === op.s && 'close' in op) continue;
        const modelWaits = db.sessionState(s).waiting !== null;
        const realWaits = waitingNow.has(s);
        if (modelWaits !== realWaits) {
          const modelWait = db.sessionState(s).waiting;
          problems.push(`after ${stepLabel}: ${s} ${modelWaits ? `waits in the model (on ${modelWait?.on ?? '?'}) but not on the server` : `${serverWaits(s)} on the server but not in the model`}`);
        }
      }
      if (problems.length > 0) break;
      const cycle = findCycle(waitEdges(db, live.filter((s) => s !== op.s || !('close' in op))));
      if (cycle) {
        excludedBecause = `wait cycle ${cycle.join(' → ')}: PostgreSQL's deadlock detector would end it after deadlock_timeout (40P01); the model has none`;
        transcript.push(`      [not compared further: ${excludedBecause}]`);
        break;
      }
    }
  } catch (e) {
    problems.push(`harness error: ${(e as Error).message}`);
  } finally {
    for (const rs of real.values()) {
      if (rs.closed) continue;
      if (rs.inFlight) await monitor.terminate(rs.pid).catch(() => undefined);
      await rs.close();
    }
    await monitor.client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`).catch(() => undefined);
    await monitor.close();
  }
  const outcome = problems.length > 0 ? 'disagree' : excludedBecause ? 'excluded' : 'agree';
  return { name: c.name, primitive: c.primitive, outcome, transcript, problems, ...(excludedBecause ? { excludedBecause } : {}) };
}
