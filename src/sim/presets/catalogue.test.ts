/**
 * The catalogue is the acceptance test: every preset of product.md, without and with its fix,
 * must give the verdict and show the key events the product claims.
 */
import { PRESETS, findPreset } from './index';
import { inventoryReserveCheck } from './inventoryReserve';
import { runScenario, type RunResult } from '../engine/run';
import { validateScenario } from '../scenario/validate';
import { steps } from './build';

const run = (id: string, fixed: boolean): RunResult => {
  const p = findPreset(id);
  if (!p) throw new Error(`no preset ${id}`);
  return runScenario(fixed ? p.withFix : p.withoutFix);
};
const find = (r: RunResult, pred: (e: RunResult['events'][number]) => boolean) => r.events.filter(pred);
const cmd = (r: RunResult, actor: string, prefix: string) => find(r, (e) => e.actor === actor && (e.command ?? '').startsWith(prefix));
const rows = (r: RunResult, table: string) => {
  // the last snapshot-free way: re-run with snapshots and read the final table
  const s = runScenario(r.scenario, { captureSnapshots: true }).snapshots!;
  return s[s.length - 1]!.tables[table] ?? [];
};

describe('catalogue', () => {
  it('has the 22 presets (product.md\'s 13, lock-order-deadlock, and issue 10\'s pooler-session-lock, skip-locked-claim, watchdog-starved, pexpire-renewal, fenced-db-write, failover-fence, serializable-retry and queue-redelivery), each valid in both variants', () => {
    expect(PRESETS.map((p) => p.id)).toEqual([
      'invoice-race', 'balance-update', 'inventory-reserve', 'thumbnail', 'admin-bypass', 'session-lock-pool', 'pooler-session-lock', 'lock-order-deadlock', 'skip-locked-claim',
      'export-lease-expiry', 'unsafe-release', 'fence-ignored', 'renew-partition', 'watchdog-starved', 'pexpire-renewal', 'fenced-db-write', 'failover-fence', 'crash-after-effect', 'manual-unlock', 'remote-call-in-txn',
      'serializable-retry', 'queue-redelivery',
    ].sort((a, b) => PRESETS.findIndex((p) => p.id === a) - PRESETS.findIndex((p) => p.id === b)));
    expect(new Set(PRESETS.map((p) => p.id)).size).toBe(22);
    for (const p of PRESETS) {
      for (const s of [p.withoutFix, p.withFix]) {
        const v = validateScenario(JSON.parse(JSON.stringify(s)));
        expect(v.ok ? [] : v.errors).toEqual([]);
      }
    }
  });

  // A preset's faults are its story ("an operator deletes the lock…"): without them the run must
  // hold, or the situation blames the fault for a break that happens anyway. fence-ignored is the
  // one exception, and its situation says so ("even without A's pause").
  it.each(PRESETS.filter((p) => p.withoutFix.faults.length > 0).map((p) => [p.id, p] as const))('%s: its faults are what breaks it — with them set aside the run holds (fence-ignored says it breaks anyway)', (id, p) => {
    const r = runScenario({ ...p.withoutFix, faults: [] });
    if (id === 'fence-ignored') {
      expect(r.verdict.status).toBe('violated');
      expect(p.situation).toContain('even without A\'s pause');
    } else expect(r.verdict.status).toBe('held');
  });

  const verdicts: [string, boolean, boolean][] = PRESETS.map((p) => [p.id, p.id === 'thumbnail', true]);
  it.each(verdicts)('%s: violated without the fix (held for thumbnail), held with it', (id, heldWithout, heldWith) => {
    expect(run(id, false).verdict.held).toBe(heldWithout);
    expect(run(id, true).verdict.held).toBe(heldWith);
  });

  it('every violation cites existing event ids', () => {
    for (const p of PRESETS) {
      const r = runScenario(p.withoutFix);
      const ids = new Set(r.events.map((e) => e.id));
      for (const v of [...r.verdict.violations, ...r.verdict.notes]) {
        expect(v.eventIds.length).toBeGreaterThan(0);
        for (const id of v.eventIds) expect(ids.has(id)).toBe(true);
      }
    }
  });
});

describe('invoice-race', () => {
  it('without the fix: 2 invoices for order 42', () => {
    const r = run('invoice-race', false);
    expect(rows(r, 'invoices').filter((x) => x.order_id === 42)).toHaveLength(2);
    expect(r.verdict.summary).toContain('2 rows exist for order_id = 42');
  });
  it('with the unique key: B waits, gets 23505, loads the winner\'s row; 1 invoice', () => {
    const r = run('invoice-race', true);
    const bInserts = cmd(r, 'B', 'INSERT INTO invoices');
    expect(bInserts[0]!.reply).toMatch(/^waits/);
    expect(bInserts[1]!.reply).toMatch(/ERROR 23505 duplicate key value violates unique constraint "invoices_order_id_key"/);
    expect(cmd(r, 'B', 'ROLLBACK')).toHaveLength(1);
    const load = cmd(r, 'B', 'SELECT * FROM invoices WHERE order_id = 42');
    expect(load.at(-1)!.reply).toMatch(/order_id=42/);
    expect(rows(r, 'invoices')).toHaveLength(1);
    expect(r.metrics.wastedWorkMs).toBe(50); // B's 50 ms of work before it found A's invoice
  });
});

