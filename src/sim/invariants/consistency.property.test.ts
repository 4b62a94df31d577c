/**
 * Nothing Lockscope shows may contradict the trace. Over at least 1,000 random valid scenarios
 * (the presets with random seeds, start times, mechanism switches, faults, job keys and
 * invariants: src/sim/testing/scenarioArb.ts), an independent checker written here recomputes from
 * the trace alone (the events' data) who performed effects when, which effects repeat a business
 * key, and which workers overlapped in protected steps. The verdict, `duplicateEffects` (the
 * function the timeline's DUPLICATE marks are drawn from) and the metrics must agree with it.
 *
 * The checker here is deliberately built another way than src/sim's: effects of an insertOnce job
 * are followed per database session (pending until that session's COMMIT, dropped at ROLLBACK or
 * when its connection is destroyed), not read from the committed rows; uploads are judged by each
 * write's last event; overlaps are computed from intervals after the run, not while it runs.
 */
import fc from 'fast-check';
import { runScenario, type RunResult } from '../engine/run';
import { validateScenario } from '../scenario/validate';
import type { Job, Scenario, Step } from '../scenario/schema';
import { destinationCallOf, sqlCallOf, type TraceEvent } from '../engine/trace';
import { duplicateEffects } from './effects';
import { scenarioArb } from '../testing/scenarioArb';

/** LOCKSCOPE_MUTATION (npm run mutate) runs the suite once per mutant: a smaller sample there. */
const RUNS = process.env.LOCKSCOPE_MUTATION === '1' ? 60 : 1_000;

/** A scenario from scenarioArb, with per-worker job keys half of the time and the two judged invariants added at random. */
const arb: fc.Arbitrary<Scenario> = fc.record({
  s: scenarioArb,
  perWorkerKey: fc.boolean(),
  addMutex: fc.boolean(),
  effectOnce: fc.constantFrom('none', 'violation', 'harmless'),
}).map(({ s, perWorkerKey, addMutex, effectOnce }) => {
  const job = s.job.kind === 'external' && perWorkerKey && !s.job.jobKey.includes('{worker}') ? { ...s.job, jobKey: `${s.job.jobKey}-{worker}` } : s.job;
  const kept = s.invariants.filter((i) => !(i.kind === 'mutualExclusion' && addMutex) && !(i.kind === 'effectOnce' && effectOnce !== 'none'));
  const invariants: Scenario['invariants'] = [
    ...kept,
    ...(addMutex ? [{ kind: 'mutualExclusion' as const }] : []),
    ...(effectOnce === 'none' ? [] : [{ kind: 'effectOnce' as const, harmless: effectOnce === 'harmless' }]),
  ];
  return { ...s, job, invariants };
});

interface Effect { readonly eventId: string; readonly key: string; readonly worker: string; readonly writeId: number | null }

/** Who performed which effect, in trace order — recomputed from the events' data. */
function effectsOf(s: Scenario, events: readonly TraceEvent[]): Effect[] {
  const job = s.job;
  if (job.kind === 'external') {
    const keyOf = (worker: string) => job.jobKey.split('{worker}').join(worker);
    const last = new Map<number, TraceEvent>();
    const begin = new Map<number, TraceEvent>();
    for (const e of events) {
      const c = destinationCallOf(e);
      if (!c || e.data?.t !== 'write') continue;
      last.set(c.reply.id, e);
      if (e.data.phase === 'begin') begin.set(c.reply.id, e);
    }
    const out: { at: number; effect: Effect }[] = [];
    for (const [id, e] of last) {
      const w = destinationCallOf(e)!.reply;
      if (s.destination.kind === 'api') {
        // An API call performs its effect when the API receives and accepts it (its begin event).
        const b = begin.get(id);
        const atBegin = b ? destinationCallOf(b)!.reply : null;
        if (b && atBegin && atBegin.performed && atBegin.status !== 'rejected' && atBegin.status !== 'deduplicated') out.push({ at: Number(b.id.slice(1)), effect: { eventId: b.id, key: keyOf(w.worker), worker: w.worker, writeId: id } });
      } else if (w.status === 'accepted' && w.performed && e.data?.t === 'write' && e.data.phase === 'end') {
        out.push({ at: Number(e.id.slice(1)), effect: { eventId: e.id, key: keyOf(w.worker), worker: w.worker, writeId: id } });
      }
    }
    return out.sort((a, b) => a.at - b.at).map((x) => x.effect);
  }
  if (job.kind !== 'insertOnce') return [];
  const key = Object.entries(job.key).map(([c, v]) => `${c}=${String(v)}`).join(',');
  const matches = (row: Record<string, unknown>) => Object.entries(job.key).every(([c, v]) => row[c] === v);
  const pending = new Map<string, TraceEvent[]>();
  const out: Effect[] = [];
  for (const e of events) {
    if (e.call?.resource === 'pool') {
      const cmd = e.call.command as { op: string; connection?: string };
      if (cmd.op === 'destroy' && cmd.connection !== undefined) pending.delete(cmd.connection);
      continue;
    }
    const c = sqlCallOf(e);
    if (!c || c.reply.status !== 'ok') continue;
    const session = c.caller;
    const cmd = c.command;
    if (cmd.op === 'insert' && cmd.table === job.table && c.reply.tag === 'INSERT 0 1' && matches(cmd.values)) {
      if (c.inTransaction === true) pending.set(session, [...(pending.get(session) ?? []), e]);
      else out.push({ eventId: e.id, key, worker: e.actor, writeId: null });
    } else if (cmd.op === 'rollback' || (cmd.op === 'commit' && c.reply.tag === 'ROLLBACK')) {
      pending.delete(session);
    } else if (cmd.op === 'commit' && c.reply.tag === 'COMMIT') {
      for (const _ of pending.get(session) ?? []) out.push({ eventId: e.id, key, worker: e.actor, writeId: null });
      pending.delete(session);
    }
  }
  return out;
}

