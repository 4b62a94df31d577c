/**
 * Keeps a workshop's audience window in step with the presenter's (./channel.ts carries the
 * messages). The presenter sends its state after every change that shows (scenario, bookmarks,
 * cursor, reveal, blank, vote), at most once per microtask; the audience applies it: a new
 * scenario through `loadShared` (the run is cached by content, so a cursor step never
 * re-simulates), then the cursor and the step. The audience says hello when it opens, and forwards
 * the workshop keys pressed in its window to the presenter.
 */
import { encodeShare } from '../../share/link';
import type { LockscopeState, Workshop } from '../store/types';
import { readHash, shareStateOf } from '../url/urlState';
import { onMessage, type ChannelLike, type WorkshopMessage } from './channel';

type Store = {
  getState(): LockscopeState;
  setState(partial: Partial<LockscopeState>): void;
  subscribe(listener: (s: LockscopeState, prev: LockscopeState) => void): () => void;
};

/** The audience's link fragment for a state (no cursor: that travels on its own). */
export function audienceKey(s: LockscopeState, ch: string): string {
  const audience: Workshop = { role: 'audience', ch };
  const st = shareStateOf({ ...s, view: 'workshop', workshop: audience, cursorIndex: -1, cursorMs: undefined, mode: 'predict', largeType: true, interview: null, lesson: null });
  return st === null ? '' : encodeShare(st);
}

const SHOWN: readonly (keyof LockscopeState)[] = ['composed', 'bookmarks', 'cursorIndex', 'cursorMs', 'revealed', 'blank', 'vote'];

/** The presenter's side: sends its state on every change that shows, and on each hello. `onKey` hears the audience's forwarded keys. */
export function installPresenterSync(store: Store, channel: ChannelLike, ch: string, onKey: (key: string) => void): () => void {
  let seq = 0;
  let queued = false;
  // A send queued before the uninstall (StrictMode's effect cleanup closes the channel at once) is dropped.
  let stopped = false;
  const send = () => {
    queued = false;
    if (stopped) return;
    const s = store.getState();
    const message: WorkshopMessage = { kind: 'state', key: audienceKey(s, ch), cursorIndex: s.cursorIndex, cursorMs: Math.max(0, s.cursorMs), revealed: s.revealed, blank: s.blank, vote: s.vote === null ? null : { ...s.vote, options: [...s.vote.options], tally: [...s.vote.tally], answers: [...s.vote.answers] }, seq: ++seq };
    channel.postMessage(message);
  };
  const soon = () => {
    if (queued) return;
    queued = true;
    queueMicrotask(send);
  };
  const unsubscribe = store.subscribe((s, prev) => {
    if (SHOWN.some((k) => s[k] !== prev[k])) soon();
  });
  const unlisten = onMessage(channel, (m) => {
    if (m.kind === 'hello') soon();
    else if (m.kind === 'key') onKey(m.key);
  });
  soon();
  return () => {
    stopped = true;
    unsubscribe();
    unlisten();
  };
}

/** The audience's side: applies the presenter's state; says hello. Returns the uninstaller. */
export function installAudienceSync(store: Store, channel: ChannelLike): () => void {
  let lastKey: string | null = null;
  let lastSeq = -1;
  const unlisten = onMessage(channel, (m) => {
    if (m.kind !== 'state' || m.seq <= lastSeq && m.seq !== 1) return;
    lastSeq = m.seq;
    if (m.key !== lastKey) {
      const intent = readHash(`#${m.key}`);
      if (intent.kind !== 'shared') return;
      lastKey = m.key;
      store.getState().loadShared(intent.scenario, { ...intent.opts, view: 'workshop', mode: 'predict' });
    }
    store.setState({ cursorIndex: m.cursorIndex, cursorMs: m.cursorMs, revealed: m.revealed, blank: m.blank, vote: m.vote, playing: false });
  });
  channel.postMessage({ kind: 'hello' } satisfies WorkshopMessage);
  return unlisten;
}
