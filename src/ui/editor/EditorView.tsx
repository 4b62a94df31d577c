/**
 * The scenario editor: the form and the raw JSON view edit one draft and stay in sync. A valid
 * draft replaces the running scenario at once (one history entry per control, see url/urlSync);
 * an invalid one shows its errors with field paths and the last valid scenario keeps running.
 * JSON typing is parsed after a pause (debounced); text that is not JSON never replaces anything.
 */
import { ExploreAction } from '../explore/ExploreAction';
import { useCallback, useDeferredValue, useEffect, useRef, useState } from 'react';
import { parseScenario, type Scenario, type ValidationError } from '../../sim';
import { useLockscope, useLockscopeStore, useRun, indexOfEvent } from '../store';
import { VerdictPanel } from '../verdict/VerdictPanel';
import { SharePanel } from '../share/SharePanel';
import { ScenarioForm } from './ScenarioForm';
import { JsonView } from './JsonView';
import { parsePath, setIn } from './paths';

/** How long the JSON view waits after the last keystroke before parsing. */
export const JSON_DEBOUNCE_MS = 400;
/** Longest JSON text parsed (a scenario at every limit is far smaller). */
export const MAX_JSON_CHARS = 1_000_000;

const toText = (v: unknown) => JSON.stringify(v, null, 2);

interface Draft {
  /** The running scenario this draft started from (a change from elsewhere resets the draft). */
  readonly base: Scenario;
  readonly value: unknown;
  readonly text: string;
  readonly errors: readonly ValidationError[];
  readonly jsonError: string | null;
}

/** The unfinished draft survives switching views (same running scenario). */
let kept: Draft | null = null;

/** Forgets the draft kept in memory, as a reload does (what local storage keeps stays). For tests. */
export function forgetOpenDraft(): void {
  kept = null;
}

function fresh(base: Scenario): Draft {
  return { base, value: base, text: toText(base), errors: [], jsonError: null };
}

/** Local storage key of a draft with problems: `{ base, text }`, the running scenario it started from and what was typed. */
const UNSAVED_KEY = 'lockscope:editor-unsaved:v1';

/**
 * Keeps a draft with problems in local storage, so that a reload does not lose what was typed (the
 * link holds only the last valid scenario); a draft without problems is the running scenario, so
 * nothing is kept. Storage failures are ignored.
 */
function keepUnsaved(d: Draft): void {
  try {
    if (d.errors.length > 0 || d.jsonError !== null) {
      if (d.text.length <= MAX_JSON_CHARS) localStorage.setItem(UNSAVED_KEY, JSON.stringify({ base: toText(d.base), text: d.text }));
      return;
    }
    // Opening another scenario's editor leaves it for its own; its own, fixed or reverted, forgets it.
    const raw = localStorage.getItem(UNSAVED_KEY);
    if (raw !== null && (JSON.parse(raw) as { base?: unknown }).base === toText(d.base)) forgetUnsaved();
  } catch {
    /* private mode, quota, no storage, a hand-edited entry: the draft lives until the reload */
  }
}

/** Forgets the kept draft with problems (it became valid and runs). */
function forgetUnsaved(): void {
  try {
    localStorage.removeItem(UNSAVED_KEY);
  } catch {
    /* no storage */
  }
}

/** The draft with problems kept for the running scenario `base`, re-validated; null when none was kept for it. */
function unsavedFor(base: Scenario): Draft | null {
  try {
    const raw = localStorage.getItem(UNSAVED_KEY);
    if (raw === null || raw.length > 2 * MAX_JSON_CHARS + 1_000) return null;
    const o = JSON.parse(raw) as { base?: unknown; text?: unknown };
    if (o.base !== toText(base) || typeof o.text !== 'string') return null;
    let value: unknown;
    try {
      value = JSON.parse(o.text);
    } catch (e) {
      return { base, value: base, text: o.text, errors: [], jsonError: String((e as Error).message).slice(0, 300) };
    }
    const r = parseScenario(value);
    return r.ok ? null : { base, value, text: o.text, errors: r.errors, jsonError: null };
  } catch {
    return null;
  }
}

