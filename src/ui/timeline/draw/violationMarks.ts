/** Violation marks in the row between the axis and the lanes: a triangle with "!" (or "i" for a harmless duplicate) and a dashed line through the lanes. */
import type { ViolationMark } from '../lanes';
import { AXIS_H, MARKS_H } from '../layout';
import { joinItems, type G, type Signatures } from './items';
import { VIOLATION_INK } from '../../verdict/citations';

/**
 * Draws the marks above everything else in `content`; activating one (click, Enter, Space) calls
 * `onEventId` with its event. Marks less than a triangle's width apart are drawn as one, showing
 * their count, named by all their findings, going to the earliest's event. Not `interactive` (a
 * display's timeline), a mark is a picture.
 */
export function drawViolationMarks(sigs: Signatures, content: G, marks: readonly ViolationMark[], X: (ms: number) => number, height: number, onEventId: (id: string) => void, interactive = true): void {
  let mg = content.selectChildren<SVGGElement, unknown>('g.violations') as unknown as G;
  if (mg.empty()) mg = content.append('g').attr('class', 'violations') as unknown as G;
  mg.raise();
  // Marks closer than a triangle's width merge into one (its glyph the count, its name every
  // finding, at the earliest); each keeps its dashed line at its own time.
  const groups: { vx: number; marks: ViolationMark[] }[] = [];
  for (const v of [...marks].sort((a, b) => a.atMs - b.atMs)) {
    const vx = X(v.atMs);
    const last = groups.at(-1);
    if (last && vx - last.vx < 21) last.marks.push(v);
    else groups.push({ vx, marks: [v] });
  }
  joinItems(sigs, mg, groups.map(({ vx, marks: ms }) => ({ v: ms.length === 1 ? ms[0]! : mergedMark(ms), vx, lines: ms.map((m) => X(m.atMs)), count: ms.length })).map(({ v, vx, lines, count }) => {
    return {
      key: `${v.eventId}|${v.message}`,
      sig: `${vx}|${height}|${v.severity}|${lines.join(' ')}|${v.message}|${interactive}`,
      // Red only for a violation: its mark cites the violation's event (a note's mark is grey).
      ...(v.severity === 'violation' ? { cites: [v.eventId] } : {}),
      draw: (vg: G) => {
        for (const lx of lines) vg.append('line').attr('x1', lx).attr('x2', lx).attr('y1', AXIS_H + MARKS_H - 4).attr('y2', height).attr('stroke', v.severity === 'violation' ? VIOLATION_INK : '#6b7280').attr('stroke-dasharray', '5 4').attr('pointer-events', 'none');
        // A display's timeline (the workshop audience's) draws the mark as a picture, not a button.
        const mark = vg.append('g').attr('class', 'violation-mark no-zoom').attr('role', interactive ? 'button' : 'img').attr('tabindex', interactive ? 0 : null)
          .attr('aria-label', `${count > 1 ? `${count} findings` : v.severity === 'violation' ? 'Violation' : v.severity === 'redundant' ? 'Redundant, not a violation' : 'A duplicate, not checked here'}: ${v.message}.${interactive ? ` Go to event ${v.eventId}.` : ''}`)
          .style('cursor', interactive ? 'pointer' : 'default')
          .on('click', () => onEventId(v.eventId))
          .on('keydown', (event: KeyboardEvent) => {
            if (event.key === 'Enter' || event.key === ' ') {
              event.preventDefault();
              event.stopPropagation();
              onEventId(v.eventId);
            }
          });
        mark.append('path').attr('d', `M${vx},${AXIS_H + 2} l10,18 l-20,0 Z`).attr('fill', v.severity === 'violation' ? VIOLATION_INK : '#6b7280');
        mark.append('text').attr('x', vx).attr('y', AXIS_H + 18).attr('text-anchor', 'middle').attr('font-size', 13).attr('font-weight', 800).attr('fill', '#fff').text(count > 1 ? String(count) : v.severity === 'violation' ? '!' : 'i');
        mark.append('title').text(v.message);
      },
    };
  }), 'vmark', null);
}

/** One mark for findings whose marks would touch: the earliest's event, every message, red if any is a violation. */
function mergedMark(ms: readonly ViolationMark[]): ViolationMark {
  const first = ms[0]!;
  return { atMs: first.atMs, eventId: first.eventId, message: ms.map((m) => m.message).join('; '), severity: ms.some((m) => m.severity === 'violation') ? 'violation' : first.severity };
}
