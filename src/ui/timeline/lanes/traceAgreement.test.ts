/**
 * What the lanes draw never disagrees with the trace: checked over every preset (both variants)
 * and over random scenarios (src/sim/testing/scenarioArb.ts), each time re-deriving the fact from
 * the events' data or the resources' snapshots, never from the lane code.
 */
import fc from 'fast-check';
import { PRESETS, findPreset, leaseEntriesOf, sqlCallOf, validateScenario, type Scenario, type TraceEvent } from '../../../sim';
import type { DestinationWrite } from '../../../sim/resources/destination';
import type { QueueCmd, QueueMessageSnapshot, QueueReply } from '../../../sim/resources/messageQueue';
import type { RedisCmd, RedisReply } from '../../../sim/resources/redisTypes';
import { scenarioArb } from '../../../sim/testing/scenarioArb';
import { deriveRun, runEndMs, type DerivedRun } from '../../store/derive';
import { fmtSeconds } from '../../faults/faultCatalog';
import { buildLanes, laneKindOfTraceKind } from '.';
import { databaseLanes } from './database';
import { leaseLanes, ttlPieceAt } from './lease';
import { workerLanes, type StateSegment } from './worker';

const VARIANTS = PRESETS.flatMap((p) => [[`${p.id} without the fix`, p.withoutFix], [`${p.id} with the fix`, p.withFix]] as const);
const run = (id: string, v: 'withoutFix' | 'withFix' = 'withoutFix') => deriveRun(findPreset(id)![v]);

/** Random valid scenarios (a fixed seed: the same ones every run). */
function randomScenarios(n: number, seed: number): Scenario[] {
  return fc.sample(scenarioArb.filter((s) => validateScenario(s).ok), { numRuns: n, seed });
}

const isEmptyReceiveData = (e: TraceEvent) => {
  if (e.call?.resource !== 'queue') return false;
  const c = e.call.command as QueueCmd;
  const r = e.call.reply as QueueReply;
  return c.op === 'ReceiveMessage' && r.op === 'ReceiveMessage' && r.messages.length === 0;
};

/** The words a worker segment shows, widest and narrowest fit (a wide plot, then a narrow one). */
function segmentTexts(r: DerivedRun, worker: string): string[] {
  const lane = buildLanes(r).lanes.find((l) => l.id === `worker-${worker}`)!;
  const texts: string[] = [];
  for (const pxPerMs of [10, 0.05, 0.01]) {
    const ctx = { y: 0, h: lane.h, X: (ms: number) => ms * pxPerMs, W: (s: number, e: number, min = 2) => Math.max(min, (e - s) * pxPerMs), plotW: 1e9, uid: 'u', obstacles: [], showFindings: true };
    for (const it of lane.items(ctx)) {
      const t = { text: '' };
      // Run the draw against a tiny recorder to read the text it writes.
      const rec = { append: () => rec, attr: () => rec, style: () => rec, text: (s: string) => { t.text = s; return rec; } };
      it.draw(rec as never);
      texts.push(t.text);
    }
  }
  return texts;
}

