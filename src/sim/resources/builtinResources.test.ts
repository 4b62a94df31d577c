/**
 * The built-in resources behind the `Resource` interface (builtinResources.ts): what each adapter
 * answers, renders and shows, what a run built from the registry does with them — the trace kind
 * of their events, the snapshot fields, the per-process pools of a scenario with `processes` — and
 * that only the lease store changes on its own (PostgreSQL's timers are the World's, not the
 * database's: ../shared/semantics.md, "Server-side timeouts").
 */
import { readFileSync } from 'node:fs';
import { PRESETS, findPreset, resourceDefs } from '../index';
import { runScenario, type RunResult, type WorldSnapshot } from '../engine/run';
import { World } from '../engine/world';
import { parseScenario } from '../scenario/migrate';
import type { Scenario } from '../scenario/schema';
import { ITEMS, BEGIN, COMMIT, adv, setStock, dbWith } from '../testing/dbFixture';
import { ConnectionPool } from './connectionPool';
import { Database } from './database';
import { Destination } from './destination';
import type { QueueMessageSnapshot } from './messageQueue';
import { PoolResource, SqlResource, type PoolCmd } from './builtinResources';

const fixture = (name: string): Scenario => {
  const r = parseScenario(JSON.parse(readFileSync(new URL(`../scenario/fixtures/${name}.json`, import.meta.url), 'utf8')));
  if (!r.ok) throw new Error(r.errors.map((e) => `${e.path}: ${e.message}`).join('\n'));
  return r.scenario;
};
type Ev = RunResult['events'][number];
/** `<ms> <actor> <command> → <reply> | <narration>` (command and reply left out when absent). */
const lines = (r: RunResult, keep: (e: Ev) => boolean = () => true) =>
  r.events.filter(keep).map((e) => `${e.atMs} ${e.actor} ${e.command === undefined ? '' : `${e.command} → ${e.reply} `}| ${e.narration}`);
const poolEvents = (e: Ev) => e.kind === 'pool';

/** A run of `steps` that borrows, holds a transaction open for `ms` and gives the connection back. */
const txnSteps = (ms: number): Scenario['workers'][number]['steps'] => [{ do: 'connect' }, { do: 'begin' }, { do: 'work', ms }, { do: 'commit' }, { do: 'disconnect' }];

describe('the registry and the trace', () => {
  it('every built-in resource carries the name it is registered under, and every event that calls it carries its trace kind', () => {
    const world = new World(findPreset('invoice-race')!.withoutFix);
    expect(resourceDefs().map((d) => [d.name, world.resource(d.name).name])).toEqual([
      ['redis', 'redis'], ['db', 'db'], ['destination', 'destination'], ['pool', 'pool'], ['pooler', 'pooler'], ['queue', 'queue'], ['etcd', 'etcd'],
    ]);
    const seen = new Set<string>();
    const runs = [...PRESETS.flatMap((p) => [p.withoutFix, p.withFix]), fixture('scenario-v2-etcd'), fixture('scenario-v2-pooler'), fixture('scenario-v2-pooler-crash')];
    for (const s of runs) {
      const w = new World(s);
      for (const e of runScenario(s).events) {
        if (e.call === undefined) continue;
        seen.add(e.call.resource);
        // The timeline puts an event in the lane family of its kind: a resource's calls land in its own.
        expect(`${e.call.resource}: ${e.kind}`).toBe(`${e.call.resource}: ${w.resource(e.call.resource).traceKind}`);
      }
    }
    expect([...seen].sort()).toEqual(['db', 'destination', 'etcd', 'pool', 'pooler', 'queue', 'redis']);
  });
});

