/**
 * The event log: time, actor, the literal command → reply, and the narration of every event.
 * Clicking (or Enter on) an event moves the cursor there; the current event is highlighted and
 * scrolled into view. Rows are keyed by event id and memoised on what they show (not on object
 * identity), so moving the cursor re-renders two rows and a fault edit re-renders only the rows
 * whose event changed.
 *
 * A reply explains itself (./../glossary): hovering it, or focusing its row, shows what it means.
 * Repeated identical retries fold into one row (./folds.ts) that expands. A long log is windowed
 * (@tanstack/react-virtual): only the rows in view exist, so a 2,000-event run costs what a
 * 50-event one does.
 */
import { memo, useEffect, useId, useMemo, useRef, useState } from 'react';
import { useVirtualizer } from '@tanstack/react-virtual';
import type { TraceEvent } from '../../sim';
import type { DerivedRun } from '../store/derive';
import { timeInUnit, type AxisUnit } from '../timeline/axisScale';
import { runTimeUnit } from '../timeline/lanes';
import { narrationShown, useVisibility } from '../store';
import { explainReply } from '../glossary/replies';
import { foldRetries, spacingText, type LogEntry } from './folds';
import { citationsOf, replyTone, type Citations } from '../verdict/citations';

/** Props: the run, the current event index, and what to do when an event is chosen. */
export interface EventLogProps {
  readonly run: DerivedRun;
  readonly index: number;
  readonly onSelect: (index: number) => void;
  /**
   * The events the verdict's findings cite (default: the run's own, `citationsOf`): one a violation
   * cites is marked ⚠ in the violation colour, one only a note cites ℹ as a note (U+2139, which DejaVu Sans has: Debian Chromium drew U+24D8 ⓘ as an empty box) — never red.
   */
  readonly cited?: Citations;
}

/** Logs with more rows than this are windowed. */
export const WINDOW_ABOVE = 150;

interface RowProps { e: TraceEvent; index: number; current: boolean; cited: 'violation' | 'note' | null; onSelect: (index: number) => void; nested?: boolean; /** Facts only (interview mode: `narrationShown`). */ factsOnly: boolean; /** The run's time unit (`runTimeUnit`). */ unit: AxisUnit }

/** Same row on screen: same event content, position, highlight and handler (a new run rebuilds event objects). */
function sameRow(a: RowProps, b: RowProps): boolean {
  return a.index === b.index && a.current === b.current && a.cited === b.cited && a.onSelect === b.onSelect && a.nested === b.nested && a.factsOnly === b.factsOnly && a.unit === b.unit
    && (a.e === b.e || (a.e.id === b.e.id && a.e.atMs === b.e.atMs && a.e.kind === b.e.kind && a.e.actor === b.e.actor
      && a.e.command === b.e.command && a.e.reply === b.e.reply && a.e.narration === b.e.narration && a.e.fact === b.e.fact));
}

/** Room a reply's meaning needs below its row, px (a few lines of the tooltip). */
const TIP_ROOM_PX = 120;

/**
 * Before a reply's meaning shows (hover, or keyboard focus of its row): above the reply when there
 * is no room for it below in the window (`data-tip="above"`), so it never opens off-screen. Reads
 * one rectangle, on the user's own hover or focus.
 */
function placeTip(e: { target: EventTarget }): void {
  const el = e.target as Element;
  const term = el.closest?.('.term') ?? el.closest?.('.log-row')?.querySelector('.term');
  if (!term) return;
  const below = window.innerHeight - term.getBoundingClientRect().bottom;
  if (below < TIP_ROOM_PX) term.setAttribute('data-tip', 'above');
  else term.removeAttribute('data-tip');
}

/** A reply with its meaning: shown on hover of the reply and while its row has keyboard focus; the row's description for screen readers. */
function Reply({ reply, tipId, factsOnly }: { reply: string; tipId: string; /** The meaning without its mechanism hint (`explainReply`'s `hints`). */ factsOnly: boolean }) {
  const meaning = explainReply(reply, !factsOnly);
  // An error reply (ERROR 40001, 409 …) reads as one, in its own colour — never the violation's red.
  const tone = replyTone(reply);
  return (
    <span className={`log-reply${tone === 'ok' ? '' : ` ${tone}-reply`}${meaning ? ' term' : ''}`}>
      {reply}
      {meaning && <span className="term-tip" role="tooltip" id={tipId}>{meaning}</span>}
    </span>
  );
}

