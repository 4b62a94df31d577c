// @vitest-environment jsdom
/**
 * `useTimelineScale` reads `--timeline-scale` only where layout is already done (a ResizeObserver
 * callback): a computed-style read at commit forced the page's first layout inside the load's
 * render task (the page has container queries). A changed value is rendered before the callback
 * returns, so the frame it belongs to is never painted at the old scale.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { act, render } from '@testing-library/react';
import { useRef } from 'react';
import { useTimelineScale } from './useTimeScale';

function Probe() {
  const ref = useRef<HTMLDivElement>(null);
  const scale = useTimelineScale(ref);
  return <div ref={ref} data-testid="probe">{String(scale)}</div>;
}

afterEach(() => {
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
});

describe('useTimelineScale', () => {
  it('reads no computed style at commit, and renders the value the first observation finds before returning', () => {
    const callbacks: ResizeObserverCallback[] = [];
    vi.stubGlobal('ResizeObserver', class {
      constructor(cb: ResizeObserverCallback) { callbacks.push(cb); }
      observe() {}
      unobserve() {}
      disconnect() {}
    });
    let value = '1.4';
    const spy = vi.spyOn(window, 'getComputedStyle').mockImplementation(() => ({ getPropertyValue: () => value }) as unknown as CSSStyleDeclaration);
    const r = render(<Probe />);
    expect(spy).not.toHaveBeenCalled();
    expect(r.getByTestId('probe').textContent).toBe('1');
    // The first observation, after the first layout: the value is on screen when the callback returns.
    act(() => callbacks[0]!([], {} as ResizeObserver));
    expect(r.getByTestId('probe').textContent).toBe('1.4');
    // A resize that leaves it alone renders nothing new; one that changes it (the media query no longer matches) does.
    act(() => callbacks[0]!([], {} as ResizeObserver));
    value = '';
    act(() => callbacks[0]!([], {} as ResizeObserver));
    expect(r.getByTestId('probe').textContent).toBe('1');
  });

  it('reads it once at commit where there is no ResizeObserver (jsdom)', () => {
    vi.stubGlobal('ResizeObserver', undefined);
    vi.spyOn(window, 'getComputedStyle').mockImplementation(() => ({ getPropertyValue: () => '2' }) as unknown as CSSStyleDeclaration);
    const r = render(<Probe />);
    expect(r.getByTestId('probe').textContent).toBe('2');
  });
});
