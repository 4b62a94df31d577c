/**
 * The switch statuses computed in a Web Worker (`switchStatus.worker.ts`, one per page, started on
 * first use). `requestSwitchStatuses(s, onDone)` returns a cancel function, or null where there is
 * no `Worker` (jsdom) or it failed to start: the caller then computes them itself in idle time.
 */
import type { Scenario, SwitchStatus } from '../../sim';

/** What the page sends the worker. */
export interface SwitchStatusRequest {
  readonly seq: number;
  readonly scenario: Scenario;
}

/** What the page sends: a request, or the cancel of one not yet answered. */
export type SwitchStatusMessage = SwitchStatusRequest | { readonly cancel: number };

/** What the worker sends back: the statuses by switch id, or the error that stopped them. */
export type SwitchStatusReply =
  | { readonly seq: number; readonly statuses: readonly (readonly [string, SwitchStatus])[] }
  | { readonly seq: number; readonly error: string };

type Pending = { readonly done: (m: ReadonlyMap<string, SwitchStatus>) => void; readonly failed: () => void };

let worker: Worker | null = null;
let broken = false;
let seq = 0;
const pending = new Map<number, Pending>();

function failAll(): void {
  broken = true;
  worker?.terminate();
  worker = null;
  const all = [...pending.values()];
  pending.clear();
  for (const p of all) p.failed();
}

function ensure(): Worker | null {
  if (worker) return worker;
  if (broken || typeof Worker === 'undefined') return null;
  try {
    const w = new Worker(new URL('./switchStatus.worker.ts', import.meta.url), { type: 'module' });
    w.onmessage = (e: MessageEvent<SwitchStatusReply>) => {
      const p = pending.get(e.data.seq);
      if (!p) return;
      pending.delete(e.data.seq);
      if ('statuses' in e.data) p.done(new Map(e.data.statuses));
      else p.failed();
    };
    w.onerror = () => failAll();
    worker = w;
    return w;
  } catch {
    broken = true;
    return null;
  }
}

/**
 * Asks the worker for `switchStatuses(s)`. `onDone` gets them; `onFailed` is called if the worker
 * fails (the caller falls back to computing them itself). Returns the cancel function, or null when
 * no worker can run here.
 */
export function requestSwitchStatuses(s: Scenario, onDone: (m: ReadonlyMap<string, SwitchStatus>) => void, onFailed: () => void): (() => void) | null {
  const w = ensure();
  if (!w) return null;
  const id = ++seq;
  pending.set(id, { done: onDone, failed: onFailed });
  w.postMessage({ seq: id, scenario: s } satisfies SwitchStatusMessage);
  return () => {
    if (pending.delete(id)) worker?.postMessage({ cancel: id } satisfies SwitchStatusMessage);
  };
}
