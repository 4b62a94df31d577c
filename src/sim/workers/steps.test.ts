/**
 * Job steps and coordination under mechanism switches the presets do not use: what each worker
 * sends, what it is told, what it says, and how its job ends (semantics.md for the replies).
 */
import { runScenario, type RunResult } from '../engine/run';
import { findPreset } from '../presets';
import type { Mechanism, Scenario } from '../scenario/schema';

const variant = (id: string, fixed: boolean, mechanism: Partial<Mechanism>, rest: Partial<Scenario> = {}): Scenario => {
  const p = findPreset(id);
  if (!p) throw new Error(`no preset ${id}`);
  const s = fixed ? p.withFix : p.withoutFix;
  return { ...s, ...rest, mechanism: { ...s.mechanism, ...mechanism } };
};
/** One actor's events with a command or an outcome, as `<ms> <command> → <reply> | <narration>`. */
const story = (r: RunResult, actor: string): string[] =>
  r.events.filter((e) => e.actor === actor && (e.command !== undefined || e.kind === 'outcome')).map((e) => `${e.atMs} ${e.command ?? e.kind}${e.reply ? ` → ${e.reply}` : ''} | ${e.narration}`);

/** What `actor` believes right after its event that sent `command` (a run with `captureSnapshots`). */
const beliefsAfter = (r: RunResult, actor: string, command: string) => {
  const i = r.events.findIndex((e) => e.actor === actor && e.command === command);
  expect(i).toBeGreaterThanOrEqual(0);
  return r.snapshots![i]!.workers.find((w) => w.id === actor)!.beliefs;
};

describe('insertOnce', () => {
  it('ON CONFLICT DO NOTHING: the second INSERT waits for the first transaction, returns no row, and the worker loads the winner\'s row', () => {
    const r = runScenario(variant('invoice-race', false, { uniqueKey: true, onConflict: 'doNothing' }));
    expect(story(r, 'B').slice(3)).toEqual([
      '70 INSERT INTO invoices (order_id, amount) VALUES (42, 100) ON CONFLICT DO NOTHING RETURNING id → waits (transaction of session c1 (uncommitted invoices row order_id=42)) | B waits: transaction of session c1 (uncommitted invoices row order_id=42).',
      "100 INSERT INTO invoices (order_id, amount) VALUES (42, 100) ON CONFLICT DO NOTHING RETURNING id → INSERT 0 0 | After waiting 30 ms: B's insert found a conflicting row: nothing inserted, no row returned.",
      "100 SELECT * FROM invoices WHERE order_id = 42 → SELECT 1 → id=1, order_id=42, amount=100 | B loads the winner's row instead.",
      '100 COMMIT → COMMIT | B commits.',
      '100 client.release() → ok | B returns connection c2 to the pool.',
      '100 outcome | B is done: it found the existing row and used it.',
    ]);
    expect(r.verdict.held).toBe(true);
  });
});

describe('read-modify-write with row locks', () => {
  it('FOR UPDATE SKIP LOCKED: B gets no row and reserves nothing', () => {
    const r = runScenario(variant('inventory-reserve', false, { rowLock: 'forUpdateSkipLocked' }));
    expect(story(r, 'B').slice(2)).toEqual([
      '10 SELECT stock FROM items WHERE id = 7 FOR UPDATE SKIP LOCKED → SELECT 0 | B gets no row (another transaction has it locked, and SKIP LOCKED skips it).',
      '10 COMMIT → COMMIT | B commits.',
      '10 client.release() → ok | B returns connection c2 to the pool.',
      '10 outcome | B is done: its read got no row, so it had nothing to work on.',
    ]);
    expect(story(r, 'A')[2]).toBe('0 SELECT stock FROM items WHERE id = 7 FOR UPDATE SKIP LOCKED → SELECT 1 → stock=1 | A reads stock = 1 and locks the row until its transaction ends.');
    expect(r.verdict.held).toBe(true);
  });

  it('FOR UPDATE SKIP LOCKED on a debit: B gets no row and debits nothing, in a debit\'s words (not a reservation\'s)', () => {
    const r = runScenario(variant('balance-update', false, { rowLock: 'forUpdateSkipLocked' }));
    const b = story(r, 'B');
    expect(b.find((l) => l.includes('SKIP LOCKED'))).toMatch(/→ SELECT 0 \| B gets no row \(another transaction has it locked, and SKIP LOCKED skips it\)\.$/);
    expect(b.at(-1)).toMatch(/ outcome \| B is done: its read got no row, so it had nothing to work on\.$/);
    expect(r.events.some((e) => e.actor === 'B' && (e.command ?? '').startsWith('UPDATE'))).toBe(false);
  });

  it('FOR UPDATE: the worker believes it holds the row lock from its read through its UPDATE, and not after COMMIT', () => {
    const r = runScenario(variant('balance-update', true, {}));
    const held = (command: string) => r.events.find((e) => e.actor === 'A' && (e.command ?? '').startsWith(command))!.beliefs!.holdsLock;
    expect([held('SELECT balance'), held('UPDATE accounts'), held('COMMIT')]).toEqual([true, true, false]);
  });

  it('FOR UPDATE NOWAIT: B\'s read fails with 55P03, its error path rolls back', () => {
    const r = runScenario(variant('inventory-reserve', false, { rowLock: 'forUpdateNowait' }));
    expect(story(r, 'B').slice(2)).toEqual([
      `10 SELECT stock FROM items WHERE id = 7 FOR UPDATE NOWAIT → ERROR 55P03 could not obtain lock on row in relation "items" | B's read fails: could not obtain lock on row in relation "items".`,
      `10 outcome | B's job fails (could not obtain lock on row in relation "items"); its error path runs.`,
      '10 ROLLBACK → ROLLBACK | B rolls back.',
      '10 client.release() → ok | B returns connection c2 to the pool.',
      '10 outcome | B is done: the job failed.',
    ]);
  });

  it('a reserve job that reads less stock than it needs stops as sold out', () => {
    const base = variant('inventory-reserve', true, {});
    const r = runScenario({ ...base, job: { ...base.job, quantity: 2 } as Scenario['job'] });
    expect(story(r, 'A').at(-1)).toBe('0 outcome | A is done: nothing left to reserve.');
    expect(r.events.some((e) => (e.command ?? '').startsWith('UPDATE'))).toBe(false);
  });
});

describe('a reservation the CHECK constraint rejects', () => {
  it('23514: the reserve job rolls back and ends as sold out, not as a failure', () => {
    const r = runScenario(variant('inventory-reserve', false, { checkConstraint: true }));
    expect(story(r, 'B').slice(4)).toEqual([
      '70 UPDATE items SET stock = stock - 1 WHERE id = 7 → ERROR 23514 new row for relation "items" violates check constraint "items_stock_check" (Failing row contains (7, -1).) | After waiting 10 ms: B\'s reservation is rejected: new row for relation "items" violates check constraint "items_stock_check".',
      '70 ROLLBACK → ROLLBACK | B rolls back.',
      '70 client.release() → ok | B returns connection c2 to the pool.',
      '70 outcome | B is done: nothing left to reserve.',
    ]);
    expect(story(r, 'A').at(-1)).toBe('70 outcome | A is done: it completed the job.');
  });
});

