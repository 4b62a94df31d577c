/**
 * The odds' Web Worker: runs `computeOdds` off the main thread and posts its progress and result.
 * One message in (`OddsRequest`), progress messages and one `done` or `error` out. Cancelling is
 * `worker.terminate()` by the page (the computation is one synchronous loop).
 */
import { computeOdds } from '../../sim/search/odds';
import type { OddsRequest, OddsReply } from './oddsClient';

const post = (m: OddsReply): void => (self as unknown as { postMessage(m: OddsReply): void }).postMessage(m);

self.onmessage = (e: MessageEvent<OddsRequest>) => {
  try {
    const result = computeOdds(e.data.scenario, e.data.input, { progressEvery: 25, onProgress: (p) => post({ type: 'progress', ...p }) });
    post({ type: 'done', result });
  } catch (err) {
    post({ type: 'error', message: err instanceof Error ? err.message : String(err) });
  }
};
