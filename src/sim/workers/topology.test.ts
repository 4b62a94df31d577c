/**
 * Connection topology (issue 10, element 3; scenario version 2): application processes with a
 * pool each (`processes`, `workers[].process`), a step whose helper takes a second connection from
 * the same pool (`helper`), and what that does — a pool that deadlocks itself, and a helper that
 * waits for its own caller's lock, which PostgreSQL's deadlock check cannot see
 * (../shared/semantics.md, "PostgreSQL advisory locks": a cycle through application code hangs).
 * The fixtures are the files the README's scenario-format section shows.
 */
import { readFileSync } from 'node:fs';
import { runScenario, type RunResult } from '../engine/run';
import { parseScenario } from '../scenario/migrate';
import { validateScenario } from '../scenario/validate';
import type { Scenario } from '../scenario/schema';
import { buildTranscript, renderTranscript } from '../transcript/transcript';

const fixture = (name: string): Scenario => {
  const r = parseScenario(JSON.parse(readFileSync(new URL(`../scenario/fixtures/${name}.json`, import.meta.url), 'utf8')));
  if (!r.ok) throw new Error(r.errors.map((e) => `${e.path}: ${e.message}`).join('\n'));
  return r.scenario;
};
/** `<ms> <actor> <command> → <reply> | <narration>` for every event (command and reply left out when absent). */
const lines = (r: RunResult, keep: (e: RunResult['events'][number]) => boolean = () => true) =>
  r.events.filter(keep).map((e) => `${e.atMs} ${e.actor} ${e.command === undefined ? '' : `${e.command} → ${e.reply} `}| ${e.narration}`);
const poolEvents = (e: RunResult['events'][number]) => e.kind === 'pool';