describe('what a read makes the worker believe it holds', () => {
  const one = (s: Scenario, steps: Scenario['workers'][number]['steps']) => runScenario({ ...s, workers: [{ ...s.workers[0]!, steps }] });
  const readThenWork = (fixed: boolean, helper: boolean) => {
    const r = one(variant('balance-update', fixed, {}), [{ do: 'begin' }, helper ? { do: 'read', helper: true } : { do: 'read' }, { do: 'work', ms: 10 }, { do: 'commit' }]);
    const read = r.events.find((e) => e.actor === 'A' && (e.command ?? '').startsWith('SELECT balance'))!;
    const work = r.events.find((e) => e.actor === 'A' && e.kind === 'step')!;
    return { read: [read.narration, read.beliefs!.holdsLock, read.beliefs!.readValue], work: work.narration };
  };

  it('a FOR UPDATE read in the worker\'s transaction holds the row lock: the work after it is inside the critical section', () => {
    expect(readThenWork(true, false)).toEqual({ read: ['A reads balance = 100 and locks the row until its transaction ends.', true, 100], work: 'A works for 10 ms inside its critical section.' });
  });

  it('a read without a row lock holds nothing', () => {
    expect(readThenWork(false, false)).toEqual({ read: ['A reads balance = 100 (no lock: another transaction may change it before this one writes).', false, 100], work: 'A works for 10 ms.' });
  });

  it('a helper\'s FOR UPDATE read runs in autocommit: its row lock ends with the statement, so the worker holds nothing', () => {
    expect(readThenWork(true, true)).toEqual({ read: ['[helper c2] A\'s helper reads balance = 100 (in autocommit: the row lock ends with the statement).', false, 100], work: 'A works for 10 ms.' });
    expect(readThenWork(false, true)).toEqual({ read: ['[helper c2] A\'s helper reads balance = 100.', false, 100], work: 'A works for 10 ms.' });
  });

  it('a FOR UPDATE read outside BEGIN runs in autocommit: the row lock ends with the SELECT, so the worker holds nothing', () => {
    const s = variant('balance-update', true, {});
    const noTxn: Scenario['workers'][number]['steps'] = [{ do: 'connect' }, { do: 'read' }, { do: 'work', ms: 50 }, { do: 'effect', ms: 0 }, { do: 'disconnect' }];
    const r = runScenario({ ...s, invariants: [{ kind: 'mutualExclusion' }, { kind: 'noLostUpdate' }], workers: s.workers.map((w) => ({ ...w, steps: noTxn })) });
    const read = r.events.find((e) => e.actor === 'A' && (e.command ?? '').startsWith('SELECT balance'))!;
    expect([read.narration, read.beliefs!.holdsLock]).toEqual(['A reads balance = 100 outside a transaction (in autocommit: the row lock ends with the statement).', false]);
    expect(r.events.find((e) => e.actor === 'A' && e.kind === 'step')!.narration).toBe('A works for 50 ms.');
    // Both read 100 unprotected: the read-to-write sections overlap (no row lock enforced them) and the update is lost.
    expect(r.verdict.violations.map((v) => v.invariant)).toEqual(['mutualExclusion', 'noLostUpdate']);
  });

  it('a SKIP LOCKED read that gets no row holds nothing and has read nothing', () => {
    const r = runScenario(variant('inventory-reserve', false, { rowLock: 'forUpdateSkipLocked' }));
    const read = r.events.find((e) => e.actor === 'B' && (e.command ?? '').startsWith('SELECT stock'))!;
    expect([read.reply, read.beliefs!.holdsLock, read.beliefs!.readValue]).toEqual(['SELECT 0', false, null]);
  });
});

describe('advisory locks: the error path', () => {
  it('unlockInFinally: the finally block unlocks, so the next borrower of c1 really takes the lock and C waits its turn', () => {
    const r = runScenario(variant('session-lock-pool', false, { onError: 'unlockInFinally' }));
    expect(story(r, 'A').slice(2)).toEqual([
      "0 outcome | A's job fails (an exception); its error path runs.",
      "0 SELECT pg_advisory_unlock(42) → t | A's finally block unlocks the session-level advisory lock.",
      '0 client.release() → ok | A returns connection c1 to the pool.',
      '0 outcome | A is done: the job failed.',
    ]);
    // After its finally block's unlock, A no longer believes it holds the lock.
    expect(r.events.find((e) => e.actor === 'A' && e.command === 'SELECT pg_advisory_unlock(42)')!.beliefs!.holdsLock).toBe(false);
    expect(story(r, 'B')[1]).toBe('100 SELECT pg_advisory_lock(42) → (void) | B holds advisory lock 42 for its session, until it unlocks or the connection closes.');
    expect(story(r, 'C').slice(1, 3)).toEqual([
      '200 SELECT pg_advisory_lock(42) → waits (advisory lock 42 held by session c1) | C waits: advisory lock 42 held by session c1.',
      '1100 SELECT pg_advisory_lock(42) → (void) | After waiting 900 ms: C holds advisory lock 42 for its session, until it unlocks or the connection closes.',
    ]);
    expect(r.verdict.held).toBe(true);
    expect(r.metrics.acquisitionLatency).toEqual({ count: 3, meanMs: 300, maxMs: 900 });
  });

  it('unlockInFinally behind a transaction-mode pooler: the unlock lands on the other backend and gets false with a WARNING', () => {
    // A locks on s1 in autocommit; B's transaction then takes s1 (the last returned), so A's finally-block unlock runs on s2.
    const p = variant('pooler-session-lock', false, { onError: 'unlockInFinally' });
    const r = runScenario({
      ...p,
      workers: [p.workers[0]!, { id: 'B', startMs: 500, steps: [{ do: 'connect' }, { do: 'begin' }, { do: 'work', ms: 1_000 }, { do: 'commit' }, { do: 'disconnect' }] }],
      faults: [{ kind: 'jobError', worker: 'A', step: 3, phase: 'before' }],
    });
    expect(story(r, 'A').slice(2)).toEqual([
      "1000 outcome | A's job fails (an exception); its error path runs.",
      "1000 SELECT pg_advisory_unlock(42) → WARNING:  you don't own a lock of type ExclusiveLock; f | [backend s2] A's finally block tries to unlock, but gets false with a WARNING: this session does not hold the lock.",
      '1000 client.release() → ok | A returns connection c1 to the pool.',
      '1000 outcome | A is done: the job failed.',
    ]);
  });

  it('discardConnection: closing the connection ends the session and its lock; the pool opens c3', () => {
    const r = runScenario(variant('session-lock-pool', false, { onError: 'discardConnection' }));
    expect(story(r, 'A').slice(3)).toEqual([
      '0 connection.destroy() → closed | A closes connection c1; its session ends, which releases every lock it held.',
      '0 outcome | A is done: the job failed.',
    ]);
    expect(story(r, 'B')[0]).toBe('100 pool.connect() → c3 | B borrows connection c3 from the pool.');
    expect(r.verdict.held).toBe(true);
  });

  it('a transaction-scoped lock is held until the transaction ends', () => {
    const r = runScenario(findPreset('session-lock-pool')!.withFix);
    expect(story(r, 'B').slice(1, 3)).toEqual([
      '100 BEGIN → BEGIN | B opens a transaction.',
      '100 SELECT pg_advisory_xact_lock(42) → (void) | B holds advisory lock 42 until its transaction ends.',
    ]);
    expect(story(r, 'B')[3]).toBe('1100 COMMIT → COMMIT | B commits; the transaction-scoped advisory lock is released with it.');
  });

  it('unlocking a lock this session does not hold returns false with a WARNING', () => {
    const base = findPreset('session-lock-pool')!.withoutFix;
    const r = runScenario({ ...base, faults: [], workers: [{ id: 'A', startMs: 0, steps: [{ do: 'connect' }, { do: 'release' }, { do: 'disconnect' }] }] });
    expect(story(r, 'A')[1]).toBe("0 SELECT pg_advisory_unlock(42) → WARNING:  you don't own a lock of type ExclusiveLock; f | A's unlock returns false with a WARNING: this session does not hold the lock (the lock, if held, is on another connection).");
  });
});

