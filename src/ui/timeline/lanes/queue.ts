/**
 * Queue lanes (scenario version 2, an SQS-like `queue`): one per message, a bar per delivery —
 * from the ReceiveMessage that delivered it to the DeleteMessage that deleted it, or to the moment
 * it was visible again (its visibility timeout passed, or the stalled-job checker moved it back) —
 * with its consumer, delivery number and the visibility deadline as a ramp, like a lease's TTL.
 * Derived from the events' data (`call`, `data`), not from their texts. A redelivery is hatched,
 * not red: red (../../verdict/citations.ts) only for a delivery whose ReceiveMessage a violation
 * cites (a job acknowledged too late cites its first delivery).
 */
import { runEndMs } from '../../store/derive';
import { fmtSeconds } from '../../faults/faultCatalog';
import { lineBox, placeText, yOf } from '../fit';
import { TEXT_BASELINE } from './types';
import { labelBacking, type G } from '../draw/items';
import { touches, type LaneKind } from './types';
import { citationsOf, VIOLATION_INK } from '../../verdict/citations';
import { visibleAgainAtMs, type QueueCmd, type QueueReply } from '../../../sim/resources/messageQueue';

/** A span of a delivery during which its visibility deadline stayed the same (a receive, then each extension). */
export interface VisibilityPiece {
  /** From this event on (virtual ms) … */
  readonly fromMs: number;
  /** … the message is invisible until this ms (the deadline the queue set then). */
  readonly visibleAtMs: number;
}

/** One delivery of a message: who had it, from when to when, and when its visibility would end. */
export interface Delivery {
  readonly startMs: number;
  readonly endMs: number;
  readonly consumer: string;
  readonly receiptHandle: string;
  readonly receiveCount: number;
  /** The visibility deadline last set (receive or extension). */
  readonly visibleAtMs: number;
  /**
   * The deadline piece by piece, in order: the receive's from `startMs`, then one per successful
   * ChangeMessageVisibility from its event on (never before it). What the cursor note reads.
   */
  readonly visibility: readonly VisibilityPiece[];
  /** How it ended: deleted, visible again, or still in flight when the run ended. */
  readonly end: 'deleted' | 'visible' | 'open';
  /** Still in flight where the run is cut at a cursor (`DerivedRun.shownToMs`): `endMs` is the cut. */
  readonly soFar?: boolean;
  /** The ReceiveMessage event that delivered it. */
  readonly eventId: string;
  /** A violation of the verdict cites that event (set by the lane, false from `deliveriesOf`). */
  readonly cited: boolean;
}

/** Names a message's lane. */
export interface QueueLaneRef { readonly kind: 'queue'; readonly messageId: string }

type Open = { startMs: number; consumer: string; receiptHandle: string; receiveCount: number; visibleAtMs: number; visibility: VisibilityPiece[]; eventId: string };

/**
 * The deliveries of every message of the run, by message id. `stalledCheckEveryMs`: the queue's
 * stalled-job checker period (`queue.stalledCheckEveryMs`; null = SQS), which decides when a
 * received message is visible again (`visibleAgainAtMs`, as the queue decides it).
 */
