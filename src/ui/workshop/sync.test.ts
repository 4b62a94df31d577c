import { createLockscopeStore } from '../store';
import type { ChannelLike } from './channel';
import { installAudienceSync, installPresenterSync } from './sync';
import { workshopKey } from './WorkshopView';

/** Two ends of one in-memory broadcast channel (a message reaches every other end, asynchronously, as BroadcastChannel does). */
function bus() {
  const ends: { listeners: Set<(e: MessageEvent) => void> }[] = [];
  const make = (): ChannelLike => {
    const me = { listeners: new Set<(e: MessageEvent) => void>() };
    ends.push(me);
    return {
      postMessage: (data) => {
        const copy = structuredClone(data);
        for (const other of ends) if (other !== me) for (const l of other.listeners) queueMicrotask(() => l({ data: copy } as MessageEvent));
      },
      addEventListener: (_t, l) => void me.listeners.add(l),
      removeEventListener: (_t, l) => void me.listeners.delete(l),
      close: () => me.listeners.clear(),
    };
  };
  return make;
}
const settle = async () => { for (let i = 0; i < 6; i++) await Promise.resolve(); };

function pair() {
  const make = bus();
  const presenter = createLockscopeStore();
  presenter.getState().loadPreset('export-lease-expiry', 'without');
  presenter.getState().setWorkshop({ role: 'presenter', ch: 'testchannel1' });
  presenter.getState().setView('workshop');
  presenter.getState().addBookmark({ atMs: 3_000, note: 'A pauses' });
  const audience = createLockscopeStore();
  audience.getState().setWorkshop({ role: 'audience', ch: 'testchannel1' });
  const keys: string[] = [];
  const offP = installPresenterSync(presenter, make(), 'testchannel1', (k) => { keys.push(k); workshopKey(presenter, k); });
  const audienceChannel = make();
  const offA = installAudienceSync(audience, audienceChannel);
  return { presenter, audience, audienceChannel, keys, off: () => { offP(); offA(); } };
}

describe('workshop windows in step', () => {
  it('the audience follows the presenter through 20 steps: scenario, bookmarks, cursor; in predict mode and still a workshop audience', async () => {
    const { presenter, audience, off } = pair();
    await settle();
    expect(audience.getState().presetId).toBe('export-lease-expiry');
    expect(audience.getState().bookmarks).toEqual([{ atMs: 3_000, note: 'A pauses' }]);
    expect(audience.getState().mode).toBe('predict');
    expect(audience.getState().workshop).toEqual({ role: 'audience', ch: 'testchannel1' });
    const keys = ['ArrowRight', 'ArrowRight', ']', 'ArrowRight', 'ArrowLeft', ...Array<string>(15).fill('ArrowRight')];
    for (const k of keys) {
      workshopKey(presenter, k);
      await settle();
      expect(audience.getState().cursorIndex).toBe(presenter.getState().cursorIndex);
      expect(audience.getState().cursorMs).toBe(presenter.getState().cursorMs);
    }
    expect(presenter.getState().cursorIndex).toBeGreaterThan(10);
    off();
  });

  it('carries the vote, its tally and its reveal, the blank screen and the reveal; a changed scenario too', async () => {
    const { presenter, audience, off } = pair();
    await settle();
    workshopKey(presenter, 'v');
    await settle();
    const vote = audience.getState().vote!;
    expect(vote.revealed).toBe(false);
    expect(vote).toEqual(presenter.getState().vote);
    const at = presenter.getState().cursorIndex;
    workshopKey(presenter, 'ArrowRight'); // "next" reveals the vote first
    await settle();
    expect(audience.getState().vote?.revealed).toBe(true);
    expect(audience.getState().cursorIndex).toBe(at + 1);
    workshopKey(presenter, 'b');
    await settle();
    expect(audience.getState().blank).toBe(true);
    workshopKey(presenter, 'r');
    await settle();
    expect(audience.getState().revealed).toBe(true);
    presenter.getState().loadPreset('invoice-race', 'without');
    await settle();
    expect(audience.getState().presetId).toBe('invoice-race');
    off();
  });

  it('a key pressed in the audience window drives the presenter; garbage on the channel is ignored', async () => {
    const { presenter, audience, audienceChannel, keys, off } = pair();
    await settle();
    const before = presenter.getState().cursorIndex;
    audienceChannel.postMessage({ kind: 'key', key: 'ArrowRight' });
    audienceChannel.postMessage({ kind: 'state', key: 42 });
    audienceChannel.postMessage('hello');
    audienceChannel.postMessage({ kind: 'key', key: 'x'.repeat(100) });
    await settle();
    expect(keys).toEqual(['ArrowRight']);
    expect(presenter.getState().cursorIndex).toBe(before + 1);
    expect(audience.getState().cursorIndex).toBe(before + 1);
    off();
  });
});

describe('uninstalling the presenter side', () => {
  it('drops a send queued before the uninstall: nothing is posted on the closed channel (StrictMode closes it at once)', async () => {
    const store = createLockscopeStore();
    store.getState().loadPreset('export-lease-expiry', 'without');
    let closed = false;
    const postedAfterClose: unknown[] = [];
    const channel: ChannelLike = {
      postMessage: (m) => {
        // A real BroadcastChannel throws InvalidStateError here; recorded so the test names it.
        if (closed) postedAfterClose.push(m);
      },
      addEventListener: () => undefined,
      removeEventListener: () => undefined,
      close: () => { closed = true; },
    };
    const off = installPresenterSync(store, channel, 'ch', () => undefined);
    off();
    channel.close();
    await settle();
    expect(postedAfterClose).toEqual([]);
  });
});