describe('processes with a pool each (fixtures/scenario-v2-processes.json)', () => {
  const s = fixture('scenario-v2-processes');

  it('a worker borrows only from its own process\'s pool: B waits for web-1\'s one connection while web-2 has an idle one, then the acquire timeout fails its job', () => {
    const r = runScenario(s);
    expect(lines(r, poolEvents)).toEqual([
      '0 A pool.connect() → c1 | A borrows connection c1 from process web-1\'s pool (1 of 1 in use: c1 by A).',
      '100 B pool.connect() → waits (pool exhausted) | Every connection of process web-1\'s pool is in use (1 of 1: c1 by A): B waits for one (position 1 in the queue); the pool gives up after 1 s.',
      '100 C pool.connect() → c2 | C borrows connection c2 from process web-2\'s pool (1 of 2 in use: c2 by C).',
      '200 C client.release() → ok | C returns connection c2 to process web-2\'s pool.',
      '1100 B pool.connect() → Error: timeout exceeded when trying to connect | B gives up waiting for a connection from process web-1\'s pool after 1 s (the pool\'s acquire timeout): the pool throws "timeout exceeded when trying to connect".',
      '2000 A client.release() → ok | A returns connection c1 to process web-1\'s pool.',
    ]);
    expect(lines(r, (e) => e.actor === 'B' && e.kind === 'outcome')).toEqual([
      '1100 B | B\'s job fails (timeout exceeded when trying to connect); its error path runs.',
      '1100 B | B is done: the job failed.',
    ]);
    expect(r.verdict.violations.map((v) => v.message)).toEqual(['B waited 1 s for a connection (the limit is 500 ms)']);
    // The events carry the process as data (the checkers and the transcript read it).
    expect(r.events.find((e) => e.actor === 'B' && e.kind === 'pool')?.call).toEqual({ resource: 'pool', caller: 'B', command: { op: 'connect', process: 'web-1' }, reply: { status: 'waits', position: 1 } });
  });

  it('without the acquire timeout B waits until A returns c1, and gets it', () => {
    const r = runScenario({ ...s, processes: [{ id: 'web-1', poolSize: 1 }, { id: 'web-2', poolSize: 2 }] });
    expect(lines(r, (e) => e.actor === 'B' && e.kind === 'pool')).toEqual([
      '100 B pool.connect() → waits (pool exhausted) | Every connection of process web-1\'s pool is in use (1 of 1: c1 by A): B waits for one (position 1 in the queue).',
      '2000 B pool.connect() → c1 | B gets connection c1 after waiting 1.9 s for process web-1\'s pool.',
      '2100 B client.release() → ok | B returns connection c1 to process web-1\'s pool.',
    ]);
    expect(r.metrics.connectionWait.maxMs).toBe(1_900);
  });

  it('an acquire timeout ends only the wait it was set for: a wait that got its connection in time is not failed later', () => {
    const r = runScenario({ ...s, processes: [{ id: 'web-1', poolSize: 1, acquireTimeoutMs: 2_500 }, { id: 'web-2', poolSize: 2 }] });
    expect(r.events.some((e) => e.reply?.startsWith('Error: timeout'))).toBe(false);
    expect(r.events.filter((e) => e.kind === 'outcome').map((e) => e.narration)).toEqual(['C is done: it completed the job.', 'A is done: it completed the job.', 'B is done: it completed the job.']);
  });

  it('numbers connections across the pools (web-1 c1, web-2 c2 c3, the shared pool after them) and shows each with its process', () => {
    const withShared: Scenario = { ...s, database: { poolSize: 1 }, workers: [...s.workers, { id: 'D', startMs: 0, steps: [{ do: 'connect' }, { do: 'disconnect' }] }] };
    const r = runScenario(withShared, { captureSnapshots: true });
    expect(r.events.find((e) => e.actor === 'D')?.narration).toBe('D borrows connection c4 from the shared pool (1 of 1 in use: c4 by D).');
    expect(r.snapshots![0]!.pool.connections).toEqual([
      { id: 'c1', borrower: 'A', process: 'web-1' },
      { id: 'c2', borrower: null, process: 'web-2' },
      { id: 'c3', borrower: null, process: 'web-2' },
      { id: 'c4', borrower: null },
    ]);
    // Without a worker outside a process, the shared pool opens no connection at all.
    expect(runScenario(s, { captureSnapshots: true }).snapshots![0]!.pool.connections.map((c) => c.id)).toEqual(['c1', 'c2', 'c3']);
  });

  it('a discarded connection is replaced with a fresh id no other pool uses', () => {
    const r = runScenario({ ...s, faults: [{ kind: 'crash', worker: 'C', atMs: 150, restartAfterMs: null }] });
    expect(lines(r, (e) => e.actor === 'C' && e.kind === 'pool')).toEqual([
      '100 C pool.connect() → c2 | C borrows connection c2 from process web-2\'s pool (1 of 2 in use: c2 by C).',
      '150 C connection.destroy() → closed | C closes connection c2; its session ends, which releases every lock it held.',
    ]);
    const snap = runScenario({ ...s, faults: [{ kind: 'crash', worker: 'C', atMs: 150, restartAfterMs: null }] }, { captureSnapshots: true }).snapshots!.at(-1)!;
    expect(snap.pool.connections.map((c) => `${c.id}:${c.process}`)).toEqual(['c1:web-1', 'c3:web-2', 'c4:web-2']);
  });
});

