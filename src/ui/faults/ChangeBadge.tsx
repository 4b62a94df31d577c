/** The badge that says what the last edit changed ("verdict: held → violated", "+1 duplicate upload"). */
import type { ChangeBadge as Badge } from '../store/types';
import { useVisibility } from '../store';

/** Shows the last edit and its effect on the outcome (unless the view's mode hides the outcome); polite live region. */
export function ChangeBadge({ badge, onDismiss }: { badge: Badge | null; onDismiss: () => void }) {
  const concealed = !useVisibility().showEditOutcome;
  return (
    <div className="badge-slot" role="status" aria-live="polite">
      {badge && concealed && (
        <div className="change-badge" data-testid="change-badge" key={badge.serial}>
          <span className="badge-action">{badge.action}</span>
          <span aria-hidden="true"> → </span>
          <strong className="badge-changes">outcome hidden until the end</strong>
          <button type="button" className="link" onClick={onDismiss} aria-label="Dismiss the change note">✕</button>
        </div>
      )}
      {badge && !concealed && (
        <div className={`change-badge ${badge.changes.some((c) => c.includes('→ violated') || c.startsWith('+1 dup') || /^\+\d+ duplicate/.test(c)) ? 'worse' : badge.changes.some((c) => c.includes('→ held')) ? 'better' : ''}`} data-testid="change-badge" key={badge.serial}>
          <span className="badge-action">{badge.action}</span>
          <span aria-hidden="true"> → </span>
          <strong className="badge-changes">{badge.changes.length > 0 ? badge.changes.join(' · ') : 'no change in the outcome'}</strong>
          <button type="button" className="link" onClick={onDismiss} aria-label="Dismiss the change note">✕</button>
        </div>
      )}
    </div>
  );
}
