/**
 * Worker lanes: one per actor with a machine state (the scenario's workers, then an admin script a
 * fault runs), a segment per state. The state is the events' `state`, except where the trace says
 * the worker did something its machine has no state for: a `ReceiveMessage` that returned no
 * message means the worker is polling the queue (its machine stays `working`). Repeated identical
 * calls within a segment (same command, same reply) are counted from the trace and named by what
 * they were: empty receives, refused attempts, renewals.
 */
import type { TraceEvent, WorkerStateName } from '../../../sim';
import type { QueueCmd, QueueReply } from '../../../sim/resources/messageQueue';
import { runEndMs, type DerivedRun } from '../../store/derive';
import { fmtSeconds } from '../../faults/faultCatalog';
import { STATE_FILL, STATE_PATTERN, textOn, type LaneState } from '../style';
import { lineBox, placeText, r1, yOf } from '../fit';
import { labelBacking, type Item } from '../draw/items';
import type { LaneKind } from './types';
import { MIN_FOLD, spacingText } from '../../log/folds';

export type { LaneState } from '../style';

/** Repeated identical calls within a segment, counted from the trace. */
export interface Repeats {
  /** How many events of the worker in the segment had this command and this reply. */
  readonly count: number;
  /** What they were, plural ("empty receives", "refused attempts", "renewals", …). */
  readonly noun: string;
  /** Their spacing, "1 s apart" or "2–3 s apart". */
  readonly spacing: string;
  /** Ids of the events counted (first and last), for the tooltip. */
  readonly firstId: string;
  readonly lastId: string;
}

/** A span of one worker's lane state. */
export interface StateSegment {
  readonly startMs: number;
  readonly endMs: number;
  readonly state: LaneState;
  /** The longest run of identical calls (at least MIN_FOLD) the worker made in this span. */
  readonly retries?: Repeats;
  /** The state is still on where the run is cut at a cursor (`DerivedRun.shownToMs`): `endMs` is the cut, not its end. */
  readonly soFar?: boolean;
}

/** Names a worker's lane. */
export interface WorkerLaneRef { readonly kind: 'worker'; readonly worker: string }

/** Plain-words name of a worker state. */
export const STATE_TEXT: Record<WorkerStateName, string> = {
  idle: 'idle',
  requesting: 'requesting',
  waiting: 'waiting',
  holding: 'holding the lock',
  working: 'working',
  performingEffect: 'performing the effect',
  recordingCompletion: 'recording completion',
  releasing: 'releasing',
  paused: 'paused',
  crashed: 'crashed',
  done: 'done',
};

/** Plain-words name of a lane state (a machine state, or polling). */
export const LANE_STATE_TEXT: Record<LaneState, string> = { ...STATE_TEXT, polling: 'polling' };

/** One-word state names for narrow segments. */
const STATE_SHORT: Record<LaneState, string> = {
  idle: 'idle', requesting: 'req', waiting: 'wait', holding: 'holds', working: 'work', performingEffect: 'effect',
  recordingCompletion: 'record', releasing: 'release', paused: 'paused', crashed: 'crashed', done: 'done', polling: 'poll',
};

/** The event is a `ReceiveMessage` that returned no message (the caller is polling an empty queue). */
export function isEmptyReceive(e: Pick<TraceEvent, 'call'>): boolean {
  if (e.call?.resource !== 'queue') return false;
  const cmd = e.call.command as QueueCmd;
  const reply = e.call.reply as QueueReply;
  return cmd.op === 'ReceiveMessage' && reply.op === 'ReceiveMessage' && reply.messages.length === 0;
}

/**
 * The lane state after a worker's event: `polling` after an empty `ReceiveMessage` (until the
 * worker's next event), else the event's machine state. Undefined for an event without a state.
 */
export function laneStateOf(e: Pick<TraceEvent, 'call' | 'state'>): LaneState | undefined {
  if (e.state === undefined) return undefined;
  return e.state === 'working' && isEmptyReceive(e) ? 'polling' : e.state;
}

/** What a repeated call was, from its data (never from its narration). */
export function repeatNoun(e: Pick<TraceEvent, 'call' | 'data'>): string {
  if (isEmptyReceive(e)) return 'empty receives';
  const d = e.data;
  if (d?.t === 'lease' && d.op === 'renewed') return 'renewals';
  if (d?.t === 'lease' && d.op === 'renewFailed') return e.call?.resource === 'redis' && (e.call as { cutOff?: true }).cutOff ? 'renewals unanswered' : 'failed renewals';
  const reply = e.call?.reply as { kind?: string } | undefined;
  if (e.call?.resource === 'redis' && (reply?.kind === 'nil' || (reply?.kind === 'int' && (reply as { value: number }).value === 0))) return 'refused attempts';
  return 'identical calls';
}

