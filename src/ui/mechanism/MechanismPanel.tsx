/**
 * The mechanism switches for the current scenario, and the "without the fix / with the fix"
 * preset toggle (neither is checked once the setup matches neither variant). Each control shows
 * what its current value does, in a few words.
 */
import { findPreset } from '../../sim';
import { useLockscope, useVisibility } from '../store';
import { uniqueEditKey } from '../store/scenarioSlice';
import { relevantSwitches, switchHint, switchValueText } from './switches';
import { matchVariant } from './variant';
import { SecondsInput } from '../fields/SecondsInput';
import { problemAt } from '../fields/explain';

/** The mechanism panel (reads and writes the store). */
export function MechanismPanel() {
  const scenario = useLockscope((s) => s.scenario);
  const composed = useLockscope((s) => s.composed);
  const setScenario = useLockscope((s) => s.setScenario);
  const presetId = useLockscope((s) => s.presetId);
  const loadPreset = useLockscope((s) => s.loadPreset);
  const preset = presetId ? findPreset(presetId) : undefined;
  const matches = matchVariant(scenario, preset);
  const switches = relevantSwitches(scenario);
  const { showAnswer, showHints } = useVisibility();
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
      <ul className="switches">
        {switches.map((d) => {
          const v = d.get(scenario);
          const id = `sw-${d.id}`;
          const hintId = `${id}-hint`;
          return (
            <li key={d.id}>
              {typeof v === 'boolean' ? (
                <label htmlFor={id} className="switch" title={d.label}>
                  <input id={id} type="checkbox" checked={v} aria-label={d.label} aria-describedby={showHints ? hintId : undefined} onChange={(e) => setScenario(d.set(scenario, e.target.checked), `Switched ${switchValueText(d.set(scenario, e.target.checked), d.id)}`, uniqueEditKey(`switch:${d.id}`))} />
                  <span>{d.short ?? d.label}</span>
                </label>
              ) : (
                <label htmlFor={id} className="select inline">
                  <span>{d.short ?? d.label}</span>
                  <select id={id} value={v} aria-label={d.label} aria-describedby={showHints ? hintId : undefined} onChange={(e) => setScenario(d.set(scenario, e.target.value), `Switched ${switchValueText(d.set(scenario, e.target.value), d.id)}`, uniqueEditKey(`switch:${d.id}`))}>
                    {d.options?.map((o) => <option key={o.value} value={o.value}>{o.label}</option>)}
                  </select>
                </label>
              )}
              {showHints && <span className={typeof v === 'boolean' ? 'help' : 'help under-select'} id={hintId}>{switchHint(scenario, d)}</span>}
            </li>
          );
        })}
      </ul>
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
          onCommit={(ms) => ms !== null && setScenario({ ...scenario, lease: { ...scenario.lease, ttlMs: ms } }, `Lease TTL set to ${ms / 1000} s`, 'lease-ttl')}
        />
      )}
    </section>
  );
}
