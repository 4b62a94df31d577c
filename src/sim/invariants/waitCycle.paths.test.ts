/**
 * noWaitCycle along the paths the other waitCycle tests do not take: a helper's statement waiting
 * for its own caller's row lock (the edge PostgreSQL sees only half of, `viaHelper`), pools that
 * deadlock themselves in separate processes, a pool whose connection a crash destroyed, a third
 * worker that waits into a cycle without being on it, a lease client cut off from Redis, a worker
 * that asks again for the lease it holds, and what the finding names as what may end the cycle
 * (../shared/semantics.md, "PostgreSQL advisory locks": a cycle through application code is
 * invisible to PostgreSQL and hangs).
 */
import { describe, expect, it } from 'vitest';
import { runScenario } from '../engine/run';
import type { CheckedEvent } from '../engine/trace';
import { scenario } from '../presets/build';
import type { Scenario } from '../scenario/schema';
import { APP_CYCLE_STUCK as CYCLE, appWaitCycle, waitCycleFindings as cyclesOf } from '../testing/appWaitCycle';
import { checkTrace, checkersFor } from './index';

/** A request in `process` that opens a transaction, calls the API for 200 ms and records the job through a helper on a second connection. */
const helperRequest = (id: string, process: string, startMs: number): Scenario['workers'][number] => ({
  id, process, startMs, steps: [{ do: 'connect' }, { do: 'begin' }, { do: 'effect', ms: 200 }, { do: 'record', helper: true }, { do: 'commit' }, { do: 'disconnect' }],
});

/** Requests whose helpers need a second connection from their process's pool (as fixtures/scenario-v2-helper-pool.json). */
const helperPool = (processes: NonNullable<Scenario['processes']>, workers: Scenario['workers'], more: Partial<Scenario> = {}): Scenario => scenario({
  id: 'helper-pool', title: 'helper pool', description: 'Each request keeps its connection while its helper waits for another.', lesson: 'locks', horizonMs: 10_000,
  job: { kind: 'external', jobKey: 'charge-{worker}' },
  database: { poolSize: 2 },
  destination: { kind: 'api', target: 'POST /v1/charges', checksFencing: false, honoursIdempotencyKeys: false },
  processes, workers, invariants: [{ kind: 'noWaitCycle' }],
  ...more,
});

describe('noWaitCycle: a helper waits for its own caller\'s row lock (fixtures/scenario-v2-helper-lock.json)', () => {
  /** A locks account 1 on c1 (`SELECT … FOR UPDATE`), then its helper's UPDATE on c2 waits for that lock while A waits for the helper. */
  const helperLock = (statementTimeoutMs?: number): Scenario => scenario({
    id: 'helper-lock', title: 'helper lock', description: 'The helper waits for its caller\'s row lock.', lesson: 'locks', horizonMs: 10_000,
    job: { kind: 'debit', accountId: 1, initialBalance: 100 },
    mechanism: { rowLock: 'forUpdate' },
    database: statementTimeoutMs === undefined ? { poolSize: 4 } : { poolSize: 4, statementTimeoutMs },
    processes: [{ id: 'web-1', poolSize: 4 }],
    workers: [{ id: 'A', process: 'web-1', startMs: 0, amount: 30, steps: [{ do: 'connect' }, { do: 'begin' }, { do: 'read' }, { do: 'effect', ms: 0, helper: true }, { do: 'commit' }, { do: 'disconnect' }] }],
    invariants: [{ kind: 'noWaitCycle' }],
  });
  const SELF = 'stuck: wait cycle A→A (A waits for row lock on accounts row id=1 held by A (session c1), in the database, from its helper\'s connection c2, while its own connection waits in the application for that helper); PostgreSQL cannot see the wait outside the database';

  it('one worker waits for itself across its two connections: the cycle A→A, its one edge marked viaHelper c2, citing the helper\'s waiting UPDATE', () => {
    const [c, ...rest] = cyclesOf(helperLock());
    expect(rest).toEqual([]);
    expect(c!.message).toBe(`${SELF}, so its deadlock check does not break it`);
    // The edge data carries the helper's connection (and nothing undefined where it has none).
    expect(c!.cycle).toStrictEqual([{ from: 'A', to: 'A', on: 'db', what: 'row lock on accounts row id=1 held by A (session c1), in the database, from its helper\'s connection c2, while its own connection waits in the application for that helper', viaHelper: 'c2' }]);
    expect(c!.cited).toEqual(['0 A']);
  });

  it('statement_timeout beyond the run is named as what may end it; within the run, it is what ended it', () => {
    expect(cyclesOf(helperLock(20_000)).map((c) => c.message)).toEqual([`${SELF}, so its deadlock check does not break it; statement_timeout (20 s) may end it, failing a job`]);
    const [ended] = cyclesOf(helperLock(2_000));
    expect(ended!.message).toBe(`${SELF}: it lasted until 2 s, when statement_timeout cancelled A's statement (57014)`);
    expect(ended!.cited).toEqual(['0 A', '2000 A']);
  });
});

