// Server-side timeouts and isolation levels as scenario settings (issue 10, elements 4 and 5): the
// server's timers are world wake-ups in virtual time; replies as PostgreSQL 15 gives them (the
// fidelity suite's timeout and isolation cases check the same sequences against the real server).
import { describe, expect, it } from 'vitest';
import { scenario, steps } from '../presets/build';
import { runScenario, type RunResult } from '../engine/run';
import { validateScenario } from '../scenario/validate';
import type { Scenario } from '../scenario/schema';

const by = (r: RunResult, actor: string) => r.events.filter((e) => e.actor === actor);
const cmd = (r: RunResult, actor: string, prefix: string) => by(r, actor).filter((e) => (e.command ?? '').startsWith(prefix));

const lockWait = (statementTimeoutMs?: number): Scenario => scenario({
  id: 'statement-timeout', title: 'statement_timeout', description: 'B waits for the advisory lock A holds.', lesson: 'locks', horizonMs: 20_000,
  job: { kind: 'external', jobKey: 'nightly-export' },
  mechanism: { lock: 'advisory-xact' },
  database: { poolSize: 4, ...(statementTimeoutMs === undefined ? {} : { statementTimeoutMs }) },
  workers: [
    { id: 'A', startMs: 0, steps: steps('begin', 'acquire', ['work', 5_000], 'commit') },
    { id: 'B', startMs: 500, steps: steps('begin', 'acquire', ['work', 1_000], 'commit') },
  ],
  invariants: [{ kind: 'mutualExclusion' }],
});

const idleInTxn = (idleInTransactionSessionTimeoutMs?: number): Scenario => scenario({
  id: 'idle-in-transaction', title: 'idle_in_transaction_session_timeout', description: 'A works for 5 s inside its transaction, holding a row lock and a session advisory lock.', lesson: 'locks', horizonMs: 20_000,
  job: { kind: 'debit', accountId: 1, initialBalance: 100 },
  mechanism: { lock: 'advisory-session', rowLock: 'forUpdate' },
  database: { poolSize: 4, ...(idleInTransactionSessionTimeoutMs === undefined ? {} : { idleInTransactionSessionTimeoutMs }) },
  workers: [
    { id: 'A', startMs: 0, amount: 10, steps: steps('acquire', 'begin', 'read', ['work', 5_000], ['effect', 0], 'commit', 'release') },
    { id: 'B', startMs: 500, amount: 20, steps: steps('acquire', 'begin', 'read', ['effect', 500], 'commit', 'release') },
  ],
  invariants: [{ kind: 'mutualExclusion' }, { kind: 'noLostUpdate' }],
});

describe('statement_timeout (database.statementTimeoutMs)', () => {
  it('cancels a statement still waiting for a lock with 57014 at exactly the limit; the job takes its error path', () => {
    const r = runScenario(lockWait(2_000));
    const ended = cmd(r, 'B', 'SELECT pg_advisory_xact_lock')[1]!;
    expect(ended).toMatchObject({ atMs: 2_500, reply: 'ERROR 57014 canceling statement due to statement timeout' });
    expect(ended.narration).toBe('After waiting 2 s: statement_timeout (2 s) cancels B\'s statement. B\'s lock request fails: canceling statement due to statement timeout.');
    expect(cmd(r, 'B', 'ROLLBACK')[0]!.atMs).toBe(2_500);
    expect(by(r, 'B').at(-1)!.narration).toBe('B is done: the job failed.');
  });
  it('does nothing to a wait shorter than the limit, and nothing when absent', () => {
    const longer = runScenario(lockWait(4_500));
    expect(cmd(longer, 'B', 'SELECT pg_advisory_xact_lock')[1]).toMatchObject({ atMs: 5_000, reply: '(void)' });
    const off = runScenario(lockWait());
    expect(off.traceHash).toBe(longer.traceHash);
  });
  it('is a server timer: a pause of the waiting worker does not move it', () => {
    const s = lockWait(2_000);
    const r = runScenario({ ...s, faults: [{ kind: 'pause', worker: 'B', atMs: 1_000, pauseMs: 3_000 }] });
    expect(cmd(r, 'B', 'SELECT pg_advisory_xact_lock')[1]!.reply).toBe('ERROR 57014 canceling statement due to statement timeout');
  });
});

