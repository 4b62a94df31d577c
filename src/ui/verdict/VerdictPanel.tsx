/**
 * The verdict: held, violated, or inconclusive (the run was cut short — by the event limit, or by
 * its horizon while a worker was still at its job — before any violation), in words, with buttons
 * that move the cursor to the events each finding cites. Harmless duplicates appear as "redundant,
 * not a violation"; a duplicate no declared invariant checks is named too ("not checked here").
 * While the view's mode hides the verdict (predict-then-reveal), it says so and offers to reveal it.
 */
import { useLockscopeStore, useVisibility } from '../store';
import type { DerivedRun } from '../store/derive';
import type { Finding } from '../../sim';
import { invariantText } from './invariantText';
import { fmtSeconds } from '../faults/faultCatalog';
import { runTimeFormatter } from '../timeline/lanes';
import { WaitForGraph } from '../inspector/WaitForGraph';

/** Props: the run and what to do when a cited event is chosen. */
export interface VerdictPanelProps {
  readonly run: DerivedRun;
  readonly onEventId: (eventId: string) => void;
  /** A caption above the verdict, e.g. the mechanism in the compare view. */
  readonly caption?: string;
  /** Controls shown at the right of the verdict's first line (e.g. the predict toggle). */
  readonly tools?: React.ReactNode;
  /** A display, not a control (the workshop audience's projector): no "Reveal now" (the presenter reveals), the cited events as words, not buttons. */
  readonly display?: boolean;
}

/**
 * "1 invariant broken", "2 invariants broken", or "1 invariant broken twice": invariants are
 * counted once however many findings each has (lock-order-deadlock: two workers each wait past one
 * bound is one invariant broken twice, not two invariants).
 */
export function brokenInWords(violations: readonly { readonly invariant: string }[]): string {
  const kinds = new Set(violations.map((v) => v.invariant)).size;
  const times = violations.length;
  const head = `${kinds} invariant${kinds === 1 ? '' : 's'} broken`;
  if (times === kinds) return head;
  return `${head}${kinds === 1 ? (times === 2 ? ' twice' : ` ${times} times`) : ` (${times} findings)`}`;
}

/**
 * The findings in the order a reader should meet them: a wait cycle first (it is the cause; the
 * bounded-wait findings of the workers stuck on it are its symptoms), the rest as the run found them.
 */
function causesFirst(violations: readonly Finding[]): Finding[] {
  return [...violations].sort((a, b) => Number(b.invariant === 'noWaitCycle') - Number(a.invariant === 'noWaitCycle'));
}