describe('noWaitCycle: a pool that deadlocks itself, in each process', () => {
  it('one request alone on a pool of one waits for its own connection: the edge A→A names A as the holder', () => {
    const [c, ...rest] = cyclesOf(helperPool([{ id: 'web-1', poolSize: 1 }], [helperRequest('A', 'web-1', 0)]));
    expect(rest).toEqual([]);
    expect(c!.cycle).toStrictEqual([{ from: 'A', to: 'A', on: 'pool', what: 'a second connection from process web-1\'s pool for its helper, while it keeps c1 (all 1 in use: c1 by A)' }]);
    expect(c!.cited).toEqual(['200 A']);
  });

  it('two processes, each with one request waiting for itself: two cycles of one worker each, both reported', () => {
    const found = cyclesOf(helperPool([{ id: 'web-1', poolSize: 1 }, { id: 'web-2', poolSize: 1 }], [helperRequest('A', 'web-1', 0), helperRequest('B', 'web-2', 0)]));
    expect(found.map((c) => c.message)).toEqual([
      'stuck: wait cycle A→A (A waits for a second connection from process web-1\'s pool for its helper, while it keeps c1 (all 1 in use: c1 by A)); PostgreSQL cannot see the wait outside the database, so its deadlock check does not break it',
      'stuck: wait cycle B→B (B waits for a second connection from process web-2\'s pool for its helper, while it keeps c2 (all 1 in use: c2 by B)); PostgreSQL cannot see the wait outside the database, so its deadlock check does not break it',
    ]);
  });

  it('two cycles of two workers whose names run together alike (A and BC, AB and C) are two cycles', () => {
    const found = cyclesOf(helperPool([{ id: 'web-1', poolSize: 2 }, { id: 'web-2', poolSize: 2 }], [helperRequest('A', 'web-1', 0), helperRequest('BC', 'web-1', 50), helperRequest('AB', 'web-2', 0), helperRequest('C', 'web-2', 50)]));
    expect(found.map((c) => c.cycle!.map((e) => `${e.from}→${e.to} ${e.on}`))).toEqual([['A→BC pool', 'BC→A pool'], ['AB→C pool', 'C→AB pool']]);
    expect(found.map((c) => c.cited)).toEqual([['200 A', '250 BC'], ['200 AB', '250 C']]);
  });

  it('behind PgBouncer with one server connection, the helper waits in PgBouncer\'s queue for the backend its own caller holds', () => {
    const s = helperPool([{ id: 'web-1', poolSize: 4 }], [helperRequest('A', 'web-1', 0)], { database: { poolSize: 2, pooler: { mode: 'transaction', serverConnections: 1 } } });
    const [c, ...rest] = cyclesOf(s);
    expect(rest).toEqual([]);
    expect(c!.message).toBe('stuck: wait cycle A→A (A waits for a server connection from PgBouncer for its helper (all 1 in use: s1 by A)); PostgreSQL cannot see the wait outside the database, so its deadlock check does not break it');
    expect(c!.cited).toEqual(['200 A']);
  });
});

