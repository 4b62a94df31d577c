/**
 * The data checkers' transaction accounting, statement by statement (noLostUpdate, noOversell).
 * A debit counts when it is committed and only then: an UPDATE inside a transaction waits for its
 * COMMIT, is forgotten at ROLLBACK, and a COMMIT of an aborted transaction is a rollback
 * (PostgreSQL answers it with the tag `ROLLBACK`; docs "COMMIT", modelled in
 * src/sim/resources/database.ts `transactionControl`). Only `UPDATE 1` of the job's own row is a
 * debit or a reservation: `UPDATE 0`, a failed UPDATE and an UPDATE of another table are not.
 *
 * The traces are stored traces as `checkTrace` reads them (data only, ../engine/trace.ts), built
 * statement by statement with the replies the database model gives, so each rule is pinned
 * without depending on which interleaving a preset happens to produce. The last cases run real
 * scenarios (job records, autocommit, the admin script).
 */
import { runScenario } from '../engine/run';
import { findPreset } from '../presets';
import { scenario, steps } from '../presets/build';
import type { CheckedEvent } from '../engine/trace';
import type { DbReply, Row, Stmt } from '../resources/sqlTypes';
import type { Scenario } from '../scenario/schema';
import { checkersFor, checkTrace } from './index';
import type { Finding } from './types';

const debitScenario = findPreset('balance-update')!.withoutFix; // account 1, balance 100; A debits 30, B 50
const reserveScenario = findPreset('inventory-reserve')!.withoutFix; // item 7, stock 1; quantity 1

const ok = (tag: string, rows: Row[] = []): DbReply => ({ status: 'ok', tag, rows });
const failed = (code: string, message: string): DbReply => ({ status: 'error', error: { code, message } });
const BEGIN: Stmt = { op: 'begin' };
const COMMIT: Stmt = { op: 'commit' };
const ROLLBACK: Stmt = { op: 'rollback' };
const readBalance: Stmt = { op: 'select', table: 'accounts', columns: ['balance'], where: { id: 1 } };
const setBalance = (balance: number): Stmt => ({ op: 'update', table: 'accounts', set: { balance }, where: { id: 1 } });
const reserveOne: Stmt = { op: 'update', table: 'items', set: { stock: { column: 'stock', add: -1 } }, where: { id: 7 } };
const markDone: Stmt = { op: 'update', table: 'jobs', set: { status: 'done' }, where: { job_key: 'debit-A' } };

/**
 * A stored trace, one SQL statement per event. `committed` is what World records for INSERT,
 * UPDATE and COMMIT (the written table's committed rows; every table's at COMMIT).
 */
function trace(...statements: { actor: string; stmt: Stmt; reply: DbReply; inTransaction?: boolean; committed?: Record<string, Row[]> }[]): CheckedEvent[] {
  return statements.map((s, i) => ({
    id: `e${i + 1}`, atMs: i, actor: s.actor, kind: 'sql',
    call: { resource: 'db', caller: `c-${s.actor}`, command: s.stmt, reply: s.reply, ...(s.inTransaction === undefined ? {} : { inTransaction: s.inTransaction }), ...(s.committed ? { committed: s.committed } : {}) },
  }));
}
const accounts = (balance: number) => ({ accounts: [{ id: 1, balance }], jobs: [] });
const items = (stock: number) => ({ items: [{ id: 7, stock }], jobs: [] });
const messages = (s: Scenario, events: CheckedEvent[]) => checkTrace(s, events).map((f) => `${f.invariant}: ${f.message}`);

