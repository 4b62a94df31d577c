import { PRESETS } from '../../sim';
import { createLockscopeStore } from '../store';
import { deriveRun, runEndMs } from '../store/derive';
import { hashOf, readHash } from './urlState';

const variants = PRESETS.flatMap((p) => [[p.id, 'without' as const], [p.id, 'with' as const]] as const);

/** Copies the store's link and opens it in a second store, as a reader of the link would. */
function reopen(from: ReturnType<typeof createLockscopeStore>) {
  const s = from.getState();
  const intent = readHash(hashOf({ ...s, view: 'simulate' }));
  expect(intent.kind).toBe('shared');
  const to = createLockscopeStore();
  if (intent.kind === 'shared') to.getState().loadShared(intent.scenario, intent.opts);
  return to.getState();
}

describe('End and the shared cursor', () => {
  it.each(variants)('%s %s: End goes to the last event, and the link reopens there', (id, v) => {
    const store = createLockscopeStore();
    store.getState().loadPreset(id, v);
    store.getState().end();
    const events = deriveRun(store.getState().composed).events;
    expect(store.getState().cursorMs).toBe(events.at(-1)!.atMs);
    expect(store.getState().cursorIndex).toBe(events.length - 1);
    const back = reopen(store);
    expect([back.cursorMs, back.cursorIndex]).toEqual([store.getState().cursorMs, store.getState().cursorIndex]);
  });

  it.each(variants)('%s %s: a cursor scrubbed between events, or past the last one, round-trips exactly', (id, v) => {
    const store = createLockscopeStore();
    store.getState().loadPreset(id, v);
    const run = deriveRun(store.getState().composed);
    const ends = runEndMs(run);
    const probes = [0, 1, Math.round(ends / 3), Math.round(ends / 2) + 7, ends - 1, ends];
    for (const ms of probes) {
      store.getState().setCursorMs(ms);
      const back = reopen(store);
      expect([back.cursorMs, back.cursorIndex], `cursor at ${ms} ms`).toEqual([store.getState().cursorMs, store.getState().cursorIndex]);
    }
  });

  it('a cursor on an event keeps the link as short as before (no time field)', () => {
    const store = createLockscopeStore();
    store.getState().loadPreset('export-lease-expiry', 'without');
    store.getState().setCursorIndex(5);
    const intent = readHash(hashOf({ ...store.getState(), view: 'simulate' }));
    expect(intent.kind === 'shared' && intent.state.a).toBeUndefined();
  });
});

describe('the cursor time in a link is checked like every other field', () => {
  it('a time past the longest run, or not a whole number, is refused with its field named', async () => {
    const { encodeShare, decodeShare } = await import('../../share/link');
    for (const a of [3_600_001, -1, 1.5]) {
      const r = decodeShare(encodeShare({ p: 'invoice-race', a } as never));
      expect(r.ok).toBe(false);
      if (!r.ok) expect(r.errors.map((e) => e.path).join(' ')).toMatch(/\ba\b/);
    }
    expect(decodeShare(encodeShare({ p: 'invoice-race', a: 60 })).ok).toBe(true);
  });

  it('a time past this run\'s end opens at the run\'s end', () => {
    const store = createLockscopeStore();
    const s = PRESETS.find((p) => p.id === 'invoice-race')!.withoutFix;
    store.getState().loadShared(s, { cursorMs: 999_999 });
    const run = deriveRun(store.getState().composed);
    expect(store.getState().cursorMs).toBe(runEndMs(run));
    expect(store.getState().cursorIndex).toBe(run.events.length - 1);
  });
});
