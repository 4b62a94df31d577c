/** Formatting shared by narration, faults and invariant messages. Pure. */

/** `1500` → `1.5 s`, `40` → `40 ms` (virtual milliseconds in words). */
export function fmtMs(ms: number): string {
  return ms >= 1000 ? `${(ms / 1000).toFixed(ms % 1000 === 0 ? 0 : ms % 100 === 0 ? 1 : 3)} s` : `${ms} ms`;
}

/** `1500` → `1.5 s`, `40` → `40 ms`, `1250` → `1.25 s` (the wording of times in fault descriptions and the UI). */
export function fmtSeconds(ms: number): string {
  if (Math.abs(ms) < 1000) return `${Math.round(ms)} ms`;
  const s = ms / 1000;
  return `${Number.isInteger(s) ? s : s.toFixed(Math.abs(s) < 10 ? 2 : 1)} s`;
}
