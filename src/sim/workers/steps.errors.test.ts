/**
 * A statement that fails makes the client throw, whichever step sent it: the job fails and takes
 * its error path (never "completed"), and a 40001 is retried by the framework wherever it arises.
 * The server closes a session idle in its transaction (idle_in_transaction_session_timeout, 25P03);
 * the worker learns it at its next statement (semantics.md, "Server-side timeouts and isolation").
 */
import { describe, expect, it } from 'vitest';
import { scenario, steps } from '../presets/build';
import { runScenario, type RunResult } from '../engine/run';
import type { Scenario } from '../scenario/schema';
import { skipLockedClaim } from '../presets/skipLockedClaim';

type StepArg = Parameters<typeof steps>[number];

/** One worker A that opens a transaction, sits idle in it for 5 s (the server ends the session at 2 s), then runs `then`. */
const idleThen = (job: Scenario['job'], then: StepArg[], jobRecord = false): Scenario => scenario({
  id: 'idle-then', title: 'idle then', description: 'A idles in its transaction past the limit.', lesson: 'locks', horizonMs: 20_000,
  job,
  mechanism: { jobRecord },
  database: { poolSize: 4, idleInTransactionSessionTimeoutMs: 2_000 },
  workers: [{ id: 'A', startMs: 0, amount: 10, steps: steps('begin', ['work', 5_000], ...then) }],
  invariants: [],
});
const external: Scenario['job'] = { kind: 'external', jobKey: 'nightly-export' };
const CLOSED = 'FATAL 25P03 terminating connection due to idle-in-transaction timeout (server closed the connection unexpectedly)';
const REASON = 'terminating connection due to idle-in-transaction timeout';

/** A's events from 5 s on (after the idle work), as `<command or kind> → <reply> | <narration>`. */
const after = (r: RunResult): string[] =>
  r.events.filter((e) => e.actor === 'A' && e.atMs >= 5_000).map((e) => `${e.command ?? e.kind}${e.reply ? ` → ${e.reply}` : ''} | ${e.narration}`);

describe('a statement on a connection the server closed fails the job', () => {
  it('BEGIN: the job fails and takes its error path; it is never "completed", and no COMMIT follows', () => {
    const r = runScenario(idleThen(external, ['begin', 'commit']));
    expect(after(r)).toEqual([
      `BEGIN → ${CLOSED} | A's BEGIN fails: ${REASON}.`,
      'connection.destroy() → closed | A discards connection c1: the server had closed it; the pool opens a new one.',
      `outcome | A's job fails (${REASON}); its error path runs.`,
      'outcome | A is done: the job failed.',
    ]);
    expect(r.events.filter((e) => e.command === 'COMMIT')).toHaveLength(0);
  });

  it('COMMIT: the transaction is gone (the server rolled it back when it ended the session) and the job fails', () => {
    const r = runScenario(idleThen(external, ['commit']));
    expect(after(r)).toEqual([
      `COMMIT → ${CLOSED} | A's COMMIT fails (${REASON}): the transaction is rolled back.`,
      'connection.destroy() → closed | A discards connection c1: the server had closed it; the pool opens a new one.',
      `outcome | A's job fails (${REASON}); its error path runs.`,
      'outcome | A is done: the job failed.',
    ]);
  });

  it('a check (the SELECT for the finished result) fails: the job fails instead of doing the work as if nothing were there', () => {
    const job: Scenario['job'] = { kind: 'insertOnce', table: 'invoices', key: { order_id: 42 }, values: { amount: 100 } };
    const r = runScenario(idleThen(job, ['check', ['effect', 0], 'commit']));
    expect(after(r)[0]).toBe(`SELECT * FROM invoices WHERE order_id = 42 → ${CLOSED} | A's check fails: ${REASON}.`);
    expect(after(r).slice(-2)).toEqual([`outcome | A's job fails (${REASON}); its error path runs.`, 'outcome | A is done: the job failed.']);
    expect(r.events.some((e) => (e.command ?? '').startsWith('INSERT'))).toBe(false);
  });

  it('a check of the durable job record fails the same way', () => {
    const r = runScenario(idleThen(external, ['check', ['effect', 100], 'record', 'commit'], true));
    expect(after(r)[0]).toBe(`SELECT status FROM jobs WHERE job_key = 'nightly-export' → ${CLOSED} | A's check fails: ${REASON}.`);
    expect(r.events.some((e) => e.kind === 'destination')).toBe(false);
    expect(after(r).at(-1)).toBe('outcome | A is done: the job failed.');
  });
});

