/**
 * The destination lane (file store or external API): each write as a bar from its start to its
 * reply, with its status (accepted, rejected as stale, deduplicated, aborted, in flight) and the
 * duplicates (a write performed after another already performed the effect), from the final
 * snapshot.
 */
import { runEndMs } from '../../store/derive';
import type { G } from '../draw/items';
import { ROW_H, stack, type LaneKind } from './types';

/** A destination write as a bar. */
export interface WriteBar {
  readonly id: number;
  readonly worker: string;
  readonly startMs: number;
  readonly endMs: number;
  readonly token: number | null;
  readonly status: 'inFlight' | 'accepted' | 'rejected' | 'deduplicated' | 'aborted';
  readonly performed: boolean;
  /** Performed after another write already performed the effect. */
  readonly duplicate: boolean;
  readonly row: number;
  readonly reply: string;
}

/** Names the destination lane. */
export interface DestinationLaneRef { readonly kind: 'destination' }

/** The destination lane kind (always one lane). */
export const destinationLanes: LaneKind<DestinationLaneRef, readonly WriteBar[]> = {
  kind: 'destination',
  background: '#f3f0ff',
  idOf: () => 'destination',

  lanes(run) {
    const endMs = runEndMs(run);
    const rawWrites = run.snapshots.at(-1)?.destination.writes ?? [];
    let performedSoFar = 0;
    const byPerformOrder = [...rawWrites].filter((w) => w.performed).sort((a, b) => (a.endMs ?? endMs) - (b.endMs ?? endMs) || a.id - b.id);
    const dupIds = new Set<number>();
    for (const w of byPerformOrder) {
      performedSoFar += 1;
      if (performedSoFar > 1) dupIds.add(w.id);
    }
    const items = rawWrites.map((w) => ({ ...w, startMs: w.startMs, endMs: Math.max(w.endMs ?? endMs, w.startMs) }));
    const wStack = stack(items.map((w) => ({ startMs: w.startMs, endMs: w.endMs === w.startMs ? w.startMs + 1 : w.endMs })));
    const writes: WriteBar[] = items.map((w, i) => ({
      id: w.id, worker: w.worker, startMs: w.startMs, endMs: w.endMs, token: w.token, status: w.status, performed: w.performed,
      duplicate: dupIds.has(w.id), row: wStack.rowOf[i]!, reply: w.reply,
    }));
    return [{
      ref: { kind: 'destination' },
      label: run.scenario.destination.kind === 'file' ? 'File store' : 'External API',
      ariaLabel: 'Destination: writes accepted, rejected as stale, duplicates',
      h: Math.max(34, wStack.rows * ROW_H + 14),
      data: writes,
    }];
  },

  items(writes, { X, W, y: top, plotW, uid, showFindings }) {
    return writes.map((w) => {
      const y = top + 6 + w.row * ROW_H;
      const rx = X(w.startMs);
      const rw = W(w.startMs, w.endMs, 10);
      const dup = w.duplicate && showFindings;
      const word = dup ? 'DUPLICATE' : w.status === 'rejected' ? 'rejected: stale token' : w.status === 'deduplicated' ? 'deduplicated (key seen)' : w.status === 'aborted' ? 'aborted' : w.status === 'inFlight' ? 'in flight' : 'accepted';
      const fill = dup ? `url(#${uid}-dup)` : w.status === 'rejected' ? '#f3f4f6' : w.status === 'deduplicated' ? '#e0f2fe' : w.status === 'aborted' ? '#d1d5db' : '#047857';
      const icon = dup ? '⚠' : w.status === 'rejected' ? '✕' : w.status === 'deduplicated' ? '=' : w.status === 'accepted' ? '✓' : '…';
      const dark = w.status === 'rejected' || w.status === 'deduplicated' || w.status === 'aborted';
      const short = `${icon} ${w.worker}${w.token !== null ? ` tok ${w.token}` : ''}`;
      const text = `${short}${rw > 120 || dark ? ` · ${word}` : ''}`;
      // Room for the words: anchor at the bar's start, or end them at the bar's end (or the plot's
      // edge) when they would run off the right; keep only the short form when neither fits.
      const need = text.length * 7.2 + 8;
      const endX = Math.min(rx + rw, plotW);
      const anchorEnd = rx + need > plotW && endX - need >= 0;
      const shown = rx + need > plotW && endX - need < 0 ? short : text;
      return {
        key: `${w.id}|${w.worker}|${w.startMs}`,
        sig: `${rx}|${rw}|${y}|${fill}|${shown}|${anchorEnd}|${w.reply}`,
        label: `Write #${w.id} by ${w.worker}${w.token !== null ? ` with token ${w.token}` : ''}: ${word}`,
        draw: (sg: G) => {
          sg.append('rect').attr('x', rx).attr('y', y).attr('width', rw).attr('height', ROW_H - 3).attr('rx', 2).attr('fill', fill)
            .attr('stroke', w.status === 'rejected' ? '#b91c1c' : dup ? '#7f1d1d' : '#064e3b').attr('stroke-width', w.status === 'rejected' ? 2 : 1)
            .attr('stroke-dasharray', w.status === 'rejected' || w.status === 'deduplicated' ? '4 2' : null);
          sg.append('text').attr('x', anchorEnd ? endX - 3 : rx + 3).attr('text-anchor', anchorEnd ? 'end' : 'start').attr('y', y + 13).attr('font-size', 12).attr('font-weight', 700).attr('fill', dark ? (w.status === 'rejected' ? '#991b1b' : '#111827') : '#fff')
            .attr('paint-order', 'stroke').attr('stroke', dark ? 'none' : dup ? '#7f1d1d' : '#064e3b').attr('stroke-width', dark ? 0 : 3)
            .text(shown);
          sg.append('title').text(`Write #${w.id} by ${w.worker}${w.token !== null ? ` (token ${w.token})` : ''}: ${w.reply}`);
        },
      };
    });
  },
};