describe('noLostUpdate counts a debit when, and only when, it is committed', () => {
  it('statements between a debit and its ROLLBACK do not commit it, and a later COMMIT of the same worker commits only its own transaction', () => {
    const events = trace(
      { actor: 'A', stmt: BEGIN, reply: ok('BEGIN') },
      { actor: 'A', stmt: setBalance(70), reply: ok('UPDATE 1'), inTransaction: true, committed: { accounts: [{ id: 1, balance: 100 }] } },
      { actor: 'A', stmt: readBalance, reply: ok('SELECT 1', [{ balance: 70 }]) },
      { actor: 'A', stmt: { op: 'insert', table: 'jobs', values: { job_key: 'debit-A', status: 'done' } }, reply: ok('INSERT 0 1'), inTransaction: true, committed: { jobs: [] } },
      { actor: 'A', stmt: ROLLBACK, reply: ok('ROLLBACK') },
      // B's autocommitted debit of 50: 100 − 50, since A's 30 was rolled back.
      { actor: 'B', stmt: setBalance(50), reply: ok('UPDATE 1'), inTransaction: false, committed: { accounts: [{ id: 1, balance: 50 }] } },
      // A's retry only reads, and commits: nothing of the rolled-back debit comes back.
      { actor: 'A', stmt: BEGIN, reply: ok('BEGIN') },
      { actor: 'A', stmt: readBalance, reply: ok('SELECT 1', [{ balance: 50 }]) },
      { actor: 'A', stmt: COMMIT, reply: ok('COMMIT'), inTransaction: false, committed: accounts(50) },
    );
    expect(messages(debitScenario, events)).toEqual([]);
    // The same trace with A's COMMIT landing its debit instead is a lost update, so the checker is not silent by construction.
    const lost = events.map((e) => (e.id === 'e5' ? { ...e, call: { ...e.call!, command: COMMIT, reply: ok('COMMIT'), inTransaction: false, committed: accounts(70) } } : e));
    expect(messages(debitScenario, lost)).toEqual(['noLostUpdate: the balance is 50, but 100 minus the committed debits (80) is 20: an update was lost']);
  });

  it('a COMMIT of an aborted transaction answers ROLLBACK: its debit is not committed, then or at the worker\'s next COMMIT', () => {
    const events = trace(
      { actor: 'A', stmt: BEGIN, reply: ok('BEGIN') },
      { actor: 'A', stmt: setBalance(70), reply: ok('UPDATE 1'), inTransaction: true, committed: { accounts: [{ id: 1, balance: 100 }] } },
      { actor: 'A', stmt: readBalance, reply: failed('57014', 'canceling statement due to statement timeout') },
      { actor: 'A', stmt: COMMIT, reply: ok('ROLLBACK'), inTransaction: false, committed: accounts(100) },
      { actor: 'A', stmt: BEGIN, reply: ok('BEGIN') },
      { actor: 'A', stmt: readBalance, reply: ok('SELECT 1', [{ balance: 100 }]) },
      { actor: 'A', stmt: COMMIT, reply: ok('COMMIT'), inTransaction: false, committed: accounts(100) },
    );
    expect(messages(debitScenario, events)).toEqual([]);
  });

  it('a statement between the debit and its COMMIT (a re-read) keeps the debit pending until the COMMIT', () => {
    const events = trace(
      { actor: 'A', stmt: BEGIN, reply: ok('BEGIN') },
      { actor: 'A', stmt: setBalance(70), reply: ok('UPDATE 1'), inTransaction: true, committed: { accounts: [{ id: 1, balance: 100 }] } },
      { actor: 'A', stmt: readBalance, reply: ok('SELECT 1', [{ balance: 70 }]) },
      { actor: 'A', stmt: COMMIT, reply: ok('COMMIT'), inTransaction: false, committed: accounts(70) },
    );
    expect(messages(debitScenario, events)).toEqual([]);
  });

  it('only UPDATE 1 of the account is a debit: not UPDATE 0, not a failed UPDATE, not an UPDATE of the jobs table', () => {
    const events = trace(
      { actor: 'A', stmt: BEGIN, reply: ok('BEGIN') },
      { actor: 'A', stmt: setBalance(70), reply: ok('UPDATE 0'), inTransaction: true, committed: { accounts: [{ id: 1, balance: 100 }] } },
      { actor: 'A', stmt: markDone, reply: ok('UPDATE 1'), inTransaction: true, committed: { jobs: [] } },
      { actor: 'A', stmt: COMMIT, reply: ok('COMMIT'), inTransaction: false, committed: accounts(100) },
      { actor: 'B', stmt: setBalance(50), reply: failed('40001', 'could not serialize access due to concurrent update'), inTransaction: false, committed: { accounts: [{ id: 1, balance: 100 }] } },
      { actor: 'B', stmt: markDone, reply: ok('UPDATE 1'), inTransaction: false, committed: { jobs: [] } },
    );
    expect(messages(debitScenario, events)).toEqual([]);
  });

  it('a finding is revised when its numbers change, not re-announced by a later statement that leaves them as they are', () => {
    const heard: { message: string; revises: boolean }[] = [];
    const events = trace(
      { actor: 'A', stmt: setBalance(70), reply: ok('UPDATE 1'), inTransaction: false, committed: { accounts: [{ id: 1, balance: 70 }] } },
      { actor: 'B', stmt: setBalance(50), reply: ok('UPDATE 1'), inTransaction: false, committed: { accounts: [{ id: 1, balance: 50 }] } },
      // A read-only transaction commits: the balance and the committed debits are unchanged.
      { actor: 'A', stmt: BEGIN, reply: ok('BEGIN') },
      { actor: 'A', stmt: COMMIT, reply: ok('COMMIT'), inTransaction: false, committed: accounts(50) },
    );
    const [checker] = checkersFor({ ...debitScenario, invariants: [{ kind: 'noLostUpdate' }] }, (f: Finding, old) => heard.push({ message: f.message, revises: old !== null }));
    for (const e of events) checker!.onEvent(e);
    expect(heard).toEqual([{ message: 'the balance is 50, but 100 minus the committed debits (80) is 20: an update was lost', revises: false }]);
  });

  it('the server ending a session (idle_in_transaction_session_timeout: an event with no statement) is not a statement to judge', () => {
    const s: Scenario = { ...debitScenario, database: { ...debitScenario.database, idleInTransactionSessionTimeoutMs: 30 } };
    const r = runScenario(s);
    // Each transfer idles 50 ms inside its transaction after its SELECT: the server ends both sessions first.
    expect(r.events.filter((e) => e.data?.t === 'sessionEnded').map((e) => e.actor)).toEqual(['A', 'B']);
    expect(r.verdict.held).toBe(true);
  });

  it('the admin script\'s debit (10, not a worker\'s amount) counts: with the fix and the script after both transfers, the balance is 10 and holds', () => {
    const r = runScenario({ ...findPreset('balance-update')!.withFix, faults: [{ kind: 'adminBypass', atMs: 200 }] });
    expect(r.events.filter((e) => e.actor === 'admin' && e.kind === 'sql').map((e) => e.reply)).toEqual(['UPDATE 1']);
    expect(r.verdict.held).toBe(true);
  });

  it('a debit whose transaction ended without a ROLLBACK statement is not committed by the worker\'s next transaction; a BEGIN that only warns keeps the debit in its transaction', () => {
    const events = trace(
      { actor: 'A', stmt: BEGIN, reply: ok('BEGIN') },
      { actor: 'A', stmt: setBalance(70), reply: ok('UPDATE 1'), inTransaction: true, committed: accounts(100) },
      // (The server ends A's session here, or A crashes: its transaction rolls back, and the trace has no ROLLBACK.)
      { actor: 'A', stmt: BEGIN, reply: ok('BEGIN') },
      { actor: 'A', stmt: COMMIT, reply: ok('COMMIT'), inTransaction: false, committed: accounts(100) },
      // B in one transaction: a second BEGIN only warns (WARNING 25001), so its COMMIT commits B's debit.
      { actor: 'B', stmt: BEGIN, reply: ok('BEGIN') },
      { actor: 'B', stmt: setBalance(50), reply: ok('UPDATE 1'), inTransaction: true, committed: accounts(100) },
      { actor: 'B', stmt: BEGIN, reply: { status: 'ok', tag: 'BEGIN', rows: [], warning: 'there is already a transaction in progress' } },
      { actor: 'B', stmt: COMMIT, reply: ok('COMMIT'), inTransaction: false, committed: accounts(50) },
    );
    expect(messages(debitScenario, events)).toEqual([]);
  });

  /**
   * A rolled back by the server or by its crash, restarted, skips the job (the try-lock finds B
   * holding the lock) and commits its empty transaction; B's debit of 50 is the only one committed.
   */
  const restartedSkip = (idleInTransactionSessionTimeoutMs: number | undefined, bStartMs: number): Scenario => scenario({
    id: 'restarted-skip', title: 'restarted skip', description: 'A debits, is rolled back without a ROLLBACK, restarts and skips; B debits.', lesson: 'invariants', horizonMs: 3_000,
    job: { kind: 'debit', accountId: 1, initialBalance: 100 },
    mechanism: { lock: 'advisory-session', advisoryKey: 5 },
    client: { onBusy: 'skip', retries: 0, checkRelease: false, renewFrom: 'grant', renewMarginMs: 0 },
    database: { poolSize: 4, ...(idleInTransactionSessionTimeoutMs === undefined ? {} : { idleInTransactionSessionTimeoutMs }) },
    workers: [
      { id: 'A', startMs: 0, amount: 30, steps: steps('begin', 'acquire', 'read', ['effect', 0], ['work', 200], 'commit', 'release') },
      { id: 'B', startMs: bStartMs, amount: 50, steps: steps('acquire', ['work', 1_000], 'begin', 'read', ['effect', 0], 'commit', 'release') },
    ],
    invariants: [{ kind: 'noLostUpdate' }],
    faults: [{ kind: 'crash', worker: 'A', atMs: 150, restartAfterMs: 10 }],
  });

  it.each([
    ['idle_in_transaction_session_timeout ended A\'s session (30 ms idle), then A crashed', 30, 100],
    ['A crashed inside its transaction, which closed its session', undefined, 155],
  ])('a rolled-back debit is not counted at the restarted worker\'s COMMIT: %s', (_what, idleMs, bStartMs) => {
    const r = runScenario(restartedSkip(idleMs, bStartMs));
    const a = r.events.filter((e) => e.actor === 'A' && e.kind === 'sql').map((e) => `${e.command} → ${e.reply}`);
    // A's debit, its rollback by the server or the crash, and the restarted attempt's empty, committed transaction.
    expect(a).toContain('UPDATE accounts SET balance = 70 WHERE id = 1 → UPDATE 1');
    expect(a.slice(-3)).toEqual(['BEGIN → BEGIN', 'SELECT pg_try_advisory_lock(5) → f', 'COMMIT → COMMIT']);
    expect(r.events.filter((e) => e.data?.t === 'sessionEnded').length).toBe(idleMs === undefined ? 0 : 1);
    // The crash of a worker whose session the server already ended gives nothing up (it used to throw: unknown session).
    expect(r.events.find((e) => e.kind === 'fault' && e.narration.startsWith('A crashes'))?.narration).toBe(idleMs === undefined
      ? 'A crashes and will restart in 10 ms. Its database connection closes, rolling back its open transaction and releasing its row lock on accounts row id=1 and releasing advisory lock 5.'
      : 'A crashes and will restart in 10 ms. Its database connection closes (the server had already ended its session).');
    expect(r.events.filter((e) => e.actor === 'B' && e.kind === 'sql').map((e) => e.reply)).toContain('UPDATE 1');
    // 100 − 50 = 50: B's is the only committed debit.
    expect(r.verdict.held).toBe(true);
  });
});

