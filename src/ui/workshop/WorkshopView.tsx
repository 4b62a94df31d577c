/**
 * Workshop presenter mode (issue 12): two windows of one workshop, kept in step over a
 * BroadcastChannel (./sync.ts). The presenter's window has the notes (the bookmark at the cursor,
 * the situation and its fix), the next step, and the controls; the audience's window shows the
 * timeline large, the current sentence, the vote and nothing of the presenter's notes.
 *
 * The presenter's keys: → / PageDown next step (reveals an open vote first), ← / PageUp previous
 * event, ] / [ next / previous bookmark, Home / End first / last event, R reveal, B or . blank
 * screen, V ask "what happens next?", Esc close the vote.
 *
 * The audience's window is a display: no buttons, no scrubbing, no "Reveal now". Both windows are
 * in the presenter's browser (BroadcastChannel), so a key pressed in the audience's window is the
 * presenter's (a clicker sends its keys to the window in front, often the projector's): the
 * clicker's keys are forwarded to the presenter — next / previous event (→ ← PageDown PageUp),
 * next / previous bookmark (] [), reveal (R) and blank (B .) — and nothing else (`AUDIENCE_KEYS`):
 * not Home / End (End would jump to the end of the run), V (the vote needs the presenter's tally)
 * or Esc (which leaves full screen on a projector, and must not close the vote too).
 */
import { useCallback, useLayoutEffect, useMemo, useRef } from 'react';
import { findPreset, fmtList, type Scenario } from '../../sim';
import { indexOfEvent, useLockscope, useLockscopeStore, useRun, useVisibility } from '../store';
import { bookmarkAt } from '../store/bookmarks';
import type { LockscopeState } from '../store/types';
import { Timeline } from '../timeline/Timeline';
import { VerdictPanel } from '../verdict/VerdictPanel';
import { fmtSeconds } from '../faults/faultCatalog';
import { neutralTitle } from '../../share/candidatePrompt';
import { openChannel } from './channel';
import { audienceKey, installAudienceSync, installPresenterSync } from './sync';
import { isRightOption, makeVote, voteAlternatives, withCount, type VoteEvent } from './vote';
import { deriveRun } from '../store/derive';

type Store = { getState(): LockscopeState };

/** The keys the workshop acts on (the audience forwards these). */
export const WORKSHOP_KEYS: ReadonlySet<string> = new Set(['ArrowRight', 'ArrowLeft', 'PageDown', 'PageUp', ']', '[', 'r', 'R', 'b', 'B', '.', 'v', 'V', 'Escape', 'Home', 'End']);

/**
 * The keys the audience's window forwards to the presenter (a clicker's: next / previous event and
 * bookmark, reveal, blank); the presenter honours no other key from the channel.
 */
export const AUDIENCE_KEYS: ReadonlySet<string> = new Set(['ArrowRight', 'ArrowLeft', 'PageDown', 'PageUp', ']', '[', 'r', 'R', 'b', 'B', '.']);

const alternativesCache = new WeakMap<Scenario, readonly VoteEvent[]>();
/** `voteAlternatives` of the scenario on screen, computed once per scenario (a vote asked again at another event reuses them). */
function alternativesOf(scenario: Scenario): readonly VoteEvent[] {
  let alts = alternativesCache.get(scenario);
  if (!alts) alternativesCache.set(scenario, (alts = voteAlternatives(scenario)));
  return alts;
}

/** Shows the vote's answer: the cursor moves to the event it asked about. */
function revealVote(s: LockscopeState): void {
  if (!s.vote) return;
  s.setVote({ ...s.vote, revealed: true });
  s.setPlaying(false);
  s.setCursorIndex(s.vote.atIndex + 1);
}

/**
 * Acts on one workshop key for the presenter's store. Returns false when the key is not one.
 * "Next" is a step: with a vote open and not revealed, it reveals the vote; else the next event.
 */