/** Problems of the worker lanes of a run against its trace (empty: they agree). */
function workerDisagreements(r: DerivedRun): string[] {
  const out: string[] = [];
  for (const lane of workerLanes.lanes(r)) {
    const id = lane.ref.worker;
    const own = r.events.filter((e) => e.actor === id && e.state !== undefined);
    const segAt = (e: TraceEvent): StateSegment | undefined => lane.data.find((s) => s.startMs <= e.atMs && e.atMs < s.endMs);
    // Polling an empty queue is drawn as polling, never as working.
    for (const e of own.filter(isEmptyReceiveData)) {
      const s = segAt(e);
      if (s && s.state !== 'polling') out.push(`${id}: ${e.id} is an empty ReceiveMessage but the lane says ${s.state}`);
    }
    for (const s of lane.data) {
      const inside = own.filter((e) => s.startMs <= e.atMs && e.atMs <= s.endMs);
      if (s.state === 'polling') {
        const receives = inside.filter(isEmptyReceiveData).length;
        if (receives === 0) out.push(`${id}: polling from ${s.startMs} with no empty ReceiveMessage`);
        if (receives >= 3 && s.retries?.count !== receives) out.push(`${id}: polling ${s.startMs}–${s.endMs} says ${s.retries?.count ?? 'no'} receives, the trace has ${receives}`);
      }
      if (!s.retries) continue;
      // The count is every event of the worker in the segment with that command and reply.
      const first = r.events.find((e) => e.id === s.retries!.firstId)!;
      const matching = inside.filter((e) => e.command === first.command && e.reply === first.reply && (s.state !== 'polling' || isEmptyReceiveData(e)));
      if (matching.length !== s.retries.count) out.push(`${id}: ${s.state} ${s.startMs}–${s.endMs} says ${s.retries.count} ${s.retries.noun}, the trace has ${matching.length}`);
    }
    // Every figure drawn on the lane ("N empty receives", "× N") is one of the segments' counts.
    const counts = new Set(lane.data.flatMap((s) => (s.retries ? [s.retries.count] : [])));
    for (const t of segmentTexts(r, id)) {
      for (const m of t.matchAll(/(?:× |· )(\d+)(?: [a-z]|$)/g)) if (!counts.has(Number(m[1]))) out.push(`${id}: draws "${t}"`);
      if (/retries/.test(t)) out.push(`${id}: draws "${t}" (a count of identical calls is not a count of retries)`);
    }
    // An actor that is not a scenario worker (the admin script) does nothing after its last event unless it waits.
    if (!r.scenario.workers.some((w) => w.id === id) && own.length > 0) {
      const last = own.at(-1)!;
      const end = Math.max(0, ...lane.data.map((s) => s.endMs));
      if (last.state !== 'waiting' && end > last.atMs) out.push(`${id}: its lane runs to ${end} ms after its last event (${last.id} at ${last.atMs} ms)`);
    }
  }
  return out;
}

/** The lease store's state of the lease key at `atMs`, per the snapshot after the last event at or before it. */
function storeAt(r: DerivedRun, atMs: number) {
  const i = r.events.findLastIndex((e) => e.atMs <= atMs);
  const l = i < 0 ? undefined : leaseEntriesOf(r.snapshots[i]!).find((k) => k.key === r.scenario.lease.key);
  return l && (l.expiresAtMs === null || l.expiresAtMs > atMs) ? l : undefined;
}

/** Who wrote `value` into the lease key (a successful SET in the trace), if anyone. */
function writerOf(r: DerivedRun, value: string): string | undefined {
  return r.events.find((e) => e.call?.resource === 'redis' && (e.call.command as RedisCmd).op === 'SET' && (e.call.command as { value?: string }).value === value && (e.call.reply as RedisReply).kind === 'ok')?.call!.caller;
}