describe('noOversell judges the committed stock after every UPDATE and COMMIT', () => {
  it('an autocommitted reservation that oversells is caught at the UPDATE itself (no COMMIT follows)', () => {
    const events = trace(
      { actor: 'A', stmt: reserveOne, reply: ok('UPDATE 1'), inTransaction: false, committed: { items: [{ id: 7, stock: 0 }] } },
      { actor: 'B', stmt: reserveOne, reply: ok('UPDATE 1'), inTransaction: false, committed: { items: [{ id: 7, stock: -1 }] } },
    );
    expect(checkTrace(reserveScenario, events)).toEqual([{ invariant: 'noOversell', severity: 'violation', message: 'stock is -1: 2 reservations were made for 1 item(s) in stock', eventIds: ['e1', 'e2'] }]);
  });

  it('cites as reservations only UPDATE 1 of the item: not UPDATE 0, not the job record; an UPDATE of another table does not judge the stock', () => {
    const events = trace(
      { actor: 'A', stmt: reserveOne, reply: ok('UPDATE 1'), inTransaction: false, committed: { items: [{ id: 7, stock: 0 }] } },
      { actor: 'A', stmt: markDone, reply: ok('UPDATE 1'), inTransaction: false, committed: { jobs: [] } },
      { actor: 'C', stmt: reserveOne, reply: ok('UPDATE 0'), inTransaction: false, committed: { items: [{ id: 7, stock: 0 }] } },
      { actor: 'B', stmt: BEGIN, reply: ok('BEGIN') },
      { actor: 'B', stmt: reserveOne, reply: ok('UPDATE 1'), inTransaction: true, committed: { items: [{ id: 7, stock: 0 }] } },
      { actor: 'B', stmt: COMMIT, reply: ok('COMMIT'), inTransaction: false, committed: items(-1) },
    );
    expect(checkTrace(reserveScenario, events)).toEqual([{ invariant: 'noOversell', severity: 'violation', message: 'stock is -1: 2 reservations were made for 1 item(s) in stock', eventIds: ['e1', 'e5', 'e6'] }]);
  });

  it('a finding is not re-announced by a later COMMIT that leaves the stock as it is', () => {
    const heard: string[] = [];
    const events = trace(
      { actor: 'A', stmt: reserveOne, reply: ok('UPDATE 1'), inTransaction: false, committed: { items: [{ id: 7, stock: 0 }] } },
      { actor: 'B', stmt: reserveOne, reply: ok('UPDATE 1'), inTransaction: false, committed: { items: [{ id: 7, stock: -1 }] } },
      { actor: 'A', stmt: BEGIN, reply: ok('BEGIN') },
      { actor: 'A', stmt: COMMIT, reply: ok('COMMIT'), inTransaction: false, committed: items(-1) },
    );
    const [checker] = checkersFor({ ...reserveScenario, invariants: [{ kind: 'noOversell' }] }, (f) => heard.push(f.message));
    for (const e of events) checker!.onEvent(e);
    expect(heard).toEqual(['stock is -1: 2 reservations were made for 1 item(s) in stock']);
  });

  it('in a run with durable job records (UPDATE jobs … done inside the transaction), the oversell cites the two reservations and the COMMIT', () => {
    const withRecords = steps('begin', 'read', 'enqueue', ['work', 50], ['effect', 0], 'record', ['work', 20], 'commit');
    const s: Scenario = { ...reserveScenario, workers: reserveScenario.workers.map((w) => ({ ...w, steps: withRecords })) };
    const r = runScenario(s);
    const recordUpdates = r.events.filter((e) => (e.command ?? '').startsWith('UPDATE jobs'));
    expect(recordUpdates.map((e) => e.reply)).toEqual(['UPDATE 1', 'UPDATE 1']);
    const reservations = r.events.filter((e) => (e.command ?? '').startsWith('UPDATE items') && (e.reply ?? '').startsWith('UPDATE 1'));
    const lastCommit = r.events.filter((e) => e.command === 'COMMIT').at(-1)!;
    expect(r.verdict.violations.map((v) => ({ message: v.message, eventIds: v.eventIds }))).toEqual([
      { message: 'stock is -1: 2 reservations were made for 1 item(s) in stock', eventIds: [...reservations.map((e) => e.id), lastCommit.id] },
    ]);
  });

  it('an UPDATE on a connection the server already closed (idle_in_transaction_session_timeout) carries no committed rows, and is no reservation', () => {
    const s: Scenario = { ...reserveScenario, database: { ...reserveScenario.database, idleInTransactionSessionTimeoutMs: 30 } };
    const r = runScenario(s);
    const updates = r.events.filter((e) => (e.command ?? '').startsWith('UPDATE items'));
    // Each reservation idles 50 ms inside its transaction before its UPDATE, so the server ended both sessions first.
    expect(updates.map((e) => e.reply)).toEqual([
      'FATAL 25P03 terminating connection due to idle-in-transaction timeout (server closed the connection unexpectedly)',
      'FATAL 25P03 terminating connection due to idle-in-transaction timeout (server closed the connection unexpectedly)',
    ]);
    expect(r.verdict.held).toBe(true);
  });
});

