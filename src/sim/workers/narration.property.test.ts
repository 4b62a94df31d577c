/**
 * Narration never contradicts the reply it narrates (issue 8, "Narration and replies"). Checked
 * from the trace alone — each event's structured reply (`call`) against its sentence — over every
 * preset (both variants) and random valid scenarios (presets with random seeds, starts, switches,
 * lock clients, a connection topology — processes, helpers — and faults of every registered kind):
 * - a command that got no reply (timeout) or an error is never narrated with a success verb;
 * - a write that touched no row (`INSERT 0 0`, `UPDATE 0`) is never narrated as a write;
 * - a request still in flight is narrated as pending, its reply arrives as a later event;
 * - an idempotency conflict (409) is not narrated as a replay, and a replay not as a conflict;
 * - "higher" for a fencing token only when it is strictly higher than every earlier grant;
 * - every renewal without a success reply is a failed renewal, and the metric counts exactly those;
 * - a try-lock that returned `f` is narrated as not getting the lock.
 */
import fc from 'fast-check';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PRESETS } from '../presets';
import { runScenario, type RunResult } from '../engine/run';
import { validateScenario } from '../scenario/validate';
import type { Scenario } from '../scenario/schema';
import { databaseSettingsArb, faultArb, leaseInEtcd, mechanismArb, topologyArb, withTopology } from '../testing/scenarioArb';
import type { TraceEvent } from '../engine/trace';
import type { RedisCmd, RedisReply } from '../resources/redisTypes';
import type { EtcdCmd, EtcdReply } from '../resources/lockService';
import { etcdClassOf } from './replyClass';
import type { DbReply, Stmt } from '../resources/sqlTypes';

/** A `pg_try_advisory_lock` or `pg_try_advisory_xact_lock` statement. */
const isTryLock = (stmt: Stmt): boolean => stmt.op === 'advisory' && stmt.fn.startsWith('pg_try_');
import type { DestinationWrite } from '../resources/destination';
import { PENDING_REPLY } from '../resources/destination';