describe('lease renewal', () => {
  it('compare-and-extend: each renewal extends the TTL while the key still holds the owner token', () => {
    const r = runScenario(variant('export-lease-expiry', false, { renewal: 'compare-and-extend' }, { faults: [] }));
    const renewals = r.events.filter((e) => e.actor === 'A' && e.data?.t === 'lease' && e.data.op === 'renewed');
    expect(renewals.map((e) => [e.atMs, e.reply, e.narration])).toEqual([
      [10_000, '(integer) 1', 'A extends its lease by 30 s (the key still holds its token).'],
      [20_000, '(integer) 1', 'A extends its lease by 30 s (the key still holds its token).'],
    ]);
    expect(r.verdict.held).toBe(true);
    // B waits for A's release at 25 s, not for an expiry.
    expect(r.events.filter((e) => e.kind === 'expiry')).toEqual([]);
    expect(r.events.find((e) => e.actor === 'B' && e.data?.t === 'lease' && e.data.op === 'acquired')!.atMs).toBe(25_000);
  });

  it('a plain SET "renewal" discards the TTL: the lease never expires', () => {
    const r = runScenario(variant('export-lease-expiry', false, { renewal: 'set' }, { faults: [] }), { captureSnapshots: true });
    const i = r.events.findIndex((e) => e.actor === 'A' && e.command === 'SET lease:export e01d');
    expect(i).toBeGreaterThan(0);
    expect(r.events[i]!.narration).toBe('A "renews" with a plain SET: that overwrites whoever holds the key and discards its TTL — the lease never expires now.');
    const snap = r.snapshots![i]!;
    expect(snap.leases.find((l) => l.key === 'lease:export')).toMatchObject({ value: 'e01d', expiresAtMs: null });
    expect(snap.workers.find((w) => w.id === 'A')!.beliefs.leaseBelievedUntilMs).toBeNull();
  });

  it('a renewal refused because the key changed hands stops the renewals and the belief', () => {
    const r = runScenario(variant('export-lease-expiry', false, { renewal: 'compare-and-extend' }), { captureSnapshots: true });
    const failed = r.events.filter((e) => e.actor === 'A' && e.data?.t === 'lease' && e.data.op === 'renewFailed');
    expect(failed.map((e) => [e.atMs, e.reply, e.narration])).toEqual([
      [43_000, '(integer) 0', "A's renewal fails: the key expired or belongs to someone else now. Unless A checks, it keeps working."],
    ]);
    expect(r.snapshots![r.events.indexOf(failed[0]!)]!.workers.find((w) => w.id === 'A')!.beliefs).toMatchObject({ ownsLease: false, renewFailed: true });
    expect(r.metrics.renewFailures).toBe(1);
  });
});

describe('renewals stop once one is refused', () => {
  // A pauses 3–43 s past its 30 s lease and then works until 70 s: after a refused renewal the
  // client sends no more (each would be refused again), whatever the renewal command.
  const longJob = (renewal: Mechanism['renewal']): RunResult => {
    const p = findPreset('export-lease-expiry')!.withoutFix;
    return runScenario({ ...p, horizonMs: 120_000, mechanism: { ...p.mechanism, renewal }, workers: [{ ...p.workers[0]!, steps: [{ do: 'acquire' }, { do: 'work', ms: 70_000 }, { do: 'release' }] }, p.workers[1]!] });
  };
  const renewals = (r: RunResult): string[] => r.events.filter((e) => e.actor === 'A' && e.data?.t === 'lease' && (e.data.op === 'renewed' || e.data.op === 'renewFailed')).map((e) => `${e.atMs} ${e.reply}`);

  it('compare-and-extend: one refused renewal (0) at 43 s, then none until the release at 70 s', () => {
    expect(renewals(longJob('compare-and-extend'))).toEqual(['43000 (integer) 0']);
  });

  it('plain PEXPIRE: it extends B\'s key (1) until the key is gone (0), then stops', () => {
    const r = longJob('pexpire');
    expect(r.events.filter((e) => e.actor === 'A' && e.command === 'PEXPIRE lease:export 30000').map((e) => `${e.atMs} ${e.reply}`)).toEqual(['43000 (integer) 1', '53000 (integer) 1', '63000 (integer) 0']);
  });
});

