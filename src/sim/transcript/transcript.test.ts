import { describe, expect, it } from 'vitest';
import { PRESETS, findPreset, parseScenario, runScenario, type Scenario } from '../index';
import { LeaseStore } from '../resources/leaseStore';
import { COMPARE_AND_DELETE_SCRIPT, COMPARE_AND_EXTEND_SCRIPT, renderRedisReply, type RedisCmd } from '../resources/redisTypes';
import { splitCliArgs } from '../../../fidelity/presetReplay';
import { buildTranscript, redisFilesPipeable, deadlockVictimEvents, FAILOVER_ACTOR, FORCED_EXPIRY_ACTOR, PGBOUNCER_ACTOR, REPLAY_LIMIT_WHY, REPLICA_PORT, REPLICA_SESSION, TTL_WAIT_MARGIN_MS, renderSessionScript, renderTranscript, replayCoverage, stepRanges, stepRangesText, transcriptTools, TRANSCRIPT_LONG_DEADLOCK_TIMEOUT, type TranscriptStep } from './transcript';

const variants = PRESETS.flatMap((p) => (['withoutFix', 'withFix'] as const).map((v) => ({ label: `${p.id} (${v})`, scenario: p[v] })));
const steps = (s: Scenario): TranscriptStep[] => buildTranscript(runScenario(s)).entries.filter((e): e is TranscriptStep => e.kind !== 'note');

describe('buildTranscript: every command of the run, in trace order, with the reply the run got', () => {
  it.each(variants)('$label: each SQL and Redis event is one step whose line and expectation are the event\'s command and reply', ({ scenario }) => {
    const run = runScenario(scenario);
    const t = buildTranscript(run);
    const byEvent = new Map(t.entries.filter((e) => e.kind !== 'note' && e.eventId !== null).map((e) => [e.eventId, e]));
    for (const e of run.events) {
      const cutOff = e.call?.resource === 'redis' && 'cutOff' in e.call && e.call.cutOff === true;
      if ((e.kind !== 'sql' && e.kind !== 'redis') || cutOff) continue;
      const s = byEvent.get(e.id);
      expect(s, `${e.id} ${e.command}`).toBeDefined();
      if (!s || s.kind === 'note') continue;
      if (s.kind === 'redis') expect([s.line, s.expect]).toEqual([e.command, e.reply]);
      else if (s.kind === 'sql' || s.kind === 'sqlReturns') expect([s.sql, s.expect]).toEqual([e.command, e.reply]);
      else throw new Error(`${e.id} became a ${s.kind} step`);
    }
    // Numbered 1…N in trace order.
    const ns = t.entries.flatMap((e) => (e.kind === 'note' ? [] : [e.n]));
    expect(ns).toEqual(ns.map((_, i) => i + 1));
  });

  it.each(variants)('$label: a statement that blocks returns at a later step of its own session, which names it', ({ scenario }) => {
    const all = steps(scenario);
    for (const s of all) {
      if (s.kind === 'sql' && s.blocks) {
        expect(s.expect.startsWith('waits (')).toBe(true);
        if (s.returnsAt === undefined) continue;
        const r = all.find((x) => x.n === s.returnsAt);
        expect(r).toMatchObject({ kind: 'sqlReturns', session: s.session, statement: s.n, sql: s.sql });
        expect(r!.n).toBeGreaterThan(s.n);
      }
      if (s.kind === 'sqlReturns') expect(all.find((x) => x.n === s.statement)).toMatchObject({ kind: 'sql', blocks: true, returnsAt: s.n });
    }
  });

  it('is deterministic: the same scenario gives the same text, byte for byte', () => {
    const p = findPreset('lock-order-deadlock')!;
    expect(renderTranscript(buildTranscript(runScenario(p.withoutFix)))).toBe(renderTranscript(buildTranscript(runScenario(p.withoutFix))));
  });
});

