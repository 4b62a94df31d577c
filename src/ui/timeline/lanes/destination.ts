/**
 * The destination lane (file store or external API): each write as a bar from its start to its
 * reply, with its status (accepted, rejected as stale, deduplicated, aborted, in flight), from the
 * final snapshot, and the duplicates — `duplicateEffects` of src/sim (an effect for a business
 * key that already had one), the same function the verdict and the `duplicateEffects` metric use.
 * A duplicate the verdict counts as a violation is red (the only red here: ../../verdict/citations.ts);
 * one it names as a note (declared harmless, or not checked by the scenario's invariants) is amber,
 * and its label says which ("harmless" only for the first). A write rejected for a stale token is grey, dashed and crossed: the
 * destination doing its job, not a violation.
 */
import { duplicateEffects, usesDestination } from '../../../sim';
import { runEndMs } from '../../store/derive';
import { fmtSeconds, type WriteStatus } from '../../../sim';
import type { G } from '../draw/items';
import { ROW_H, stack, touches, type LaneKind } from './types';
import { lineBox, placeText, yOf, type Box } from '../fit';

/** A destination write as a bar. */
export interface WriteBar {
  readonly id: number;
  readonly worker: string;
  readonly startMs: number;
  readonly endMs: number;
  readonly token: number | null;
  readonly status: WriteStatus;
  readonly performed: boolean;
  /**
   * A duplicate effect (src/sim `duplicateEffects`): `violation` when the verdict counts it as one
   * (effectOnce), `note` when the verdict names it as a note, null when it is no duplicate.
   */
  readonly duplicate: 'violation' | 'note' | null;
  /**
   * For a `note`: true when the scenario declares repeats harmless (effectOnce with `harmless`:
   * the verdict's "redundant, not a violation"), false when no invariant of the scenario checks
   * repeats (the verdict's "A duplicate, not checked here"): only the first is called harmless.
   */
  readonly declaredHarmless: boolean;
  /** The duplicate's effect event (the one the verdict cites), when it is a duplicate. */
  readonly duplicateEventId: string | null;
  /** The business key (job key) the write's effect was for, when it is a duplicate. */
  readonly businessKey: string | null;
  readonly row: number;
  readonly reply: string;
}

/** Names the destination lane. */
export interface DestinationLaneRef { readonly kind: 'destination' }

