import type { CheckerContext, InvariantChecker, Finding } from './types';
import { FindingLog } from './types';
import type { DestinationWrite } from '../resources/destination';
import { destinationCallOf, sqlCallOf, type CheckedEvent } from '../engine/trace';
import type { Scenario } from '../scenario/schema';
import { EffectTracker } from './effects';
import { fmtList, fmtMs } from '../engine/fmt';

/** The write an event reports (a copy, as it stood then), once it has performed the effect (API call received, upload completed). */
function performedWrite(e: CheckedEvent, scenario: Scenario): DestinationWrite | null {
  const call = destinationCallOf(e);
  if (e.data?.t !== 'write' || !call) return null;
  const w = call.reply;
  if (!w.performed) return null;
  const performedNow = scenario.destination.kind === 'api' ? e.data.phase === 'begin' : e.data.phase === 'end';
  return performedNow ? w : null;
}

/** Every write seen so far, as it stood at its latest event, and the id of the event that began it. */
function writeLog() {
  const writes = new Map<number, DestinationWrite>();
  const beginIds = new Map<number, string>();
  return {
    note(e: CheckedEvent) {
      const call = destinationCallOf(e);
      if (e.data?.t !== 'write' || !call) return;
      writes.set(call.reply.id, call.reply);
      if (e.data.phase === 'begin') beginIds.set(e.data.writeId, e.id);
    },
    all: () => writes.values(),
    get: (writeId: number) => writes.get(writeId),
    beginOf: (writeId: number) => beginIds.get(writeId) ?? '',
  };
}

/**
 * No two completed writes to one target were in flight at the same time (e.g. two overlapping
 * uploads of one file). One finding per incident: accepted writes that overlap one another,
 * directly or through a chain, form one incident, reported once (revised when another write joins
 * it), naming the writers in the order their writes completed, from the earliest to the latest
 * overlapping instant, and citing where each write began and the completion that revealed it.
 */
export function noOverlappingWrites({ scenario, listener }: CheckerContext): InvariantChecker {
  const log = new FindingLog(listener);
  const writes = writeLog();
  const incidents: { writeIds: number[]; fromMs: number; toMs: number; ids: string[]; finding: Finding }[] = [];
  return {
    kind: 'noOverlappingWrites',
    findings: log.findings,
    onEvent(e) {
      writes.note(e);
      if (e.data?.t !== 'write' || e.data.phase !== 'end') return;
      const mine = writes.get(e.data.writeId);
      if (!mine || mine.status !== 'accepted') return;
      const overlaps: { other: DestinationWrite; fromMs: number; toMs: number }[] = [];
      for (const other of writes.all()) {
        if (other.id === mine.id || other.status !== 'accepted' || other.endMs === null) continue;
        const fromMs = Math.max(other.startMs, mine.startMs);
        const toMs = Math.min(other.endMs, mine.endMs ?? e.atMs);
        if (fromMs < toMs) overlaps.push({ other, fromMs, toMs });
      }
      if (overlaps.length === 0) return;
      const target = scenario.destination.target;
      const joined = incidents.find((i) => overlaps.some((o) => i.writeIds.includes(o.other.id)));
      const writeIds = joined ? [...joined.writeIds] : [];
      for (const o of overlaps) if (!writeIds.includes(o.other.id)) writeIds.push(o.other.id);
      writeIds.push(mine.id);
      const fromMs = Math.min(joined?.fromMs ?? Infinity, ...overlaps.map((o) => o.fromMs));
      const toMs = Math.max(joined?.toMs ?? -Infinity, ...overlaps.map((o) => o.toMs));
      const ids = [...new Set([...(joined?.ids ?? []), ...writeIds.map((id) => writes.beginOf(id)), e.id])].filter((x) => x !== '').sort(byId);
      const workers = writeIds.map((id) => `${writes.get(id)!.worker}'s`);
      const next: Finding = {
        invariant: 'noOverlappingWrites',
        severity: 'violation',
        message: `${fmtList(workers)} writes to ${target} overlapped from ${fmtMs(fromMs)} to ${fmtMs(toMs)}, and ${workers.length === 2 ? 'both' : 'all'} were accepted`,
        eventIds: ids,
      };
      if (joined) {
        joined.finding = log.revise(joined.finding, next);
        Object.assign(joined, { writeIds, fromMs, toMs, ids });
      } else incidents.push({ writeIds, fromMs, toMs, ids, finding: log.publish(next) });
    },
    finish() {},
  };
}

