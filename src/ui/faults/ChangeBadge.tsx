/**
 * The note that says what the last edit changed ("verdict: held → violated", "+1 duplicate
 * upload"), on one line: the edit and its first, short changes; the rest behind "+N more".
 */
import { useState } from 'react';
import type { ChangeBadge as Badge } from '../store/types';
import { useVisibility } from '../store';

/** Changes shown on the badge's line; the others (and long ones, like a finding that went away) wait behind "+N more". */
export function splitChanges(changes: readonly string[], maxShown = 2, maxChars = 48): { shown: string[]; rest: string[] } {
  const shown: string[] = [];
  const rest: string[] = [];
  for (const c of changes) (shown.length < maxShown && c.length <= maxChars ? shown : rest).push(c);
  return { shown, rest };
}

/** The edit in a few words: "Switched Fencing token (checked by the destination): on" → "Fencing token (checked by the destination): on". */
function actionText(action: string): string {
  return action.replace(/^Switched /, '');
}

/** Shows the last edit and its effect on the outcome (unless the view's mode hides the outcome); polite live region. */
export function ChangeBadge({ badge, onDismiss }: { badge: Badge | null; onDismiss: () => void }) {
  const { showEditOutcome, offerReveal } = useVisibility();
  // What the hidden half says: predict mode shows it at the last event; interview mode never.
  const concealed = showEditOutcome ? null : offerReveal ? 'outcome hidden until the end' : 'outcome hidden';
  return (
    <div className="badge-slot" role="status" aria-live="polite">
      {badge && <BadgeLine key={badge.serial} badge={badge} concealed={concealed} onDismiss={onDismiss} />}
    </div>
  );
}

function BadgeLine({ badge, concealed, onDismiss }: { badge: Badge; concealed: string | null; onDismiss: () => void }) {
  const [open, setOpen] = useState(false);
  const tone = concealed !== null ? '' : badge.changes.some((c) => c.includes('→ violated') || c.startsWith('+1 dup') || /^\+\d+ duplicate/.test(c)) ? 'worse' : badge.changes.some((c) => c.includes('→ held')) ? 'better' : '';
  const { shown, rest } = concealed !== null ? { shown: [concealed], rest: [] } : badge.changes.length === 0 ? { shown: ['no change in the outcome'], rest: [] } : splitChanges(badge.changes);
  return (
    <div className={`change-badge ${tone}`} data-testid="change-badge">
      <span className="badge-action">{actionText(badge.action)}</span>
      <span aria-hidden="true">→</span>
      <strong className="badge-changes">{shown.join(' · ')}</strong>
      {rest.length > 0 && (
        <button type="button" className="link badge-more" aria-expanded={open} onClick={() => setOpen(!open)}>
          {open ? 'less' : `+${rest.length} more`}
        </button>
      )}
      <button type="button" className="link badge-dismiss" onClick={onDismiss} aria-label="Dismiss the change note">✕</button>
      {/* Screen readers hear every change at once; the line shows the short ones. */}
      {rest.length > 0 && (open ? <ul className="badge-rest">{rest.map((c) => <li key={c}>{c}</li>)}</ul> : <span className="sr-only">{rest.join(' · ')}</span>)}
    </div>
  );
}
