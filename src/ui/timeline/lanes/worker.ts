/** Worker lanes: one per worker, a segment per machine state (from the events' `state`). */
import type { WorkerStateName } from '../../../sim';
import { runEndMs } from '../../store/derive';
import { fmtSeconds } from '../../faults/faultCatalog';
import { STATE_FILL, STATE_PATTERN, textOn } from '../style';
import { fitText, r1 } from '../fit';
import type { Item } from '../draw/items';
import type { LaneKind } from './types';
import { foldRetries, spacingText } from '../../log/folds';

/** A span of one worker's machine state. */
export interface StateSegment {
  readonly startMs: number;
  readonly endMs: number;
  readonly state: WorkerStateName;
  /** Identical retries folded into this span (the log's folds, ../../log/folds.ts): how many, and their spacing. */
  readonly retries?: { readonly count: number; readonly spacing: string };
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

/** One-word state names for narrow segments. */
const STATE_SHORT: Record<WorkerStateName, string> = {
  idle: 'idle', requesting: 'req', waiting: 'wait', holding: 'holds', working: 'work', performingEffect: 'effect',
  recordingCompletion: 'record', releasing: 'release', paused: 'paused', crashed: 'crashed', done: 'done',
};

/** Appends a state segment, merging it with the previous one when the state is the same. */
function pushSeg(list: StateSegment[], seg: StateSegment): void {
  const prev = list.at(-1);
  if (prev && prev.state === seg.state && prev.endMs === seg.startMs) list[list.length - 1] = { ...prev, endMs: seg.endMs };
  else list.push(seg);
}

/** The worker lane kind. */
export const workerLanes: LaneKind<WorkerLaneRef, readonly StateSegment[]> = {
  kind: 'worker',
  background: 'var(--lane-worker)',
  idOf: (ref) => `worker-${ref.worker}`,

  lanes(run) {
    const endMs = runEndMs(run);
    // The scenario's workers in order, then any other actor whose events carry a state.
    const workerIds = run.scenario.workers.map((w) => w.id);
    const open = new Map<string, { startMs: number; state: WorkerStateName }>();
    const segs = new Map<string, StateSegment[]>(workerIds.map((id) => [id, []]));
    for (const e of run.events) {
      if (e.state === undefined) continue;
      if (!segs.has(e.actor)) {
        segs.set(e.actor, []);
        workerIds.push(e.actor);
      }
      const cur = open.get(e.actor);
      if (cur && cur.state === e.state) continue;
      if (cur && e.atMs > cur.startMs) pushSeg(segs.get(e.actor)!, { startMs: cur.startMs, endMs: e.atMs, state: cur.state });
      open.set(e.actor, { startMs: e.atMs, state: e.state });
    }
    for (const [id, cur] of open) if (cur.state !== 'done') pushSeg(segs.get(id)!, { startMs: cur.startMs, endMs: Math.max(endMs, cur.startMs), state: cur.state });
    // The retries the log folds, told on the span they fall in ("waiting 29 s · 27 retries, 1 s apart").
    for (const f of foldRetries(run.events)) {
      if (f.kind !== 'fold') continue;
      const first = run.events[f.indices[0]!]!;
      const list = segs.get(first.actor);
      const at = list?.findIndex((sg) => sg.startMs <= first.atMs && first.atMs < sg.endMs) ?? -1;
      if (list && at >= 0 && !list[at]!.retries) list[at] = { ...list[at]!, retries: { count: f.indices.length, spacing: spacingText(run.events, f.indices) } };
    }
    return workerIds.map((id) => ({
      ref: { kind: 'worker', worker: id },
      label: `Worker ${id}`,
      ariaLabel: `Worker ${id}: machine states over time`,
      h: 34,
      data: segs.get(id) ?? [],
    }));
  },

  items(segments, { X, W, y, h, plotW, uid, markerXs }, lane) {
    const id = lane.ref.worker;
    const items: Item[] = [];
    for (const s of segments) {
      if (X(s.endMs) < -5 || X(s.startMs) > plotW + 5) continue;
      const rx = X(s.startMs);
      const rw = W(s.startMs, s.endMs);
      const pat = STATE_PATTERN[s.state];
      // Words start after a fault marker sitting at the segment's start, end before the next one,
      // and appear only where they fit inside the bar (white on a light lane would vanish).
      const textX = Math.max(rx + 5, ...markerXs.filter((m) => m >= rx - 14 && m <= rx + 16).map((m) => m + 16));
      const stop = Math.min(rx + rw, plotW, ...markerXs.filter((m) => m > textX - 2).map((m) => m - 15));
      const base = `${STATE_TEXT[s.state]} ${fmtSeconds(s.endMs - s.startMs)}`;
      const r = s.retries;
      const text = fitText(stop - textX - 2, 8.2, ...(r ? [`${base} · ${r.count} retries, ${r.spacing}`, `${base} · × ${r.count}`] : []), base, STATE_TEXT[s.state], STATE_SHORT[s.state]);
      items.push({
        key: `${s.startMs}|${s.state}`,
        sig: `${rx}|${rw}|${y}|${h}|${s.endMs}|${text}|${r1(textX)}|${uid}|${s.retries?.count ?? 0}`,
        label: `${id} ${STATE_TEXT[s.state]} from ${fmtSeconds(s.startMs)} to ${fmtSeconds(s.endMs)}${s.retries ? `, ${s.retries.count} identical retries ${s.retries.spacing}` : ''}`,
        draw: (sg) => {
          sg.append('rect').attr('x', rx).attr('y', y + 4).attr('width', rw).attr('height', h - 8).attr('rx', 3).attr('fill', STATE_FILL[s.state]);
          if (pat) sg.append('rect').attr('x', rx).attr('y', y + 4).attr('width', rw).attr('height', h - 8).attr('fill', `url(#${uid}-${pat})`);
          sg.append('title').text(`${id}: ${STATE_TEXT[s.state]} ${fmtSeconds(s.startMs)} – ${fmtSeconds(s.endMs)}${s.retries ? ` (${s.retries.count} identical retries, ${s.retries.spacing})` : ''}`);
          if (text) sg.append('text').attr('x', textX).attr('y', y + h / 2 + 5).attr('fill', textOn(s.state)).attr('font-size', 13).attr('font-weight', 600)
            // A halo in the bar's colour keeps the words readable over the dotted and hatched patterns.
            .attr('stroke', STATE_FILL[s.state]).attr('stroke-width', 3).attr('paint-order', 'stroke').attr('stroke-linejoin', 'round').text(text);
        },
      });
    }
    return items;
  },
};