export function deliveriesOf(events: readonly { id: string; atMs: number; call?: { resource: string; caller: string; command: unknown; reply: unknown }; data?: unknown }[], endMs: number, stalledCheckEveryMs: number | null = null): Map<string, Delivery[]> {
  const out = new Map<string, Delivery[]>();
  const open = new Map<string, Open>();
  const close = (id: string, atMs: number, end: Delivery['end']) => {
    const o = open.get(id);
    if (!o) return;
    open.delete(id);
    out.get(id)!.push({ ...o, endMs: Math.max(atMs, o.startMs), end, cited: false });
  };
  for (const e of events) {
    const d = e.data as { t?: string; op?: string; messageId?: string } | undefined;
    if (d?.t === 'queue' && d.op === 'visible' && d.messageId) close(d.messageId, e.atMs, 'visible');
    if (e.call?.resource !== 'queue') continue;
    const cmd = e.call.command as QueueCmd;
    const reply = e.call.reply as QueueReply;
    if (reply.op === 'ReceiveMessage' && cmd.op === 'ReceiveMessage') {
      const m = reply.messages[0];
      if (!m) continue;
      if (!out.has(m.messageId)) out.set(m.messageId, []);
      close(m.messageId, e.atMs, 'visible');
      const visibleAtMs = visibleAgainAtMs(e.atMs + cmd.visibilityTimeoutMs, stalledCheckEveryMs);
      open.set(m.messageId, { startMs: e.atMs, consumer: e.call.caller, receiptHandle: m.receiptHandle, receiveCount: m.receiveCount, visibleAtMs, visibility: [{ fromMs: e.atMs, visibleAtMs }], eventId: e.id });
    } else if (reply.op === 'DeleteMessage' && reply.deleted && reply.messageId) {
      close(reply.messageId, e.atMs, 'deleted');
    } else if (reply.op === 'ChangeMessageVisibility' && reply.ok && cmd.op === 'ChangeMessageVisibility') {
      for (const o of open.values()) {
        if (o.receiptHandle !== cmd.receiptHandle) continue;
        o.visibleAtMs = reply.visibleAtMs;
        // The new deadline holds from this call on; an extension in the receive's millisecond replaces it.
        if (o.visibility.at(-1)!.fromMs === e.atMs) o.visibility[o.visibility.length - 1] = { fromMs: e.atMs, visibleAtMs: reply.visibleAtMs };
        else o.visibility.push({ fromMs: e.atMs, visibleAtMs: reply.visibleAtMs });
      }
    }
  }
  for (const id of [...open.keys()]) close(id, endMs, 'open');
  return out;
}

/** The visibility piece of a delivery in effect at `atMs` (the last one that began at or before it), if the delivery covers `atMs`. */
export function visibilityPieceAt(d: Delivery, atMs: number): VisibilityPiece | undefined {
  if (atMs < d.startMs || atMs >= d.endMs) return undefined;
  return d.visibility.findLast((p) => p.fromMs <= atMs);
}

/**
 * The cursor note of a message's lane at `cursorMs`: who has it and how long it stays invisible
 * from the cursor on, by the deadline in effect at the cursor (an extension made later does not
 * count yet), e.g. `A: invisible 30 s more`; empty when no delivery keeps it invisible then.
 */
export function invisibleNoteAt(deliveries: readonly Delivery[], cursorMs: number): string {
  for (const d of deliveries) {
    const p = visibilityPieceAt(d, cursorMs);
    if (p && cursorMs < p.visibleAtMs) return `${d.consumer}: invisible ${fmtSeconds(p.visibleAtMs - cursorMs)} more`;
  }
  return '';
}

/**
 * The remaining-visibility ramp of a delivery, one wedge per piece: from the piece's start towards
 * its deadline, cut at the next piece (an extension raises it again) or the delivery's end.
 * Heights are the time left over the longest span any piece started with (0 … 1).
 */
export function visibilityWedges(d: Delivery): { fromMs: number; toMs: number; fromFraction: number; toFraction: number }[] {
  const scale = Math.max(1, ...d.visibility.map((p) => p.visibleAtMs - p.fromMs));
  const frac = (leftMs: number) => Math.max(0, Math.min(1, leftMs / scale));
  return d.visibility.map((p, i) => {
    const end = Math.max(p.fromMs, Math.min(d.visibility[i + 1]?.fromMs ?? d.endMs, d.endMs));
    const toMs = Math.max(p.fromMs, Math.min(p.visibleAtMs, end));
    return { fromMs: p.fromMs, toMs, fromFraction: frac(p.visibleAtMs - p.fromMs), toFraction: frac(p.visibleAtMs - toMs) };
  });
}

