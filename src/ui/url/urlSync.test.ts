// @vitest-environment jsdom
import { applyInitialUrl, installUrlSync, CURSOR_WRITE_MS, COALESCE_MS } from './urlSync';
import { createLockscopeStore, type LockscopeStore } from '../store';
import { readHash } from './urlState';
import { flipSwitch } from '../mechanism/switches';

let store: LockscopeStore;
const st = () => store.getState();
/** Lets the address-bar writes happen (they follow the frame that shows an edit). */
const afterFrame = () => vi.advanceTimersByTime(40);

describe('URL sync', () => {
  let uninstall: () => void = () => {};
  beforeEach(() => {
    vi.useFakeTimers();
    localStorage.clear();
    store = createLockscopeStore();
    window.history.replaceState(null, '', '#/sim/export-lease-expiry');
    uninstall = installUrlSync(store);
  });
  afterEach(() => {
    uninstall();
    vi.useRealTimers();
  });

  it('rewrites an old route to the link form and opens it', () => {
    expect(st().view).toBe('simulate');
    expect(window.location.hash).toMatch(/^#v=1&s=/);
  });

  it('pushes meaningful edits, replaces cursor moves (throttled) and coalesces typing in one field', () => {
    const n0 = window.history.length;
    st().setScenario(flipSwitch(st().scenario, 'fencing'), 'fencing on', 'switch:fencing#x');
    // Not inside the edit's frame…
    expect(window.history.length).toBe(n0);
    afterFrame();
    // …but right after it.
    expect(window.history.length).toBe(n0 + 1);
    for (let i = 0; i < 20; i++) st().stepEvent(1);
    expect(window.history.length).toBe(n0 + 1);
    vi.advanceTimersByTime(CURSOR_WRITE_MS + 5);
    const r = readHash(window.location.hash);
    expect(r.kind === 'shared' && r.opts.cursorIndex).toBe(st().cursorIndex);
    expect(st().cursorIndex).toBeGreaterThan(15);
    // Typing a TTL: one entry for the burst.
    for (const ttl of [3000, 30000, 31000]) st().setScenario({ ...st().scenario, lease: { ...st().scenario.lease, ttlMs: ttl } }, 'ttl', 'lease-ttl');
    afterFrame();
    expect(window.history.length).toBe(n0 + 2);
    vi.advanceTimersByTime(COALESCE_MS + 10);
    st().setScenario({ ...st().scenario, lease: { ...st().scenario.lease, ttlMs: 32000 } }, 'ttl', 'lease-ttl');
    afterFrame();
    expect(window.history.length).toBe(n0 + 3);
    // Two meaningful edits in one frame still make two entries, in order.
    st().addFault({ kind: 'manualDelete', atMs: 10_000 });
    st().setView('compare');
    afterFrame();
    expect(window.history.length).toBe(n0 + 5);
    const last = readHash(window.location.hash);
    expect(last.kind === 'shared' && last.opts.view).toBe('compare');
  });

  it('popstate applies the address without writing history', () => {
    const first = window.location.hash;
    st().removeFault(0);
    afterFrame();
    expect(st().faults).toHaveLength(0);
    const n = window.history.length;
    window.history.replaceState(null, '', first);
    window.dispatchEvent(new PopStateEvent('popstate'));
    expect(st().faults).toHaveLength(1);
    expect(window.history.length).toBe(n);
  });

  it('a garbled address shows a notice and keeps the scenario', () => {
    const before = st().composed;
    window.history.replaceState(null, '', '#v=1&s=%%%');
    window.dispatchEvent(new PopStateEvent('popstate'));
    expect(st().notice?.errors[0]?.path).toBe('link.s');
    expect(st().composed).toBe(before);
  });

  it('keeps unsaved edits locally and offers them when another link opens', () => {
    st().removeFault(0);
    vi.advanceTimersByTime(500);
    expect(localStorage.getItem('lockscope:draft:v1')).toContain('fragment');
    uninstall();
    store = createLockscopeStore();
    window.history.replaceState(null, '', '#/sim/invoice-race');
    uninstall = installUrlSync(store);
    expect(st().presetId).toBe('invoice-race');
    expect(st().draftOffer?.title).toMatch(/Nightly export/);
  });
});

describe('the address before the first render (applyInitialUrl)', () => {
  beforeEach(() => localStorage.clear());

  it('opens the link in the store at once (no catalogue first), makes the address canonical, and the sync installed next does not open it again', () => {
    const s = createLockscopeStore();
    expect(s.getState().view).toBe('catalogue');
    window.history.replaceState(null, '', '#/sim/invoice-race');
    applyInitialUrl(s);
    expect(s.getState().view).toBe('simulate');
    expect(s.getState().presetId).toBe('invoice-race');
    expect(window.location.hash).toMatch(/^#v=1&s=/);
    // An edit made before the sync is installed (none is, in the app) would be undone by a second apply: it is kept.
    s.getState().setScenario(flipSwitch(s.getState().scenario, 'fencing'), 'fencing on', 'switch:fencing#x');
    const edited = s.getState().composed;
    const off = installUrlSync(s);
    expect(s.getState().composed).toBe(edited);
    off();
    // A later install (StrictMode's second mount) applies the address as before.
    const again = installUrlSync(s);
    expect(s.getState().composed).not.toBe(edited);
    expect(s.getState().presetId).toBe('invoice-race');
    again();
  });

  it('a link it cannot open: the notice, and the simulator rather than the catalogue', () => {
    const s = createLockscopeStore();
    window.history.replaceState(null, '', '#v=1&s=%%%');
    applyInitialUrl(s);
    expect(s.getState().notice?.errors[0]?.path).toBe('link.s');
    expect(s.getState().view).toBe('simulate');
  });
});
