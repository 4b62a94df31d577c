/**
 * The database lane: locks held (solid) and waited for (dotted) per session, from the snapshots'
 * pg_locks view, stacked in rows; rows written, writes refused, error replies and sequence values
 * taken (`nextval`) as marks, from the SQL calls and replies (their data, not their texts). A write
 * the database refused — a fenced `UPDATE … AND fence < $token` that updated 0 rows of an existing
 * row (a stale token), a 23505 unique violation, an `INSERT … ON CONFLICT DO NOTHING` that inserted
 * nothing — is a grey crossed square, unlike a row written (green) and an error reply (an
 * amber-brown circle: 40001 the framework retries, 40P01). Any mark a violation cites is a red
 * triangle, like the verdict's marks (../../verdict/citations.ts), whatever it was: the overwrite
 * a finding names is not drawn as an ordinary row.
 */
import { sqlCallOf, usesDatabase, type TraceEvent } from '../../../sim';
import { runEndMs } from '../../store/derive';
import { fmtSeconds } from '../../faults/faultCatalog';
import { ellipsized, lineBox, overlaps, placeText, spreadXs, yOf, type Box } from '../fit';
import { triangleBox } from './citedMarks';
import { labelBacking, type Item } from '../draw/items';
import { ROW_H, stack, touches, type LaneKind } from './types';
import { citationsOf, ERROR_REPLY_INK, VIOLATION_INK } from '../../verdict/citations';

/** SQL statements and the connection pool's borrow/return (PgBouncer's events are the pool's too). */
const DATABASE_TRACE_KINDS = ['sql', 'pool'];

/** A span during which a session held (or waited for) one database lock. */
export interface LockSegment { readonly startMs: number; readonly endMs: number; readonly what: string; readonly holder: string; readonly granted: boolean; readonly row: number }
/** A point mark on the database lane: a row written, a write refused, an error reply, a sequence value taken (`nextval`). */
export interface DbMark {
  readonly atMs: number;
  readonly kind: 'row' | 'refused' | 'error' | 'sequence';
  readonly eventId: string;
  readonly label: string;
  readonly value?: number;
  /** A violation of the verdict cites this event (then the mark, of any kind, is drawn as a violation). */
  readonly cited: boolean;
}

/**
 * Why the database refused a write, from the SQL call's data, or null when the event is no refused
 * write: `stale` — a fenced UPDATE (`whereBelow`) that updated 0 rows while its row exists (its
 * fence was not lower: PostgreSQL docs, UPDATE, "count is the number of rows updated"), `unique` —
 * ERROR 23505 on an INSERT or UPDATE, `conflict` — `INSERT … ON CONFLICT DO NOTHING` that inserted 0
 * rows (PostgreSQL docs, INSERT, "ON CONFLICT DO NOTHING").
 */
export function refusedWriteOf(e: Pick<TraceEvent, 'call'>): 'stale' | 'unique' | 'conflict' | null {
  const call = sqlCallOf(e);
  if (!call) return null;
  const { command: cmd, reply } = call;
  if (cmd.op !== 'insert' && cmd.op !== 'update') return null;
  if (reply.status === 'error') return reply.error.code === '23505' ? 'unique' : null;
  if (reply.status !== 'ok') return null;
  if (cmd.op === 'insert') return cmd.onConflictDoNothing && reply.tag === 'INSERT 0 0' ? 'conflict' : null;
  if (cmd.whereBelow === undefined || reply.tag !== 'UPDATE 0') return null;
  // The row the UPDATE names exists (it is the fence that refused it), as the session sees it.
  const rows = call.committed?.[cmd.table] ?? [];
  return rows.some((r) => Object.entries(cmd.where).every(([k, v]) => r[k] === v)) ? 'stale' : null;
}

const REFUSED_WORDS = { stale: 'refused as stale (UPDATE 0: the row carries a newer fencing token)', unique: 'refused: duplicate key (23505)', conflict: 'refused: ON CONFLICT DO NOTHING inserted nothing' } as const;

/** Names the database lane. */
export interface DatabaseLaneRef { readonly kind: 'database' }

/** What the database lane draws. */
export interface DatabaseLaneData {
  readonly locks: readonly LockSegment[];
  readonly marks: readonly DbMark[];
}

