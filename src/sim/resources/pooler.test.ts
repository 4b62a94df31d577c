/**
 * PgBouncer between the pool and PostgreSQL (../shared/semantics.md, "Connection poolers
 * (PgBouncer)"): routing per pool mode, the session lock that stays with its server connection,
 * PgBouncer's queue, and what a client's death does to its server connection.
 */
import { runScenario, type RunResult } from '../engine/run';
import { findPreset } from '../presets';
import { parseScenario } from '../scenario/migrate';
import { validateScenario } from '../scenario/validate';
import type { Scenario } from '../scenario/schema';
import { steps } from '../presets/build';
import { PoolerResource } from './pooler';

const base = findPreset('pooler-session-lock')!.withoutFix;
const withPooler = (mode: 'session' | 'transaction' | null, rest: Partial<Scenario> = {}): Scenario => {
  const { pooler: _, ...database } = base.database;
  return { ...base, ...rest, database: mode === null ? database : { ...database, pooler: { mode, serverConnections: 2 } } };
};
/** `<actor> <command> @ <session>` for every SQL event: which backend each statement ran on. */
const routing = (r: RunResult) => r.events.filter((e) => e.kind === 'sql').map((e) => `${e.actor} ${e.command} @ ${e.call?.caller}`);

describe('PoolerResource', () => {
  const opened: string[] = [];
  const make = (inTx: (id: string) => boolean = () => false) => new PoolerResource('transaction', 2, { openSession: (id) => opened.push(id), inTransaction: inTx });

  it('opens its server connections and hands the last returned one first (LIFO)', () => {
    opened.length = 0;
    const p = make();
    expect(opened).toEqual(['s1', 's2']);
    expect(p.execute(0, 'A', { op: 'link', client: 'c1' }).reply).toEqual({ status: 'ok', server: 's1' });
    expect(p.execute(0, 'B', { op: 'link', client: 'c2' }).reply).toEqual({ status: 'ok', server: 's2' });
    p.execute(0, 'A', { op: 'unlink', client: 'c1' });
    p.execute(0, 'B', { op: 'unlink', client: 'c2' });
    expect(p.execute(0, 'C', { op: 'link', client: 'c3' }).reply).toEqual({ status: 'ok', server: 's2' });
  });

  it('queues a client when every server connection is linked and hands it the next one returned', () => {
    const p = make();
    p.execute(0, 'A', { op: 'link', client: 'c1' });
    p.execute(0, 'B', { op: 'link', client: 'c2' });
    expect(p.execute(0, 'C', { op: 'link', client: 'c3' }).reply).toEqual({ status: 'waits', position: 1 });
    const r = p.execute(0, 'B', { op: 'unlink', client: 'c2' });
    expect(r.completions).toEqual([{ caller: 'C', command: { op: 'link', client: 'c3' }, reply: { status: 'ok', server: 's2' } }]);
    expect(p.serverOf('c3')).toBe('s2');
    expect(p.snapshot()).toEqual({ mode: 'transaction', servers: [{ id: 's1', client: 'c1' }, { id: 's2', client: 'c3' }], waiting: [] });
  });

  it('closing a client: DISCARD ALL on an idle server connection, a closed one inside a transaction', () => {
    const closed: string[] = [];
    const p = make((id) => id === 's2');
    p.execute(0, 'A', { op: 'link', client: 'c1' });
    p.execute(0, 'B', { op: 'link', client: 'c2' });
    expect(p.close('c1', (id) => closed.push(id)).reply).toEqual({ status: 'discarded', server: 's1' });
    expect(p.close('c2', (id) => closed.push(id)).reply).toEqual({ status: 'serverClosed', server: 's2', replacement: 's3' });
    expect(closed).toEqual(['s1', 's2']);
    expect(p.close('c9', () => closed.push('never')).reply).toEqual({ status: 'none' });
  });

  it('a server connection closed by a dying client is replaced lazily: an idle one is handed out before the new one (fidelity: PgBouncer opens one only when none is idle)', () => {
    const p = make((id) => id === 's1');
    p.execute(0, 'A', { op: 'link', client: 'c1' });
    p.execute(0, 'B', { op: 'link', client: 'c2' });
    p.execute(0, 'B', { op: 'unlink', client: 'c2' });
    expect(p.close('c1', () => undefined).reply).toEqual({ status: 'serverClosed', server: 's1', replacement: 's3' });
    expect(p.execute(0, 'C', { op: 'link', client: 'c3' }).reply).toEqual({ status: 'ok', server: 's2' });
    expect(p.execute(0, 'D', { op: 'link', client: 'c4' }).reply).toEqual({ status: 'ok', server: 's3' });
  });

  it('a server connection the server ended: its client is closed with it (nothing left to reset at close), a waiting client gets the new one', () => {
    opened.length = 0;
    const p = make();
    p.execute(0, 'A', { op: 'link', client: 'c1' });
    p.execute(0, 'B', { op: 'link', client: 'c2' });
    expect(p.execute(0, 'C', { op: 'link', client: 'c3' }).reply).toEqual({ status: 'waits', position: 1 });
    const ended = p.serverEnded('s1');
    expect(ended).toEqual({ client: 'c1', replacement: 's3', completions: [{ caller: 'C', command: { op: 'link', client: 'c3' }, reply: { status: 'ok', server: 's3' } }] });
    expect(opened).toEqual(['s1', 's2', 's3']);
    expect(p.serverOf('c1')).toBeNull();
    expect(p.endedServerOf('c1')).toBe('s1');
    expect(p.endedServerOf('c2')).toBeNull();
    const closed: string[] = [];
    expect(p.close('c1', (id) => closed.push(id)).reply).toEqual({ status: 'none' });
    expect(closed).toEqual([]);
    expect(p.endedServerOf('c1')).toBeNull();
    expect(p.snapshot().servers.map((x) => x.id)).toEqual(['s2', 's3']);
  });

  it('a server connection the server ended with nobody waiting is replaced lazily: the next client gets the idle one before the new one', () => {
    const p = make();
    p.execute(0, 'A', { op: 'link', client: 'c1' });
    expect(p.serverEnded('s1')).toEqual({ client: 'c1', replacement: 's3', completions: [] });
    expect(p.execute(0, 'B', { op: 'link', client: 'c2' }).reply).toEqual({ status: 'ok', server: 's2' });
    expect(p.execute(0, 'C', { op: 'link', client: 'c3' }).reply).toEqual({ status: 'ok', server: 's3' });
  });
});

