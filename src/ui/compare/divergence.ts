/**
 * Where two runs of the same schedule under two mechanisms first differ in what happens.
 *
 * The traces are aligned (longest common subsequence of what each event did: see `sig`), so an event only one mechanism has — the fencing token's INCR, an extra record
 * lookup — does not count as a divergence while both runs go on the same way around it. The first
 * divergence is the first place where both runs have an event the other has not (e.g. A's write
 * accepted on the left, rejected as stale on the right); when the runs differ only by such extra
 * events, it is the first of them. Traces too long to align (more than 4 million cells) are
 * compared index by index.
 */
import type { TraceEvent } from '../../sim';

/** The first divergence: the events at that place on each side (undefined: that run has none there). */
export interface Divergence {
  /** Index in the left trace of its diverging event (or of the next event, when only the right has one there; may equal its length). */
  readonly leftIndex: number;
  readonly rightIndex: number;
  readonly left: TraceEvent | undefined;
  readonly right: TraceEvent | undefined;
}

/**
 * What happened, not how it is worded: time, actor, kind, the reply and the
 * event's data kind. The narration and the command are left out, so a sentence that only adds
 * "(token 33)" or a request that only carries a Fencing-Token header is not a divergence; a reply
 * that differs (200 OK against 409 stale token) is.
 */
const sig = (e: TraceEvent) => {
  const d = e.data as { t?: string; op?: string; phase?: string } | undefined;
  return `${e.atMs}|${e.actor}|${e.kind}|${e.reply ?? ''}|${d?.t ?? ''}:${d?.op ?? ''}:${d?.phase ?? ''}`;
};
const MAX_CELLS = 4_000_000;

/** See the module comment; null when the traces are the same. */
export function firstDivergence(a: readonly TraceEvent[], b: readonly TraceEvent[]): Divergence | null {
  const sa = a.map(sig);
  const sb = b.map(sig);
  let p = 0;
  while (p < sa.length && p < sb.length && sa[p] === sb[p]) p++;
  if (p === sa.length && p === sb.length) return null;
  const at = (i: number, j: number): Divergence => ({ leftIndex: i, rightIndex: j, left: a[i], right: b[j] });
  const n = sa.length - p;
  const m = sb.length - p;
  if (n === 0 || m === 0 || n * m > MAX_CELLS) return at(p, p);
  // lcs[i][j]: LCS length of sa[p+i..] and sb[p+j..] (suffixes), in one flat array.
  const w = m + 1;
  const lcs = new Uint32Array((n + 1) * w);
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      lcs[i * w + j] = sa[p + i] === sb[p + j] ? lcs[(i + 1) * w + j + 1]! + 1 : Math.max(lcs[(i + 1) * w + j]!, lcs[i * w + j + 1]!);
    }
  }
  // Walk the alignment; each gap is a run of unmatched events on either side between matches.
  let i = 0;
  let j = 0;
  let firstGap: Divergence | null = null;
  while (i < n || j < m) {
    if (i < n && j < m && sa[p + i] === sb[p + j]) { i++; j++; continue; }
    const gi = i;
    const gj = j;
    while ((i < n || j < m) && !(i < n && j < m && sa[p + i] === sb[p + j])) {
      if (j >= m || (i < n && lcs[(i + 1) * w + j]! >= lcs[i * w + j + 1]!)) i++;
      else j++;
    }
    const gap = at(p + gi, p + gj);
    firstGap ??= gap;
    if (i > gi && j > gj) return gap;
  }
  return firstGap;
}
