/**
 * Where the timeline puts words so that none collides (issue 9, a newcomer's review: violation
 * triangles over "accepted" and the database's row labels, the last tick label cut at the right
 * edge). The geometry rules as properties; e2e/first-minutes.spec.ts measures the drawn result
 * for every preset in Chromium.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { ellipsized, overlaps, placeText, spreadXs, type Box } from './fit';
import { tickAnchor, tickExtent } from './draw/axis';
import { noteOffset } from './cursor';

const box = fc.record({ x0: fc.integer({ min: -20, max: 600 }), w: fc.integer({ min: 1, max: 40 }), y0: fc.integer({ min: 0, max: 40 }), h: fc.integer({ min: 1, max: 30 }) })
  .map(({ x0, w, y0, h }): Box => ({ x0, x1: x0 + w, y0, y1: y0 + h }));

describe('placeText: a lane\'s words and its marks', () => {
  it('never puts words over an obstacle on their line, and keeps them within [from, to] (property)', () => {
    fc.assert(fc.property(fc.integer({ min: 0, max: 300 }), fc.integer({ min: 0, max: 400 }), fc.array(box, { maxLength: 6 }), fc.array(fc.string({ minLength: 1, maxLength: 30 }), { minLength: 1, maxLength: 4 }), (from, len, obstacles, texts) => {
      const to = from + len;
      const p = placeText(from, to, 10, 25, obstacles, 7, texts);
      if (p.text === '') return;
      const words: Box = { x0: p.x, x1: p.x + p.text.length * 7, y0: 10, y1: 25 };
      expect(texts).toContain(p.text);
      expect(p.x).toBeGreaterThanOrEqual(from);
      expect(words.x1).toBeLessThanOrEqual(to);
      for (const o of obstacles) expect(overlaps(words, { ...o, x0: o.x0 - 3, x1: o.x1 + 3 }), `${JSON.stringify(p)} over ${JSON.stringify(o)}`).toBe(false);
    }));
  });

  it('moves the words past a triangle at the bar\'s start, and prefers the full words in a later gap to a short form in the first', () => {
    const triangle: Box = { x0: 93, x1: 107, y0: 2, y1: 14 };
    expect(placeText(100, 400, 8, 22, [triangle], 7, ['✓ B · accepted', '✓ B'])).toEqual({ text: '✓ B · accepted', x: 110 });
    // A triangle 30 units in: "✓ B" would fit before it, the full words fit after it.
    expect(placeText(100, 400, 8, 22, [{ ...triangle, x0: 123, x1: 137 }], 7, ['✓ B · accepted', '✓ B'])).toEqual({ text: '✓ B · accepted', x: 140 });
    // Nothing fits: no words (the bar's title still says them).
    expect(placeText(100, 130, 8, 22, [{ ...triangle, x0: 108, x1: 122 }], 7, ['✓ B · accepted', '✓ B']).text).toBe('');
  });

  it('a lock label cut short keeps as much of itself as its room allows, not the holder alone (invoice-race: "A" where "A · invoices row id=1…" fits)', () => {
    const whole = 'A · invoices row id=1 ExclusiveLock';
    const forms = [whole, ...ellipsized(whole, 'A'.length + 6), 'A'];
    // Longest first, each a prefix of the whole plus "…", none shorter than the minimum.
    expect(forms[1]).toBe('A · invoices row id=1 ExclusiveLo…');
    expect(forms.at(-2)).toBe('A · inv…');
    for (const f of forms.slice(1, -1)) expect(whole.startsWith(f.slice(0, -1))).toBe(true);
    for (let i = 1; i < forms.length; i++) expect(forms[i]!.length).toBeLessThan(forms[i - 1]!.length);
    // 150 units of room at 7 per character: 21 characters, "…" included.
    const p = placeText(0, 150, 8, 22, [], 7, forms);
    expect(p.text).toBe('A · invoices row id=…');
    expect(p.text.length * 7).toBeLessThanOrEqual(150);
    // Less room than the shortest cut: the holder alone.
    expect(placeText(0, 40, 8, 22, [], 7, forms).text).toBe('A');
  });

  it('ignores a mark above or below the words\' line', () => {
    expect(placeText(0, 200, 20, 30, [{ x0: 0, x1: 200, y0: 2, y1: 14 }], 7, ['working 2 s'])).toEqual({ text: 'working 2 s', x: 0 });
  });
});

describe('tick labels stay inside the plot', () => {
  it('are centred when they fit and anchored from the edge they would cross (property)', () => {
    fc.assert(fc.property(fc.integer({ min: 200, max: 2000 }), fc.double({ min: 0, max: 1, noNaN: true }), fc.integer({ min: 10, max: 80 }), (plotW, at, w) => {
      const tx = at * plotW;
      const anchor = tickAnchor(tx, w, plotW);
      const [lo, hi] = tickExtent(tx, w, anchor);
      expect(hi - lo).toBeCloseTo(w);
      expect(lo).toBeGreaterThanOrEqual(-1e-9);
      expect(hi).toBeLessThanOrEqual(plotW + 1e-9);
      if (tx - w / 2 >= 0 && tx + w / 2 <= plotW) expect(anchor).toBe('middle');
    }));
  });

  it('the last tick at the right edge ends there', () => {
    expect(tickAnchor(816, 40, 816)).toBe('end');
    expect(tickExtent(816, 40, 'end')).toEqual([776, 816]);
    expect(tickAnchor(0, 30, 816)).toBe('start');
  });
});

describe('a lane\'s cursor note and the fault markers', () => {
  it('is never drawn over a marker on its lane when either side of the cursor, or past the markers, is free (property)', () => {
    fc.assert(fc.property(fc.integer({ min: 0, max: 800 }), fc.integer({ min: 30, max: 140 }), fc.array(fc.integer({ min: 0, max: 800 }), { maxLength: 4 }), (cx, w, ms) => {
      const obstacles = ms.map((m): Box => ({ x0: m - 13, x1: m + 13, y0: 0, y1: 26 }));
      const off = noteOffset(cx, w, 800, 110, obstacles);
      for (const o of obstacles) expect(o.x1 > cx + off && o.x0 < cx + off + w, `note at ${cx + off}–${cx + off + w} over marker at ${o.x0}`).toBe(false);
    }));
  });

  it('sits right of the cursor, flips left near the plot\'s right edge, and steps past a marker at the cursor', () => {
    expect(noteOffset(100, 80, 800, 110, [])).toBe(6);
    expect(noteOffset(750, 80, 800, 110, [])).toBe(-86);
    // A fault added at the cursor: its diamond covers 87–113, the left side is too close to the plot's start, so past it.
    expect(noteOffset(100, 80, 800, 110, [{ x0: 87, x1: 113, y0: 0, y1: 26 }])).toBe(16);
    // A marker just right of the cursor with the left side free: the note flips there instead.
    expect(noteOffset(400, 80, 800, 110, [{ x0: 410, x1: 436, y0: 0, y1: 26 }])).toBe(-86);
    // A marker on the cursor covers both sides: past it.
    expect(noteOffset(400, 80, 800, 110, [{ x0: 387, x1: 413, y0: 0, y1: 26 }])).toBe(16);
  });
});

describe('spreadXs: marks at nearby times stand side by side', () => {
  it('keeps every two marks at least a mark\'s width apart, moves none left, and clears the fixed ones (property)', () => {
    fc.assert(fc.property(fc.array(fc.integer({ min: 0, max: 300 }), { maxLength: 8 }), fc.array(fc.integer({ min: 0, max: 300 }), { maxLength: 3 }), (xs, taken) => {
      const out = spreadXs(xs, 7, 1, taken);
      expect(out).toHaveLength(xs.length);
      out.forEach((x, i) => {
        expect(x).toBeGreaterThanOrEqual(xs[i]! - 0.05);
        for (let j = i + 1; j < out.length; j++) expect(Math.abs(x - out[j]!)).toBeGreaterThanOrEqual(15 - 0.1);
        for (const t of taken) expect(Math.abs(x - t)).toBeGreaterThanOrEqual(15 - 0.1);
      });
    }));
  });

  it('leaves marks that do not touch where their times put them', () => {
    expect(spreadXs([100, 40, 200], 7)).toEqual([100, 40, 200]);
    // Lock-order-deadlock's two cited waits, 7 px apart, and two marks at one time.
    expect(spreadXs([494, 501], 7)).toEqual([494, 509]);
    expect(spreadXs([60, 60], 7.5)).toEqual([60, 76]);
  });
});