/** Problems of the lease lane of a run against the lease store's snapshots (empty: they agree). */
function leaseDisagreements(r: DerivedRun): string[] {
  const lane = buildLanes(r).lanes.find((l) => l.ref.kind === 'lease');
  const segs = lane ? leaseLanes.lanes(r)[0]!.data : [];
  const end = runEndMs(r);
  const times = [...new Set(r.events.map((e) => e.atMs))];
  const out: string[] = [];
  times.forEach((t, k) => {
    const next = times[k + 1] ?? end;
    const l = storeAt(r, t);
    // At the event, between it and the next, and just before and at an expiry in between.
    const samples = [t, (t + next) / 2, ...(l?.expiresAtMs != null && l.expiresAtMs > t && l.expiresAtMs < next ? [l.expiresAtMs - 1, l.expiresAtMs] : [])].filter((x) => x < end); // the lane is drawn up to the run's end
    for (const at of samples) {
      const want = storeAt(r, at);
      const seg = segs.find((s) => s.startMs <= at && at < s.endMs);
      const piece = seg && ttlPieceAt(seg, at);
      const got = seg && piece ? `${seg.value} until ${piece.expiresAtMs}` : 'free';
      const exp = want ? `${want.value} until ${want.expiresAtMs}` : 'free';
      if (got !== exp) out.push(`at ${at} ms the lane says ${got}, the store ${exp}`);
      if (!lane?.note) continue;
      const note = lane.note.text(at);
      const who = want && (writerOf(r, want.value) ?? seg?.owner);
      const wantNote = !want ? 'free' : want.expiresAtMs === null ? `${who}: no TTL` : `${who}: TTL ${fmtSeconds(Math.max(0, want.expiresAtMs - at))}`;
      if (note !== wantNote) out.push(`at ${at} ms the note says "${note}", the store "${wantNote}"`);
    }
  });
  return out.slice(0, 5);
}

/** Times to sample a note at: every event's, the midpoint to the next, and 1 ms before each of `edges` (the run's end excluded). */
function sampleTimes(r: DerivedRun, edges: readonly number[] = []): number[] {
  const end = runEndMs(r);
  const times = [...new Set(r.events.map((e) => e.atMs))];
  const out = times.flatMap((t, k) => [t, (t + (times[k + 1] ?? end)) / 2]);
  return [0, ...out, ...edges.flatMap((x) => [x - 1, x])].filter((x) => x >= 0 && x < end);
}

/** The snapshot in effect at `atMs` (after the last event at or before it), if any. */
const snapAt = (r: DerivedRun, atMs: number) => {
  const i = r.events.findLastIndex((e) => e.atMs <= atMs);
  return i < 0 ? undefined : r.snapshots[i]!;
};

/**
 * Problems of the queue lanes' cursor notes against the queue's own snapshots (empty: they agree):
 * "X: invisible N more" exactly while the queue says the message is in flight with X, N counted
 * from the cursor to the deadline the queue holds then; no note otherwise.
 */
function queueNoteDisagreements(r: DerivedRun): string[] {
  const out: string[] = [];
  const q = r.scenario.queue;
  const every = q?.kind === 'sqs' ? q.stalledCheckEveryMs ?? null : null;
  const deadline = (untilMs: number) => (every === null ? untilMs : Math.ceil(untilMs / every) * every);
  const deadlines = r.snapshots.flatMap((sn) => ((sn.queue as QueueMessageSnapshot[] | undefined) ?? []).flatMap((m) => (m.invisibleUntilMs === null ? [] : [deadline(m.invisibleUntilMs)])));
  for (const lane of buildLanes(r).lanes.filter((l) => l.ref.kind === 'queue')) {
    const messageId = (lane.ref as { messageId: string }).messageId;
    for (const t of sampleTimes(r, deadlines)) {
      const m = ((snapAt(r, t)?.queue as QueueMessageSnapshot[] | undefined) ?? []).find((x) => x.messageId === messageId);
      const until = m?.state === 'inFlight' && m.invisibleUntilMs !== null ? deadline(m.invisibleUntilMs) : null;
      const want = until !== null && t < until ? `${m!.receivedBy}: invisible ${fmtSeconds(until - t)} more` : '';
      const got = lane.note!.text(t);
      if (got !== want) out.push(`${messageId} at ${t} ms: the note says "${got}", the queue "${want}"`);
    }
  }
  return out.slice(0, 5);
}

/** Problems of the destination's cursor note against its snapshots: who has a request in flight at the cursor. */
function pendingNoteDisagreements(r: DerivedRun): string[] {
  const lane = buildLanes(r).lanes.find((l) => l.ref.kind === 'destination');
  if (!lane) return [];
  const out: string[] = [];
  for (const t of sampleTimes(r)) {
    const who = [...new Set((snapAt(r, t)?.destination.writes ?? []).filter((w) => w.status === 'inFlight').map((w) => w.worker))];
    const want = who.length === 0 ? '' : `${who.join(', ')}: pending (no reply yet)`;
    const got = lane.note!.text(t);
    if (got !== want) out.push(`at ${t} ms the note says "${got}", the destination "${want}"`);
  }
  return out.slice(0, 5);
}

