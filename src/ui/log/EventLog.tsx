/**
 * The event log: time, actor, the literal command → reply, and the narration of every event.
 * Clicking (or Enter on) an event moves the cursor there; the current event is highlighted and
 * scrolled into view. Rows are keyed by event id and memoised on what they show (not on object
 * identity), so moving the cursor re-renders two rows and a fault edit re-renders only the rows
 * whose event changed.
 */
import { memo, useEffect, useRef } from 'react';
import type { TraceEvent } from '../../sim';
import type { DerivedRun } from '../store/derive';
import { fmtSeconds } from '../faults/faultCatalog';
import { useVisibility } from '../store';

/** Props: the run, the current event index, and what to do when an event is chosen. */
export interface EventLogProps {
  readonly run: DerivedRun;
  readonly index: number;
  readonly onSelect: (index: number) => void;
  /** Event ids cited by the verdict (marked with ⚠). */
  readonly cited?: ReadonlySet<string>;
}

interface RowProps { e: TraceEvent; index: number; current: boolean; cited: boolean; onSelect: (index: number) => void }

/** Same row on screen: same event content, position, highlight and handler (a new run rebuilds event objects). */
function sameRow(a: RowProps, b: RowProps): boolean {
  return a.index === b.index && a.current === b.current && a.cited === b.cited && a.onSelect === b.onSelect
    && (a.e === b.e || (a.e.id === b.e.id && a.e.atMs === b.e.atMs && a.e.kind === b.e.kind && a.e.actor === b.e.actor
      && a.e.command === b.e.command && a.e.reply === b.e.reply && a.e.narration === b.e.narration));
}

const Row = memo(function Row({ e, index, current, cited, onSelect }: RowProps) {
  return (
    <li className={`log-row kind-${e.kind}${current ? ' current' : ''}${cited ? ' cited' : ''}`} data-index={index}>
      <button
        type="button"
        tabIndex={current ? 0 : -1}
        aria-current={current ? 'step' : undefined}
        onClick={() => onSelect(index)}
        data-event-id={e.id}
      >
        <span className="log-time">{fmtSeconds(e.atMs)}</span>
        <span className="log-id">{e.id}</span>
        <span className="log-actor">{e.actor}</span>
        <span className="log-body">
          {e.command !== undefined && (
            <code className="log-cmd">{e.command}{e.reply !== undefined ? <> <span aria-hidden="true">→</span><span className="sr-only">replies</span> <span className="log-reply">{e.reply}</span></> : null}</code>
          )}
          {e.command === undefined && e.reply !== undefined && <code className="log-cmd"><span className="log-reply">{e.reply}</span></code>}
          <span className="log-narration">{cited ? <strong className="cited-mark" aria-label="cited by the verdict">⚠ </strong> : null}{e.narration}</span>
        </span>
      </button>
    </li>
  );
}, sameRow);

/** The event log panel. */
export function EventLog({ run, index, onSelect, cited }: EventLogProps) {
  // While the view's mode hides the future (predict-then-reveal): only the events up to the cursor, none marked as cited.
  const { showFuture, showFindings } = useVisibility();
  const shown = showFuture ? run.events : run.events.slice(0, index + 1);
  const hidden = run.events.length - shown.length;
  const listRef = useRef<HTMLOListElement>(null);

  // Keep the current event in view (scrolls only the log, never the page).
  useEffect(() => {
    const list = listRef.current;
    if (!list || index < 0) return;
    // Measured in the next frame, after every other effect has written to the DOM (no extra forced layout).
    const raf = requestAnimationFrame(() => {
      const row = list.querySelector<HTMLElement>(`li[data-index="${index}"]`);
      if (!row) return;
      const top = row.offsetTop;
      if (top < list.scrollTop || top + row.offsetHeight > list.scrollTop + list.clientHeight) {
        list.scrollTop = Math.max(0, top - list.clientHeight / 3);
      }
    });
    return () => cancelAnimationFrame(raf);
  }, [index, run]);

  const onKeyDown = (ev: React.KeyboardEvent) => {
    if (ev.key !== 'ArrowDown' && ev.key !== 'ArrowUp') return;
    ev.preventDefault();
    ev.stopPropagation();
    const next = Math.max(0, Math.min(run.events.length - 1, index + (ev.key === 'ArrowDown' ? 1 : -1)));
    onSelect(next);
    requestAnimationFrame(() => listRef.current?.querySelector<HTMLElement>(`li[data-index="${next}"] button`)?.focus());
  };

  return (
    <section className="panel log" aria-label="Event log">
      <h2>Event log <span className="muted">{run.events.length} events · ↑/↓ inside the log, click to jump</span></h2>
      <ol className="log-list" ref={listRef} onKeyDown={onKeyDown} tabIndex={index < 0 ? 0 : -1} aria-label="Events in order">
        {shown.map((e, i) => (
          <Row key={e.id} e={e} index={i} current={i === index} cited={showFindings && (cited?.has(e.id) ?? false)} onSelect={onSelect} />
        ))}
        {hidden > 0 && <li className="log-hidden muted small">{hidden} more event{hidden === 1 ? '' : 's'} hidden until you step there (predict first).</li>}
      </ol>
    </section>
  );
}