describe('a helper on a second connection from the same pool: the pool deadlocks itself (fixtures/scenario-v2-helper-pool.json)', () => {
  const s = fixture('scenario-v2-helper-pool');

  it('each caller keeps its connection and waits for its helper; each helper waits for a connection only a caller could give back', () => {
    const r = runScenario(s);
    expect(lines(r, poolEvents)).toEqual([
      '0 A pool.connect() → c1 | A borrows connection c1 from process web-1\'s pool (1 of 2 in use: c1 by A).',
      '50 B pool.connect() → c2 | B borrows connection c2 from process web-1\'s pool (2 of 2 in use: c1 by A, c2 by B).',
      '200 A pool.connect() → waits (pool exhausted) | A calls a helper that needs a connection of its own, but every connection of process web-1\'s pool is in use (2 of 2: c1 by A, c2 by B): the helper waits for one (position 1 in the queue) and A waits for the helper. A keeps its own c1 until the helper returns.',
      '250 B pool.connect() → waits (pool exhausted) | B calls a helper that needs a connection of its own, but every connection of process web-1\'s pool is in use (2 of 2: c1 by A, c2 by B): the helper waits for one (position 2 in the queue) and B waits for the helper. B keeps its own c2 until the helper returns.',
    ]);
    const cycle = r.verdict.violations.find((v) => v.invariant === 'noWaitCycle')!;
    expect(cycle.message).toBe('stuck: wait cycle A→B→A (A waits for a second connection from process web-1\'s pool for its helper, while it keeps c1 (all 2 in use: c1 by A, c2 by B); B waits for a second connection from process web-1\'s pool for its helper, while it keeps c2 (all 2 in use: c1 by A, c2 by B)); PostgreSQL cannot see the wait outside the database, so its deadlock check does not break it');
    expect(cycle.cycle?.map((e) => `${e.from}→${e.to} ${e.on}`)).toEqual(['A→B pool', 'B→A pool']);
    expect(cycle.eventIds.map((id) => r.events.find((e) => e.id === id)!.atMs)).toEqual([200, 250]);
    expect(r.verdict.violations.filter((v) => v.invariant === 'boundedWait').map((v) => v.message)).toEqual([
      'A was still waiting for a connection when the run ended, 9.8 s after it started (the limit is 5 s)',
      'B was still waiting for a connection when the run ended, 9.75 s after it started (the limit is 5 s)',
    ]);
    // The calls say which connect was a helper's (the wait-cycle check and the transcript read it).
    expect(r.events.find((e) => e.atMs === 200 && e.kind === 'pool')?.call?.command).toEqual({ op: 'connect', process: 'web-1', helper: true });
  });

  it('one request alone on a pool of one waits for itself: the cycle A→A', () => {
    const r = runScenario({ ...s, processes: [{ id: 'web-1', poolSize: 1 }], workers: [s.workers[0]!] });
    expect(lines(r, (e) => e.kind === 'pool' && e.atMs === 200)).toEqual([
      '200 A pool.connect() → waits (pool exhausted) | A calls a helper that needs a connection of its own, but every connection of process web-1\'s pool is in use (1 of 1: c1 by A): the helper waits for one (position 1 in the queue) and A waits for the helper. Every one of them is A\'s own, and A keeps c1 until the helper returns: nothing can free one.',
    ]);
    expect(r.verdict.violations.find((v) => v.invariant === 'noWaitCycle')?.message).toBe('stuck: wait cycle A→A (A waits for a second connection from process web-1\'s pool for its helper, while it keeps c1 (all 1 in use: c1 by A)); PostgreSQL cannot see the wait outside the database, so its deadlock check does not break it');
  });

  it('with the pool\'s acquire timeout the first helper gives up, its caller rolls back and returns c1, and the other helper gets it', () => {
    const r = runScenario({ ...s, processes: [{ id: 'web-1', poolSize: 2, acquireTimeoutMs: 1_000 }] });
    expect(lines(r, (e) => e.atMs === 1_200)).toEqual([
      '1200 A pool.connect() → Error: timeout exceeded when trying to connect | A\'s helper gives up waiting for a connection from process web-1\'s pool after 1 s (the pool\'s acquire timeout): the pool throws "timeout exceeded when trying to connect". The helper throws, and A\'s job fails with it.',
      '1200 A | A\'s job fails (timeout exceeded when trying to connect); its error path runs.',
      '1200 A ROLLBACK → ROLLBACK | A rolls back.',
      '1200 A client.release() → ok | A returns connection c1 to process web-1\'s pool.',
      '1200 B pool.connect() → c1 | B\'s helper gets connection c1 after waiting 950 ms for process web-1\'s pool.',
      '1200 A | A is done: the job failed.',
      '1200 B INSERT INTO jobs (job_key, status) VALUES (\'charge-B\', \'done\') ON CONFLICT DO NOTHING → INSERT 0 1 | [helper c1] B records the job as done.',
      '1200 B client.release() → ok | B\'s helper returns connection c1 to process web-1\'s pool. B goes on with c2.',
      '1200 B COMMIT → COMMIT | B commits.',
      '1200 B client.release() → ok | B returns connection c2 to process web-1\'s pool.',
      '1200 B | B is done: it completed the job.',
    ]);
    // The cycle was real while it lasted (reported once, not again at the moment A returned c1), and says until when and what ended it.
    expect(r.verdict.violations.map((v) => v.message)).toEqual(['stuck: wait cycle A→B→A (A waits for a second connection from process web-1\'s pool for its helper, while it keeps c1 (all 2 in use: c1 by A, c2 by B); B waits for a second connection from process web-1\'s pool for its helper, while it keeps c2 (all 2 in use: c1 by A, c2 by B)); PostgreSQL cannot see the wait outside the database: it lasted until 1.2 s, when A\'s pool acquire timeout fired']);
  });

  it('the acquire timeout is the process\'s own timer: in a paused process it fires when the process resumes, and says so', () => {
    const r = runScenario({ ...s, processes: [{ id: 'web-1', poolSize: 1, acquireTimeoutMs: 500 }], workers: [s.workers[0]!], faults: [{ kind: 'pause', worker: 'A', atMs: 300, pauseMs: 2_000 }] });
    expect(lines(r, (e) => e.kind === 'pool' && e.reply?.startsWith('Error') === true)).toEqual([
      '2300 A pool.connect() → Error: timeout exceeded when trying to connect | A\'s helper gives up waiting for a connection from process web-1\'s pool after 2.1 s (the pool\'s acquire timeout, 500 ms, fired late: the process was paused): the pool throws "timeout exceeded when trying to connect". The helper throws, and A\'s job fails with it.',
    ]);
  });

  it('the fix — a third connection, or the record on the caller\'s own connection — completes both jobs', () => {
    const bigger = runScenario({ ...s, processes: [{ id: 'web-1', poolSize: 3 }] });
    expect(bigger.verdict.status).toBe('held');
    expect(lines(bigger, (e) => e.actor === 'A' && e.atMs === 200 && e.kind !== 'destination')).toEqual([
      '200 A pool.connect() → c3 | A calls a helper that needs a connection of its own: it borrows c3 from process web-1\'s pool (3 of 3 in use: c1 by A, c2 by B, c3 by A), while A keeps c1 and waits for the helper to return.',
      '200 A INSERT INTO jobs (job_key, status) VALUES (\'charge-A\', \'done\') ON CONFLICT DO NOTHING → INSERT 0 1 | [helper c3] A records the job as done.',
      '200 A client.release() → ok | A\'s helper returns connection c3 to process web-1\'s pool. A goes on with c1.',
      '200 A COMMIT → COMMIT | A commits.',
      '200 A client.release() → ok | A returns connection c1 to process web-1\'s pool.',
      '200 A | A is done: it completed the job.',
    ]);
    const same = runScenario({ ...s, workers: s.workers.map((w) => ({ ...w, steps: w.steps.map((st) => (st.do === 'record' ? { do: 'record' as const } : st)) })) });
    expect(same.verdict.status).toBe('held');
    expect(same.events.filter((e) => e.kind === 'pool').length).toBe(4);
  });

  it('behind PgBouncer with one server connection the helper waits in PgBouncer\'s queue for the backend its own caller holds', () => {
    const r = runScenario({ ...s, database: { poolSize: 2, pooler: { mode: 'transaction', serverConnections: 1 } }, processes: [{ id: 'web-1', poolSize: 4 }], workers: [s.workers[0]!] });
    expect(lines(r, (e) => e.atMs === 200 && e.kind === 'pool')).toEqual([
      '200 A pool.connect() → c2 | A calls a helper that needs a connection of its own: it borrows c2 from process web-1\'s pool (2 of 4 in use: c1 by A, c2 by A), while A keeps c1 and waits for the helper to return.',
      '200 A  → waits (no idle server connection) | Every server connection of PgBouncer is in use (s1 by A\'s c1): A\'s helper\'s statement waits for one (position 1 in PgBouncer\'s queue), and A waits for its helper.',
    ]);
    expect(r.verdict.violations.find((v) => v.invariant === 'noWaitCycle')?.message).toBe('stuck: wait cycle A→A (A waits for a server connection from PgBouncer for its helper (all 1 in use: s1 by A)); PostgreSQL cannot see the wait outside the database, so its deadlock check does not break it');
  });
});