describe('SqlResource (PostgreSQL)', () => {
  const sql = () => new SqlResource(dbWith([ITEMS], 'c1', 'c2'));

  it('a COMMIT carries the rows as it left them, not as the UPDATE it let through left them; that UPDATE\'s completion carries its own', () => {
    const r = sql();
    r.execute(0, 'c1', BEGIN);
    r.execute(0, 'c1', setStock(1, 7));
    const waiting = r.execute(0, 'c2', setStock(1, 9));
    expect(r.renderReply(waiting.reply)).toBe('waits (row lock on items row id=1 held by session c1)');
    const commit = r.execute(0, 'c1', COMMIT);
    expect(r.renderReply(commit.reply)).toBe('COMMIT');
    expect(commit.committed).toEqual({ items: [{ id: 1, stock: 7 }, { id: 2, stock: 5 }] });
    expect(commit.completions).toEqual([{ caller: 'c2', command: setStock(1, 9), reply: expect.objectContaining({ status: 'ok' }), committed: { items: [{ id: 1, stock: 9 }, { id: 2, stock: 5 }] } }]);
    expect(r.renderReply(commit.completions[0]!.reply)).toBe('UPDATE 1');
  });

  it('an autocommit UPDATE carries its table\'s committed rows; a lock request carries none', () => {
    const r = sql();
    expect(r.execute(0, 'c1', setStock(2, 3)).committed).toEqual({ items: [{ id: 1, stock: 5 }, { id: 2, stock: 3 }] });
    expect(r.execute(0, 'c1', adv('pg_advisory_lock', 42)).committed).toBeUndefined();
  });

  it('a lock request that must wait is a reply that waits, answered later as a completion; the World refuses to take it as an answer', () => {
    const r = sql();
    const granted = r.execute(0, 'c1', adv('pg_advisory_lock', 42));
    expect(r.waits(granted.reply)).toBe(false);
    const queued = r.execute(0, 'c2', adv('pg_advisory_lock', 42));
    expect(r.waits(queued.reply)).toBe(true);
    expect(r.renderCommand(adv('pg_advisory_lock', 42))).toBe('SELECT pg_advisory_lock(42)');
    const unlock = r.execute(0, 'c1', adv('pg_advisory_unlock', 42));
    expect(r.waits(unlock.reply)).toBe(false);
    expect(unlock.completions.map((c) => [c.caller, r.renderReply(c.reply), r.waits(c.reply)])).toEqual([['c2', '(void)', false]]);

    // Through the World's generic call: an answer is traced; a wait must park a worker instead.
    const world = new World(findPreset('invoice-race')!.withoutFix);
    world.db.openSession('x1');
    world.db.openSession('x2');
    world.call('admin', world.sqlResource, adv('pg_advisory_lock', 7), () => 'admin locks 7.', undefined, 'x1');
    expect(world.events.at(-1)).toMatchObject({ kind: 'sql', command: 'SELECT pg_advisory_lock(7)', call: { resource: 'db', caller: 'x1' } });
    expect(() => world.call('admin', world.sqlResource, adv('pg_advisory_lock', 7), () => '', undefined, 'x2')).toThrow('resource db answered a call with a wait: park the worker instead');
  });

  it('its snapshot is the database as it stands: restored, it still holds the lock and refuses the other session', () => {
    const r = sql();
    r.execute(0, 'c1', adv('pg_advisory_lock', 42));
    const restored = Database.fromSnapshot(r.snapshot());
    expect(restored.sessionState('c1').advisoryLocks.map((l) => l.key)).toEqual(['42']);
    expect(restored.execute('c2', adv('pg_try_advisory_lock', 42)).reply).toMatchObject({ status: 'ok', rows: [{ pg_try_advisory_lock: 'f' }] });
  });

  it('it never changes on its own: no wake-up, and a wake-up (were there one) neither grants nor cancels a waiting statement', () => {
    const r = sql();
    r.execute(0, 'c1', adv('pg_advisory_lock', 42));
    r.execute(0, 'c2', adv('pg_advisory_lock', 42));
    expect(r.nextWakeMs()).toBeNull();
    expect(r.wake()).toEqual([]);
    expect(r.db.sessionState('c2').waiting).not.toBeNull();
  });
});