describe('a scenario behind PgBouncer', () => {
  it('session mode behaves as with no pooler: the same statements, each client on one backend throughout', () => {
    const none = runScenario(withPooler(null));
    const session = runScenario(withPooler('session'));
    const line = (e: RunResult['events'][number]) => `${e.actor} ${e.command ?? e.kind} → ${(e.reply ?? '').replace(/session [cs](\d)/, 'session #$1')}`;
    expect(session.events.map(line)).toEqual(none.events.map(line));
    // c1 → s1 for A (and for C, who borrows c1 after A), c2 → s2 for B.
    expect(routing(session)).toEqual(routing(none).map((x) => x.replace('@ c1', '@ s1').replace('@ c2', '@ s2')));
    expect(session.verdict.violations.map((v) => v.invariant)).toEqual(none.verdict.violations.map((v) => v.invariant));
  });

  it('transaction mode: a statement outside a transaction runs on any idle backend, a transaction on one', () => {
    const r = runScenario(withPooler('transaction'));
    expect(routing(r)).toEqual([
      'A SELECT pg_advisory_lock(42) @ s1',
      'B BEGIN @ s1',
      'B SELECT pg_advisory_lock(42) @ s1',
      'A SELECT pg_advisory_unlock(42) @ s2',
      'C SELECT pg_advisory_lock(42) @ s2',
      'B SELECT pg_advisory_unlock(42) @ s1',
      'B COMMIT @ s1',
    ]);
    // Every SQL event says where it ran.
    for (const e of r.events.filter((x) => x.kind === 'sql')) expect(e.narration).toMatch(/^\[backend s\d\] /);
  });

  it('a client that waits for a backend is queued by PgBouncer and runs when one is returned', () => {
    const s = withPooler('transaction', {
      mechanism: { ...base.mechanism, lock: 'advisory-xact' },
      workers: [
        { id: 'A', startMs: 0, steps: steps('connect', 'begin', 'acquire', ['work', 1_000], 'commit', 'disconnect') },
        { id: 'B', startMs: 0, steps: steps('connect', 'begin', ['work', 2_000], 'commit', 'disconnect') },
        { id: 'C', startMs: 100, steps: steps('connect', 'begin', 'acquire', ['work', 100], 'commit', 'disconnect') },
      ],
    });
    const r = runScenario(s);
    const pool = r.events.filter((e) => e.actor === 'C' && e.kind === 'pool').map((e) => `${e.atMs} ${e.narration}`);
    expect(pool).toEqual([
      '100 C borrows connection c3 from the pool.',
      '100 Every server connection of PgBouncer is in use: C\'s statement waits for one (position 1 in PgBouncer\'s queue).',
      '1000 PgBouncer hands server connection s1 to C after 900 ms in its queue.',
      '1100 C returns connection c3 to the pool.',
    ]);
    expect(routing(r).filter((x) => x.startsWith('C'))).toEqual(['C BEGIN @ s1', 'C SELECT pg_advisory_xact_lock(42) @ s1', 'C COMMIT @ s1']);
    expect(r.metrics.connectionWait.maxMs).toBe(900);
  });

  it('session mode: a client that dies gets DISCARD ALL on its backend, which releases its session lock', () => {
    const s = withPooler('session', { faults: [{ kind: 'crash', worker: 'A', atMs: 200, restartAfterMs: null }] });
    const r = runScenario(s);
    const discard = r.events.find((e) => e.actor === 'pooler')!;
    expect(discard).toMatchObject({ atMs: 200, command: 'DISCARD ALL', reply: 'DISCARD ALL' });
    expect(discard.narration).toContain('session advisory locks included');
    // B, waiting on s2, gets the lock as soon as s1 is reset.
    expect(r.events.find((e) => e.actor === 'B' && e.command === 'SELECT pg_advisory_lock(42)' && e.reply === '(void)')?.atMs).toBe(500);
  });

  it('transaction mode: a client that dies between transactions leaves its session lock on the backend', () => {
    const s = withPooler('transaction', { faults: [{ kind: 'crash', worker: 'A', atMs: 200, restartAfterMs: null }] });
    const r = runScenario(s);
    expect(r.events.find((e) => e.actor === 'pooler')?.narration).toBe('PgBouncer had no server connection linked to c1 (transaction mode, between transactions): nothing is reset. s1 still holds session advisory lock 42.');
  });

  it('refuses a bad pooler with its field path, and a version-1 file that names one', () => {
    const bad = validateScenario({ ...JSON.parse(JSON.stringify(base)), database: { poolSize: 2, pooler: { mode: 'statement', serverConnections: 0 } } });
    expect(bad.ok).toBe(false);
    if (!bad.ok) expect(bad.errors.map((e) => e.path)).toEqual(expect.arrayContaining(['database.pooler.mode', 'database.pooler.serverConnections']));
    const { client: _, ...v1File } = JSON.parse(JSON.stringify(base)) as Scenario;
    const v1 = parseScenario({ ...v1File, version: 1 });
    expect(v1.ok).toBe(false);
    if (!v1.ok) expect(v1.errors).toEqual([{ path: 'database.pooler', message: 'exists only in scenario version 2: set "version": 2' }]);
  });
});