/** The session → worker map at one snapshot (pool borrowers; the admin's own session). */
function holderOf(sessionId: string, borrowers: ReadonlyMap<string, string | null>): string {
  if (borrowers.has(sessionId)) {
    const b = borrowers.get(sessionId);
    return b ?? `${sessionId} (idle in pool)`;
  }
  return sessionId;
}

/** The database lane kind (always one lane). */
export const databaseLanes: LaneKind<DatabaseLaneRef, DatabaseLaneData> = {
  kind: 'database',
  background: 'var(--lane-database)',
  traceKinds: DATABASE_TRACE_KINDS,
  idOf: () => 'database',

  lanes(run) {
    // Only when something talks to PostgreSQL (a lease-only job has no database to show): the
    // scenario says so, or the trace has a statement or a pooled connection.
    if (!usesDatabase(run.scenario) && !touches(run, DATABASE_TRACE_KINDS)) return [];
    const { events, snapshots } = run;
    const endMs = runEndMs(run);
    // Locks: open segments keyed by lock object + session + granted.
    const openLocks = new Map<string, { startMs: number; what: string; holder: string; granted: boolean }>();
    const lockSegs: Omit<LockSegment, 'row'>[] = [];
    snapshots.forEach((snap, i) => {
      const atMs = events[i]?.atMs ?? snap.atMs;
      const borrowers = new Map(snap.pool.connections.map((c) => [c.id, c.borrower] as const));
      const seen = new Set<string>();
      for (const l of snap.locks) {
        const holder = holderOf(l.sessionId, borrowers);
        const key = `${l.locktype}|${l.objectDescription}|${l.sessionId}|${l.granted}`;
        seen.add(key);
        const o = openLocks.get(key);
        if (!o) openLocks.set(key, { startMs: atMs, what: `${l.objectDescription} ${l.mode}${l.scope ? ` (${l.scope})` : ''}`, holder, granted: l.granted });
        else if (o.holder !== holder && !holder.includes('idle')) o.holder = holder;
      }
      for (const [key, o] of openLocks) {
        if (!seen.has(key)) {
          lockSegs.push({ ...o, endMs: atMs });
          openLocks.delete(key);
        }
      }
    });
    for (const o of openLocks.values()) lockSegs.push({ ...o, endMs });
    lockSegs.sort((a, b) => a.startMs - b.startMs);
    const lockStack = stack(lockSegs.map((l) => ({ startMs: l.startMs, endMs: Math.max(l.endMs, l.startMs + 1) })));

    // Rows written, errors, sequence values taken (a fencing token from nextval holds no lock to draw).
    const marks: DbMark[] = [];
    const violating = citationsOf(run).violation;
    for (const e of events) {
      if (e.kind !== 'sql' || !e.reply) continue;
      const cited = violating.has(e.id);
      const call = sqlCallOf(e);
      if (call?.command.op === 'nextval' && call.reply.status === 'ok') {
        const value = Number(call.reply.rows?.[0]?.nextval);
        marks.push({ atMs: e.atMs, kind: 'sequence', eventId: e.id, label: `${e.actor}: nextval('${call.command.seq}') = ${value}`, value, cited });
        continue;
      }
      const refused = refusedWriteOf(e);
      if (refused !== null) marks.push({ atMs: e.atMs, kind: 'refused', eventId: e.id, label: `${e.actor}: ${e.reply.slice(0, 80)} — ${REFUSED_WORDS[refused]}`, cited });
      // FATAL: the server ended the session (idle_in_transaction_session_timeout), marked like an error.
      else if (/^(ERROR|FATAL)/.test(e.reply)) marks.push({ atMs: e.atMs, kind: 'error', eventId: e.id, label: `${e.actor}: ${e.reply.slice(0, 80)}`, cited });
      else if (/^(INSERT 0 [1-9]|UPDATE [1-9])/.test(e.reply)) marks.push({ atMs: e.atMs, kind: 'row', eventId: e.id, label: `${e.actor}: ${e.reply}`, cited });
    }

    return [{
      ref: { kind: 'database' },
      label: 'Database',
      ariaLabel: 'Database: locks held and waited for, rows written, errors',
      // Below the lock rows, a strip for the marks of rows written, refusals and sequence values (MARK_STRIP).
      h: Math.max(38, lockStack.rows * ROW_H + 18),
      data: { locks: lockSegs.map((l, i) => ({ ...l, row: lockStack.rowOf[i]! })), marks },
    }];
  },

  items({ locks, marks }, { X, W, y: top, h, plotW, uid, showFindings, obstacles }) {
    // A lock's words, longest first: whole, then cut short with "…" (at least a few letters of
    // what it locks), then the holder alone; the bar's tooltip and accessible name say it whole.
    const lockLabels = (l: LockSegment): string[] => {
      const who = `${l.granted ? '' : 'waits: '}${l.holder}`;
      const whole = `${who} · ${l.what}`;
      return [whole, ...ellipsized(whole, who.length + 6), who];
    };
    const items: Item[] = [];
    // The marks at the lane's top (a cited reply's triangle, an error's circle) and in the strip
    // at its bottom (rows, refusals, sequence values), as boxes: the lock rows' words keep clear
    // of them, and a mark's caption is drawn only where it touches no other mark or caption.
    const topMark = (m: DbMark) => (m.cited && showFindings) || m.kind === 'error';
    // The marks at the lane's top stand side by side where their times are close (spreadXs).
    const tops = marks.filter(topMark);
    const spread = spreadXs(tops.map((t) => X(t.atMs)), 7.5);
    const topXs = new Map(tops.map((m, i) => [m, spread[i]!]));
    // So do the strip's (two rows written at one time).
    const strip = marks.filter((m) => !topMark(m));
    const stripSpread = spreadXs(strip.map((m) => X(m.atMs)), 6);
    strip.forEach((m, i) => topXs.set(m, stripSpread[i]!));
    const xOf = (m: DbMark) => topXs.get(m) ?? X(m.atMs);
    const markBox = (m: DbMark): Box => {
      const mx = xOf(m);
      return topMark(m) ? (m.cited && showFindings ? triangleBox(mx, top) : { x0: mx - 7.5, x1: mx + 7.5, y0: top + 1.5, y1: top + 16.5 }) : { x0: mx - 6, x1: mx + 6, y0: top + h - 15, y1: top + h - 3 };
    };
    const markBoxes = marks.map(markBox);
    const around = [...obstacles, ...markBoxes];
    for (const l of locks) {
      const y = top + 6 + l.row * ROW_H;
      const rx = X(l.startMs);
      const rw = W(l.startMs, l.endMs, 3);
      const { text, x: textX } = placeText(Math.max(rx, 0) + 4, Math.min(rx + rw, plotW) - 4, ...yOf(lineBox(0, 0, y + 12, 12)), around, 6.9, lockLabels(l));
      items.push({
        key: `lock|${l.startMs}|${l.holder}|${l.what}|${l.granted}`,
        sig: `${rx}|${rw}|${y}|${l.endMs}|${text}|${textX}|${uid}`,
        label: `${l.holder} ${l.granted ? 'holds' : 'waits for'} ${l.what} from ${fmtSeconds(l.startMs)} to ${fmtSeconds(l.endMs)}`,
        draw: (sg) => {
          sg.append('rect').attr('x', rx).attr('y', y).attr('width', rw).attr('height', ROW_H - 4).attr('rx', 2)
            .attr('fill', l.granted ? '#1e40af' : '#e5e7eb').attr('stroke', l.granted ? 'none' : '#1e40af').attr('stroke-dasharray', '4 2');
          if (!l.granted) sg.append('rect').attr('x', rx).attr('y', y).attr('width', rw).attr('height', ROW_H - 4).attr('fill', `url(#${uid}-dots)`);
          sg.append('title').text(`${l.holder} ${l.granted ? 'holds' : 'waits for'} ${l.what}`);
          // A waiting lock's words sit on a backing in its fill, off the dots (see worker.ts).
          if (text && !l.granted) labelBacking(sg, textX, Math.min(rx + rw, plotW), lineBox(0, 0, y + 12, 12), text.length * 6.9, '#e5e7eb');
          if (text) sg.append('text').attr('x', textX).attr('y', y + 12).attr('font-size', 12).attr('fill', l.granted ? '#fff' : '#111827')
            .attr('stroke', l.granted ? '#1e40af' : '#e5e7eb').attr('stroke-width', 3).attr('paint-order', 'stroke').attr('stroke-linejoin', 'round').text(text);
        },
      });
    }
    const captions: Box[] = [];
    marks.forEach((m, i) => {
      const mx = xOf(m);
      // Red for any mark a violation cites (only while findings are shown); any other error is an error reply.
      const violation = m.cited && showFindings;
      // The caption after a strip mark ("row", "refused", the sequence value), where it is clear of every other mark and caption.
      const word = topMark(m) ? '' : m.kind === 'sequence' ? String(m.value) : m.kind === 'refused' ? 'refused' : 'row';
      const at = mx + (m.kind === 'refused' ? 8 : 7);
      const wordBox = lineBox(at - 1, at + word.length * 6.8 + 1, top + h - 4, 11);
      const caption = word !== '' && ![...obstacles, ...markBoxes.filter((_, j) => j !== i), ...captions].some((b) => overlaps(b, wordBox)) ? word : '';
      if (caption) captions.push(wordBox);
      const what = m.kind === 'error' ? 'Error' : m.kind === 'refused' ? 'Write refused' : m.kind === 'sequence' ? 'Sequence value taken' : 'Row written';
      items.push({
        key: `mark|${m.kind}|${m.atMs}|${m.label}`,
        sig: `${mx}|${top}|${h}|${violation}|${showFindings}|${caption}`,
        label: violation ? `${what} at ${fmtSeconds(m.atMs)}, cited by a violation: ${m.label}`
          : m.kind === 'error' ? `Error reply at ${fmtSeconds(m.atMs)} (not a violation): ${m.label}`
          : m.kind === 'refused' ? `Write refused at ${fmtSeconds(m.atMs)}${showFindings ? ' (the database doing its job, not a violation)' : ''}: ${m.label}`
          : `${what} at ${fmtSeconds(m.atMs)}: ${m.label}`,
        ...(violation ? { cites: [m.eventId] } : {}),
        draw: (sg) => {
          if (violation) {
            sg.append('path').attr('class', 'mark').attr('d', `M${mx},${top + 2} l7,12 l-14,0 Z`).attr('fill', VIOLATION_INK);
            sg.append('text').attr('class', 'mark-glyph').attr('x', mx).attr('y', top + 13).attr('text-anchor', 'middle').attr('font-size', 10).attr('font-weight', 700).attr('fill', '#fff').text('!');
          } else if (m.kind === 'sequence') {
            sg.append('circle').attr('class', 'mark').attr('cx', mx).attr('cy', top + h - 8).attr('r', 5).attr('fill', '#1e40af');
            if (caption) sg.append('text').attr('x', at).attr('y', top + h - 4).attr('font-size', 11).style('fill', 'var(--reply)').text(caption);
          } else if (m.kind === 'refused') {
            // A write refused: a grey, dashed, crossed square (like the destination's rejected write), not the green row.
            sg.append('rect').attr('class', 'mark').attr('x', mx - 6).attr('y', top + h - 15).attr('width', 12).attr('height', 12).attr('fill', '#f3f4f6').attr('stroke', '#374151').attr('stroke-width', 1.5).attr('stroke-dasharray', '3 1.5');
            sg.append('path').attr('d', `M${mx - 4},${top + h - 13} L${mx + 4},${top + h - 5} M${mx + 4},${top + h - 13} L${mx - 4},${top + h - 5}`).attr('stroke', '#374151').attr('stroke-width', 1.5);
            if (caption) sg.append('text').attr('x', at).attr('y', top + h - 4).attr('font-size', 11).style('fill', 'var(--reply)').text(caption);
          } else if (m.kind === 'error') {
            // An error reply: a circle with "✕" (shape and colour unlike the violation's red triangle).
            sg.append('circle').attr('class', 'mark').attr('cx', mx).attr('cy', top + 9).attr('r', 6.5).attr('fill', '#fef3c7').attr('stroke', ERROR_REPLY_INK).attr('stroke-width', 1.5);
            sg.append('text').attr('class', 'mark-glyph').attr('x', mx).attr('y', top + 12.5).attr('text-anchor', 'middle').attr('font-size', 10).attr('font-weight', 700).attr('fill', ERROR_REPLY_INK).text('✕');
          } else {
            sg.append('rect').attr('class', 'mark').attr('x', mx - 5).attr('y', top + h - 13).attr('width', 10).attr('height', 10).attr('fill', '#166534');
            if (caption) sg.append('text').attr('x', at).attr('y', top + h - 4).attr('font-size', 11).style('fill', 'var(--reply)').text(caption);
          }
          sg.append('title').text(violation ? `Cited by a violation: ${m.label}` : m.kind === 'error' ? `An error reply, not a violation: ${m.label}` : m.label);
        },
      });
    });
    return items;
  },
};
