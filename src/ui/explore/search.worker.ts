/**
 * The fault search's Web Worker: runs one ordinal range of a search per message (`runRange`) and
 * posts back its result, then returns to its message loop (so a range is the unit of cancel).
 * Message in: `{ id, job: RangeJob }`; out: `{ id, result: RangeResult }` or `{ id, error }`.
 */
import { runRange, type RangeJob } from './coordinator';

const scope = globalThis as unknown as { onmessage: ((e: MessageEvent<{ id: number; job: RangeJob }>) => void) | null; postMessage(m: unknown): void };
scope.onmessage = (e) => {
  const { id, job } = e.data;
  try {
    scope.postMessage({ id, result: runRange(job) });
  } catch (err) {
    scope.postMessage({ id, error: err instanceof Error ? err.message : String(err) });
  }
};
