/**
 * The one way Lockscope words a virtual time or duration — narration, fault descriptions,
 * invariant messages, the CLI and every panel of the app use it, so one instant reads the same
 * everywhere. Pure.
 */

/**
 * `40` → `40 ms`, `1000` → `1 s`, `1500` → `1.5 s`, `1250` → `1.25 s`, `12345` → `12.345 s`:
 * under a second in whole milliseconds, from a second on in seconds with as many decimals as
 * the millisecond value needs (none lost, no trailing zeros). Fractions of a millisecond (a
 * cursor during playback) are rounded to the nearest millisecond first.
 */
export function fmtTime(ms: number): string {
  const r = Math.round(ms);
  if (Math.abs(r) < 1000) return `${r} ms`;
  return `${String(Number((r / 1000).toFixed(3)))} s`;
}

/** The same as `fmtTime` (the name narration has always used). */
export const fmtMs = fmtTime;

/** The same as `fmtTime` (the name the UI and fault descriptions have always used). */
export const fmtSeconds = fmtTime;

/**
 * The one way Lockscope lists names in a sentence: `[]` → `''`, `['A']` → `'A'`, `['A', 'B']` →
 * `'A and B'`, `['A', 'B', 'C']` → `'A, B and C'` (no serial comma); `conjunction` `'or'` gives
 * `'A, B or C'`. Pure.
 */
export function fmtList(items: readonly string[], conjunction: 'and' | 'or' = 'and'): string {
  if (items.length < 2) return items.join('');
  return `${items.slice(0, -1).join(', ')} ${conjunction} ${items.at(-1)!}`;
}
