/**
 * Messages about input the app refused (a link, a file) and the offer to restore unsaved edits.
 * Everything is rendered as text (React escapes it): a hostile link's content never becomes markup.
 */
import type { DraftOffer, Notice } from '../store/types';
import { ruleWords } from '../fields/words';

/** Shown at most this many problems; the rest are counted. */
const MAX_SHOWN = 12;

/** The refused-input message: what is wrong (the rule in words, its numbers with their unit: ../fields/words.ts) and where (field paths), dismissible. */
export function NoticeBanner({ notice, onDismiss }: { notice: Notice | null; onDismiss: () => void }) {
  if (!notice) return null;
  const shown = notice.errors.slice(0, MAX_SHOWN);
  return (
    <div className="notice" role="alert" data-testid="notice" key={notice.serial}>
      <div className="notice-body">
        <p className="notice-title"><strong>{notice.title}</strong></p>
        <ul className="notice-errors">
          {shown.map((e, i) => (
            <li key={i}><code className="notice-path">{e.path.slice(0, 200)}</code> {ruleWords(e.path.slice(0, 200), e.message.slice(0, 400))}</li>
          ))}
          {notice.errors.length > shown.length && <li>… and {notice.errors.length - shown.length} more</li>}
        </ul>
      </div>
      <button type="button" className="notice-close" onClick={onDismiss} aria-label="Dismiss this message">Dismiss</button>
    </div>
  );
}

/** The offer to restore unsaved edits found in this browser. */
export function DraftOfferBanner({ offer, onRestore, onDiscard }: { offer: DraftOffer | null; onRestore: () => void; onDiscard: () => void }) {
  if (!offer) return null;
  const when = new Date(offer.savedAt);
  const stamp = Number.isFinite(when.getTime()) ? when.toLocaleString() : 'earlier';
  return (
    <div className="notice draft-offer" role="region" aria-label="Unsaved edits" data-testid="draft-offer">
      <p className="notice-body">
        You have unsaved edits from {stamp} (“{offer.title}”) that differ from what is open.
      </p>
      <div className="notice-actions">
        <button type="button" className="button primary" onClick={onRestore}>Restore my edits</button>
        <button type="button" onClick={onDiscard}>Discard them</button>
      </div>
    </div>
  );
}