/** The lane an event belongs on, by its trace kind (re-derived here, not the lanes' code): a resource's lane, else its actor's worker lane. */
function laneOf(r: DerivedRun, e: TraceEvent): string {
  if (e.kind === 'sql' || e.kind === 'pool') return 'database';
  if (e.kind === 'redis' || e.kind === 'expiry' || e.kind === 'etcd') return `lease-${r.scenario.lease.key}`;
  if (e.kind === 'destination') return 'destination';
  if (e.kind === 'queue') return buildLanes(r).lanes.find((l) => l.ref.kind === 'queue')!.id; // one message per queue (src/sim/simplifications.ts)
  return `worker-${e.actor}`;
}

/** Every item of every lane, drawn on a wide plot with findings shown, with the colours it paints. */
function drawnItems(r: DerivedRun): { lane: string; label: string; cites: readonly string[]; fills: string[] }[] {
  return buildLanes(r).lanes.flatMap((lane) => {
    const ctx = { y: 0, h: lane.h, X: (ms: number) => ms / 10, W: (a: number, b: number, min = 2) => Math.max(min, (b - a) / 10), plotW: 1e9, uid: 'u', obstacles: [], showFindings: true };
    return lane.items(ctx).map((it) => {
      const fills: string[] = [];
      const rec = { append: () => rec, attr: (k: string, v: unknown) => { if ((k === 'fill' || k === 'stroke') && typeof v === 'string') fills.push(v); return rec; }, style: () => rec, text: () => rec };
      it.draw(rec as never);
      return { lane: lane.id, label: it.label ?? '', cites: it.cites ?? [], fills };
    });
  });
}

/** Cited events without a violation mark on their lane (empty: every finding is seen where it happened). */
function unmarkedCitations(r: DerivedRun): string[] {
  const items = drawnItems(r);
  const out: string[] = [];
  for (const f of r.verdict.violations) {
    for (const id of f.eventIds) {
      const e = r.events.find((x) => x.id === id)!;
      const lane = laneOf(r, e);
      if (!items.some((it) => it.lane === lane && it.cites.includes(id))) out.push(`${f.invariant}: ${id} (${e.kind} ${e.actor} ${e.reply ?? ''}) has no violation mark on ${lane}`);
    }
  }
  return out;
}

/**
 * Refused writes without a refused mark (empty: each is drawn, and not as a write that succeeded):
 * a fenced UPDATE that told its worker it is stale (its beliefs after the event: `refusedAsStale`),
 * a 23505, an ON CONFLICT DO NOTHING that inserted nothing, a destination's rejection or 409.
 */