describe('a helper that waits for its caller\'s lock: a deadlock PostgreSQL cannot see (fixtures/scenario-v2-helper-lock.json)', () => {
  const s = fixture('scenario-v2-helper-lock');

  it('the helper\'s UPDATE waits for the row lock of its own caller\'s transaction; deadlock_timeout fires and finds no cycle; no 40P01', () => {
    const r = runScenario(s);
    expect(lines(r)).toEqual([
      '0 A pool.connect() → c1 | A borrows connection c1 from process web-1\'s pool (1 of 4 in use: c1 by A).',
      '0 A BEGIN → BEGIN | A opens a transaction.',
      '0 A SELECT balance FROM accounts WHERE id = 1 FOR UPDATE → SELECT 1 → balance=100 | A reads balance = 100 and locks the row until its transaction ends.',
      '0 A pool.connect() → c2 | A calls a helper that needs a connection of its own: it borrows c2 from process web-1\'s pool (2 of 4 in use: c1 by A, c2 by A), while A keeps c1 and waits for the helper to return.',
      '0 A UPDATE accounts SET balance = 70 WHERE id = 1 → waits (row lock on accounts row id=1 held by session c1) | [helper c2] A\'s helper waits: row lock on accounts row id=1 held by session c1, and A waits for its helper. Session c1 is A\'s own transaction, which cannot end before the helper returns: PostgreSQL sees c2 waiting for c1 and c1 waiting for nothing, so its deadlock check will find no cycle.',
      '1000 A | deadlock_timeout (1 s) fired for A\'s helper on c2: PostgreSQL\'s deadlock check finds no cycle. It sees c2 waiting for c1, A\'s own transaction, and nothing in the database leading back: the way back — A waiting for its helper to return — is in A\'s code. No 40P01; the helper waits on, and nothing in the database will end the wait.',
    ]);
    const cycle = r.verdict.violations.find((v) => v.invariant === 'noWaitCycle')!;
    expect(cycle.message).toBe('stuck: wait cycle A→A (A waits for row lock on accounts row id=1 held by A (session c1), in the database, from its helper\'s connection c2, while its own connection waits in the application for that helper); PostgreSQL cannot see the wait outside the database, so its deadlock check does not break it');
    expect(cycle.cycle).toEqual([{ from: 'A', to: 'A', on: 'db', what: 'row lock on accounts row id=1 held by A (session c1), in the database, from its helper\'s connection c2, while its own connection waits in the application for that helper', viaHelper: 'c2' }]);
    expect(r.verdict.violations.find((v) => v.invariant === 'boundedWait')?.message).toBe('A was still waiting for a lock when the run ended, 10 s after it started (the limit is 5 s)');
  });

  it('statement_timeout cancels the helper\'s UPDATE (57014); the helper returns c2, the job fails and A\'s own transaction rolls back: the balance stays 100', () => {
    const r = runScenario({ ...s, database: { ...s.database, statementTimeoutMs: 2_000 } });
    expect(lines(r, (e) => e.atMs === 2_000)).toEqual([
      '2000 A UPDATE accounts SET balance = 70 WHERE id = 1 → ERROR 57014 canceling statement due to statement timeout | [helper c2] After waiting 2 s: statement_timeout (2 s) cancels A\'s statement. A\'s update fails: canceling statement due to statement timeout.',
      '2000 A client.release() → ok | A\'s helper returns connection c2 to process web-1\'s pool. A goes on with c1.',
      '2000 A | A\'s job fails (canceling statement due to statement timeout); its error path runs.',
      '2000 A ROLLBACK → ROLLBACK | A rolls back.',
      '2000 A client.release() → ok | A returns connection c1 to process web-1\'s pool.',
      '2000 A | A is done: the job failed.',
    ]);
    expect(r.events.find((e) => e.atMs === 1_000)?.narration).toMatch(/the helper waits on, until statement_timeout \(2 s\) cancels it\.$/);
    expect(r.verdict.violations.map((v) => v.message)).toEqual(['stuck: wait cycle A→A (A waits for row lock on accounts row id=1 held by A (session c1), in the database, from its helper\'s connection c2, while its own connection waits in the application for that helper); PostgreSQL cannot see the wait outside the database: it lasted until 2 s, when statement_timeout cancelled A\'s statement (57014)']);
  });

  it('the fix — the UPDATE on the caller\'s own connection, inside its transaction — writes 70 at once', () => {
    const r = runScenario({ ...s, workers: s.workers.map((w) => ({ ...w, steps: w.steps.map((st) => (st.do === 'effect' ? { do: 'effect' as const, ms: 0 } : st)) })) });
    expect(r.verdict.status).toBe('held');
    expect(lines(r, (e) => e.kind === 'sql').at(-2)).toBe('0 A UPDATE accounts SET balance = 70 WHERE id = 1 → UPDATE 1 | A writes balance = 70 (the 100 it read minus 30).');
  });

  it('a crash while the helper waits closes both connections: the helper\'s, then the caller\'s (its transaction rolls back)', () => {
    const r = runScenario({ ...s, faults: [{ kind: 'crash', worker: 'A', atMs: 3_000, restartAfterMs: null }] });
    expect(lines(r, (e) => e.atMs === 3_000)).toEqual([
      '3000 A | A crashes. Its database connection closes, rolling back its open transaction and releasing its row lock on accounts row id=1.',
      '3000 A connection.destroy() → closed | A\'s helper closes connection c2; its session ends, which releases every lock it held.',
      '3000 A connection.destroy() → closed | A closes connection c1; its session ends, which releases every lock it held.',
    ]);
  });

  it('the transcript runs the helper\'s statement in a session of its own (c2), blocked on c1', () => {
    const text = renderTranscript(buildTranscript(runScenario(s)));
    expect(text).toContain('--    (0 ms) A\'s helper borrows connection c2 from process web-1\'s pool while A keeps c1: the helper\'s statements run in session c2.');
    expect(text).toContain('-- 3. c2 (A) at 0 ms\nUPDATE accounts SET balance = 70 WHERE id = 1;\n-- expect: (blocks) waits (row lock on accounts row id=1 held by session c1) — and never returns in the run');
  });
});