/**
 * The fenced resource never accepted a fencing token lower than one it had accepted before, nor
 * the same token from another holder (a token names one grant: two holders with one token — a
 * counter that went back on failover — leave the resource unable to tell the stale one). The
 * fenced resource is the destination, or for a `fencedRow` job the database row: its committed
 * `fence` column, read from the committed rows the UPDATE or COMMIT event carries.
 */
export function noStaleTokenAccepted({ scenario, listener }: CheckerContext): InvariantChecker {
  const log = new FindingLog(listener);
  let highest: { token: number; eventId: string; worker: string } | null = null;
  const job = scenario.job;
  /** The fenced row's committed fence as last seen (its initial 0 until a write commits). */
  let lastCommitted: number | null = null;
  /** Judges one accepted token; returns nothing (publishes a finding when it is stale or reused). */
  const accept = (token: number, worker: string, eventId: string, what: string, lost: string): void => {
    if (highest && token < highest.token) {
      log.publish({ invariant: 'noStaleTokenAccepted', severity: 'violation', message: `${what} accepted ${worker}'s stale token ${token} after token ${highest.token}${lost}`, eventIds: [highest.eventId, eventId] });
    } else if (highest && token === highest.token && worker !== highest.worker) {
      log.publish({ invariant: 'noStaleTokenAccepted', severity: 'violation', message: `${what} accepted ${worker}'s token ${token} after ${highest.worker}'s write with the same token: two holders carried token ${token}, so it could not tell the stale one`, eventIds: [highest.eventId, eventId] });
    } else if (!highest || token > highest.token) highest = { token, eventId, worker };
  };
  return {
    kind: 'noStaleTokenAccepted',
    findings: log.findings,
    onEvent(e) {
      if (job.kind === 'fencedRow') {
        const fence = committedFence(e, job.table, job.rowId, lastCommitted);
        if (fence !== null) lastCommitted = fence;
        if (fence !== null) accept(fence, e.actor, e.id, 'the database', `: ${e.actor}'s UPDATE overwrote the row ${highest?.worker ?? ''} had written`);
        return;
      }
      const w = performedWrite(e, scenario);
      if (!w || w.token === null) return;
      accept(w.token, w.worker, e.id, 'the destination', '');
    },
    finish() {},
  };
}

/**
 * The fence a write committed on the fenced row at this event, or null if the event committed no
 * fenced write there: an autocommit `UPDATE 1` of that table that sets `fence`, or a COMMIT after
 * which the row's committed fence differs from `last` (the committed rows the event carries).
 */
function committedFence(e: CheckedEvent, table: string, rowId: number, last: number | null): number | null {
  const call = sqlCallOf(e);
  if (!call || call.reply.status !== 'ok') return null;
  const cmd = call.command;
  const row = call.committed?.[table]?.find((r) => r.id === rowId);
  const fence = typeof row?.fence === 'number' ? row.fence : null;
  if (cmd.op === 'update') return cmd.table === table && 'fence' in cmd.set && call.inTransaction === false && call.reply.tag !== 'UPDATE 0' ? fence : null;
  if (cmd.op === 'commit' && call.reply.tag === 'COMMIT' && fence !== null && fence !== (last ?? 0)) return fence;
  return null;
}