describe('noWaitCycle: which connections a pool wait waits for', () => {
  it('a connection a crash destroyed is nobody\'s: B waits only for the new one A keeps, and that is the cycle', () => {
    // C borrows c1 and crashes at 2 ms: c1 is closed and the pool of one opens c2, which A then borrows.
    const s: Scenario = {
      ...appWaitCycle,
      horizonMs: 3_000,
      database: { ...appWaitCycle.database, poolSize: 1 },
      workers: [{ id: 'C', startMs: 0, amount: 1, steps: [{ do: 'begin' }, { do: 'work', ms: 1_000 }] }, { ...appWaitCycle.workers[0]!, startMs: 5 }, appWaitCycle.workers[1]!],
      faults: [{ kind: 'crash', worker: 'C', atMs: 2, restartAfterMs: null }],
    };
    const r = runScenario(s);
    expect(r.events.filter((e) => e.kind === 'pool').map((e) => `${e.atMs} ${e.actor} ${e.command} → ${e.reply}`).slice(0, 3)).toEqual(['0 C pool.connect() → c1', '2 C connection.destroy() → closed', '5 A pool.connect() → c2']);
    expect(cyclesOf(s)).toEqual([{
      message: 'stuck: wait cycle A→B→A (A waits for B\'s lease lease:export; B waits for a connection from the pool (all 1 in use: c2 by A)); PostgreSQL cannot see the wait outside the database, so its deadlock check does not break it',
      cited: ['10 B', '105 A'],
      cycle: [{ from: 'A', to: 'B', on: 'lease', what: 'B\'s lease lease:export' }, { from: 'B', to: 'A', on: 'pool', what: 'a connection from the pool (all 1 in use: c2 by A)' }],
    }]);
  });

  it('only the waiter\'s own process\'s pool counts: another process\'s bigger pool, its connection kept by a busy worker and its acquire timeout change nothing', () => {
    // web-0 (3 connections, a 20 s acquire timeout) lends one to C for 9 s; A and B share web-1's one connection.
    const s: Scenario = {
      ...appWaitCycle,
      processes: [{ id: 'web-0', poolSize: 3, acquireTimeoutMs: 20_000 }, { id: 'web-1', poolSize: 1 }],
      workers: [...appWaitCycle.workers.map((w) => ({ ...w, process: 'web-1' })), { id: 'C', startMs: 0, process: 'web-0', amount: 1, steps: [{ do: 'connect' }, { do: 'work', ms: 9_000 }, { do: 'disconnect' }] }],
    };
    const [c, ...rest] = cyclesOf(s);
    expect(rest).toEqual([]);
    expect(c!.message).toBe('stuck: wait cycle A→B→A (A waits for B\'s lease lease:export; B waits for a connection from process web-1\'s pool (all 1 in use: c4 by A)); PostgreSQL cannot see the wait outside the database, so its deadlock check does not break it');
    expect(c!.cited).toEqual(['10 B', '100 A']);
  });
  it('behind PgBouncer, a server connection closed with its client (a crash inside a transaction) is no longer anyone\'s: B waits only for the replacement A keeps', () => {
    // Session mode, one server connection: C's client c1 closes at its crash inside a transaction, so PgBouncer closes s1 and opens s2.
    const s: Scenario = {
      ...appWaitCycle,
      database: { poolSize: 3, pooler: { mode: 'session', serverConnections: 1 } },
      workers: [{ id: 'C', startMs: 0, amount: 1, steps: [{ do: 'begin' }, { do: 'read' }, { do: 'work', ms: 1_000 }] }, { ...appWaitCycle.workers[0]!, startMs: 5 }, appWaitCycle.workers[1]!],
      faults: [{ kind: 'crash', worker: 'C', atMs: 2, restartAfterMs: null }],
    };
    const r = runScenario(s);
    expect(r.events.filter((e) => e.call?.resource === 'pooler').map((e) => `${e.atMs} ${e.actor} ${e.command} → ${e.reply}`)).toEqual(['2 pooler DISCARD ALL → s1 closed; s2 opened', '10 B  → waits (no idle server connection)']);
    expect(cyclesOf(s)).toEqual([{
      message: 'stuck: wait cycle A→B→A (A waits for B\'s lease lease:export; B waits for a server connection from PgBouncer (all 1 in use: s2 by A)); PostgreSQL cannot see the wait outside the database, so its deadlock check does not break it',
      cited: ['10 B', '105 A'],
      cycle: [{ from: 'A', to: 'B', on: 'lease', what: 'B\'s lease lease:export' }, { from: 'B', to: 'A', on: 'pool', what: 'a server connection from PgBouncer (all 1 in use: s2 by A)' }],
    }]);
  });
});

