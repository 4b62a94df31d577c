/**
 * Keeps the address bar and the store in step.
 * - Store → URL (written after the frame that shows the edit, never inside it): meaningful edits (preset, variant, view, fault added/removed, a switch flipped,
 *   an editor field) `pushState`; repeated edits of one control within 1.5 s (typing, nudging a
 *   fault, dragging) and cursor moves `replaceState`, cursor moves throttled to one write per
 *   250 ms so playback never floods history.
 * - URL → store: the first load, `popstate` and `hashchange` (back/forward, an edited address).
 *   A link the app cannot open shows a notice naming what is wrong; the current scenario stays.
 * - Unsaved edits are copied to localStorage (./draft.ts); on load, a different saved draft is
 *   offered for restoring.
 */
import { encodeShare } from '../../share/link';
import type { LockscopeState } from '../store/types';
import { clearDraft, loadDraft, saveDraft } from './draft';
import { hashOf, isEdited, readHash, sameScenario, shareStateOf } from './urlState';

type Store = {
  getState(): LockscopeState;
  subscribe(listener: (s: LockscopeState, prev: LockscopeState) => void): () => void;
};

/** How long consecutive edits of one control share a history entry. */
export const COALESCE_MS = 1_500;
/** Cursor moves write the URL at most this often. */
export const CURSOR_WRITE_MS = 250;

/** Applies a hash to the store. Returns false when the hash is not ours. `initial`: the page's first address. */
function applyHash(store: Store, hash: string, initial: boolean): boolean {
  const s = store.getState();
  let intent: ReturnType<typeof readHash>;
  try {
    intent = readHash(hash);
  } catch (e) {
    intent = { kind: 'invalid', errors: [{ path: 'link', message: `could not be read (${String((e as Error)?.message ?? e).slice(0, 120)})` }] };
  }
  switch (intent.kind) {
    case 'ignore':
      return false;
    case 'catalogue':
      s.setView('catalogue');
      break;
    case 'lessons':
      s.setView('lessons');
      break;
    case 'preset':
      if (intent.presetId !== s.presetId || intent.variant !== s.variant || isEdited(shareStateOf({ ...s, view: 'simulate' }))) s.loadPreset(intent.presetId, intent.variant);
      s.setView(intent.view);
      break;
    case 'shared':
      s.loadShared(intent.scenario, intent.opts);
      break;
    case 'invalid':
      s.showNotice(initial
        ? 'This link cannot be opened. Showing the default scenario instead; nothing else was changed.'
        : 'This link cannot be opened. The scenario on screen is the one you had before.', intent.errors);
      if (initial) s.setView('simulate');
      break;
  }
  return true;
}

/** Replaces the address with the store's canonical one (when it differs); returns that hash. */
function writeCanonical(store: Store, win: Window): string {
  const h = hashOf(store.getState());
  if (h !== win.location.hash) win.history.replaceState(null, '', h);
  return h;
}

const appliedBefore = new WeakSet<Store>();

/**
 * The first load's step of `installUrlSync`, run by start.tsx before the first render: the store
 * opens what the address says (and the address is made canonical), so that the first frame is
 * the link's view — not the store's first view, the catalogue with a simulation per preset, and
 * then the link's. The next `installUrlSync` of this store skips its own first-load step (a later
 * one, e.g. StrictMode's second mount, applies the address again as before).
 */
export function applyInitialUrl(store: Store, win: Window = window): void {
  if (applyHash(store, win.location.hash, true)) writeCanonical(store, win);
  appliedBefore.add(store);
}