/**
 * The external effect happens at most once per business key (effects.ts defines a performed
 * effect and a duplicate); with `harmless`, duplicates are reported as redundant, not as a
 * violation. One finding per business key, revised as its count grows; it cites every effect for
 * that key. The message names the key when the job key depends on the worker (`{worker}`).
 */
export function effectOnce({ scenario, listener }: CheckerContext, harmless: boolean): InvariantChecker {
  return perBusinessKey(scenario, listener, (effect, ids) => ({
    invariant: 'effectOnce', severity: harmless ? 'redundant' : 'violation', message: effectMessage(scenario, effect.businessKey, effect.nth, harmless), eventIds: ids,
  }));
}

/**
 * The shared bookkeeping of `effectOnce` and `repeatedEffectsNote`: every effect (effects.ts) is
 * counted per business key; from the second one on, `finding` words the key's finding, published
 * once and revised as its count grows, citing every effect for the key.
 */
function perBusinessKey(scenario: Scenario, listener: CheckerContext['listener'], finding: (effect: { businessKey: string; nth: number }, eventIds: string[]) => Finding): InvariantChecker {
  const log = new FindingLog(listener);
  const effects = new EffectTracker(scenario);
  const byKey = new Map<string, { ids: string[]; finding: Finding | null }>();
  return {
    kind: 'effectOnce',
    findings: log.findings,
    onEvent(e) {
      const effect = effects.note(e);
      if (!effect) return;
      const entry = byKey.get(effect.businessKey) ?? { ids: [], finding: null };
      byKey.set(effect.businessKey, entry);
      if (!entry.ids.includes(e.id)) entry.ids.push(e.id);
      if (effect.nth < 2) return;
      const next = finding(effect, [...entry.ids]);
      entry.finding = entry.finding ? log.revise(entry.finding, next) : log.publish(next);
    },
    finish() {},
  };
}

/**
 * What a repeated effect is called and what happened to it, decided in one place: an insertOnce
 * job's effect is its row for the business key, "inserted"; any other job's is the destination's
 * target, "performed".
 */
function effectWords(scenario: Scenario, businessKey: string): { readonly what: string; readonly verb: 'inserted' | 'performed' } {
  return scenario.job.kind === 'insertOnce' ? { what: `the row for ${businessKey}`, verb: 'inserted' } : { what: scenario.destination.target, verb: 'performed' };
}

/** Words for `n` effects for one business key. */
export function effectMessage(scenario: Scenario, businessKey: string, n: number, harmless: boolean): string {
  const { what, verb } = effectWords(scenario, businessKey);
  const perWorker = scenario.job.kind === 'external' && scenario.job.jobKey.includes('{worker}');
  const forKey = perWorker ? ` for job key ${businessKey}` : '';
  if (harmless) return `${what} was produced ${n} times${forKey} — redundant, not a violation (duplicates are harmless here)`;
  return `${verb === 'inserted' ? what : `the effect ${what}`} was ${verb} ${n} times${forKey}`;
}

/**
 * Not an invariant the scenario declares: when it declares no check on repeated effects
 * (`effectOnce`, or `uniqueBusinessKey` for an insertOnce job), a duplicate effect (effects.ts)
 * is still named in the verdict as a note, so a run never shows a duplicate its verdict is
 * silent about. One note per business key, revised as its count grows.
 */
export function repeatedEffectsNote({ scenario, listener }: CheckerContext): InvariantChecker {
  return perBusinessKey(scenario, listener, (effect, ids) => {
    const { what, verb } = effectWords(scenario, effect.businessKey);
    const named = verb === 'inserted' ? what : `${what} (job key ${effect.businessKey})`;
    return { invariant: 'effectOnce', severity: 'unchecked', message: `${named} was ${verb} ${effect.nth} times — a duplicate this scenario's invariants do not check`, eventIds: ids };
  });
}

function byId(a: string, b: string): number {
  return Number(a.slice(1)) - Number(b.slice(1));
}
