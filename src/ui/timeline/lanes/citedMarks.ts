/**
 * The rule that a finding is seen where it happened: every event a violation cites is drawn as a
 * violation mark on its own lane (../../verdict/citations.ts). A lane kind draws the cited events it
 * knows how to (the database's cited row, the destination's duplicate, the queue's cited delivery);
 * any other cited event of the lane — a COMMIT, a wait, a Redis reply, a worker's step or outcome —
 * gets this module's generic mark: a red triangle at the event's time, named by the finding.
 */
import type { TraceEvent } from '../../../sim';
import type { DerivedRun } from '../../store/derive';
import { fmtSeconds } from '../../faults/faultCatalog';
import type { Item } from '../draw/items';
import { VIOLATION_INK } from '../../verdict/citations';
import type { DrawContext } from './types';
import type { Box } from '../fit';

/** The id of the message a queue event is about (its call's reply or command, or its data), if it names one. */
function messageIdOf(e: TraceEvent): string | undefined {
  const d = e.data as { messageId?: string } | undefined;
  if (d?.messageId) return d.messageId;
  const r = e.call?.resource === 'queue' ? (e.call.reply as { messages?: readonly { messageId: string }[]; messageId?: string | null }) : undefined;
  return r?.messages?.[0]?.messageId ?? r?.messageId ?? undefined;
}

/**
 * The id of the lane an event belongs to among `lanes` (ids and refs), or undefined when none
 * shows it: the lane of the resource its trace kind names (`laneKind`: the registry's
 * laneKindOfTraceKind; a queue event on its message's lane), else its actor's worker lane.
 */
export function laneIdOfEvent(e: TraceEvent, lanes: readonly { readonly id: string; readonly ref: { readonly kind: string } }[], laneKind: (traceKind: string) => string | undefined): string | undefined {
  const kind = laneKind(e.kind);
  if (kind === undefined) return lanes.find((l) => l.id === `worker-${e.actor}`)?.id;
  const ofKind = lanes.filter((l) => l.ref.kind === kind);
  if (kind === 'queue') {
    const m = messageIdOf(e);
    return (ofKind.find((l) => (l.ref as { messageId?: string }).messageId === m) ?? ofKind[0])?.id;
  }
  return ofKind[0]?.id;
}

/**
 * The box of a violation triangle at x `mx` on a lane whose top is `y` (drawing units): the generic
 * mark's and the database's own cited mark's shape, which the lane's words keep clear of.
 */
export function triangleBox(mx: number, y: number): Box {
  return { x0: mx - 7, x1: mx + 7, y0: y + 2, y1: y + 14 };
}

/** The generic violation mark of a cited event no lane item draws (see the module's comment), at x `mx` (the event's time's, unless moved clear of another mark). */
export function citedMark(e: TraceEvent, messages: readonly string[], { X, y, h }: DrawContext, mx = X(e.atMs)): Item {
  const what = e.command ?? e.narration;
  const label = `${e.id} at ${fmtSeconds(e.atMs)}, cited by a violation: ${messages.join('; ')}`;
  return {
    key: `cited|${e.id}|${e.atMs}`,
    sig: `${mx}|${y}|${h}|${label}`,
    label,
    cites: [e.id],
    draw: (sg) => {
      sg.append('path').attr('class', 'mark').attr('d', `M${mx},${y + 2} l7,12 l-14,0 Z`).attr('fill', VIOLATION_INK);
      sg.append('text').attr('class', 'mark-glyph').attr('x', mx).attr('y', y + 13).attr('text-anchor', 'middle').attr('font-size', 10).attr('font-weight', 700).attr('fill', '#fff').text('!');
      sg.append('title').text(`Cited by a violation: ${messages.join('; ')} (${e.actor}${what ? `: ${what.slice(0, 100)}` : ''})`);
    },
  };
}

/** The violation findings' messages that cite each event, by event id. */
export function violationMessagesByEvent(run: Pick<DerivedRun, 'verdict'>): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const f of run.verdict.violations) for (const id of new Set(f.eventIds)) out.set(id, [...(out.get(id) ?? []), f.message]);
  return out;
}