/** The draft state and its two editors' entry points (exported for the component tests). */
export function useScenarioDraft() {
  const store = useLockscopeStore();
  const composed = useLockscope((s) => s.composed);
  const [draft, setDraft] = useState<Draft>(() => (kept && kept.base === composed ? kept : unsavedFor(composed) ?? fresh(composed)));
  const timer = useRef<ReturnType<typeof setTimeout> | null>(null);
  const pendingText = useRef<string | null>(null);

  // The running scenario changed elsewhere (fault on the timeline, back/forward, import): start over from it.
  useEffect(() => {
    setDraft((d) => (d.base === composed ? d : fresh(composed)));
  }, [composed]);
  useEffect(() => {
    kept = draft;
    keepUnsaved(draft);
  }, [draft]);

  /** Validates a value; commits it when valid. */
  const apply = useCallback((value: unknown, key: string, text: string) => {
    const r = parseScenario(value);
    if (!r.ok) {
      setDraft((d) => ({ ...d, value, text, errors: r.errors, jsonError: null }));
      return;
    }
    forgetUnsaved();
    const s = store.getState();
    s.replaceScenario(r.scenario, `Edited ${key}`, `editor:${key}`);
    const after = store.getState();
    setDraft({ base: after.composed, value, text, errors: after.error ? [{ path: '(root)', message: after.error }] : [], jsonError: null });
  }, [store]);

  const current = useRef(draft);
  current.current = draft;
  const edit = useCallback((path: string, v: unknown) => {
    const value = setIn(current.current.value, parsePath(path), v);
    current.current = { ...current.current, value };
    apply(value, path, toText(value));
  }, [apply]);

  const parseText = useCallback((text: string) => {
    pendingText.current = null;
    if (text.length > MAX_JSON_CHARS) {
      setDraft((d) => ({ ...d, text, jsonError: `the text is ${text.length} characters long, over the limit of ${MAX_JSON_CHARS}` }));
      return;
    }
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (e) {
      setDraft((d) => ({ ...d, text, jsonError: String((e as Error).message).slice(0, 300) }));
      return;
    }
    apply(value, 'JSON', text);
  }, [apply]);

  const editText = useCallback((text: string) => {
    setDraft((d) => ({ ...d, text }));
    pendingText.current = text;
    if (timer.current !== null) clearTimeout(timer.current);
    timer.current = setTimeout(() => {
      timer.current = null;
      parseText(text);
    }, JSON_DEBOUNCE_MS);
  }, [parseText]);

  // Leaving the editor with typing pending: parse it now rather than drop it.
  useEffect(() => () => {
    if (timer.current !== null) {
      clearTimeout(timer.current);
      timer.current = null;
      if (pendingText.current !== null) parseText(pendingText.current);
    }
  }, [parseText]);

  const revert = useCallback(() => setDraft(fresh(store.getState().composed)), [store]);
  const replace = useCallback((value: unknown, key: string) => {
    current.current = { ...current.current, value };
    apply(value, key, toText(value));
  }, [apply]);
  return { draft, edit, replace, editText, revert };
}

/** The editor screen. */
export function EditorView() {
  const store = useLockscopeStore();
  const run = useRun();
  const { draft, edit, replace, editText, revert } = useScenarioDraft();
  const problems = draft.errors.length + (draft.jsonError ? 1 : 0);
  const ctx = { draft: draft.value, errors: draft.errors, edit, replace };
  const full = useDeferredValue(true, false);
  return (
    <main className="editor" id="main" tabIndex={-1}>
      <div className="editor-bar">
        <h1>Edit the scenario</h1>
        <p className={`editor-status ${problems ? 'bad' : 'ok'}`} role="status" data-testid="editor-status">
          {problems
            ? `⚠ ${problems} problem${problems === 1 ? '' : 's'} — the last valid scenario keeps running.`
            : '✓ Valid — this is the running scenario.'}
        </p>
        {problems > 0 && <button type="button" onClick={revert}>Revert to the running scenario</button>}
      </div>
      <div className="editor-grid">
        <ScenarioForm ctx={ctx} />
        <div className="editor-side">
          <VerdictPanel run={run} onEventId={(id) => {
            const s = store.getState();
            s.setView('simulate');
            s.setCursorIndex(indexOfEvent(run, id));
          }} />
          <ExploreAction />
          <JsonView text={draft.text} errors={draft.errors} jsonError={draft.jsonError} onText={editText} />
          {/* Below the first screen: rendered just after it, as the form's lower sections (ScenarioForm). */}
          {full && <SharePanel timeline={false} />}
        </div>
      </div>
    </main>
  );
}
