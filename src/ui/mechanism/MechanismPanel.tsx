/**
 * The mechanism switches for the current scenario, and the "without the fix / with the fix"
 * preset toggle (neither is checked once the setup matches neither variant). Each control shows
 * what its current value does, in a few words. A switch that cannot change this run is disabled
 * with the reason (`switchStatus` of the simulation core: structural reasons first, then one run
 * per other value, computed after the edit's frame in short slices); such switches wait in a
 * one-line disclosure below the others. A select's values that would change nothing say "(same run)".
 * Under the toggle, what "with the fix" changes — every difference of the preset's two variants
 * (`setupChanges`: switches, the job's steps, settings), so a fix that moves a step (the charge
 * after COMMIT) is never shown as only the switch it also flips.
 * A switch that stands for several fields (fencing: workers take a token, the destination checks
 * it) says the facts its value does not show (`SwitchDef.facts`), so that an unticked "Fencing
 * token" never sits over a log of INCRs unexplained: always in the candidate's interview (where no
 * hint explains it, and where a line shown only sometimes would itself say something), elsewhere
 * when the fields disagree with the value shown. The candidate's panel also shows no switch as
 * having no effect (`showSwitchEffects`): every switch enabled, in one list, no "(same run)".
 * Until the statuses of a newly opened scenario are known the panel is `aria-busy`: when they
 * arrive, the switches that change nothing fold into that disclosure and the panel gets shorter,
 * moving everything below it (the Faults panel) up — a pointer (or a test) aimed below waits.
 */
import { useMemo, useState } from 'react';
import { findPreset, fmtSeconds } from '../../sim';
import { setupChanges, type SetupChange } from './setupDiff';
import { memo, useCallback } from 'react';
import { useLockscope, useLockscopeStore, useVisibility } from '../store';
import { uniqueEditKey } from '../store/scenarioSlice';
import { relevantSwitches, switchHint, switchOptions, switchValueText, type SwitchDef, type SwitchStatus } from './switches';
import { useSwitchStatuses } from './useSwitchStatuses';
import { usePrefetchNext } from './usePrefetchNext';
import { matchVariant } from './variant';
import { SecondsInput } from '../fields/SecondsInput';
import { problemAt } from '../fields/explain';

/** The kinds of change a fix makes, in a few words: "the steps, 1 switch", "2 switches, lease settings". */
export function changeKinds(changes: readonly SetupChange[]): string {
  if (changes.length === 0) return 'nothing';
  const n = (k: SetupChange['kind']) => changes.filter((c) => c.kind === k).length;
  const switches = n('switch');
  const settings = changes.filter((c) => c.kind === 'setting').map((c) => c.text.split(':')[0]!.toLowerCase());
  return [
    ...(n('steps') + n('workers') > 0 ? ['the steps'] : []),
    ...(switches > 0 ? [`${switches} switch${switches === 1 ? '' : 'es'}`] : []),
    ...settings.map((x) => `${x} settings`),
    ...(n('faults') > 0 ? ['the faults'] : []),
  ].join(', ');
}

/** Props of one switch's row: everything it shows, as values, so that an edit re-renders only the rows it changed. */
interface SwitchRowProps {
  readonly d: SwitchDef;
  readonly value: boolean | string;
  /** Why the switch cannot change this run (it is disabled), or null. */
  readonly reason: string | null;
  /** The values that would change the run (a select's others are marked "(same run)"), or null while unknown. */
  readonly changing: readonly string[] | null;
  /** A select's options for this scenario (`switchOptions`). */
  readonly options: readonly { readonly value: string; readonly label: string }[];
  readonly showHints: boolean;
  readonly hint: string;
  /** Neutral facts of the fields the value does not show (`SwitchDef.facts`), or null. */
  readonly facts: string | null;
  /** The label shown: the full one where the facts stand beside it (it says what the value controls). */
  readonly shownLabel: string;
  readonly onSet: (d: SwitchDef, value: boolean | string) => void;
}