describe('a serialization failure (40001) is retried wherever it arises', () => {
  /** Two fenced-row writers under REPEATABLE READ: B's UPDATE waits for A's row lock and fails with 40001 when A commits. */
  const fenced = (serializationRetries?: number): Scenario => scenario({
    id: 'fenced-40001', title: 'fenced row under REPEATABLE READ', description: 'B updates the row A updated.', lesson: 'locks', horizonMs: 20_000,
    job: { kind: 'fencedRow', table: 'documents', rowId: 7, values: { body: 'report by {worker}' } },
    database: { poolSize: 4, isolation: 'repeatable read', ...(serializationRetries === undefined ? {} : { serializationRetries }) },
    workers: [
      { id: 'A', startMs: 0, steps: steps('begin', ['work', 100], ['effect', 0], ['work', 500], 'commit') },
      { id: 'B', startMs: 50, steps: steps('begin', ['work', 100], ['effect', 0], 'commit') },
    ],
    invariants: [],
  });
  const updates = (r: RunResult) => r.events.filter((e) => e.actor === 'B' && (e.command ?? '').startsWith('UPDATE') && e.reply !== undefined && !e.reply.startsWith('waits'));

  it('without retries the fenced UPDATE\'s 40001 fails B\'s job', () => {
    const r = runScenario(fenced());
    expect(updates(r).map((e) => `${e.atMs} ${e.reply}`)).toEqual(['600 ERROR 40001 could not serialize access due to concurrent update']);
    expect(r.events.filter((e) => e.actor === 'B').at(-1)!.narration).toBe('B is done: the job failed.');
  });

  it('with serializationRetries the framework runs B\'s transaction again from BEGIN, and the UPDATE then succeeds', () => {
    const r = runScenario(fenced(1));
    expect(updates(r).map((e) => `${e.atMs} ${e.reply}`)).toEqual(['600 ERROR 40001 could not serialize access due to concurrent update', '700 UPDATE 1']);
    expect(r.events.filter((e) => e.actor === 'B' && e.command?.startsWith('BEGIN'))).toHaveLength(2);
    expect(r.events.some((e) => e.actor === 'B' && e.narration.includes('runs it again from BEGIN (retry 1 of 1)'))).toBe(true);
    expect(r.events.filter((e) => e.actor === 'B').at(-1)!.narration).toBe('B is done: it completed the job.');
  });

  it('a queue row\'s claim mark (UPDATE job_queue) that hits 40001 under REPEATABLE READ is retried too: B then finds no pending row', () => {
    const b = skipLockedClaim.withFix;
    const run = (serializationRetries?: number) => runScenario({ ...b, mechanism: { ...b.mechanism, rowLock: 'none' }, database: { ...b.database, isolation: 'repeatable read', ...(serializationRetries === undefined ? {} : { serializationRetries }) } });
    const story = (r: RunResult) => r.events.filter((e) => e.actor === 'B' && e.atMs >= 30).map((e) => `${e.command ?? e.kind} → ${e.reply ?? ''}`);
    expect(story(run()).slice(0, 2)).toEqual(["UPDATE job_queue SET status = 'running', claimed_by = 'B' WHERE id = 7 → ERROR 40001 could not serialize access due to concurrent update", 'outcome → ']);
    expect(run().events.filter((e) => e.actor === 'B').at(-1)!.narration).toBe('B is done: the job failed.');
    const retried = run(1);
    expect(story(retried).slice(2, 5)).toEqual(['ROLLBACK → ROLLBACK', 'BEGIN ISOLATION LEVEL REPEATABLE READ → BEGIN', "SELECT id FROM job_queue WHERE status = 'pending' → SELECT 0"]);
    expect(retried.events.filter((e) => e.actor === 'B').at(-1)!.narration).toBe('B is done: there was no job in the queue for it.');
  });
});

