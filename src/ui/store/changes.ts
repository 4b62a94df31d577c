/**
 * What changed between two runs, in words, for the badge shown after a fault edit or a
 * mechanism switch ("+1 duplicate upload", "stale write rejected", "verdict: held → violated").
 */
import type { RunResult } from '../../sim';

function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

function signed(n: number, one: string, many?: string): string {
  return `${n > 0 ? '+' : '−'}${plural(Math.abs(n), one, many)}`;
}

/** Counts per destination write status in the final snapshot (or zeros). */
function writeCounts(run: RunResult): { rejected: number; dedup: number; performed: number } {
  const writes = run.snapshots?.at(-1)?.destination.writes ?? [];
  return {
    rejected: writes.filter((w) => w.status === 'rejected').length,
    dedup: writes.filter((w) => w.status === 'deduplicated').length,
    performed: writes.filter((w) => w.performed).length,
  };
}

/** Lines describing how `after` differs from `before`; empty when nothing the user cares about changed. */
export function describeChange(before: RunResult, after: RunResult): string[] {
  const out: string[] = [];
  if (before.verdict.status !== after.verdict.status) {
    out.push(`verdict: ${before.verdict.status} → ${after.verdict.status}`);
  }
  const effect = after.scenario.destination.kind === 'file' && after.scenario.job.kind === 'external' ? 'upload'
    : after.scenario.job.kind === 'external' ? 'effect'
    : 'row';
  const dDup = after.metrics.duplicateEffects - before.metrics.duplicateEffects;
  if (dDup !== 0) out.push(signed(dDup, `duplicate ${effect}`));
  const dStale = after.metrics.staleWritesRejected - before.metrics.staleWritesRejected;
  if (dStale > 0) out.push(dStale === 1 ? 'stale write rejected' : `${dStale} stale writes rejected`);
  else if (dStale < 0) out.push(signed(dStale, 'stale write rejected', 'stale writes rejected'));
  const dRenew = after.metrics.renewFailures - before.metrics.renewFailures;
  if (dRenew !== 0) out.push(signed(dRenew, 'renew failure'));
  const wb = writeCounts(before);
  const wa = writeCounts(after);
  if (wa.dedup !== wb.dedup) out.push(signed(wa.dedup - wb.dedup, 'write deduplicated', 'writes deduplicated'));
  const vb = new Set(before.verdict.violations.map((v) => v.message));
  for (const v of after.verdict.violations) if (!vb.has(v.message)) out.push(`new: ${v.message}`);
  const va = new Set(after.verdict.violations.map((v) => v.message));
  for (const v of before.verdict.violations) if (!va.has(v.message)) out.push(`gone: ${v.message}`);
  if (after.error && after.error !== before.error) out.push(`run stopped early: ${after.error}`);
  return out;
}
