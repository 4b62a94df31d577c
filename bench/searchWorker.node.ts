/** The Node twin of src/ui/explore/search.worker.ts for `bench/search.bench.ts`: one range per message (worker_threads). */
import { parentPort } from 'node:worker_threads';
import { runRange, type RangeJob } from '../src/ui/explore/coordinator';

parentPort!.on('message', (m: { id: number; job: RangeJob }) => {
  try {
    parentPort!.postMessage({ id: m.id, result: runRange(m.job) });
  } catch (e) {
    parentPort!.postMessage({ id: m.id, error: e instanceof Error ? e.message : String(e) });
  }
});
