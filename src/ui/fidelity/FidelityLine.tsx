/**
 * The fidelity claim on screen: one line per preset (the catalogue's cards), per preset variant
 * ("Run it yourself") and one for the whole build ("How faithful is the model?"), from
 * `fidelityStatus` over the report this build was given: it names only the servers the run
 * touches, and says so when a run touches none. An edited scenario is not a preset's run: it says
 * so instead of borrowing the preset's claim.
 */
import { BUILD_FIDELITY, fidelityStatus, type FidelityBuildInfo } from './fidelityStatus';

/** Props: the preset (absent: the whole build) and its variant (absent: both), whether the run on screen was edited, and the build's info (tests pass their own). */
export interface FidelityLineProps {
  readonly presetId?: string;
  readonly variant?: 'with the fix' | 'without the fix';
  readonly edited?: boolean;
  readonly long?: boolean;
  readonly info?: FidelityBuildInfo;
  /** Neutral words for an edited run (the interview's candidate: saying it was "edited from the preset" tells there is one, and an answer). */
  readonly neutral?: boolean;
}

/** "Checked against PostgreSQL 15.x: 0 differences", "Not replayed against a server: …", or "Not checked in this build". */
export function FidelityLine({ presetId, variant, edited = false, long = false, info = BUILD_FIDELITY, neutral = false }: FidelityLineProps) {
  if (edited && neutral) return <span className="fidelity unchecked" data-testid="fidelity">Not checked against a server in this build; its transcript can be replayed by hand.</span>;
  if (edited) return <span className="fidelity unchecked" data-testid="fidelity">Not checked: this run was edited from the preset; its transcript can still be replayed by hand.</span>;
  const s = fidelityStatus(info, presetId, variant === undefined ? undefined : variant === 'with the fix' ? 'withFix' : 'withoutFix');
  return (
    <span className={`fidelity ${s.kind === 'checked' && s.differences === 0 ? 'checked' : 'unchecked'}`} data-testid="fidelity" title={long ? undefined : s.text}>
      {long ? s.text : s.short}
    </span>
  );
}
