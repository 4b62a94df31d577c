// @vitest-environment jsdom
import { registerOffline } from './offline';

function fakeWindow(register: (url: string, o: { scope: string }) => Promise<unknown>) {
  const listeners: (() => void)[] = [];
  const win = {
    navigator: { serviceWorker: { register } },
    document: { readyState: 'loading' },
    addEventListener: (_t: string, f: () => void) => listeners.push(f),
  } as unknown as Window;
  return { win, load: () => listeners.forEach((f) => f()) };
}

describe('registerOffline', () => {
  it('registers sw.js under the base path after load, in the production build only and never inside a frame', async () => {
    const calls: [string, string][] = [];
    const { win, load } = fakeWindow(async (url, o) => { calls.push([url, o.scope]); });
    expect(registerOffline(win, { enabled: false, framed: false, baseUrl: '/' })).toBe(false);
    expect(registerOffline(win, { enabled: true, framed: true, baseUrl: '/' })).toBe(false);
    expect(registerOffline(win, { enabled: true, framed: false, baseUrl: '/lockscope/' })).toBe(true);
    expect(calls).toEqual([]);
    load();
    expect(calls).toEqual([['/lockscope/sw.js', '/lockscope/']]);
  });

  it('a refused registration (storage blocked) is swallowed, not an unhandled rejection', async () => {
    let rejected = false;
    const { win, load } = fakeWindow(() => Promise.reject(new Error('denied')).finally(() => { rejected = true; }));
    const unhandled: unknown[] = [];
    const onUnhandled = (e: unknown) => unhandled.push(e);
    process.on('unhandledRejection', onUnhandled);
    registerOffline(win, { enabled: true, framed: false, baseUrl: '/' });
    load();
    await new Promise((r) => setTimeout(r, 10));
    process.off('unhandledRejection', onUnhandled);
    expect(rejected).toBe(true);
    expect(unhandled).toEqual([]);
  });
});