describe('noWaitCycle: waits that are not on the cycle', () => {
  it('a pool wait is stuck only if every holder stays stuck: A waits for p1\'s connections, kept by B (waiting for A\'s lease) and by D, whose statement waits for PgBouncer\'s one server connection that E, busy and not waiting, keeps', () => {
    const s = scenario({
      id: 'pool-chain', title: 'pool chain', description: 'A waits for a connection D gives back once E commits.', lesson: 'locks', horizonMs: 10_000,
      job: { kind: 'external', jobKey: 'job-{worker}' },
      mechanism: { lock: 'lease' },
      database: { poolSize: 4, pooler: { mode: 'transaction', serverConnections: 1 } },
      processes: [{ id: 'p1', poolSize: 2 }, { id: 'p2', poolSize: 1 }],
      workers: [
        { id: 'A', startMs: 0, process: 'p1', steps: [{ do: 'acquire' }, { do: 'work', ms: 20 }, { do: 'connect' }, { do: 'begin' }, { do: 'commit' }, { do: 'disconnect' }, { do: 'release' }] },
        { id: 'B', startMs: 0, process: 'p1', steps: [{ do: 'connect' }, { do: 'work', ms: 40 }, { do: 'acquire' }, { do: 'release' }, { do: 'disconnect' }] },
        { id: 'D', startMs: 5, process: 'p1', steps: [{ do: 'connect' }, { do: 'work', ms: 30 }, { do: 'begin' }, { do: 'commit' }, { do: 'disconnect' }] },
        { id: 'E', startMs: 0, process: 'p2', steps: [{ do: 'connect' }, { do: 'begin' }, { do: 'work', ms: 5_000 }, { do: 'commit' }, { do: 'disconnect' }] },
      ],
      invariants: [{ kind: 'noWaitCycle' }],
    });
    const r = runScenario(s);
    // A waits for p1 (c1 by B, c2 by D) from 20 ms, D for a server connection from 35 ms, B for A's lease from 40 ms.
    expect(r.events.filter((e) => e.data?.t === 'wait' && e.data.phase === 'begin').map((e) => `${e.atMs} ${e.actor} ${e.reply}`)).toEqual(['20 A waits (pool exhausted)', '35 D waits (no idle server connection)']);
    expect(r.events.find((e) => e.actor === 'B' && e.reply === '(nil)')!.atMs).toBe(40);
    // E commits at 5 s: D gets s1, finishes and gives c2 back, A gets it and releases the lease, B takes it.
    expect(r.events.filter((e) => e.kind === 'outcome' && e.state === 'done').map((e) => `${e.atMs} ${e.actor}`)).toEqual(['5000 E', '5000 D', '5000 A', '5040 B']);
    expect(r.verdict.status).toBe('held');
    expect(cyclesOf(s)).toEqual([]);
  });

  it('a third worker waiting for B\'s lease waits into the cycle A→B→A without being on it: one finding, for A and B', () => {
    const s: Scenario = { ...appWaitCycle, workers: [...appWaitCycle.workers, { id: 'C', startMs: 50, amount: 1, steps: [{ do: 'acquire' }, { do: 'release' }] }] };
    const r = runScenario(s);
    expect(r.events.filter((e) => e.actor === 'C' && e.reply === '(nil)').length).toBeGreaterThan(0);
    expect(cyclesOf(s)).toEqual([{
      message: `${CYCLE}, so its deadlock check does not break it`,
      cited: ['10 B', '100 A'],
      cycle: [{ from: 'A', to: 'B', on: 'lease', what: 'B\'s lease lease:export' }, { from: 'B', to: 'A', on: 'db', what: 'row lock on accounts row id=1 held by A (session c1), in the database' }],
    }]);
  });

  it('behind PgBouncer, a server connection handed back at a COMMIT and not yet handed over is free: D waits for it, not for X, whose wait for D\'s lease is then no cycle', () => {
    // Transaction mode, two server connections: s1 in A's transaction, s2 in X's, which retries D's lease; D's BEGIN waits for one from 20 ms.
    const s = scenario({
      id: 'pooler-handover', title: 'pooler hand-over', description: 'A\'s COMMIT hands s1 to D.', lesson: 'locks', horizonMs: 10_000,
      job: { kind: 'external', jobKey: 'job-{worker}' },
      mechanism: { lock: 'lease' },
      database: { poolSize: 4, pooler: { mode: 'transaction', serverConnections: 2 } },
      workers: [
        { id: 'A', startMs: 0, steps: [{ do: 'connect' }, { do: 'begin' }, { do: 'work', ms: 100 }, { do: 'commit' }, { do: 'disconnect' }] },
        { id: 'D', startMs: 0, steps: [{ do: 'acquire' }, { do: 'connect' }, { do: 'work', ms: 20 }, { do: 'begin' }, { do: 'commit' }, { do: 'disconnect' }, { do: 'release' }] },
        { id: 'X', startMs: 5, steps: [{ do: 'connect' }, { do: 'begin' }, { do: 'acquire' }, { do: 'commit' }, { do: 'release' }, { do: 'disconnect' }] },
      ],
      invariants: [{ kind: 'noWaitCycle' }],
    });
    const r = runScenario(s);
    expect(r.events.filter((e) => e.atMs === 100 && e.actor !== 'A').slice(0, 2).map((e) => `${e.actor} ${e.reply} | ${e.narration}`)).toEqual([
      'D server connection s1 | PgBouncer hands server connection s1 to D after 80 ms in its queue.',
      'D BEGIN | [backend s1] D opens a transaction.',
    ]);
    expect(r.events.find((e) => e.actor === 'X' && e.reply === 'OK')!.atMs).toBe(1_005);
    expect(r.verdict.status).toBe('held');
    expect(cyclesOf(s)).toEqual([]);
  });

  it('a lease client cut off from Redis gets no reply, not a refusal: it does not know B holds the key, so it waits for no one and there is no cycle', () => {
    const s: Scenario = { ...appWaitCycle, horizonMs: 5_000, faults: [{ kind: 'partition', worker: 'A', atMs: 50, durationMs: 20_000 }] };
    const r = runScenario(s);
    expect(r.events.filter((e) => e.actor === 'A' && e.kind === 'redis').map((e) => `${e.atMs} ${e.reply}`)[0]).toBe('100 (no reply: connection timed out)');
    expect(cyclesOf(s)).toEqual([]);
  });

  it('a worker that asks again for the lease it holds is refused by its own key: it waits for its TTL, not for another worker, so no cycle', () => {
    const s: Scenario = { ...appWaitCycle, workers: [{ id: 'A', startMs: 0, amount: 1, steps: [{ do: 'acquire' }, { do: 'work', ms: 10 }, { do: 'acquire' }, { do: 'release' }] }] };
    const r = runScenario(s);
    expect(r.events.filter((e) => e.actor === 'A' && e.reply === '(nil)').length).toBeGreaterThan(5);
    expect(cyclesOf(s)).toEqual([]);
  });

  it('a key lost in a clock jump while its holder\'s watchdog renews it: the cycle lasts until the waiter\'s next try takes the key, not until the failed renewal', () => {
    const s: Scenario = {
      ...appWaitCycle,
      horizonMs: 25_000,
      lease: { ...appWaitCycle.lease, retryEveryMs: 20_000, renewEveryMs: 1_000 },
      mechanism: { ...appWaitCycle.mechanism, renewal: 'compare-and-extend' },
      faults: [{ kind: 'clockJump', atMs: 2_000, jumpMs: 40_000 }],
    };
    const [c, ...rest] = cyclesOf(s);
    expect(rest).toEqual([]);
    expect(c!.message).toBe(`${CYCLE}: it lasted until 20.1 s, when A got lease:export`);
    expect(c!.cited).toEqual(['10 B', '100 A', '20100 A']);
  });
});