describe('the pooler example file (fixtures/scenario-v2-pooler.json, README "Scenario format, version 2")', () => {
  it('a web transaction takes the backend that holds the migration lock, deploy1\'s unlock lands on the other (f + WARNING), deploy2 waits for ever', async () => {
    const { readFileSync } = await import('node:fs');
    const json = JSON.parse(readFileSync(new URL('../scenario/fixtures/scenario-v2-pooler.json', import.meta.url), 'utf8'));
    const parsed = parseScenario(json);
    expect(parsed.ok).toBe(true);
    if (!parsed.ok) return;
    const r = runScenario(parsed.scenario);
    expect(routing(r)).toEqual([
      'deploy1 SELECT pg_advisory_lock(4242) @ s1',
      'web BEGIN @ s1',
      'deploy1 SELECT pg_advisory_unlock(4242) @ s2',
      'deploy2 SELECT pg_advisory_lock(4242) @ s2',
      'web COMMIT @ s1',
    ]);
    expect(r.events.find((e) => e.actor === 'deploy1' && e.command === 'SELECT pg_advisory_unlock(4242)')?.reply).toBe('WARNING:  you don\'t own a lock of type ExclusiveLock; f');
    expect(r.verdict.violations.map((v) => `${v.invariant}: ${v.message}`)).toEqual(['boundedWait: deploy2 was still waiting for a lock when the run ended, 28.5 s after it started (the limit is 10 s)']);
  });
});