describe('idle_in_transaction_session_timeout (database.idleInTransactionSessionTimeoutMs)', () => {
  it('ends a session idle in its transaction: its row lock and session advisory lock go at once; the worker learns it at its next statement', () => {
    const r = runScenario(idleInTxn(2_000));
    const ended = r.events.find((e) => e.data?.t === 'sessionEnded')!;
    expect(ended).toMatchObject({ atMs: 2_000, actor: 'A', reply: 'FATAL 25P03 terminating connection due to idle-in-transaction timeout' });
    expect(ended.narration).toContain('the row lock on accounts row id=1, advisory lock 42 (session-level)');
    expect(ended.beliefs?.inTransaction).toBe(true); // A does not know yet
    expect(cmd(r, 'B', 'SELECT pg_advisory_lock')[1]).toMatchObject({ atMs: 2_000, reply: '(void)' });
    const next = cmd(r, 'A', 'UPDATE')[0]!;
    expect(next).toMatchObject({ atMs: 5_000, reply: 'FATAL 25P03 terminating connection due to idle-in-transaction timeout (server closed the connection unexpectedly)' });
    expect(cmd(r, 'A', 'connection.destroy()')[0]!.narration).toBe('A discards connection c1: the server had closed it; the pool opens a new one.');
    expect(cmd(r, 'A', 'ROLLBACK')).toHaveLength(0);
    // A went on believing it held the lock while B worked: the critical section overlapped.
    expect(r.verdict.violations.map((v) => v.invariant)).toEqual(['mutualExclusion']);
  });
  it('a job error after the server ended the session: the error path\'s ROLLBACK is the statement that finds it gone, and fails', () => {
    const s: Scenario = { ...lockWait(), database: { poolSize: 4, idleInTransactionSessionTimeoutMs: 1_000 }, faults: [{ kind: 'jobError', worker: 'A', atMs: 3_000 }] };
    const r = runScenario(s);
    expect(r.events.find((e) => e.data?.t === 'sessionEnded')).toMatchObject({ atMs: 1_000, actor: 'A' });
    const rollback = cmd(r, 'A', 'ROLLBACK');
    expect(rollback).toHaveLength(1);
    expect(rollback[0]).toMatchObject({
      atMs: 3_000,
      reply: 'FATAL 25P03 terminating connection due to idle-in-transaction timeout (server closed the connection unexpectedly)',
      narration: "A's ROLLBACK fails: terminating connection due to idle-in-transaction timeout.",
    });
  });
  it('leaves a session that is never idle that long alone, and a session outside a transaction', () => {
    const r = runScenario(idleInTxn(6_000));
    expect(r.events.some((e) => e.data?.t === 'sessionEnded')).toBe(false);
    expect(r.traceHash).toBe(runScenario(idleInTxn()).traceHash);
  });
});

const debit = (isolation: 'read committed' | 'repeatable read' | 'serializable' | undefined, serializationRetries?: number): Scenario => scenario({
  id: 'isolation', title: 'isolation', description: 'Two read-modify-write debits without a row lock.', lesson: 'invariants', horizonMs: 10_000,
  job: { kind: 'debit', accountId: 1, initialBalance: 100 },
  database: { poolSize: 4, ...(isolation ? { isolation } : {}), ...(serializationRetries ? { serializationRetries } : {}) },
  workers: [
    { id: 'A', startMs: 0, amount: 10, steps: steps('begin', 'read', ['work', 500], ['effect', 0], 'commit') },
    { id: 'B', startMs: 100, amount: 20, steps: steps('begin', 'read', ['work', 500], ['effect', 0], 'commit') },
  ],
  invariants: [{ kind: 'noLostUpdate' }],
});

