/**
 * What the timeline draws that collides, measured in the page (screen px): every visible text
 * label (a bar's words, a mark's caption, a tick label, a lane's cursor note) and every mark (a
 * violation mark's triangle, a lane's cited-event triangle, a row, error, refusal or sequence mark,
 * a fault marker's diamond). Two labels must not overlap, no label may overlap a mark, no two marks
 * may overlap (two triangles at nearby times stack or merge), words drawn over a pattern stand on
 * a backing that covers them, and every tick label lies inside its SVG's box. Shared by the sweeps
 * of first-minutes.spec.ts.
 */
import type { Page } from '@playwright/test';

/**
 * The collisions on the page's timelines, as sentences (empty when there are none). Lane words are
 * measured where the plot's clip leaves them (a label clipped away entirely is not drawn); a
 * glyph inside a mark (the "!" of a triangle) is part of its mark.
 */
export async function timelineCollisions(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const out: string[] = [];
    type Box = { left: number; right: number; top: number; bottom: number; what: string };
    const overlap = (a: Box, b: Box) => Math.min(a.right, b.right) - Math.max(a.left, b.left) > 0.5 && Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top) > 0.5;
    const shown = (el: Element) => {
      for (let e: Element | null = el; e; e = e.parentElement) {
        const cs = getComputedStyle(e);
        if (cs.display === 'none' || cs.visibility === 'hidden' || cs.opacity === '0') return false;
      }
      return true;
    };
    const name = (el: Element) => {
      const lane = el.closest('[data-lane]')?.getAttribute('data-lane') ?? el.closest('[data-note]')?.getAttribute('data-note');
      return `${lane ? `${lane}: ` : el.closest('g.axis') ? 'tick ' : ''}"${(el.textContent ?? '').trim().slice(0, 40)}"`;
    };
    for (const tl of document.querySelectorAll<HTMLElement>('.timeline')) {
      const svg = tl.querySelector<SVGSVGElement>('svg.timeline-svg');
      if (!svg) continue;
      const plot = svg.getBoundingClientRect();
      const clip = (r: DOMRect, what: string): Box | null => {
        const b = { left: Math.max(r.left, plot.left), right: Math.min(r.right, plot.right), top: Math.max(r.top, plot.top), bottom: Math.min(r.bottom, plot.bottom), what };
        return b.right - b.left > 0.5 && b.bottom - b.top > 0.5 ? b : null;
      };
      const labels: Box[] = [];
      const marks: Box[] = [];
      const MARKS = '.violation-mark, .fault-marker, .mark';
      for (const t of svg.querySelectorAll<SVGTextElement>('text')) {
        if (!(t.textContent ?? '').trim() || !shown(t)) continue;
        const r = t.getBoundingClientRect();
        if (t.closest('g.axis')) {
          // Tick labels are not clipped: each must lie inside the SVG's box.
          if (r.left < plot.left - 0.5 || r.right > plot.right + 0.5) out.push(`tick "${t.textContent}" runs outside the timeline (${Math.round(r.left)}–${Math.round(r.right)} vs ${Math.round(plot.left)}–${Math.round(plot.right)})`);
          labels.push({ left: r.left, right: r.right, top: r.top, bottom: r.bottom, what: name(t) });
          continue;
        }
        if (t.closest(MARKS) || t.classList.contains('mark-glyph')) continue;
        const b = clip(r, name(t));
        if (!b) continue;
        labels.push(b);
        // Words over a patterned bar (a waiting bar's dots, a paused bar's hatching) stand on a
        // backing in the bar's colour that covers them, or the pattern shows through the letters.
        const group = t.parentElement;
        for (const p of group ? group.querySelectorAll<SVGRectElement>(':scope > rect') : []) {
          if (!/^url\(#.*-(dots|hatch|cross)\)$/.test(p.getAttribute('fill') ?? '')) continue;
          const pb = p.getBoundingClientRect();
          // The part of the words over the pattern.
          const on = { left: Math.max(b.left, pb.left), right: Math.min(b.right, pb.right), top: Math.max(b.top, pb.top), bottom: Math.min(b.bottom, pb.bottom) };
          if (on.right - on.left <= 0.5 || on.bottom - on.top <= 0.5) continue;
          const covers = [...group!.querySelectorAll<SVGRectElement>(':scope > rect.label-backing')].some((k) => {
            const kb = k.getBoundingClientRect();
            return kb.left <= on.left + 0.5 && kb.right >= on.right - 0.5 && kb.top <= on.top + 0.5 && kb.bottom >= on.bottom - 0.5;
          });
          if (!covers) out.push(`${b.what} is drawn over a pattern with no backing under all of it`);
        }
      }
      for (const n of tl.querySelectorAll<HTMLElement>('.cursor-overlay [data-note]')) {
        if (!(n.textContent ?? '').trim() || !shown(n)) continue;
        const b = clip(n.getBoundingClientRect(), `note ${name(n)}`);
        if (b) labels.push(b);
      }
      for (const m of svg.querySelectorAll<SVGGraphicsElement>('.violation-mark path, .fault-marker path.fault-shape, .mark')) {
        if (!shown(m) || m.tagName === 'text') continue;
        const owner = m.closest('[data-lane]')?.getAttribute('data-lane') ?? (m.closest('.fault-marker') ? 'fault marker' : 'marks row');
        const b = clip(m.getBoundingClientRect(), `${owner} mark`);
        if (b) marks.push(b);
      }
      for (let i = 0; i < labels.length; i++) {
        for (let j = i + 1; j < labels.length; j++) if (overlap(labels[i]!, labels[j]!)) out.push(`${labels[i]!.what} overlaps ${labels[j]!.what}`);
        for (const m of marks) if (overlap(labels[i]!, m)) out.push(`${labels[i]!.what} overlaps a ${m.what}`);
      }
      for (let i = 0; i < marks.length; i++) for (let j = i + 1; j < marks.length; j++) if (overlap(marks[i]!, marks[j]!)) out.push(`a ${marks[i]!.what} overlaps a ${marks[j]!.what} at x ${Math.round(marks[i]!.left)}–${Math.round(marks[i]!.right)} / ${Math.round(marks[j]!.left)}–${Math.round(marks[j]!.right)}`);
    }
    return [...new Set(out)];
  });
}