/** Installs the sync; returns the uninstaller. */
export function installUrlSync(store: Store, win: Window = window): () => void {
  let applying = false;
  let lastHash = win.location.hash;
  let lastKey: string | null = null;
  let lastAt = 0;
  let cursorTimer: ReturnType<typeof setTimeout> | null = null;
  let draftTimer: ReturnType<typeof setTimeout> | null = null;

  /**
   * Writes one state to the address bar. `prev` is the state being left: a cursor move not yet
   * written belongs to that entry, so it is written there first.
   */
  const writeNow = (mode: 'push' | 'replace', state: LockscopeState, prev?: LockscopeState) => {
    if (cursorTimer !== null) {
      clearTimeout(cursorTimer);
      cursorTimer = null;
      if (mode === 'push' && prev) {
        const old = hashOf(prev);
        if (old !== win.location.hash) win.history.replaceState(null, '', old);
      }
    }
    const h = hashOf(state);
    if (h === win.location.hash) return;
    lastHash = h;
    if (mode === 'push' && win.location.hash !== '') win.history.pushState(null, '', h);
    else win.history.replaceState(null, '', h);
  };

  // Edits are written after the frame that shows them: compressing the link and pushState cost
  // milliseconds (pushState alone ~4 ms in Chromium) that must not delay the verdict's repaint.
  // Each edit keeps its own entry (and its push/replace decision, taken when it happened).
  let pending: { mode: 'push' | 'replace'; state: LockscopeState; prev: LockscopeState }[] = [];
  let flushHandle: ReturnType<typeof setTimeout> | null = null;
  let flushFrame: number | null = null;
  const flush = () => {
    if (flushHandle !== null) clearTimeout(flushHandle);
    if (flushFrame !== null && typeof win.cancelAnimationFrame === 'function') win.cancelAnimationFrame(flushFrame);
    flushHandle = null;
    flushFrame = null;
    const list = pending;
    pending = [];
    for (const p of list) writeNow(p.mode, p.state, p.prev);
  };
  const scheduleFlush = () => {
    if (flushHandle !== null || flushFrame !== null) return;
    if (typeof win.requestAnimationFrame === 'function') {
      flushFrame = win.requestAnimationFrame(() => {
        flushFrame = null;
        flushHandle = setTimeout(flush, 0);
      });
    } else flushHandle = setTimeout(flush, 0);
  };
  const write = (mode: 'push' | 'replace', prev: LockscopeState) => {
    pending.push({ mode, state: store.getState(), prev });
    scheduleFlush();
  };

  /** Applies a hash to the store (not written back by the subscription below). Returns false when the hash is not ours. */
  const apply = (hash: string, initial: boolean): boolean => {
    applying = true;
    try {
      return applyHash(store, hash, initial);
    } finally {
      applying = false;
    }
  };

  const canonicalise = () => {
    lastHash = writeCanonical(store, win);
  };

  const onNavigate = () => {
    // The address the user navigated to wins over edits not yet written.
    pending = [];
    if (win.location.hash === lastHash) return;
    lastHash = win.location.hash;
    if (apply(win.location.hash, false)) canonicalise();
  };

  const saveDraftSoon = () => {
    if (draftTimer !== null) clearTimeout(draftTimer);
    draftTimer = setTimeout(() => {
      draftTimer = null;
      const s = store.getState();
      if (s.draftOffer) return; // keep the older draft until the user decides
      const state = shareStateOf({ ...s, view: s.view === 'catalogue' ? 'simulate' : s.view });
      if (isEdited(state) && state) saveDraft({ fragment: encodeShare(state), savedAt: Date.now(), title: s.composed.title });
    }, 400);
  };

  // First load (unless start.tsx applied the address before the first render: applyInitialUrl).
  if (appliedBefore.has(store)) appliedBefore.delete(store);
  else if (apply(win.location.hash, true)) canonicalise();
  // An embed is read-only: it offers no draft (and, below, saves none).
  if (!store.getState().embed) offerDraft(store);

  const unsubscribe = store.subscribe((s, prev) => {
    if (applying) return;
    const scenarioChanged = s.composed !== prev.composed;
    const structural = s.view !== prev.view || s.presetId !== prev.presetId || s.variant !== prev.variant
      || s.compareTarget !== prev.compareTarget || s.faults.length !== prev.faults.length || s.mode !== prev.mode
      || s.bookmarks.length !== prev.bookmarks.length || s.lesson !== prev.lesson || s.workshop !== prev.workshop;
    if (scenarioChanged && !s.embed) saveDraftSoon();
    if (structural || scenarioChanged) {
      const key = s.lastEdit?.key ?? null;
      const now = Date.now();
      const coalesce = !structural && key !== null && key === lastKey && now - lastAt < COALESCE_MS;
      lastKey = key;
      lastAt = now;
      // Inside a frame a pushState would add an entry to the history of the page around it: an embed only replaces.
      write(coalesce || s.embed ? 'replace' : 'push', prev);
    } else if ((s.largeType !== prev.largeType || s.bookmarks !== prev.bookmarks) && s.view !== 'catalogue' && s.view !== 'lessons') {
      // A display setting or a bookmark's note being typed: the link keeps it, without a history entry of its own.
      write('replace', prev);
    } else if ((s.cursorIndex !== prev.cursorIndex || s.cursorMs !== prev.cursorMs) && s.view !== 'catalogue' && s.view !== 'lessons' && cursorTimer === null) {
      cursorTimer = setTimeout(() => {
        cursorTimer = null;
        flush();
        writeNow('replace', store.getState());
      }, CURSOR_WRITE_MS);
    }
  });
  win.addEventListener('popstate', onNavigate);
  win.addEventListener('hashchange', onNavigate);
  return () => {
    unsubscribe();
    flush();
    win.removeEventListener('popstate', onNavigate);
    win.removeEventListener('hashchange', onNavigate);
    if (cursorTimer !== null) clearTimeout(cursorTimer);
    if (draftTimer !== null) clearTimeout(draftTimer);
  };
}

/** Offers the saved draft when it differs from what is open. */
function offerDraft(store: Store): void {
  const d = loadDraft();
  if (!d) return;
  const intent = readHash(`#${d.fragment}`);
  if (intent.kind !== 'shared') {
    clearDraft();
    return;
  }
  if (sameScenario(store.getState().composed, intent.scenario)) return;
  store.getState().setDraftOffer(d);
}

/** Restores the offered draft (a meaningful edit: one history entry). */
export function restoreDraft(store: Store): void {
  const d = store.getState().draftOffer;
  if (!d) return;
  const intent = readHash(`#${d.fragment}`);
  store.getState().setDraftOffer(null);
  if (intent.kind !== 'shared') return;
  // The URL sync sees a new scenario and pushes one history entry.
  store.getState().loadShared(intent.scenario, { ...intent.opts, view: intent.opts.view ?? 'simulate' });
}

/** Forgets the offered draft. */
export function discardDraft(store: Store): void {
  clearDraft();
  store.getState().setDraftOffer(null);
}
