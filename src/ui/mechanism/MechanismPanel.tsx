/** The mechanism switches for the current scenario, and the "without the fix / with the fix" toggle. */
import { findPreset } from '../../sim';
import { useLockscope } from '../store';
import { uniqueEditKey } from '../store/scenarioSlice';
import { relevantSwitches, switchValueText } from './switches';

/** The mechanism panel (reads and writes the store). */
export function MechanismPanel() {
  const scenario = useLockscope((s) => s.scenario);
  const setScenario = useLockscope((s) => s.setScenario);
  const presetId = useLockscope((s) => s.presetId);
  const variant = useLockscope((s) => s.variant);
  const loadPreset = useLockscope((s) => s.loadPreset);
  const preset = presetId ? findPreset(presetId) : undefined;
  const switches = relevantSwitches(scenario);
  return (
    <section className="panel mechanism" aria-label="Mechanism">
      {preset && (
        <fieldset className="variant-toggle">
          <legend>Load the preset</legend>
          <label><input type="radio" name="variant" checked={variant === 'without'} onChange={() => loadPreset(preset.id, 'without')} /> without the fix</label>
          <label><input type="radio" name="variant" checked={variant === 'with'} onChange={() => loadPreset(preset.id, 'with')} /> with the fix</label>
          <p className="small">Fix: {preset.fix}</p>
        </fieldset>
      )}
      <h2>Mechanism</h2>
      <ul className="switches">
        {switches.map((d) => {
          const v = d.get(scenario);
          const id = `sw-${d.id}`;
          return (
            <li key={d.id}>
              {typeof v === 'boolean' ? (
                <label htmlFor={id} className="switch">
                  <input id={id} type="checkbox" checked={v} onChange={(e) => setScenario(d.set(scenario, e.target.checked), `Switched ${switchValueText(d.set(scenario, e.target.checked), d.id)}`, uniqueEditKey(`switch:${d.id}`))} />
                  <span>{d.label}</span>
                </label>
              ) : (
                <label htmlFor={id} className="select">
                  <span>{d.label}</span>
                  <select id={id} value={v} onChange={(e) => setScenario(d.set(scenario, e.target.value), `Switched ${switchValueText(d.set(scenario, e.target.value), d.id)}`, uniqueEditKey(`switch:${d.id}`))}>
                    {d.options?.map((o) => <option key={o.value} value={o.value}>{o.label}</option>)}
                  </select>
                </label>
              )}
              <span className="help">{d.help}</span>
            </li>
          );
        })}
      </ul>
      {scenario.mechanism.lock === 'lease' && (
        <label className="select" htmlFor="lease-ttl">
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
