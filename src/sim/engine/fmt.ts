/** Formatting shared by narration, faults and invariant messages. Pure. */

/** `1500` → `1.5 s`, `40` → `40 ms` (virtual milliseconds in words). */
export function fmtMs(ms: number): string {
  return ms >= 1000 ? `${(ms / 1000).toFixed(ms % 1000 === 0 ? 0 : ms % 100 === 0 ? 1 : 3)} s` : `${ms} ms`;
}