describe('DestinationResource (file store / external API)', () => {
  it('a request sent through the World is answered at once with the write: its request line and reply are traced', () => {
    const world = new World(findPreset('invoice-race')!.withoutFix);
    const dest = world.destinationResource;
    const write = world.call('A', dest, { op: 'begin', token: 33, idempotencyKey: null }, (w) => `A starts write #${w.id}.`);
    expect(world.events.at(-1)).toMatchObject({ kind: 'destination', command: `${dest.destination.renderRequest(33, null)}`, reply: '(pending: no reply yet)', narration: 'A starts write #1.', call: { resource: 'destination', caller: 'A' } });
    expect(world.events.at(-1)!.command).toMatch(/ Fencing-Token: 33$/);
    // The writer died: nothing is sent, so there is no request line; the reply says what became of the write.
    world.call('A', dest, { op: 'abort', writeId: write.id }, () => 'A dies mid-write.');
    expect(world.events.at(-1)).toMatchObject({ command: '', reply: write.reply });
    expect(dest.renderCommand({ op: 'abort', writeId: write.id })).toBe('');
    expect(dest.nextWakeMs()).toBeNull();
    expect(dest.wake()).toEqual([]);
  });

  it('the snapshot shows every write with its outcome, as the destination saw it then', () => {
    const p = findPreset('crash-after-effect') ?? PRESETS.find((x) => x.withoutFix.destination.kind === 'api')!;
    const r = runScenario(p.withoutFix, { captureSnapshots: true });
    const last = r.snapshots!.at(-1)!;
    const writes = r.events.filter((e) => e.kind === 'destination' && e.data?.t === 'write' && e.data.phase === 'begin');
    expect(writes.length).toBeGreaterThan(0);
    expect(last.destination.writes.map((w) => w.worker)).toEqual(writes.map((e) => e.actor));
    expect(last.destination.writes.every((w) => w.status !== 'inFlight')).toBe(true);
    // Before the first write, the destination has none.
    expect(r.snapshots![0]!.destination).toEqual({ highestTokenAccepted: null, writes: [] });
    // A copy: a later write does not change an earlier snapshot.
    const firstWrite = r.snapshots!.findIndex((s) => s.destination.writes.length > 0);
    expect(r.snapshots![firstWrite]!.destination.writes[0]!.status).toBe('inFlight');
    expect(new Destination(p.withoutFix.destination).snapshot()).toEqual({ highestTokenAccepted: null, writes: [] });
  });
});