/** The duplicates: every effect after the first for its business key. */
function duplicatesOf(effects: readonly Effect[]): Effect[] {
  const seen = new Set<string>();
  return effects.filter((e) => {
    if (seen.has(e.key)) return true;
    seen.add(e.key);
    return false;
  });
}

/** Protected step indexes: after `acquire` up to `release`; for a debit/reserve job without acquire, `read` up to `commit`. Only steps that do work. */
function protectedIndexes(steps: readonly Step[], job: Job): Set<number> {
  const doing = ['work', 'effect', 'record', 'enqueue', 'check', 'read'];
  const open = steps.some((s) => s.do === 'acquire') ? 'acquire' : job.kind === 'debit' || job.kind === 'reserve' ? 'read' : null;
  const close = open === 'acquire' ? 'release' : 'commit';
  const out = new Set<number>();
  let inside = false;
  steps.forEach((s, i) => {
    if (s.do === open) inside = true;
    if (s.do === close) inside = false;
    if (inside && doing.includes(s.do)) out.add(i);
  });
  return out;
}

interface Interval { readonly worker: string; readonly fromMs: number; readonly toMs: number }

/** Each worker's stretches of time inside a protected step, from its events (state and step). */
function insideIntervals(s: Scenario, events: readonly TraceEvent[], endMs: number): Interval[] {
  const prot = new Map(s.workers.map((w) => [w.id, protectedIndexes(w.steps, s.job)]));
  const since = new Map<string, number>();
  const out: Interval[] = [];
  for (const e of events) {
    const p = prot.get(e.actor);
    if (!p || e.state === undefined) continue;
    const inside = ['working', 'performingEffect', 'recordingCompletion'].includes(e.state) && e.step !== undefined && p.has(e.step);
    const from = since.get(e.actor);
    if (inside && from === undefined) since.set(e.actor, e.atMs);
    if (!inside && from !== undefined) {
      out.push({ worker: e.actor, fromMs: from, toMs: e.atMs });
      since.delete(e.actor);
    }
  }
  for (const [worker, from] of since) out.push({ worker, fromMs: from, toMs: endMs });
  return out.filter((i) => i.toMs > i.fromMs);
}

/** Pairs of different workers' intervals that share a positive length of time. */
function overlaps(intervals: readonly Interval[]): { a: Interval; b: Interval; fromMs: number; toMs: number }[] {
  const out: { a: Interval; b: Interval; fromMs: number; toMs: number }[] = [];
  for (let i = 0; i < intervals.length; i++) {
    for (let j = i + 1; j < intervals.length; j++) {
      const a = intervals[i]!;
      const b = intervals[j]!;
      if (a.worker === b.worker) continue;
      const fromMs = Math.max(a.fromMs, b.fromMs);
      const toMs = Math.min(a.toMs, b.toMs);
      if (fromMs < toMs) out.push({ a, b, fromMs, toMs });
    }
  }
  return out;
}

/** Where the run is judged to: the horizon if it ran to it, else where it stopped. */
const judgedToMs = (s: Scenario, r: RunResult) => (r.error === undefined ? Math.max(s.horizonMs, r.endMs) : r.endMs);

