/** A worker's beliefs in words ("believes it owns lease:export, token 33"). */
import type { Beliefs } from '../../sim';
import { fmtSeconds } from '../faults/faultCatalog';

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
  if (b.outcome !== null) parts.push(`outcome: ${b.outcome}`);
  if (b.incarnation > 1) parts.push(`restart #${b.incarnation - 1}`);
  return parts.length > 0 ? parts.join('; ') : 'believes nothing yet';
}
