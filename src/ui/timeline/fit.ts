/** Fitting words and positions into the timeline: the lane-name gutter, labels inside bars, rounding. */

/** Rounds to 0.1 px (positions in signatures and attributes). */
export const r1 = (v: number) => Math.round(v * 10) / 10;

/** The first of `texts` that fits in `room` px at about `charPx` per character ('' when none does). */
export function fitText(room: number, charPx: number, ...texts: string[]): string {
  return texts.find((t) => t.length * charPx <= room) ?? '';
}

/**
 * Width of the lane-name gutter: enough for the longest name in the current type size (bold
 * 0.875rem ≈ 0.7 em per character at worst (e.g. "Worker admin"), plus the "+" and padding, never less than 128 px.
 */
export function gutterFor(labels: readonly string[], largeType: boolean): number {
  const px = (largeType ? 20 : 16) * 0.875;
  const longest = Math.max(0, ...labels.map((l) => l.length));
  return Math.max(128, Math.ceil(longest * px * 0.7 + px * 2.6));
}

/** How much large type enlarges the timeline (the page's root font goes from 16 to 20 px). */
export function typeScaleFor(largeType: boolean): number {
  return largeType ? 1.25 : 1;
}