describe('admin-bypass', () => {
  it('without the fix the admin script inserts a duplicate; B waited for the advisory lock', () => {
    const r = run('admin-bypass', false);
    expect(cmd(r, 'B', 'SELECT pg_advisory_xact_lock(7)')[0]!.reply).toMatch(/^waits/);
    expect(cmd(r, 'admin', 'INSERT INTO invoices')[0]!.reply).toMatch(/^INSERT 0 1/);
    expect(rows(r, 'invoices')).toHaveLength(2);
  });
  it('with the unique key the admin INSERT waits, then fails with 23505', () => {
    const r = run('admin-bypass', true);
    const admin = cmd(r, 'admin', 'INSERT INTO invoices');
    expect(admin.at(-1)!.reply).toMatch(/23505/);
    expect(rows(r, 'invoices')).toHaveLength(1);
  });
});

describe('balance-update', () => {
  it('without the fix: lost update, balance 50 instead of 20', () => {
    const r = run('balance-update', false);
    expect(rows(r, 'accounts')[0]!.balance).toBe(50);
    expect(r.verdict.violations[0]!.message).toContain('an update was lost');
  });
  it('with FOR UPDATE: B waits for A and ends at 20', () => {
    const r = run('balance-update', true);
    expect(cmd(r, 'B', 'SELECT balance FROM accounts WHERE id = 1 FOR UPDATE')[0]!.reply).toMatch(/^waits/);
    expect(rows(r, 'accounts')[0]!.balance).toBe(20);
  });
});

describe('inventory-reserve', () => {
  it('without the fix: oversold, stock -1', () => {
    const r = run('inventory-reserve', false);
    expect(rows(r, 'items')[0]!.stock).toBe(-1);
  });
  it('with a row lock: B reads 0 and reserves nothing', () => {
    const r = run('inventory-reserve', true);
    expect(rows(r, 'items')[0]!.stock).toBe(0);
    expect(cmd(r, 'B', 'UPDATE items')).toHaveLength(0);
  });
  it('with CHECK (stock >= 0): B\'s UPDATE waits, then fails with 23514', () => {
    const r = runScenario(inventoryReserveCheck);
    expect(r.verdict.held).toBe(true);
    expect(cmd(r, 'B', 'UPDATE items').at(-1)!.reply).toMatch(/23514/);
  });
});

describe('session-lock-pool', () => {
  it('without the fix: B re-acquires on the leaked connection, C waits for ever', () => {
    const r = run('session-lock-pool', false);
    const bLock = cmd(r, 'B', 'SELECT pg_advisory_lock(42)');
    expect(bLock[0]!.reply).not.toMatch(/waits/);
    expect(cmd(r, 'C', 'SELECT pg_advisory_lock(42)')[0]!.reply).toMatch(/^waits/);
    expect(r.verdict.violations.map((v) => v.invariant)).toContain('boundedWait');
    expect(r.verdict.summary).toMatch(/C was still waiting/);
  });
  it('with a transaction-scoped lock: the rollback releases it and everyone finishes', () => {
    const r = run('session-lock-pool', true);
    expect(cmd(r, 'A', 'ROLLBACK').map((e) => e.reply)).toEqual(['ROLLBACK']);
    expect(find(r, (e) => e.narration.includes('is done')).map((e) => e.actor)).toEqual(['A', 'B', 'C']);
  });
});

describe('export-lease-expiry', () => {
  it('without the fix: two overlapping uploads of one file', () => {
    const r = run('export-lease-expiry', false);
    expect(r.verdict.violations.map((v) => v.invariant)).toEqual(['noOverlappingWrites']);
    expect(cmd(r, 'A', 'SET lease:export')[0]!.reply).toBe('OK');
    expect(cmd(r, 'B', 'SET lease:export').at(-1)!.reply).toBe('OK');
    expect(find(r, (e) => e.kind === 'expiry').map((e) => [e.atMs, e.data])).toEqual([[30_000, { t: 'lease', op: 'expired', key: 'lease:export' }]]);
  });
  it('without the fix: the resumed A still believes it owns the lease while B holds it, and uploads', () => {
    const r = runScenario(findPreset('export-lease-expiry')!.withoutFix, { captureSnapshots: true });
    const resumed = find(r, (e) => e.actor === 'A' && e.kind === 'fault' && e.narration.includes('resumes'))[0]!;
    expect(resumed.atMs).toBe(43_000);
    const aPut = cmd(r, 'A', 'PUT exports/2026-11-30.csv')[0]!;
    for (const e of [resumed, aPut]) {
      const snap = r.snapshots![r.events.indexOf(e)]!;
      const a = snap.workers.find((w) => w.id === 'A')!;
      const b = snap.workers.find((w) => w.id === 'B')!;
      expect(a.beliefs.ownsLease).toBe(true);
      expect(b.beliefs.ownsLease).toBe(true);
      // The key holds B's owner token, not A's: A's belief is stale.
      expect(snap.leases.find((l) => l.key === 'lease:export')!.value).toBe(b.beliefs.ownerToken);
      expect(a.beliefs.ownerToken).not.toBe(b.beliefs.ownerToken);
    }
    expect(aPut.state).toBe('performingEffect');
    expect(aPut.atMs).toBe(45_000);
  });
  it('with fencing: A\'s upload with token 33 is rejected (highest 34)', () => {
    const r = run('export-lease-expiry', true);
    const aPut = cmd(r, 'A', 'PUT exports/2026-11-30.csv');
    expect(aPut[0]!.command).toContain('Fencing-Token: 33');
    expect(aPut[0]!.reply).toMatch(/409 Conflict: stale fencing token 33 \(highest accepted 34\)/);
    expect(r.metrics.staleWritesRejected).toBe(1);
  });
});

