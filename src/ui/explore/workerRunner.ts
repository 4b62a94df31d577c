/**
 * Range runners backed by Web Workers (`search.worker.ts`), one per core
 * (`navigator.hardwareConcurrency`, at least 1), with an in-process fallback where there is no
 * `Worker` (jsdom, very old browsers). A stopped runner terminates its worker and starts a fresh
 * one on its next range.
 */
import { inlineRunner, type RangeJob, type RangeResult, type RangeRunner } from './coordinator';

/** A runner over one Web Worker. */
export function workerRunner(): RangeRunner {
  let worker: Worker | null = null;
  let serial = 0;
  const pending = new Map<number, { resolve: (r: RangeResult) => void; reject: (e: Error) => void }>();
  const ensure = (): Worker => {
    if (worker) return worker;
    const w = new Worker(new URL('./search.worker.ts', import.meta.url), { type: 'module' });
    w.onmessage = (e: MessageEvent<{ id: number; result?: RangeResult; error?: string }>) => {
      const p = pending.get(e.data.id);
      if (!p) return;
      pending.delete(e.data.id);
      if (e.data.result) p.resolve(e.data.result);
      else p.reject(new Error(e.data.error ?? 'the search worker failed'));
    };
    w.onerror = (e) => {
      for (const p of pending.values()) p.reject(new Error(e.message || 'the search worker failed to load'));
      pending.clear();
    };
    worker = w;
    return w;
  };
  return {
    run(job: RangeJob) {
      const id = ++serial;
      return new Promise<RangeResult>((resolve, reject) => {
        pending.set(id, { resolve, reject });
        ensure().postMessage({ id, job });
      });
    },
    stop() {
      worker?.terminate();
      worker = null;
      pending.clear();
    },
  };
}

/** How many runners the machine suits: `navigator.hardwareConcurrency`, at least 1. */
export function coreCount(): number {
  const n = typeof navigator !== 'undefined' ? navigator.hardwareConcurrency : 1;
  return Math.max(1, Number.isFinite(n) && n > 0 ? Math.floor(n) : 1);
}

/** A pool of runners: Web Workers when the platform has them, else one in-process runner. */
export function createRunners(count = coreCount()): RangeRunner[] {
  if (typeof Worker === 'undefined') return [inlineRunner()];
  return Array.from({ length: count }, () => workerRunner());
}