/** Success claims a Redis narration may make only for a reply that did what was asked. */
const REDIS_SUCCESS = /\b(takes the lease|extends its lease|releases its own lease|releases its lease|releases with plain DEL and deletes|overwrites|sees \S+ token|gets fencing token|deletes \S+ by hand to)/;
/** Success claims an etcd narration may make only for a reply that did what was asked. */
const ETCD_SUCCESS = /\b(holds the lock|keeps its lease \S+ alive|revokes its lease|releases the lock|releases with a plain etcdctl del and deletes|gets lease|deletes \S+ by hand with)/;
/** Success claims of a SQL narration. */
const SQL_SUCCESS = /\b(records the job as done|inserts the row|writes balance|reserves \d|writes a durable job record|writes directly|opens a transaction|holds advisory lock|reads \w+ =|loads the winner's row|unlocks advisory lock)/;
/** Words that admit a failure or a missing reply. */
const FAILURE = /\b(fails?|rejected|rejects|cannot|could not|no reply|no answer|timed out|ERROR|cancels|refuse[sd]?|gets no)\b/;
const NO_REPLY = /\b(no reply|no answer|timed out|cannot reach)\b/;

type Call = NonNullable<TraceEvent['call']>;

/** Every contradiction between an event's sentence and its reply, as readable strings (empty: none). */
export function narrationContradictions(r: RunResult): string[] {
  const out: string[] = [];
  const bad = (e: TraceEvent, why: string): void => void out.push(`${e.id} ${e.actor} "${e.narration}" [${e.reply ?? ''}]: ${why}`);
  let highestToken: number | null = null;
  const renewFailedEvents = new Set<string>();
  // Each worker's state and whether it believes it owns its lease, as of its latest event.
  const lastSeen = new Map<string, { state: string; ownsLease: boolean }>();
  for (const e of r.events) {
    const call = e.call as Call | undefined;
    const text = e.narration;
    if (e.state !== undefined && e.beliefs !== undefined) lastSeen.set(e.actor, { state: e.state, ownsLease: e.beliefs.ownsLease });
    // "A still believes it owns lease:x", "— two owners now": only of a worker at its job that does believe it.
    const believer = /\b(\w+) still believes it (?:owns|holds)\b/.exec(text)?.[1];
    if (believer !== undefined && r.scenario.workers.some((w) => w.id === believer)) {
      const seen = lastSeen.get(believer);
      if (seen === undefined || seen.state === 'crashed' || seen.state === 'done' || !seen.ownsLease) bad(e, `says ${believer} still believes it owns the lease, but ${believer} is ${seen === undefined ? 'unknown' : `${seen.state}${seen.ownsLease ? '' : ' and believes it does not'}`}`);
    }
    if (e.data?.t === 'lease' && e.data.op === 'renewFailed') renewFailedEvents.add(e.id);
    // A granted token: INCR's or an etcd grant's revision (the event's data), or a database sequence's (the nextval reply).
    const sql = call?.resource === 'db' ? (call.command as Stmt).op === 'nextval' && (call.reply as DbReply).status === 'ok' ? (call.reply as Extract<DbReply, { status: 'ok' }>).rows[0]?.nextval : undefined : undefined;
    const granted = e.data?.t === 'lease' && (e.data.op === 'fenced' || e.data.op === 'acquired') && e.data.fencingToken !== undefined ? e.data.fencingToken : typeof sql === 'number' ? sql : undefined;
    if (/\bhigher\b/.test(text)) {
      const token = e.data?.t === 'lease' ? e.data.fencingToken : granted;
      if (token === undefined || (highestToken !== null && token <= highestToken)) bad(e, `says "higher" but the token is not strictly higher than ${String(highestToken)}`);
    }
    if (granted !== undefined) {
      const t = granted;
      if (/\bthe same token\b/.test(text) && t !== highestToken) bad(e, 'says "the same token" for a different token');
      if (highestToken === null || t > highestToken) highestToken = t;
    }
    if (call === undefined) continue;
    if (call.resource === 'redis') {
      const reply = call.reply as RedisReply;
      const cmd = call.command as RedisCmd;
      const timedOut = (call as { cutOff?: boolean }).cutOff === true;
      const cls = timedOut ? 'timeout' : reply.kind === 'error' ? 'error' : reply.kind === 'nil' || (reply.kind === 'int' && reply.value === 0) ? 'none' : 'ok';
      if (timedOut && e.reply !== undefined && !e.reply.startsWith('(no reply')) bad(e, 'a timed-out command shows a reply');
      if (cls === 'timeout' && !NO_REPLY.test(text)) bad(e, 'a timeout is not narrated as one');
      if ((cls === 'timeout' || cls === 'error') && REDIS_SUCCESS.test(text)) bad(e, `${cls} narrated as a success`);
      if (cls === 'error' && !FAILURE.test(text)) bad(e, 'an error is not narrated as a failure');
      if (cls === 'none' && /\b(takes the lease|extends its lease|releases its own lease|overwrites)/.test(text)) bad(e, 'a reply that did nothing narrated as a success');
      const renewal = cmd.op === 'COMPARE_AND_EXTEND' || cmd.op === 'PEXPIRE' || (cmd.op === 'SET' && cmd.nx !== true);
      if (renewal && cls !== 'ok' && !renewFailedEvents.has(e.id)) bad(e, 'a renewal without a success reply is not a failed renewal');
      if (renewal && cls === 'ok' && renewFailedEvents.has(e.id)) bad(e, 'a successful renewal marked failed');
    } else if (call.resource === 'db') {
      const reply = call.reply as DbReply;
      if (reply.status === 'waits') continue;
      if (reply.status === 'error') {
        if (SQL_SUCCESS.test(text)) bad(e, 'an error narrated as a success');
        if (!FAILURE.test(text)) bad(e, 'an error is not narrated as a failure');
      } else if (/^(INSERT 0 0|UPDATE 0|DELETE 0)$/.test(reply.tag)) {
        if (SQL_SUCCESS.test(text)) bad(e, `${reply.tag} narrated as a write`);
        if (!/\b(nothing|no row|no job record|matches no|conflicting)\b/.test(text)) bad(e, `${reply.tag} is not narrated as touching nothing`);
      } else if (reply.warning !== undefined && !/\bWARNING|warns\b/.test(text)) bad(e, 'a WARNING is not narrated');
      else if (isTryLock(call.command as Stmt) && reply.rows[0]?.[(call.command as { fn: string }).fn] === 'f' && (SQL_SUCCESS.test(text) || !/returns false/.test(text))) bad(e, 'a try-lock that returned f is not narrated as not getting the lock');
    } else if (call.resource === 'etcd') {
      const reply = call.reply as EtcdReply;
      const cmd = call.command as EtcdCmd;
      const timedOut = (call as { cutOff?: boolean }).cutOff === true;
      const cls = etcdClassOf(reply);
      if (timedOut !== (cls === 'timeout')) bad(e, 'a request of a cut-off client is not classed a timeout');
      if (cls === 'timeout' && !NO_REPLY.test(text)) bad(e, 'a timeout is not narrated as one');
      if (cls !== 'ok' && ETCD_SUCCESS.test(text)) bad(e, `${cls} narrated as a success`);
      if (cls === 'ok' && cmd.op === 'txnAcquire' && !/holds the lock/.test(text)) bad(e, 'a transaction that took the lock is not narrated as taking it');
      if (cmd.op === 'txnAcquire' && reply.op === 'txnAcquire' && !reply.succeeded && !/is held by/.test(text)) bad(e, 'a failed compare is not narrated as the key being held');
      if (reply.op === 'error' && !FAILURE.test(text) && !/\bis gone\b/.test(text)) bad(e, 'an error is not narrated as a failure');
      if (cmd.op === 'leaseKeepAlive' && cls !== 'ok' && !renewFailedEvents.has(e.id)) bad(e, 'a keep-alive without a success reply is not a failed renewal');
      if (cmd.op === 'leaseKeepAlive' && cls === 'ok' && renewFailedEvents.has(e.id)) bad(e, 'a successful keep-alive marked failed');
    } else if (call.resource === 'destination') {
      const w = call.reply as DestinationWrite;
      const phase = e.data?.t === 'write' ? e.data.phase : undefined;
      if (w.status === 'inFlight') {
        if (e.reply !== undefined && e.reply !== PENDING_REPLY) bad(e, 'a request in flight shows a reply');
        if (/\b(returns|completes|accepted|replayed)\b/.test(text)) bad(e, 'a request in flight narrated as answered');
      }
      if (w.status === 'conflict' && (!/\b409\b|refuses/.test(text) || /replayed/.test(text))) bad(e, 'a 409 for a key in flight is not narrated as a refusal');
      if (w.status === 'deduplicated' && (!/replay/.test(text) || /\b409\b/.test(text))) bad(e, 'a replay is not narrated as one');
      if (w.status === 'rejected' && !/reject/.test(text)) bad(e, 'a rejected write is not narrated as rejected');
      if (phase === 'end' && w.status === 'accepted' && e.actor === w.worker && w.reply !== PENDING_REPLY && e.reply !== undefined && e.reply !== w.reply) bad(e, 'the end event does not show the reply that arrived');
      if (phase === 'begin' && w.status !== 'inFlight' && e.reply === PENDING_REPLY) bad(e, 'an answered request shows as pending');
    }
  }
  if (r.metrics.renewFailures !== renewFailedEvents.size) out.push(`metrics.renewFailures ${r.metrics.renewFailures} ≠ ${renewFailedEvents.size} renewFailed events`);
  return out;
}

// The mechanism switches come from the shared arbitrary; the scenario adds what makes rare replies common.

const clientArb = fc.record({
  onBusy: fc.constantFrom('wait', 'skip', 'retry'),
  retries: fc.integer({ min: 0, max: 4 }),
  checkRelease: fc.boolean(),
  renewFrom: fc.constantFrom('grant', 'firstAttempt'),
  renewMarginMs: fc.constantFrom(0, 500, 2_000),
}) as fc.Arbitrary<Scenario['client']>;

const scenarioArb: fc.Arbitrary<Scenario> = fc
  .tuple(fc.constantFrom(...PRESETS), fc.boolean())
  .chain(([p, fixed]) => {
    const base = fixed ? p.withFix : p.withoutFix;
    return fc.record({
      seed: fc.integer({ min: 0, max: 2_147_483_647 }),
      mechanism: mechanismArb,
      client: clientArb,
      starts: fc.array(fc.integer({ min: 0, max: 5_000 }), { minLength: base.workers.length, maxLength: base.workers.length }),
      faults: fc.array(faultArb(base), { maxLength: 4 }),
      honours: fc.boolean(),
      checks: fc.boolean(),
      // Replies that touch nothing are rare in the presets: a shared job key and a completion
      // record after every job make a second `INSERT … ON CONFLICT DO NOTHING` answer INSERT 0 0.
      sharedKey: fc.boolean(),
      record: fc.boolean(),
      topology: topologyArb,
      dbSettings: databaseSettingsArb,
      // One scenario in four keeps its lease in etcd (lockService).
      etcd: fc.integer({ min: 0, max: 3 }).map((n) => n === 0),
    }).map((r): Scenario => (r.etcd ? leaseInEtcd : (x: Scenario) => x)(withTopology({
      ...base,
      seed: r.seed,
      database: { ...base.database, ...r.dbSettings },
      job: base.job.kind === 'external' && r.sharedKey ? { ...base.job, jobKey: base.job.jobKey.replace('{worker}', 'shared') } : base.job,
      mechanism: { ...base.mechanism, ...r.mechanism },
      client: r.client,
      destination: { ...base.destination, honoursIdempotencyKeys: r.honours, checksFencing: r.checks },
      workers: base.workers.map((w, i) => ({ ...w, startMs: r.starts[i]!, steps: r.record && w.steps.length < 20 ? [...w.steps, { do: 'record' as const }] : w.steps })),
      faults: [...base.faults, ...r.faults],
    }, r.topology)));
  });

const PROPERTY_RUNS = process.env.LOCKSCOPE_MUTATION === '1' ? 25 : 300;

describe('narration follows the reply', () => {
  it.each(PRESETS.flatMap((p) => [[p.id, false], [p.id, true]] as const))('%s (fixed: %s): no sentence contradicts its reply', (id, fixed) => {
    const p = PRESETS.find((x) => x.id === id)!;
    expect(narrationContradictions(runScenario(fixed ? p.withFix : p.withoutFix))).toEqual([]);
  });

  it('random valid scenarios: no sentence contradicts its reply', () => {
    fc.assert(
      fc.property(scenarioArb, (s) => {
        const valid = validateScenario(JSON.parse(JSON.stringify(s)));
        if (!valid.ok) return true;
        expect(narrationContradictions(runScenario(valid.scenario))).toEqual([]);
        return true;
      }),
      { numRuns: PROPERTY_RUNS },
    );
  });

  it('workers and faults send SQL, Redis and etcd commands only through runSql/runRedis/runEtcd (each class of reply worded)', () => {
    const offenders: string[] = [];
    for (const dir of ['.', '../faults']) {
      const abs = join(__dirname, dir);
      for (const f of readdirSync(abs).filter((n) => n.endsWith('.ts') && !n.endsWith('.test.ts') && n !== 'replyClass.ts')) {
        const src = readFileSync(join(abs, f), 'utf8');
        for (const m of src.matchAll(/\b(?:world|ctx\.world)\.(sql|redis|etcdCall)\(/g)) offenders.push(`${dir}/${f}: ${m[0]}`);
      }
    }
    expect(offenders).toEqual([]);
  });

  it('the checker itself catches each kind of contradiction it names', () => {
    const base = runScenario(PRESETS.find((p) => p.id === 'renew-partition')!.withoutFix);
    const timeout = base.events.find((e) => (e.call as Call | undefined)?.resource === 'redis' && (e.call as { cutOff?: boolean }).cutOff === true)!;
    const lie = (patch: (e: TraceEvent) => TraceEvent): RunResult => ({ ...base, events: base.events.map((e) => (e.id === timeout.id ? patch(e) : e)) });
    expect(narrationContradictions(lie((e) => ({ ...e, narration: "A's compare-and-delete sees B's token, not its own" })))).toEqual(expect.arrayContaining([expect.stringContaining('timeout')]));
    expect(narrationContradictions(lie((e) => ({ ...e, data: undefined })))).toEqual(expect.arrayContaining([expect.stringContaining('not a failed renewal'), expect.stringContaining('metrics.renewFailures')]));
    const fenced = runScenario(PRESETS.find((p) => p.id === 'fence-ignored')!.withoutFix);
    const grant = fenced.events.filter((e) => e.data?.t === 'lease' && e.data.op === 'fenced')[1]!;
    const equal: RunResult = { ...fenced, events: fenced.events.map((e) => (e.id === grant.id && e.data?.t === 'lease' ? { ...e, data: { ...e.data, fencingToken: 33 } } : e)) };
    expect(narrationContradictions(equal)).toEqual([expect.stringContaining('not strictly higher')]);
  });
});
