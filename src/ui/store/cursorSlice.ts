/** Cursor slice: the time the whole screen shows, playback and stepping. Never re-simulates: it reads the cached run. */
import { deriveRun, indexAtMs, runEndMs } from './derive';
import type { CursorSlice, Slice } from './types';

/** Creates the cursor slice. */
export const createCursorSlice: Slice<CursorSlice> = (set, get) => {
  const run = () => deriveRun(get().composed);
  return {
    cursorMs: 0,
    cursorIndex: -1,
    playing: false,
    speed: 5,
    setCursorIndex(index) {
      const events = run().events;
      const i = Math.max(-1, Math.min(events.length - 1, index));
      set({ cursorIndex: i, cursorMs: i < 0 ? 0 : events[i]!.atMs, ...(i >= 0 && i === events.length - 1 ? { revealed: true } : {}) });
    },
    setCursorMs(ms) {
      const r = run();
      const t = Math.max(0, Math.min(runEndMs(r), ms));
      const i = indexAtMs(r.events, t);
      set({ cursorMs: t, cursorIndex: i, ...(i >= 0 && i === r.events.length - 1 ? { revealed: true } : {}) });
    },
    stepEvent(delta) {
      get().setCursorIndex(get().cursorIndex + delta);
    },
    home() {
      set({ cursorIndex: -1, cursorMs: 0, playing: false });
    },
    /** The last event (End): a time after it (a TTL running out, the horizon) is reached by scrubbing, never by End. */
    end() {
      const events = run().events;
      set({ cursorIndex: events.length - 1, cursorMs: events.at(-1)?.atMs ?? 0, playing: false, revealed: true });
    },
    setPlaying(playing) {
      set({ playing });
    },
    togglePlay() {
      const s = get();
      if (!s.playing && s.cursorMs >= runEndMs(run())) s.home();
      set({ playing: !s.playing });
    },
    setSpeed(speed) {
      set({ speed });
    },
  };
};