describe('a retry after 40001 starts from the BEGIN that opened the transaction', () => {
  it('a second BEGIN inside the transaction only warns; the retry still runs again from the first one, so B reads the balance again', () => {
    const s = scenario({
      id: 'nested-begin-retry', title: 'nested BEGIN', description: 'Two debits under SERIALIZABLE; each sends a stray BEGIN after its read.', lesson: 'invariants', horizonMs: 10_000,
      job: { kind: 'debit', accountId: 1, initialBalance: 100 },
      database: { poolSize: 4, isolation: 'serializable', serializationRetries: 1 },
      workers: [
        { id: 'A', startMs: 0, amount: 10, steps: steps('begin', 'read', 'begin', ['work', 500], ['effect', 0], 'commit') },
        { id: 'B', startMs: 100, amount: 20, steps: steps('begin', 'read', 'begin', ['work', 500], ['effect', 0], 'commit') },
      ],
      invariants: [{ kind: 'noLostUpdate' }],
    });
    const r = runScenario(s);
    const b = r.events.filter((e) => e.actor === 'B' && e.command !== undefined && e.kind === 'sql').map((e) => `${e.command} → ${e.reply}`);
    expect(b.filter((x) => x.startsWith('BEGIN ISOLATION LEVEL SERIALIZABLE →'))).toEqual([
      'BEGIN ISOLATION LEVEL SERIALIZABLE → BEGIN',
      'BEGIN ISOLATION LEVEL SERIALIZABLE → WARNING:  there is already a transaction in progress; BEGIN',
      'BEGIN ISOLATION LEVEL SERIALIZABLE → BEGIN',
      'BEGIN ISOLATION LEVEL SERIALIZABLE → WARNING:  there is already a transaction in progress; BEGIN',
    ]);
    expect(b.filter((x) => x.startsWith('SELECT balance'))).toHaveLength(2);
    expect(b.filter((x) => x.startsWith('UPDATE')).at(-1)).toBe('UPDATE accounts SET balance = 70 WHERE id = 1 → UPDATE 1');
    expect(r.verdict.held).toBe(true);
    // Only the work of the attempt that failed is wasted (500 ms), not the work before the first BEGIN.
    expect(r.metrics.wastedWorkMs).toBe(500);
  });
});

describe('steps that have nothing to send for the job send nothing', () => {
  const one = (job: Scenario['job'], st: StepArg[], jobRecord = false): RunResult => runScenario(scenario({
    id: 'quiet-steps', title: 'quiet steps', description: 'A step with no SQL for this job.', lesson: 'locks', horizonMs: 10_000,
    job, mechanism: { jobRecord }, database: { poolSize: 2 },
    workers: [{ id: 'A', startMs: 0, amount: 10, steps: steps(...st) }],
    invariants: [],
  }));
  const sql = (r: RunResult) => r.events.filter((e) => e.kind === 'sql').map((e) => e.command);

  it('a check on an external job without a durable job record has no result to look for: no SELECT, and the job goes on to its effect', () => {
    const r = one(external, ['begin', 'check', ['effect', 100], 'commit']);
    expect(sql(r)).toEqual(['BEGIN', 'COMMIT']);
    expect(r.events.filter((e) => e.kind === 'destination')).toHaveLength(2);
  });

  it('a read on an external job reads nothing', () => {
    expect(sql(one(external, ['begin', 'read', 'commit']))).toEqual(['BEGIN', 'COMMIT']);
  });
});

describe('a reservation\'s UPDATE that fails for another reason than the CHECK constraint', () => {
  it('40001 under REPEATABLE READ fails the job: it is not "sold out"', () => {
    const r = runScenario(scenario({
      id: 'reserve-40001', title: 'reserve under REPEATABLE READ', description: 'Two reservations of one item without a row lock.', lesson: 'invariants', horizonMs: 10_000,
      job: { kind: 'reserve', itemId: 7, initialStock: 5, quantity: 1 },
      database: { poolSize: 4, isolation: 'repeatable read' },
      workers: [
        { id: 'A', startMs: 0, steps: steps('begin', 'read', ['work', 500], ['effect', 0], 'commit') },
        { id: 'B', startMs: 100, steps: steps('begin', 'read', ['work', 500], ['effect', 0], 'commit') },
      ],
      invariants: [{ kind: 'noOversell' }],
    }));
    const b = r.events.filter((e) => e.actor === 'B');
    expect(b.find((e) => (e.command ?? '').startsWith('UPDATE items'))!.reply).toBe('ERROR 40001 could not serialize access due to concurrent update');
    expect(b.at(-1)!.narration).toBe('B is done: the job failed.');
  });
});

describe('an insertOnce INSERT that fails for another reason than 23505', () => {
  it('on a connection the server closed, the insert is rejected and the job fails: no load of a winner\'s row', () => {
    const job: Scenario['job'] = { kind: 'insertOnce', table: 'invoices', key: { order_id: 42 }, values: { amount: 100 } };
    const r = runScenario(idleThen(job, [['effect', 0], 'commit']));
    expect(after(r)).toEqual([
      `INSERT INTO invoices (order_id, amount) VALUES (42, 100) RETURNING id → ${CLOSED} | A's insert is rejected: ${REASON}.`,
      'connection.destroy() → closed | A discards connection c1: the server had closed it; the pool opens a new one.',
      `outcome | A's job fails (${REASON}); its error path runs.`,
      'outcome | A is done: the job failed.',
    ]);
  });
});
