/**
 * The small menu of faults that fit a lane, opened by clicking a lane (or its label) at a time.
 * An entry that would change nothing in this run is shown disabled with the reason; the runs that
 * decide it (~1 ms each) run in idle time after the menu is painted.
 */
import { useCallback, useEffect, useLayoutEffect, useMemo, useRef } from 'react';
import type { Scenario } from '../../sim';
import { useLockscope, useRun } from '../store';
import { runTimeFormatter } from '../timeline/lanes';
import { useIdleEach } from '../useIdleEach';
import { faultInertReason, faultsForLane, type FaultOption } from './faultCatalog';

/** Why each option would change nothing (null: it would change the run), by option id; filled in one idle step per option. */
function useInertReasons(scenario: Scenario, options: readonly FaultOption[]): ReadonlyMap<string, string | null> {
  const reasonOf = useCallback((o: FaultOption) => faultInertReason(scenario, o.make()), [scenario]);
  const reasons = useIdleEach(options, reasonOf);
  return useMemo(() => new Map(reasons.map((r, i) => [options[i]!.id, r])), [reasons, options]);
}

/** The fault menu (renders nothing when closed). Esc closes it; ↑/↓ move between items. */
export function FaultMenu() {
  const menu = useLockscope((s) => s.faultMenu);
  const scenario = useLockscope((s) => s.composed);
  const run = useRun();
  /** The menu's instant in the unit of the axis it was opened on. */
  const at = runTimeFormatter(run);
  const close = useLockscope((s) => s.closeFaultMenu);
  const addFault = useLockscope((s) => s.addFault);
  const ref = useRef<HTMLDivElement>(null);
  const returnFocus = useRef<Element | null>(null);

  useEffect(() => {
    if (!menu) return;
    returnFocus.current = document.activeElement;
    ref.current?.querySelector<HTMLElement>('[role="menuitem"]')?.focus();
    const onDown = (e: MouseEvent) => {
      if (ref.current && !ref.current.contains(e.target as Node)) close();
    };
    document.addEventListener('mousedown', onDown);
    return () => document.removeEventListener('mousedown', onDown);
  }, [menu, close]);

  // Inside the window: measured before paint, moved up (or left) when it would run past an edge;
  // taller than the window, it scrolls.
  useLayoutEffect(() => {
    const el = ref.current;
    if (!menu || !el) return;
    const margin = 8;
    const viewTop = window.scrollY + margin;
    const viewBottom = window.scrollY + window.innerHeight - margin;
    el.style.maxHeight = `${window.innerHeight - 2 * margin}px`;
    const h = el.offsetHeight;
    el.style.top = `${Math.max(viewTop, Math.min(menu.y, viewBottom - h))}px`;
    const w = el.offsetWidth;
    el.style.left = `${Math.max(window.scrollX + margin, Math.min(menu.x, window.scrollX + window.innerWidth - margin - w))}px`;
  }, [menu]);

  const options = useMemo(() => (menu ? faultsForLane(menu.lane, scenario, menu.atMs) : []), [menu, scenario]);
  const reasons = useInertReasons(scenario, options);
  if (!menu) return null;
  const laneName = menu.lane.kind === 'worker' ? `worker ${menu.lane.worker}` : menu.lane.kind === 'lease' ? menu.lane.key : menu.lane.kind;

  const onKeyDown = (e: React.KeyboardEvent) => {
    e.stopPropagation();
    if (e.key === 'Escape') {
      e.preventDefault();
      close();
      (returnFocus.current as HTMLElement | null)?.focus?.();
      return;
    }
    if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
      e.preventDefault();
      const items = [...(ref.current?.querySelectorAll<HTMLElement>('[role="menuitem"]') ?? [])];
      const i = items.indexOf(document.activeElement as HTMLElement);
      items[(i + (e.key === 'ArrowDown' ? 1 : items.length - 1)) % items.length]?.focus();
    }
  };

  return (
    <div className="fault-menu" ref={ref} role="menu" aria-label={`Inject a fault on ${laneName} at ${at(menu.atMs)}`} style={{ left: menu.x, top: menu.y }} onKeyDown={onKeyDown}>
      <p className="fault-menu-title" aria-hidden="true">Inject on {laneName} at {at(menu.atMs)}</p>
      {options.map((o) => ({ ...o, disabledReason: reasons.get(o.id) ?? null })).map((o) => (
        <button key={o.id} type="button" role="menuitem" className={o.disabledReason ? 'fault-option inert' : 'fault-option'} data-fault-option={o.id}
          aria-disabled={o.disabledReason ? true : undefined} title={o.disabledReason ? `No effect here: ${o.disabledReason}` : undefined}
          onClick={() => { if (!o.disabledReason) addFault(o.make()); }}>
          <span className="opt-label">{o.label}</span>
          <span className="opt-hint">{o.disabledReason ? `No effect here: ${o.disabledReason}` : o.hint}</span>
        </button>
      ))}
      <button type="button" role="menuitem" className="fault-option cancel" onClick={close}>Cancel (Esc)</button>
    </div>
  );
}