describe('the deadlock: the server must pick the statement the run\'s check failed', () => {
  // Run in each test, not in the describe body: a run made while Vitest collects counts as no test's
  // coverage, so `npm run mutate` would treat every mutant it reaches as static (a reload and the
  // whole suite each).
  const deadlock = () => {
    const run = runScenario(findPreset('lock-order-deadlock')!.withoutFix);
    return { run, t: buildTranscript(run) };
  };

  it('sets the scenario\'s deadlock_timeout in that session just before that statement, and a long one in every session', () => {
    const { run, t } = deadlock();
    const victim = [...deadlockVictimEvents(run.events)];
    expect(victim).toHaveLength(1);
    const i = t.entries.findIndex((e) => e.kind === 'sql' && e.eventId === victim[0]);
    const setting = t.entries[i - 1];
    expect(setting).toMatchObject({ kind: 'sqlSetting', session: 'c1', sql: "SET deadlock_timeout = '1000ms'", expect: 'SET' });
    expect(t.sessions.filter((s) => s.client === 'psql').map((s) => [s.id, s.preamble])).toEqual([
      ['c1', [`SET deadlock_timeout = '${TRANSCRIPT_LONG_DEADLOCK_TIMEOUT}'`]],
      ['c2', [`SET deadlock_timeout = '${TRANSCRIPT_LONG_DEADLOCK_TIMEOUT}'`]],
    ]);
  });

  it('writes the blocked statement as "(blocks)" and the 40P01 under the step where it returns', () => {
    const { t } = deadlock();
    const text = renderTranscript(t, 'without the fix');
    expect(text).toContain('SELECT pg_advisory_xact_lock(2);\n-- expect: (blocks) waits (advisory lock 2 held by session c2) — returns at step 8');
    expect(text).toMatch(/-- 8\. c1 \(A\) at 1\.1 s: step 6 returns\n-- expect: ERROR 40P01 deadlock detected \(Process c1 waits .*\n--\s+Process c2 waits/);
  });

  it('adds no deadlock_timeout where the run has no deadlock', () => {
    const fixed = buildTranscript(runScenario(findPreset('lock-order-deadlock')!.withFix));
    expect(fixed.entries.some((e) => e.kind === 'sqlSetting')).toBe(false);
    expect(fixed.sessions.every((s) => s.preamble.length === 0)).toBe(true);
  });
});

describe('SET deadlock_timeout needs a superuser or GRANT SET ON PARAMETER on PostgreSQL 15 (issue 13)', () => {
  const GRANT = 'GRANT SET ON PARAMETER deadlock_timeout TO <you>;';
  const setsIt = (text: string) => text.split('\n').some((l) => l.startsWith('SET deadlock_timeout'));
  it.each(variants)('$label: the transcript and each psql file say so exactly when they set it', ({ scenario }) => {
    const t = buildTranscript(runScenario(scenario));
    const text = renderTranscript(t);
    expect(text.includes(GRANT), 'transcript header').toBe(setsIt(text));
    if (setsIt(text)) expect(text.slice(0, text.indexOf('-- ==== '))).toContain('Connect as a superuser');
    for (const s of t.sessions.filter((x) => x.client === 'psql')) {
      const file = renderSessionScript(t, s.id);
      expect(file.includes(GRANT), `${s.id} file`).toBe(setsIt(file));
      if (setsIt(file)) expect(file.indexOf(GRANT)).toBeLessThan(file.indexOf('\nSET deadlock_timeout'));
    }
  });
  it('lock-order-deadlock sets it, so its header and both session files say how to be allowed to', () => {
    const t = buildTranscript(runScenario(findPreset('lock-order-deadlock')!.withoutFix));
    expect(renderTranscript(t)).toContain(GRANT);
    for (const id of ['c1', 'c2']) expect(renderSessionScript(t, id)).toContain(GRANT);
  });
});

describe('what cannot be typed becomes a comment', () => {
  it('a TTL running out is a wait in real time, counted from the step that set the TTL, before the SET it lets through', () => {
    const t = buildTranscript(runScenario(findPreset('export-lease-expiry')!.withoutFix));
    const i = t.entries.findIndex((e) => e.kind === 'note' && e.redisTiming);
    expect(t.entries[i]).toMatchObject({ atMs: 30_000, wait: { afterStep: 1, ms: 30_000 + TTL_WAIT_MARGIN_MS, key: 'lease:export', ttlMs: 30_000 } });
    expect(t.entries[i]).not.toHaveProperty('replayLimit');
    expect(t.entries[i]!.kind === 'note' && t.entries[i]!.text).toMatch(/^wait until 30\.5 s after step 1 \(real time\): the TTL of lease:export \(30 s, set by step 1\) runs out/);
    // The wait is in the whole transcript, which says the redis-cli file cannot be piped here.
    expect(renderTranscript(t)).toContain('--   Do not pipe the redis-cli files: this run needs real-time waits.');
    expect(t.entries[i + 1]).toMatchObject({ kind: 'redis', actor: 'B', expect: 'OK' });
    // The pause and the destination are notes, never steps.
    const notes = t.entries.filter((e) => e.kind === 'note').map((e) => (e.kind === 'note' ? e.text : ''));
    expect(notes.some((n) => n.startsWith('fault (pause): A pauses for 40 s') && n.endsWith('Not replayable: it happens outside the servers; the steps that follow show what they see of it.'))).toBe(true);
    expect(notes.some((n) => n.includes('the destination') && n.includes('PUT exports/'))).toBe(true);
    expect(t.redisSetup.map((x) => x.line)).toEqual(['DEL fence:export lease:export', 'SET fence:export 32']);
  });

  it('a command of a worker cut off from Redis is a note, not a command to type', () => {
    const run = runScenario(findPreset('renew-partition')!.withoutFix);
    const cutOff = run.events.filter((e) => e.call?.resource === 'redis' && 'cutOff' in e.call && e.call.cutOff);
    expect(cutOff.length).toBeGreaterThan(0);
    const t = buildTranscript(run);
    for (const e of cutOff) expect(t.entries.find((x) => x.eventId === e.id)).toMatchObject({ kind: 'note', redisTiming: false });
  });

  it('the etcd lock service is outside what a transcript replays: each etcdctl request is a note with its literal line and reply, never a step', async () => {
    const { readFileSync } = await import('node:fs');
    const { parseScenario } = await import('../scenario/migrate');
    const parsed = parseScenario(JSON.parse(readFileSync(new URL('../scenario/fixtures/scenario-v2-etcd.json', import.meta.url), 'utf8')));
    if (!parsed.ok) throw new Error('the etcd fixture does not validate');
    const run = runScenario(parsed.scenario);
    const t = buildTranscript(run);
    expect(t.entries.filter((e) => e.kind !== 'note')).toEqual([]);
    expect(t.sessions).toEqual([]);
    const notes = t.entries.flatMap((e) => (e.kind === 'note' ? [e.text] : []));
    expect(notes[0]).toBe('A → etcd (not replayed by this transcript: lease ids are the server\'s and TTLs run in real time): `etcdctl lease grant 10` → lease 694d71ddacfda227 granted with TTL(10s)');
    expect(notes).toContain('(10 s, virtual time) Lease 694d71ddacfda227 (A\'s) was not kept alive for its TTL of 10 s: etcd revokes it and deletes locks/export (revision 34). Whoever believes they hold the lock no longer does, and anyone may take it. In etcd the lease runs out in real time, and etcd revokes it within about half a second.');
    expect(run.events.filter((e) => e.kind === 'etcd').every((e) => t.entries.some((x) => x.eventId === e.id && x.kind === 'note'))).toBe(true);
  });

  it('a destroyed connection ends its session', () => {
    const run = runScenario(findPreset('crash-after-effect')!.withFix);
    const t = buildTranscript(run);
    expect(t.entries.filter((e) => e.kind === 'sqlEnd')).toMatchObject([{ session: 'c1', actor: 'A' }]);
    expect(renderTranscript(t)).toContain('\\q\n-- the pool destroys connection c1');
  });
});

describe('renderSessionScript: one file per session', () => {
  const deadlock = () => buildTranscript(runScenario(findPreset('lock-order-deadlock')!.withoutFix));

  it('holds only that session\'s typed lines, each after the step of another session it follows', () => {
    const t = deadlock();
    const c2 = renderSessionScript(t, 'c2');
    const typed = c2.split('\n').filter((l) => l !== '' && !l.startsWith('--'));
    expect(typed).toEqual([`SET deadlock_timeout = '${TRANSCRIPT_LONG_DEADLOCK_TIMEOUT}';`, 'BEGIN;', 'SELECT pg_advisory_xact_lock(2);', 'SELECT pg_advisory_xact_lock(1);', 'SELECT balance FROM accounts WHERE id = 1;', 'UPDATE accounts SET balance = 50 WHERE id = 1;', 'COMMIT;']);
    expect(c2).toContain('-- step 7 (after step 6 in c1)\nSELECT pg_advisory_xact_lock(1);');
    // The tables are created once, in the first session's file.
    expect(renderSessionScript(t, 'c1')).toContain('CREATE TABLE accounts');
  });

  it('refuses a session the transcript has not', () => {
    const r = buildTranscript(runScenario(findPreset('export-lease-expiry')!.withoutFix));
    expect(() => renderSessionScript(r, 'c9')).toThrow(/no session c9 in this transcript \(sessions: redis\)/);
  });

  // redis-cli has no comment syntax: a `#` line is `ERR unknown command '#'` (issue 13).
  it.each(variants)('$label: every line of a redis-cli file is a command redis-cli accepts — its setup and steps, in order, split back to their argv', ({ scenario }) => {
    const t = buildTranscript(runScenario(scenario));
    for (const s of t.sessions.filter((x) => x.client === 'redis-cli')) {
      const lines = renderSessionScript(t, s.id).split('\n');
      expect(lines.pop(), 'ends with a newline').toBe('');
      const setup = s.id === REPLICA_SESSION ? t.replicaSetup : t.redisSetup;
      const argvs = [...setup.map((x) => x.argv), ...t.entries.flatMap((e) => (e.kind === 'redis' && e.session === s.id ? [e.argv] : []))];
      expect(lines.map(splitCliArgs), s.id).toEqual(argvs);
      for (const l of lines) expect(l, s.id).toMatch(/^(SET|DEL|EVAL|GET|PEXPIRE|PTTL|INCR|WAIT|REPLICAOF) /);
    }
    const header = renderTranscript(t).split('-- ==== ')[0]!;
    if (transcriptTools(t).redisCli) expect(header).toContain(redisFilesPipeable(t) ? '`redis-cli < file` runs them' : 'Do not pipe the redis-cli files');
    // Afterwards: the run's keys deleted on the primary (every key a step names is in the setup's DEL), the replica stopped.
    const del = t.redisSetup.find((x) => x.argv[0] === 'DEL');
    if (del !== undefined) expect(header).toContain(`redis-cli ${del.line}`);
    if (t.replicaSetup.length > 0) expect(header).toContain(`redis-cli -p ${REPLICA_PORT} shutdown nosave`);
  });
});

describe('what a transcript does not replay is said, at the top and where it occurs', () => {
  it.each(variants)('$label: every call of the run is a step or a note naming it; the header lists each kind left out', ({ scenario }) => {
    const run = runScenario(scenario);
    const t = buildTranscript(run);
    const byEvent = new Map(t.entries.filter((e) => e.eventId !== null).map((e) => [e.eventId, e]));
    for (const e of run.events) {
      if (!e.call) continue;
      expect(byEvent.has(e.id), `${e.id} (${e.call.resource}) is left out silently`).toBe(true);
    }
    const outside = (resource: string) => run.events.some((e) => e.call?.resource === resource);
    expect(t.notReplayed.some((x) => x.startsWith('the SQS queue'))).toBe(outside('queue'));
    expect(t.notReplayed.some((x) => x.startsWith('the destination'))).toBe(outside('destination'));
    expect(t.notReplayed.some((x) => x.startsWith('faults'))).toBe(run.events.some((e) => e.kind === 'fault'));
    const text = renderTranscript(t);
    for (const x of t.notReplayed) expect(text).toContain(`--   ${x}\n`);
    expect(text.includes('-- Not replayed:')).toBe(t.notReplayed.length > 0);
  });

  it('queue-redelivery: each ReceiveMessage, DeleteMessage and ChangeMessageVisibility is a note saying it is not replayed; no session, nothing to type', () => {
    for (const v of ['withoutFix', 'withFix'] as const) {
      const run = runScenario(findPreset('queue-redelivery')![v]);
      const t = buildTranscript(run);
      expect(t.sessions).toEqual([]);
      const queueCalls = run.events.filter((e) => e.call?.resource === 'queue');
      expect(queueCalls.length).toBeGreaterThan(0);
      for (const e of queueCalls) {
        const n = t.entries.find((x) => x.eventId === e.id);
        expect(n?.kind).toBe('note');
        expect(n?.kind === 'note' && n.text).toContain(`→ the SQS queue charges (Lockscope's model of SQS, not replayed): ${e.command} → ${e.reply}`);
      }
      const ops = (op: string) => queueCalls.filter((e) => (e.call!.command as { op: string }).op === op).length;
      const text = renderTranscript(t);
      expect(text).toContain('-- Sessions: none. This run sends nothing to PostgreSQL or Redis');
      expect(text).toContain(`--   the SQS queue charges (Lockscope's model of SQS, no server): ReceiveMessage ×${ops('ReceiveMessage')}`);
      if (v === 'withFix') expect(text).toMatch(/ChangeMessageVisibility(, |$)/m);
    }
  });

  it('a session\'s own file says what the transcript leaves out too', () => {
    const t = buildTranscript(runScenario(findPreset('serializable-retry')!.withoutFix));
    expect(renderSessionScript(t, 'c1')).toContain('--   the destination POST /v1/charges (an external API, no server): 3 requests');
  });
});

describe('where a replay on one server stops being meaningful (issue 13)', () => {
  it('failover-fence without the fix: the failover on a real replica — replication broken where the run\'s replica stopped, the later steps sent to the promoted replica', () => {
    const t = buildTranscript(runScenario(findPreset('failover-fence')!.withoutFix));
    expect(replayCoverage(t)).toEqual({ total: 9, replayable: [1, 2, 3, 4, 5, 6, 7, 8, 9], stop: null });
    expect(t.replicaSetup.map((x) => x.line)).toEqual(['REPLICAOF 127.0.0.1 6379']);
    expect(t.sessions.map((x) => x.id)).toEqual(['redis', REPLICA_SESSION]);
    const redis = t.entries.filter((e): e is Extract<TranscriptStep, { kind: 'redis' }> => e.kind === 'redis');
    // The replica lags 2 s and the failover is at 1.5 s: it has nothing of the run, so replication stops before step 3.
    expect(redis.slice(0, 2).map((e) => [e.n, e.session, e.line, e.expect, e.actor])).toEqual([[1, 'redis', 'WAIT 1 0', '(integer) 1', FAILOVER_ACTOR], [2, REPLICA_SESSION, 'REPLICAOF NO ONE', 'OK', FAILOVER_ACTOR]]);
    const failover = t.entries.findIndex((e) => e.kind === 'note' && e.failover === true);
    for (const [i, e] of t.entries.entries()) if (e.kind === 'redis' && e.n > 2) expect(e.session, `step ${e.n}`).toBe(i < failover ? 'redis' : REPLICA_SESSION);
    // After the failover B takes the lease again and INCR gives 33 again: the replica never saw A's.
    expect(redis.filter((e) => e.session === REPLICA_SESSION && e.n > 2).slice(0, 2).map((e) => e.expect)).toEqual(['OK', '(integer) 33']);
    const text = renderTranscript(t);
    expect(text).not.toContain('stops being meaningful');
    expect(text).toContain(`--   ${REPLICA_SESSION} redis-cli -p ${REPLICA_PORT} (the replica`);
    expect(text).not.toMatch(/faults \(they happen outside the servers\): Redis failover/);
    expect(text).toContain('--   Do not pipe the redis-cli files: this run needs the failover between two servers.');
    // The replica's dump.rdb goes to a scratch directory, and the header says how to put things back (issue 13).
    expect(text).toContain(`redis-server --port ${REPLICA_PORT} --save '' --appendonly no --dir "$(mktemp -d)"`);
    expect(text).not.toMatch(/--appendonly no(?! --dir)/);
    expect(text).toContain(`--   Afterwards: redis-cli -p ${REPLICA_PORT} shutdown nosave; redis-cli DEL fence:export lease:export.`);
    expect(renderSessionScript(t, REPLICA_SESSION)).toMatch(/^REPLICAOF 127\.0\.0\.1 6379\nREPLICAOF NO ONE\n/);
  });

  it('the break comes where the model\'s replica stopped: with no lag, just before the failover (every earlier write survives it)', () => {
    const base = findPreset('failover-fence')!.withoutFix;
    const t = buildTranscript(runScenario({ ...base, lease: { ...base.lease, replicationLagMs: 0 } }));
    const redis = t.entries.filter((e): e is Extract<TranscriptStep, { kind: 'redis' }> => e.kind === 'redis');
    const stopAt = redis.findIndex((e) => e.line === 'REPLICAOF NO ONE');
    expect(redis.slice(0, stopAt - 1).every((e) => e.atMs <= 1_500 && e.session === 'redis')).toBe(true);
    expect(redis.slice(stopAt + 1).every((e) => e.atMs > 1_500 && e.session === REPLICA_SESSION)).toBe(true);
    // Nothing lost: B's SET after the failover still finds A's lease.
    expect(redis[stopAt + 1]).toMatchObject({ actor: 'B', expect: '(nil)' });
  });

  it('a clock jump stays where the replay stops, with why: Redis expires by the server\'s wall clock', () => {
    const base = findPreset('unsafe-release')!.withoutFix;
    const t = buildTranscript(runScenario({ ...base, faults: [...base.faults, { kind: 'clockJump', atMs: 5_000, jumpMs: 20_000 }] }));
    const { stop } = replayCoverage(t);
    expect(stop).toMatchObject({ limit: 'clockJump', atMs: 5_000 });
    expect(renderTranscript(t)).toContain(`stops being meaningful at ${stop!.eventId} (5 s): ${REPLAY_LIMIT_WHY.clockJump}.`);
  });

  it.each(variants)('$label: every step is replayable or after the first note that needs Redis to do what no command does; the text names those steps', ({ scenario }) => {
    const t = buildTranscript(runScenario(scenario));
    const { total, replayable, stop } = replayCoverage(t);
    const all = t.entries.flatMap((e) => (e.kind === 'note' ? [] : [e]));
    expect(total).toBe(all.length);
    expect([...replayable, ...(stop?.steps ?? [])].sort((a, b) => a - b)).toEqual(all.map((e) => e.n));
    const firstLimit = t.entries.findIndex((e) => e.kind === 'note' && e.replayLimit !== undefined);
    // psql steps are always replayable; a redis-cli step is not exactly when it comes after the first limit.
    for (const [i, e] of t.entries.entries()) {
      if (e.kind === 'note') continue;
      expect(replayable.includes(e.n), `step ${e.n}`).toBe(e.kind !== 'redis' || firstLimit < 0 || i < firstLimit);
    }
    const text = renderTranscript(t);
    if (stop === null) expect(text).not.toContain('stops being meaningful');
    else {
      expect(text).toContain(`stops being meaningful at ${stop.eventId} (`);
      expect(text).toContain(`The redis-cli ${stepRangesText(stepRanges(stop.steps))} come after it`);
    }
  });

  it('stepRanges / stepRangesText', () => {
    expect(stepRanges([5, 1, 2, 3, 7, 8, 2])).toEqual([{ from: 1, to: 3 }, { from: 5, to: 5 }, { from: 7, to: 8 }]);
    expect(stepRangesText(stepRanges([4]))).toBe('step 4');
    expect(stepRangesText(stepRanges([1, 2, 3, 5, 7, 8]))).toBe('steps 1–3, 5 and 7–8');
    expect(stepRangesText([])).toBe('no steps');
  });
});

describe('behind PgBouncer, a step names the server session it ran on and says how the pooler is treated (issue 13)', () => {
  const base = findPreset('pooler-session-lock')!.withoutFix;
  it('pooler-session-lock: steps in s1/s2 with the client connection each came from; no note says a statement runs in session c1', () => {
    const run = runScenario(base);
    const t = buildTranscript(run);
    expect(t.sessions.map((s) => [s.id, s.pgbouncerClients])).toEqual([['s1', ['A via c1', 'B via c2']], ['s2', ['A via c1', 'C via c1']]]);
    const text = renderTranscript(t);
    expect(text).toContain('-- 4. s2 (A via PgBouncer client c1) at 1 s');
    expect(text).not.toMatch(/run in session c\d/);
    expect(text).toContain('bypassing PgBouncer');
    expect(t.notReplayed.some((x) => x.startsWith('PgBouncer (transaction mode, 2 server connections): its routing is not replayed'))).toBe(true);
  });

  it.each(variants.filter((v) => v.scenario.database.pooler !== undefined))('$label: each SQL step is in the session the statement ran on (call.caller), via its client (call.client)', ({ scenario }) => {
    const run = runScenario(scenario);
    const t = buildTranscript(run);
    const byId = new Map(run.events.map((e) => [e.id, e]));
    for (const e of t.entries) {
      if (e.kind !== 'sql' && e.kind !== 'sqlReturns') continue;
      const call = byId.get(e.eventId!)!.call as { caller: string; client?: string };
      expect([e.session, e.via]).toEqual([call.caller, call.client]);
    }
    for (const n of t.entries) if (n.kind === 'note') expect(n.text).not.toMatch(/statements run in session c\d/);
  });

  it('a client going: in session mode PgBouncer sends DISCARD ALL on its server connection; in a transaction (transaction mode) it closes it', () => {
    const discard = parseScenario({ ...base, database: { ...base.database, pooler: { mode: 'session', serverConnections: 2 } }, faults: [{ kind: 'crash', worker: 'A', restartAfterMs: null, atMs: 500 }] });
    const close = parseScenario({ ...base, faults: [...base.faults, { kind: 'crash', worker: 'B', restartAfterMs: null, atMs: 1000 }] });
    if (!discard.ok || !close.ok) throw new Error('scenario');
    const d = buildTranscript(runScenario(discard.scenario)).entries.find((e) => e.kind !== 'note' && e.actor === PGBOUNCER_ACTOR);
    expect(d).toMatchObject({ kind: 'sql', session: 's1', via: 'c1', sql: 'DISCARD ALL', expect: 'DISCARD ALL' });
    const c = buildTranscript(runScenario(close.scenario)).entries.filter((e) => e.kind !== 'note' && (e.kind === 'sqlEnd' || e.actor === PGBOUNCER_ACTOR));
    // Never a \q for the client connection c2 (not a session): the server connection it held.
    expect(c).toEqual([expect.objectContaining({ kind: 'sqlEnd', session: 's1', via: 'c2', actor: PGBOUNCER_ACTOR })]);
  });
});

describe('the header names only the tools the transcript uses (issue 13)', () => {
  it('failover-fence (Redis only) never mentions psql or PostgreSQL', () => {
    const text = renderTranscript(buildTranscript(runScenario(findPreset('failover-fence')!.withoutFix)));
    expect(text).toContain('(redis-cli Redis 7)');
    expect(text).not.toMatch(/psql|PostgreSQL/);
  });

  it.each(variants)('$label', ({ scenario }) => {
    const t = buildTranscript(runScenario(scenario));
    const tools = transcriptTools(t);
    // The header, without the line that says a run without sessions sends nothing to PostgreSQL or Redis (naming no tool to use).
    const header = renderTranscript(t).split('-- ==== ')[0]!.split('\n').filter((l) => !l.startsWith('-- Sessions: none.')).join('\n');
    expect(/psql|PostgreSQL/.test(header), 'psql').toBe(tools.psql);
    expect(/redis-cli|Redis \d/.test(header), 'redis-cli').toBe(tools.redisCli);
    expect(/etcdctl|etcd \d/.test(header), 'etcdctl').toBe(tools.etcdctl);
    for (const s of t.sessions) {
      const file = renderSessionScript(t, s.id).split('\n').slice(0, 4).join('\n');
      if (s.client === 'redis-cli') expect(file).not.toMatch(/psql|PostgreSQL/);
    }
  });
});

/** The command a redis-cli argv of a transcript step is (the commands the model speaks). */
function commandOf(argv: readonly string[]): RedisCmd {
  const [name = '', ...a] = argv;
  const upper = name.toUpperCase();
  if (upper === 'SET') {
    const opts = a.slice(2).map((x) => x.toUpperCase());
    const px = opts.indexOf('PX');
    return { op: 'SET', key: a[0]!, value: a[1]!, ...(opts.includes('NX') ? { nx: true } : {}), ...(opts.includes('XX') ? { xx: true } : {}), ...(px >= 0 ? { pxMs: Number(a[2 + px + 1]) } : {}), ...(opts.includes('KEEPTTL') ? { keepTtl: true } : {}) };
  }
  if (upper === 'DEL') return { op: 'DEL', keys: a };
  if (upper === 'GET' || upper === 'PTTL' || upper === 'INCR') return { op: upper, key: a[0]! };
  if (upper === 'PEXPIRE') return { op: 'PEXPIRE', key: a[0]!, ms: Number(a[1]) };
  if (upper === 'EVAL' && a[0] === COMPARE_AND_DELETE_SCRIPT) return { op: 'COMPARE_AND_DELETE', key: a[2]!, token: a[3]! };
  if (upper === 'EVAL' && a[0] === COMPARE_AND_EXTEND_SCRIPT) return { op: 'COMPARE_AND_EXTEND', key: a[2]!, token: a[3]!, ms: Number(a[4]) };
  throw new Error(`not a command of the model: ${argv.join(' ')}`);
}

describe('a reader who follows a transcript gets its replies: TTLs by real-time waits, the failover on a replica (issue 13)', () => {
  /**
   * The reader, emulated on the model's Redis (`LeaseStore`): every redis-cli step typed
   * `typingMs` after the one before, and at each "wait until … after step N" line a wait until
   * that long after step N — the reader's clock, not the run's. A failover transcript runs on two
   * stores: the replica executes what the primary does until `REPLICAOF NO ONE` (replication with
   * no lag), then only its own steps. Every reply must be the step's `expect`.
   */
  const follow = (t: ReturnType<typeof buildTranscript>, typingMs: number): string[] => {
    const stores = new Map([['redis', new LeaseStore()], [REPLICA_SESSION, new LeaseStore()]]);
    let replicating = t.replicaSetup.length > 0;
    let clock = 0;
    const at = new Map<number, number>();
    const wrong: string[] = [];
    const run = (session: string, argv: readonly string[]): string => {
      const cmd = commandOf(argv);
      const reply = renderRedisReply(stores.get(session)!.execute(clock, cmd));
      if (replicating && session === 'redis') stores.get(REPLICA_SESSION)!.execute(clock, cmd);
      return reply;
    };
    for (const x of t.redisSetup) run('redis', x.argv);
    for (const e of t.entries) {
      if (e.kind === 'note') {
        if (e.wait !== undefined) clock = Math.max(clock, at.get(e.wait.afterStep)! + e.wait.ms);
        continue;
      }
      if (e.kind !== 'redis') continue;
      clock += typingMs;
      at.set(e.n, clock);
      let got: string;
      if (e.line === 'WAIT 1 0') got = '(integer) 1';
      else if (e.line === 'REPLICAOF NO ONE') { replicating = false; got = 'OK'; }
      else got = run(e.session, e.argv);
      if (got !== e.expect) wrong.push(`step ${e.n} ${e.session}> ${e.line}: expect ${e.expect}, the reader gets ${got}`);
    }
    return wrong;
  };

  it.each(variants)('$label: typing fast (5 ms a step) and slowly (200 ms a step), every redis-cli reply is the one printed', ({ scenario }) => {
    const t = buildTranscript(runScenario(scenario));
    if (!t.sessions.some((s) => s.client === 'redis-cli')) return;
    expect(replayCoverage(t).stop).toBeNull();
    expect(follow(t, 5)).toEqual([]);
    expect(follow(t, 200)).toEqual([]);
  });

  it.each(variants)('$label: each wait counts from the step that set the TTL, which the run\'s expiry instant confirms', ({ scenario }) => {
    const t = buildTranscript(runScenario(scenario));
    const byN = new Map(t.entries.flatMap((e) => (e.kind === 'note' ? [] : [[e.n, e] as const])));
    for (const e of t.entries) {
      if (e.kind === 'note' && e.wait !== undefined) {
        const setter = byN.get(e.wait.afterStep)!;
        expect(setter.kind).toBe('redis');
        expect(setter.atMs + e.wait.ttlMs, `${e.eventId}`).toBe(e.atMs);
        expect(e.wait.ms).toBe(e.wait.ttlMs + TTL_WAIT_MARGIN_MS);
      }
      // A step that relies on a TTL comes before it runs out in the run.
      if (e.kind === 'redis' && e.needsTtl !== undefined) expect(e.atMs, `step ${e.n}`).toBeLessThan(byN.get(e.needsTtl.step)!.atMs + e.needsTtl.ttlMs);
    }
  });

  it('a forced expiry is PEXPIRE key 0 where the model removes a live key: a step, and the reader gets every reply after it', () => {
    const base = findPreset('unsafe-release')!.withoutFix;
    const t = buildTranscript(runScenario({ ...base, faults: [...base.faults, { kind: 'expireLease', atMs: 5_000 }] }));
    const forced = t.entries.find((e): e is Extract<TranscriptStep, { kind: 'redis' }> => e.kind === 'redis' && e.actor === FORCED_EXPIRY_ACTOR)!;
    expect([forced.line, forced.expect, forced.atMs, forced.eventId]).toEqual(['PEXPIRE lease:rebuild 0', '(integer) 1', 5_000, null]);
    expect(forced.needsTtl).toEqual({ step: 1, ttlMs: 10_000 });
    // B takes the lease at its next try, at once: no wait, the key is gone now.
    expect(t.entries.find((e) => e.kind === 'redis' && e.n > forced.n && e.expect === 'OK')).toMatchObject({ actor: 'B', atMs: 5_000, n: forced.n + 1 });
    expect(replayCoverage(t).stop).toBeNull();
    expect(t.notReplayed.join('\n')).not.toContain('expire the lease now');
    expect(follow(t, 5)).toEqual([]);
    expect(renderTranscript(t)).toMatch(/-- \d+\. redis \(the forced expiry\) at 5 s: a command that reproduces the forced expiry\nPEXPIRE lease:rebuild 0\n-- expect: \(integer\) 1\n-- why: the forced expiry/);
  });

  it('a forced expiry of a key that is already gone replies 0, as the model\'s forced expiry removes nothing', () => {
    const base = findPreset('unsafe-release')!.withoutFix;
    // At 25 s every worker has released: the key is gone.
    const t = buildTranscript(runScenario({ ...base, faults: [...base.faults, { kind: 'expireLease', atMs: 25_000 }] }));
    const forced = t.entries.find((e): e is Extract<TranscriptStep, { kind: 'redis' }> => e.kind === 'redis' && e.actor === FORCED_EXPIRY_ACTOR)!;
    expect([forced.line, forced.expect]).toEqual(['PEXPIRE lease:rebuild 0', '(integer) 0']);
    expect(follow(t, 5)).toEqual([]);
  });

  it('without its wait, a reader would get other replies: the wait is what makes the transcript true', () => {
    const t = buildTranscript(runScenario(findPreset('unsafe-release')!.withoutFix));
    const noWaits = { ...t, entries: t.entries.map((e) => (e.kind === 'note' ? { ...e, wait: undefined } : e)) };
    expect(follow(noWaits, 5)[0]).toMatch(/^step 19 redis> SET lease:rebuild a5e3 NX PX 10000: expect OK, the reader gets \(nil\)/);
  });
});
