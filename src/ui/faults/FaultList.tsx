/**
 * The fault editor: every injected fault with its time and duration as inputs, and a remove
 * button. Keyboard-first twin of the timeline markers; the selected marker's row is highlighted.
 */
import { useCallback, useEffect, useRef } from 'react';
import type { Fault, Scenario } from '../../sim';
import type { DerivedRun } from '../store/derive';
import { useIdleEach } from '../useIdleEach';
import { useVisibility } from '../store';
import { describeFault, durationOf, faultGlyph, faultInertReason, faultTimeMs, withDuration, withTime } from './faultCatalog';
import { SecondsInput, UNIT_WORD, type FieldUnit } from '../fields/SecondsInput';
import { axisUnit } from '../timeline/axisScale';
import { fitAxisEndMs } from '../timeline/lanes';
import { problemAt } from '../fields/explain';

/** Props of the fault editor. */
export interface FaultListProps {
  readonly faults: readonly Fault[];
  readonly scenario: Scenario;
  readonly run: DerivedRun;
  readonly selected: number | null;
  readonly onUpdate: (index: number, f: Fault) => void;
  readonly onRemove: (index: number) => void;
  readonly onSelect: (index: number | null) => void;
}

/** `list` with item `i` replaced. */
function replaced(list: readonly Fault[], i: number, f: Fault): Fault[] {
  return list.map((x, j) => (j === i ? f : x));
}

/**
 * Runs on screen up to this many events get the "No effect here" check of each fault (two runs a
 * fault, in idle time); a longer run's would be long tasks of their own (~50 ms each).
 */
export const INERT_CHECK_MAX_EVENTS = 400;

/**
 * Why each injected fault changes nothing in this run (null: it changes the run), by index: the
 * run without it against the run with it, as the fault menu decides for a fault not yet placed
 * (`faultInertReason`). One fault per idle step, after the frame; none above
 * `INERT_CHECK_MAX_EVENTS` events (`events`: the run's; pass Infinity to check none). A fault moved past the run's last event, within the horizon,
 * fires into a world where nothing is left to happen: it is said so beside its fields.
 */
export function useInjectedInertReasons(scenario: Scenario, faults: readonly Fault[], events: number): readonly (string | null)[] {
  const checked = events > INERT_CHECK_MAX_EVENTS ? NONE : faults;
  const reasonOf = useCallback((f: Fault, i: number) => faultInertReason({ ...scenario, faults: faults.filter((_, j) => j !== i) }, f), [scenario, faults]);
  return useIdleEach(checked, reasonOf);
}

/**
 * The unit of the fault fields for a run: the unit of its time axis fitted to the whole run
 * (`axisUnit` over `fitAxisEndMs`, the Fit view), so that the fields, the ticks and the faults' titles
 * ("Pause A for 500 ms at 50 ms") read alike; zooming does not change it.
 */
export function faultFieldUnit(run: DerivedRun): FieldUnit {
  return axisUnit(0, fitAxisEndMs(run));
}

/** No fault to check (a stable empty list). */
const NONE: readonly Fault[] = [];

/** The fault editor panel. */
export function FaultList({ faults, scenario, run, selected, onUpdate, onRemove, onSelect }: FaultListProps) {
  const listRef = useRef<HTMLOListElement>(null);
  // Like the switches' effects, hidden where the view keeps the outcome back (a lesson, an interview).
  const { showSwitchEffects } = useVisibility();
  const inertAll = useInjectedInertReasons(scenario, faults, showSwitchEffects ? run.events.length : Infinity);
  const inert = showSwitchEffects ? inertAll : [];
  // The fields speak the unit of the whole run's time axis (ms for a run within 2 s), as the
  // faults' titles and the axis's ticks do: "at 50 ms" over a field reading 50 ms, not 0.05 s.
  const unit = faultFieldUnit(run);
  useEffect(() => {
    if (selected === null) return;
    // In the next frame, after the timeline has redrawn: one layout instead of two.
    const raf = requestAnimationFrame(() => {
      const row = listRef.current?.querySelector<HTMLElement>(`li[data-fault="${selected}"]`);
      row?.scrollIntoView?.({ block: 'nearest' });
    });
    return () => cancelAnimationFrame(raf);
  }, [selected]);
  return (
    <section className="panel faults" aria-label="Faults">
      <h2>Faults <span className="muted">({faults.length})</span></h2>
      {faults.length === 0 && <p className="small muted">No faults. Click a lane on the timeline (or its name) to inject one.</p>}
      <ol className="fault-list" ref={listRef}>
        {faults.map((f, i) => {
          const dur = durationOf(f);
          const at = faultTimeMs(f, i, run);
          const reason = inert[i] ?? null;
          return (
            <li key={i} data-fault={i} className={i === selected ? 'selected' : ''} onFocus={() => onSelect(i)}>
              <p className="fault-desc"><span aria-hidden="true" className="glyph">{faultGlyph(f)}</span> {describeFault(f, scenario)}{at === null ? ' — did not fire' : ''}</p>
              {reason !== null && <p className="small fault-inert" data-testid={`fault-${i}-inert`}>No effect here: {reason}{/[.”]$/.test(reason) ? '' : '.'}</p>}
              <div className="fault-edit">
                <SecondsInput id={`fault-${i}-at`} label="at" unit={unit} ariaLabel={`Fault ${i + 1} time in ${UNIT_WORD[unit]}`} ms={f.atMs ?? at} check={(ms) => problemAt({ ...scenario, faults: replaced(faults, i, withTime(f, ms)) }, `faults[${i}]`, unit)} onCommit={(ms) => ms !== null && onUpdate(i, withTime(f, ms))} />
                {dur && <SecondsInput id={`fault-${i}-dur`} label={dur.label} unit={unit} ariaLabel={`Fault ${i + 1} ${dur.label} in ${UNIT_WORD[unit]}`} ms={dur.ms} allowEmpty={f.kind === 'crash'} placeholder={f.kind === 'crash' ? 'never' : undefined} check={(ms) => (ms < 1 && f.kind !== 'crash' ? `Must be more than 0 ${unit}.` : problemAt({ ...scenario, faults: replaced(faults, i, withDuration(f, ms)) }, `faults[${i}]`, unit))} onCommit={(ms) => onUpdate(i, withDuration(f, ms))} />}
                <button type="button" className="danger" onClick={() => onRemove(i)} aria-label={`Remove fault: ${describeFault(f, scenario)}`}>Remove</button>
              </div>
            </li>
          );
        })}
      </ol>
    </section>
  );
}
