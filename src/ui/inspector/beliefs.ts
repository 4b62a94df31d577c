/** A worker's beliefs in words ("believes it owns lease:export, token 33"). */
import { fmtList, type Beliefs, type Scenario, type WorkerOutcome } from '../../sim';
import { fmtSeconds } from '../faults/faultCatalog';

/** How a job ended, in words (the inspector never shows the model's internal names). */
export const OUTCOME_WORDS: Record<WorkerOutcome, string> = {
  completed: 'completed the job',
  loadedExisting: 'loaded the existing row',
  alreadyDone: 'found the job already done',
  soldOut: 'found it sold out',
  noRow: 'got no row to work on',
  failed: 'the job failed',
  stopped: 'stopped: it could not keep its lease',
  skipped: 'skipped the job (it did not get the lock)',
  crashed: 'crashed',
  noJob: 'found no job to do',
  shutDown: 'shut down and handed its job back',
};

/**
 * The lock a worker's `holdsLock` belief is about, in words, from what its scenario makes it take:
 * "advisory lock 42" (the mechanism's key, or its `acquire` steps' own), "one of advisory locks 1
 * and 2" when its steps take several (the belief does not say which it still holds), "a row lock
 * (SELECT … FOR UPDATE)" when the mechanism's row lock is on; "a lock" for an actor with no steps
 * of its own. The belief covers both kinds (workerMachine.ts `Beliefs.holdsLock`).
 */
export function heldLockWords(scenario: Scenario, workerId: string): string {
  const m = scenario.mechanism;
  const worker = scenario.workers.find((w) => w.id === workerId);
  const advisory = m.lock === 'advisory-session' || m.lock === 'advisory-xact';
  const keys = advisory && worker ? [...new Set(worker.steps.flatMap((st) => (st.do === 'acquire' ? [st.advisoryKey ?? m.advisoryKey] : [])))] : [];
  const parts: string[] = [];
  if (keys.length === 1) parts.push(`advisory lock ${keys[0]}`);
  else if (keys.length > 1) parts.push(`one of advisory locks ${fmtList(keys.map(String))}`);
  if (m.rowLock === 'forUpdate' || m.rowLock === 'forUpdateNowait' || m.rowLock === 'forUpdateSkipLocked') parts.push('a row lock (SELECT … FOR UPDATE)');
  return parts.length === 0 ? 'a lock' : parts.join(' or ');
}

/**
 * Plain-words description of what a worker believes; empty beliefs → "believes nothing yet".
 * `lockWords` names the lock `holdsLock` is about (`heldLockWords`; default "a lock").
 */
export function beliefsInWords(b: Beliefs, leaseKey: string, lockWords = 'a lock'): string {
  const parts: string[] = [];
  if (b.ownsLease) {
    parts.push(`believes it owns ${leaseKey}${b.fencingToken !== null ? `, token ${b.fencingToken}` : ''}${b.leaseBelievedUntilMs !== null ? ` (until ${fmtSeconds(b.leaseBelievedUntilMs)})` : ''}`);
  } else if (b.fencingToken !== null) parts.push(`last fencing token ${b.fencingToken}`);
  if (b.holdsLock) parts.push(`believes it holds ${lockWords}`);
  if (b.connection !== null) parts.push(`uses connection ${b.connection}${b.inTransaction ? ', in a transaction' : ''}`);
  if (b.readValue !== null) parts.push(`read the value ${b.readValue}`);
  if (b.renewFailed) parts.push('knows a renewal failed');
  if (b.refusedAsStale) parts.push('knows it lost the lease: its write was refused as stale');
  if (b.outcome !== null) parts.push(`outcome: ${OUTCOME_WORDS[b.outcome]}`);
  if (b.incarnation > 1) parts.push(`restart #${b.incarnation - 1}`);
  return parts.length > 0 ? parts.join('; ') : 'believes nothing yet';
}