describe('a pooler that keeps a server connection after its client died (fixtures/scenario-v2-pooler-crash.json)', () => {
  const load = async (): Promise<Scenario> => {
    const { readFileSync } = await import('node:fs');
    const parsed = parseScenario(JSON.parse(readFileSync(new URL('../scenario/fixtures/scenario-v2-pooler-crash.json', import.meta.url), 'utf8')));
    if (!parsed.ok) throw new Error(JSON.stringify(parsed.errors));
    return parsed.scenario;
  };
  const lines = (r: RunResult, from: number, to: number) => r.events.filter((e) => e.atMs >= from && e.atMs <= to).map((e) => `${e.atMs} ${e.actor} ${e.command === undefined ? '' : `${e.command} → ${e.reply} `}| ${e.narration}`);

  it('transaction mode: deploy1 dies between statements, PgBouncer resets nothing, s1 keeps the migration lock; web borrows s1, deploy2 waits on s2 for ever', async () => {
    const r = runScenario(await load());
    expect(lines(r, 0, 2_000)).toEqual([
      '0 deploy1 pool.connect() → c1 | deploy1 borrows connection c1 from the pool.',
      '0 deploy1 SELECT pg_advisory_lock(4242) → (void) | [backend s1] deploy1 holds advisory lock 4242 for its session, until it unlocks or the connection closes.',
      '0 deploy1 | deploy1 works for 5 s inside its critical section.',
      '1000 deploy1 | deploy1 crashes. Its connection to PgBouncer closes.',
      '1000 deploy1 connection.destroy() → closed | deploy1\'s connection c1 to PgBouncer closes.',
      '1000 pooler | PgBouncer had no server connection linked to c1 (transaction mode, between transactions): nothing is reset. s1 still holds session advisory lock 4242.',
      '1500 web pool.connect() → c4 | web borrows connection c4 from the pool.',
      '1500 web BEGIN → BEGIN | [backend s1] web opens a transaction.',
      '1500 web | web works for 3 s.',
      '2000 deploy2 pool.connect() → c2 | deploy2 borrows connection c2 from the pool.',
      '2000 deploy2 SELECT pg_advisory_lock(4242) → waits (advisory lock 4242 held by session s1) | [backend s2] deploy2 waits: advisory lock 4242 held by session s1.',
    ]);
    // web's COMMIT hands s1 back to PgBouncer's pool with the dead client's lock still on it.
    expect(r.events.filter((e) => e.actor === 'deploy2').at(-1)?.reply).toBe('waits (advisory lock 4242 held by session s1)');
    expect(r.verdict.violations.map((v) => v.message)).toEqual(['deploy2 was still waiting for a lock when the run ended, 18 s after it started (the limit is 10 s)']);
  });

  it('session mode: the dead client\'s server connection gets DISCARD ALL, which releases the lock; deploy2 takes it at once', async () => {
    const s = await load();
    const r = runScenario({ ...s, database: { ...s.database, pooler: { mode: 'session', serverConnections: 2 } } });
    expect(lines(r, 1_000, 1_000).at(-1)).toBe('1000 pooler DISCARD ALL → DISCARD ALL | PgBouncer resets server connection s1 with DISCARD ALL before putting it back: its session state goes, session advisory locks included.');
    expect(lines(r, 2_000, 2_000)).toContain('2000 deploy2 SELECT pg_advisory_lock(4242) → (void) | [backend s2] deploy2 holds advisory lock 4242 for its session, until it unlocks or the connection closes.');
    expect(r.verdict.status).toBe('held');
  });

  it('transaction mode, a client that dies inside a transaction: PgBouncer closes its server connection (the transaction rolls back, its session lock goes) and opens another', async () => {
    const s = await load();
    const r = runScenario({ ...s, workers: s.workers.map((w) => (w.id === 'deploy1' ? { ...w, steps: steps('connect', 'begin', 'acquire', ['work', 5_000], 'release', 'commit', 'disconnect') } : w)) });
    expect(lines(r, 1_000, 1_000).at(-1)).toBe('1000 pooler  → s1 closed; s3 opened | deploy1 died inside a transaction, so PgBouncer closes server connection s1 (the transaction rolls back, its locks go) and opens s3.');
    expect(r.verdict.status).toBe('held');
  });
});