/** The queue lane kind. */
export const queueLanes: LaneKind<QueueLaneRef, readonly Delivery[]> = {
  kind: 'queue',
  background: 'var(--lane-lease)',
  traceKinds: ['queue'],
  idOf: (ref) => `queue-${ref.messageId}`,

  lanes(run) {
    const q = run.scenario.queue;
    // An SQS-like queue, or any queue call in the trace (a table queue's rows are the database lane's).
    if ((q === undefined || q.kind !== 'sqs') && !touches(run, ['queue'])) return [];
    const name = q?.kind === 'sqs' ? q.name : 'queue';
    const byMessage = deliveriesOf(run.events, runEndMs(run), q?.kind === 'sqs' ? q.stalledCheckEveryMs ?? null : null);
    const violating = citationsOf(run).violation;
    const cut = run.shownToMs !== undefined;
    for (const [id, ds] of byMessage) byMessage.set(id, ds.map((d) => ({ ...d, cited: violating.has(d.eventId), ...(cut && d.end === 'open' ? { soFar: true } : {}) })));
    const ids = byMessage.size > 0 ? [...byMessage.keys()] : ['m1'];
    return ids.map((messageId) => ({
      ref: { kind: 'queue', messageId },
      label: `${name}: ${messageId}`,
      ariaLabel: `Queue ${name}, message ${messageId}: who has it in flight, and until when it is invisible`,
      h: 36,
      data: byMessage.get(messageId) ?? [],
    }));
  },

  items(deliveries, { X, W, y, h, plotW, uid, showFindings, obstacles }, lane) {
    return deliveries.map((s) => {
      const rx = X(s.startMs);
      const rw = W(s.startMs, s.endMs);
      const ramp = visibilityWedges(s).map((w) => `M${X(w.fromMs)},${y + h - 4 - 11 * w.fromFraction} L${X(w.toMs)},${y + h - 4 - 11 * w.toFraction} L${X(w.toMs)},${y + h - 4} L${X(w.fromMs)},${y + h - 4} Z`).join(' ');
      const words = `${s.consumer} · delivery ${s.receiveCount}`;
      // Clear of the lane's marks; the baseline leaves the cursor note's strip below the bar free.
      const { text, x: textX } = placeText(Math.max(rx, 0) + 5, Math.min(rx + rw, plotW) - 4, ...yOf(lineBox(0, 0, y + TEXT_BASELINE, 13)), obstacles, 7.8, [words, s.consumer]);
      const how = s.end === 'deleted' ? `deleted at ${fmtSeconds(s.endMs)}` : s.end === 'visible' ? `visible again at ${fmtSeconds(s.endMs)}` : s.soFar ? 'in flight so far' : 'still in flight when the run ended';
      const violation = s.cited && showFindings;
      const again = s.receiveCount > 1;
      return {
        key: `${s.startMs}|${s.receiptHandle}`,
        sig: `${rx}|${rw}|${ramp}|${y}|${h}|${words}|${s.end}|${text}|${textX}|${violation}|${uid}`,
        label: `${lane.ref.messageId} in flight with ${s.consumer} (delivery ${s.receiveCount}${again ? ', a redelivery' : ''}) from ${fmtSeconds(s.startMs)}, ${how}${violation ? '; cited by a violation' : ''}`,
        ...(violation ? { cites: [s.eventId] } : {}),
        draw: (sg: G) => {
          sg.append('rect').attr('x', rx).attr('y', y + 4).attr('width', rw).attr('height', h - 20).attr('rx', 3).attr('fill', violation ? VIOLATION_INK : again ? '#155e75' : '#0e7490');
          // A redelivery is hatched (not coloured alone).
          if (again) sg.append('rect').attr('x', rx).attr('y', y + 4).attr('width', rw).attr('height', h - 20).attr('rx', 3).attr('fill', `url(#${uid}-hatch)`);
          if (ramp) sg.append('path').attr('d', ramp).attr('fill', '#22d3ee').attr('opacity', 0.6);
          sg.append('title').text(`${lane.ref.messageId}: receipt handle ${s.receiptHandle}, ${s.consumer}, delivery ${s.receiveCount}; invisible until ${s.visibility.map((p, i) => (i === 0 ? fmtSeconds(p.visibleAtMs) : `${fmtSeconds(p.visibleAtMs)} (extended at ${fmtSeconds(p.fromMs)})`)).join(', then ')}; ${how}`);
          // Over a redelivery's hatching the words sit on a backing in the bar's colour (as a worker's over its pattern).
          if (text && again) labelBacking(sg, textX, Math.min(rx + rw, plotW), lineBox(0, 0, y + TEXT_BASELINE, 13), text.length * 7.8, violation ? VIOLATION_INK : '#155e75');
          if (text) sg.append('text').attr('x', textX).attr('y', y + TEXT_BASELINE).attr('fill', '#fff').attr('font-size', 13).attr('font-weight', 700).text(text);
        },
      };
    });
  },

  // Who has the message at the cursor, and how long it stays invisible from then on.
  cursorNote: {
    className: 'ttl',
    flipWithinPx: 140,
    text: invisibleNoteAt,
  },
};