const Row = memo(function Row({ e, index, current, cited, onSelect, nested, factsOnly, unit }: RowProps) {
  const tipId = useId();
  const hasTip = e.reply !== undefined && explainReply(e.reply) !== null;
  return (
    <button
      type="button"
      className={nested ? 'nested' : undefined}
      tabIndex={current ? 0 : -1}
      aria-current={current ? 'step' : undefined}
      aria-describedby={hasTip ? tipId : undefined}
      onClick={() => onSelect(index)}
      data-event-id={e.id}
    >
      <span className="log-time">{timeInUnit(e.atMs, unit)}</span>
      <span className="log-id">{e.id}</span>
      <span className="log-actor">{e.actor}</span>
      <span className="log-body">
        {e.command !== undefined && (
          <code className="log-cmd">{e.command}{e.reply !== undefined ? <> <span aria-hidden="true">→</span><span className="sr-only">replies</span> <Reply reply={e.reply} tipId={tipId} factsOnly={factsOnly} /></> : null}</code>
        )}
        {e.command === undefined && e.reply !== undefined && <code className="log-cmd"><Reply reply={e.reply} tipId={tipId} factsOnly={factsOnly} /></code>}
        <span className="log-narration">{cited === 'violation' ? <strong className="cited-mark" aria-label="cited by a violation">⚠ </strong> : cited === 'note' ? <strong className="note-mark" aria-label="named in a note of the verdict, not a violation">ℹ </strong> : null}{narrationShown(e, factsOnly)}</span>
      </span>
    </button>
  );
}, sameRow);

/** The row of a fold: the first retry with "× N, 1 s apart" and a toggle that lists them all. */
function FoldRow({ events, indices, index, open, onToggle, onSelect, factsOnly, unit }: { events: readonly TraceEvent[]; indices: readonly number[]; index: number; open: boolean; onToggle: () => void; onSelect: (i: number) => void; factsOnly: boolean; unit: AxisUnit }) {
  const first = events[indices[0]!]!;
  const last = events[indices.at(-1)!]!;
  const at = indices.indexOf(index);
  const current = at >= 0 && !open;
  const tipId = useId();
  const hasTip = first.reply !== undefined && explainReply(first.reply) !== null;
  return (
    <>
      <button
        type="button"
        className="fold"
        tabIndex={current ? 0 : -1}
        aria-current={current ? 'step' : undefined}
        aria-describedby={hasTip ? tipId : undefined}
        onClick={() => onSelect(indices[at >= 0 ? at : 0]!)}
        data-event-id={first.id}
      >
        <span className="log-time">{timeInUnit(first.atMs, unit)}–{timeInUnit(last.atMs, unit)}</span>
        <span className="log-id">{first.id}…</span>
        <span className="log-actor">{first.actor}</span>
        <span className="log-body">
          <code className="log-cmd">{first.command} <span aria-hidden="true">→</span><span className="sr-only">replies</span> {first.reply !== undefined && <Reply reply={first.reply} tipId={tipId} factsOnly={factsOnly} />} <strong className="fold-count">× {indices.length}, {spacingText(events, indices)}</strong></code>
          <span className="log-narration">{narrationShown(first, factsOnly)}{current ? <strong> (retry {at + 1} of {indices.length})</strong> : null}</span>
        </span>
      </button>
      <button type="button" className="link fold-toggle" aria-expanded={open} onClick={onToggle}>
        {open ? 'Fold the retries' : `Show all ${indices.length}`}
      </button>
    </>
  );
}

/** A drawn row: an event (maybe one of an unfolded fold) or a fold. */
type Item = { readonly kind: 'event'; readonly index: number; readonly nested: boolean } | { readonly kind: 'fold'; readonly indices: readonly number[]; readonly open: boolean };

function itemsOf(entries: readonly LogEntry[], open: ReadonlySet<number>): Item[] {
  const out: Item[] = [];
  for (const en of entries) {
    if (en.kind === 'event') out.push({ kind: 'event', index: en.index, nested: false });
    else {
      const isOpen = open.has(en.indices[0]!);
      out.push({ kind: 'fold', indices: en.indices, open: isOpen });
      if (isOpen) for (const i of en.indices) out.push({ kind: 'event', index: i, nested: true });
    }
  }
  return out;
}

/** Position of the row that shows event `index` (its fold's row while folded). */
function rowOf(items: readonly Item[], index: number): number {
  return items.findIndex((it) => (it.kind === 'event' ? it.index === index : !it.open && it.indices.includes(index)));
}