describe('isolation levels and the retry on 40001', () => {
  it('READ COMMITTED (absent or named) loses an update', () => {
    expect(runScenario(debit(undefined)).verdict.violations.map((v) => v.invariant)).toEqual(['noLostUpdate']);
    expect(runScenario(debit('read committed')).verdict.status).toBe('violated');
  });
  it('REPEATABLE READ: the second UPDATE fails with 40001; without a retry its job fails and no update is lost', () => {
    const r = runScenario(debit('repeatable read'));
    expect(cmd(r, 'B', 'BEGIN')[0]!.command).toBe('BEGIN ISOLATION LEVEL REPEATABLE READ');
    expect(cmd(r, 'B', 'UPDATE')[0]).toMatchObject({ atMs: 600, reply: 'ERROR 40001 could not serialize access due to concurrent update' });
    expect(by(r, 'B').at(-1)!.narration).toBe('B is done: the job failed.');
    expect(r.verdict.status).toBe('held');
  });
  it('with serializationRetries the framework re-runs B\'s transaction from BEGIN; B reads 90 and writes 70', () => {
    const r = runScenario(debit('serializable', 2));
    expect(cmd(r, 'B', 'BEGIN')).toHaveLength(2);
    expect(cmd(r, 'B', 'UPDATE').map((e) => e.reply)).toEqual(['ERROR 40001 could not serialize access due to concurrent update', 'UPDATE 1']);
    expect(cmd(r, 'B', 'UPDATE')[1]!.command).toBe('UPDATE accounts SET balance = 70 WHERE id = 1');
    expect(by(r, 'B').find((e) => e.kind === 'outcome')!.narration).toBe('B\'s transaction failed with 40001 (serialization failure), so the framework rolls it back and runs it again from BEGIN (retry 1 of 2).');
    expect(r.verdict.status).toBe('held');
    expect(r.metrics.wastedWorkMs).toBe(500);
  });
  it('a retry throws away only the work done inside the rolled-back transaction, not the work before its BEGIN', () => {
    const s = debit('serializable', 2);
    const r = runScenario({ ...s, workers: s.workers.map((w) => (w.id === 'B' ? { ...w, startMs: 0, steps: [{ do: 'work' as const, ms: 100 }, ...w.steps] } : w)) });
    expect(cmd(r, 'B', 'BEGIN')).toHaveLength(2);
    // B worked 100 ms before BEGIN and 500 ms in the attempt that failed with 40001: only those 500 ms are wasted.
    expect(r.metrics.wastedWorkMs).toBe(500);
  });
  it('a begin step\'s own isolation overrides database.isolation', () => {
    const s = debit('serializable');
    const r = runScenario({ ...s, workers: s.workers.map((w) => ({ ...w, steps: [{ do: 'begin', isolation: 'read committed' }, ...w.steps.slice(1)] })) });
    expect(cmd(r, 'A', 'BEGIN')[0]!.command).toBe('BEGIN ISOLATION LEVEL READ COMMITTED');
    expect(r.verdict.violations.map((v) => v.invariant)).toEqual(['noLostUpdate']);
  });
});

describe('validation names the field path', () => {
  it.each([
    [{ statementTimeoutMs: 0 }, 'database.statementTimeoutMs'],
    [{ idleInTransactionSessionTimeoutMs: -5 }, 'database.idleInTransactionSessionTimeoutMs'],
    [{ isolation: 'snapshot' }, 'database.isolation'],
    [{ serializationRetries: 0 }, 'database.serializationRetries'],
    [{ serializationRetries: 11 }, 'database.serializationRetries'],
  ])('%o → %s', (patch, path) => {
    const s = JSON.parse(JSON.stringify(debit(undefined)));
    Object.assign(s.database, patch);
    const v = validateScenario(s);
    expect(v.ok ? [] : v.errors.map((e) => e.path)).toEqual([path]);
  });
  it('a begin step with an unknown isolation level', () => {
    const s = JSON.parse(JSON.stringify(debit(undefined)));
    s.workers[1].steps[0] = { do: 'begin', isolation: 'serialisable' };
    const v = validateScenario(s);
    expect(v.ok ? [] : v.errors.map((e) => e.path)).toEqual(['workers[1].steps[0].isolation']);
  });
});