describe('PoolerResource: what it prints and the small answers', () => {
  const db = { openSession: () => {}, inTransaction: () => false };

  it('prints nothing for a link or an unlink; closing a client prints DISCARD ALL in session mode only', () => {
    const session = new PoolerResource('session', 1, db);
    const transaction = new PoolerResource('transaction', 1, db);
    expect(session.renderCommand({ op: 'close', client: 'c1' })).toBe('DISCARD ALL');
    expect(transaction.renderCommand({ op: 'close', client: 'c1' })).toBe('');
    expect(session.renderCommand({ op: 'link', client: 'c1' })).toBe('');
    expect(session.renderCommand({ op: 'unlink', client: 'c1' })).toBe('');
  });

  it('prints each reply', () => {
    const p = new PoolerResource('transaction', 1, db);
    expect(p.renderReply({ status: 'ok', server: 's1' })).toBe('server connection s1');
    expect(p.renderReply({ status: 'waits', position: 1 })).toBe('waits (no idle server connection)');
    expect(p.renderReply({ status: 'unlinked', server: 's1' })).toBe('s1 back to the pool');
    expect(p.renderReply({ status: 'discarded', server: 's1' })).toBe('DISCARD ALL');
    expect(p.renderReply({ status: 'serverClosed', server: 's1', replacement: 's2' })).toBe('s1 closed; s2 opened');
    expect(p.renderReply({ status: 'none' })).toBe('');
  });

  it('only a queued link waits; it never wakes by itself; close goes through close()', () => {
    const p = new PoolerResource('transaction', 1, db);
    expect(p.waits({ status: 'waits', position: 1 })).toBe(true);
    expect(p.waits({ status: 'ok', server: 's1' })).toBe(false);
    expect(p.nextWakeMs()).toBeNull();
    expect(p.wake()).toEqual([]);
    // Its names in a trace: the resource `pooler`, events of kind `pool`.
    expect([p.name, p.traceKind]).toEqual(['pooler', 'pool']);
    expect(() => p.execute(0, 'A', { op: 'close', client: 'c1' })).toThrow(/closed with close\(\)/);
  });

  it('a client already linked keeps its server connection; unlinking a client that has none answers none', () => {
    const p = new PoolerResource('session', 2, db);
    expect(p.execute(0, 'A', { op: 'link', client: 'c1' }).reply).toEqual({ status: 'ok', server: 's1' });
    expect(p.execute(5, 'A', { op: 'link', client: 'c1' }).reply).toEqual({ status: 'ok', server: 's1' });
    expect(p.clientOf('s1')).toBe('c1');
    expect(p.clientOf('s2')).toBeNull();
    expect(p.execute(5, 'B', { op: 'unlink', client: 'c2' })).toEqual({ reply: { status: 'none' }, completions: [] });
    expect(p.serverOf('c2')).toBeNull();
  });

  it('a worker that stops waiting (it crashed) is not handed the next server connection returned', () => {
    const p = new PoolerResource('transaction', 1, db);
    p.execute(0, 'A', { op: 'link', client: 'c1' });
    expect(p.execute(0, 'B', { op: 'link', client: 'c2' }).reply).toEqual({ status: 'waits', position: 1 });
    expect(p.snapshot().waiting).toEqual(['B']);
    p.cancelWait('B');
    expect(p.snapshot().waiting).toEqual([]);
    expect(p.execute(1, 'A', { op: 'unlink', client: 'c1' })).toEqual({ reply: { status: 'unlinked', server: 's1' }, completions: [] });
    expect(p.serverOf('c2')).toBeNull();
  });
});