export function workshopKey(store: Store, key: string): boolean {
  const s = store.getState();
  switch (key) {
    case 'ArrowRight':
    case 'PageDown':
      if (s.vote && !s.vote.revealed) revealVote(s);
      else {
        if (s.vote) s.setVote(null);
        s.setPlaying(false);
        s.stepEvent(1);
      }
      return true;
    case 'ArrowLeft':
    case 'PageUp':
      if (s.vote) s.setVote(null);
      s.setPlaying(false);
      s.stepEvent(-1);
      return true;
    case 'Home':
    case 'End':
      if (s.vote) s.setVote(null);
      if (key === 'Home') s.home();
      else s.end();
      return true;
    case ']':
      s.stepBookmark(1);
      return true;
    case '[':
      s.stepBookmark(-1);
      return true;
    case 'r':
    case 'R':
      if (s.vote && !s.vote.revealed) revealVote(s);
      else s.reveal();
      return true;
    case 'b':
    case 'B':
    case '.':
      s.setBlank(!s.blank);
      return true;
    case 'v':
    case 'V':
      s.setVote(makeVote(deriveRun(s.composed).events, s.cursorIndex, alternativesOf(s.composed)));
      return true;
    case 'Escape':
      if (!s.vote) return false;
      s.setVote(null);
      return true;
    default:
      return false;
  }
}

function isTyping(t: EventTarget | null): boolean {
  const el = t as HTMLElement | null;
  if (!el || !el.tagName) return false;
  if (el.tagName === 'INPUT') return !['checkbox', 'button', 'submit', 'radio'].includes((el as HTMLInputElement).type);
  return el.tagName === 'SELECT' || el.tagName === 'TEXTAREA' || el.isContentEditable;
}

/**
 * Listens for the `keys` on the window (not while typing in a field), from the commit that draws
 * the view (a layout effect: see useCursorKeys).
 */
function useWorkshopKeys(handle: (key: string) => void, keys: ReadonlySet<string>): void {
  useLayoutEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.defaultPrevented || e.altKey || e.ctrlKey || e.metaKey || isTyping(e.target) || !keys.has(e.key)) return;
      e.preventDefault();
      handle(e.key);
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [handle, keys]);
}

/** "A, B or C" for three options (the letters the vote shows). */
function letterList(n: number): string {
  const letters = Array.from({ length: n }, (_, i) => String.fromCharCode(65 + i));
  return fmtList(letters, 'or');
}

/** The vote: options, the tally (editable by the presenter), the answer once revealed. */
function VotePanel({ editable }: { editable: boolean }) {
  const store = useLockscopeStore();
  const vote = useLockscope((s) => s.vote);
  if (!vote) return null;
  const total = vote.tally.reduce((a, b) => a + b, 0);
  return (
    <section className="panel vote" aria-label="What happens next?" data-testid="vote">
      <h2>What happens next?</h2>
      <ol className="vote-options">
        {vote.options.map((o, i) => (
          <li key={i} className={vote.revealed && isRightOption(vote, i) ? 'vote-answer' : undefined} data-testid={`vote-option-${i}`}>
            <span className="vote-letter" aria-hidden="true">{String.fromCharCode(65 + i)}</span>
            <span className="vote-text">{o}</span>
            {editable ? (
              <label className="vote-count">
                <span className="sr-only">Hands for {String.fromCharCode(65 + i)}</span>
                <input type="number" min={0} max={9999} value={vote.tally[i] ?? 0} onChange={(e) => store.getState().setVote(withCount(store.getState().vote ?? vote, i, Number(e.target.value)))} data-testid={`tally-${i}`} />
              </label>
            ) : (
              total > 0 && <span className="vote-count">{vote.tally[i] ?? 0} {(vote.tally[i] ?? 0) === 1 ? 'hand' : 'hands'}</span>
            )}
            {vote.revealed && isRightOption(vote, i) && <strong className="vote-mark"> ← this happens</strong>}
          </li>
        ))}
      </ol>
      {!vote.revealed && <p className="small">{editable ? 'Count the hands, enter them, then reveal the vote’s answer (R or →): the cursor moves on to that one event, no further.' : `Vote: ${letterList(vote.options.length)}?`}</p>}
    </section>
  );
}

/** Both windows' sentence at the cursor (the audience's is announced). */
function CurrentSentence({ live }: { live: boolean }) {
  const run = useRun();
  const index = useLockscope((s) => s.cursorIndex);
  const e = index >= 0 ? run.events[index] : undefined;
  return (
    <p className="workshop-now" aria-live={live ? 'polite' : undefined} data-testid="workshop-now">
      {e ? <><span className="muted">{fmtSeconds(e.atMs)} · {e.actor} · </span>{e.narration}</> : <span className="muted">Before the first event.</span>}
    </p>
  );
}