function unmarkedRefusals(r: DerivedRun): string[] {
  const items = drawnItems(r);
  const out: string[] = [];
  const GREEN = ['#166534', '#047857'];
  for (const e of r.events) {
    const call = sqlCallOf(e);
    const db = call && (call.command.op === 'insert' || call.command.op === 'update')
      && ((call.command.op === 'update' && call.reply.status === 'ok' && call.reply.tag === 'UPDATE 0' && e.beliefs?.refusedAsStale === true)
        || (call.reply.status === 'error' && call.reply.error.code === '23505')
        || (call.command.op === 'insert' && call.command.onConflictDoNothing === true && call.reply.status === 'ok' && call.reply.tag === 'INSERT 0 0'));
    if (db) {
      const mark = items.find((it) => it.lane === 'database' && it.label.startsWith(`Write refused at ${fmtSeconds(e.atMs)}`) && it.label.includes(`${e.actor}: ${e.reply!.slice(0, 40)}`));
      if (!mark) out.push(`${e.id} (${e.actor}: ${e.reply}) has no refused mark on the database lane`);
      else if (!mark.cites.length && mark.fills.some((c) => GREEN.includes(c))) out.push(`${e.id}'s refused mark is drawn green, like a row written`);
    }
    if (e.call?.resource === 'destination') {
      const w = e.call.reply as DestinationWrite;
      if (w.status !== 'rejected' && w.status !== 'conflict') continue;
      const bar = items.find((it) => it.lane === 'destination' && it.label.startsWith(`Write #${w.id} by ${w.worker}`));
      if (!bar || !/rejected: stale token|409: key in flight|DUPLICATE/.test(bar.label)) out.push(`${e.id}: destination write #${w.id} ${w.status} is drawn as "${bar?.label ?? 'nothing'}"`);
      else if (!bar.cites.length && bar.fills.some((c) => GREEN.includes(c))) out.push(`${e.id}: destination write #${w.id} ${w.status} is drawn green`);
    }
  }
  return out;
}

/** Resource kinds the trace touches that have no lane (empty: every one has its lane). */
function missingLanes(r: DerivedRun): string[] {
  const lanes = new Set(buildLanes(r).lanes.map((l) => l.ref.kind as string));
  const out = new Set<string>();
  for (const e of r.events) {
    if (['step', 'fault', 'outcome'].includes(e.kind)) continue;
    const k = laneKindOfTraceKind(e.kind);
    if (k === undefined) out.add(`${e.kind} (no lane kind draws it; first at ${e.id})`);
    else if (!lanes.has(k)) out.add(`${e.kind} → ${k} (first at ${e.id})`);
  }
  return [...out];
}

describe('worker lanes agree with the trace', () => {
  it.each(VARIANTS)('%s: a state and every count on a worker lane come from the worker\'s events', (_n, s) => {
    expect(workerDisagreements(deriveRun(s))).toEqual([]);
  });

  it('over random scenarios', () => {
    for (const s of randomScenarios(150, 11)) expect(workerDisagreements(deriveRun(s)), JSON.stringify(s.faults)).toEqual([]);
  });

  it('queue-redelivery: B polls the empty queue — 12 empty receives in the fixed run, 6 before it receives m1 without the fix', () => {
    const fixed = workerLanes.lanes(run('queue-redelivery', 'withFix')).find((l) => l.ref.worker === 'B')!.data;
    expect(fixed.map((s) => [s.state, s.startMs, s.endMs, s.retries?.count, s.retries?.noun])).toEqual([['polling', 1_000, 56_000, 12, 'empty receives']]);
    expect(segmentTexts(run('queue-redelivery', 'withFix'), 'B')[0]).toBe('polling 55 s · 12 empty receives, 5 s apart');
    const broken = workerLanes.lanes(run('queue-redelivery')).find((l) => l.ref.worker === 'B')!.data;
    expect(broken.map((s) => [s.state, s.startMs, s.endMs, s.retries?.count])).toEqual([['polling', 1_000, 31_000, 6], ['working', 31_000, 66_000, undefined], ['performingEffect', 66_000, 68_000, undefined]]);
  });

  it('names repeated calls by what they were: refused attempts to take the lease, renewals, renewals a partition left unanswered', () => {
    const rp = workerLanes.lanes(run('renew-partition'));
    const words = (w: string) => rp.find((l) => l.ref.worker === w)!.data.flatMap((s) => (s.retries ? [`${s.state}: ${s.retries.count} ${s.retries.noun}`] : []));
    expect(words('A')).toEqual(['performingEffect: 7 renewals unanswered']);
    expect(words('B')).toEqual(['waiting: 12 refused attempts', 'performingEffect: 7 renewals']);
  });

  it('admin-bypass: the admin script\'s lane ends when its statement is answered (an instant at 150 ms without the fix; waiting 150–200 ms with it)', () => {
    const admin = (v: 'withoutFix' | 'withFix') => workerLanes.lanes(run('admin-bypass', v)).find((l) => l.ref.worker === 'admin')!.data.map((s) => [s.state, s.startMs, s.endMs]);
    expect(admin('withoutFix')).toEqual([['performingEffect', 150, 150]]);
    expect(admin('withFix')).toEqual([['waiting', 150, 200]]);
    // Its script still waiting at the end keeps its lane to the end: a run cut at 180 ms.
    const s = findPreset('admin-bypass')!.withFix;
    expect(workerLanes.lanes(deriveRun({ ...s, horizonMs: 180 })).find((l) => l.ref.worker === 'admin')!.data.map((x) => [x.state, x.startMs, x.endMs])).toEqual([['waiting', 150, 180]]);
  });
});

