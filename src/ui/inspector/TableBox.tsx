/**
 * A table's own box: a table wider than its panel (pg_locks at 1280 px) scrolls sideways inside
 * it instead of running past the panel's edge. While it overflows, the box is a named region the
 * keyboard can focus and scroll (a scrollable region must be reachable: WCAG 2.1.1, axe's
 * `scrollable-region-focusable`); otherwise it is a plain wrapper and adds no tab stop.
 */
import { useLayoutEffect, useRef, useState, type ReactNode } from 'react';

/** Props of TableBox: `label` names the region while it scrolls ("pg_locks"). */
export interface TableBoxProps {
  readonly label: string;
  readonly children: ReactNode;
}

/** Wraps one table; see the module comment. */
export function TableBox({ label, children }: TableBoxProps) {
  const ref = useRef<HTMLDivElement>(null);
  const [overflows, setOverflows] = useState(false);
  useLayoutEffect(() => {
    const el = ref.current;
    // jsdom has no ResizeObserver and no layout: nothing overflows there.
    if (!el || typeof ResizeObserver === 'undefined') return;
    const check = () => setOverflows(el.scrollWidth > el.clientWidth + 1);
    check();
    const ro = new ResizeObserver(check);
    ro.observe(el);
    if (el.firstElementChild) ro.observe(el.firstElementChild);
    return () => ro.disconnect();
  }, []);
  return (
    <div ref={ref} className="table-box" {...(overflows ? { tabIndex: 0, role: 'region', 'aria-label': `${label} (scrolls sideways)` } : {})}>
      {children}
    </div>
  );
}
