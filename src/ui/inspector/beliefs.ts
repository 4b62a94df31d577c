/** A worker's beliefs in words ("believes it owns lease:export, token 33"). */
import type { Beliefs, WorkerOutcome } from '../../sim';
import { fmtSeconds } from '../faults/faultCatalog';

/** How a job ended, in words (the inspector never shows the model's internal names). */
export const OUTCOME_WORDS: Record<WorkerOutcome, string> = {
  completed: 'completed the job',
  loadedExisting: 'loaded the existing row',
  alreadyDone: 'found the job already done',
  soldOut: 'found it sold out',
  failed: 'the job failed',
  stopped: 'stopped before writing',
  gaveUp: 'gave up waiting',
  skipped: 'skipped the job (the lock was taken)',
  crashed: 'crashed',
  noJob: 'found no job to do',
  shutDown: 'shut down and handed its job back',
};

/** Plain-words description of what a worker believes; empty beliefs → "believes nothing yet". */
export function beliefsInWords(b: Beliefs, leaseKey: string): string {
  const parts: string[] = [];
  if (b.ownsLease) {
    parts.push(`believes it owns ${leaseKey}${b.fencingToken !== null ? `, token ${b.fencingToken}` : ''}${b.leaseBelievedUntilMs !== null ? ` (until ${fmtSeconds(b.leaseBelievedUntilMs)})` : ''}`);
  } else if (b.fencingToken !== null) parts.push(`last fencing token ${b.fencingToken}`);
  if (b.holdsLock) parts.push('believes it holds the advisory lock');
  if (b.connection !== null) parts.push(`uses connection ${b.connection}${b.inTransaction ? ', in a transaction' : ''}`);
  if (b.readValue !== null) parts.push(`read the value ${b.readValue}`);
  if (b.renewFailed) parts.push('knows a renewal failed');
  if (b.refusedAsStale) parts.push('knows it lost the lease: its write was refused as stale');
  if (b.outcome !== null) parts.push(`outcome: ${OUTCOME_WORDS[b.outcome]}`);
  if (b.incarnation > 1) parts.push(`restart #${b.incarnation - 1}`);
  return parts.length > 0 ? parts.join('; ') : 'believes nothing yet';
}