describe('the lease lane agrees with the lease store', () => {
  it.each(VARIANTS)('%s: holder, TTL and the cursor note at every event, between events and at each expiry', (_n, s) => {
    expect(leaseDisagreements(deriveRun(s))).toEqual([]);
  });

  it('over random scenarios (failovers, deletions, expiries, clock jumps, every renewal)', () => {
    for (const s of randomScenarios(200, 7)) expect(leaseDisagreements(deriveRun(s)), `${s.id} ${JSON.stringify(s.mechanism)} ${JSON.stringify(s.faults)}`).toEqual([]);
  });

  it('failover-fence: A\'s bar ends at the failover that lost its key; the note says free until B takes the lease', () => {
    for (const v of ['withoutFix', 'withFix'] as const) {
      const r = run('failover-fence', v);
      const lane = buildLanes(r).lanes.find((l) => l.ref.kind === 'lease')!;
      expect(leaseLanes.lanes(r)[0]!.data.map((s) => [s.owner, s.startMs, s.endMs])).toEqual([['A', 0, 1_500], ['B', 2_000, 17_000]]);
      expect([1_499, 1_500, 1_999, 2_000].map((t) => lane.note!.text(t))).toEqual(['A: TTL 28.501 s', 'free', 'free', 'B: TTL 30 s']);
    }
  });

  it('renew-partition: each renewal moves the TTL from then on, never before (the note at 0 ms is the first TTL, 10 s)', () => {
    const r = run('renew-partition');
    const lane = buildLanes(r).lanes.find((l) => l.ref.kind === 'lease')!;
    expect(lane.note!.text(0)).toBe('A: TTL 10 s');
    // A's renewal at 3 s moved its expiry to 13 s; the partition stopped the next ones.
    expect(lane.note!.text(2_999)).toBe('A: TTL 7.001 s');
    expect(lane.note!.text(3_000)).toBe('A: TTL 10 s');
    expect(lane.note!.text(12_999)).toBe('A: TTL 1 ms');
    expect(leaseLanes.lanes(r)[0]!.data[0]!.ttl.map((p) => [p.fromMs, p.toMs, p.expiresAtMs])).toEqual([[0, 3_000, 10_000], [3_000, 13_000, 13_000]]);
  });
});

describe('every cursor note is computed at the cursor, from what the resource holds then', () => {
  it.each(VARIANTS)('%s: the queue\'s "invisible … more" and the destination\'s "pending" agree with the snapshots at every sampled time', (_n, s) => {
    const r = deriveRun(s);
    expect(queueNoteDisagreements(r)).toEqual([]);
    expect(pendingNoteDisagreements(r)).toEqual([]);
  });

  it('over random scenarios (queues with extensions, hand-backs, a stalled-job checker; destinations that crash their callers)', () => {
    const all = randomScenarios(200, 13);
    expect(all.some((s) => s.queue?.kind === 'sqs')).toBe(true);
    for (const s of all) {
      const r = deriveRun(s);
      expect([...queueNoteDisagreements(r), ...pendingNoteDisagreements(r)], `${s.id} ${JSON.stringify(s.faults)}`).toEqual([]);
    }
  });

  it('queue-redelivery with the fix: at 0 ms the note is the receive\'s 30 s, not the 50 s deadline A\'s extension sets at 20 s', () => {
    const lane = buildLanes(run('queue-redelivery', 'withFix')).lanes.find((l) => l.ref.kind === 'queue')!;
    expect(lane.note!.text(0)).toBe('A: invisible 30 s more');
  });
});