/** The destination lane kind (always one lane). */
export const destinationLanes: LaneKind<DestinationLaneRef, readonly WriteBar[]> = {
  kind: 'destination',
  background: 'var(--lane-destination)',
  traceKinds: ['destination'],
  idOf: () => 'destination',

  lanes(run) {
    // Only a destination something can write to (a lease-only job, or a job whose effect is a database row, has none).
    if (!usesDestination(run.scenario) && !touches(run, ['destination'])) return [];
    const endMs = runEndMs(run);
    const rawWrites = run.snapshots.at(-1)?.destination.writes ?? [];
    const dups = new Map(duplicateEffects(run.scenario, run.events).filter((d) => d.writeId !== null).map((d) => [d.writeId!, d]));
    const violating = new Set(run.verdict.violations.filter((v) => v.invariant === 'effectOnce').flatMap((v) => v.eventIds));
    const declaredHarmless = run.scenario.invariants.some((i) => i.kind === 'effectOnce' && i.harmless);
    const dupOf = (id: number): WriteBar['duplicate'] => {
      const d = dups.get(id);
      return d === undefined ? null : violating.has(d.eventId) ? 'violation' : 'note';
    };
    const items = rawWrites.map((w) => ({ ...w, startMs: w.startMs, endMs: Math.max(w.endMs ?? endMs, w.startMs) }));
    const wStack = stack(items.map((w) => ({ startMs: w.startMs, endMs: w.endMs === w.startMs ? w.startMs + 1 : w.endMs })));
    const writes: WriteBar[] = items.map((w, i) => ({
      id: w.id, worker: w.worker, startMs: w.startMs, endMs: w.endMs, token: w.token, status: w.status, performed: w.performed,
      duplicate: dupOf(w.id), declaredHarmless, duplicateEventId: dups.get(w.id)?.eventId ?? null, businessKey: dups.get(w.id)?.businessKey ?? null, row: wStack.rowOf[i]!, reply: w.reply,
    }));
    return [{
      ref: { kind: 'destination' },
      label: run.scenario.destination.kind === 'file' ? 'File store' : 'External API',
      // What this run's writes did, not every outcome a destination can give ("rejected as stale"
      // in a run with no fencing would tell an interview's candidate what the fix is).
      ariaLabel: destinationSummary(writes),
      // The bottom NOTE_H keeps the cursor note (requests pending at the cursor) clear of the bars.
      h: Math.max(34, wStack.rows * ROW_H + 14) + (writes.some((w) => w.endMs > w.startMs) ? NOTE_H : 0),
      data: writes,
    }];
  },

  items(writes, { X, W, y: top, plotW, uid, showFindings, obstacles }) {
    // Where each bar's words go: inside the bar when they fit, else just after it when there is
    // room before the next bar of the row (or the plot's edge), in a shorter form if need be;
    // else none (the bar's title and accessible name still say it). Words never overlap.
    const nextStartX = new Map<number, number>();
    const byRow = new Map<number, WriteBar[]>();
    for (const w of writes) byRow.set(w.row, [...(byRow.get(w.row) ?? []), w]);
    for (const row of byRow.values()) {
      row.sort((a, b) => a.startMs - b.startMs);
      row.forEach((w, i) => nextStartX.set(w.id, i + 1 < row.length ? X(row[i + 1]!.startMs) : plotW));
    }
    return writes.map((w) => {
      const y = top + 6 + w.row * ROW_H;
      const rx = X(w.startMs);
      const rw = W(w.startMs, w.endMs, 10);
      const dup = w.duplicate !== null && showFindings;
      const noteDup = dup && w.duplicate === 'note';
      const word = dup ? 'DUPLICATE' : w.status === 'rejected' ? 'rejected: stale token' : w.status === 'deduplicated' ? 'deduplicated (key seen)' : w.status === 'conflict' ? '409: key in flight' : w.status === 'aborted' ? 'aborted' : w.status === 'inFlight' ? 'in flight' : 'accepted';
      // While the findings are hidden (predict mode, a lesson before its reveal, an interview's candidate) an accepted write is
      // slate, not the "fine" green: a duplicate is accepted too, and the green told the candidate it was not one.
      const neutral = !showFindings && w.status === 'accepted';
      const edge = neutral ? '#1e293b' : '#064e3b';
      const fill = noteDup ? 'var(--warn)' : dup ? `url(#${uid}-dup)` : w.status === 'rejected' ? '#f3f4f6' : w.status === 'deduplicated' || w.status === 'conflict' ? '#e0f2fe' : w.status === 'aborted' ? '#d1d5db' : neutral ? '#475569' : '#047857';
      // A repeat the verdict names as a note is not drawn as a warning: ↻, and the note's own words —
      // "harmless" only where the scenario declares repeats harmless, else "not checked" (the
      // verdict's "A duplicate, not checked here": a repeat nobody checks is not thereby harmless).
      const noteWord = w.declaredHarmless ? 'harmless DUPLICATE' : 'DUPLICATE, not checked';
      const icon = noteDup ? '↻' : dup ? '⚠' : w.status === 'rejected' ? '✕' : w.status === 'deduplicated' ? '=' : w.status === 'conflict' ? '⟳' : w.status === 'accepted' ? '✓' : '…';
      const light = w.status === 'rejected' || w.status === 'deduplicated' || w.status === 'conflict' || w.status === 'aborted';
      const short = `${icon} ${w.worker}${w.token !== null ? ` tok ${w.token}` : ''}`;
      const place = placeWords(rx, rw, nextStartX.get(w.id) ?? plotW, plotW, [`${short} · ${noteDup ? noteWord : word}`, short, `${icon} ${w.worker}`], obstacles, yOf(lineBox(0, 0, y + 13, 12)));
      const ink = place.inside ? (light ? '#111827' : '#fff') : 'var(--ink)';
      const redDup = dup && !noteDup;
      return {
        key: `${w.id}|${w.worker}|${w.startMs}`,
        sig: `${rx}|${rw}|${y}|${fill}|${place.text}|${place.x}|${place.inside}|${w.reply}`,
        label: `Write #${w.id} by ${w.worker}${w.token !== null ? ` with token ${w.token}` : ''}: ${word}${noteDup ? ` (a repeat for ${w.businessKey ?? 'the same key'}, ${w.declaredHarmless ? 'declared harmless: not a violation' : "which this scenario's invariants do not check: not a violation the verdict counts"})` : ''}`,
        ...(redDup && w.duplicateEventId !== null ? { cites: [w.duplicateEventId] } : {}),
        draw: (sg: G) => {
          sg.append('rect').attr('x', rx).attr('y', y).attr('width', rw).attr('height', ROW_H - 3).attr('rx', 2).attr('fill', fill)
            .attr('stroke', w.status === 'rejected' ? '#374151' : noteDup ? '#78350f' : dup ? '#7f1d1d' : edge).attr('stroke-width', w.status === 'rejected' ? 2 : 1)
            .attr('stroke-dasharray', w.status === 'rejected' || w.status === 'deduplicated' || w.status === 'conflict' ? '4 2' : null);
          if (place.text) {
            const t = sg.append('text').attr('x', place.x).attr('y', y + 13).attr('font-size', 12).attr('font-weight', 700).style('fill', ink).text(place.text);
            if (place.inside && !light) t.attr('paint-order', 'stroke').attr('stroke', noteDup ? '#78350f' : dup ? '#7f1d1d' : edge).attr('stroke-width', 3);
          }
          sg.append('title').text(`Write #${w.id} by ${w.worker}${w.token !== null ? ` (token ${w.token})` : ''}: sent at ${fmtSeconds(w.startMs)}, ${w.endMs > w.startMs ? `pending until ${fmtSeconds(w.endMs)}, then ` : ''}${w.reply}`);
        },
      };
    });
  },

  // A request is pending from when it is sent until its reply arrives (the trace's end event).
  cursorNote: {
    className: 'ttl',
    flipWithinPx: 160,
    text: (writes, cursorMs) => pendingAt(writes, cursorMs),
  },
};

