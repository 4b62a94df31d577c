// @vitest-environment jsdom
/** useAfterPaint: a change reaches the panels below only after the frame that shows it was painted. */
import { act, render, screen } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { useAfterPaint } from './useAfterPaint';
import { afterPaint } from './idle';

function Probe({ value, initial }: { value: number; initial?: number | null }) {
  const shown = useAfterPaint(value, initial === undefined ? value : initial);
  return <p data-testid="shown">{shown === null ? 'none' : String(shown)}</p>;
}

describe('afterPaint', () => {
  let frames: (() => void)[];
  beforeEach(() => {
    vi.useFakeTimers();
    frames = [];
    vi.stubGlobal('requestAnimationFrame', (f: () => void) => frames.push(f));
    vi.stubGlobal('cancelAnimationFrame', (h: number) => { frames[h - 1] = () => {}; });
  });
  afterEach(() => {
    vi.unstubAllGlobals();
    vi.useRealTimers();
  });

  it('runs the callback in a task after the next animation frame, not before it', () => {
    const cb = vi.fn();
    afterPaint(cb);
    vi.advanceTimersByTime(100);
    expect(cb).not.toHaveBeenCalled(); // no frame yet: however long, nothing
    frames.shift()!();
    expect(cb).not.toHaveBeenCalled(); // inside the frame's rAF: still before the paint
    vi.advanceTimersByTime(0);
    expect(cb).toHaveBeenCalledTimes(1);
  });

  it('can be cancelled before the frame and between the frame and the task', () => {
    const a = vi.fn();
    afterPaint(a)();
    frames.shift()!();
    vi.advanceTimersByTime(10);
    expect(a).not.toHaveBeenCalled();
    const b = vi.fn();
    const cancel = afterPaint(b);
    frames.shift()!();
    cancel();
    vi.advanceTimersByTime(10);
    expect(b).not.toHaveBeenCalled();
  });

  it('useAfterPaint: the old value until the frame is painted, then the new one; null first when asked', async () => {
    const { rerender } = render(<Probe value={1} initial={null} />);
    expect(screen.getByTestId('shown').textContent).toBe('none');
    await act(async () => { frames.shift()!(); vi.advanceTimersByTime(0); });
    expect(screen.getByTestId('shown').textContent).toBe('1');
    rerender(<Probe value={2} initial={null} />);
    expect(screen.getByTestId('shown').textContent).toBe('1');
    // Two quick changes before a paint: only the last one is shown, once.
    rerender(<Probe value={3} initial={null} />);
    await act(async () => { while (frames.length) frames.shift()!(); vi.advanceTimersByTime(0); });
    expect(screen.getByTestId('shown').textContent).toBe('3');
  });
});
