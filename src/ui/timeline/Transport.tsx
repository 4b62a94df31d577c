/**
 * Cursor controls: play/pause with speed, step to the previous/next event, start/end, and the
 * keyboard (space, ←/→, Home/End) for the whole screen. Playback advances virtual time with
 * requestAnimationFrame and reads the cached run only.
 */
import { useEffect, useLayoutEffect, useMemo, useRef, useState } from 'react';
import { deriveRun, narrationShown, useLockscope, useLockscopeStore, useRun, useVisibility, runEndMs } from '../store';
import { timeInUnit } from './axisScale';
import { runTimeUnit } from './lanes';

const SPEEDS = [1, 2, 5, 10, 30];

function isTyping(t: EventTarget | null): boolean {
  const el = t as HTMLElement | null;
  if (!el || !el.tagName) return false;
  if (el.tagName === 'INPUT') return !['checkbox', 'button', 'submit'].includes((el as HTMLInputElement).type);
  return el.tagName === 'SELECT' || el.tagName === 'TEXTAREA' || el.isContentEditable;
}

function isActivatable(t: EventTarget | null): boolean {
  const el = t as HTMLElement | null;
  if (!el || !el.tagName) return false;
  return el.tagName === 'BUTTON' || el.tagName === 'A' || el.tagName === 'INPUT' || el.tagName === 'SUMMARY' || ['button', 'menuitem', 'radio', 'checkbox'].includes(el.getAttribute('role') ?? '');
}

/**
 * Global cursor keys: space play/pause, ←/→ previous/next event, [/] previous/next bookmark,
 * Home/End. Ignored while typing in a field. Installed in a layout effect, in the commit that
 * draws the view: a passive effect runs after the first paint (70–120 ms later on a busy 2-core
 * machine), and a key pressed as soon as the verdict showed was lost.
 */
export function useCursorKeys(enabled: boolean): void {
  const store = useLockscopeStore();
  useLayoutEffect(() => {
    if (!enabled) return;
    const onKey = (e: KeyboardEvent) => {
      if (e.defaultPrevented || e.altKey || e.ctrlKey || e.metaKey || isTyping(e.target)) return;
      if (document.querySelector('.fault-menu')) return;
      const s = store.getState();
      switch (e.key) {
        case ' ':
          if (isActivatable(e.target)) return;
          e.preventDefault();
          s.togglePlay();
          break;
        case 'ArrowRight':
          e.preventDefault();
          s.setPlaying(false);
          s.stepEvent(1);
          break;
        case 'ArrowLeft':
          e.preventDefault();
          s.setPlaying(false);
          s.stepEvent(-1);
          break;
        case ']':
          e.preventDefault();
          s.stepBookmark(1);
          break;
        case '[':
          e.preventDefault();
          s.stepBookmark(-1);
          break;
        case 'Home':
          e.preventDefault();
          s.home();
          break;
        case 'End':
          e.preventDefault();
          s.end();
          break;
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [enabled, store]);
}

/** Advances the cursor while playing (virtual seconds per real second = speed). */
export function usePlayback(): void {
  const store = useLockscopeStore();
  const playing = useLockscope((s) => s.playing);
  useEffect(() => {
    if (!playing) return;
    let last = performance.now();
    let raf = 0;
    const tick = (now: number) => {
      const s = store.getState();
      const dt = now - last;
      last = now;
      const end = runEndMs(deriveRun(s.composed));
      const next = s.cursorMs + dt * s.speed;
      if (next >= end) {
        s.setCursorMs(end);
        s.setPlaying(false);
        return;
      }
      s.setCursorMs(next);
      raf = requestAnimationFrame(tick);
    };
    raf = requestAnimationFrame(tick);
    return () => cancelAnimationFrame(raf);
  }, [playing, store]);
}

/** The transport bar. */
export function Transport() {
  const run = useRun();
  const playing = useLockscope((s) => s.playing);
  const speed = useLockscope((s) => s.speed);
  const cursorMs = useLockscope((s) => s.cursorMs);
  const index = useLockscope((s) => s.cursorIndex);
  const s = useLockscopeStore().getState();
  const event = index >= 0 ? run.events[index] : undefined;
  const { showHints, showFuture } = useVisibility();
  const factsOnly = !showHints;
  const said = event ? narrationShown(event, factsOnly) : undefined;
  const unit = useMemo(() => runTimeUnit(run), [run]);
  // The readout keeps a fixed height (the timeline below does not jump as the cursor moves); a
  // sentence longer than it gets a visible "more" that opens the readout to its whole text.
  const readout = useRef<HTMLSpanElement>(null);
  const [overflows, setOverflows] = useState(false);
  const [expanded, setExpanded] = useState(false);
  useLayoutEffect(() => {
    const el = readout.current;
    if (el === null || expanded) return; // opened: its button stays until it is closed
    const measure = (): void => setOverflows(el.scrollHeight > el.clientHeight + 1);
    measure();
    window.addEventListener('resize', measure);
    return () => window.removeEventListener('resize', measure);
  }, [said, index, cursorMs, expanded]);
  return (
    <div className="transport" role="toolbar" aria-label="Cursor">
      <button type="button" onClick={() => s.home()} aria-label="Go to the start (Home)">|◀</button>
      <button type="button" onClick={() => s.stepEvent(-1)} aria-label="Prev: previous event (←)">◀ Prev</button>
      <button type="button" className="play" onClick={() => s.togglePlay()} aria-label={playing ? 'Pause (space)' : 'Play (space)'}>{playing ? '❚❚ Pause' : '▶ Play'}</button>
      <button type="button" onClick={() => s.stepEvent(1)} aria-label="Next: next event (→)">Next ▶</button>
      <button type="button" onClick={() => s.end()} aria-label="Go to the end (End)">▶|</button>
      <label className="speed">
        <span>Speed</span>
        <select value={speed} onChange={(e) => s.setSpeed(Number(e.target.value))} aria-label="Playback speed">
          {SPEEDS.map((v) => <option key={v} value={v}>{v}×</option>)}
        </select>
      </label>
      <span ref={readout} id="cursor-readout" className={`cursor-readout${expanded ? ' expanded' : overflows ? ' clipped' : ''}`} aria-live="off" data-testid="cursor-readout" title={said} tabIndex={0} role="group" aria-label="Cursor: time, event and narration">
        <strong>{timeInUnit(cursorMs, unit)}</strong> · event {index + 1}{showFuture ? `/${run.events.length}` : ''}
        {event ? <span className="narration"> — {said}</span> : <span className="narration"> — before the first event</span>}
      </span>
      {(overflows || expanded) && (
        <button type="button" className="readout-more" aria-expanded={expanded} aria-controls="cursor-readout" onClick={() => setExpanded((x) => !x)} data-testid="readout-more">
          {expanded ? 'less ▴' : 'more ▾'}
        </button>
      )}
    </div>
  );
}
