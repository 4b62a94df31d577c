/**
 * Which resources a scenario can touch, from its steps, job, mechanism and faults (no run): the
 * panels show what the scenario has — a destination lane and a "Destination" section only when
 * something can write to it, the connection pool only when something talks to the database.
 */
import type { Scenario } from '../scenario/schema';

const DB_STEPS = new Set(['connect', 'disconnect', 'begin', 'commit', 'read', 'enqueue', 'record']);

const hasStep = (s: Scenario, step: string) => s.workers.some((w) => w.steps.some((x) => x.do === step));

/**
 * True when something can write to the destination (file store or external API): a job of kind
 * `external` with an `effect` step, or an admin-script fault (which writes it directly for an
 * external job). A scenario whose workers only take and release a lease has none.
 */
export function usesDestination(s: Scenario): boolean {
  return s.job.kind === 'external' && (hasStep(s, 'effect') || s.faults.some((f) => f.kind === 'adminBypass'));
}

/**
 * True when something can talk to PostgreSQL: a database step (connect, begin, commit, read,
 * enqueue, record), an effect or check of a database job, a check that reads the job record, an
 * advisory lock, a fencing token from a database sequence, or an admin script.
 */
export function usesDatabase(s: Scenario): boolean {
  const steps = s.workers.flatMap((w) => w.steps.map((x) => x.do));
  if (steps.some((d) => DB_STEPS.has(d))) return true;
  if (s.job.kind !== 'external' && (steps.includes('effect') || steps.includes('check'))) return true;
  if (steps.includes('check') && s.mechanism.jobRecord) return true;
  if (steps.includes('acquire') && s.mechanism.lock.startsWith('advisory')) return true;
  // A lease whose fencing token comes from a database sequence: SELECT nextval('fence_seq').
  if (steps.includes('acquire') && s.mechanism.lock === 'lease' && s.mechanism.fencing && s.mechanism.fenceSource === 'db-sequence') return true;
  return s.faults.some((f) => f.kind === 'adminBypass');
}
