/**
 * The job lifecycle (lifecycle.ts): when a paused worker finishes, which step runs on a helper
 * connection, and what the error path sends for a lock the worker never got.
 */
import { describe, expect, it } from 'vitest';
import helperLock from '../scenario/fixtures/scenario-v2-helper-lock.json';
import { parseScenario } from '../scenario/migrate';
import { scenario, steps } from '../presets/build';
import { runScenario, type RunResult } from '../engine/run';
import type { Scenario } from '../scenario/schema';

const parsed = (json: unknown): Scenario => {
  const r = parseScenario(json);
  if (!r.ok) throw new Error(JSON.stringify(r.errors));
  return r.scenario;
};
const of = (r: RunResult, actor: string) => r.events.filter((e) => e.actor === actor);

describe('a pause placed after the last step', () => {
  const run = (pauseMs: number | null) => runScenario(scenario({
    id: 'pause-at-end', title: 'pause at the end', description: 'A pauses after its last step.', lesson: 'leases', horizonMs: 20_000,
    job: { kind: 'external', jobKey: 'nightly-export' },
    workers: [{ id: 'A', startMs: 0, steps: steps('connect', ['work', 1_000]) }],
    faults: pauseMs === null ? [] : [{ kind: 'pause', worker: 'A', step: 1, phase: 'after', pauseMs }],
    invariants: [],
  }));

  it('holds the worker there: it returns its connection and is done only when it resumes', () => {
    const done = (r: RunResult) => of(r, 'A').filter((e) => e.kind === 'outcome' || e.kind === 'pool').map((e) => `${e.atMs} ${e.command ?? e.kind}`);
    expect(done(run(null))).toEqual(['0 pool.connect()', '1000 client.release()', '1000 outcome']);
    expect(done(run(4_000))).toEqual(['0 pool.connect()', '5000 client.release()', '5000 outcome']);
  });
});

describe('a step\'s helper', () => {
  it('helper: true runs the step\'s SQL on a second connection from the pool; helper: false (or absent) on the worker\'s own', () => {
    const withHelper = parsed(helperLock);
    const own = parsed(JSON.parse(JSON.stringify(helperLock).replace('"helper": true', '"helper": false').replace('"helper":true', '"helper":false')));
    expect(JSON.stringify(own)).not.toContain('"helper":true');
    const borrows = (r: RunResult) => of(r, 'A').filter((e) => e.command === 'pool.connect()').map((e) => e.reply);
    expect(borrows(runScenario(withHelper))).toHaveLength(2);
    expect(borrows(runScenario(own))).toEqual(['c1']);
  });
});

describe('the error path unlocks in finally only a lock the worker holds', () => {
  it('B\'s lock wait is cancelled by lock_timeout (55P03): its finally block sends no pg_advisory_unlock for a lock it never got', () => {
    const r = runScenario(scenario({
      id: 'unlock-in-finally', title: 'unlock in finally', description: 'B gives up waiting for the session lock A holds.', lesson: 'locks', horizonMs: 20_000,
      job: { kind: 'external', jobKey: 'nightly-export' },
      mechanism: { lock: 'advisory-session', onError: 'unlockInFinally', acquireTimeoutMs: 500 },
      database: { poolSize: 4 },
      workers: [
        { id: 'A', startMs: 0, steps: steps('connect', 'acquire', ['work', 3_000], 'release', 'disconnect') },
        { id: 'B', startMs: 100, steps: steps('connect', 'acquire', ['work', 1_000], 'release', 'disconnect') },
      ],
      invariants: [{ kind: 'mutualExclusion' }],
    }));
    const b = of(r, 'B').map((e) => `${e.atMs} ${e.command ?? e.kind}${e.reply ? ` → ${e.reply}` : ''}`);
    expect(b.some((x) => x.includes('ERROR 55P03'))).toBe(true);
    expect(b.filter((x) => x.includes('pg_advisory_unlock'))).toEqual([]);
    expect(of(r, 'B').at(-1)!.narration).toBe('B is done: the job failed.');
  });
});

describe('a fault placed after a step that ends the worker\'s flow', () => {
  it('a job error after the work step: the error path runs and the job goes no further (no call to the destination)', () => {
    const r = runScenario(scenario({
      id: 'job-error-after', title: 'job error after a step', description: 'A throws after its work.', lesson: 'leases', horizonMs: 20_000,
      job: { kind: 'external', jobKey: 'nightly-export' },
      workers: [{ id: 'A', startMs: 0, steps: steps('connect', ['work', 1_000], ['effect', 100], 'disconnect') }],
      faults: [{ kind: 'jobError', worker: 'A', step: 1, phase: 'after' }],
      invariants: [],
    }));
    expect(r.events.filter((e) => e.kind === 'destination')).toEqual([]);
    expect(of(r, 'A').filter((e) => e.kind === 'outcome').map((e) => `${e.atMs} ${e.narration}`)).toEqual([
      "1000 A's job fails (an exception); its error path runs.",
      '1000 A is done: the job failed.',
    ]);
  });

  it('a job error whose error path waits (its unlock in finally queues for PgBouncer\'s one server connection): the steps after it never run meanwhile', () => {
    const r = runScenario(scenario({
      id: 'job-error-waits', title: 'job error, error path waits', description: 'A throws after its work; its unlock waits for B\'s transaction to give the server connection back.', lesson: 'locks', horizonMs: 20_000,
      job: { kind: 'external', jobKey: 'nightly-export' },
      mechanism: { lock: 'advisory-session', onError: 'unlockInFinally' },
      database: { poolSize: 2, pooler: { mode: 'transaction', serverConnections: 1 } },
      workers: [
        { id: 'A', startMs: 0, steps: steps('connect', 'acquire', ['work', 1_000], ['effect', 100], 'release', 'disconnect') },
        { id: 'B', startMs: 100, steps: steps('connect', 'begin', ['work', 3_000], 'commit', 'disconnect') },
      ],
      faults: [{ kind: 'jobError', worker: 'A', step: 2, phase: 'after' }],
      invariants: [],
    }));
    expect(r.events.filter((e) => e.kind === 'destination')).toEqual([]);
    // PgBouncer's queue events carry an empty command: they are shown by kind.
    expect(of(r, 'A').filter((e) => e.atMs >= 1_000).map((e) => `${e.atMs} ${e.command || e.kind}`)).toEqual([
      '1000 fault',
      '1000 outcome',
      '1000 pool',
      '3100 pool',
      '3100 SELECT pg_advisory_unlock(42)',
      '3100 client.release()',
      '3100 outcome',
    ]);
  });
});
