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
      set({ cursorIndex: i, cursorMs: i < 0 ? 0 : events[i]!.atMs });
    },
    setCursorMs(ms) {
      const r = run();
      const t = Math.max(0, Math.min(runEndMs(r), ms));
      set({ cursorMs: t, cursorIndex: indexAtMs(r.events, t) });
    },
    stepEvent(delta) {
      get().setCursorIndex(get().cursorIndex + delta);
    },
    home() {
      set({ cursorIndex: -1, cursorMs: 0, playing: false });
    },
    end() {
      const r = run();
      set({ cursorIndex: r.events.length - 1, cursorMs: runEndMs(r), playing: false });
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