/** The event log panel. */
export function EventLog({ run, index, onSelect, cited = citationsOf(run) }: EventLogProps) {
  // While the view's mode hides the future (predict-then-reveal): only the events up to the cursor, none marked as cited.
  const { showFuture, showFindings, showHints } = useVisibility();
  const factsOnly = !showHints;
  const shown = useMemo(() => (showFuture ? run.events : run.events.slice(0, index + 1)), [showFuture, run.events, index]);
  const hidden = run.events.length - shown.length;
  const unit = useMemo(() => runTimeUnit(run), [run]);
  const entries = useMemo(() => foldRetries(shown), [shown]);
  const [open, setOpen] = useState<ReadonlySet<number>>(new Set());
  const items = useMemo(() => itemsOf(entries, open), [entries, open]);
  const listRef = useRef<HTMLDivElement>(null);
  const windowed = items.length > WINDOW_ABOVE;
  const virtual = useVirtualizer({
    count: windowed ? items.length : 0,
    getScrollElement: () => listRef.current,
    estimateSize: () => 58,
    overscan: 6,
  });
  const currentRow = rowOf(items, index);

  // Keep the current event in view (scrolls only the log, never the page).
  useEffect(() => {
    const list = listRef.current;
    if (!list || currentRow < 0) return;
    if (windowed) {
      virtual.scrollToIndex(currentRow, { align: 'auto' });
      return;
    }
    // Measured in the next frame, after every other effect has written to the DOM (no extra forced layout).
    const raf = requestAnimationFrame(() => {
      const row = list.querySelector<HTMLElement>(`li[data-row="${currentRow}"]`);
      if (!row) return;
      const top = row.offsetTop;
      if (top < list.scrollTop || top + row.offsetHeight > list.scrollTop + list.clientHeight) {
        list.scrollTop = Math.max(0, top - list.clientHeight / 3);
      }
    });
    return () => cancelAnimationFrame(raf);
  }, [currentRow, run, windowed, virtual]);

  const onKeyDown = (ev: React.KeyboardEvent) => {
    if (ev.key !== 'ArrowDown' && ev.key !== 'ArrowUp') return;
    ev.preventDefault();
    ev.stopPropagation();
    const next = Math.max(0, Math.min(shown.length - 1, index + (ev.key === 'ArrowDown' ? 1 : -1)));
    onSelect(next);
    // Focus the row that shows the next event once it is drawn as current (the log renders at low
    // priority; windowed, after the scroll).
    const it = items[rowOf(items, next)];
    const id = it === undefined ? shown[next]?.id : it.kind === 'fold' ? shown[it.indices[0]!]!.id : shown[it.index]!.id;
    const focus = (tries: number) => requestAnimationFrame(() => {
      const el = listRef.current?.querySelector<HTMLElement>(`button[data-event-id="${id}"][aria-current="step"]`);
      if (el) el.focus();
      else if (tries > 0) focus(tries - 1);
    });
    focus(10);
  };

  // What a row is cited as (nothing while the view hides the findings).
  const citedAs = (id: string): RowProps['cited'] => (!showFindings ? null : cited.violation.has(id) ? 'violation' : cited.note.has(id) ? 'note' : null);
  const render = (it: Item, row: number) => {
    const cls = it.kind === 'fold'
      ? `log-row fold-row${it.indices.includes(index) && !it.open ? ' current' : ''}`
      : `log-row kind-${shown[it.index]!.kind}${it.index === index ? ' current' : ''}${citedAs(shown[it.index]!.id) === 'violation' ? ' cited' : citedAs(shown[it.index]!.id) === 'note' ? ' noted' : ''}${it.nested ? ' nested' : ''}`;
    return {
      cls,
      body: it.kind === 'fold'
        ? <FoldRow events={shown} indices={it.indices} index={index} open={it.open} onSelect={onSelect} factsOnly={factsOnly} unit={unit} onToggle={() => setOpen((o) => {
            const n = new Set(o);
            if (n.has(it.indices[0]!)) n.delete(it.indices[0]!);
            else n.add(it.indices[0]!);
            return n;
          })} />
        : <Row e={shown[it.index]!} index={it.index} current={it.index === index} cited={citedAs(shown[it.index]!.id)} onSelect={onSelect} nested={it.nested} factsOnly={factsOnly} unit={unit} />,
      key: it.kind === 'fold' ? `fold-${shown[it.indices[0]!]!.id}` : `${shown[it.index]!.id}${it.nested ? '-n' : ''}`,
      row,
    };
  };

  const folded = entries.filter((e) => e.kind === 'fold').length;
  return (
    <section className="panel log" aria-label="Event log">
      <h2>Event log <span className="muted">{run.events.length} events{folded ? ` · repeated retries folded` : ''} · ↑/↓ inside the log, click to jump</span></h2>
      <div className="log-list" ref={listRef} onKeyDown={onKeyDown} onMouseOver={placeTip} onFocus={placeTip} tabIndex={index < 0 ? 0 : -1} role="group" aria-label="Events in order">
        {windowed ? (
          <ol className="log-rows" style={{ height: virtual.getTotalSize() }}>
            {virtual.getVirtualItems().map((v) => {
              const r = render(items[v.index]!, v.index);
              return <li key={r.key} className={r.cls} data-row={v.index} data-index={v.index} ref={virtual.measureElement} style={{ position: 'absolute', top: 0, left: 0, right: 0, transform: `translateY(${v.start}px)` }}>{r.body}</li>;
            })}
          </ol>
        ) : (
          <ol className="log-rows">
            {items.map((it, i) => {
              const r = render(it, i);
              return <li key={r.key} className={r.cls} data-row={i}>{r.body}</li>;
            })}
          </ol>
        )}
        {hidden > 0 && <p className="log-hidden muted small">{hidden} more event{hidden === 1 ? '' : 's'} hidden until you step there (predict first).</p>}
      </div>
    </section>
  );
}
