/**
 * The switch statuses' Web Worker and its client, wired to each other in one thread (a stand-in
 * `Worker` that hands messages to the worker module's `self.onmessage`, cloned as postMessage
 * clones them): the statuses are the simulation core's, a cancelled request is never computed,
 * requests are answered in order, and a worker that fails hands the request back to the caller.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { findPreset, switchStatuses } from '../../sim';

type Handler = ((e: { data: unknown }) => void) | null;
const workerSelf: { onmessage: Handler; postMessage: (m: unknown) => void } = { onmessage: null, postMessage: () => {} };
const computed: number[] = [];
let instances = 0;
let failNext = false;

class StandInWorker {
  onmessage: Handler = null;
  onerror: ((e: unknown) => void) | null = null;
  constructor() {
    instances += 1;
    workerSelf.postMessage = (m) => {
      const data = structuredClone(m) as { seq: number };
      if ('statuses' in (data as object)) computed.push(data.seq);
      setTimeout(() => this.onmessage?.({ data }), 0);
    };
  }
  postMessage(m: unknown) {
    if (failNext) {
      failNext = false;
      setTimeout(() => this.onerror?.(new Error('boom')), 0);
      return;
    }
    workerSelf.onmessage?.({ data: structuredClone(m) });
  }
  terminate() {}
}

let client: typeof import('./switchStatusClient');
beforeAll(async () => {
  vi.stubGlobal('Worker', StandInWorker);
  vi.stubGlobal('self', workerSelf);
  await import('./switchStatus.worker');
  client = await import('./switchStatusClient');
});
afterAll(() => vi.unstubAllGlobals());

const ask = (s: Parameters<typeof switchStatuses>[0]) =>
  new Promise<ReadonlyMap<string, unknown>>((resolve, reject) => {
    client.requestSwitchStatuses(s, resolve, () => reject(new Error('failed')));
  });

describe('switch statuses in a Web Worker', () => {
  it('answers with the simulation core’s statuses, for one preset after another, in one worker', async () => {
    for (const id of ['export-lease-expiry', 'invoice-race', 'fenced-db-write']) {
      const s = findPreset(id)!.withoutFix;
      expect(await ask(s)).toEqual(switchStatuses(s));
    }
    expect(instances).toBe(1);
  });

  it('never computes a request cancelled before its turn, and still answers the next one', async () => {
    const a = findPreset('unsafe-release')!.withoutFix;
    const b = findPreset('unsafe-release')!.withFix;
    const before = computed.length;
    const got = vi.fn();
    const cancel = client.requestSwitchStatuses(a, got, () => {});
    expect(cancel).not.toBeNull();
    cancel!();
    expect(await ask(b)).toEqual(switchStatuses(b));
    expect(got).not.toHaveBeenCalled();
    expect(computed.length - before).toBe(1);
  });

  it('hands a request back to the caller when the worker fails, and then offers no worker', async () => {
    failNext = true;
    const s = findPreset('manual-unlock')!.withoutFix;
    const failed = await new Promise<boolean>((resolve) => {
      client.requestSwitchStatuses(s, () => resolve(false), () => resolve(true));
    });
    expect(failed).toBe(true);
    expect(client.requestSwitchStatuses(s, () => {}, () => {})).toBeNull();
  });
});