/** The requests sent and not yet answered at `cursorMs`, e.g. `A: pending (no reply yet)`; empty when none. */
export function pendingAt(writes: readonly WriteBar[], cursorMs: number): string {
  const who = [...new Set(writes.filter((w) => w.startMs <= cursorMs && cursorMs < w.endMs).map((w) => w.worker))];
  // One phrase for every pending request, so the note stays short with many workers.
  return who.length === 0 ? '' : `${who.join(', ')}: pending (no reply yet)`;
}

/** Height kept below the bars for the cursor note, in drawing units. */
const NOTE_H = 16;

/** About how wide 12 px bold text is per character, in drawing units. */
const CHAR_W = 7.2;

/**
 * Where the words of a bar at [rx, rx + rw] go: inside it (the first of `texts` that fits), else
 * after it when it ends before `nextX` (the next bar of its row or the plot's edge) with room for
 * one of them; else nowhere (`text` empty). Either way clear of `obstacles` (the lane's fault
 * markers and violation marks) on the words' line `line` (../fit.ts `placeText`).
 */
export function placeWords(rx: number, rw: number, nextX: number, plotW: number, texts: readonly string[], obstacles: readonly Box[] = [], line: readonly [number, number] = [0, 0]): { readonly text: string; readonly x: number; readonly inside: boolean } {
  const left = Math.max(rx, 0);
  const right = Math.min(rx + rw, plotW);
  const inside = placeText(left + 3, right - 3, line[0], line[1], obstacles, CHAR_W, texts);
  if (inside.text) return { ...inside, inside: true };
  const outside = placeText(right + 4, Math.min(nextX, plotW) - 4, line[0], line[1], obstacles, CHAR_W, texts);
  if (outside.text) return { ...outside, inside: false };
  return { text: '', x: left, inside: true };
}

const STATUS_WORDS: Record<WriteStatus, string> = {
  inFlight: 'in flight', accepted: 'accepted', rejected: 'rejected as stale', deduplicated: 'deduplicated', conflict: 'conflict', aborted: 'aborted',
};

/**
 * The lane's accessible name: the outcomes of this run's writes ("Destination: 2 writes —
 * accepted, rejected as stale"); whether one is a duplicate is a finding, left to the marks.
 */
export function destinationSummary(writes: readonly Pick<WriteBar, 'status'>[]): string {
  if (writes.length === 0) return 'Destination: no write';
  const words = [...new Set(writes.map((w) => STATUS_WORDS[w.status]))];
  return `Destination: ${writes.length} write${writes.length === 1 ? '' : 's'} — ${words.join(', ')}`;
}
