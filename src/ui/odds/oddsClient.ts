/**
 * Starting an odds computation: in a Web Worker (`startOddsWorker`, the app's), or on the calling
 * thread in slices (`startOddsInline`, for component tests, where jsdom has no Worker). Both take
 * the same callbacks and return a handle whose `cancel()` stops the computation.
 */
import { computeOdds, type OddsInput, type OddsProgress, type OddsResult } from '../../sim/search/odds';
import type { Scenario } from '../../sim';

/** What the page sends the worker. */
export interface OddsRequest {
  readonly scenario: Scenario;
  readonly input: OddsInput;
}

/** What the worker sends back. */
export type OddsReply =
  | ({ readonly type: 'progress' } & OddsProgress)
  | { readonly type: 'done'; readonly result: OddsResult }
  | { readonly type: 'error'; readonly message: string };

/** Callbacks of a running computation. */
export interface OddsCallbacks {
  readonly onProgress: (p: OddsProgress) => void;
  readonly onDone: (r: OddsResult) => void;
  readonly onError: (message: string) => void;
}

/** A running computation. */
export interface OddsJob {
  /** Stops it; no callback is called afterwards. */
  cancel(): void;
}

/** Starts a computation (the panel's seam: the app passes `startOddsWorker`, tests another). */
export type StartOdds = (req: OddsRequest, cb: OddsCallbacks) => OddsJob;

/** Runs the odds in a module Web Worker (`odds.worker.ts`); cancel terminates the worker. */
export const startOddsWorker: StartOdds = (req, cb) => {
  const worker = new Worker(new URL('./odds.worker.ts', import.meta.url), { type: 'module' });
  let over = false;
  const end = () => {
    over = true;
    worker.terminate();
  };
  worker.onmessage = (e: MessageEvent<OddsReply>) => {
    if (over) return;
    const m = e.data;
    if (m.type === 'progress') cb.onProgress({ done: m.done, total: m.total });
    else if (m.type === 'done') { end(); cb.onDone(m.result); }
    else { end(); cb.onError(m.message); }
  };
  worker.onerror = (e) => {
    if (over) return;
    end();
    cb.onError(e.message || 'the odds worker failed to start');
  };
  worker.postMessage(req);
  return { cancel: end };
};

/**
 * Runs the odds on this thread, yielding between tasks (for tests and for environments without
 * Web Workers): the same result as the worker's, delivered asynchronously.
 */
export const startOddsInline: StartOdds = (req, cb) => {
  let cancelled = false;
  const timer = setTimeout(() => {
    if (cancelled) return;
    try {
      const r = computeOdds(req.scenario, req.input, { onProgress: (p) => !cancelled && cb.onProgress(p), shouldStop: () => cancelled });
      if (!cancelled) cb.onDone(r);
    } catch (err) {
      if (!cancelled) cb.onError(err instanceof Error ? err.message : String(err));
    }
  }, 0);
  return { cancel: () => { cancelled = true; clearTimeout(timer); } };
};
