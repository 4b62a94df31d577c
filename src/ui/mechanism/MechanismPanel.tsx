/**
 * The mechanism switches for the current scenario, and the "without the fix / with the fix"
 * preset toggle (neither is checked once the setup matches neither variant). Each control shows
 * what its current value does, in a few words. A switch that cannot change this run is disabled
 * with the reason (`switchStatus` of the simulation core: structural reasons first, then one run
 * per other value, computed after the edit's frame in short slices); such switches wait in a
 * one-line disclosure below the others. A select's values that would change nothing say "(same run)".
 */
import { findPreset, fmtSeconds } from '../../sim';
import { memo, useCallback } from 'react';
import { useLockscope, useLockscopeStore, useVisibility } from '../store';
import { uniqueEditKey } from '../store/scenarioSlice';
import { relevantSwitches, switchHint, switchValueText, type SwitchDef } from './switches';
import { useSwitchStatuses } from './useSwitchStatuses';
import { matchVariant } from './variant';
import { SecondsInput } from '../fields/SecondsInput';
import { problemAt } from '../fields/explain';

/** Props of one switch's row: everything it shows, as values, so that an edit re-renders only the rows it changed. */
interface SwitchRowProps {
  readonly d: SwitchDef;
  readonly value: boolean | string;
  /** Why the switch cannot change this run (it is disabled), or null. */
  readonly reason: string | null;
  /** The values that would change the run (a select's others are marked "(same run)"), or null while unknown. */
  readonly changing: readonly string[] | null;
  readonly showHints: boolean;
  readonly hint: string;
  readonly onSet: (d: SwitchDef, value: boolean | string) => void;
}

/** One switch: a checkbox or a select, with its hint. */
const SwitchRow = memo(function SwitchRow({ d, value: v, reason, changing, showHints, hint, onSet }: SwitchRowProps) {
  const id = `sw-${d.id}`;
  const hintId = `${id}-hint`;
  return (
    <li className={reason ? 'inert' : undefined} data-switch={d.id}>
      {typeof v === 'boolean' ? (
        <label htmlFor={id} className="switch" title={reason ? `${d.label}: no effect here, ${reason}` : d.label}>
          <input id={id} type="checkbox" checked={v} disabled={reason !== null} aria-label={d.label} aria-describedby={showHints ? hintId : undefined} onChange={(e) => onSet(d, e.target.checked)} />
          <span>{d.short ?? d.label}</span>
        </label>
      ) : (
        <label htmlFor={id} className="select inline" title={reason ? `${d.label}: no effect here, ${reason}` : undefined}>
          <span>{d.short ?? d.label}</span>
          <select id={id} value={v} disabled={reason !== null} aria-label={d.label} aria-describedby={showHints ? hintId : undefined} onChange={(e) => onSet(d, e.target.value)}>
            {d.options?.map((o) => <option key={o.value} value={o.value}>{o.label}{changing && o.value !== v && !changing.includes(o.value) ? ' (same run)' : ''}</option>)}
          </select>
        </label>
      )}
      {/* In interview mode no hint shows, not even why a switch changes nothing here (that is a hint too; the tooltip keeps it). */}
      {showHints && <span className={typeof v === 'boolean' ? 'help' : 'help under-select'} id={hintId}>{hint}</span>}
    </li>
  );
});

/** The mechanism panel (reads and writes the store). */
export function MechanismPanel() {
  const store = useLockscopeStore();
  const scenario = useLockscope((s) => s.scenario);
  const composed = useLockscope((s) => s.composed);
  const setScenario = useLockscope((s) => s.setScenario);
  const presetId = useLockscope((s) => s.presetId);
  const loadPreset = useLockscope((s) => s.loadPreset);
  const preset = presetId ? findPreset(presetId) : undefined;
  const matches = matchVariant(scenario, preset);
  const switches = relevantSwitches(scenario);
  const { showAnswer, showHints } = useVisibility();
  // The runs that decide it follow the edit's frame in short slices (useSwitchStatuses).
  // Judged on the run on screen: the scenario with the faults injected now (`composed`).
  const statuses = useSwitchStatuses(composed);
  const statusOf = (d: SwitchDef) => statuses?.get(d.id);
  const active = switches.filter((d) => statusOf(d)?.enabled !== false);
  const inert = switches.filter((d) => statusOf(d)?.enabled === false);
  // Reads the scenario when the control changes (the store's, which is the one on screen).
  const onSet = useCallback((d: SwitchDef, value: boolean | string) => {
    const s = store.getState();
    const next = d.set(s.scenario, value);
    s.setScenario(next, `Switched ${switchValueText(next, d.id)}`, uniqueEditKey(`switch:${d.id}`));
  }, [store]);
  const row = (d: SwitchDef) => {
    const status = statusOf(d);
    const reason = status && !status.enabled ? status.reason : null;
    const changing = status?.enabled ? status.changing : null;
    return <SwitchRow key={d.id} d={d} value={d.get(scenario)} reason={reason} changing={changing} showHints={showHints} hint={showHints ? (reason ? `No effect here: ${reason}` : switchHint(scenario, d)) : ''} onSet={onSet} />;
  };
  return (
    <section className="panel mechanism" aria-label="Mechanism">
      {preset && showAnswer && (
        <fieldset className="variant-toggle">
          <legend>Load the preset</legend>
          <label><input type="radio" name="variant" checked={matches === 'without'} onChange={() => loadPreset(preset.id, 'without')} /> without the fix</label>
          <label title={`Fix: ${preset.fix}`}><input type="radio" name="variant" checked={matches === 'with'} onChange={() => loadPreset(preset.id, 'with')} /> with the fix</label>
          {matches === null && <p className="small edited" data-testid="variant-edited">Edited: matches neither variant</p>}
        </fieldset>
      )}
      <h2>Mechanism</h2>
      <ul className="switches">{active.map(row)}</ul>
      {scenario.mechanism.lock === 'lease' && (
        <SecondsInput
          id="lease-ttl"
          className="select inline ttl-field"
          label="Lease TTL"
          ariaLabel="Lease TTL in seconds"
          step={1}
          ms={scenario.lease.ttlMs}
          commitOnChange
          check={(ms) => problemAt({ ...composed, lease: { ...composed.lease, ttlMs: ms } }, 'lease.ttlMs')}
          onCommit={(ms) => ms !== null && setScenario({ ...scenario, lease: { ...scenario.lease, ttlMs: ms } }, `Lease TTL set to ${fmtSeconds(ms)}`, 'lease-ttl')}
        />
      )}
      {inert.length > 0 && (
        <details className="inert-switches" data-testid="inert-switches">
          <summary>{inert.length} more switch{inert.length === 1 ? '' : 'es'}: no effect in this run</summary>
          <ul className="switches">{inert.map(row)}</ul>
        </details>
      )}
    </section>
  );
}
