/**
 * `useAfterPaint(value)`: the value as of the last painted frame. A change shows here only after
 * the browser has painted the frame that holds the change's urgent part (the verdict, the
 * timeline), then renders as a transition (interruptible, so a next click is answered first).
 * `useDeferredValue` does not wait for the paint: React's deferred render is a task queued before
 * the frame, so on a busy machine the browser painted the click's verdict only after the panels
 * below were rendered too (bench/uiClicks.ts measured click → repaint at 30–70 ms).
 */
import { startTransition, useEffect, useState } from 'react';
import { afterPaint } from './idle';

/** The value one painted frame later (`initial` until the first paint after mount; `initial` defaults to the value). */
export function useAfterPaint<T>(value: T, initial: T | null = value): T | null {
  const [shown, setShown] = useState<T | null>(initial);
  const pending = !Object.is(shown, value);
  useEffect(() => {
    if (!pending) return;
    return afterPaint(() => startTransition(() => setShown(value)));
  }, [value, pending]);
  return shown;
}