/**
 * The call repeated most in a row (same command text, same reply text; narration aside) among
 * `events` — one worker's own events in one segment, in order — if that run has at least `min`
 * calls; counted (and spaced) over every time the segment makes that call, in a row or not.
 */
export function repeatsIn(events: readonly TraceEvent[], min = MIN_FOLD): Repeats | undefined {
  const calls = events.filter((e) => e.command !== undefined);
  const key = (e: TraceEvent) => `${e.command}\u0000${e.reply ?? ''}`;
  let bestStart = 0;
  let bestLen = 0;
  for (let start = 0, i = 0; i < calls.length; i++) {
    if (key(calls[i]!) !== key(calls[start]!)) start = i;
    if (i - start + 1 > bestLen) [bestStart, bestLen] = [start, i - start + 1];
  }
  if (bestLen < min) return undefined;
  // Counted over the whole segment: the same call repeated between other calls (an etcd client's
  // grant before each txn, say) is still one call made that many times.
  const bestKey = key(calls[bestStart]!);
  const best = calls.filter((e) => key(e) === bestKey);
  return { count: best.length, noun: repeatNoun(best[0]!), spacing: spacingText(best, best.map((_e, i) => i)), firstId: best[0]!.id, lastId: best.at(-1)!.id };
}

type RawSegment = { startMs: number; endMs: number; state: LaneState; events: TraceEvent[]; soFar?: boolean };

/** Appends a state segment, merging it with the previous one when the state is the same. */
function pushSeg(list: RawSegment[], seg: RawSegment): void {
  const prev = list.at(-1);
  if (prev && prev.state === seg.state && prev.endMs === seg.startMs) list[list.length - 1] = { ...prev, endMs: seg.endMs, events: [...prev.events, ...seg.events], ...(seg.soFar ? { soFar: true } : {}) };
  else list.push(seg);
}

/**
 * Every actor's lane segments (ids: the scenario's workers in order, then any other actor whose
 * events carry a state). A scenario worker's last state lasts until the run's end (its job ends
 * with a `done` event). Any other actor (the admin script of the adminBypass fault) runs one
 * command and has no job steps that take time: after its last event it does nothing more, unless
 * that event left it waiting (its statement still waits for a lock), so its lane ends there; a
 * command answered at once is an instant (`endMs === startMs`). Each segment counts the
 * identical calls among the events that kept the worker in that state (one at the segment's end
 * included: a last empty receive just before `done`).
 */
export function workerSegments(run: DerivedRun): { ids: string[]; segs: Map<string, StateSegment[]> } {
  const endMs = runEndMs(run);
  const workerIds = run.scenario.workers.map((w) => w.id);
  const scenarioWorkers = new Set(workerIds);
  const open = new Map<string, { startMs: number; state: LaneState; events: TraceEvent[] }>();
  const lastAt = new Map<string, number>();
  const raw = new Map<string, RawSegment[]>(workerIds.map((id) => [id, []]));
  for (const e of run.events) {
    const st = laneStateOf(e);
    if (st === undefined) continue;
    if (!raw.has(e.actor)) {
      raw.set(e.actor, []);
      workerIds.push(e.actor);
    }
    lastAt.set(e.actor, e.atMs);
    const cur = open.get(e.actor);
    if (cur && cur.state === st) {
      cur.events.push(e);
      continue;
    }
    if (cur && e.atMs > cur.startMs) pushSeg(raw.get(e.actor)!, { ...cur, endMs: e.atMs });
    open.set(e.actor, { startMs: e.atMs, state: st, events: [e] });
  }
  for (const [id, cur] of open) {
    if (cur.state === 'done') continue;
    const list = raw.get(id)!;
    const last = lastAt.get(id)!;
    if (scenarioWorkers.has(id) || cur.state === 'waiting') pushSeg(list, { ...cur, endMs: Math.max(endMs, cur.startMs), ...(run.shownToMs !== undefined ? { soFar: true } : {}) });
    // An admin script whose command was answered: its lane ends at its last event, or is an
    // instant there when that is all it did.
    else if (last > cur.startMs || list.length === 0) pushSeg(list, { ...cur, endMs: last });
  }
  const segs = new Map<string, StateSegment[]>();
  for (const id of workerIds) {
    segs.set(id, (raw.get(id) ?? []).map(({ events, ...sg }) => {
      const retries = repeatsIn(events);
      return retries ? { ...sg, retries } : sg;
    }));
  }
  return { ids: workerIds, segs };
}

