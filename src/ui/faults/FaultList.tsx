/**
 * The fault editor: every injected fault with its time and duration as inputs, and a remove
 * button. Keyboard-first twin of the timeline markers; the selected marker's row is highlighted.
 */
import { useEffect, useRef } from 'react';
import type { Fault, Scenario } from '../../sim';
import type { DerivedRun } from '../store/derive';
import { describeFault, durationOf, faultGlyph, faultTimeMs, withDuration, withTime } from './faultCatalog';
import { SecondsInput } from '../fields/SecondsInput';
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

/** The fault editor panel. */
export function FaultList({ faults, scenario, run, selected, onUpdate, onRemove, onSelect }: FaultListProps) {
  const listRef = useRef<HTMLOListElement>(null);
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
          return (
            <li key={i} data-fault={i} className={i === selected ? 'selected' : ''} onFocus={() => onSelect(i)}>
              <p className="fault-desc"><span aria-hidden="true" className="glyph">{faultGlyph(f)}</span> {describeFault(f, scenario)}{at === null ? ' — did not fire' : ''}</p>
              <div className="fault-edit">
                <SecondsInput id={`fault-${i}-at`} label="at" ariaLabel={`Fault ${i + 1} time in seconds`} ms={f.atMs ?? at} check={(ms) => problemAt({ ...scenario, faults: replaced(faults, i, withTime(f, ms)) }, `faults[${i}]`)} onCommit={(ms) => ms !== null && onUpdate(i, withTime(f, ms))} />
                {dur && <SecondsInput id={`fault-${i}-dur`} label={dur.label} ariaLabel={`Fault ${i + 1} ${dur.label} in seconds`} ms={dur.ms} allowEmpty={f.kind === 'crash'} placeholder={f.kind === 'crash' ? 'never' : undefined} check={(ms) => (ms < 1 && f.kind !== 'crash' ? 'Must be more than 0 s.' : problemAt({ ...scenario, faults: replaced(faults, i, withDuration(f, ms)) }, `faults[${i}]`))} onCommit={(ms) => onUpdate(i, withDuration(f, ms))} />}
                <button type="button" className="danger" onClick={() => onRemove(i)} aria-label={`Remove fault: ${describeFault(f, scenario)}`}>Remove</button>
              </div>
            </li>
          );
        })}
      </ol>
    </section>
  );
}
