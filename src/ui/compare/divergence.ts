/** Where two runs of the same schedule under two mechanisms first differ. */
import type { TraceEvent } from '../../sim';

/** The first index where the two traces differ (time, actor, kind and data), or null when they are the same. */
export function firstDivergence(a: readonly TraceEvent[], b: readonly TraceEvent[]): { index: number; left: TraceEvent | undefined; right: TraceEvent | undefined } | null {
  const n = Math.max(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a[i];
    const y = b[i];
    if (!x || !y || x.atMs !== y.atMs || x.actor !== y.actor || x.kind !== y.kind || x.narration !== y.narration || JSON.stringify(x.data) !== JSON.stringify(y.data)) return { index: i, left: x, right: y };
  }
  return null;
}