describe('PoolResource (the application\'s pools)', () => {
  /** web-1 (c1), web-2 (c2, c3) and the shared pool (c4), numbered across them. */
  const pools = () => {
    const ids = { next: 1 };
    const open = () => undefined;
    const processPools = new Map([['web-1', new ConnectionPool(1, open, 'c', ids)], ['web-2', new ConnectionPool(2, open, 'c', ids)]]);
    return new PoolResource(new ConnectionPool(1, open, 'c', ids), processPools);
  };

  it('a connection returned to a process\'s pool goes to that pool\'s waiter, answering the waiter\'s own connect', () => {
    const p = pools();
    expect(p.execute(0, 'A', { op: 'connect', process: 'web-1' }).reply).toEqual({ status: 'ok', connection: 'c1' });
    const wait = p.execute(0, 'B', { op: 'connect', process: 'web-1' });
    expect(wait.reply).toEqual({ status: 'waits', position: 1 });
    expect(p.waits(wait.reply)).toBe(true);
    expect(p.renderReply(wait.reply)).toBe('waits (pool exhausted)');
    const back = p.execute(0, 'A', { op: 'release', connection: 'c1' });
    expect(p.waits(back.reply)).toBe(false);
    expect(p.renderReply(back.reply)).toBe('ok');
    expect(back.completions).toEqual([{ caller: 'B', command: { op: 'connect', process: 'web-1' }, reply: { status: 'ok', connection: 'c1' } }]);
    expect(p.processOf('c1')).toBe('web-1');
    expect(p.processOf('c3')).toBe('web-2');
    expect(p.processOf('c4')).toBeUndefined();
  });

  it('the shared pool\'s waiter is answered with a plain connect', () => {
    const p = pools();
    p.execute(0, 'A', { op: 'connect' });
    p.execute(0, 'B', { op: 'connect' });
    expect(p.execute(0, 'A', { op: 'release', connection: 'c4' }).completions).toEqual([{ caller: 'B', command: { op: 'connect' }, reply: { status: 'ok', connection: 'c4' } }]);
  });

  it('a discarded connection is replaced in its own pool, and the replacement goes to that pool\'s waiter', () => {
    const p = pools();
    p.execute(0, 'A', { op: 'connect', process: 'web-1' });
    p.execute(0, 'B', { op: 'connect', process: 'web-1' });
    const closed: string[] = [];
    expect(p.discard('c1', (id) => closed.push(id))).toEqual([{ caller: 'B', command: { op: 'connect', process: 'web-1' }, reply: { status: 'ok', connection: 'c5' } }]);
    expect(closed).toEqual(['c1']);
    expect(p.processOf('c5')).toBe('web-1');
    // With no waiter the replacement is idle.
    p.execute(0, 'C', { op: 'connect' });
    expect(p.discard('c4', () => undefined)).toEqual([]);
    expect(p.execute(0, 'C', { op: 'connect' }).reply).toEqual({ status: 'ok', connection: 'c6' });
  });

  it('a waiter that stops waiting leaves the queue of whichever pool it waited in', () => {
    const p = pools();
    p.execute(0, 'A', { op: 'connect', process: 'web-1' });
    p.execute(0, 'B', { op: 'connect', process: 'web-1' });
    p.execute(0, 'C', { op: 'connect' });
    p.execute(0, 'D', { op: 'connect' });
    expect(p.snapshot().waiting).toEqual(['B', 'D']);
    p.cancelWait('B');
    p.cancelWait('D');
    expect(p.snapshot().waiting).toEqual([]);
    expect(p.execute(0, 'A', { op: 'release', connection: 'c1' }).completions).toEqual([]);
  });

  it('its snapshot lists every process\'s connections with their process, then the shared pool\'s, and every queue', () => {
    const p = pools();
    p.execute(0, 'A', { op: 'connect', process: 'web-2' });
    p.execute(0, 'B', { op: 'connect' });
    p.execute(0, 'C', { op: 'connect' });
    expect(p.snapshot()).toEqual({
      connections: [{ id: 'c1', borrower: null, process: 'web-1' }, { id: 'c2', borrower: 'A', process: 'web-2' }, { id: 'c3', borrower: null, process: 'web-2' }, { id: 'c4', borrower: 'B' }],
      waiting: ['C'],
    });
    // Without processes it is the one pool's.
    const one = new PoolResource(new ConnectionPool(1, () => undefined));
    one.execute(0, 'A', { op: 'connect' });
    expect(one.snapshot()).toEqual({ connections: [{ id: 'c1', borrower: 'A' }], waiting: [] });
  });

  it('renders each command and reply as node-postgres does; a process it does not have, or a destroy without discard, is refused', () => {
    const p = pools();
    const cmds: PoolCmd[] = [{ op: 'connect' }, { op: 'release', connection: 'c1' }, { op: 'destroy', connection: 'c1' }];
    expect(cmds.map((c) => p.renderCommand(c))).toEqual(['pool.connect()', 'client.release()', 'connection.destroy()']);
    expect([{ status: 'ok', connection: 'c2' } as const, { status: 'closed' } as const, { status: 'timeout' } as const].map((r) => p.renderReply(r))).toEqual(['c2', 'closed', 'Error: timeout exceeded when trying to connect']);
    expect(() => p.poolFor('web-9')).toThrow('no process "web-9" in this scenario\'s processes');
    expect(p.poolFor(undefined)).toBe(p.pool);
    // A destroy must close the session too (discard): as a command it changes nothing.
    p.execute(0, 'A', { op: 'connect', process: 'web-1' });
    expect(() => p.execute(0, 'A', { op: 'destroy', connection: 'c1' })).toThrow('a connection is destroyed with discard(), which also closes its database session');
    expect(p.snapshot().connections[0]).toEqual({ id: 'c1', borrower: 'A', process: 'web-1' });
    expect(p.nextWakeMs()).toBeNull();
    expect(p.wake()).toEqual([]);
  });
});