describe('lease release', () => {
  it('client.checkRelease with a release that did delete its key (DEL 1, compare-and-delete 1): the job completes', () => {
    for (const release of ['del', 'compare-and-delete'] as const) {
      const p = findPreset('export-lease-expiry')!.withoutFix;
      const r = runScenario({ ...p, mechanism: { ...p.mechanism, release }, client: { ...p.client, checkRelease: true }, faults: [] });
      expect(story(r, 'A').slice(-2).map((l) => l.replace(/^(\S+) .* → /, '$1 … → '))).toEqual([
        release === 'del' ? '25000 … → (integer) 1 | A releases its lease with DEL.' : '25000 … → (integer) 1 | A releases its own lease (compare-and-delete matched its token).',
        '25000 outcome | A is done: it completed the job.',
      ]);
    }
  });

  it('plain DEL of one\'s own lease', () => {
    const r = runScenario(variant('unsafe-release', false, {}, { faults: [] }));
    expect(story(r, 'A')).toContain('8000 DEL lease:rebuild → (integer) 1 | A releases its lease with DEL.');
    expect(r.verdict.held).toBe(true);
  });

  it('plain DEL after the key expired deletes nothing', () => {
    const base = findPreset('unsafe-release')!.withoutFix;
    const r = runScenario({ ...base, workers: base.workers.slice(0, 1), faults: [{ kind: 'pause', worker: 'A', step: 2, phase: 'before', pauseMs: 5_000 }] });
    expect(story(r, 'A')).toContain('13000 DEL lease:rebuild → (integer) 0 | A runs DEL but the key is already gone.');
  });

  it('compare-and-delete after the key expired finds no key', () => {
    const base = findPreset('unsafe-release')!.withFix;
    const r = runScenario({ ...base, workers: base.workers.slice(0, 1) });
    expect(story(r, 'A').at(-2)).toMatch(/^13000 EVAL .* → \(integer\) 0 \| A's compare-and-delete finds no key: nothing to release\.$/);
  });
});

describe('effects and their bookkeeping', () => {
  it('an upload overtaken by a newer fencing token is rejected at the end; the job fails and releases', () => {
    const s = findPreset('export-lease-expiry')!.withFix;
    const r = runScenario({
      ...s,
      faults: [],
      workers: [
        { id: 'A', startMs: 0, steps: [{ do: 'acquire' }, { do: 'effect', ms: 60_000 }, { do: 'release' }] },
        { id: 'B', startMs: 1_000, steps: [{ do: 'acquire' }, { do: 'effect', ms: 10_000 }, { do: 'release' }] },
      ],
    });
    expect(story(r, 'A').slice(2).map((l) => l.replace(/EVAL .* → /, 'EVAL … → '))).toEqual([
      '0 PUT exports/2026-11-30.csv Fencing-Token: 33 → (pending: no reply yet) | A uploads exports/2026-11-30.csv with fencing token 33; the upload is in progress, no reply yet.',
      "60000 PUT exports/2026-11-30.csv Fencing-Token: 33 → 409 Conflict: stale fencing token 33 (a newer token 34 was accepted during the upload) | A's upload is rejected at the end: a newer fencing token was accepted meanwhile.",
      "60000 outcome | A's job fails (stale fencing token rejected); its error path runs.",
      "60000 EVAL … → (integer) 0 | A's compare-and-delete finds no key: nothing to release.",
      '60000 outcome | A is done: the job failed.',
    ]);
    expect(r.metrics.staleWritesRejected).toBe(1);
    // Lease age when each write finished: B 10 s after its grant at 30 s, A 60 s after its grant.
    // Only B's accepted upload commits: the overtaken one (rejected at the end) records no lease age.
    expect(r.metrics.leaseAgeAtCommit).toEqual({ count: 1, meanMs: 10_000, maxMs: 10_000 });
    expect(r.verdict.held).toBe(true);
  });

  it('an API call received before its caller crashed is a commit on the caller\'s lease: lease age and the lost-lease warning count it', () => {
    const s = findPreset('fence-ignored')!.withoutFix;
    // A's call to the API begins at 45 s and would return at 47 s; A crashes at 46 s, after the API received it.
    const r = runScenario({ ...s, faults: [...s.faults, { kind: 'crash', worker: 'A', atMs: 46_000, restartAfterMs: null }] });
    const end = r.events.find((e) => e.actor === 'A' && e.data?.t === 'write' && e.data.phase === 'end')!;
    expect([end.atMs, end.reply]).toEqual([46_000, '(no reply received: the caller crashed)']);
    // B's call (age 7 s at 37 s) and A's (A took the lease at 0 and commits at 46 s on B's lease).
    expect(r.metrics.leaseAgeAtCommit).toEqual({ count: 2, meanMs: 26_500, maxMs: 46_000 });
    expect(r.metrics.commitsOnLostLease).toBe(1);
    // An upload in flight when its writer crashes is discarded: no commit.
    const file = { ...s, destination: { ...s.destination, kind: 'file' as const } };
    expect(runScenario({ ...file, faults: [...s.faults, { kind: 'crash', worker: 'A', atMs: 46_000, restartAfterMs: null }] }).metrics.leaseAgeAtCommit.count).toBe(1);
  });

  it('an autocommitted INSERT that hits 23505 loads the winner\'s row without a ROLLBACK', () => {
    const s = findPreset('invoice-race')!.withFix;
    const r = runScenario({ ...s, workers: s.workers.map((w) => ({ ...w, steps: [{ do: 'connect' }, { do: 'check' }, { do: 'work', ms: 50 }, { do: 'effect', ms: 0 }, { do: 'disconnect' }] })) });
    expect(story(r, 'B').slice(2).map((l) => l.split(' | ')[0])).toEqual([
      '70 INSERT INTO invoices (order_id, amount) VALUES (42, 100) RETURNING id → ERROR 23505 duplicate key value violates unique constraint "invoices_order_id_key" (Key (order_id)=(42) already exists.)',
      '70 SELECT * FROM invoices WHERE order_id = 42 → SELECT 1 → id=1, order_id=42, amount=100',
      '70 client.release() → ok',
      '70 outcome',
    ]);
    expect(story(r, 'B')[2]!.split(' | ')[1]).toBe("B's insert is rejected: duplicate key value violates unique constraint \"invoices_order_id_key\".");
    expect(story(r, 'B').at(-1)).toBe('70 outcome | B is done: it found the existing row and used it.');
    expect(r.metrics.wastedWorkMs).toBe(50);
  });

  it('a debit without a read step writes the initial balance minus its amount', () => {
    const s = findPreset('balance-update')!.withoutFix;
    const r = runScenario({ ...s, workers: [{ ...s.workers[0]!, steps: [{ do: 'connect' }, { do: 'effect', ms: 0 }, { do: 'disconnect' }] }] });
    expect(story(r, 'A')[1]).toBe('0 UPDATE accounts SET balance = 70 WHERE id = 1 → UPDATE 1 | A writes balance = 70 (the ? it read minus 30).');
  });

  it('a crash throws away the work the attempt did, an interrupted step for the time it ran; connecting twice borrows once', () => {
    const s = findPreset('crash-after-effect')!.withoutFix;
    const r = runScenario({
      ...s,
      workers: [{ id: 'A', startMs: 0, steps: [{ do: 'connect' }, { do: 'connect' }, { do: 'work', ms: 700 }, { do: 'work', ms: 300 }, { do: 'disconnect' }] }],
      faults: [{ kind: 'crash', worker: 'A', atMs: 800, restartAfterMs: 100 }],
    });
    expect(r.events.filter((e) => e.command === 'pool.connect()').map((e) => [e.atMs, e.reply])).toEqual([[0, 'c1'], [900, 'c5']]);
    expect(story(r, 'A').at(-1)).toBe('1900 outcome | A is done: it completed the job.');
    // A crashed at 800 ms: its first work step ran 700 ms, its second 100 ms of the planned 300 ms.
    expect(r.metrics.wastedWorkMs).toBe(800);
  });
});

describe('beliefs and retries around acquire and release', () => {
  const beliefsAt = (r: RunResult, pred: (e: RunResult['events'][number]) => boolean, id: string) => {
    const i = r.events.findIndex(pred);
    expect(i).toBeGreaterThanOrEqual(0);
    return r.snapshots![i]!.workers.find((w) => w.id === id)!.beliefs;
  };

  it('a release (DEL or compare-and-delete) ends the belief in the lease; an unlock ends the belief in the lock', () => {
    for (const release of ['del', 'compare-and-delete'] as const) {
      const r = runScenario(variant('unsafe-release', false, { release }, { faults: [] }), { captureSnapshots: true });
      expect(beliefsAt(r, (e) => e.actor === 'A' && e.data?.t === 'lease' && e.data.op === 'acquired', 'A').ownsLease).toBe(true);
      expect(beliefsAt(r, (e) => e.actor === 'A' && e.data?.t === 'lease' && e.data.op === 'released', 'A').ownsLease).toBe(false);
    }
    const r = runScenario(findPreset('session-lock-pool')!.withoutFix, { captureSnapshots: true });
    expect(beliefsAt(r, (e) => e.actor === 'B' && e.command === 'SELECT pg_advisory_lock(42)', 'B')).toMatchObject({ holdsLock: true, acquiredAtMs: 100 });
    expect(beliefsAt(r, (e) => e.actor === 'B' && e.command === 'SELECT pg_advisory_unlock(42)', 'B').holdsLock).toBe(false);
  });

  it('a lease grant sets what the worker believes: until when, since when, its token', () => {
    const r = runScenario(findPreset('export-lease-expiry')!.withFix, { captureSnapshots: true });
    expect(beliefsAt(r, (e) => e.actor === 'B' && e.data?.t === 'lease' && e.data.op === 'fenced', 'B')).toMatchObject({
      ownsLease: true, acquiredAtMs: 30_000, leaseBelievedUntilMs: 60_000, fencingToken: 34, renewFailed: false,
    });
    const plain = runScenario(findPreset('export-lease-expiry')!.withoutFix, { captureSnapshots: true });
    expect(beliefsAt(plain, (e) => e.actor === 'B' && e.data?.t === 'lease' && e.data.op === 'acquired', 'B')).toMatchObject({
      ownsLease: true, acquiredAtMs: 30_000, leaseBelievedUntilMs: 60_000, fencingToken: null,
    });
  });

  it('a lease waiter retries every retryEveryMs and gives up at exactly acquireTimeoutMs', () => {
    const base = findPreset('export-lease-expiry')!.withoutFix;
    const r = runScenario({ ...base, faults: [], mechanism: { ...base.mechanism, acquireTimeoutMs: 5_000 } });
    const tries = r.events.filter((e) => e.actor === 'B' && (e.command ?? '').startsWith('SET lease:export'));
    expect(tries.map((e) => e.atMs)).toEqual([1_000, 2_000, 3_000, 4_000, 5_000, 6_000]);
    expect(tries[0]!.narration).toBe('lease:export is taken: B will try again in 1 s.');
    const gaveUp = r.events.find((e) => e.actor === 'B' && e.kind === 'outcome')!;
    expect([gaveUp.atMs, gaveUp.narration]).toEqual([6_000, "B's job fails (it gave up waiting for lease:export after 5 s); its error path runs."]);
  });

  it('a worker cut off from the lease store cannot take the lease and says so', () => {
    const base = findPreset('export-lease-expiry')!.withoutFix;
    const r = runScenario({ ...base, faults: [{ kind: 'partition', worker: 'B', atMs: 500, durationMs: 1_500 }] });
    const tries = r.events.filter((e) => e.actor === 'B' && (e.command ?? '').startsWith('SET lease:export')).slice(0, 2);
    expect(tries.map((e) => [e.atMs, e.reply, e.narration])).toEqual([
      [1_000, '(no reply: connection timed out)', 'B cannot reach the lease store: its SET gets no reply, so it cannot know whether it took the lease. It will try again in 1 s.'],
      [2_000, '(nil)', 'lease:export is taken: B will try again in 1 s.'],
    ]);
  });
});

describe('transaction end and what the worker believes', () => {
  it('COMMIT and ROLLBACK end the transaction and, with a transaction-scoped advisory lock, the lock', () => {
    const r = runScenario(findPreset('session-lock-pool')!.withFix, { captureSnapshots: true });
    expect(beliefsAfter(r, 'B', 'SELECT pg_advisory_xact_lock(42)')).toMatchObject({ inTransaction: true, holdsLock: true });
    expect(beliefsAfter(r, 'B', 'COMMIT')).toMatchObject({ inTransaction: false, holdsLock: false });
    expect(beliefsAfter(r, 'A', 'ROLLBACK')).toMatchObject({ inTransaction: false, holdsLock: false });
    expect(r.events.find((e) => e.actor === 'A' && e.command === 'ROLLBACK')!.narration).toBe('A rolls back, releasing its transaction-scoped advisory lock.');
  });

  it('COMMIT leaves a session-level advisory lock believed held (it is)', () => {
    const base = findPreset('session-lock-pool')!.withoutFix;
    const r = runScenario({ ...base, faults: [], workers: [{ id: 'A', startMs: 0, steps: [{ do: 'connect' }, { do: 'begin' }, { do: 'acquire' }, { do: 'commit' }, { do: 'release' }, { do: 'disconnect' }] }] }, { captureSnapshots: true });
    expect(beliefsAfter(r, 'A', 'COMMIT')).toMatchObject({ inTransaction: false, holdsLock: true });
    expect(r.events.find((e) => e.command === 'COMMIT')!.narration).toBe('A commits.');
    expect(beliefsAfter(r, 'A', 'SELECT pg_advisory_unlock(42)').holdsLock).toBe(false);
  });

  // A FOR UPDATE read sets holdsLock; PostgreSQL releases row locks when the transaction ends
  // (semantics.md), so COMMIT/ROLLBACK clear it: a worker that goes on working after COMMIT is not
  // "inside its critical section", and B, which only got the row after A's COMMIT, overlaps no one.
  it('a FOR UPDATE row lock ends with the transaction: no critical section after COMMIT', () => {
    const s = findPreset('balance-update')!.withFix;
    const r = runScenario({ ...s, workers: s.workers.map((w) => ({ ...w, steps: [...w.steps, { do: 'work' as const, ms: 100 }] })), invariants: [{ kind: 'mutualExclusion' }] }, { captureSnapshots: true });
    expect(beliefsAfter(r, 'A', 'COMMIT').holdsLock).toBe(false);
    expect(r.verdict.held).toBe(true);
  });
});

describe('a crash narrates what the worker really had (the session and the lease store, not its beliefs)', () => {
  const crashStory = (lock: Mechanism['lock'], steps: Scenario['workers'][number]['steps'], atMs = 500, lease: Partial<Scenario['lease']> = {}): string => {
    const s = variant('invoice-race', false, { lock });
    const r = runScenario({ ...s, horizonMs: 60_000, lease: { ...s.lease, ...lease }, workers: [{ id: 'A', startMs: 0, steps }], faults: [{ kind: 'crash', worker: 'A', atMs, restartAfterMs: null }] });
    return r.events.find((e) => e.kind === 'fault' && e.actor === 'A')!.narration;
  };

  it('a session-level advisory lock outside any transaction: the lock is released, no transaction is rolled back', () => {
    expect(crashStory('advisory-session', [{ do: 'acquire' }, { do: 'work', ms: 1_000 }])).toBe('A crashes. Its database connection closes, releasing advisory lock 42.');
  });

  it('an open transaction without any lock: it is rolled back, no advisory lock is claimed', () => {
    expect(crashStory('none', [{ do: 'begin' }, { do: 'work', ms: 1_000 }])).toBe('A crashes. Its database connection closes, rolling back its open transaction.');
  });

  it('a transaction with a transaction-scoped advisory lock: both', () => {
    expect(crashStory('advisory-xact', [{ do: 'begin' }, { do: 'acquire' }, { do: 'work', ms: 1_000 }])).toBe('A crashes. Its database connection closes, rolling back its open transaction and releasing advisory lock 42.');
  });

  it('a connection with nothing on it: only the connection closes', () => {
    expect(crashStory('none', [{ do: 'connect' }, { do: 'work', ms: 1_000 }])).toBe('A crashes. Its database connection closes.');
  });

  it('a lease whose TTL already ran out is not said to stay in Redis; one still held is', () => {
    expect(crashStory('lease', [{ do: 'acquire' }, { do: 'work', ms: 20_000 }], 5_000, { ttlMs: 10_000 })).toBe('A crashes. Its lease stays in Redis until its TTL runs out.');
    expect(crashStory('lease', [{ do: 'acquire' }, { do: 'work', ms: 20_000 }], 15_000, { ttlMs: 10_000 })).toBe('A crashes.');
  });
});

describe('a write that touches no row is not narrated as a write', () => {
  it('INSERT 0 0 on the completion record is not "records the job as done"', () => {
    const s = variant('thumbnail', false, { jobRecord: true });
    const r = runScenario({
      ...s,
      job: { kind: 'external', jobKey: 'thumb-42' },
      workers: [{ id: 'A', startMs: 0, steps: [{ do: 'effect', ms: 100 }, { do: 'record' }] }, { id: 'B', startMs: 50, steps: [{ do: 'effect', ms: 100 }, { do: 'record' }] }],
    });
    const records = r.events.filter((e) => e.command?.startsWith('INSERT INTO jobs')).map((e) => `${e.actor} ${e.reply} | ${e.narration}`);
    expect(records).toEqual([
      'A INSERT 0 1 | A records the job as done.',
      'B INSERT 0 0 | B\'s completion record inserts nothing (INSERT 0 0): a record for this job is already there, and ON CONFLICT DO NOTHING leaves it as it is.',
    ]);
  });
});

describe('fencing tokens are compared with the grants before them', () => {
  it('a failover that loses the INCR hands out the same token again: narrated as the same token, never as higher', () => {
    const s = variant('fence-ignored', false, {});
    // A takes the lease and token 33 at 0 ms; the primary fails over at 1 s with a replica 5 s behind,
    // so both the lease and the counter's increment are lost; B then takes the lease and INCRs again.
    const r = runScenario({ ...s, lease: { ...s.lease, replicationLagMs: 5_000 }, faults: [{ kind: 'failover', atMs: 1_000 }] });
    const grants = r.events.filter((e) => e.data?.t === 'lease' && e.data.op === 'fenced').map((e) => `${e.actor} ${e.reply} | ${e.narration}`);
    expect(grants[0]).toBe('A (integer) 33 | A gets fencing token 33 (the first token granted in this run).');
    expect(grants[1]).toBe('B (integer) 33 | B gets fencing token 33, the same token as an earlier grant: the counter lost its increments (a failover?), so two holders now carry token 33.');
    expect(grants.join('\n')).not.toMatch(/higher/);
  });

  // The boundary of "overwrites a newer write": an unconditional UPDATE of the fenced row over a
  // fence equal to its own token is its own earlier write (a retry) unless another holder carried it.
  const fencedWrites = (r: RunResult): string[] => r.events.filter((e) => e.command?.startsWith('UPDATE documents')).map((e) => `${e.atMs} ${e.actor} ${e.reply} | ${e.narration}`);

  it('an unfenced UPDATE over the same holder\'s own earlier write (the same token) loses nothing', () => {
    const s = variant('fenced-db-write', false, {});
    const a = s.workers[0]!;
    const r = runScenario({ ...s, faults: [], workers: [{ ...a, steps: [{ do: 'acquire' }, { do: 'work', ms: 5000 }, { do: 'effect', ms: 1000 }, { do: 'effect', ms: 1000 }, { do: 'release' }] }] });
    expect(fencedWrites(r)).toEqual([
      '5000 A UPDATE 1 | A writes row 7 of documents and sets fence = 33 (UPDATE 1); the UPDATE does not check the fence.',
      '6000 A UPDATE 1 | A writes row 7 of documents and sets fence = 33 (UPDATE 1); the UPDATE does not check the fence.',
    ]);
    expect(r.verdict.held).toBe(true);
  });

  it('an unfenced UPDATE over another holder\'s write with the same token (a failover lost the INCR): that write is lost, as the checker says', () => {
    const s = variant('fenced-db-write', false, {});
    const r = runScenario({ ...s, lease: { ...s.lease, replicationLagMs: 5_000 }, faults: [{ kind: 'failover', atMs: 1_000 }, ...s.faults] });
    expect(fencedWrites(r)).toEqual([
      '7000 B UPDATE 1 | B writes row 7 of documents and sets fence = 33 (UPDATE 1); the UPDATE does not check the fence.',
      "45000 A UPDATE 1 | A's UPDATE overwrites B's row (fence 33) with its own token 33 (UPDATE 1): nothing in the UPDATE compares the tokens, so B's write with the same token is lost.",
    ]);
    expect(r.verdict.violations.map((f) => f.message)).toEqual(["the database accepted A's token 33 after B's write with the same token: two holders carried token 33, so it could not tell the stale one"]);
  });

  it('an unfenced UPDATE over a newer holder\'s write (a higher fence): the newer write is lost', () => {
    const r = runScenario(variant('fenced-db-write', false, {}));
    expect(fencedWrites(r)).toEqual([
      '35000 B UPDATE 1 | B writes row 7 of documents and sets fence = 34 (UPDATE 1); the UPDATE does not check the fence.',
      "45000 A UPDATE 1 | A's UPDATE overwrites B's row (fence 34) with its own token 33 (UPDATE 1): nothing in the UPDATE compares the tokens, so B's newer write is lost.",
    ]);
  });
});

describe('the job lifecycle: a request given up is no longer waiting', () => {
  it('a skipped job still runs its cleanup steps: it sends no unlock for a lock it never got, but gives its connection back', () => {
    const p = findPreset('session-lock-pool')!.withoutFix;
    const steps = [{ do: 'connect' }, { do: 'acquire' }, { do: 'work', ms: 10 }, { do: 'release' }, { do: 'disconnect' }] as Scenario['workers'][number]['steps'];
    const r = runScenario({ ...p, client: { ...p.client, onBusy: 'skip' }, faults: [], workers: [{ id: 'A', startMs: 0, steps: [{ do: 'connect' }, { do: 'acquire' }, { do: 'work', ms: 500 }, { do: 'release' }, { do: 'disconnect' }] }, { id: 'B', startMs: 100, steps }] });
    expect(story(r, 'B')).toEqual([
      '100 pool.connect() → c2 | B borrows connection c2 from the pool.',
      "100 SELECT pg_try_advisory_lock(42) → f | Advisory lock 42 is held by another session: B's try-lock returns false, so it skips the job without an error.",
      '100 client.release() → ok | B returns connection c2 to the pool.',
      '100 outcome | B is done: it did not get the lock, so it skipped the job without an error.',
    ]);
  });

  it('a try-lock skipped, then paused past the end of the run, is not reported as still waiting for the lock', () => {
    const p = findPreset('session-lock-pool')!.withoutFix;
    const r = runScenario({
      ...p,
      client: { ...p.client, onBusy: 'skip' },
      workers: [
        { id: 'A', startMs: 0, steps: [{ do: 'connect' }, { do: 'acquire' }, { do: 'work', ms: 500 }, { do: 'release' }, { do: 'disconnect' }] },
        { id: 'B', startMs: 100, steps: [{ do: 'connect' }, { do: 'acquire' }, { do: 'work', ms: 10 }, { do: 'disconnect' }] },
      ],
      faults: [{ kind: 'pause', worker: 'B', pauseMs: 50_000, step: 3, phase: 'before' }],
    });
    expect(story(r, 'B')[1]).toBe('100 SELECT pg_try_advisory_lock(42) → f | Advisory lock 42 is held by another session: B\'s try-lock returns false, so it skips the job without an error.');
    // B is paused before its disconnect until after the horizon: unfinished, but waiting for nothing.
    expect(r.verdict.cutShort?.unfinished).toEqual(['B']);
    expect(r.metrics.acquisitionStillWaiting).toBeUndefined();
  });
});

describe('a BEGIN inside a transaction', () => {
  it('only warns (PostgreSQL\'s WARNING, then BEGIN): the worker stays in the transaction it had, and one COMMIT ends it', () => {
    const p = findPreset('remote-call-in-txn')!.withFix;
    const r = runScenario({ ...p, workers: [{ id: 'A', startMs: 0, steps: [{ do: 'connect' }, { do: 'begin' }, { do: 'begin' }, { do: 'enqueue' }, { do: 'commit' }, { do: 'disconnect' }] }], invariants: [{ kind: 'boundedWait', maxWaitMs: 10_000 }] });
    expect(story(r, 'A').slice(1, 5)).toEqual([
      '0 BEGIN → BEGIN | A opens a transaction.',
      "0 BEGIN → WARNING:  there is already a transaction in progress; BEGIN | A's BEGIN only warns (there is already a transaction in progress): it is still in the transaction it had.",
      "0 INSERT INTO jobs (job_key, status) VALUES ('payment-A', 'pending') → INSERT 0 1 | A writes a durable job record (pending) before calling out.",
      '0 COMMIT → COMMIT | A commits.',
    ]);
    expect(r.events.find((e) => e.reply?.startsWith('WARNING'))?.beliefs?.inTransaction).toBe(true);
  });
});

describe('the durable job record (enqueue, check, record)', () => {
  const payments = findPreset('remote-call-in-txn')!.withFix;

  it('a second pending record for the same job key is a unique violation: the job fails with 23505, not a vague "insert failed"', () => {
    const r = runScenario({ ...payments, job: { kind: 'external', jobKey: 'payment-42' }, workers: payments.workers.slice(0, 2), invariants: [{ kind: 'boundedWait', maxWaitMs: 10_000 }] });
    expect(story(r, 'B').slice(2, 4)).toEqual([
      `100 INSERT INTO jobs (job_key, status) VALUES ('payment-42', 'pending') → ERROR 23505 duplicate key value violates unique constraint "jobs_pkey" (Key (job_key)=(payment-42) already exists.) | B could not write its job record: duplicate key value violates unique constraint "jobs_pkey".`,
      `100 outcome | B's job fails (duplicate key value violates unique constraint "jobs_pkey"); its error path runs.`,
    ]);
    expect(story(r, 'A').find((l) => l.includes('INSERT INTO jobs'))).toBe(`0 INSERT INTO jobs (job_key, status) VALUES ('payment-42', 'pending') → INSERT 0 1 | A writes a durable job record (pending) before calling out.`);
  });

  it('a check that finds only a pending record (not done) does the job', () => {
    const r = runScenario({
      ...payments,
      mechanism: { ...payments.mechanism, jobRecord: true },
      job: { kind: 'external', jobKey: 'payment-42' },
      workers: [payments.workers[0]!, { id: 'B', startMs: 500, steps: [{ do: 'check' }, { do: 'effect', ms: 100 }] }],
      invariants: [{ kind: 'boundedWait', maxWaitMs: 10_000 }],
    });
    expect(story(r, 'B').slice(1, 3)).toEqual([
      "500 SELECT status FROM jobs WHERE job_key = 'payment-42' → SELECT 1 → status=pending | B finds no completed job record, so it does the job.",
      '500 POST /v1/payments → (pending: no reply yet) | B calls POST /v1/payments; the request is in progress, no reply yet.',
    ]);
  });

  it('stopOnRenewFailure before the completion record: the worker stops before recording, and does not claim it wrote nothing', () => {
    const p = findPreset('pexpire-renewal')!.withFix;
    const r = runScenario({ ...p, workers: [{ id: 'A', startMs: 0, steps: [{ do: 'acquire' }, { do: 'effect', ms: 20_000 }, { do: 'record' }, { do: 'release' }] }, p.workers[1]!] });
    expect(story(r, 'A').slice(-4)).toEqual([
      `14000 EVAL "if redis.call(\\"get\\",KEYS[1]) == ARGV[1] then return redis.call(\\"pexpire\\",KEYS[1],ARGV[2]) else return 0 end" 1 lease:reindex e01d 10000 → (integer) 0 | A's renewal fails: the key expired or belongs to someone else now. Unless A checks, it keeps working.`,
      '20000 PUT search/catalog.idx → 200 OK (upload complete) | A\'s upload completes: 200 OK (upload complete).',
      '20000 outcome | A saw a renewal fail, so it stops before recording the job as done.',
      '20000 outcome | A is done: it stopped because it could not keep its lease.',
    ]);
    expect(r.events.some((e) => e.actor === 'A' && e.command?.startsWith('INSERT INTO jobs'))).toBe(false);
  });
});

describe('what a check finds, in words (each sentence pinned, not only through the preset trace hashes)', () => {
  const said = (r: RunResult, actor: string, text: string): string | undefined => r.events.find((e) => e.actor === actor && e.narration.includes(text))?.narration;

  it('insertOnce: no row yet (a race may follow), then the insert names the row it made', () => {
    const r = runScenario(findPreset('invoice-race')!.withoutFix);
    expect(said(r, 'A', 'finds no row yet')).toBe('A finds no row yet, so it will insert one (another worker may be deciding the same right now).');
    expect(said(r, 'A', 'inserts the row')).toBe('A inserts the row (id 1).');
  });

  it('insertOnce: one row already there is loaded', () => {
    const r = runScenario(findPreset('admin-bypass')!.withFix);
    const check = r.events.find((e) => e.actor === 'B' && e.narration.includes('already there'))!;
    expect(check.narration).toBe('B finds the row already there and loads it.');
    expect(check.reply).toMatch(/^SELECT 1 → /);
    expect(r.events.filter((e) => e.actor === 'B' && e.kind === 'outcome').at(-1)?.narration).toBe('B is done: it found the existing row and used it.');
  });

  it('a job record: none done yet means do the job; one marked done means nothing is left', () => {
    const r = runScenario(findPreset('thumbnail')!.withFix);
    expect(said(r, 'A', 'job record')).toBe('A finds no completed job record, so it does the job.');
    const done = r.events.find((e) => e.actor === 'B' && e.narration.includes('marked done'))!;
    expect([done.reply, done.narration]).toEqual(['SELECT 1 → status=done', 'B finds the job record marked done: nothing left to do.']);
    expect(r.events.filter((e) => e.actor === 'B' && e.kind === 'outcome').at(-1)?.narration).toBe('B is done: the job record said the work was already done.');
  });
});

describe('what COMMIT says and counts', () => {
  it('a BEGIN that names READ COMMITTED (PostgreSQL\'s default) opens "a transaction", with no level in the words; another level is named', () => {
    const base = variant('balance-update', true, {});
    const at = (isolation: 'read committed' | 'serializable') => runScenario({ ...base, workers: base.workers.map((w) => ({ ...w, steps: w.steps.map((st) => (st.do === 'begin' ? { do: 'begin' as const, isolation } : st)) })) });
    const begin = (r: RunResult) => r.events.find((e) => e.actor === 'A' && (e.command ?? '').startsWith('BEGIN'))!;
    expect(begin(at('read committed'))).toMatchObject({ command: 'BEGIN ISOLATION LEVEL READ COMMITTED', narration: 'A opens a transaction.' });
    expect(begin(at('serializable'))).toMatchObject({ command: 'BEGIN ISOLATION LEVEL SERIALIZABLE', narration: 'A opens a SERIALIZABLE transaction.' });
  });

  it('under a lease, the COMMIT is what commits (lease age counted once, at COMMIT); the UPDATE inside the transaction is not', () => {
    const base = variant('fenced-db-write', false, {});
    const inTxn = { ...base, faults: [], workers: [{ ...base.workers[0]!, steps: [{ do: 'acquire' as const }, { do: 'begin' as const }, { do: 'work' as const, ms: 5_000 }, { do: 'effect' as const, ms: 1_000 }, { do: 'commit' as const }, { do: 'release' as const }] }] };
    const r = runScenario(inTxn);
    expect(r.events.filter((e) => e.actor === 'A' && e.command !== undefined).map((e) => `${e.atMs} ${e.command!.split(' ')[0]}`)).toContain('6000 COMMIT');
    expect(r.metrics.leaseAgeAtCommit).toMatchObject({ count: 1, maxMs: 6_000 });
    expect(r.metrics.commitsOnLostLease).toBeUndefined(); // absent when no commit was made on a lost lease
  });

  it('a COMMIT that fails commits nothing: no lease age is counted', () => {
    const base = variant('fenced-db-write', false, {});
    const failing = { ...base, faults: [], database: { ...base.database, idleInTransactionSessionTimeoutMs: 2_000 }, workers: [{ ...base.workers[0]!, steps: [{ do: 'acquire' as const }, { do: 'begin' as const }, { do: 'work' as const, ms: 5_000 }, { do: 'commit' as const }, { do: 'release' as const }] }] };
    const r = runScenario(failing);
    expect(r.events.find((e) => e.command === 'COMMIT')!.reply).toMatch(/^FATAL 25P03/);
    expect(r.metrics.leaseAgeAtCommit.count).toBe(0);
  });

  it('a connection that comes back from the pool still holding A\'s session lock does not make B believe, at its COMMIT, that it holds the lock', () => {
    const base = findPreset('session-lock-pool')!.withoutFix;
    const r = runScenario({
      ...base, faults: [],
      database: { ...base.database, poolSize: 1 },
      workers: [
        { id: 'A', startMs: 0, steps: [{ do: 'connect' }, { do: 'acquire' }, { do: 'disconnect' }] },
        { id: 'B', startMs: 100, steps: [{ do: 'connect' }, { do: 'begin' }, { do: 'commit' }, { do: 'disconnect' }] },
      ],
    }, { captureSnapshots: true });
    expect(r.events.find((e) => e.actor === 'B' && e.kind === 'pool')!.reply).toBe('c1');
    const commitAt = r.events.findIndex((e) => e.actor === 'B' && e.command === 'COMMIT');
    expect(r.snapshots![commitAt]!.pgLocks.filter((l) => l.locktype === 'advisory').map((l) => `${l.sessionId} ${l.advisoryKey} ${l.granted}`)).toEqual(['c1 42 true']);
    expect(beliefsAfter(r, 'B', 'COMMIT')).toMatchObject({ inTransaction: false, holdsLock: false });
  });
});