describe('noWaitCycle: what may end the cycle', () => {
  it('the lock client\'s acquire timeout and statement_timeout, both set beyond the run: either may end it', () => {
    const s: Scenario = { ...appWaitCycle, database: { ...appWaitCycle.database, statementTimeoutMs: 20_000 }, mechanism: { ...appWaitCycle.mechanism, acquireTimeoutMs: 30_000 } };
    expect(cyclesOf(s).map((c) => c.message)).toEqual([`${CYCLE}, so its deadlock check does not break it; A's acquire timeout (30 s) or statement_timeout (20 s) may end it, failing a job`]);
  });

  it('an acquire timeout set to none (null) is not named', () => {
    const s: Scenario = { ...appWaitCycle, mechanism: { ...appWaitCycle.mechanism, acquireTimeoutMs: null } };
    expect(cyclesOf(s).map((c) => c.message)).toEqual([`${CYCLE}, so its deadlock check does not break it`]);
  });

  it('the checker every scenario gets is named noWaitCycle', () => {
    expect(checkersFor(appWaitCycle).map((c) => c.kind)).toContain('noWaitCycle');
  });
});

describe('noWaitCycle: only a COMMIT or ROLLBACK is what let the waiter through', () => {
  it('another statement of A at the instant B\'s statement goes through is not said to have let B through', () => {
    const r = runScenario(appWaitCycle);
    const events: CheckedEvent[] = r.events.filter((e) => e.atMs <= 100).map(({ command: _c, reply: _r, narration: _n, fact: _f, ...data }) => data);
    // A's SELECT … FOR UPDATE (0 ms) again at 2 s, then B's waiting SELECT answered at 2 s.
    const aSelect = events.find((e) => e.actor === 'A' && e.call?.resource === 'db' && (e.call.command as { op: string }).op === 'select')!;
    const bWaits = events.find((e) => e.actor === 'B' && e.data?.t === 'wait')!;
    const bThrough = { ...bWaits, id: 'e51', atMs: 2_000, state: 'working', data: { t: 'wait', on: 'db', phase: 'end', sinceMs: 10 }, call: { ...bWaits.call!, reply: { status: 'ok', tag: 'SELECT 1', rows: [{ balance: 100 }] } } } as CheckedEvent;
    const found = checkTrace(appWaitCycle, [...events, { ...aSelect, id: 'e50', atMs: 2_000 }, bThrough]).filter((f) => f.invariant === 'noWaitCycle');
    expect(found.map((f) => f.message)).toEqual([`${CYCLE}: it lasted until 2 s, when B's statement went through`]);
  });
});