describe('pools built from a scenario with processes (fixtures/scenario-v2-processes.json)', () => {
  const s = fixture('scenario-v2-processes');
  const noTimeout: Scenario['processes'] = [{ id: 'web-1', poolSize: 1 }, { id: 'web-2', poolSize: 2 }];

  it('when every worker names a process there is no shared pool: the snapshot shows only the processes\' connections', () => {
    const r = runScenario(s, { captureSnapshots: true });
    expect(r.snapshots![0]!.pool).toEqual({ connections: [{ id: 'c1', borrower: 'A', process: 'web-1' }, { id: 'c2', borrower: null, process: 'web-2' }, { id: 'c3', borrower: null, process: 'web-2' }], waiting: [] });
    const waiting = r.snapshots!.find((x) => x.pool.waiting.length > 0)!;
    expect(waiting.pool).toEqual({ connections: [{ id: 'c1', borrower: 'A', process: 'web-1' }, { id: 'c2', borrower: null, process: 'web-2' }, { id: 'c3', borrower: null, process: 'web-2' }], waiting: ['B'] });
  });

  it('a worker without a process borrows from the shared pool, numbered after the processes\' connections', () => {
    const r = runScenario({ ...s, processes: noTimeout, database: { poolSize: 1 }, workers: [...s.workers, { id: 'D', startMs: 0, steps: txnSteps(100) }] }, { captureSnapshots: true });
    expect(lines(r, (e) => e.actor === 'D' && e.kind === 'pool')).toEqual([
      '0 D pool.connect() → c4 | D borrows connection c4 from the shared pool (1 of 1 in use: c4 by D).',
      '100 D client.release() → ok | D returns connection c4 to the shared pool.',
    ]);
    expect(r.snapshots![0]!.pool.connections.map((c) => `${c.id}:${c.process ?? 'shared'}`)).toEqual(['c1:web-1', 'c2:web-2', 'c3:web-2', 'c4:shared']);
    expect(r.events.find((e) => e.actor === 'D' && e.kind === 'pool')?.call).toEqual({ resource: 'pool', caller: 'D', command: { op: 'connect' }, reply: { status: 'ok', connection: 'c4' } });
  });

  it('an acquire timeout is traced as node-postgres\'s error', () => {
    const r = runScenario(s);
    expect(lines(r, (e) => e.actor === 'B' && e.kind === 'pool').at(-1)).toBe('1100 B pool.connect() → Error: timeout exceeded when trying to connect | B gives up waiting for a connection from process web-1\'s pool after 1 s (the pool\'s acquire timeout): the pool throws "timeout exceeded when trying to connect".');
  });

  it('a holder that crashes has its connection closed; the replacement opens in its process\'s pool and goes to the waiter', () => {
    const r = runScenario({ ...s, processes: noTimeout, faults: [{ kind: 'crash', worker: 'A', atMs: 500, restartAfterMs: null }] });
    expect(lines(r, poolEvents)).toEqual([
      '0 A pool.connect() → c1 | A borrows connection c1 from process web-1\'s pool (1 of 1 in use: c1 by A).',
      '100 B pool.connect() → waits (pool exhausted) | Every connection of process web-1\'s pool is in use (1 of 1: c1 by A): B waits for one (position 1 in the queue).',
      '100 C pool.connect() → c2 | C borrows connection c2 from process web-2\'s pool (1 of 2 in use: c2 by C).',
      '200 C client.release() → ok | C returns connection c2 to process web-2\'s pool.',
      '500 A connection.destroy() → closed | A closes connection c1; its session ends, which releases every lock it held.',
      '500 B pool.connect() → c4 | B gets connection c4 after waiting 400 ms for process web-1\'s pool.',
      '600 B client.release() → ok | B returns connection c4 to process web-1\'s pool.',
    ]);
  });

  it('a waiter that crashes leaves the queue: the connection goes to the next waiter', () => {
    const E = { id: 'E', process: 'web-1', startMs: 200, steps: txnSteps(100) };
    const r = runScenario({ ...s, processes: noTimeout, workers: [...s.workers, E], faults: [{ kind: 'crash', worker: 'B', atMs: 500, restartAfterMs: null }] });
    expect(lines(r, (e) => e.kind === 'pool' && e.actor !== 'C')).toEqual([
      '0 A pool.connect() → c1 | A borrows connection c1 from process web-1\'s pool (1 of 1 in use: c1 by A).',
      '100 B pool.connect() → waits (pool exhausted) | Every connection of process web-1\'s pool is in use (1 of 1: c1 by A): B waits for one (position 1 in the queue).',
      '200 E pool.connect() → waits (pool exhausted) | Every connection of process web-1\'s pool is in use (1 of 1: c1 by A): E waits for one (position 2 in the queue).',
      '2000 A client.release() → ok | A returns connection c1 to process web-1\'s pool.',
      '2000 E pool.connect() → c1 | E gets connection c1 after waiting 1.8 s for process web-1\'s pool.',
      '2100 E client.release() → ok | E returns connection c1 to process web-1\'s pool.',
    ]);
  });

  it('the same crash of a waiter in the one pool of a scenario without processes', () => {
    const base = findPreset('invoice-race')!.withoutFix;
    const one: Scenario = {
      ...base, horizonMs: 5_000, database: { ...base.database, poolSize: 1 }, faults: [{ kind: 'crash', worker: 'B', atMs: 500, restartAfterMs: null }],
      workers: [{ id: 'A', startMs: 0, steps: txnSteps(2_000) }, { id: 'B', startMs: 100, steps: txnSteps(100) }, { id: 'E', startMs: 200, steps: txnSteps(100) }],
    };
    const r = runScenario(one);
    expect(lines(r, (e) => e.kind === 'pool' && e.actor === 'E')).toEqual([
      '200 E pool.connect() → waits (pool exhausted) | Every connection is lent out: E waits for one (position 2 in the queue).',
      '2000 E pool.connect() → c1 | E gets connection c1 after waiting 1.8 s for the pool.',
      '2100 E client.release() → ok | E returns connection c1 to the pool.',
    ]);
  });
});