/** One switch: a checkbox or a select, with its hint. */
const SwitchRow = memo(function SwitchRow({ d, value: v, reason, changing, options, showHints, hint, facts, shownLabel, onSet }: SwitchRowProps) {
  const id = `sw-${d.id}`;
  const hintId = `${id}-hint`;
  const factsId = `${id}-facts`;
  const describedBy = [showHints ? hintId : null, facts !== null ? factsId : null].filter((x) => x !== null).join(' ') || undefined;
  return (
    <li className={reason ? 'inert' : undefined} data-switch={d.id}>
      {typeof v === 'boolean' ? (
        <label htmlFor={id} className="switch" title={reason ? `${d.label}: no effect here, ${reason}` : d.label}>
          <input id={id} type="checkbox" checked={v} disabled={reason !== null} aria-label={d.label} aria-describedby={describedBy} onChange={(e) => onSet(d, e.target.checked)} />
          <span>{shownLabel}</span>
        </label>
      ) : (
        <label htmlFor={id} className="select inline" title={reason ? `${d.label}: no effect here, ${reason}` : undefined}>
          <span>{shownLabel}</span>
          <select id={id} value={v} disabled={reason !== null} aria-label={d.label} aria-describedby={describedBy} onChange={(e) => onSet(d, e.target.value)}>
            {options.map((o) => <option key={o.value} value={o.value}>{o.label}{changing && o.value !== v && !changing.includes(o.value) ? ' (same run)' : ''}</option>)}
          </select>
        </label>
      )}
      {/* In interview mode no hint shows, not even why a switch changes nothing here (that is a hint too: the candidate's statuses are none, so no tooltip says it either). */}
      {showHints && <span className={typeof v === 'boolean' ? 'help' : 'help under-select'} id={hintId}>{hint}</span>}
      {facts !== null && <span className="help switch-facts" id={factsId} data-testid={`${id}-facts`}>{facts}</span>}
    </li>
  );
});

/** The statuses the candidate's panel uses: none known, so every switch shows alike (enabled, no "(same run)"). */
const NO_STATUSES: ReadonlyMap<string, SwitchStatus> = new Map<string, SwitchStatus>();

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
  // What the preset's fixed variant changes, derived from its two variants (never from the switches alone).
  const fixChanges = useMemo(() => (preset ? setupChanges(preset.withoutFix, preset.withFix) : []), [preset]);
  const [fixOpen, setFixOpen] = useState(false);
  const switches = relevantSwitches(scenario);
  const { showAnswer, showHints, showSwitchEffects } = useVisibility();
  // The runs that decide it follow the edit's frame in short slices (useSwitchStatuses).
  // Judged on the run on screen: the scenario with the faults injected now (`composed`).
  const computed = useSwitchStatuses(composed);
  // The runs its controls would show, derived in idle time so that a click only draws (./usePrefetchNext.ts).
  usePrefetchNext(composed, computed);
  // The candidate's panel says nothing of which switches matter (every switch alike, enabled).
  const statuses = showSwitchEffects ? computed : NO_STATUSES;
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
    const f = d.facts?.(scenario) ?? null;
    const facts = f && (!showHints || !f.agrees) ? f.text : null;
    return <SwitchRow key={d.id} d={d} value={d.get(scenario)} reason={reason} changing={changing} options={switchOptions(d, scenario)} showHints={showHints} hint={showHints ? (reason ? `No effect here: ${reason}` : switchHint(scenario, d)) : ''} facts={facts} shownLabel={facts !== null ? d.label : d.short ?? d.label} onSet={onSet} />;
  };
  return (
    <section className="panel mechanism" aria-label="Mechanism" aria-busy={statuses === null}>
      {preset && showAnswer && (
        <fieldset className="variant-toggle" data-testid="fix-changes">
          <legend>Load the preset</legend>
          <label><input type="radio" name="variant" checked={matches === 'without'} onChange={() => loadPreset(preset.id, 'without')} /> without the fix</label>
          <label title={`Fix: ${preset.fix}`}><input type="radio" name="variant" checked={matches === 'with'} onChange={() => loadPreset(preset.id, 'with')} /> with the fix</label>
          {/* Both radios share a line, so this one costs no height (the faults stay in view at 1280×800): the kinds of change — steps first —, opening to the list. */}
          <button type="button" className="link fix-changes-toggle" aria-expanded={fixOpen} aria-controls={`${preset.id}-fix-changes`} onClick={() => setFixOpen(!fixOpen)}>The fix changes: {changeKinds(fixChanges)} {fixOpen ? '▾' : '▸'}</button>
          <div className="fix-changes small" id={`${preset.id}-fix-changes`} hidden={!fixOpen}>
            <p><strong>The fix:</strong> {preset.fix}. {fixChanges.length > 0 ? 'With it:' : ''}</p>
            {fixChanges.length > 0 && <ul>{fixChanges.map((c) => <li key={c.text}>{c.text}</li>)}</ul>}
          </div>
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
