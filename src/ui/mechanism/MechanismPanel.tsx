/**
 * The mechanism switches for the current scenario, and the "without the fix / with the fix"
 * preset toggle (neither is checked once the setup matches neither variant). Each control shows
 * what its current value does, in a few words.
 */
import { findPreset } from '../../sim';
import { useLockscope } from '../store';
import { uniqueEditKey } from '../store/scenarioSlice';
import { relevantSwitches, switchHint, switchValueText } from './switches';
import { matchVariant } from './variant';

/** The mechanism panel (reads and writes the store). */
export function MechanismPanel() {
  const scenario = useLockscope((s) => s.scenario);
  const setScenario = useLockscope((s) => s.setScenario);
  const presetId = useLockscope((s) => s.presetId);
  const loadPreset = useLockscope((s) => s.loadPreset);
  const preset = presetId ? findPreset(presetId) : undefined;
  const matches = matchVariant(scenario, preset);
  const switches = relevantSwitches(scenario);
  return (
    <section className="panel mechanism" aria-label="Mechanism">
      {preset && (
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
                  <input id={id} type="checkbox" checked={v} aria-label={d.label} aria-describedby={hintId} onChange={(e) => setScenario(d.set(scenario, e.target.checked), `Switched ${switchValueText(d.set(scenario, e.target.checked), d.id)}`, uniqueEditKey(`switch:${d.id}`))} />
                  <span>{d.short ?? d.label}</span>
                </label>
              ) : (
                <label htmlFor={id} className="select inline">
                  <span>{d.short ?? d.label}</span>
                  <select id={id} value={v} aria-label={d.label} aria-describedby={hintId} onChange={(e) => setScenario(d.set(scenario, e.target.value), `Switched ${switchValueText(d.set(scenario, e.target.value), d.id)}`, uniqueEditKey(`switch:${d.id}`))}>
                    {d.options?.map((o) => <option key={o.value} value={o.value}>{o.label}</option>)}
                  </select>
                </label>
              )}
              <span className={typeof v === 'boolean' ? 'help' : 'help under-select'} id={hintId}>{switchHint(scenario, d)}</span>
            </li>
          );
        })}
      </ul>
      {scenario.mechanism.lock === 'lease' && (
        <label className="select inline" htmlFor="lease-ttl">
          <span>Lease TTL (s)</span>
          <input
            id="lease-ttl"
            type="number"
            min={1}
            max={3600}
            step={1}
            value={scenario.lease.ttlMs / 1000}
            onChange={(e) => {
              const s = Number(e.target.value);
              if (Number.isFinite(s) && s >= 0.001) setScenario({ ...scenario, lease: { ...scenario.lease, ttlMs: Math.round(s * 1000) } }, `Lease TTL set to ${s} s`, 'lease-ttl');
            }}
          />
        </label>
      )}
    </section>
  );
}
