/**
 * Work that must not delay a frame: `step` runs in the browser's idle periods (after the frame is
 * painted), as many times as the idle deadline allows, until it returns false. Where
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
      // At least one step per callback, so that a busy page still gets there (the timeout below).
      do {
        if (cancelled || !step()) return;
      } while (d.timeRemaining() > 3);
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
