/**
 * The switch statuses' Web Worker: `switchStatuses` of the simulation core (one run per other
 * value of each shown switch) off the main thread, so that an edit's second never holds a long
 * task for them however long the run (a 2,000-event run is ~50 ms a run). Messages in:
 * `{ seq, scenario }` (computed in order, one a task) and `{ cancel: seq }` (an edit that came
 * before its turn: never computed). Out: `{ seq, statuses: [id, status][] }` or `{ seq, error }`.
 */
import { switchStatuses } from '../../sim';
import type { SwitchStatusMessage, SwitchStatusRequest, SwitchStatusReply } from './switchStatusClient';

const post = (m: SwitchStatusReply): void => (self as unknown as { postMessage(m: SwitchStatusReply): void }).postMessage(m);
/** Requests not yet computed, oldest first; a cancel removes its request before its turn. */
const queue = new Map<number, SwitchStatusRequest>();
let scheduled = false;

function work(): void {
  scheduled = false;
  const next = queue.entries().next();
  if (next.done) return;
  const [seq, req] = next.value;
  queue.delete(seq);
  try {
    post({ seq, statuses: [...switchStatuses(req.scenario)] });
  } catch (err) {
    post({ seq, error: err instanceof Error ? err.message : String(err) });
  }
  schedule();
}

function schedule(): void {
  // One request a task: the cancels that arrived meanwhile are handled first.
  if (!scheduled && queue.size > 0) {
    scheduled = true;
    setTimeout(work, 0);
  }
}

self.onmessage = (e: MessageEvent<SwitchStatusMessage>) => {
  const m = e.data;
  if ('cancel' in m) queue.delete(m.cancel);
  else queue.set(m.seq, m);
  schedule();
};
