/** Fitting words and positions into the timeline: the lane-name gutter, labels inside bars, rounding. */

/** Rounds to 0.1 px (positions in signatures and attributes). */
export const r1 = (v: number) => Math.round(v * 10) / 10;

/** The first of `texts` that fits in `room` px at about `charPx` per character ('' when none does). */
export function fitText(room: number, charPx: number, ...texts: string[]): string {
  return texts.find((t) => t.length * charPx <= room) ?? '';
}

/**
 * Width of the lane-name gutter: enough for the longest name in the current type size (bold
 * 0.875rem ≈ 0.7 em per character at worst (e.g. "Worker admin"), plus the "+" and padding, never
 * less than 128 px; `timelineScale` (the view's `--timeline-scale`, see `typeScaleFor`) enlarges the
 * lane names and so the gutter.
 */
export function gutterFor(labels: readonly string[], largeType: boolean, timelineScale = 1): number {
  const px = (largeType ? 20 : 16) * 0.875 * timelineScale;
  const longest = Math.max(0, ...labels.map((l) => l.length));
  return Math.max(128 * timelineScale, Math.ceil(longest * px * 0.7 + px * 2.6));
}

/**
 * How much the timeline is enlarged: large type (the page's root font goes from 16 to 20 px) times
 * `timelineScale`, the CSS custom property `--timeline-scale` of the view (the workshop audience's
 * projector sets it at wide viewports; 1 elsewhere: `useTimelineScale`). The timeline's HTML words
 * (lane names, cursor notes, the time badge, bookmark flags) multiply their rem sizes by the same
 * property in the style sheet, so they grow with the SVG.
 */
export function typeScaleFor(largeType: boolean, timelineScale = 1): number {
  return (largeType ? 1.25 : 1) * timelineScale;
}

/** `--timeline-scale` as read from a computed style: a positive number, 1 when unset or unreadable, at most 3. */
export function parseTimelineScale(value: string | null | undefined): number {
  const v = Number.parseFloat(value ?? '');
  return Number.isFinite(v) && v > 0 ? Math.min(3, v) : 1;
}

/** A box on the timeline, in drawing units (x from the plot's left, y from the SVG's top). */
export interface Box {
  readonly x0: number;
  readonly x1: number;
  readonly y0: number;
  readonly y1: number;
}

/** The box a line of text of `fontSize` occupies around its `baseline` (the font's ascent and descent, about 0.93 and 0.24 em). */
export function lineBox(x0: number, x1: number, baseline: number, fontSize: number): Box {
  return { x0, x1, y0: baseline - 0.93 * fontSize, y1: baseline + 0.24 * fontSize };
}

/** The two boxes overlap (sharing an edge is no overlap). */
export function overlaps(a: Box, b: Box): boolean {
  return Math.min(a.x1, b.x1) > Math.max(a.x0, b.x0) && Math.min(a.y1, b.y1) > Math.max(a.y0, b.y0);
}

/**
 * Where a line of words goes between x `from` and `to` on the text line `y0`–`y1`, clear of
 * `obstacles` (fault markers, violation marks and any other mark of the lane, each kept `pad`
 * units away): the first of `texts` (longest first) that fits at about `charPx` per character in
 * one of the free gaps, in the leftmost such gap; `text` is '' when none fits anywhere (the item's
 * title and accessible name still say it). Words placed this way never touch a mark.
 */
export function placeText(from: number, to: number, y0: number, y1: number, obstacles: readonly Box[], charPx: number, texts: readonly string[], pad = 3): { readonly text: string; readonly x: number } {
  const blocked = obstacles.filter((o) => o.y1 > y0 && o.y0 < y1 && o.x1 + pad > from && o.x0 - pad < to).map((o) => [o.x0 - pad, o.x1 + pad] as const).sort((a, b) => a[0] - b[0]);
  const gaps: [number, number][] = [];
  let at = from;
  for (const [b0, b1] of blocked) {
    if (b0 > at) gaps.push([at, b0]);
    at = Math.max(at, b1);
  }
  if (to > at) gaps.push([at, to]);
  for (const t of texts) {
    const gap = gaps.find(([g0, g1]) => t.length * charPx <= g1 - g0);
    if (gap) return { text: t, x: gap[0] };
  }
  return { text: '', x: from };
}

/**
 * Shorter forms of `text` for `placeText`, longest first: `text` cut after each word and then
 * character by character down to `minChars`, each ending in "…" (`A · invoices row id=1 Exclu…`),
 * so that a label that does not fit whole keeps as much of itself as its room allows.
 */
export function ellipsized(text: string, minChars: number): string[] {
  const out: string[] = [];
  // From one character shorter in all (the cut plus "…"), so that each form saves room.
  for (let n = text.length - 2; n >= minChars; n--) {
    const cut = text.slice(0, n).trimEnd();
    if (cut.length >= minChars && out.at(-1) !== `${cut}…`) out.push(`${cut}…`);
  }
  return out;
}

/** A box's vertical extent, `[y0, y1]` (to spread into `placeText`). */
export function yOf(b: Box): [number, number] {
  return [b.y0, b.y1];
}

/**
 * Where marks of half-width `halfW` (drawing units) go so that none overlaps another: each at its
 * own x `xs[i]`, except that a mark closer than `2 × halfW + gap` to the one before it (in x order)
 * is pushed right just clear of it (two triangles at nearby or equal times stand side by side),
 * and clear of the marks fixed at the x's `taken`. Same order and length as `xs`.
 */
export function spreadXs(xs: readonly number[], halfW: number, gap = 1, taken: readonly number[] = []): number[] {
  const order = xs.map((x, i) => [x, i] as const).sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  const out = [...xs];
  const placed = [...taken];
  const step = 2 * halfW + gap;
  for (const [x, i] of order) {
    let at = x;
    // Right of every mark already placed (or fixed in `taken`) that it would touch.
    // (A tolerance: p + step - p can round to just under step, which looped for ever.)
    for (let moved = true, rounds = 0; moved && rounds <= placed.length; rounds++) {
      moved = false;
      for (const p of placed) if (step - Math.abs(at - p) > 1e-6) { at = p + step; moved = true; }
    }
    out[i] = r1(at);
    placed.push(at);
  }
  return out;
}