function checkOne(s: Scenario, r: RunResult): void {
  // A destination's reply never contradicts its effect: a write that performed the effect ends
  // accepted (2xx) or is still in flight; a refused, replayed, conflicting or aborted one performed nothing.
  for (const e of r.events) {
    const w = destinationCallOf(e)?.reply;
    if (w === undefined) continue;
    if (w.performed) expect([w.status, w.reply.startsWith('409')]).toEqual([w.status === 'inFlight' ? 'inFlight' : 'accepted', false]);
    else expect(w.status).not.toBe('accepted');
  }
  // Effects and duplicates: the metric, the marks' source function and the verdict agree with the trace.
  const effects = effectsOf(s, r.events);
  const dups = duplicatesOf(effects);
  expect(r.metrics.duplicateEffects).toBe(dups.length);
  expect(duplicateEffects(s, r.events).map((d) => [d.eventId, d.worker, d.writeId])).toEqual(dups.map((d) => [d.eventId, d.worker, d.writeId]));
  const byKey = new Map<string, string[]>();
  for (const e of effects) byKey.set(e.key, [...(byKey.get(e.key) ?? []), e.eventId]);
  const repeated = [...byKey.values()].filter((ids) => ids.length > 1).map((ids) => [...new Set(ids)]);
  const effectOnce = s.invariants.find((i) => i.kind === 'effectOnce');
  const onceFindings = [...r.verdict.violations, ...r.verdict.notes].filter((f) => f.invariant === 'effectOnce');
  const checksRows = s.job.kind === 'insertOnce' && s.invariants.some((i) => i.kind === 'uniqueBusinessKey');
  if (effectOnce !== undefined || !checksRows) {
    // One finding per repeated business key, citing every effect for it; a violation exactly when the scenario forbids repeats.
    expect(onceFindings.map((f) => [...f.eventIds]).sort()).toEqual(repeated.sort());
    const severity = effectOnce === undefined ? 'unchecked' : effectOnce.harmless ? 'redundant' : 'violation';
    expect(onceFindings.every((f) => f.severity === severity)).toBe(true);
  } else {
    expect(onceFindings).toEqual([]);
    expect(r.verdict.violations.some((v) => v.invariant === 'uniqueBusinessKey')).toBe(dups.length > 0);
  }

  // Protected steps: a mutualExclusion violation exactly when two workers overlapped in them; one finding per incident.
  if (s.invariants.some((i) => i.kind === 'mutualExclusion')) {
    const pairs = overlaps(insideIntervals(s, r.events, judgedToMs(s, r)));
    const found = r.verdict.violations.filter((v) => v.invariant === 'mutualExclusion');
    expect(found.length > 0).toBe(pairs.length > 0);
    const overlapping = new Set(pairs.flatMap((p) => [p.a.worker, p.b.worker]));
    const named = new Set(found.flatMap((f) => /^(.*) were inside/.exec(f.message)![1]!.split(/, | and /)));
    expect([...named].sort()).toEqual([...overlapping].sort());
    // Never more findings than stretches of time in which two or more were inside (not one per pair).
    const stretches = [...pairs].sort((x, y) => x.fromMs - y.fromMs).reduce<{ fromMs: number; toMs: number }[]>((acc, p) => {
      const last = acc.at(-1);
      if (last && p.fromMs < last.toMs) last.toMs = Math.max(last.toMs, p.toMs);
      else acc.push({ fromMs: p.fromMs, toMs: p.toMs });
      return acc;
    }, []);
    expect(found.length).toBeLessThanOrEqual(stretches.length);
    // The message words the start with fmtTime: `from 200 ms)` or `from 14.5 s)`.
    const fromMs = (message: string): number => {
      const m = /from ([\d.]+) (ms|s)\)$/.exec(message)!;
      return Math.round(Number(m[1]) * (m[2] === 's' ? 1000 : 1));
    };
    for (const f of found) expect(stretches.map((x) => x.fromMs)).toContain(fromMs(f.message));
  }

  // The verdict's standing: violated iff a violation; else inconclusive iff the run was cut short.
  const status = r.verdict.violations.length > 0 ? 'violated' : r.verdict.cutShort ? 'inconclusive' : 'held';
  expect(r.verdict.status).toBe(status);
  expect(r.verdict.held).toBe(status === 'held');
  if (r.error !== undefined && r.verdict.violations.length === 0) expect(r.verdict.status).toBe('inconclusive');
}

describe('consistency: the verdict, the duplicate marks and the metrics agree with the trace', () => {
  it(`over ${RUNS} random valid scenarios`, () => {
    let checked = 0;
    fc.assert(
      fc.property(arb, (candidate) => {
        const valid = validateScenario(JSON.parse(JSON.stringify(candidate)));
        // A generated fault can be placed oddly (invalid): skipped, and not counted in numRuns.
        fc.pre(valid.ok);
        if (!valid.ok) return true;
        checked += 1;
        checkOne(valid.scenario, runScenario(valid.scenario));
        return true;
      }),
      { numRuns: RUNS },
    );
    // The property really ran over RUNS valid scenarios.
    expect(checked).toBeGreaterThanOrEqual(RUNS);
  });
});