describe('validation of the topology fields', () => {
  const s = fixture('scenario-v2-helper-pool');
  const errors = (x: unknown) => {
    const r = validateScenario(x);
    return r.ok ? [] : r.errors.map((e) => `${e.path}: ${e.message}`);
  };

  it('refuses an unknown or duplicated process, and a helper on a step that sends no SQL, each with its path', () => {
    expect(errors({ ...s, processes: [{ id: 'web-1', poolSize: 2 }, { id: 'web-1', poolSize: 1 }], workers: [{ ...s.workers[0]!, process: 'web-9' }, s.workers[1]!] })).toEqual([
      'processes[1].id: duplicates processes[0].id "web-1"',
      'workers[0].process: no process "web-9" in processes',
    ]);
    const { processes: _, ...noProcesses } = s;
    expect(errors(noProcesses)).toEqual([
      'workers[0].process: names process "web-1", but the scenario has no "processes"',
      'workers[1].process: names process "web-1", but the scenario has no "processes"',
    ]);
    expect(errors({ ...s, workers: [{ ...s.workers[0]!, steps: [{ do: 'effect', ms: 1, helper: true }, { do: 'read', helper: true }, { do: 'check', helper: true }, { do: 'record', helper: true }] }] })).toEqual([
      'workers[0].steps[0].helper: a helper borrows a second database connection for this step\'s SQL, but the effect of an "external" job is a call to the destination, not SQL',
      'workers[0].steps[1].helper: a helper borrows a second database connection for this step\'s SQL, but a "read" step reads only in a "debit" or "reserve" job (job.kind is "external")',
      'workers[0].steps[2].helper: a helper borrows a second database connection for this step\'s SQL, but a "check" step sends SQL only for an "insertOnce" job or with mechanism.jobRecord',
    ]);
    expect(errors({ ...s, workers: [{ ...s.workers[0]!, steps: [{ do: 'begin', helper: true }] }] })).toEqual(['workers[0].steps[0]: unknown field "helper"']);
    expect(errors({ ...s, processes: [{ id: 'web-1', poolSize: 0, acquireTimeoutMs: 0 }] })).toEqual(['processes[0].poolSize: must be ≥ 1', 'processes[0].acquireTimeoutMs: must be ≥ 1']);
  });

  it('a version-1 file that uses processes, a worker\'s process or a step\'s helper is refused with their paths', () => {
    const { client: _, ...v1 } = JSON.parse(JSON.stringify(s)) as Scenario;
    const r = parseScenario({ ...v1, version: 1 });
    expect(r.ok ? [] : r.errors.map((e) => e.path)).toEqual(['processes', 'workers[0].process', 'workers[1].process', 'workers[0].steps[3].helper', 'workers[1].steps[3].helper']);
    if (!r.ok) expect(new Set(r.errors.map((e) => e.message))).toEqual(new Set(['exists only in scenario version 2: set "version": 2']));
  });
});
