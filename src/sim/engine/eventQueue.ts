/**
 * A min-heap of scheduled callbacks ordered by (atMs, insertion sequence): events at the same
 * virtual millisecond run in the order they were scheduled, which keeps runs deterministic.
 */
export interface Scheduled<T> {
  readonly atMs: number;
  readonly seq: number;
  readonly item: T;
}

/** Binary heap priority queue keyed by virtual time, FIFO within one millisecond. */
export class EventQueue<T> {
  private heap: Scheduled<T>[] = [];
  private nextSeq = 0;

  get size(): number {
    return this.heap.length;
  }

  /** Schedules `item` at `atMs` (integer virtual milliseconds). */
  push(atMs: number, item: T): void {
    const node: Scheduled<T> = { atMs, seq: this.nextSeq++, item };
    const h = this.heap;
    h.push(node);
    let i = h.length - 1;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (!less(node, h[p]!)) break;
      h[i] = h[p]!;
      i = p;
    }
    h[i] = node;
  }

  /** The earliest entry without removing it, or undefined when empty. */
  peek(): Scheduled<T> | undefined {
    return this.heap[0];
  }

  /** Removes and returns the earliest entry, or undefined when empty. */
  pop(): Scheduled<T> | undefined {
    const h = this.heap;
    const top = h[0];
    if (top === undefined) return undefined;
    const last = h.pop()!;
    if (h.length > 0) {
      let i = 0;
      const n = h.length;
      for (;;) {
        const l = 2 * i + 1;
        if (l >= n) break;
        const r = l + 1;
        const c = r < n && less(h[r]!, h[l]!) ? r : l;
        if (!less(h[c]!, last)) break;
        h[i] = h[c]!;
        i = c;
      }
      h[i] = last;
    }
    return top;
  }
}

function less<T>(a: Scheduled<T>, b: Scheduled<T>): boolean {
  return a.atMs < b.atMs || (a.atMs === b.atMs && a.seq < b.seq);
}
