/**
 * The verdict: held or violated, in words, with buttons that move the cursor to the events each
 * finding cites. Harmless duplicates appear as "redundant, not a violation". While the view's mode
 * hides the verdict (predict-then-reveal), it says so and offers to reveal it.
 */
import { useLockscopeStore, useVisibility } from '../store';
import type { DerivedRun } from '../store/derive';
import { INVARIANT_TEXT } from '../../sim';
import { fmtSeconds } from '../faults/faultCatalog';
import { WaitForGraph } from '../inspector/WaitForGraph';

/** Props: the run and what to do when a cited event is chosen. */
export interface VerdictPanelProps {
  readonly run: DerivedRun;
  readonly onEventId: (eventId: string) => void;
  /** A caption above the verdict, e.g. the mechanism in the compare view. */
  readonly caption?: string;
  /** Controls shown at the right of the verdict's first line (e.g. the predict toggle). */
  readonly tools?: React.ReactNode;
}

/** The verdict panel. */
export function VerdictPanel({ run, onEventId, caption, tools }: VerdictPanelProps) {
  const store = useLockscopeStore();
  const { showVerdict, offerReveal } = useVisibility();
  const { verdict } = run;
  const timeOf = (id: string) => run.events.find((e) => e.id === id)?.atMs ?? 0;
  if (!showVerdict) {
    return (
      <section className="panel verdict concealed" aria-label={caption ? `Verdict: ${caption}` : 'Verdict'}>
        {caption && <p className="caption">{caption}</p>}
        <div className="verdict-line">
          <p className="verdict-head" role="status" data-testid="verdict">
            <span aria-hidden="true" className="verdict-icon">?</span>
            <strong>Verdict hidden</strong>
            <span className="verdict-sub"> — predict: will every invariant hold? It shows at the last event.</span>
          </p>
          {offerReveal && <button type="button" onClick={() => store.getState().reveal()} data-testid="reveal">Reveal now</button>}
          {tools}
        </div>
        <p className="small">Checking: {run.scenario.invariants.map((i) => INVARIANT_TEXT[i.kind]).join('; ')}.</p>
      </section>
    );
  }
  return (
    <section className={`panel verdict ${verdict.held ? 'held' : 'violated'}`} aria-label={caption ? `Verdict: ${caption}` : 'Verdict'}>
      {caption && <p className="caption">{caption}</p>}
      <div className="verdict-line">
        <p className="verdict-head" role="status" data-testid="verdict">
          <span aria-hidden="true" className="verdict-icon">{verdict.held ? '✓' : '✗'}</span>
          <strong>{verdict.held ? 'Held' : 'Violated'}</strong>
          <span className="verdict-sub"> — {verdict.held ? 'every invariant held' : `${verdict.violations.length} invariant${verdict.violations.length === 1 ? '' : 's'} broken`}</span>
        </p>
        {tools}
      </div>
      {run.error && <p className="error">The run stopped early: {run.error}</p>}
      {verdict.violations.length > 0 && (
        <ul className="findings">
          {verdict.violations.map((v, i) => (
            <li key={i}>
              <span className="finding-msg">⚠ {v.message}</span>
              <span className="small muted"> ({INVARIANT_TEXT[v.invariant]})</span>
              <span className="cites">
                {v.eventIds.map((id) => (
                  <button type="button" className="link" key={id} onClick={() => onEventId(id)} aria-label={`Go to event ${id} at ${fmtSeconds(timeOf(id))}`}>
                    {id} at {fmtSeconds(timeOf(id))}
                  </button>
                ))}
              </span>
              {v.cycle && <WaitForGraph edges={v.cycle.map((e) => ({ from: e.from, to: e.to, label: e.on === 'lease' ? `${e.what} (outside the database)` : e.what, onCycle: true }))} label={`Wait cycle ${[...v.cycle.map((e) => e.from), v.cycle[0]?.from ?? ''].join(' → ')}`} />}
            </li>
          ))}
        </ul>
      )}
      {verdict.notes.length > 0 && (
        <ul className="findings notes">
          {verdict.notes.map((n, i) => (
            <li key={i}>
              <span>ℹ Redundant, not a violation: {n.message}</span>
              <span className="cites">
                {n.eventIds.map((id) => <button type="button" className="link" key={id} onClick={() => onEventId(id)}>{id}</button>)}
              </span>
            </li>
          ))}
        </ul>
      )}
      {verdict.violations.length === 0 && verdict.notes.length === 0 && (
        <p className="small">Checked: {run.scenario.invariants.map((i) => INVARIANT_TEXT[i.kind]).join('; ')}.</p>
      )}
    </section>
  );
}