/** The worker lane kind. */
export const workerLanes: LaneKind<WorkerLaneRef, readonly StateSegment[]> = {
  kind: 'worker',
  background: 'var(--lane-worker)',
  traceKinds: [],
  idOf: (ref) => `worker-${ref.worker}`,

  lanes(run) {
    const { ids, segs } = workerSegments(run);
    return ids.map((id) => ({
      ref: { kind: 'worker', worker: id },
      label: `Worker ${id}`,
      ariaLabel: `Worker ${id}: machine states over time`,
      h: 34,
      data: segs.get(id) ?? [],
    }));
  },

  items(segments, { X, W, y, h, plotW, uid, obstacles }, lane) {
    const id = lane.ref.worker;
    const items: Item[] = [];
    for (const s of segments) {
      if (X(s.endMs) < -5 || X(s.startMs) > plotW + 5) continue;
      const rx = X(s.startMs);
      // An instant (an admin script's command answered at once) still shows, as a narrow bar.
      const rw = W(s.startMs, s.endMs, s.endMs === s.startMs ? 4 : 2);
      const pat = STATE_PATTERN[s.state];
      const name = LANE_STATE_TEXT[s.state];
      // Words go inside the bar (white on a light lane would vanish), clear of the fault markers and
      // violation marks on it, in the first gap between them where they fit.
      const baseline = y + h / 2 + 5;
      // Cut at the cursor (the future hidden): since when, never until when.
      const span = s.soFar ? `since ${fmtSeconds(s.startMs)}` : s.endMs === s.startMs ? `at ${fmtSeconds(s.startMs)}` : `${fmtSeconds(s.startMs)} – ${fmtSeconds(s.endMs)}`;
      const base = s.endMs === s.startMs ? name : `${name} ${fmtSeconds(s.endMs - s.startMs)}`;
      const r = s.retries;
      const repeats = r ? `${r.count} ${r.noun}${r.spacing ? `, ${r.spacing}` : ''}` : '';
      const { text, x: textX } = placeText(Math.max(rx, 0) + 5, Math.min(rx + rw, plotW) - 2, ...yOf(lineBox(0, 0, baseline, 13)), obstacles, 8.2, [...(r ? [`${base} · ${repeats}`, `${base} · × ${r.count}`] : []), base, name, STATE_SHORT[s.state]]);
      items.push({
        key: `${s.startMs}|${s.state}`,
        sig: `${rx}|${rw}|${y}|${h}|${s.endMs}|${text}|${r1(textX)}|${uid}|${repeats}`,
        label: `${id} ${name} ${s.soFar || s.endMs === s.startMs ? span : `from ${fmtSeconds(s.startMs)} to ${fmtSeconds(s.endMs)}`}${r ? `, ${repeats} (${r.firstId} – ${r.lastId})` : ''}`,
        draw: (sg) => {
          sg.append('rect').attr('x', rx).attr('y', y + 4).attr('width', rw).attr('height', h - 8).attr('rx', 3).attr('fill', STATE_FILL[s.state]);
          if (pat) sg.append('rect').attr('x', rx).attr('y', y + 4).attr('width', rw).attr('height', h - 8).attr('fill', `url(#${uid}-${pat})`);
          sg.append('title').text(`${id}: ${name} ${span}${r ? ` (${repeats}: ${r.firstId} – ${r.lastId})` : ''}`);
          // Over a pattern (dots, hatching, a cross), the words sit on a backing in the bar's own
          // colour (the room placeText kept for them): a glyph-shaped halo alone let the dots show
          // between the letters and inside them. The halo stays for the rare glyph wider than the estimate.
          if (text && pat) labelBacking(sg, textX, Math.min(rx + rw, plotW), lineBox(0, 0, baseline, 13), text.length * 8.2, STATE_FILL[s.state]);
          if (text) sg.append('text').attr('x', textX).attr('y', baseline).attr('fill', textOn(s.state)).attr('font-size', 13).attr('font-weight', 600)
            .attr('stroke', STATE_FILL[s.state]).attr('stroke-width', 3).attr('paint-order', 'stroke').attr('stroke-linejoin', 'round').text(text);
        },
      });
    }
    return items;
  },
};