describe('unsafe-release', () => {
  it('without the fix: A\'s plain DEL deletes B\'s lock and C acquires while B works', () => {
    const r = run('unsafe-release', false);
    const del = cmd(r, 'A', 'DEL lease:rebuild')[0]!;
    expect(del.reply).toBe('(integer) 1');
    expect(del.narration).toMatch(/deletes B's lease/);
    expect(r.verdict.violations[0]!.message).toMatch(/B and C were inside the critical section/);
  });
  it('with compare-and-delete: A deletes nothing, C waits for B', () => {
    const r = run('unsafe-release', true);
    expect(cmd(r, 'A', 'EVAL')[0]!.reply).toBe('(integer) 0');
    const bReleases = cmd(r, 'B', 'EVAL')[0]!;
    expect(bReleases.reply).toBe('(integer) 1');
    const cTakes = find(r, (e) => e.actor === 'C' && e.data?.t === 'lease' && e.data.op === 'acquired')[0]!;
    expect(cTakes.atMs).toBeGreaterThanOrEqual(bReleases.atMs);
  });
});

describe('fence-ignored', () => {
  it('without the fix: the API performs the effect twice despite fencing tokens', () => {
    const r = run('fence-ignored', false);
    // The API answers when the call ends: both calls get 201 Created (each performed the effect).
    const calls = find(r, (e) => e.kind === 'destination' && e.data?.t === 'write' && e.data.phase === 'end' && e.reply === '201 Created');
    expect(calls.map((c) => [c.actor, c.command])).toEqual([['B', 'POST /v1/emails Fencing-Token: 34'], ['A', 'POST /v1/emails Fencing-Token: 33']]);
  });
  it('without the pause the e-mail still goes out twice, in turn (the situation says so): nothing records that it was sent', () => {
    const p = findPreset('fence-ignored')!;
    const r = runScenario({ ...p.withoutFix, faults: [] });
    const calls = find(r, (e) => e.kind === 'destination' && e.data?.t === 'write' && e.data.phase === 'end' && e.reply === '201 Created');
    expect(calls.map((c) => c.actor)).toEqual(['A', 'B']);
    expect(r.verdict.violations.map((v) => v.invariant)).toContain('effectOnce');
    expect(p.situation).toContain('even without A\'s pause');
  });
  it('with an idempotency key the second call is a replay', () => {
    const r = run('fence-ignored', true);
    expect(find(r, (e) => e.kind === 'destination' && (e.reply ?? '').includes('replayed')).map((e) => e.actor)).toEqual(['A']);
  });
});

describe('crash-after-effect', () => {
  it('without the fix: 2 charges', () => {
    const r = run('crash-after-effect', false);
    expect(r.metrics.duplicateEffects).toBe(1);
    expect(find(r, (e) => e.kind === 'fault' && e.narration.includes('restarts'))).toHaveLength(1);
  });
  it('with an idempotency key: 1 charge; the restarted attempt is a replay', () => {
    const r = run('crash-after-effect', true);
    expect(r.metrics.duplicateEffects).toBe(0);
    const calls = cmd(r, 'A', 'POST /v1/charges').filter((e) => e.data?.t === 'write' && e.data.phase === 'begin');
    expect(calls.map((e) => [e.atMs, e.reply])).toEqual([[0, '(pending: no reply yet)'], [2_500, '200 OK (replayed write #1: idempotency key seen, nothing performed)']]);
  });
});

describe('renew-partition', () => {
  it('without the fix: overlapping uploads and renew failures in the metrics', () => {
    const r = run('renew-partition', false);
    expect(r.metrics.renewFailures).toBe(8);
    expect(find(r, (e) => e.actor === 'A' && e.data?.t === 'lease' && e.data.op === 'renewFailed')).toHaveLength(8);
    expect(r.verdict.violations.map((v) => v.invariant)).toEqual(['noOverlappingWrites']);
  });
  it('with the fix: A stops before uploading', () => {
    const r = run('renew-partition', true);
    expect(cmd(r, 'A', 'PUT')).toHaveLength(0);
    expect(r.metrics.renewFailures).toBe(1);
    expect(find(r, (e) => e.actor === 'A' && e.kind === 'outcome').map((e) => e.narration)).toEqual([
      'A saw a renewal fail, so it stops before its write.',
      'A is done: it stopped because it could not keep its lease.',
    ]);
    expect(cmd(r, 'B', 'PUT').map((e) => e.reply)).toEqual(['(pending: no reply yet)', '200 OK (upload complete)']);
  });
});

describe('pooler-session-lock', () => {
  /** The server connection (backend) each of the worker's SQL statements ran on, from the event data (the session the database saw). */
  const backends = (r: RunResult, actor: string) => find(r, (e) => e.actor === actor && e.kind === 'sql').map((e) => `${e.command} @ ${e.call?.caller}`);
  it('without the fix: A locks on s1, B inherits the lock on s1, A\'s unlock lands on s2 (f + WARNING), C waits on s2 for ever', () => {
    const r = run('pooler-session-lock', false);
    expect(backends(r, 'A')).toEqual(['SELECT pg_advisory_lock(42) @ s1', 'SELECT pg_advisory_unlock(42) @ s2']);
    expect(backends(r, 'B')).toEqual(['BEGIN @ s1', 'SELECT pg_advisory_lock(42) @ s1', 'SELECT pg_advisory_unlock(42) @ s1', 'COMMIT @ s1']);
    expect(backends(r, 'C')).toEqual(['SELECT pg_advisory_lock(42) @ s2']);
    const inherit = cmd(r, 'B', 'SELECT pg_advisory_lock')[0]!;
    expect(inherit).toMatchObject({ atMs: 500, reply: '(void)' });
    expect(inherit.narration).toContain('"acquires" advisory lock 42 at once: server connection s1');
    const unlock = cmd(r, 'A', 'SELECT pg_advisory_unlock')[0]!;
    expect(unlock.reply).toBe('WARNING:  you don\'t own a lock of type ExclusiveLock; f');
    expect(unlock.narration).toBe('[backend s2] A\'s unlock returns false with a WARNING: this session does not hold the lock (PgBouncer ran it on another server connection; s1 still holds the lock).');
    expect(cmd(r, 'C', 'SELECT pg_advisory_lock')[0]!.reply).toBe('waits (advisory lock 42 held by session s1)');
    // s1 still holds the lock at the end, linked to no client; C is still waiting.
    const last = runScenario(r.scenario, { captureSnapshots: true }).snapshots!.at(-1)!;
    expect(last.locks.filter((l) => l.granted).map((l) => `${l.sessionId} ${l.objectDescription} ${l.scope ?? ''}`)).toEqual(['s1 advisory 42 session']);
    expect(last['pooler']).toEqual({ mode: 'transaction', servers: [{ id: 's1', client: null }, { id: 's2', client: 'c1' }], waiting: [] });
    expect(r.verdict.violations.map((v) => v.invariant)).toEqual(['boundedWait', 'mutualExclusion']);
  });
  it('with the fix: pg_advisory_xact_lock in one transaction; each lock ends with the COMMIT on the server connection that took it', () => {
    const r = run('pooler-session-lock', true);
    expect(backends(r, 'A')).toEqual(['BEGIN @ s1', 'SELECT pg_advisory_xact_lock(42) @ s1', 'COMMIT @ s1']);
    expect(backends(r, 'B')).toEqual(['BEGIN @ s2', 'SELECT pg_advisory_xact_lock(42) @ s2', 'SELECT pg_advisory_xact_lock(42) @ s2', 'COMMIT @ s2']);
    expect(find(r, (e) => e.kind === 'outcome').map((e) => e.narration)).toEqual(['A is done: it completed the job.', 'B is done: it completed the job.', 'C is done: it completed the job.']);
    expect(r.verdict.status).toBe('held');
  });
});

describe('watchdog-starved', () => {
  it('without the fix: A renews nothing while stalled, B takes the expired lease, both upload, then A\'s release replies 0 and fails the job', () => {
    const r = run('watchdog-starved', false);
    expect(find(r, (e) => e.actor === 'A' && e.kind === 'redis' && (e.command ?? '').includes('pexpire'))).toHaveLength(0);
    expect(find(r, (e) => e.actor === 'redis' && e.kind === 'expiry').map((e) => e.atMs)).toEqual([10_000]);
    expect(cmd(r, 'B', 'SET').at(-1)).toMatchObject({ atMs: 10_000, reply: 'OK' });
    expect(cmd(r, 'A', 'PUT').map((e) => e.reply)).toEqual(['(pending: no reply yet)', '200 OK (upload complete)']);
    const release = cmd(r, 'A', 'EVAL').at(-1)!;
    expect(release).toMatchObject({ atMs: 25_000, reply: '(integer) 0' });
    expect(release.narration).toContain('A\'s client checks the reply and fails the job');
    expect(find(r, (e) => e.actor === 'A' && e.kind === 'outcome').map((e) => e.narration)).toEqual([
      'A\'s job fails (its release found lease:ledger no longer held with its token); its error path runs.',
      'A is done: the job failed.',
    ]);
    expect(r.verdict.violations.map((v) => v.invariant)).toEqual(['noOverlappingWrites', 'noStaleTokenAccepted']);
  });
  it('with the fix: the file store rejects A\'s token 33', () => {
    const r = run('watchdog-starved', true);
    expect(cmd(r, 'A', 'PUT').map((e) => e.reply)).toEqual([expect.stringContaining('409')]);
    expect(r.metrics.staleWritesRejected).toBe(1);
  });
});

describe('pexpire-renewal', () => {
  it('without the fix: A\'s PEXPIRE extends B\'s key and A works on beside B', () => {
    const r = run('pexpire-renewal', false);
    const renewal = cmd(r, 'A', 'PEXPIRE')[0]!;
    expect(renewal).toMatchObject({ atMs: 14_000, command: 'PEXPIRE lease:reindex 10000', reply: '(integer) 1' });
    expect(renewal.narration).toBe('A\'s plain PEXPIRE extends B\'s lease, not its own: PEXPIRE checks no owner, so A goes on believing it owns lease:reindex — two owners now.');
    expect(renewal.beliefs?.ownsLease).toBe(true);
    // Both upload: the duplicate is what the preset checks (A also works on beside B, in both variants:
    // a paused holder cannot know its lease expired until its next renewal; the fix makes that renewal tell it).
    expect(r.verdict.violations.map((v) => v.invariant)).toEqual(['effectOnce']);
    expect(cmd(r, 'A', 'PUT').map((e) => e.reply)).toEqual(['(pending: no reply yet)', '200 OK (upload complete)']);
  });
  it('with the fix: A\'s compare-and-extend replies 0 and A stops before uploading', () => {
    const r = run('pexpire-renewal', true);
    expect(cmd(r, 'A', 'EVAL').find((e) => e.atMs === 14_000)?.reply).toBe('(integer) 0');
    expect(cmd(r, 'A', 'PUT')).toHaveLength(0);
    expect(r.verdict.status).toBe('held');
  });
});

describe('serializable-retry', () => {
  it('without the fix: B charges, its INSERT fails with 40001, the framework re-runs the transaction and B charges again', () => {
    const r = run('serializable-retry', false);
    expect(cmd(r, 'B', 'BEGIN').map((e) => e.command)).toEqual(['BEGIN ISOLATION LEVEL SERIALIZABLE', 'BEGIN ISOLATION LEVEL SERIALIZABLE']);
    const failed = cmd(r, 'B', 'INSERT INTO jobs')[0]!;
    expect(failed).toMatchObject({ atMs: 900, reply: 'ERROR 40001 could not serialize access due to read/write dependencies among transactions (Reason code: Canceled on identification as a pivot, during write.)' });
    // A committed its own, different job key first: the two transactions only shared the jobs table.
    expect(cmd(r, 'A', 'COMMIT')[0]).toMatchObject({ atMs: 800, reply: 'COMMIT' });
    const charges = cmd(r, 'B', 'POST /v1/charges').filter((e) => e.reply === '201 Created');
    expect(charges.map((e) => e.atMs)).toEqual([900, 1_700]);
    expect(charges[0]!.atMs).toBeLessThanOrEqual(failed.atMs);
    const retry = find(r, (e) => e.actor === 'B' && e.kind === 'outcome' && e.narration.includes('40001'))[0]!;
    expect(retry.narration).toContain('was not rolled back');
    expect(r.verdict.violations.map((v) => v.invariant)).toEqual(['effectOnce']);
    expect(r.verdict.violations[0]!.message).toContain('charge-B');
  });
  it('the framework retries only a 40001: an exception inside the transaction fails the job, with no retry', () => {
    const base = findPreset('serializable-retry')!.withoutFix;
    const r = runScenario({ ...base, faults: [{ kind: 'jobError', worker: 'B', step: 2, phase: 'before' }] });
    expect(cmd(r, 'B', 'BEGIN')).toHaveLength(1);
    expect(find(r, (e) => e.actor === 'B' && e.kind === 'outcome').map((e) => e.narration)).toEqual([
      "B's job fails (an exception); its error path runs.",
      'B is done: the job failed.',
    ]);
  });
  it('two calls inside the rolled-back transaction: the retry says both were not rolled back', () => {
    const base = findPreset('serializable-retry')!.withoutFix;
    const twice = steps('begin', 'check', ['work', 300], ['effect', 250], ['effect', 250], 'record', 'commit');
    const r = runScenario({ ...base, workers: base.workers.map((w) => ({ ...w, steps: twice })) });
    const retry = find(r, (e) => e.actor === 'B' && e.kind === 'outcome' && e.narration.includes('40001'))[0]!;
    expect(retry.narration).toBe('B\'s transaction failed with 40001 (serialization failure), so the framework rolls it back and runs it again from BEGIN (retry 1 of 3). The 2 calls to POST /v1/charges it made inside the transaction were not rolled back: a database rollback cannot undo them.');
  });
  it('with the fix: B\'s 40001 comes before any charge; each order is charged once, after COMMIT, with its idempotency key', () => {
    const r = run('serializable-retry', true);
    const failed = cmd(r, 'B', 'INSERT INTO jobs')[0]!;
    expect(failed.reply).toContain('ERROR 40001');
    const retry = find(r, (e) => e.actor === 'B' && e.kind === 'outcome' && e.narration.includes('40001'))[0]!;
    expect(retry.narration).not.toContain('not rolled back');
    const charges = find(r, (e) => (e.command ?? '').startsWith('POST /v1/charges') && e.reply === '201 Created');
    expect(charges.map((e) => `${e.actor} ${e.command}`)).toEqual(['A POST /v1/charges Idempotency-Key: charge-A', 'B POST /v1/charges Idempotency-Key: charge-B']);
    for (const w of ['A', 'B']) {
      const commitAt = cmd(r, w, 'COMMIT').at(-1)!.atMs;
      expect(cmd(r, w, 'POST /v1/charges')[0]!.atMs).toBeGreaterThanOrEqual(commitAt);
    }
    expect(r.verdict.status).toBe('held');
  });
});

describe('fenced-db-write', () => {
  it('without the fix: A\'s late UPDATE with token 33 overwrites the row B wrote with token 34', () => {
    const r = run('fenced-db-write', false);
    const b = cmd(r, 'B', 'UPDATE documents');
    expect(b.map((e) => [e.atMs, e.command, e.reply])).toEqual([[35_000, "UPDATE documents SET body = 'report by B', fence = 34 WHERE id = 7", 'UPDATE 1']]);
    const a = cmd(r, 'A', 'UPDATE documents');
    expect(a.map((e) => [e.atMs, e.command, e.reply])).toEqual([[45_000, "UPDATE documents SET body = 'report by A', fence = 33 WHERE id = 7", 'UPDATE 1']]);
    expect(a[0]!.narration).toBe('A\'s UPDATE overwrites B\'s row (fence 34) with its own token 33 (UPDATE 1): nothing in the UPDATE compares the tokens, so B\'s newer write is lost.');
    expect(rows(r, 'documents')).toEqual([{ id: 7, body: 'report by A', fence: 33 }]);
    expect(r.verdict.violations.map((v) => [v.invariant, v.eventIds])).toEqual([['noStaleTokenAccepted', [b[0]!.id, a[0]!.id]]]);
    expect(r.verdict.violations[0]!.message).toBe('the database accepted A\'s stale token 33 after token 34: A\'s UPDATE overwrote the row B had written');
  });
  it('with the fix: A\'s conditional UPDATE replies UPDATE 0; A learns it is stale and its job fails; B\'s row stays', () => {
    const r = run('fenced-db-write', true);
    const a = cmd(r, 'A', 'UPDATE documents');
    expect(a.map((e) => [e.command, e.reply])).toEqual([["UPDATE documents SET body = 'report by A', fence = 33 WHERE id = 7 AND fence < 33", 'UPDATE 0']]);
    expect(a[0]!.narration).toContain('A is a stale holder');
    expect(a[0]!.beliefs?.ownsLease).toBe(false);
    // It learned it from the UPDATE 0, not from a renewal (this run renews nothing).
    expect(a[0]!.beliefs).toMatchObject({ refusedAsStale: true, renewFailed: false });
    expect(cmd(r, 'B', 'UPDATE documents').map((e) => e.reply)).toEqual(['UPDATE 1']);
    // The accepted conditional UPDATE tells B nothing bad: it still believes it owns the lease.
    expect(cmd(r, 'B', 'UPDATE documents')[0]!.beliefs).toMatchObject({ ownsLease: true, refusedAsStale: false });
    expect(rows(r, 'documents')).toEqual([{ id: 7, body: 'report by B', fence: 34 }]);
    expect(r.metrics.staleWritesRejected).toBe(1);
    expect(find(r, (e) => e.actor === 'A' && e.kind === 'outcome').map((e) => e.narration)[0]).toContain('A\'s job fails (stale fencing token');
  });
});

describe('failover-fence', () => {
  it('without the fix: the failover loses the lease and the INCR counter; B gets token 33 again and A\'s upload with 33 is accepted after B\'s', () => {
    const r = run('failover-fence', false);
    expect(find(r, (e) => e.kind === 'fault' && e.narration.includes("lost: fence:export is back to 32 (was 33), lease:export is gone (it held A's owner token"))).toHaveLength(1);
    expect(cmd(r, 'A', 'INCR').map((e) => e.reply)).toEqual(['(integer) 33']);
    expect(cmd(r, 'B', 'INCR').map((e) => [e.atMs, e.reply])).toEqual([[2_000, '(integer) 33']]);
    const ends = find(r, (e) => e.kind === 'destination' && e.data?.t === 'write' && e.data.phase === 'end');
    expect(ends.map((e) => [e.actor, e.command, e.reply])).toEqual([
      ['B', 'PUT exports/2026-11-30.csv Fencing-Token: 33', '200 OK (upload complete)'],
      ['A', 'PUT exports/2026-11-30.csv Fencing-Token: 33', '200 OK (upload complete)'],
    ]);
    expect(r.verdict.violations.map((v) => v.invariant)).toEqual(['noStaleTokenAccepted', 'noOverlappingWrites']);
    expect(r.verdict.violations[0]!.eventIds).toEqual(ends.map((e) => e.id));
  });
  it('with the fix: the tokens come from nextval (33, 34), which the failover cannot roll back; A\'s 33 is rejected', () => {
    const r = run('failover-fence', true);
    expect(find(r, (e) => e.kind === 'fault' && e.narration.includes("lost: lease:export is gone (it held A's owner token"))).toHaveLength(1);
    expect(cmd(r, 'A', 'INCR')).toHaveLength(0);
    expect(find(r, (e) => e.command === "SELECT nextval('fence_seq')").map((e) => [e.actor, e.reply])).toEqual([['A', 'SELECT 1 → nextval=33'], ['B', 'SELECT 1 → nextval=34']]);
    expect(cmd(r, 'A', 'PUT').map((e) => e.reply)).toEqual(['409 Conflict: stale fencing token 33 (highest accepted 34)']);
    expect(r.metrics.staleWritesRejected).toBe(1);
  });
});

describe('manual-unlock', () => {
  it('without the fix: the operator\'s DEL lets B run before A has recorded the job; 2 shipments', () => {
    const r = run('manual-unlock', false);
    expect(cmd(r, 'operator', 'DEL')[0]!.reply).toBe('(integer) 1');
    expect(r.metrics.duplicateEffects).toBe(1);
    expect(find(r, (e) => e.actor === 'B' && e.narration.startsWith('B finds no completed job record')).map((e) => e.atMs)).toEqual([10_000]);
  });
  it('without the delete, B waits out A\'s lease, finds A\'s record and skips: 1 shipment', () => {
    const r = runScenario({ ...findPreset('manual-unlock')!.withoutFix, faults: [] });
    expect(r.metrics.duplicateEffects).toBe(0);
    expect(find(r, (e) => e.actor === 'B' && e.narration.startsWith('B is done: the job record said')).length).toBe(1);
  });
  it('with an idempotent destination: 1 shipment; B\'s call is a replay', () => {
    const r = run('manual-unlock', true);
    expect(r.metrics.duplicateEffects).toBe(0);
    expect(find(r, (e) => e.kind === 'destination' && (e.reply ?? '').includes('replayed')).map((e) => e.actor)).toEqual(['B']);
  });
});

describe('remote-call-in-txn', () => {
  it('without the fix: the pool is exhausted and C and D wait', () => {
    const r = run('remote-call-in-txn', false);
    expect(find(r, (e) => e.kind === 'pool' && (e.reply ?? '').startsWith('waits')).map((e) => e.actor)).toEqual(['C', 'D']);
    expect(r.metrics.connectionWait).toEqual({ count: 4, meanMs: 1_400, maxMs: 2_800 });
  });
  it('with short transactions nobody waits long for a connection', () => {
    const r = run('remote-call-in-txn', true);
    expect(r.metrics.connectionWait).toEqual({ count: 8, meanMs: 0, maxMs: 0 });
    expect(find(r, (e) => e.kind === 'pool' && (e.reply ?? '').startsWith('waits'))).toEqual([]);
    // The API call runs outside any transaction, on no connection.
    for (const call of find(r, (e) => e.kind === 'destination' && e.data?.t === 'write' && e.data.phase === 'begin')) {
      const snap = runScenario(r.scenario, { captureSnapshots: true }).snapshots![r.events.indexOf(call)]!;
      expect(snap.workers.find((w) => w.id === call.actor)!.beliefs.connection).toBeNull();
    }
  });
});

describe('thumbnail', () => {
  it('two renders, reported as redundant, not a violation', () => {
    const r = run('thumbnail', false);
    expect(r.verdict.held).toBe(true);
    expect(r.verdict.notes[0]!.message).toMatch(/redundant, not a violation/);
  });
  it('with the optional efficiency lease: 1 render; B finds the job record done', () => {
    const r = run('thumbnail', true);
    expect(r.metrics.duplicateEffects).toBe(0);
    expect(cmd(r, 'A', 'PUT thumbs/42.png')).toHaveLength(2);
    expect(cmd(r, 'B', 'PUT')).toEqual([]);
    expect(find(r, (e) => e.actor === 'B' && e.narration.includes('job record marked done'))).toHaveLength(1);
  });
});

describe('lock-order-deadlock', () => {
  it('without the fix: each waits for the lock the other holds; after deadlock_timeout A gets 40P01, its job fails, B proceeds', () => {
    const r = run('lock-order-deadlock', false);
    expect(cmd(r, 'A', 'SELECT pg_advisory_xact_lock(2)')[0]!.reply).toMatch(/^waits/);
    expect(cmd(r, 'B', 'SELECT pg_advisory_xact_lock(1)')[0]!.reply).toMatch(/^waits/);
    const failed = cmd(r, 'A', 'SELECT pg_advisory_xact_lock(2)')[1]!;
    expect(failed.atMs).toBe(1_100); // A's wait began at 100 ms; deadlock_timeout is 1 s
    expect(failed.reply).toMatch(/^ERROR 40P01 deadlock detected \(Process c1 waits for ExclusiveLock on advisory lock \[lockscope,0,2,1\]; blocked by process c2\./);
    expect(failed.narration).toContain('A waits for B (advisory lock 2), B waits for A (advisory lock 1)');
    expect(cmd(r, 'B', 'SELECT pg_advisory_xact_lock(1)')[1]!.reply).toBe('(void)');
    expect(find(r, (e) => e.kind === 'outcome').map((e) => `${e.actor} ${e.narration}`)).toEqual([
      'A A\'s job fails (could not take the lock: deadlock detected); its error path runs.', 'A A is done: the job failed.', 'B B is done: it completed the job.',
    ]);
    expect(rows(r, 'accounts')).toEqual([{ id: 1, balance: 50 }]);
  });
  it('with the fix: one lock order, B waits for A\'s transaction, both complete', () => {
    const r = run('lock-order-deadlock', true);
    expect(find(r, (e) => (e.reply ?? '').startsWith('ERROR'))).toEqual([]);
    expect(rows(r, 'accounts')).toEqual([{ id: 1, balance: 20 }]);
  });
  it('a longer deadlock_timeout moves the 40P01 with it', () => {
    const p = findPreset('lock-order-deadlock')!;
    const r = runScenario({ ...p.withoutFix, database: { ...p.withoutFix.database, deadlockTimeoutMs: 2_000 } });
    expect(find(r, (e) => (e.reply ?? '').startsWith('ERROR 40P01')).map((e) => `${e.atMs} ${e.actor}`)).toEqual(['2100 A']);
  });
});

describe('queue-redelivery', () => {
  it('without the fix: the message is visible again at 30 s, B receives it (delivery 2) and charges too; A\'s DeleteMessage with its old handle deletes nothing', () => {
    const r = run('queue-redelivery', false);
    const bReceives = cmd(r, 'B', 'ReceiveMessage').filter((e) => /MessageId=m1/.test(e.reply ?? ''));
    expect(bReceives.map((e) => [e.atMs, e.reply])).toEqual([[31_000, 'Messages: [MessageId=m1 ReceiptHandle=rh-2 Body=charge-order-42 ApproximateReceiveCount=2]']]);
    expect(find(r, (e) => e.actor === 'queue').map((e) => e.atMs)).toEqual([30_000, 61_000]);
    const aDelete = cmd(r, 'A', 'DeleteMessage')[0]!;
    expect([aDelete.command, aDelete.reply]).toEqual(['DeleteMessage QueueUrl=charges ReceiptHandle=rh-1', '200 OK']);
    expect(aDelete.narration).toMatch(/message stays in the queue/);
    expect(find(r, (e) => e.kind === 'destination' && e.reply === '201 Created').map((e) => e.actor)).toEqual(['A', 'B']);
    expect(r.verdict.violations.map((v) => v.invariant)).toEqual(['effectOnce', 'jobCompletesWithin']);
  });
  it('with the fix: A extends the visibility at 20 s, deletes the message at 37 s; B never receives it and stops after 12 empty receives', () => {
    const r = run('queue-redelivery', true);
    expect(cmd(r, 'A', 'ChangeMessageVisibility').map((e) => [e.atMs, e.reply])).toEqual([[20_000, '200 OK']]);
    expect(cmd(r, 'B', 'ReceiveMessage').every((e) => e.reply === 'Messages: [] (none visible)')).toBe(true);
    expect(cmd(r, 'B', 'ReceiveMessage')).toHaveLength(12);
    expect(find(r, (e) => e.actor === 'queue')).toEqual([]);
    expect(find(r, (e) => e.kind === 'destination' && e.reply === '201 Created')).toHaveLength(1);
  });
});

describe('skip-locked-claim', () => {
  it('without the fix: A commits its claim before marking the row; B claims the still-pending row, and both mark it', () => {
    const r = run('skip-locked-claim', false);
    const claim = "SELECT id FROM job_queue WHERE status = 'pending' FOR UPDATE SKIP LOCKED";
    expect(cmd(r, 'A', claim).map((e) => e.reply)).toEqual(['SELECT 1 → id=7']);
    expect(cmd(r, 'B', claim).map((e) => [e.atMs, e.reply])).toEqual([[10, 'SELECT 1 → id=7']]);
    expect(cmd(r, 'B', 'UPDATE job_queue SET status = \'running\'').map((e) => e.reply)).toEqual(['UPDATE 1']);
    expect(r.verdict.violations[0]!.message).toBe('job row 7 of job_queue was claimed 2 times: by A, then by B');
  });
  it('with the fix: B\'s SKIP LOCKED passes over A\'s locked row (SELECT 0) and B has no job; one claim', () => {
    const r = run('skip-locked-claim', true);
    const claim = "SELECT id FROM job_queue WHERE status = 'pending' FOR UPDATE SKIP LOCKED";
    expect(cmd(r, 'B', claim).map((e) => [e.atMs, e.reply])).toEqual([[10, 'SELECT 0']]);
    expect(cmd(r, 'B', 'UPDATE')).toEqual([]);
    expect(rows(r, 'job_queue')).toEqual([{ id: 7, status: 'done', claimed_by: 'A' }]);
  });
});