/** The presenter's window. */
export function PresenterView() {
  const store = useLockscopeStore();
  const run = useRun();
  const workshop = useLockscope((s) => s.workshop)!;
  const cursorIndex = useLockscope((s) => s.cursorIndex);
  const cursorMs = useLockscope((s) => s.cursorMs);
  const bookmarks = useLockscope((s) => s.bookmarks);
  const blank = useLockscope((s) => s.blank);
  const vote = useLockscope((s) => s.vote);
  const presetId = useLockscope((s) => s.presetId);
  const scenario = useLockscope((s) => s.scenario);
  const { showVerdict } = useVisibility();
  const preset = presetId ? findPreset(presetId) : undefined;
  const handle = useCallback((key: string) => void workshopKey(store, key), [store]);
  useWorkshopKeys(handle, WORKSHOP_KEYS);
  // From the audience's window, the clicker's keys only.
  const fromAudience = useCallback((key: string) => void (AUDIENCE_KEYS.has(key) && workshopKey(store, key)), [store]);
  // In the commit that draws the view, as the keys: a step taken at once reaches the audience.
  useLayoutEffect(() => {
    const channel = openChannel(workshop.ch);
    if (!channel) return;
    const off = installPresenterSync(store as never, channel, workshop.ch, fromAudience);
    return () => { off(); channel.close(); };
  }, [store, workshop.ch, fromAudience]);
  const composed = useLockscope((s) => s.composed);
  // The audience's link follows the scenario and the bookmarks (the cursor travels over the channel).
  const audienceUrl = useMemo(() => `${window.location.origin}${window.location.pathname}#${audienceKey({ ...store.getState(), composed, bookmarks }, workshop.ch)}`, [store, workshop.ch, composed, bookmarks]);
  const note = bookmarkAt(bookmarks, cursorMs, 0);
  const nextBookmark = bookmarks.find((b) => b.atMs > cursorMs);
  const next = run.events[cursorIndex + 1];
  const gotoEvent = (id: string) => store.getState().setCursorIndex(indexOfEvent(run, id));
  const btn = (label: string, key: string, hint: string, testId?: string) => (
    <button type="button" onClick={() => handle(key)} aria-keyshortcuts={hint} data-testid={testId}>{label} <kbd aria-hidden="true">{hint}</kbd></button>
  );
  const exit = () => {
    const s = store.getState();
    s.setVote(null);
    s.setBlank(false);
    s.setWorkshop(null);
    s.setView('simulate');
  };
  return (
    <div className="workshop presenter">
      <main id="main" tabIndex={-1} className="presenter-main">
        <div className="presenter-head">
          <h1>Presenter · {scenario.title}</h1>
          <button type="button" className="button primary" data-testid="open-audience" onClick={() => window.open(audienceUrl, `lockscope-audience-${workshop.ch}`, 'popup,width=1280,height=800')}>Open the audience window</button>
          <button type="button" onClick={exit}>Leave presenter mode</button>
        </div>
        <p className="small">Audience window link (open it on the projector, in this browser): <input type="text" readOnly value={audienceUrl} aria-label="Audience window link" onFocus={(e) => e.currentTarget.select()} data-testid="audience-link" /></p>
        <div className="presenter-controls" role="toolbar" aria-label="Presenter controls">
          {btn('◀ Event', 'ArrowLeft', '←')}
          {btn(vote && !vote.revealed ? 'Reveal the vote ▶' : 'Next step ▶', 'ArrowRight', '→', 'next-step')}
          {btn('◀ Bookmark', '[', '[')}
          {btn('Bookmark ▶', ']', ']')}
          {btn('Reveal', 'r', 'R', 'reveal')}
          {btn(blank ? 'Unblank the screen' : 'Blank the screen', 'b', 'B', 'blank')}
          {btn('Ask: what happens next?', 'v', 'V', 'ask-vote')}
        </div>
        <p className="small" data-testid="presenter-position">Event {cursorIndex + 1} of {run.events.length} · {fmtSeconds(cursorMs)}{blank ? ' · the audience\'s screen is blank' : ''}</p>
        <CurrentSentence live={false} />
        <VotePanel editable />
        <Timeline run={run} label="Timeline" cursorMs={cursorMs} cursorIndex={cursorIndex} onCursorMs={(ms) => store.getState().setCursorMs(ms)} onEventId={gotoEvent} />
        <VerdictPanel run={run} onEventId={gotoEvent} />
      </main>
      <aside className="presenter-notes" aria-label="Presenter notes">
        <h2>Notes</h2>
        <p data-testid="presenter-note">{note ? <><strong>Bookmark {bookmarks.indexOf(note) + 1}:</strong> {note.note || '(no note)'}</> : <span className="muted">No bookmark at this moment.{nextBookmark ? ` Next at ${fmtSeconds(nextBookmark.atMs)}${nextBookmark.note ? `: ${nextBookmark.note}` : ''}.` : ''}</span>}</p>
        <h3>Next step</h3>
        <p data-testid="presenter-next">{vote && !vote.revealed ? 'Reveal the vote: the cursor moves to the event it asked about.' : next ? <>{fmtSeconds(next.atMs)} · {next.actor} · {next.narration}</> : 'The run has ended.'}</p>
        <h3>Situation</h3>
        <p className="small">{preset && scenario.description === preset.withoutFix.description ? preset.situation : scenario.description}</p>
        {preset && <p className="small"><strong>The fix:</strong> {preset.fix}.</p>}
        {!showVerdict && <p className="small muted">The audience's verdict stays hidden until the last event or Reveal.</p>}
        <h3>Keys</h3>
        <ul className="small keys">
          <li><kbd>→</kbd>/<kbd>←</kbd> next step / previous event</li>
          <li><kbd>]</kbd>/<kbd>[</kbd> next / previous bookmark</li>
          <li><kbd>R</kbd> reveal · <kbd>B</kbd> blank · <kbd>V</kbd> vote · <kbd>Esc</kbd> close the vote</li>
          <li><kbd>Home</kbd>/<kbd>End</kbd> first / last event</li>
        </ul>
        <p className="small muted" data-testid="audience-keys-note">In the audience's window (a clicker): <kbd>→</kbd> <kbd>←</kbd> <kbd>]</kbd> <kbd>[</kbd> <kbd>R</kbd> <kbd>B</kbd> work too; <kbd>V</kbd>, <kbd>Esc</kbd>, <kbd>Home</kbd> and <kbd>End</kbd> only here.</p>
      </aside>
    </div>
  );
}

/** The audience's window: the timeline large, the sentence at the cursor, the vote; blank when the presenter blanks it. */
export function AudienceView() {
  const store = useLockscopeStore();
  const run = useRun();
  const workshop = useLockscope((s) => s.workshop)!;
  const cursorMs = useLockscope((s) => s.cursorMs);
  const blank = useLockscope((s) => s.blank);
  const scenario = useLockscope((s) => s.scenario);
  const { showVerdict } = useVisibility();
  // Until the reveal the catalogue's title would tell the outcome ("… the lease expires under a
  // paused worker"): the audience reads a title made from the scenario's data alone.
  const title = showVerdict ? scenario.title : neutralTitle(scenario);
  // The channel is opened by the effect that closes it: under React's StrictMode (the dev server)
  // an effect is run, cleaned up and run again, and a channel made once in render and closed by
  // the first cleanup stayed closed (the audience window was blank: "Channel is closed").
  // A ref, not state: a key pressed in the first frame is forwarded (state set by the effect
  // reached the key handler a render later).
  const channel = useRef<ReturnType<typeof openChannel>>(null);
  useLayoutEffect(() => {
    const ch = openChannel(workshop.ch);
    if (!ch) return;
    const off = installAudienceSync(store as never, ch);
    channel.current = ch;
    return () => { off(); ch.close(); channel.current = null; };
  }, [store, workshop.ch]);
  const forward = useCallback((key: string) => channel.current?.postMessage({ kind: 'key', key }), []);
  useWorkshopKeys(forward, AUDIENCE_KEYS);
  const cursorIndex = useLockscope((s) => s.cursorIndex);
  const noop = useCallback(() => undefined, []);
  return (
    <div className="workshop audience" data-testid="audience">
      {blank && <div className="blank-screen" data-testid="blank-screen" role="status">Screen blanked by the presenter</div>}
      <main id="main" tabIndex={-1} className="audience-main" aria-hidden={blank || undefined}>
        <h1>{title}</h1>
        <CurrentSentence live />
        <Timeline run={run} label="Timeline" cursorMs={cursorMs} cursorIndex={cursorIndex} onCursorMs={noop} display />
        <VotePanel editable={false} />
        <VerdictPanel run={run} onEventId={noop} display />
        {typeof BroadcastChannel !== 'function' && <p className="error">This browser has no BroadcastChannel: the audience window cannot follow the presenter.</p>}
      </main>
    </div>
  );
}

/** The workshop window this store is (presenter or audience). */
export function WorkshopView() {
  const role = useLockscope((s) => s.workshop?.role ?? null);
  if (role === 'presenter') return <PresenterView />;
  if (role === 'audience') return <AudienceView />;
  return null;
}