/** One worker that opens a transaction, takes the lock and works for 5 s in it: the server ends its session at 2 s. */
const endedUnderLock = (lock: 'advisory-xact' | 'advisory-session', plan: Scenario['workers'][number]['steps'], pooler?: 'transaction' | 'session'): Scenario => scenario({
  id: 'idle-ended-lock', title: 'idle_in_transaction_session_timeout under a lock', description: 'A works for 5 s inside its transaction.', lesson: 'locks', horizonMs: 20_000,
  job: { kind: 'external', jobKey: 'nightly-export' },
  mechanism: { lock },
  database: { poolSize: 4, idleInTransactionSessionTimeoutMs: 2_000, ...(pooler === undefined ? {} : { pooler: { mode: pooler, serverConnections: 1 } }) },
  workers: [
    { id: 'A', startMs: 0, steps: plan },
    { id: 'B', startMs: 500, steps: steps('begin', 'acquire', ['work', 500], 'commit') },
  ],
  invariants: [{ kind: 'mutualExclusion' }],
});

describe('a worker whose session the server ended (idle_in_transaction_session_timeout)', () => {
  // These threw "unknown session c1": the worker's next statement read the state of the ended session.
  it('COMMIT of a transaction-scoped lock: fails with the FATAL and names no lock released with it', () => {
    const r = runScenario(endedUnderLock('advisory-xact', steps('begin', 'acquire', ['work', 5_000], 'commit')));
    const commit = cmd(r, 'A', 'COMMIT')[0]!;
    expect(commit).toMatchObject({ atMs: 5_000, reply: 'FATAL 25P03 terminating connection due to idle-in-transaction timeout (server closed the connection unexpectedly)' });
    expect(commit.narration).toBe('A\'s COMMIT fails (terminating connection due to idle-in-transaction timeout): the transaction is rolled back.');
    expect(by(r, 'A').at(-1)!.narration).toBe('A is done: the job failed.');
    // B got the lock when the server ended A's session, while A still believed it held it.
    expect(cmd(r, 'B', 'SELECT pg_advisory_xact_lock')[1]).toMatchObject({ atMs: 2_000, reply: '(void)' });
  });
  it('unlock of a session-level lock: fails with the FATAL; A no longer believes it holds a lock', () => {
    const r = runScenario(endedUnderLock('advisory-session', steps('connect', 'acquire', 'begin', ['work', 5_000], 'release')));
    const unlock = cmd(r, 'A', 'SELECT pg_advisory_unlock')[0]!;
    expect(unlock).toMatchObject({ atMs: 5_000, reply: 'FATAL 25P03 terminating connection due to idle-in-transaction timeout (server closed the connection unexpectedly)' });
    expect(unlock.narration).toBe('A\'s unlock fails: terminating connection due to idle-in-transaction timeout.');
    expect(unlock.beliefs).toMatchObject({ holdsLock: false, inTransaction: false });
  });
  it.each(['transaction', 'session'] as const)('behind PgBouncer (%s mode): PgBouncer closes the client linked to the ended server connection; a client waiting for a server connection gets the new one', (mode) => {
    const r = runScenario(endedUnderLock('advisory-xact', steps('connect', 'begin', 'acquire', ['work', 5_000], 'commit', 'disconnect'), mode));
    const ended = r.events.find((e) => e.data?.t === 'sessionEnded')!;
    expect(ended.atMs).toBe(2_000);
    expect(ended.narration).toContain('PgBouncer passes the FATAL on and closes c1, the client connection linked to it ("server conn crashed?"); server connection s2 takes s1\'s place. A does not know yet.');
    expect(by(r, 'B').find((e) => e.narration.startsWith('PgBouncer hands'))).toMatchObject({ atMs: 2_000, narration: 'PgBouncer hands server connection s2 to B after 1.5 s in its queue.' });
    expect(cmd(r, 'A', 'COMMIT')[0]).toMatchObject({ atMs: 5_000, reply: 'FATAL 25P03 terminating connection due to idle-in-transaction timeout (server closed the connection unexpectedly)' });
    // PgBouncer had closed c1 already: closing it resets nothing, and no sentence says otherwise.
    expect(r.events.filter((e) => e.actor === 'pooler' && e.atMs === 5_000)).toEqual([]);
    expect(by(r, 'B').at(-1)!.narration).toBe('B is done: it completed the job.');
  });
});