describe('committed rows are taken when each statement finishes, before the statements it lets through', () => {
  // A COMMIT releases its row lock and PostgreSQL runs the UPDATE waiting on it at once; the trace
  // tells that UPDATE in the next event. The COMMIT's committed rows must not carry its write.
  const preset = findPreset('balance-update')!;
  const withAdmin: Scenario = { ...preset.withFix, faults: [...preset.withFix.faults, { kind: 'adminBypass', atMs: 0 }] };

  it('balance-update with the fix and the admin script at 0 ms: no lost update is reported, and the balance is right', () => {
    const r = runScenario(withAdmin);
    expect(r.verdict.violations.filter((v) => v.invariant === 'noLostUpdate')).toEqual([]);
    const sql = r.events.filter((e) => e.call?.resource === 'db');
    const balances = sql.flatMap((e) => {
      const c = e.call as { command: Stmt; reply: DbReply; committed?: Record<string, Row[]> };
      const b = c.committed?.accounts?.[0]?.balance;
      return c.reply.status !== 'waits' && (c.command.op === 'commit' || c.command.op === 'update') ? [`${e.actor} ${c.command.op} ${String(b)}`] : [];
    });
    // A's COMMIT shows its own 70; the admin's UPDATE, let through by it, the admin's 60; B's the final 10 (100 − 30 − 10 − 50).
    expect(balances.filter((x) => !x.includes('update') || x.startsWith('admin'))).toEqual(['A commit 70', 'admin update 60', 'B commit 10']);
  });

  it('balance-update with the fix holds against the admin’s atomic UPDATE at any moment (0–300 ms, every 10 ms): FOR UPDATE and balance − 10 lose nothing', () => {
    for (let atMs = 0; atMs <= 300; atMs += 10) {
      const r = runScenario({ ...preset.withFix, faults: [...preset.withFix.faults, { kind: 'adminBypass', atMs }] });
      expect({ atMs, lost: r.verdict.violations.filter((v) => v.invariant === 'noLostUpdate').map((v) => v.message) }).toEqual({ atMs, lost: [] });
      // And the final balance is 100 − 30 − 50 − 10, whatever the order.
      const last = [...r.events].reverse().find((e) => (e.call as { committed?: Record<string, Row[]> } | undefined)?.committed?.accounts);
      expect((last!.call as unknown as { committed: Record<string, Row[]> }).committed.accounts![0]!.balance).toBe(10);
    }
  });
});
