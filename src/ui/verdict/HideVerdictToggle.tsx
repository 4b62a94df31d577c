/** Predict-then-reveal for workshops: the toggle between explore and predict mode (kept in the view state and the link). */
import { useLockscope, useLockscopeStore, useVisibility } from '../store';

/** The predict-then-reveal toggle (a checkbox: Space toggles it). */
export function HideVerdictToggle() {
  const store = useLockscopeStore();
  const on = useLockscope((s) => s.mode === 'predict');
  const { offerModeToggle } = useVisibility();
  if (!offerModeToggle) return null;
  return (
    <label className="predict-toggle" title="Workshops: predict the outcome, then step to the end to see it">
      <input type="checkbox" checked={on} onChange={(e) => store.getState().setMode(e.target.checked ? 'predict' : 'explore')} data-testid="hide-verdict" />
      Hide the verdict until the end
    </label>
  );
}