describe('the snapshot fields the registry adds', () => {
  it('the lease store starts with the fencing counter at fenceStart (no TTL), and without it when fenceStart is 0, as a fresh Redis has no counter', () => {
    const base = findPreset('export-lease-expiry')!.withFix;
    // The first event is A's SET of the lease: the counter is there before any INCR.
    const at0 = (s: Scenario) => runScenario(s, { captureSnapshots: true }).snapshots![0]!.leases.filter((k) => k.key === s.lease.fenceKey);
    expect(at0(base)).toEqual([{ key: base.lease.fenceKey, value: String(base.lease.fenceStart), expiresAtMs: null, pttlMs: -1 }]);
    expect(at0({ ...base, lease: { ...base.lease, fenceStart: 0 } })).toEqual([]);
  });

  it('a scenario with an SQS-like queue shows the queue in every snapshot', () => {
    const r = runScenario(findPreset('queue-redelivery')!.withoutFix, { captureSnapshots: true });
    expect(Object.keys(r.snapshots![0]!)).toContain('queue');
    const queueOf = (x: WorldSnapshot) => x.queue as readonly QueueMessageSnapshot[] | undefined;
    const taken = r.snapshots!.find((x) => queueOf(x)?.some((m) => m.state === 'inFlight'));
    expect(taken === undefined ? undefined : queueOf(taken)).toEqual([{ messageId: 'm1', body: 'charge-order-42', state: 'inFlight', receivedBy: 'A', invisibleUntilMs: 30_000, receiveCount: 1 }]);
    // A table queue is rows of the database: no queue field.
    expect(Object.keys(runScenario(findPreset('skip-locked-claim')!.withoutFix, { captureSnapshots: true }).snapshots![0]!)).not.toContain('queue');
  });
});