/** The verdict panel. */
export function VerdictPanel({ run, onEventId, caption, tools, display }: VerdictPanelProps) {
  const store = useLockscopeStore();
  const { showVerdict, offerReveal, showAnswer, showHints } = useVisibility();
  const { verdict } = run;
  const timeOf = (id: string) => run.events.find((e) => e.id === id)?.atMs ?? 0;
  /** An instant in the unit of the run's axis (the citations sit above the timeline). */
  const at = runTimeFormatter(run);
  if (!showVerdict) {
    return (
      <section className="panel verdict concealed" aria-label={caption ? `Verdict: ${caption}` : 'Verdict'}>
        {caption && <p className="caption">{caption}</p>}
        <div className="verdict-line">
          <p className="verdict-head" role="status" data-testid="verdict">
            <span aria-hidden="true" className="verdict-icon">?</span>
            <strong>Verdict hidden</strong>
            <span className="verdict-sub">{display ? ' — will every invariant hold? It shows at the last event, or when the presenter reveals it.' : showAnswer ? ' — predict: will every invariant hold? It shows at the last event.' : ' — will every invariant hold, whatever the faults? Check your design to find out.'}</span>
          </p>
          {offerReveal && !display && <button type="button" onClick={() => store.getState().reveal()} data-testid="reveal">Reveal now</button>}
          {tools}
        </div>
        <p className="small">Checking: {run.scenario.invariants.map((i) => invariantText(i.kind, showHints)).join('; ')}.</p>
      </section>
    );
  }
  const cut = verdict.status === 'inconclusive' ? verdict.cutShort : undefined;
  // A duplicate the scenario's invariants do not check is said in the head too: "Held" alone read as
  // "nothing went wrong" beside a duplicate upload (found by a newcomer).
  const unchecked = verdict.notes.filter((n) => n.severity === 'unchecked').length;
  const heldSub = unchecked === 0 ? 'every invariant held' : `every invariant held, but ${unchecked === 1 ? 'a duplicate effect none of them checks happened' : `${unchecked} duplicate effects none of them checks happened`} (below)`;
  const head = verdict.status === 'held' ? { icon: '✓', word: 'Held', sub: heldSub }
    : verdict.status === 'violated' ? { icon: '✗', word: 'Violated', sub: brokenInWords(verdict.violations) }
      : { icon: '?', word: 'Inconclusive', sub: `cut short at ${cut?.events ?? run.events.length} events / ${at(cut?.atMs ?? run.endMs)}` };
  return (
    <section className={`panel verdict ${verdict.status}`} aria-label={caption ? `Verdict: ${caption}` : 'Verdict'}>
      {caption && <p className="caption">{caption}</p>}
      <div className="verdict-line">
        <p className="verdict-head" role="status" data-testid="verdict">
          <span aria-hidden="true" className="verdict-icon">{head.icon}</span>
          <strong>{head.word}</strong>
          <span className="verdict-sub"> — {head.sub}</span>
        </p>
        {tools}
      </div>
      {cut && (
        <p className="small" data-testid="cut-short">
          {cut.reason === 'eventLimit'
            ? `The run reached the event limit (${cut.events} events) at ${at(cut.atMs)}, before it was over (fewer retries — a longer retryEveryMs — make room).`
            : `The ${fmtSeconds(run.scenario.horizonMs)} horizon came while ${cut.unfinished.join(', ')} ${cut.unfinished.length === 1 ? 'was' : 'were'} still at ${cut.unfinished.length === 1 ? 'its job' : 'their jobs'} (a longer horizon shows how it ends).`}
          {' '}Nothing was violated before then, which proves nothing.
        </p>
      )}
      {run.error && !cut && <p className="error">The run stopped early: {run.error}</p>}
      {verdict.violations.length > 0 && (
        <ul className="findings">
          {causesFirst(verdict.violations).map((v, i) => (
            <li key={i}>
              <span className="finding-msg">⚠ {v.message}</span>
              <span className="small muted"> ({invariantText(v.invariant, showHints)})</span>
              <span className="cites">
                {v.eventIds.map((id) => (display
                  ? <span key={id} className="cite">{id} at {at(timeOf(id))}</span>
                  : (
                    <button type="button" className="link" key={id} onClick={() => onEventId(id)} aria-label={`Go to event ${id} at ${at(timeOf(id))}`}>
                      {id} at {at(timeOf(id))}
                    </button>
                  )))}
              </span>
              {v.cycle && <WaitForGraph edges={v.cycle.map((e) => ({ from: e.from, to: e.to, label: e.on === 'lease' || e.on === 'pool' ? `${e.what} (outside the database)` : e.what, onCycle: true }))} label={`Wait cycle ${[...v.cycle.map((e) => e.from), v.cycle[0]?.from ?? ''].join(' → ')}`} />}
            </li>
          ))}
        </ul>
      )}
      {verdict.notes.length > 0 && (
        <ul className="findings notes">
          {verdict.notes.map((n, i) => (
            <li key={i}>
              <span>ℹ {n.severity === 'redundant' ? 'Redundant, not a violation' : 'A duplicate, not checked here'}: {n.message}</span>
              <span className="cites">
                {n.eventIds.map((id) => (display ? <span key={id} className="cite">{id}</span> : <button type="button" className="link" key={id} onClick={() => onEventId(id)}>{id}</button>))}
              </span>
            </li>
          ))}
        </ul>
      )}
      {verdict.violations.length === 0 && verdict.notes.length === 0 && !cut && (
        <p className="small">Checked: {run.scenario.invariants.map((i) => invariantText(i.kind, showHints)).join('; ')}.</p>
      )}
    </section>
  );
}
