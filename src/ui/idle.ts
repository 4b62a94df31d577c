/**
 * Most work one idle callback does, ms: an idle period may last 50 ms, but a click that arrives
 * meanwhile waits for the callback to end (and a busy machine stretches each step), so the work
 * goes in short slices: the next edit is answered within a frame, and no long task (> 50 ms) follows one.
 */
export const IDLE_SLICE_MS = 8;

/**
 * Work that must not delay a frame: `step` runs in the browser's idle periods (after the frame is
 * painted), as many times as the idle deadline allows (at most `IDLE_SLICE_MS` per callback), until it returns false. Where
 * `requestIdleCallback` is missing (jsdom, older Safari) each step gets its own task after a
 * frame. Returns a function that cancels the rest.
 */
export function runWhenIdle(step: () => boolean): () => void {
  let cancelled = false;
  const ric = (globalThis as { requestIdleCallback?: (cb: (d: { timeRemaining(): number }) => void, o?: { timeout: number }) => number }).requestIdleCallback;
  const cic = (globalThis as { cancelIdleCallback?: (h: number) => void }).cancelIdleCallback;
  let handle: number | ReturnType<typeof setTimeout> | null = null;
  const schedule = () => {
    if (cancelled) return;
    if (ric) handle = ric((d) => {
      handle = null;
      const start = performance.now();
      // At least one step per callback, so that a busy page still gets there (the timeout below).
      do {
        if (cancelled || !step()) return;
      } while (d.timeRemaining() > 3 && performance.now() - start < IDLE_SLICE_MS);
      schedule();
    }, { timeout: 500 });
    else handle = setTimeout(() => {
      handle = null;
      if (!cancelled && step()) schedule();
    }, 16);
  };
  schedule();
  return () => {
    cancelled = true;
    if (handle === null) return;
    if (ric && cic && typeof handle === 'number') cic(handle);
    else clearTimeout(handle as ReturnType<typeof setTimeout>);
  };
}

/**
 * Runs `cb` once the browser has painted the current frame: a `requestAnimationFrame` callback
 * runs just before the paint, and a task it posts runs right after it. Where there is no
 * `requestAnimationFrame` (jsdom), a task after ~one frame. Returns a function that cancels it.
 */
export function afterPaint(cb: () => void): () => void {
  let raf: number | null = null;
  let task: ReturnType<typeof setTimeout> | null = null;
  const g = globalThis as { requestAnimationFrame?: (f: () => void) => number; cancelAnimationFrame?: (h: number) => void };
  if (typeof g.requestAnimationFrame === 'function') {
    raf = g.requestAnimationFrame(() => {
      raf = null;
      task = setTimeout(cb, 0);
    });
  } else task = setTimeout(cb, 16);
  return () => {
    if (raf !== null) g.cancelAnimationFrame?.(raf);
    if (task !== null) clearTimeout(task);
  };
}