describe('a finding is marked where it happened; a refused write is marked as refused', () => {
  it.each(VARIANTS)('%s: every event a violation cites has a violation mark on its lane, every refused write a refused mark', (_n, s) => {
    const r = deriveRun(s);
    expect(unmarkedCitations(r)).toEqual([]);
    expect(unmarkedRefusals(r)).toEqual([]);
  });

  it('over random scenarios with random faults', () => {
    const all = randomScenarios(200, 17);
    expect(all.some((s) => deriveRun(s).verdict.violations.length > 0)).toBe(true);
    for (const s of all) {
      const r = deriveRun(s);
      expect([...unmarkedCitations(r), ...unmarkedRefusals(r)], `${s.id} ${JSON.stringify(s.faults)}`).toEqual([]);
    }
  });

  it('fenced-db-write: the paused stale holder\'s late UPDATE that overwrites B\'s row is a violation mark, not a green row; with the fix its UPDATE 0 is a refused mark', () => {
    const broken = drawnItems(run('fenced-db-write')).filter((it) => it.lane === 'database');
    const overwrite = broken.find((it) => it.label.includes("A: UPDATE 1"))!;
    expect(overwrite.label).toMatch(/^Row written at 45 s, cited by a violation: A: UPDATE 1/);
    expect(overwrite.cites.length).toBe(1);
    expect(overwrite.fills).not.toContain('#166534');
    const fixed = drawnItems(run('fenced-db-write', 'withFix')).filter((it) => it.lane === 'database');
    expect(fixed.filter((it) => it.label.startsWith('Write refused')).map((it) => it.label)).toEqual([
      'Write refused at 45 s (the database doing its job, not a violation): A: UPDATE 0 — refused as stale (UPDATE 0: the row carries a newer fencing token)',
    ]);
  });
});

describe('every resource the trace touches has its lane', () => {
  it.each(VARIANTS)('%s', (_n, s) => {
    expect(missingLanes(deriveRun(s))).toEqual([]);
  });

  it('over random scenarios', () => {
    for (const s of randomScenarios(200, 5)) expect(missingLanes(deriveRun(s)), `${s.id} ${JSON.stringify(s.mechanism)}`).toEqual([]);
  });

  it('failover-fence with the fix draws the database its workers take fencing tokens from (SELECT nextval(\'fence_seq\'))', () => {
    const r = run('failover-fence', 'withFix');
    expect(r.events.some((e) => e.command === "SELECT nextval('fence_seq')")).toBe(true);
    expect(buildLanes(r).lanes.map((l) => l.ref.kind)).toContain('database');
    // It holds no lock to draw (autocommit): the tokens it hands out are its marks.
    expect(databaseLanes.lanes(r)[0]!.data.marks.filter((m) => m.kind === 'sequence').map((m) => [m.atMs, m.label])).toEqual([[0, "A: nextval('fence_seq') = 33"], [2_000, "B: nextval('fence_seq') = 34"]]);
    // The lane follows the trace, not only what the scenario declares: the same events under a
    // scenario that says its tokens come from Redis still get their database lane.
    const declared = { ...r, scenario: { ...r.scenario, mechanism: { ...r.scenario.mechanism, fenceSource: 'redis-incr' as const } } };
    expect(buildLanes(declared).lanes.map((l) => l.ref.kind)).toContain('database');
    expect(missingLanes(declared)).toEqual([]);
  });
});
